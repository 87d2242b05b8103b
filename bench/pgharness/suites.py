"""The two suites: streaming (small snapshot, INSERT and UPDATE catch-up, latency) and the big snapshot."""

from __future__ import annotations

import shutil
import time
from pathlib import Path

from emulator.testing.pgserver import PgServer

from .catchup import drain, raw_drain
from .engines import EngineKind, EngineRun
from .latency import latency, result_key, say_breakdown, trace_breakdown
from .log import BenchError, say
from .options import Options
from .procstats import Noise, wait_quiet
from .server import drop_slot, run_sql, wait_slot_inactive
from .tail import Tail, last_record, wait_lines
from .workload import (
    COLUMNS,
    DDL,
    ROW_EXPR,
    SMALL_ROWS,
    SMALL_TABLE,
    TABLE,
    backlog_sql,
    connector_props,
    table_ddl,
    topic_file,
    write_properties,
)

OFFSET_FLUSH_WAIT_S = 1.5  # > offset.flush.interval.ms, before a planned stop


def stream_suite(kind: EngineKind, workdir: Path, opts: Options, res: dict) -> None:
    """Small snapshot (start -> first event), INSERT backlog drain, UPDATE backlog drain, latency.
    Fills res as it goes (what was measured before an error is kept)."""
    n = opts.rows_stream
    with PgServer() as pg:
        run_sql(
            pg,
            table_ddl(opts.nullable)
            + f"CREATE TABLE {SMALL_TABLE} (id int PRIMARY KEY, label text NOT NULL);"
            f"INSERT INTO {SMALL_TABLE} SELECT g, 'row ' || g FROM generate_series(1, {SMALL_ROWS}) g;",
        )
        config = workdir / f"{kind.key}-stream.properties"
        write_properties(
            connector_props(pg, workdir / f"{kind.key}-stream.offsets", **{"snapshot.mode": "initial"}),
            config,
        )
        pg_pid = pg.proc.pid

        def restart(run: EngineRun, tag: str) -> tuple[EngineRun, Tail]:
            """After a backlog: a new engine (process), its topic file tailed from where it ends now."""
            if kind.restart_in_process:
                tail = Tail(topic_file(run.out, TABLE))
                tail.skip_existing()
                run.resume()
                return run, tail
            run = EngineRun(kind, config, workdir, tag).start()
            return run, Tail(topic_file(run.out, TABLE))

        def stop_for_backlog(run: EngineRun) -> None:
            time.sleep(OFFSET_FLUSH_WAIT_S)
            if kind.restart_in_process:
                run.pause(60)
            else:
                finish_run(run, opts)
            # The server may take a moment to notice the old replication connection is gone; an engine
            # started before that finds the slot active (Debezium then retries after slot.retry.delay.ms,
            # 10 s), which is not what the catch-up measures.
            wait_slot_inactive(pg)

        def write_backlog(what: str, first: int) -> None:
            t = time.monotonic()
            run_sql(pg, backlog_sql(what, n, opts.nullable, first))
            say(
                f"{kind.label}: wrote {n:,} {what.upper()}s in {(n + 999) // 1000} transactions "
                f"({time.monotonic() - t:.1f} s)"
            )
            wait_quiet(opts.quiet_wait_s)

        # 1. snapshot of an empty table + a 20-row one, then one streamed sentinel row
        wait_quiet(opts.quiet_wait_s)
        run = EngineRun(kind, config, workdir, "stream" if kind.restart_in_process else "small").start()
        try:
            small = Tail(topic_file(run.out, SMALL_TABLE))
            wait_lines(run, small, SMALL_ROWS, "small snapshot", opts.stall_s, 120)
            res["small"] = {"start_to_first_s": round(small.first_t - run.t0, 3)}
            say(
                f"{kind.label}: small snapshot: process start -> first record "
                f"{res['small']['start_to_first_s']} s"
            )
            run_sql(pg, f"INSERT INTO {SMALL_TABLE} VALUES (0, 'sentinel')")
            wait_lines(
                run, small, SMALL_ROWS + 1, "streaming the sentinel row", opts.stall_s, 120, expect_op="c"
            )
            res["small"]["peak_rss_mb"] = peak_rss(run)
            if opts.latency_only:
                latency_tests(run, Tail(topic_file(run.out, TABLE)), pg, opts, res)
                return
            stop_for_backlog(run)

            # 2. INSERT backlog, written while no engine runs; then a new engine drains it. 3. UPDATE backlog of
            # the same rows, the same way. --drains K: K rounds of both (new rows each INSERT round); each drain
            # is printed, the table takes the median one by rate (one slow drain in a sitting does not decide)
            drains: dict[str, list[dict]] = {}
            for r in range(opts.drains):
                tag = "" if r == 0 else f"-{r + 1}"
                for what, op, sec in (("insert", "c", "stream_insert"), ("update", "u", "stream_update")):
                    if r or what == "update":
                        stop_for_backlog(run)
                    write_backlog(what, r * n if what == "insert" else 0)
                    label = f"{what.upper()} catch-up" + (f" (round {r + 1})" if opts.drains > 1 else "")
                    if opts.raw_reader:
                        raw_sec = sec.replace("stream", "raw")
                        drains.setdefault(raw_sec, []).append(raw_drain(pg, n, op, label))
                        res[raw_sec] = median_drain(drains[raw_sec])
                    run, tail = restart(run, what + tag)
                    noise = Noise(pg_pid, run.proc.pid)
                    d = drain(run, tail, n, op, label, opts, noise, pg_pid)
                    d["peak_rss_mb"] = peak_rss(run)
                    drains.setdefault(sec, []).append(d)
                    res[sec] = median_drain(drains[sec])  # so far: what an error later leaves
            if opts.drains > 1:
                for sec, got in drains.items():
                    res[sec]["drains"] = [{k: v for k, v in d.items() if k != "drains"} for d in got]

            # 4. commit -> event latency, the engine idle and streaming
            latency_tests(run, tail, pg, opts, res)
        finally:
            finish_run(run, opts)
            if opts.trace and opts.latency_s > 0:
                for rate in opts.latency_rates:
                    b = trace_breakdown(run, rate)
                    if b is not None and result_key(rate) in res:
                        res[result_key(rate)]["trace"] = b
                        say_breakdown(kind.label, rate, b)


def median_drain(drains: list[dict]) -> dict:
    """The drain of median rate (of an even number, the slower middle one): a real drain, not a mix."""
    ranked = sorted(drains, key=lambda d: d.get("rate_first_last") or 0)
    return dict(ranked[(len(ranked) - 1) // 2])


def latency_tests(run: EngineRun, tail: Tail, pg: PgServer, opts: Options, res: dict) -> None:
    """One latency test per rate, the engine idle and streaming before each."""
    if opts.latency_s <= 0:
        return
    for rate in opts.latency_rates:
        time.sleep(1.0)
        wait_quiet(opts.quiet_wait_s)
        key = result_key(rate)
        res[key] = latency(run, tail, pg, opts.latency_s, opts, rate)
        res[key]["peak_rss_mb"] = peak_rss(run)


def snapshot_suite(kinds: list[EngineKind], workdir: Path, opts: Options, results: dict) -> None:
    """M rows loaded before the start; snapshot.mode=initial; until the M-th record."""
    m = opts.rows_snapshot
    with PgServer() as pg:
        t = time.monotonic()
        run_sql(
            pg,
            DDL + f"INSERT INTO {TABLE} ({COLUMNS}) SELECT {ROW_EXPR} FROM generate_series(1, {m}) g;"
            f"VACUUM (ANALYZE) {TABLE}; CHECKPOINT;",
        )
        say(f"snapshot: loaded {m:,} rows ({time.monotonic() - t:.1f} s)")
        for kind in kinds:
            try:
                config = workdir / f"{kind.key}-snapshot.properties"
                write_properties(
                    connector_props(
                        pg, workdir / f"{kind.key}-snapshot.offsets", **{"snapshot.mode": "initial"}
                    ),
                    config,
                )
                wait_quiet(opts.quiet_wait_s)
                run = EngineRun(kind, config, workdir, "snapshot").start()
                try:
                    noise = Noise(pg.proc.pid, run.proc.pid)
                    tail = Tail(topic_file(run.out, TABLE))
                    t_end = wait_lines(run, tail, m, f"snapshot of {m:,} rows", opts.stall_s, 120 + m / 500)
                    cpu = run.cpu_s()
                    last = last_record(tail).get("source", {}).get("snapshot")
                    r = {
                        "rows": m,
                        "start_to_first_s": round(tail.first_t - run.t0, 3),
                        "start_to_last_s": round(t_end - run.t0, 3),
                        "rate_start_last": round(m / (t_end - run.t0)),
                        "rate_first_last": round(m / max(t_end - tail.first_t, 1e-3)),
                        "cpu_s": round(cpu, 2),
                        "cpu_ms_per_1k": round(cpu / m * 1e6, 1),
                        "bytes_per_record": round((tail.pos - tail.start_pos) / max(tail.lines, 1)),
                        "last_record_snapshot": last,
                        "other_cpu_s": noise.other_cpu_s(),
                    }
                    r["peak_rss_mb"] = peak_rss(run)
                    results.setdefault(kind.key, {})["snapshot"] = r
                    say(
                        f"{kind.label}: snapshot: {m:,} rows, start->last {r['start_to_last_s']} s = "
                        f"{r['rate_start_last']:,} rows/s (first->last {r['rate_first_last']:,}), "
                        f"start->first {r['start_to_first_s']} s, {r['cpu_ms_per_1k']} CPU-ms/1k, "
                        f"peak RSS {r['peak_rss_mb']} MB"
                    )
                    if last != "last":
                        say(
                            f"{kind.label}: snapshot: the {m:,}th record has source.snapshot={last!r}, "
                            "not 'last'"
                        )
                finally:
                    finish_run(run, opts)
            except BenchError as e:
                record_error(results, kind, "snapshot", e)
            finally:
                drop_slot(pg)


def peak_rss(run: EngineRun) -> float | None:
    run.sample_rss()
    return None if run.peak_rss_mb is None else round(run.peak_rss_mb, 1)


def finish_run(run: EngineRun, opts: Options) -> None:
    """Stop the engine; remove its output (GBs) unless --keep."""
    if run.stopped:
        return
    rc = run.stop()
    if rc not in (0, None):
        say(f"{run.kind.label} ({run.tag}) exited with code {rc} after SIGTERM (expected 0){run.log_tail(5)}")
    if not opts.keep:
        shutil.rmtree(run.out, ignore_errors=True)


def record_error(results: dict, kind: EngineKind, phase: str, e: Exception) -> None:
    msg = str(e)
    say(f"ERROR in {phase} ({kind.label}): {msg}")
    results.setdefault(kind.key, {}).setdefault("errors", {})[phase] = msg.splitlines()[0]
