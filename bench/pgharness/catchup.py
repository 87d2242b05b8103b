"""Catch-up of a backlog: an engine's drain, and the bare CopyData reader on the same slot as reference."""

from __future__ import annotations

import time

from emulator.testing.pgserver import PgServer

from .counters import Split, split_rows
from .engines import EngineRun
from .log import BenchError, say
from .options import Options
from .procstats import Noise
from .server import wait_slot_inactive
from .tail import Tail, wait_lines


def drain(
    run: EngineRun, tail: Tail, n: int, op: str, what: str, opts: Options, noise: Noise, server_pid: int
) -> dict:
    timeout = 120 + n / 500
    wait_lines(run, tail, 1, what, opts.stall_s, timeout)
    cpu_first = run.cpu_s()  # the process's start-up is not part of the drain's CPU
    split = Split(run.proc.pid, server_pid)
    t_end = wait_lines(run, tail, n, what, opts.stall_s, timeout, expect_op=op)
    cpu_end = run.cpu_s()
    first = tail.first_t
    res = {
        "events": n,
        "records_seen": tail.lines,
        "start_to_first_s": round(first - run.t0, 3),
        "start_to_last_s": round(t_end - run.t0, 3),
        "first_to_last_s": round(t_end - first, 3),
        "rate_start_last": round(n / (t_end - run.t0)),
        "rate_first_last": round(n / max(t_end - first, 1e-3)),
        "cpu_s": round(cpu_end, 2),
        "cpu_ms_per_1k": round((cpu_end - cpu_first) / n * 1e6, 1),
        "bytes_per_record": round((tail.pos - tail.start_pos) / max(tail.lines, 1)),
        "other_cpu_s": noise.other_cpu_s(),
        "split": split.end(n, t_end - tail.first_t),
    }
    say(
        f"{run.kind.label}: {what}: {n:,} events, start->first {res['start_to_first_s']} s, "
        f"first->last {res['first_to_last_s']} s = {res['rate_first_last']:,} ev/s "
        f"(start->last {res['rate_start_last']:,} ev/s), {res['cpu_ms_per_1k']} CPU-ms/1k, "
        f"{res['bytes_per_record']} B/record"
    )
    for line in split_rows(what, res["split"], run.kind.name):
        say(line)
    return res


def raw_drain(pg: PgServer, n: int, op: str, what: str) -> dict:
    """The reference of issue 17: a bare psycopg CopyData reader on the same slot and backlog.

    It starts pgoutput from the slot's confirmed position, receives CopyData messages until it has
    seen n row messages of kind `op` ('I' / 'U'), and decodes nothing. It never confirms a position,
    so the engine drains the very same backlog afterwards. Its CPU is the reading thread's own."""
    import psycopg
    from psycopg import pq

    kind = {"c": 73, "u": 85}[op]  # 'I', 'U' at byte 25 of an XLogData message
    conn = psycopg.connect(
        host="127.0.0.1",
        port=pg.port,
        user="postgres",
        dbname="postgres",
        replication="database",
        autocommit=True,
    )
    try:
        pgconn = conn.pgconn
        pgconn.send_query(
            b"START_REPLICATION SLOT debezium LOGICAL 0/0 "
            b"(\"proto_version\" '1', \"publication_names\" 'dbz_publication', \"messages\" 'true')"
        )
        res = pgconn.get_result()
        if res.status != pq.ExecStatus.COPY_BOTH:
            raise BenchError(f"raw reader: START_REPLICATION failed: {res.error_message!r}")
        seen = msgs = 0
        t0 = cpu0 = t_first = 0.0
        split = None
        get = pgconn.get_copy_data
        while seen < n:
            nbytes, data = get(0)
            if nbytes < 0:
                raise BenchError("raw reader: replication stream ended")
            msgs += 1
            if data[0] == 119 and data[25] == kind:
                if seen == 0:
                    split = Split(None, pg.proc.pid)  # this thread, the server
                    t_first, cpu0 = time.monotonic(), time.thread_time()
                seen += 1
        t0 = time.monotonic() - t_first
        cpu = time.thread_time() - cpu0
        split_res = split.end(n, t0) if split is not None else {}
    finally:
        conn.close()
    wait_slot_inactive(pg)
    r = {
        "events": n,
        "copydata_messages": msgs,
        "first_to_last_s": round(t0, 3),
        "rate_first_last": round(n / max(t0, 1e-3)),
        "cpu_ms_per_1k": round(cpu / n * 1e6, 1),
        "split": split_res,
    }
    say(
        f"raw CopyData reader: {what}: {n:,} events ({msgs:,} messages) first->last {r['first_to_last_s']} s"
        f" = {r['rate_first_last']:,} ev/s, {r['cpu_ms_per_1k']} CPU-ms/1k"
    )
    for line in split_rows(f"raw reader, {what}", split_res, "raw reader"):
        say(line)
    return r
