"""Commit -> event latency: single-row INSERT transactions at a fixed rate while the engine streams.

Two writers, chosen by the rate:
  client (rate <= CLIENT_MAX_RATE)  one connection in a thread commits one INSERT per transaction; latency =
        the time the tailer saw the record's line - the time `execute()` returned from the commit.
  server (higher rates)  one `DO` block loops on the server: INSERT (client_ns = clock_timestamp()), COMMIT,
        paced to the rate with pg_sleep; a Python client cannot commit 5,000 single-row transactions a
        second here beside the engine on 2 cores. Latency = line seen - client_ns (the INSERT, just before
        its COMMIT, which costs tens of µs with the server's fsync=off). The achieved rate is reported.
Both sessions have `synchronous_commit=on` (the research's client did the same): with the server's `off`
the walsender only sends what the walwriter flushed, up to wal_writer_delay = 200 ms later.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import threading
import time
from pathlib import Path

from emulator.testing.pgserver import PgServer

from .engines import EngineRun
from .log import BenchError, say
from .options import Options
from .tail import Tail
from .workload import COLUMNS, ROW_EXPR, TABLE

LATENCY_RATE = 100  # transactions per second (the default run; --latency-rates adds others)
CLIENT_MAX_RATE = 500  # above: the server-side writer
LATENCY_ID_BASE = 1_000_000_000
LATENCY_POLL_S = 0.001  # tailing interval while timing latency
_CLIENT_NS = b'"client_ns":'  # in the payload only: the schema names the field as "field":"client_ns"


def result_key(rate: int) -> str:
    """Where a rate's result goes in the suite's results (100 tx/s keeps the historical `latency`)."""
    return "latency" if rate == LATENCY_RATE else f"latency_{rate}"


def percentile(sorted_vals: list[float], p: float) -> float:
    if not sorted_vals:
        return float("nan")
    k = (len(sorted_vals) - 1) * p / 100
    lo = int(k)
    hi = min(lo + 1, len(sorted_vals) - 1)
    return sorted_vals[lo] + (sorted_vals[hi] - sorted_vals[lo]) * (k - lo)


def _stats(vals: list[float]) -> dict:
    s = sorted(vals)
    return {
        "p50_ms": round(percentile(s, 50), 2),
        "p95_ms": round(percentile(s, 95), 2),
        "p99_ms": round(percentile(s, 99), 2),
        "max_ms": round(s[-1], 2) if s else None,
    }


_AFTER_ID = b'"after":{"id":'
_LSN = b'"lsn":'  # the source block's; the schema names it as "field":"lsn"


def _int_at(line: bytes, mark: bytes) -> int | None:
    i = line.find(mark)
    if i < 0:
        return None
    i += len(mark)
    j = i
    while j < len(line) and 48 <= line[j] <= 57:
        j += 1
    return int(line[i:j]) if j > i else None


def _fields(line: bytes) -> tuple[int, int, int] | None:
    """(id, client_ns, lsn) of a latency INSERT's line, else None. Found by byte search, not parsed: at
    5,000 lines/s of ~4.7 KB the tailer's own CPU would otherwise be part of what it measures."""
    if b'"op":"c"' not in line:
        return None
    rid, ns, lsn = _int_at(line, _AFTER_ID), _int_at(line, _CLIENT_NS), _int_at(line, _LSN)
    if rid is None or ns is None:
        return None
    return rid, ns, lsn or 0


def latency(
    run: EngineRun, tail: Tail, pg: PgServer, seconds: float, opts: Options, rate: int = LATENCY_RATE
) -> dict:
    count = max(1, int(seconds * rate))
    base = LATENCY_ID_BASE + rate * 10_000_000  # ids of different rates never meet
    client = rate <= CLIENT_MAX_RATE
    committed: dict[int, tuple[float, float]] = {}  # id -> (time.time() before send, after commit)
    arrived: dict[int, tuple[float, int, int]] = {}  # id -> (seen, client_ns, lsn)
    errors: list[str] = []
    span: list[float] = []  # the server writer's execute() start and end
    row = ROW_EXPR.replace("%", "%%")  # psycopg placeholders
    insert = f"INSERT INTO {TABLE} ({COLUMNS}, client_ns) SELECT {row}, %s FROM (VALUES (%s::bigint)) v(g)"

    def client_writer() -> None:
        try:
            with pg.connect() as conn:
                conn.execute("SET synchronous_commit = on")
                t0 = time.monotonic()
                for i in range(count):
                    delay = t0 + i / rate - time.monotonic()
                    if delay > 0:
                        time.sleep(delay)
                    rid = base + i
                    t_send = time.time()
                    conn.execute(insert, (time.time_ns(), rid))
                    committed[rid] = (t_send, time.time())
        except Exception as e:  # noqa: BLE001 - reported below
            errors.append(f"{type(e).__name__}: {e}")

    def server_writer() -> None:
        loop = (
            "DO $$ DECLARE t0 float8 := extract(epoch FROM clock_timestamp()); ahead float8; BEGIN "
            f"FOR i IN 0..{count - 1} LOOP "
            f"ahead := t0 + i / {rate}.0 - extract(epoch FROM clock_timestamp()); "
            "IF ahead > 0.001 THEN PERFORM pg_sleep(ahead); END IF; "
            f"INSERT INTO {TABLE} ({COLUMNS}, client_ns) SELECT {ROW_EXPR}, "
            "(extract(epoch FROM clock_timestamp()) * 1e9)::bigint "
            f"FROM (VALUES ({base}::bigint + i)) v(g); COMMIT; END LOOP; END $$"
        )
        try:
            with pg.connect() as conn:
                conn.execute("SET synchronous_commit = on")
                span.append(time.time())
                conn.execute(loop)
                span.append(time.time())
        except Exception as e:  # noqa: BLE001 - reported below
            errors.append(f"{type(e).__name__}: {e}")

    raw = _start_raw_reader(pg, run, rate, base) if opts.raw_latency else None
    tail.poll()  # skip what is there already
    cpu0 = run.cpu_s()
    load0 = os.getloadavg()[0]
    wt = threading.Thread(
        target=client_writer if client else server_writer, name="latency-writer", daemon=True
    )
    wt.start()
    done_at = None
    while True:
        now_wall = time.time()
        for line in tail.poll(keep=True):
            f = _fields(line)
            if f is not None and f[0] >= base:
                arrived.setdefault(f[0], (now_wall, f[1], f[2]))
        if not wt.is_alive():
            if done_at is None:
                done_at = time.monotonic()
            expected = len(committed) if client else (count if not errors else 0)
            if len(arrived) >= expected or time.monotonic() - done_at > 15:
                break
        run.check_alive(f"the latency test ran ({len(arrived)} of {count} events seen)")
        time.sleep(LATENCY_POLL_S)
    cpu_s = run.cpu_s() - cpu0
    raw_samples = _stop_raw_reader(raw) if raw is not None else None
    if errors:
        raise BenchError(f"latency writer failed: {errors[0]}")
    if client:
        sent = len(committed)
        lat = [(arrived[i][0] - committed[i][1]) * 1000 for i in committed if i in arrived]
        res = {"writer": "client", "sent": sent, "received": len(arrived), **_stats(lat)}
        send = sorted((arrived[i][0] - committed[i][0]) * 1000 for i in committed if i in arrived)
        res["send_to_event_p50_ms"] = round(percentile(send, 50), 2)
        res["send_to_event_p99_ms"] = round(percentile(send, 99), 2)
        res["commit_roundtrip_p50_ms"] = round(
            percentile(sorted((c - s) * 1000 for s, c in committed.values()), 50), 2
        )
        starts = [committed[i][1] for i in committed]
    else:
        sent = count
        lat = [(seen - ns / 1e9) * 1000 for seen, ns, _lsn in arrived.values()]
        res = {"writer": "server", "sent": sent, "received": len(arrived), **_stats(lat)}
        starts = [ns / 1e9 for _seen, ns, _lsn in arrived.values()]
    if len(starts) > 1:
        res["achieved_tx_s"] = round((len(starts) - 1) / (max(starts) - min(starts)), 1)
    res["rate_tx_s"] = rate
    if raw_samples is not None:
        if client:
            raw_lat = [(t - committed[i][1]) * 1000 for i, _ns, t in raw_samples if i in committed]
        else:
            raw_lat = [(t - ns / 1e9) * 1000 for _i, ns, t in raw_samples]
        res["raw_reader"] = {"received": len(raw_lat), **_stats(raw_lat)}
        r = res["raw_reader"]
        say(
            f"bare pgoutput reader, same test: {r['received']} events, p50 {r['p50_ms']} ms, p95 {r['p95_ms']} "
            f"ms, p99 {r['p99_ms']} ms, max {r['max_ms']} ms"
        )
    # the engine's CPU (all threads) per received transaction: what it needs of a core at this rate
    res["engine_cpu_us_per_tx"] = round(cpu_s * 1e6 / max(1, len(arrived)), 1)
    res["load_avg_1m"] = [round(load0, 1), round(os.getloadavg()[0], 1)]  # before, after: other load
    say(
        f"{run.kind.label}: latency at {rate} tx/s ({res['writer']} writer, achieved "
        f"{res.get('achieved_tx_s', 0):,.0f} tx/s) for {seconds:g} s: {res['received']}/{sent} events, "
        f"p50 {res['p50_ms']} ms, p95 {res['p95_ms']} ms, p99 {res['p99_ms']} ms, max {res['max_ms']} ms; "
        f"engine CPU {res['engine_cpu_us_per_tx']} µs/tx; load average {res['load_avg_1m']}"
    )
    if res["received"] < sent:
        say(f"{run.kind.label}: {sent - res['received']} latency events never arrived (15 s wait)")
    if opts.trace:  # for trace_breakdown() once the engine has exited and written its trace
        samples = [
            [lsn, committed[i][1] if client else ns / 1e9, seen]
            for i, (seen, ns, lsn) in arrived.items()
            if not client or i in committed
        ]
        samples_path(run, rate).write_text(json.dumps(samples))
    return res


def _start_raw_reader(pg: PgServer, run: EngineRun, rate: int, id_min: int) -> tuple:
    path = run.out.with_name(f"{run.out.name}.raw-latency-{rate}.json")
    proc = subprocess.Popen(
        [
            sys.executable,
            str(Path(__file__).with_name("raw_latency.py")),
            str(pg.port),
            str(path),
            str(id_min),
        ],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
    )
    line = proc.stdout.readline()
    if line.strip() != b"ready":
        proc.kill()
        raise BenchError(f"the bare pgoutput reader did not start (rc {proc.wait()})")
    return proc, path


def _stop_raw_reader(raw: tuple) -> list:
    proc, path = raw
    proc.stdin.close()
    if proc.wait(60) != 0:
        raise BenchError(f"the bare pgoutput reader failed (rc {proc.returncode})")
    return json.loads(path.read_text())


# -- the trace (bench/latency_trace.py) ------------------------------------------------------------------
STAGES = (
    ("commit->begin", "start", "begin"),  # all samples: server, walsender, socket, the engine getting to it
    ("commit->wake", "start", "wake"),  # server: commit record, walsender, socket; the engine's wake-up
    ("wake->begin", "wake", "begin"),
    ("begin->recv", "begin", "recv"),  # BEGIN to the INSERT message in hand
    ("recv->emit", "recv", "emit"),  # decode, envelope
    ("emit->written", "emit", "written"),  # the output's write
    ("written->flushed", "written", "flushed"),  # until the flush that made it visible
    ("flushed->seen", "flushed", "seen"),  # the bench's tailer (1 ms polls)
    ("commit->flushed", "start", "flushed"),  # the engine's whole part: visible to a reader of the file
)


def samples_path(run: EngineRun, rate: int) -> Path:
    return run.out.with_name(f"{run.out.name}.latency-{rate}.json")


def trace_path(run: EngineRun) -> Path:
    return run.out.with_name(f"{run.out.name}.trace.json")


def trace_breakdown(run: EngineRun, rate: int) -> dict | None:
    """Per stage p50/p99/max over the latency samples of `rate`, joined by LSN with the engine's trace;
    plus the offset commits (count, p50/max duration) and how many samples arrived while one ran."""
    try:
        samples = json.loads(samples_path(run, rate).read_text())
        trace = json.loads(trace_path(run).read_text())
    except (OSError, ValueError):
        return None
    by_lsn = {t["lsn"]: t for t in trace["transactions"] if "lsn" in t}
    commits = trace["commits"]
    stages: dict[str, list[float]] = {name: [] for name, _a, _b in STAGES}
    during_commit = 0
    woke = 0
    for lsn, start, seen in samples:
        t = by_lsn.get(lsn)
        if t is None:
            continue
        t = dict(t, start=start, seen=seen)
        woke += "wake" in t
        for name, a, b in STAGES:
            if a in t and b in t:
                stages[name].append((t[b] - t[a]) * 1000)
        if any(c0 <= t.get("flushed", seen) and c1 >= start for c0, c1 in commits):
            during_commit += 1
    first = min((s for _l, s, _e in samples), default=0)
    last = max((e for _l, _s, e in samples), default=0)
    in_run = [(c1 - c0) * 1000 for c0, c1 in commits if first <= c0 <= last]
    durable = [(c1 - c0) * 1000 for c0, c1 in trace.get("durable", []) if first <= c0 <= last]
    out = {name: _stats(v) | {"n": len(v)} for name, v in stages.items() if v}
    out["offset_commits"] = {"n": len(in_run), **_stats(in_run)}
    out["make_durable"] = {"n": len(durable), **_stats(durable)}
    out["samples_overlapping_a_commit"] = during_commit
    out["samples_with_idle_wake"] = woke
    out["samples"] = len(samples)
    return out


def say_breakdown(label: str, rate: int, b: dict) -> None:
    say(
        f"{label}: trace at {rate} tx/s ({b['samples']} samples, {b['samples_with_idle_wake']} woke from idle):"
    )
    for name, _a, _b in STAGES:
        s = b.get(name)
        if s:
            say(f"    {name:18s} p50 {s['p50_ms']:8.3f}  p99 {s['p99_ms']:8.3f}  max {s['max_ms']:8.3f} ms")
    c, d = b["offset_commits"], b["make_durable"]
    say(
        f"    offset commits during the test: {c['n']}, on the stream thread p50 {c['p50_ms']} ms, max "
        f"{c['max_ms']} ms (samples in flight during one: {b['samples_overlapping_a_commit']}); the "
        f"output's fsyncs {d['n']}, p50 {d['p50_ms']} ms, max {d['max_ms']} ms"
    )
