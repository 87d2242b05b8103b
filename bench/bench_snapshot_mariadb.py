"""MariaDB initial-snapshot throughput and where its CPU goes, by snapshot.max.threads and source tree.

    PYTHONPATH=$PWD .venv/bin/python bench/bench_snapshot_mariadb.py --rows 1000000 --threads 2 1

A throwaway MariaDB with bench_mariadb.py's `bench` table (M rows, loaded once); per run a fresh
`python -m emulator run CONFIG --out DIR` (the MariaDbConnector, snapshot.mode=initial_only: the process
exits when the snapshot is complete, output under /dev/shm so the disk is left out): rows / (exit - start),
and CPU-us per row of the main process, of its forked readers (polled from /proc while they live) and of the
server over the run, the main process's peak RSS and the load average. `--tree DIR` (repeatable) runs that
source tree's emulator (e.g. a copy of the tree before a change: `git archive HEAD | tar -x -C /tmp/base`);
runs are interleaved: for each repeat, each threads value, each tree. Each output is checked (M lines). A
benchmark, not a test: compare the CPU per row of interleaved runs; wall rates move with the machine's load.
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "bench"))
sys.path.insert(0, str(ROOT / "tests"))

import bench_mariadb as bm  # noqa: E402
from emulator_proc import write_properties  # noqa: E402

TICK = os.sysconf("SC_CLK_TCK")


def _cpu(pid: int) -> tuple[float, float] | None:
    """(own user+sys, reaped children's user+sys) seconds, None once the process is gone."""
    try:
        f = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except OSError:
        return None
    return (int(f[11]) + int(f[12])) / TICK, (int(f[13]) + int(f[14])) / TICK


def _children(pid: int) -> list[int]:
    try:
        return [int(x) for x in Path(f"/proc/{pid}/task/{pid}/children").read_text().split()]
    except OSError:
        return []


def _hwm_mb(pid: int) -> int:
    try:
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith("VmHWM"):
                return int(line.split()[1]) // 1024
    except OSError:
        pass
    return 0


def run_once(db, rows: int, threads: int, tree: str) -> dict:
    work = Path(tempfile.mkdtemp(prefix="bench-snap-mariadb-", dir="/dev/shm"))
    try:
        cfg = work / "c.properties"
        write_properties(
            bm.props(db, work, **{"snapshot.max.threads": str(threads), "snapshot.mode": "initial_only"}), cfg
        )
        env = dict(os.environ, PYTHONPATH=tree)
        load0, srv0 = os.getloadavg()[0], sum(_cpu(db.proc.pid) or (0, 0))
        t0 = time.monotonic()
        with open(work / "log", "wb") as log:
            proc = subprocess.Popen(
                [sys.executable, "-m", "emulator", "run", str(cfg), "--out", str(work / "out")],
                cwd=tree,  # python -m takes the package from the working directory
                env=env,
                stdout=log,
                stderr=subprocess.STDOUT,
            )
            main, readers, hwm = 0.0, {}, 0
            while proc.poll() is None:
                c = _cpu(proc.pid)
                if c:
                    main = c[0]
                for k in _children(proc.pid):
                    ck = _cpu(k)
                    if ck:
                        readers[k] = ck[0]  # the last value seen (polled every 50 ms)
                hwm = max(hwm, _hwm_mb(proc.pid))
                time.sleep(0.05)
        t1 = time.monotonic()
        srv1 = sum(_cpu(db.proc.pid) or (0, 0))
        topic = work / "out" / "bench.benchdb.bench.jsonl"
        lines = sum(1 for _ in open(topic, "rb")) if topic.exists() else -1
        if proc.returncode != 0 or lines != rows:
            raise SystemExit(f"run failed (exit {proc.returncode}, {lines} lines): see {work / 'log'}")
        return {
            "tree": tree,
            "threads": threads,
            "rows_per_s": round(rows / (t1 - t0)),
            "main_us_per_row": round(main * 1e6 / rows, 1),
            "readers_us_per_row": round(sum(readers.values()) * 1e6 / rows, 1),
            "server_us_per_row": round((srv1 - srv0) * 1e6 / rows, 1),
            "peak_rss_mb": hwm,
            "load": f"{load0:.1f}->{os.getloadavg()[0]:.1f}",
        }
    finally:
        shutil.rmtree(work, ignore_errors=True)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--rows", type=int, default=1_000_000)
    ap.add_argument("--threads", type=int, nargs="+", default=[2, 1])
    ap.add_argument("--repeat", type=int, default=1)
    ap.add_argument("--tree", action="append", help="a source tree to run (repeatable; default: this one)")
    args = ap.parse_args()
    trees = [str(Path(t).resolve()) for t in (args.tree or [str(ROOT)])]
    with bm.MariaDbServer(extra_args=["--innodb-buffer-pool-size=512M"]) as db:
        db.sql("CREATE DATABASE benchdb")
        db.sql(bm.TABLE, "benchdb")
        db.sql(bm.LOAD, "benchdb")
        t = time.monotonic()
        db.sql(f"CALL load_bench(1, {args.rows}, 0)", "benchdb")
        print(f"loaded {args.rows:,} rows in {time.monotonic() - t:.1f} s", flush=True)
        for _ in range(args.repeat):
            for n in args.threads:
                for tree in trees:
                    r = run_once(db, args.rows, n, tree)
                    print(
                        f"{r['tree']} snapshot.max.threads={n}: {r['rows_per_s']:,} rows/s; CPU-us per row: main "
                        f"{r['main_us_per_row']}, readers {r['readers_us_per_row']}, server "
                        f"{r['server_us_per_row']}; peak RSS {r['peak_rss_mb']} MB; load {r['load']}",
                        flush=True,
                    )


if __name__ == "__main__":
    main()
