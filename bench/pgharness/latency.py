"""Commit -> event latency: single-row INSERTs at a fixed rate while the engine streams."""

from __future__ import annotations

import json
import threading
import time

from emulator.testing.pgserver import PgServer

from .engines import EngineRun
from .log import BenchError, say
from .options import Options
from .tail import Tail
from .workload import COLUMNS, ROW_EXPR, TABLE

LATENCY_RATE = 100  # transactions per second
LATENCY_ID_BASE = 1_000_000_000
LATENCY_POLL_S = 0.001  # tailing interval while timing latency


def percentile(sorted_vals: list[float], p: float) -> float:
    if not sorted_vals:
        return float("nan")
    k = (len(sorted_vals) - 1) * p / 100
    lo = int(k)
    hi = min(lo + 1, len(sorted_vals) - 1)
    return sorted_vals[lo] + (sorted_vals[hi] - sorted_vals[lo]) * (k - lo)


def latency(run: EngineRun, tail: Tail, pg: PgServer, seconds: float, opts: Options) -> dict:
    """Single-row autocommit INSERTs at LATENCY_RATE/s; commit-return -> line seen in the topic file."""
    count = max(1, int(seconds * LATENCY_RATE))
    committed: dict[int, tuple[float, float]] = {}  # id -> (time.time() before send, after commit)
    arrived: dict[int, float] = {}
    errors: list[str] = []
    row = ROW_EXPR.replace("%", "%%")  # psycopg placeholders
    insert = f"INSERT INTO {TABLE} ({COLUMNS}, client_ns) SELECT {row}, %s FROM (VALUES (%s::bigint)) v(g)"

    def writer() -> None:
        try:
            with pg.connect() as conn:
                # The server runs synchronous_commit=off; then the walsender only sends what the
                # walwriter has flushed (up to wal_writer_delay = 200 ms later). The research's
                # latency client did the same.
                conn.execute("SET synchronous_commit = on")
                t0 = time.monotonic()
                for i in range(count):
                    delay = t0 + i / LATENCY_RATE - time.monotonic()
                    if delay > 0:
                        time.sleep(delay)
                    rid = LATENCY_ID_BASE + i
                    t_send = time.time()
                    conn.execute(insert, (time.time_ns(), rid))
                    committed[rid] = (t_send, time.time())
        except Exception as e:  # noqa: BLE001 - reported below
            errors.append(f"{type(e).__name__}: {e}")

    tail.poll()  # skip what is there already
    wt = threading.Thread(target=writer, name="latency-writer", daemon=True)
    wt.start()
    done_at = None
    while True:
        now_wall = time.time()
        for line in tail.poll(keep=True):
            try:
                payload = json.loads(line)["value"]["payload"]
                rid = payload["after"]["id"]
            except (ValueError, KeyError, TypeError):
                continue
            if payload.get("op") == "c" and rid >= LATENCY_ID_BASE:
                arrived.setdefault(rid, now_wall)
        if not wt.is_alive():
            if done_at is None:
                done_at = time.monotonic()
            if len(arrived) >= len(committed) or time.monotonic() - done_at > 15:
                break
        run.check_alive(f"the latency test ran ({len(arrived)} of {count} events seen)")
        time.sleep(LATENCY_POLL_S)
    if errors:
        raise BenchError(f"latency writer failed: {errors[0]}")
    lat = sorted((arrived[i] - committed[i][1]) * 1000 for i in committed if i in arrived)
    send = sorted((arrived[i] - committed[i][0]) * 1000 for i in committed if i in arrived)
    commit_ms = sorted((c - s) * 1000 for s, c in committed.values())
    res = {
        "sent": len(committed),
        "received": len(arrived),
        "p50_ms": round(percentile(lat, 50), 2),
        "p95_ms": round(percentile(lat, 95), 2),
        "p99_ms": round(percentile(lat, 99), 2),
        "max_ms": round(lat[-1], 2) if lat else None,
        "send_to_event_p50_ms": round(percentile(send, 50), 2),
        "send_to_event_p99_ms": round(percentile(send, 99), 2),
        "commit_roundtrip_p50_ms": round(percentile(commit_ms, 50), 2),
    }
    say(
        f"{run.kind.label}: latency at {LATENCY_RATE} tx/s for {seconds:g} s: {res['received']}/"
        f"{res['sent']} events, p50 {res['p50_ms']} ms, p95 {res['p95_ms']} ms, p99 {res['p99_ms']} ms, "
        f"max {res['max_ms']} ms"
    )
    if res["received"] < res["sent"]:
        say(f"{run.kind.label}: {res['sent'] - res['received']} latency events never arrived (15 s wait)")
    return res
