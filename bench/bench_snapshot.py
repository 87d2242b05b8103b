"""Initial-snapshot throughput by snapshot.max.threads, with the raw COPY reader in the same run.

    PYTHONPATH=$PWD .venv/bin/python bench/bench_snapshot.py --rows 200000 --threads 1 2

A throwaway PostgreSQL with bench_pg.py's `bench` table (M rows); per value of snapshot.max.threads a
fresh `python -m emulator run CONFIG --out DIR` with snapshot.mode=initial_only (the process exits when
the snapshot is complete): rows / (exit - start), the process's CPU (user+sys, forked readers included; and
the main process's own, polled) and the server's CPU over the run. The reference, same server, same run: a psycopg COPY of the same SELECT read
row by row (`rows()`, the parse the emulator does) and as raw bytes (`read()`). Each run's output is
checked (M lines, the last `"snapshot":"last"`) and deleted. A benchmark, not a test: compare ratios
within one run.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from bench_pg import COLUMNS, DDL, ROW_EXPR, TABLE, connector_props, proc_cpu_s, write_properties  # noqa: E402

from emulator.testing.pgserver import PgServer  # noqa: E402


def tree_rss_mb(pid: int) -> float:
    total = 0
    pids = [str(pid)]
    try:
        pids += Path(f"/proc/{pid}/task/{pid}/children").read_text().split()
    except OSError:
        return 0.0
    for p in pids:
        try:
            for line in Path(f"/proc/{p}/status").read_text().splitlines():
                if line.startswith("VmRSS:"):
                    total += int(line.split()[1])
        except OSError:
            pass
    return total / 1024


def children_cpu() -> float:
    r = resource.getrusage(resource.RUSAGE_CHILDREN)
    return r.ru_utime + r.ru_stime


def raw_copy(pg: PgServer, rows: bool) -> tuple[float, float]:
    """(seconds, this process's CPU seconds) to read the table by COPY."""

    with pg.connect() as conn:
        t0, c0 = time.monotonic(), time.process_time()
        n = 0
        with conn.cursor().copy(f"COPY (SELECT * FROM {TABLE}) TO STDOUT") as cp:
            if rows:
                for _ in cp.rows():
                    n += 1
            else:
                for block in cp:
                    n += len(block)
        return time.monotonic() - t0, time.process_time() - c0


_RUNS = iter(range(1, 1_000_000))


def run_emulator(pg: PgServer, work: Path, m: int, threads: int) -> dict:
    run = next(_RUNS)
    out = work / f"out-{run}"
    offsets = work / f"offsets-{run}"
    config = work / f"snapshot-{run}.properties"
    extra = {"snapshot.mode": "initial_only", "slot.name": f"bench{run}_{os.getpid()}"}
    if threads > 1:
        extra["snapshot.max.threads"] = str(threads)
    write_properties(connector_props(pg, offsets, **extra), config)
    log = (work / f"emulator-{run}.log").open("wb")
    pg_cpu0 = proc_cpu_s(pg.proc.pid, children=True) or 0.0
    c0 = children_cpu()
    t0 = time.monotonic()
    proc = subprocess.Popen(
        [sys.executable, "-m", "emulator", "run", str(config), "--out", str(out)], stdout=log, stderr=log
    )
    own = 0.0  # the emulator process's own CPU (its threads; forked readers are its children)
    rss = 0.0  # peak of the summed RSS of the process and its forked readers (shared pages counted twice)
    while proc.poll() is None:
        own = proc_cpu_s(proc.pid) or own
        rss = max(rss, tree_rss_mb(proc.pid))
        time.sleep(0.05)
    code = proc.wait()
    wall = time.monotonic() - t0
    cpu = children_cpu() - c0
    pg_cpu = (proc_cpu_s(pg.proc.pid, children=True) or 0.0) - pg_cpu0
    if code != 0:
        raise SystemExit(f"emulator exited {code}: see {log.name}")
    topic = out / f"bench.public.{TABLE}.jsonl"
    lines = 0
    last = b""
    with topic.open("rb") as f:
        for line in f:
            lines += 1
            last = line
    marker = json.loads(last)["value"]["payload"]["source"]["snapshot"]
    size = topic.stat().st_size
    shutil.rmtree(out)
    with pg.connect() as conn:  # the run's slot would hold WAL for nothing
        conn.execute("SELECT pg_drop_replication_slot(%s)", (extra["slot.name"],))
    if lines != m or marker != "last":
        raise SystemExit(f"threads={threads}: {lines} lines, last marker {marker!r}")
    return {
        "threads": threads,
        "wall_s": round(wall, 2),
        "rows_per_s": round(m / wall),
        "cpu_s": round(cpu, 2),
        "cpu_us_per_row": round(cpu / m * 1e6, 1),
        "main_cpu_us_per_row": round(own / m * 1e6, 1),
        "peak_rss_mb": round(rss),
        "server_cpu_s": round(pg_cpu, 2),
        "bytes_per_row": round(size / m),
    }


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--rows", type=int, default=200_000)
    ap.add_argument("--threads", type=int, nargs="+", default=[1, 2])
    ap.add_argument("--repeat", type=int, default=1, help="runs per setting (each reported)")
    ap.add_argument("--json", metavar="FILE")
    args = ap.parse_args()
    m = args.rows
    results: dict = {"rows": m, "runs": [], "raw": []}
    with tempfile.TemporaryDirectory(prefix="bench-snapshot-") as tmp, PgServer() as pg:
        work = Path(tmp)
        t = time.monotonic()
        pg.psql(
            DDL + f"INSERT INTO {TABLE} ({COLUMNS}) SELECT {ROW_EXPR} FROM generate_series(1, {m}) g;"
            f"VACUUM (ANALYZE) {TABLE}; CHECKPOINT;"
        )
        print(f"loaded {m:,} rows in {time.monotonic() - t:.1f} s", flush=True)
        for _ in range(args.repeat):
            for rows in (True, False):
                wall, cpu = raw_copy(pg, rows)
                r = {
                    "kind": "rows()" if rows else "read()",
                    "rows_per_s": round(m / wall),
                    "cpu_s": round(cpu, 2),
                }
                results["raw"].append(r)
                print(
                    f"raw COPY {r['kind']}: {r['rows_per_s']:,} rows/s ({wall:.2f} s, {cpu:.2f} CPU-s)",
                    flush=True,
                )
            for n in args.threads:
                r = run_emulator(pg, work, m, n)
                results["runs"].append(r)
                print(
                    f"emulator snapshot.max.threads={n}: {r['rows_per_s']:,} rows/s ({r['wall_s']} s, start to exit), "
                    f"{r['cpu_us_per_row']} CPU-us/row ({r['cpu_s']} s; main process {r['main_cpu_us_per_row']}), server {r['server_cpu_s']} CPU-s, "
                    f"{r['bytes_per_row']} B/row, peak RSS {r['peak_rss_mb']} MB (with readers)",
                    flush=True,
                )
    if args.json:
        Path(args.json).write_text(json.dumps(results, indent=1))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
