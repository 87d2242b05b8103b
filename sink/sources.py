"""Spark Python streaming data sources over Debezium records, read in parallel on executors.

`dbz_dir`: the `DIR/<topic>.jsonl` files the emulator appends to (files grow, so Spark's own file source,
which treats files as immutable, cannot follow them). Offsets are {file: byte offset of the next complete
line}; a partial last line is left for the next batch. A micro-batch is cut into line-aligned byte ranges,
one Spark partition each.

`dbz_kafka`: Kafka through confluent-kafka. Offsets are {"topic:partition": next offset}; a micro-batch is one
Spark partition per offset range of a Kafka partition (long ranges cut in several). End offsets come from the
Fetch response's high watermark, never ListOffsets(latest) (Tansu answers it wrongly).

Both readers run `read` on executors and yield Arrow batches of the split record (`sink.split`): key and value
payload texts, fingerprints of their Connect schemas, and each schema's text once per partition; each partition
ends with its survey rows (`sink.stats`).
"""

from __future__ import annotations

import os

from pyspark.sql.datasource import DataSource, DataSourceStreamReader, InputPartition
from pyspark.sql.streaming.datasource import SupportsTriggerAvailableNow

from sink.oldkey import key_schema, oldkey_entry
from sink.split import Batcher
from sink.stats import READ_SCHEMA, Survey, counted

# 512 MB, not 256: each micro-batch costs the driver its planning, delete-log write and MERGE, and fewer batches
# also mean fewer winners per key; the 200k benchmark at local[2] took 2-2.6 s less CPU per run (2 batches
# instead of 3-4) at the same peak RSS (1.39-1.42 GB); 1 GB (one batch) saved more on changes but the JVM's
# peak rose to 663-705 MB, the tree's to 1.47-1.48 GB (docs/sink.md, session 14)
DEFAULT_BATCH_BYTES = 512 << 20
# one Spark task per 32 MB of a file: each task costs the JVM its (de)serialization and scheduling and the
# Python worker its per-partition set-up; against 16 MB, a 200k-change run (local[2]) took 1.5 s less of the
# JVM's CPU and 0.6 s less of the workers' (docs/sink.md, session 12). A partition still splits 16 MB at a time
DEFAULT_PART_BYTES = 32 << 20
# a micro-batch is also bounded by records, for both sources: what a batch costs in memory (the JVM's shuffle
# and sort of the winners, the final rows on the driver) follows its records more than its bytes. 512 MB of a
# 3-column table's records (234k of ~2.3 KB) put the 1M-change run's peak RSS at 1.67 GB against 1.39-1.44 GB
# for the 10-column benchmark's 512 MB (134-160k records); 150k keeps that benchmark at its 2 batches
# (docs/sink.md, session 15). Kafka's batches were bounded by 1M records only (session 16: the same bound)
DEFAULT_BATCH_RECORDS = 150_000
# lines are counted exactly in ranges up to SAMPLES * SAMPLE_BYTES; a longer range's line density is sampled
# there: counting all of a 512 MB batch cost the offset runner, which runs before each batch, 0.21 CPU-s and
# 1.5-5 s of wall time at load 20 (a read of the whole range); the bound is for memory, so "about" is enough
SAMPLES = 16
SAMPLE_BYTES = 64 << 10
DEFAULT_PART_RECORDS = 100_000
READ_BLOCK = 16 << 20  # bytes split at once (sink.lines): ~3.5k records of 4.7 KB


class DirSource(DataSource):
    @classmethod
    def name(cls) -> str:
        return "dbz_dir"

    def schema(self) -> str:
        return READ_SCHEMA

    def streamReader(self, schema):
        o = self.options
        return DirReader(
            o["path"],
            int(o.get("maxBytesPerBatch", DEFAULT_BATCH_BYTES)),
            int(o.get("bytesPerPartition", DEFAULT_PART_BYTES)),
            _avro(o, os.path.join(o["path"], "registry.json")),
            int(o.get("maxRecordsPerBatch", DEFAULT_BATCH_RECORDS)),
        )


def released(batches):
    """The batches, then the Arrow memory pool's free pages handed back to the OS. A Python worker is reused
    and idles between tasks (through the driver's MERGE too) holding what its partitions freed: reading four
    16 MB partitions of bench_sink.py's changes in one process left 234 MB RSS, 172 MB with the release."""
    yield from batches
    import pyarrow as pa

    pa.default_memory_pool().release_unused()


def complete_ends(path: str) -> dict[str, int]:
    """{file name: offset just past its last newline} for every *.jsonl under path."""
    out = {}
    try:
        names = sorted(os.listdir(path))
    except FileNotFoundError:
        return out
    for n in names:
        if not n.endswith(".jsonl") or n.startswith((".", "_")):
            continue
        with open(os.path.join(path, n), "rb") as f:
            size = f.seek(0, 2)
            pos = size
            while pos > 0:
                step = min(pos, 1 << 16)
                f.seek(pos - step)
                chunk = f.read(step)
                i = chunk.rfind(b"\n")
                if i >= 0:
                    out[n] = pos - step + i + 1
                    break
                pos -= step
            else:
                out[n] = 0
    return out


def _next_line(path: str, at: int, end: int) -> int:
    """The first line start at or after `at` (at most `end`)."""
    with open(path, "rb") as f:
        return _line_start_from(f, at, end)


def _line_start_from(f, at: int, end: int) -> int:
    """`_next_line` on an open file."""
    f.seek(at - 1)
    while True:
        chunk = f.read(1 << 16)
        if not chunk:
            return end
        i = chunk.find(b"\n")
        if i >= 0:
            return min(at + i, end)
        at += len(chunk)


def _line_start_before(f, s: int, limit: int) -> int:
    """The last line start in (s, limit], `s` if none: backwards from the limit in 64 KB steps, so that
    finding a cut never reads (and holds) the bytes before it."""
    pos = limit
    while pos > s:
        step = min(pos - s, 1 << 16)
        f.seek(pos - step)
        i = f.read(step).rfind(b"\n")
        if i >= 0:
            return pos - step + i + 1
        pos -= step
    return s


def _count(f, s: int, e: int, n: int) -> tuple[int, int]:
    """The end of the first `n` lines of [s, e) (`e` is a line end) and how many lines that is, counted."""
    f.seek(s)
    data = f.read(e - s)
    c = data.count(b"\n")
    if c < n:
        return e, c
    i = -1
    for _ in range(n):
        i = data.find(b"\n", i + 1)
    return s + i + 1, n


def _lines_end(path: str, s: int, e: int, n: int) -> tuple[int, int]:
    """About the end of the first `n` lines of [s, e) (`e` is a line end) and how many lines that is. A long
    range is read in SAMPLES evenly spaced windows of SAMPLE_BYTES only: each window's line density stands for
    its segment of the range, the cut is placed where the estimated count reaches `n` and moved back to a line
    start (forward when that would leave no line)."""
    with open(path, "rb") as f:
        if e - s <= SAMPLES * SAMPLE_BYTES:
            return _count(f, s, e, n)
        seg = (e - s) / SAMPLES
        total = 0.0
        for k in range(SAMPLES):
            a = s + int(k * seg)
            f.seek(a)
            lines = f.read(SAMPLE_BYTES).count(b"\n") * seg / SAMPLE_BYTES
            if total + lines >= n:
                cut = _line_start_before(f, s, int(a + (n - total) / lines * seg))
                cut = cut if cut > s else _line_start_from(f, s + 1, e)
                return cut, n
            total += lines
        return e, round(total)


class FileRange(InputPartition):
    def __init__(self, file: str, start: int, end: int) -> None:
        super().__init__((file, start, end))
        self.file, self.start, self.end = file, start, end


def _avro(options, file: str | None):
    """The Avro decoder for Confluent-framed records: the registry at `schemaRegistryUrl` (a `mock://` URL,
    or none, means the directory output's registry.json)."""
    from sink.avro import AvroDecoder

    url = options.get("schemaRegistryUrl") or None
    if url and url.startswith("mock://"):
        url = None
    return AvroDecoder(url, None if url else file)


class DirReader(DataSourceStreamReader, SupportsTriggerAvailableNow):
    def __init__(
        self,
        path: str,
        max_bytes: int,
        part_bytes: int,
        avro=None,
        max_records: int = DEFAULT_BATCH_RECORDS,
    ) -> None:
        self.path = path
        self.avro = avro
        self.max_bytes = max_bytes
        self.max_records = max(1, max_records)
        self.part_bytes = part_bytes
        self.target: dict[str, int] | None = None

    def initialOffset(self) -> dict:
        return {}

    def prepareForTriggerAvailableNow(self) -> None:
        self.target = complete_ends(self.path)

    def latestOffset(self, start: dict | None = None, limit=None) -> dict:
        start = start or {}
        ends = self.target if self.target is not None else complete_ends(self.path)
        end = dict(start)
        budget, records = self.max_bytes, self.max_records
        for f, e in ends.items():
            s = start.get(f, 0)
            if e <= s or budget <= 0 or records <= 0:
                continue
            if e - s > budget:
                cut = self._cut(f, s, s + budget)
                # one line longer than the budget: taken whole, else no batch would ever get past it
                e = cut if cut > s else _next_line(os.path.join(self.path, f), s + 1, e)
            e, n = _lines_end(os.path.join(self.path, f), s, e, records)
            budget -= e - s
            records -= n
            end[f] = e
        return end

    def _cut(self, f: str, s: int, limit: int) -> int:
        # backwards from the limit in 64 KB steps: reading the whole budget (256 MB) made this process hold it
        with open(os.path.join(self.path, f), "rb") as fh:
            return _line_start_before(fh, s, limit)

    def partitions(self, start: dict, end: dict):
        parts = []
        for f, e in sorted(end.items()):
            s = start.get(f, 0)
            full = os.path.join(self.path, f)
            while s < e:
                cut = e if e - s <= self.part_bytes else _next_line(full, s + self.part_bytes, e)
                parts.append(FileRange(full, s, cut))
                s = cut
        return parts

    def read(self, partition: FileRange):
        """The partition's record batches, then its survey rows (`sink.stats`)."""
        s = Survey()
        return released(counted(self._read(partition, s), s))

    def _read(self, partition: FileRange, survey: Survey):
        """Blocks of whole lines, each split column-wise (`sink.lines`); lines not in the fast form go
        through the per-line split (`sink.split.Batcher`)."""
        from sink.lines import split_block

        name = os.path.basename(partition.file)
        topic = name[: -len(".jsonl")]
        b = Batcher(self.avro)
        survey.known = b.known
        pos, end = partition.start, partition.end
        with open(partition.file, "rb") as fh:
            while pos < end:
                # each block read once, exactly up to its last line end (found by a small probe): before, a
                # block was the previous block's tail + the next 16 MB, then cut, which made three copies of
                # a block live at once (a worker's peak 223 MB against 187 with 32 MB partitions)
                stop = min(end, pos + READ_BLOCK)
                if stop < end:
                    cut = _line_start_before(fh, pos, stop)
                    stop = cut if cut > pos else _line_start_from(fh, stop, end)  # a line over a block
                fh.seek(pos)
                data = fh.read(stop - pos)
                if not data:
                    break
                cut = len(data) if data[-1] == 10 else data.rfind(b"\n") + 1
                if cut:
                    rb, _ = split_block(data if cut == len(data) else data[:cut], pos, topic, name, b)
                    if rb is not None:
                        yield rb
                if cut < len(data) and data[cut:].strip():  # a range that does not end at a newline: its
                    b.add_line(topic, name, pos + cut, data[cut:])  # last line as it is
                pos += len(data)
                if b.full():
                    yield b.flush()
        if b.rows:
            yield b.flush()

    def commit(self, end: dict) -> None:
        pass


class KafkaSource(DataSource):
    @classmethod
    def name(cls) -> str:
        return "dbz_kafka"

    def schema(self) -> str:
        return READ_SCHEMA

    def streamReader(self, schema):
        o = self.options
        return KafkaReader(
            o["bootstrap"],
            o.get("topicPattern", ""),
            int(o.get("maxRecordsPerBatch", DEFAULT_BATCH_RECORDS)),
            int(o.get("recordsPerPartition", DEFAULT_PART_RECORDS)),
            _avro(o, None) if o.get("schemaRegistryUrl") else None,
        )


def _skip_topic(t: str) -> bool:
    return t.startswith("_") or t.startswith("connect-") or "schema-changes" in t or "schemahistory" in t


def consumer(bootstrap: str):
    from confluent_kafka import Consumer

    return Consumer(
        {
            "bootstrap.servers": bootstrap,
            "group.id": "dbz-sink-reader",
            "enable.auto.commit": False,
            "enable.partition.eof": True,
            "auto.offset.reset": "earliest",
            "session.timeout.ms": 6000,
            "isolation.level": "read_committed",
            "socket.timeout.ms": 10000,
        }
    )


class KafkaLines:
    """Kafka records as directory-output lines (`{"key":K,"value":V[,"headers":[...]]}`), split a block at a
    time by `sink.lines` with their offsets as positions; what a line cannot carry goes to the Batcher."""

    def __init__(self, topic: str, tp: str, b: Batcher) -> None:
        self.topic, self.tp, self.b = topic, tp, b
        self.parts: list[bytes] = []
        self.offsets: list[int] = []
        self.size = 0

    def add(self, offset: int, key, value, headers) -> None:
        if (key is not None and (key[:1] == b"\x00" or b"\n" in key)) or (
            value is not None and (value[:1] == b"\x00" or b"\n" in value)
        ):
            self.b.add_record(self.topic, self.tp, offset, key, value, headers)
            return
        hdr = b""
        for name, h in headers or ():
            if name == "__debezium.oldkey" and h and h[:1] == b"{" and key is not None:
                entry = oldkey_entry(h, key_schema(key))  # as JsonConverter writes it, whatever the converter
                if entry is not None:
                    hdr = b',"headers":[["__debezium.oldkey",' + entry + b"]]"
        line = b'{"key":%b,"value":%b%b}\n' % (
            b"null" if key is None else key,
            b"null" if value is None else value,
            hdr,
        )
        self.parts.append(line)
        self.offsets.append(offset)
        self.size += len(line)

    def flush(self):
        if not self.parts:
            return
        import numpy as np

        from sink.lines import split_block

        data = b"".join(self.parts)
        offsets = np.array(self.offsets, np.int64)
        self.parts, self.offsets, self.size = [], [], 0
        rb, _ = split_block(data, 0, self.topic, self.tp, self.b, offsets)
        if rb is not None:
            yield rb


class OffsetRange(InputPartition):
    def __init__(self, tp: str, start: int, end: int) -> None:
        super().__init__((tp, start, end))
        self.tp, self.start, self.end = tp, start, end


class KafkaReader(DataSourceStreamReader, SupportsTriggerAvailableNow):
    def __init__(self, bootstrap: str, pattern: str, max_records: int, part_records: int, avro=None) -> None:
        self.bootstrap = bootstrap
        self.avro = avro
        self.pattern = pattern
        self.max_records = max_records
        self.part_records = part_records
        self.target: dict[str, int] | None = None

    def initialOffset(self) -> dict:
        return {}

    def _partitions(self, c) -> list[str]:
        import re

        md = c.list_topics(timeout=10)
        out = []
        for t, tm in md.topics.items():
            if _skip_topic(t) or (self.pattern and not re.fullmatch(self.pattern, t)):
                continue
            out.extend(f"{t}:{p}" for p in tm.partitions)
        return sorted(out)

    def _ends(self) -> dict[str, int]:
        """{topic:partition: high watermark}, taken from Fetch responses: each partition is fetched from its
        start until the first message or EOF, then the consumer's cached watermark is read."""
        from confluent_kafka import OFFSET_BEGINNING, KafkaError, TopicPartition

        c = consumer(self.bootstrap)
        try:
            parts = self._partitions(c)
            if not parts:
                return {}
            tps = {tp: TopicPartition(tp.rsplit(":", 1)[0], int(tp.rsplit(":", 1)[1])) for tp in parts}
            c.assign([TopicPartition(x.topic, x.partition, OFFSET_BEGINNING) for x in tps.values()])
            seen: set[str] = set()
            while len(seen) < len(tps):
                for m in c.consume(1000, 1.0):
                    if m.error() and m.error().code() != KafkaError._PARTITION_EOF:
                        raise RuntimeError(str(m.error()))
                    tp = f"{m.topic()}:{m.partition()}"
                    if tp in tps and tp not in seen:
                        seen.add(tp)
                        c.pause([tps[tp]])
            return {tp: c.get_watermark_offsets(x, cached=True)[1] for tp, x in tps.items()}
        finally:
            c.close()

    def prepareForTriggerAvailableNow(self) -> None:
        self.target = self._ends()

    def latestOffset(self, start: dict | None = None, limit=None) -> dict:
        start = start or {}
        ends = self.target if self.target is not None else self._ends()
        end = dict(start)
        budget = self.max_records
        for tp, e in sorted(ends.items()):
            s = start.get(tp, 0)
            if e <= s or budget <= 0:
                continue
            e = min(e, s + budget)
            budget -= e - s
            end[tp] = e
        return end

    def partitions(self, start: dict, end: dict):
        parts = []
        for tp, e in sorted(end.items()):
            s = start.get(tp, 0)
            while s < e:
                cut = min(e, s + self.part_records)
                parts.append(OffsetRange(tp, s, cut))
                s = cut
        return parts

    def read(self, partition: OffsetRange):
        """The partition's record batches, then its survey rows (`sink.stats`)."""
        s = Survey()
        return released(counted(self._read(partition, s), s))

    def _read(self, partition: OffsetRange, survey: Survey):
        """JsonConverter records are joined into directory-output lines and split a block at a time
        (`sink.lines`); Avro (Confluent framing) and records whose bytes hold a newline, per record."""
        from confluent_kafka import KafkaError, TopicPartition

        t, p = partition.tp.rsplit(":", 1)
        c = consumer(self.bootstrap)
        b = Batcher(self.avro)
        survey.known = b.known
        lines = KafkaLines(t, partition.tp, b)
        try:
            c.assign([TopicPartition(t, int(p), partition.start)])
            done = False
            while not done:
                for m in c.consume(1000, 5.0):
                    if m.error():
                        if m.error().code() == KafkaError._PARTITION_EOF:
                            done = True
                            continue
                        raise RuntimeError(str(m.error()))
                    if m.offset() >= partition.end:
                        done = True
                        break
                    lines.add(m.offset(), m.key(), m.value(), m.headers())
                    if m.offset() >= partition.end - 1:
                        done = True
                        break
                if lines.size >= READ_BLOCK:
                    yield from lines.flush()
                if b.full():
                    yield b.flush()
        finally:
            c.close()
        yield from lines.flush()
        if b.rows:
            yield b.flush()

    def commit(self, end: dict) -> None:
        pass
