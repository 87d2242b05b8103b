"""Spark Python streaming data sources over the emulator's output.

`dbz_dir`: the `DIR/<topic>.jsonl` files the emulator appends to (files grow, so Spark's own file source,
which treats files as immutable, cannot follow them). Offsets are {file: byte offset of the next complete
line}; a partial last line is left for the next batch.

`dbz_kafka`: Kafka through confluent-kafka. Offsets are {"topic:partition": next offset}. End offsets come
from consuming to EOF / the Fetch-response high watermark, never ListOffsets(latest) (Tansu answers it
wrongly). Both readers are "simple" readers (run on the driver) and support Trigger.AvailableNow.
"""

from __future__ import annotations

from pyspark.sql.datasource import DataSource, SimpleDataSourceStreamReader
from pyspark.sql.streaming.datasource import SupportsTriggerAvailableNow

SCHEMA = "topic string, key string, value string, line string, part string, pos long"


class DirSource(DataSource):
    @classmethod
    def name(cls) -> str:
        return "dbz_dir"

    def schema(self) -> str:
        return SCHEMA

    def simpleStreamReader(self, schema):
        return DirReader(self.options["path"], int(self.options.get("maxBytesPerBatch", 64 << 20)))


def complete_ends(path: str) -> dict[str, int]:
    """{file name: offset just past its last newline} for every *.jsonl under path."""
    import os

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


class DirReader(SimpleDataSourceStreamReader, SupportsTriggerAvailableNow):
    def __init__(self, path: str, max_bytes: int) -> None:
        self.path = path
        self.max_bytes = max_bytes
        self.target: dict[str, int] | None = None

    def initialOffset(self) -> dict:
        return {}

    def prepareForTriggerAvailableNow(self) -> None:
        self.target = complete_ends(self.path)

    def read(self, start: dict):
        ends = self.target if self.target is not None else complete_ends(self.path)
        end = dict(start)
        budget = self.max_bytes
        for f, e in ends.items():
            s = start.get(f, 0)
            if e <= s or budget <= 0:
                continue
            if e - s > budget:
                e = self._cut(f, s, s + budget)
                if e <= s:
                    continue
            budget -= e - s
            end[f] = e
        return self.readBetweenOffsets(start, end), end

    def _cut(self, f: str, s: int, limit: int) -> int:
        import os

        with open(os.path.join(self.path, f), "rb") as fh:
            fh.seek(s)
            data = fh.read(limit - s)
        i = data.rfind(b"\n")
        return s + i + 1 if i >= 0 else s

    def readBetweenOffsets(self, start: dict, end: dict):
        import os

        rows = []
        for f, e in sorted(end.items()):
            s = start.get(f, 0)
            if e <= s:
                continue
            topic = f[: -len(".jsonl")]
            with open(os.path.join(self.path, f), "rb") as fh:
                fh.seek(s)
                data = fh.read(e - s)
            pos = s
            for line in data.split(b"\n")[:-1]:
                if line.strip():
                    rows.append((topic, None, None, line.decode(), f, pos))
                pos += len(line) + 1
        return iter(rows)


class KafkaSource(DataSource):
    @classmethod
    def name(cls) -> str:
        return "dbz_kafka"

    def schema(self) -> str:
        return SCHEMA

    def simpleStreamReader(self, schema):
        return KafkaReader(
            self.options["bootstrap"],
            self.options.get("topicPattern", ""),
            int(self.options.get("maxRecordsPerBatch", 200_000)),
        )


def _oldkey_header(headers) -> bytes | None:
    """`__debezium.oldkey` as JsonConverter bytes (with schema), if the record has it in that form."""
    for name, value in headers or ():
        if name == "__debezium.oldkey" and value and value[:1] == b"{" and b'"payload"' in value:
            return value
    return None


def _skip_topic(t: str) -> bool:
    return t.startswith("_") or t.startswith("connect-") or "schema-changes" in t or "schemahistory" in t


class KafkaReader(SimpleDataSourceStreamReader, SupportsTriggerAvailableNow):
    def __init__(self, bootstrap: str, pattern: str, max_records: int) -> None:
        self.bootstrap = bootstrap
        self.pattern = pattern
        self.max_records = max_records
        self.target: dict[str, int] | None = None

    def _consumer(self):
        from confluent_kafka import Consumer

        return Consumer(
            {
                "bootstrap.servers": self.bootstrap,
                "group.id": "dbz-sink-reader",
                "enable.auto.commit": False,
                "enable.partition.eof": True,
                "auto.offset.reset": "earliest",
                "session.timeout.ms": 6000,
                "isolation.level": "read_committed",
            }
        )

    def _partitions(self, c) -> list[str]:
        import re

        md = c.list_topics(timeout=10)
        out = []
        for t, tm in md.topics.items():
            if _skip_topic(t) or (self.pattern and not re.fullmatch(self.pattern, t)):
                continue
            out.extend(f"{t}:{p}" for p in tm.partitions)
        return sorted(out)

    def initialOffset(self) -> dict:
        return {}

    def _drain(self, start: dict, stop: dict | None, limit: int):
        """Consume from `start` until EOF (or `stop`) on every partition; rows and next offsets."""
        from confluent_kafka import OFFSET_BEGINNING, KafkaError, TopicPartition

        c = self._consumer()
        try:
            parts = sorted(stop) if stop is not None else self._partitions(c)
            tps, pending, nxt = [], set(), {}
            for tp in parts:
                t, p = tp.rsplit(":", 1)
                off = start.get(tp)
                if stop is not None and stop[tp] <= (off or 0):
                    continue
                tps.append(TopicPartition(t, int(p), off if off is not None else OFFSET_BEGINNING))
                pending.add(tp)
                nxt[tp] = off or 0
            rows = []
            if not tps:
                return rows, dict(start)
            c.assign(tps)
            while pending and len(rows) < limit:
                for m in c.consume(1000, 1.0):
                    tp = f"{m.topic()}:{m.partition()}"
                    if m.error():
                        if m.error().code() == KafkaError._PARTITION_EOF:
                            if stop is None:
                                pending.discard(tp)
                            continue
                        raise RuntimeError(str(m.error()))
                    if tp not in pending:
                        continue
                    if stop is not None and m.offset() >= stop[tp]:
                        pending.discard(tp)
                        continue
                    k, v = m.key(), m.value()
                    oldkey = _oldkey_header(m.headers())
                    if oldkey is None:
                        rows.append(
                            (
                                m.topic(),
                                None if k is None else k.decode(),
                                None if v is None else v.decode(),
                                None,
                                tp,
                                m.offset(),
                            )
                        )
                    else:  # the line form carries headers: the mirror needs the old key of a key change
                        line = b"".join(
                            (
                                b'{"key":',
                                k if k is not None else b"null",
                                b',"value":',
                                v if v is not None else b"null",
                                b',"headers":[["__debezium.oldkey",',
                                oldkey,
                                b"]]}",
                            )
                        )
                        rows.append((m.topic(), None, None, line.decode(), tp, m.offset()))
                    nxt[tp] = m.offset() + 1
                    if stop is not None and nxt[tp] >= stop[tp]:
                        pending.discard(tp)
            end = dict(start)
            end.update(nxt)
            return rows, end
        finally:
            c.close()

    def prepareForTriggerAvailableNow(self) -> None:
        _, self.target = self._drain({}, None, 1 << 62)

    def read(self, start: dict):
        if self.target is not None:
            rows, end = self._drain(start, {k: v for k, v in self.target.items()}, self.max_records)
        else:
            rows, end = self._drain(start, None, self.max_records)
        return iter(rows), end

    def readBetweenOffsets(self, start: dict, end: dict):
        rows, _ = self._drain(start, end, 1 << 62)
        return iter(rows)
