#!/usr/bin/env python3
"""End-to-end commit -> Delta table latency: PostgreSQL -> emulator (running) -> sink (running) -> table.

    .venv/bin/python bench/bench_sink_latency.py [--commits 50] [--rate 2] [--trigger-ms 500 100]

A throwaway PostgreSQL, `python -m emulator run CONFIG --out DIR` and `python -m sink run --source DIR ...`
(no --once: the Structured Streaming query keeps running) as subprocesses, as a user runs them. After the
sink has mirrored the snapshot, single-row INSERT transactions are committed at `rate` per second (gaps
jittered by +-50 % so that commits do not sit at one phase of the sink's trigger). For each we
take the time the COMMIT returned, the time its line appeared in the emulator's topic file (commit -> event)
and the time its row was first visible in the Delta table (a poller reloading the table's log every ~10 ms,
as a reader would). One run per --trigger-ms value (the sink's processing-time trigger interval).
"""

from __future__ import annotations

import argparse
import os
import random
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
REPO = HERE.parent
if str(REPO) not in sys.path:
    sys.path.insert(0, str(REPO))

from emulator.testing.pgserver import PgServer  # noqa: E402

TOPIC = "lat.public.lat"
ID0 = 1_000_000


def _props(pg: PgServer, work: Path) -> Path:
    p = pg.connector_properties(
        **{
            "topic.prefix": "lat",
            "table.include.list": "public.lat",
            "slot.name": "lat",
            "publication.name": "lat_pub",
            "offset.storage.file.filename": str(work / "offsets.dat"),
        }
    )
    path = work / "connector.properties"
    path.write_text("".join(f"{k}={v}\n" for k, v in p.items()))
    return path


def _start(cmd: list[str], log: Path, env: dict | None = None) -> subprocess.Popen:
    with open(log, "ab") as f:
        return subprocess.Popen(
            cmd,
            stdout=f,
            stderr=subprocess.STDOUT,
            stdin=subprocess.DEVNULL,
            cwd=REPO,
            env=dict(os.environ, **(env or {})),
            start_new_session=True,
        )


def _stop(p: subprocess.Popen) -> None:
    if p.poll() is None:
        p.send_signal(signal.SIGTERM)  # both stop cleanly on SIGTERM (the sink after its current batch)
        try:
            p.wait(60)
        except subprocess.TimeoutExpired:
            os.killpg(p.pid, signal.SIGKILL)
            p.wait()


class TableWatcher(threading.Thread):
    """First time each id is visible in the Delta table (reloading the log whenever its version moves)."""

    def __init__(self, path: Path) -> None:
        super().__init__(daemon=True)
        self.path = path
        self.seen: dict[int, float] = {}
        self.halt = threading.Event()

    def run(self) -> None:
        from deltalake import DeltaTable

        dt, version = None, -1
        while not self.halt.is_set():
            try:
                if dt is None:
                    dt = DeltaTable(str(self.path))
                else:
                    dt.update_incremental()
                if dt.version() != version:
                    now = time.time()
                    version = dt.version()
                    for i in dt.to_pyarrow_table(columns=["id"]).column("id").to_pylist():
                        self.seen.setdefault(i, now)
            except Exception:  # the table does not exist yet
                dt = None
            time.sleep(0.01)


class FileWatcher(threading.Thread):
    """First time each id's record is in the emulator's topic file (commit -> event, for the breakdown)."""

    def __init__(self, path: Path) -> None:
        super().__init__(daemon=True)
        self.path = path
        self.seen: dict[int, float] = {}
        self.halt = threading.Event()

    def run(self) -> None:
        import orjson

        pos, buf = 0, b""
        while not self.halt.is_set():
            try:
                with open(self.path, "rb") as f:
                    f.seek(pos)
                    data = f.read()
            except FileNotFoundError:
                data = b""
            if data:
                now = time.time()
                pos += len(data)
                buf += data
                *lines, buf = buf.split(b"\n")
                for line in lines:
                    v = orjson.loads(line).get("value")
                    after = (v or {}).get("payload", {}).get("after") if isinstance(v, dict) else None
                    if after:
                        self.seen.setdefault(after["id"], now)
            time.sleep(0.002)


def _pct(xs: list[float], p: float) -> float:
    xs = sorted(xs)
    return xs[min(len(xs) - 1, max(0, round(p / 100 * len(xs) + 0.5) - 1))]


def run_once(commits: int, rate: float, trigger_ms: int, warmup: int, keep: bool) -> dict:
    subprocess.run([sys.executable, "-m", "sink", "warm"], cwd=REPO, check=True)  # see bench_sink.py
    work = Path(tempfile.mkdtemp(prefix="bench-sink-lat-"))
    out, tables = work / "out", work / "tables"
    procs: list[subprocess.Popen] = []
    try:
        with PgServer() as pg:
            try:
                pg.psql(
                    "CREATE TABLE lat (id bigint PRIMARY KEY, v text, at timestamptz DEFAULT now());"
                    "INSERT INTO lat (id, v) SELECT g, 'snap' FROM generate_series(1, 100) g;"
                )
                procs.append(
                    _start(
                        [sys.executable, "-m", "emulator", "run", str(_props(pg, work)), "--out", str(out)],
                        work / "emulator.log",
                    )
                )
                sink = [
                    "run",
                    "--source",
                    str(out),
                    "--tables",
                    str(tables),
                    "--checkpoint",
                    str(work / "ck"),
                ]
                sink += ["--trigger-ms", str(trigger_ms)]
                procs.append(_start([sys.executable, "-m", "sink", *sink], work / "sink.log"))
                tw, fw = TableWatcher(tables / TOPIC), FileWatcher(out / f"{TOPIC}.jsonl")
                tw.start()
                fw.start()
                deadline = time.time() + 180
                while len(tw.seen) < 100:  # the snapshot mirrored: Spark and the query are warm
                    if time.time() > deadline or any(p.poll() is not None for p in procs):
                        raise RuntimeError(f"sink never mirrored the snapshot; see {work}/*.log")
                    time.sleep(0.1)
                committed: dict[int, float] = {}
                with pg.connect() as c:
                    c.autocommit = True
                    for i in range(warmup):  # not measured: the first micro-batches after start are slower
                        c.execute("INSERT INTO lat (id, v) VALUES (%s, 'warm-up')", (ID0 - 1 - i,))
                        time.sleep(1 / rate)
                    time.sleep(2)
                    t_next = time.time()
                    # jittered gaps (0.5-1.5 x 1/rate): commits at exactly the trigger period would sit at one
                    # phase of the trigger and give a biased, run-dependent latency
                    rnd = random.Random(trigger_ms)
                    for i in range(commits):
                        t_next += rnd.uniform(0.5, 1.5) / rate
                        c.execute("INSERT INTO lat (id, v) VALUES (%s, 'x')", (ID0 + i,))
                        committed[ID0 + i] = time.time()
                        time.sleep(max(0.0, t_next - time.time()))
                deadline = time.time() + 60
                while not all(i in tw.seen for i in committed) and time.time() < deadline:
                    time.sleep(0.05)
                tw.halt.set()
                fw.halt.set()
                table = [(tw.seen[i] - t) * 1000 for i, t in committed.items() if i in tw.seen]
                event = [(fw.seen[i] - t) * 1000 for i, t in committed.items() if i in fw.seen]
                return {
                    "trigger_ms": trigger_ms,
                    "n": len(table),
                    "missing": commits - len(table),
                    "table_p50": statistics.median(table),
                    "table_p99": _pct(table, 99),
                    "table_max": max(table),
                    "event_p50": statistics.median(event),
                    "event_p99": _pct(event, 99),
                }
            finally:
                for p in reversed(procs):  # before the server goes away
                    _stop(p)
    finally:
        if keep:
            print(f"kept {work}")
        else:
            shutil.rmtree(work, ignore_errors=True)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--commits", type=int, default=50)
    ap.add_argument("--rate", type=float, default=2.0, help="commits per second")
    ap.add_argument(
        "--trigger-ms",
        type=int,
        nargs="+",
        default=[500, 100],
        help="sink trigger intervals to measure, one run each (500 is the sink's default)",
    )
    ap.add_argument("--warmup", type=int, default=10, help="commits before the measured ones")
    ap.add_argument("--keep", action="store_true", help="keep the work directories (logs, tables)")
    a = ap.parse_args()
    rows = [run_once(a.commits, a.rate, t, a.warmup, a.keep) for t in a.trigger_ms]
    print(f"\n{a.commits} single-row INSERT commits at {a.rate:g}/s, PostgreSQL -> emulator -> sink -> Delta")
    print(
        f"{'sink trigger':>12} {'commit->table p50':>18} {'p99':>8} {'max':>8} {'commit->event p50':>18} {'p99':>6}"
    )
    for r in rows:
        miss = f"  ({r['missing']} never visible)" if r["missing"] else ""
        print(
            f"{r['trigger_ms']:>9} ms {r['table_p50']:>15.0f} ms {r['table_p99']:>5.0f} ms {r['table_max']:>5.0f} ms"
            f" {r['event_p50']:>15.0f} ms {r['event_p99']:>3.0f} ms{miss}"
        )
    print(
        "anchors (feasibility-kafka-spark.md): delta-rs MERGE of 10k changes into 1M rows ~0.25 s warm; "
        "Spark-side dedupe ~0.4-0.7 s; Spark micro-batch triggerExecution 0.33-0.49 s per small batch "
        "(file publish -> foreachBatch start 90-246 ms)"
    )


if __name__ == "__main__":
    main()
