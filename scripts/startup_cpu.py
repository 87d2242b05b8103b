#!/usr/bin/env python3
"""CPU of the emulator's start-up on PostgreSQL: `python -m emulator run CONFIG --out DIR` on a throwaway
server with a 10-row table, snapshot.mode=initial and a fresh slot per run; the process's CPU (all threads,
/proc/PID/task/*/schedstat, ns) when the first record reaches DIR and when it logs "streaming from".

    .venv/bin/python scripts/startup_cpu.py [--trees THIS,OTHER] [--runs 7]

`--trees` alternates the checkouts run by run (same sitting, same load); the medians are the result.
Byte-code is written (PYTHONDONTWRITEBYTECODE unset) and one warm-up run per tree precedes the measured
ones, so the figures are an installed emulator's, not a first-run compile's.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from emulator.testing.pgserver import PgServer  # noqa: E402


def cpu_ns(pid: int) -> int:
    total = 0
    for task in Path(f"/proc/{pid}/task").iterdir():
        try:
            total += int((task / "schedstat").read_text().split()[0])
        except (OSError, ValueError, IndexError):
            pass  # a thread that just ended
    return total


def one_run(pg: PgServer, tree: Path, work: Path, n: int) -> tuple[float, float]:
    out = work / f"out{n}"
    cfg = work / f"c{n}.properties"
    props = pg.connector_properties(
        **{
            "slot.name": f"st{n}",
            "table.include.list": "public.t",
            "offset.storage.file.filename": str(work / f"off{n}.dat"),
            "snapshot.mode": "initial",
        }
    )
    cfg.write_text("".join(f"{k}={v}\n" for k, v in props.items()))
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    env["PYTHONPATH"] = str(tree)
    log = work / f"log{n}.txt"
    with log.open("wb") as f:
        p = subprocess.Popen(
            [sys.executable, "-m", "emulator", "run", str(cfg), "--out", str(out)],
            stdout=f,
            stderr=subprocess.STDOUT,
            env=env,
            cwd=work,
        )
    first = streaming = None
    deadline = time.monotonic() + 60
    try:
        while (first is None or streaming is None) and time.monotonic() < deadline:
            if p.poll() is not None:
                raise SystemExit(f"emulator ended: {log.read_text()[-2000:]}")
            if first is None and out.is_dir() and any(f.stat().st_size for f in out.glob("*.jsonl")):
                first = cpu_ns(p.pid)
            if streaming is None and b"streaming from" in log.read_bytes():
                streaming = cpu_ns(p.pid)
            time.sleep(0.002)
    finally:
        p.terminate()
        p.wait(10)
    for _ in range(100):  # the server has 10 slots: each run's goes when its walsender has ended
        if pg.psql(f"SELECT pg_drop_replication_slot('st{n}')", check=False).returncode == 0:
            break
        time.sleep(0.1)
    if first is None or streaming is None:
        raise SystemExit(f"no first record / streaming line: {log.read_text()[-2000:]}")
    return first / 1e6, streaming / 1e6


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--trees", default=str(REPO))
    ap.add_argument("--runs", type=int, default=7)
    args = ap.parse_args()
    trees = [Path(t).resolve() for t in args.trees.split(",")]
    res: dict[Path, list[tuple[float, float]]] = {t: [] for t in trees}
    with PgServer() as pg, tempfile.TemporaryDirectory() as tmp:
        pg.psql(
            "CREATE TABLE t (id int PRIMARY KEY, v text); INSERT INTO t SELECT g, 'x' FROM generate_series(1, 10) g;"
        )
        n = 0
        for r in range(args.runs + 1):
            for t in trees:
                n += 1
                got = one_run(pg, t, Path(tmp), n)
                if r:  # the first round writes byte-code and warms the page cache
                    res[t].append(got)
    print(f"load {os.getloadavg()[0]:.2f}")
    for t, rs in res.items():
        f = [a for a, _ in rs]
        s = [b for _, b in rs]
        print(
            f"{t}: first record {statistics.median(f):.0f} CPU-ms (min {min(f):.0f}), "
            f"streaming {statistics.median(s):.0f} CPU-ms (min {min(s):.0f}), runs {len(rs)}"
        )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
