"""Initial-snapshot throughput by snapshot.max.threads, with the raw COPY reader in the same run.

    PYTHONPATH=$PWD .venv/bin/python bench/bench_snapshot.py --rows 200000 --threads 1 2

A throwaway PostgreSQL with bench_pg.py's `bench` table (M rows); per value of snapshot.max.threads a
fresh `python -m emulator run CONFIG --out DIR` with snapshot.mode=initial_only (the process exits when
the snapshot is complete): rows / (exit - start), the process's CPU (user+sys, forked readers included; and
the main process's own, polled), the server's CPU over the run, the peak memory of the process and its
readers (RSS and PSS) and the load average at start and exit. The reference, same server, same run: a
psycopg COPY of the same SELECT read row by row (`rows()`, psycopg's parse) and as raw bytes (`read()`, close
to what the emulator's reader does: emulator/connectors/postgres/copy_text.py). Each run's output is
checked (M lines, the last `"snapshot":"last"`) and deleted. `--out-dir /dev/shm` leaves the disk out.
Each run also reports when its first record reached the output (the rate after it leaves the start-up out)
and the machine's CPU taken by other processes and stolen by the host over the run (the share left to the
run); `--sample` adds, per thread of the emulator, its readers and the server, the time on CPU and where it
waited (docs/snapshot-speed.md). A benchmark, not a test: compare ratios within one run.
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


def tree_mem_mb(pid: int) -> tuple[float, float]:
    """(RSS, PSS) in MB of the process and its forked readers: RSS counts the pages they share once per
    process, PSS splits them (what they take together)."""
    rss = pss = 0
    pids = [str(pid)]
    try:
        pids += Path(f"/proc/{pid}/task/{pid}/children").read_text().split()
    except OSError:
        return 0.0, 0.0
    for p in pids:
        try:
            for line in Path(f"/proc/{p}/smaps_rollup").read_text().splitlines():
                if line.startswith("Rss:"):
                    rss += int(line.split()[1])
                elif line.startswith("Pss:"):
                    pss += int(line.split()[1])
        except OSError:
            pass
    return rss / 1024, pss / 1024


def _tasks(pid: int) -> list[tuple[str, str, str, int]]:
    """(thread name, state, wchan, CPU ticks) of each thread of a live process."""
    out = []
    try:
        tids = os.listdir(f"/proc/{pid}/task")
    except OSError:
        return out
    for tid in tids:
        base = f"/proc/{pid}/task/{tid}"
        try:
            with open(f"{base}/stat") as f:
                head, tail = f.read().rsplit(")", 1)
            with open(f"{base}/wchan") as f:
                wchan = f.read().strip() or "-"
        except OSError:
            continue
        fields = tail.split()
        name = head.split("(", 1)[1]
        out.append((name, fields[0], wchan, int(fields[11]) + int(fields[12])))
    return out


class Sampler:
    """Where the emulator's threads and the server's backends spend the run: every few ms the state of
    each thread (R running or runnable, S/D sleeping and on what kernel function: `wchan`), and each
    thread's CPU when last seen. Tells a pipe-bound reader (pipe_write / pipe_wait_writable) from one that
    waits on its server (a socket wait) or on the GIL (futex)."""

    def __init__(self, pid: int, pg_pid: int):
        self.pid, self.pg_pid = pid, pg_pid
        self.counts: dict[tuple[str, str], int] = {}
        self.samples: dict[str, int] = {}
        self.cpu: dict[str, int] = {}
        self.readers: dict[int, str] = {}
        self.backends: dict[int, str] = {}

    def _children(self, pid: int) -> list[int]:
        try:
            return [int(c) for c in Path(f"/proc/{pid}/task/{pid}/children").read_text().split()]
        except OSError:
            return []

    def sample(self) -> None:
        procs = [(self.pid, "parent")]
        for c in self._children(self.pid):
            procs.append((c, self.readers.setdefault(c, f"reader{len(self.readers)}")))
        for c in self._children(self.pg_pid):
            try:
                cmd = Path(f"/proc/{c}/cmdline").read_bytes()
            except OSError:
                continue
            title = cmd.split(b"\0")[0].decode(errors="replace").removeprefix("postgres: ")[:40]
            procs.append((c, self.backends.setdefault(c, f"pg-{title}{len(self.backends)}")))
        for pid, role in procs:
            for i, (name, state, wchan, ticks) in enumerate(_tasks(pid)):
                who = f"{role}/{'main' if i == 0 else name}"
                key = (who, "R" if state == "R" else f"{state}:{wchan}")
                self.counts[key] = self.counts.get(key, 0) + 1
                self.samples[who] = self.samples.get(who, 0) + 1
                self.cpu[who] = max(self.cpu.get(who, 0), ticks)

    def report(self) -> list[str]:
        clk = os.sysconf("SC_CLK_TCK")
        lines = []
        for who in sorted(self.samples):
            n = self.samples[who]
            states = sorted(((c, k[1]) for k, c in self.counts.items() if k[0] == who), reverse=True)
            top = ", ".join(f"{s} {c / n:.0%}" for c, s in states[:4])
            lines.append(f"  {who}: CPU {self.cpu[who] / clk:.2f} s, {n} samples: {top}")
        return lines


def machine_s() -> tuple[float, float]:
    """(busy, stolen) CPU seconds of the whole machine so far, all CPUs (/proc/stat; stolen: a virtual CPU
    runnable while the host ran something else). Busy minus the run's own CPU is the other sessions'."""
    with open("/proc/stat") as f:
        ticks = [int(x) for x in f.readline().split()[1:9]]
    clk = os.sysconf("SC_CLK_TCK")
    return (sum(ticks) - ticks[3] - ticks[4]) / clk, ticks[7] / clk


def settle(pg: PgServer) -> None:
    """Wait for the loading session's backend to be gone: it exits after psql does, and its CPU (the INSERT
    and the VACUUM: more than a second for 300k rows) would be counted, once reaped, in the first run's
    server CPU."""
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        backends = 0
        for c in Path(f"/proc/{pg.proc.pid}/task/{pg.proc.pid}/children").read_text().split():
            try:
                cmd = Path(f"/proc/{c}/cmdline").read_bytes()
            except OSError:
                continue
            backends += b"(" in cmd or not cmd  # a client's backend ("... 127.0.0.1(port) ...") or exiting
        if not backends:
            return
        time.sleep(0.05)


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


def run_emulator(
    pg: PgServer, work: Path, m: int, threads: int, sample: bool = False, tree: str | None = None
) -> dict:
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
    busy0, steal0 = machine_s()
    t0 = time.monotonic()
    env = None if tree is None else {**os.environ, "PYTHONPATH": tree}
    proc = subprocess.Popen(
        [sys.executable, "-m", "emulator", "run", str(config), "--out", str(out)],
        stdout=log,
        stderr=log,
        env=env,
    )
    own = 0.0  # the emulator process's own CPU (its threads; forked readers are its children)
    rss = pss = 0.0  # peaks over the run of the process and its forked readers together
    load0 = os.getloadavg()[0]
    sampler = Sampler(proc.pid, pg.proc.pid) if sample else None
    polled = 0.0
    first = None  # when the first record reached the output
    topic = out / f"bench.public.{TABLE}.jsonl"
    while proc.poll() is None:
        now = time.monotonic()
        if now - polled >= 0.05:
            polled = now
            if first is None and topic.exists() and topic.stat().st_size:
                first = now - t0
            own = proc_cpu_s(proc.pid) or own
            r, p = tree_mem_mb(proc.pid)
            rss, pss = max(rss, r), max(pss, p)
        if sampler is not None:
            sampler.sample()
            time.sleep(0.01)
        else:
            time.sleep(0.05)
    code = proc.wait()
    wall = time.monotonic() - t0
    busy, steal = machine_s()
    busy, steal = busy - busy0, steal - steal0
    cpu = children_cpu() - c0
    pg_cpu = (proc_cpu_s(pg.proc.pid, children=True) or 0.0) - pg_cpu0
    if code != 0:
        raise SystemExit(f"emulator exited {code}: see {log.name}")
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
    if sampler is not None:
        print("\n".join(sampler.report()), flush=True)
    return {
        "threads": threads,
        "tree": tree,
        "wall_s": round(wall, 2),
        "rows_per_s": round(m / wall),
        "cpu_s": round(cpu, 2),
        "cpu_us_per_row": round(cpu / m * 1e6, 1),
        "main_cpu_us_per_row": round(own / m * 1e6, 1),
        "peak_rss_mb": round(rss),
        "peak_pss_mb": round(pss),
        "load_avg": [round(load0, 1), round(os.getloadavg()[0], 1)],
        "server_cpu_s": round(pg_cpu, 2),
        "steal_s": round(steal, 2),
        "others_cpu_s": round(busy - steal - cpu - pg_cpu, 2),
        "first_record_s": None if first is None else round(first, 2),
        "rows_per_s_after_first": None if first is None else round(m / (wall - first)),
        "bytes_per_row": round(size / m),
    }


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--rows", type=int, default=200_000)
    ap.add_argument("--threads", type=int, nargs="+", default=[1, 2])
    ap.add_argument("--repeat", type=int, default=1, help="runs per setting (each reported)")
    ap.add_argument("--json", metavar="FILE")
    ap.add_argument(
        "--sample", action="store_true", help="sample each thread's state every ~10 ms (where the time goes)"
    )
    ap.add_argument("--no-raw", action="store_true", help="skip the raw COPY reference")
    ap.add_argument(
        "--tree",
        action="append",
        metavar="DIR",
        help="run the emulator of this source tree (its PYTHONPATH; repeat to interleave trees, e.g. a copy "
        "of the tree before a change: `git archive HEAD | tar -x -C /tmp/base`); default: the inherited one",
    )
    ap.add_argument(
        "--out-dir",
        metavar="DIR",
        help="where the runs write their output (default: a temporary directory; on tmpfs, e.g. /dev/shm, the "
        "disk is left out: 1M rows are ~4.7 GB, which the final fsync must put on the disk)",
    )
    args = ap.parse_args()
    m = args.rows
    results: dict = {"rows": m, "runs": [], "raw": []}
    with tempfile.TemporaryDirectory(prefix="bench-snapshot-", dir=args.out_dir) as tmp, PgServer() as pg:
        work = Path(tmp)
        t = time.monotonic()
        pg.psql(
            DDL + f"INSERT INTO {TABLE} ({COLUMNS}) SELECT {ROW_EXPR} FROM generate_series(1, {m}) g;"
            f"VACUUM (ANALYZE) {TABLE}; CHECKPOINT;"
        )
        settle(pg)
        print(f"loaded {m:,} rows in {time.monotonic() - t:.1f} s; output in {tmp}", flush=True)
        for _ in range(args.repeat):
            for rows in () if args.no_raw else (True, False):
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
            for n, tree in [(n, tree) for n in args.threads for tree in args.tree or [None]]:
                r = run_emulator(pg, work, m, n, args.sample, tree)
                results["runs"].append(r)
                print(
                    f"emulator{'' if tree is None else ' ' + tree} snapshot.max.threads={n}: {r['rows_per_s']:,} rows/s ({r['wall_s']} s, start to exit), "
                    f"{r['cpu_us_per_row']} CPU-us/row ({r['cpu_s']} s; main process {r['main_cpu_us_per_row']}), server {r['server_cpu_s']} CPU-s, "
                    f"{r['bytes_per_row']} B/row, peak RSS {r['peak_rss_mb']} MB / PSS {r['peak_pss_mb']} MB (with readers), "
                    f"load average {r['load_avg'][0]} -> {r['load_avg'][1]}, steal {r['steal_s']} s, other processes {r['others_cpu_s']} CPU-s; "
                    f"first record at {r['first_record_s']} s, then {r['rows_per_s_after_first'] or 0:,} rows/s",
                    flush=True,
                )
    if args.json:
        Path(args.json).write_text(json.dumps(results, indent=1))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
