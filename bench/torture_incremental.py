#!/usr/bin/env python3
"""Incremental-snapshot torture: kill -9 the emulator again and again while it snapshots a table that a
writer keeps changing, then check that the emitted events replay to exactly the table.

    .venv/bin/python bench/torture_incremental.py [--db postgres|mariadb] [--rows 10000] [--kills 5]
                                                  [--chunk-size 10] [--seed N]
                                                  [--strategy insert_insert|insert_delete] [--keep DIR]

What it does:
1. starts a throwaway server - PostgreSQL (the default) or MariaDB (`--db mariadb`, the MariaDbConnector) -
   and creates `items` (id PK, v = a version, note; REPLICA IDENTITY FULL on PostgreSQL) with `--rows`
   rows, plus the signal table and a marker table;
2. runs `python -m emulator run CONFIG --out DIR` (snapshot.mode=no_data, file offsets; on MariaDB also a
   file schema history) and, once it streams, starts one writer thread hammering the table (updates,
   deletes, upserts, primary-key changes, some multi-statement transactions; every write stamps the row
   with a new version from one counter) and sends `execute-snapshot` for the table;
3. kills the emulator with SIGKILL `--kills` times at random moments - kill n once the (re)started run
   has read past a random key around n / (kills + 1) of the key range, plus a random 0..0.1 s - so each run
   moves the snapshot on and dies inside it (windows open, reads buffered, records written but not yet
   committed), and restarts it after a random pause; every restart resumes from the offsets it had
   committed;
4. when the snapshot is over, stops the writer, waits for a marker row's event, stops the emulator with
   SIGTERM and replays every emitted record of the table in output order (r/c/u upsert by key, d delete;
   tombstones skipped);
5. prints the comparison with the table and whether any READ came after a newer streamed change of its
   key (versions make "newer" exact); exits 1 if the replay differs from the table, 0 if it is equal.

The writer, the replay and the stale-READ check are tests/incremental_checks.py's, the ones the
incremental-snapshot test suites use.

    .venv/bin/python bench/torture_incremental.py --rate 100000 [--chunk-size 1024]

measures instead (PostgreSQL only) the rows/s of an incremental snapshot of a quiet table next to the
initial snapshot's rows/s for the same table (bench/bench_pg.py's table shape), both as `python -m emulator
run CONFIG --out DIR` tailed on disk: initial = process start -> last row's line (and first -> last line);
incremental = the signal's commit -> last READ line.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
REPO = HERE.parent
for _p in (REPO, REPO / "tests"):
    if str(_p) not in sys.path:
        sys.path.insert(0, str(_p))

import orjson  # noqa: E402
import psycopg  # noqa: E402
from incremental_checks import (  # noqa: E402
    PyMySqlSession,
    Session,
    Writer,
    WriterSql,
    differences,
    keyed,
    mariadb_writes,
    pg_writes,
    record_key,
    replay,
    stale_reads,
)

from emulator.testing.mariadbserver import MariaDbServer  # noqa: E402
from emulator.testing.pgserver import PgServer  # noqa: E402

PREFIX = "torture"
SIGNAL_COLUMNS = "(id varchar(42) PRIMARY KEY, type varchar(32) NOT NULL, data varchar(2048))"


class PgTarget:
    """The throwaway PostgreSQL: items in `public`, one slot whose active walsender shows the stream."""

    label = "PostgreSQL"
    schema = "public"

    def __init__(self) -> None:
        self.server = PgServer()

    def __enter__(self) -> PgTarget:
        self.server.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.server.stop()

    def session(self) -> Session:
        return psycopg.connect(self.server.dsn, autocommit=True)

    def query(self, sql: str, args: Any = None) -> list[tuple]:
        with self.session() as c:
            cur = c.execute(sql, args)
            return cur.fetchall() if cur.description else []

    def create(self, rows: int) -> None:
        for sql in (
            f"CREATE TABLE debezium_signal {SIGNAL_COLUMNS}",
            "CREATE TABLE marker (id int PRIMARY KEY)",
            "CREATE TABLE items (id int PRIMARY KEY, v bigint NOT NULL, note text)",
            "ALTER TABLE items REPLICA IDENTITY FULL",
        ):
            self.query(sql)
        self.query("INSERT INTO items SELECT i, i, 'n' || i FROM generate_series(1, %s) i", (rows,))

    def props(self, work: Path) -> dict[str, str]:
        return self.server.connector_properties(
            **{
                "slot.name": "torture",
                "publication.name": "torture_pub",
                "table.include.list": "public.items,public.debezium_signal,public.marker",
            }
        )

    def stream_client(self) -> int | None:
        """The process streaming to the emulator: a new one after each restart."""
        row = self.query("SELECT active_pid FROM pg_replication_slots WHERE slot_name = 'torture' AND active")
        return row[0][0] if row else None

    def writes(self) -> WriterSql:
        return pg_writes("items")


class MariaDbTarget:
    """The throwaway MariaDB: items in database `torture`, the MariaDbConnector with a file schema
    history; the server's binlog dump threads show the stream (connection ids only grow, so the newest
    one is the restarted emulator's, whatever the killed run's thread is still doing)."""

    label = "MariaDB"
    schema = "torture"

    def __init__(self) -> None:
        self.server = MariaDbServer()

    def __enter__(self) -> MariaDbTarget:
        self.server.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.server.stop()

    def session(self) -> Session:
        return PyMySqlSession(self.server.connect(database=self.schema))

    def query(self, sql: str, args: Any = None) -> list[tuple]:
        with self.session() as c:
            return c.execute(sql, args)

    def create(self, rows: int) -> None:
        db = self.schema
        self.server.sql(
            f"CREATE DATABASE {db}; GRANT INSERT, UPDATE, DELETE ON {db}.* TO 'debezium'@'127.0.0.1'"
        )
        for sql in (
            f"CREATE TABLE debezium_signal {SIGNAL_COLUMNS}",
            "CREATE TABLE marker (id int PRIMARY KEY)",
            "CREATE TABLE items (id int PRIMARY KEY, v bigint NOT NULL, note text)",
            f"INSERT INTO items SELECT seq, seq, CONCAT('n', seq) FROM seq_1_to_{int(rows)}",
        ):
            self.query(sql)

    def props(self, work: Path) -> dict[str, str]:
        db = self.schema
        return self.server.connector_properties(
            **{
                "database.include.list": db,
                "table.include.list": f"{db}.items,{db}.debezium_signal,{db}.marker",
                "schema.history.internal.file.filename": str(work / "schema-history.dat"),
            }
        )

    def stream_client(self) -> int | None:
        row = self.query(
            "SELECT MAX(ID) FROM information_schema.PROCESSLIST WHERE COMMAND LIKE 'Binlog Dump%'"
        )
        return row[0][0] if row else None

    def writes(self) -> WriterSql:
        return mariadb_writes("items")


TARGETS = {"postgres": PgTarget, "mariadb": MariaDbTarget}


def props_file(path: Path, props: dict[str, str]) -> None:
    def esc(v: str) -> str:
        return v.replace("\\", "\\\\").replace("\n", "\\n").replace("=", "\\=").replace(":", "\\:")

    path.write_text("".join(f"{k}={esc(v)}\n" for k, v in props.items()))


class Emulator:
    def __init__(self, config: Path, out: Path, log: Path) -> None:
        self.config, self.out, self.log = config, out, log
        self.proc: subprocess.Popen | None = None

    def start(self) -> None:
        with open(self.log, "ab") as log:
            self.proc = subprocess.Popen(
                [sys.executable, "-m", "emulator", "run", str(self.config), "--out", str(self.out)],
                cwd=REPO,
                stdout=log,
                stderr=subprocess.STDOUT,
                stdin=subprocess.DEVNULL,
                start_new_session=True,
            )

    def alive(self) -> bool:
        return self.proc is not None and self.proc.poll() is None

    def kill9(self) -> None:
        if self.alive():
            os.killpg(self.proc.pid, signal.SIGKILL)
            self.proc.wait()

    def stop(self) -> int:
        if self.alive():
            self.proc.send_signal(signal.SIGTERM)
            try:
                self.proc.wait(60)
            except subprocess.TimeoutExpired:
                self.kill9()
        return self.proc.returncode


class Tail:
    """Reads one topic file incrementally, complete lines only. Polls stay cheap (the machine is busy with
    the server, the emulator and the writer): READs are counted on the raw bytes and only the last READ
    line of each poll is parsed (a run reads keys in ascending order); every record is parsed once, at the
    end, by `records`, where a line that does not parse is counted in `bad`."""

    READ = b'"op":"r"'

    def __init__(self, path: Path) -> None:
        self.path = path
        self.pos = 0
        self.data: list[bytes] = []
        self._records: list[dict] | None = None
        self.bad = 0
        self.reads = 0
        self.max_read_id = 0  # highest key READ since `new_run()`

    def new_run(self) -> None:
        self.poll()
        self.max_read_id = 0

    def poll(self) -> None:
        try:
            with open(self.path, "rb") as f:
                f.seek(self.pos)
                data = f.read()
        except FileNotFoundError:
            return
        end = data.rfind(b"\n")
        if end < 0:
            return
        self.pos += end + 1
        data = data[: end + 1]
        self.data.append(data)
        self._records = None
        self.reads += data.count(self.READ)
        last = data.rfind(self.READ)
        if last >= 0:
            line = data[data.rfind(b"\n", 0, last) + 1 : data.find(b"\n", last)]
            try:
                self.max_read_id = max(
                    self.max_read_id, orjson.loads(line)["value"]["payload"]["after"]["id"]
                )
            except (orjson.JSONDecodeError, KeyError, TypeError):
                pass  # a torn line (kill -9 mid-write): counted by `records`

    @property
    def records(self) -> list[dict]:
        if self._records is None:
            self._records, self.bad = [], 0
            for line in b"".join(self.data).split(b"\n"):
                if not line.strip():
                    continue
                try:
                    self._records.append(orjson.loads(line))
                except orjson.JSONDecodeError:
                    self.bad += 1
        return self._records


def offsets_state(path: Path) -> dict | None:
    try:
        return json.loads(path.read_text()).get("offset")
    except (FileNotFoundError, ValueError):
        return None


def snapshot_running(path: Path) -> bool | None:
    off = offsets_state(path)
    if off is None:
        return None
    return bool(off.get("incremental_snapshot_collections"))


def wait(pred, timeout: float, what: str, emu: Emulator | None = None) -> None:
    deadline = time.monotonic() + timeout
    while not pred():
        if emu is not None and not emu.alive():
            raise SystemExit(
                f"the emulator exited ({emu.proc.returncode}) while waiting for {what}; see {emu.log}"
            )
        if time.monotonic() > deadline:
            raise SystemExit(f"timeout waiting for {what}")
        time.sleep(0.05)


def count_lines(path: Path, n: int, timeout: float, emu: Emulator) -> tuple[float, float]:
    """Waits until `path` has `n` lines; returns (time of the first line, time of the n-th)."""
    pos = lines = 0
    first = None
    deadline = time.monotonic() + timeout
    while True:
        try:
            with open(path, "rb") as f:
                f.seek(pos)
                data = f.read()
        except FileNotFoundError:
            data = b""
        if data:
            k = data.count(b"\n")
            if k and first is None:
                first = time.monotonic()
            lines += k
            pos += data.rfind(b"\n") + 1 if k else 0
        if lines >= n:
            return first, time.monotonic()
        if not emu.alive() and not data:
            raise SystemExit(
                f"the emulator exited ({emu.proc.returncode}) at {lines} of {n} lines; see {emu.log}"
            )
        if time.monotonic() > deadline:
            raise SystemExit(f"timeout: {lines} of {n} lines")
        time.sleep(0.005)


def measure_rates(rows: int, chunk: int) -> int:
    from bench_pg import COLUMNS, DDL, ROW_EXPR, TABLE

    work = Path(tempfile.mkdtemp(prefix="inc-rate-"))
    print(f"{rows:,} rows in bench_pg's table; incremental.snapshot.chunk.size={chunk}", flush=True)
    results = {}
    with PgServer() as pg:
        with psycopg.connect(pg.dsn, autocommit=True) as c:
            c.execute(DDL)
            c.execute(f"INSERT INTO {TABLE} ({COLUMNS}) SELECT {ROW_EXPR} FROM generate_series(1, {rows}) g")
            c.execute(f"VACUUM (ANALYZE) {TABLE}")
            c.execute("CHECKPOINT")
            c.execute(
                "CREATE TABLE debezium_signal (id varchar(42) PRIMARY KEY, type varchar(32) NOT NULL, "
                "data varchar(2048))"
            )
        for mode in ("initial", "incremental"):
            out = work / f"out-{mode}"
            config = work / f"{mode}.properties"
            props_file(
                config,
                pg.connector_properties(
                    **{
                        "topic.prefix": "rate",
                        "slot.name": f"rate_{mode}",
                        "publication.name": f"rate_{mode}",
                        "snapshot.mode": "initial_only" if mode == "initial" else "no_data",
                        "signal.data.collection": "public.debezium_signal",
                        "incremental.snapshot.chunk.size": str(chunk),
                        "offset.storage.file.filename": str(work / f"{mode}.offsets"),
                    }
                ),
            )
            emu = Emulator(config, out, work / f"{mode}.log")
            topic = out / f"rate.public.{TABLE}.jsonl"
            try:
                t0 = time.monotonic()
                emu.start()
                if mode == "incremental":

                    def streaming(slot=f"rate_{mode}") -> bool:
                        with psycopg.connect(pg.dsn, autocommit=True) as c:
                            return bool(
                                c.execute(
                                    "SELECT 1 FROM pg_replication_slots WHERE slot_name = %s AND active",
                                    (slot,),
                                ).fetchone()
                            )

                    wait(streaming, 60, "the emulator to stream", emu)
                    time.sleep(0.5)
                    with psycopg.connect(pg.dsn, autocommit=True) as c:
                        t0 = time.monotonic()
                        c.execute(
                            "INSERT INTO debezium_signal VALUES ('rate', 'execute-snapshot', %s)",
                            (json.dumps({"data-collections": [f"public.{TABLE}"]}),),
                        )
                first, last = count_lines(topic, rows, 600, emu)
            finally:
                emu.stop() if mode == "incremental" else emu.proc.wait(60)
                emu.kill9()
            results[mode] = (rows / (last - t0), rows / max(last - first, 1e-3), last - t0)
            print(
                f"{mode:>11}: {results[mode][2]:.2f} s = {results[mode][0]:,.0f} rows/s "
                f"(first -> last line {results[mode][1]:,.0f} rows/s)",
                flush=True,
            )
    import shutil

    shutil.rmtree(work, ignore_errors=True)
    ratio = results["incremental"][0] / results["initial"][0]
    print(f"incremental / initial: {ratio:.2f}")
    return 0


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument(
        "--db",
        default="postgres",
        choices=sorted(TARGETS),
        help="the throwaway server and connector (default postgres)",
    )
    ap.add_argument("--rows", type=int, default=10_000)
    ap.add_argument("--kills", type=int, default=5)
    # small chunks: ~1000 windows of a few ms each, so the kills land inside windows and the snapshot
    # outlasts five restarts (at the default 1024 the 10k rows take well under a second)
    ap.add_argument("--chunk-size", type=int, default=10)
    ap.add_argument("--strategy", default="insert_insert", choices=("insert_insert", "insert_delete"))
    ap.add_argument("--seed", type=int, default=None)
    ap.add_argument(
        "--max-kill-delay",
        type=float,
        default=0.1,
        help="each kill comes 0..this many seconds after the run has read past its random key",
    )
    ap.add_argument("--keep", metavar="DIR", help="keep the output, offsets and logs in DIR")
    ap.add_argument(
        "--rate",
        type=int,
        metavar="ROWS",
        help="measure incremental vs initial snapshot rows/s on ROWS rows instead (PostgreSQL; "
        "chunk size defaults to 1024 there)",
    )
    args = ap.parse_args()
    if args.rate:
        if args.db != "postgres":
            ap.error("--rate measures PostgreSQL only")
        chunk = args.chunk_size if "--chunk-size" in sys.argv else 1024
        return measure_rates(args.rate, chunk)
    seed = args.seed if args.seed is not None else random.randrange(1 << 30)
    rnd = random.Random(seed)
    target = TARGETS[args.db]()
    print(
        f"seed {seed}: {target.label}, {args.rows} rows, chunk size {args.chunk_size}, {args.kills} kill -9, "
        f"{args.strategy}",
        flush=True,
    )
    work = Path(args.keep) if args.keep else Path(tempfile.mkdtemp(prefix="torture-inc-"))
    work.mkdir(parents=True, exist_ok=True)
    out = work / "out"
    offsets = work / "offsets.json"
    started = time.monotonic()
    with target:
        target.create(args.rows)
        config = work / "connector.properties"
        props = target.props(work)
        props.update(
            {
                "topic.prefix": PREFIX,
                "snapshot.mode": "no_data",
                "signal.data.collection": f"{target.schema}.debezium_signal",
                "incremental.snapshot.chunk.size": str(args.chunk_size),
                "incremental.snapshot.watermarking.strategy": args.strategy,
                "offset.storage.file.filename": str(offsets),
                "offset.flush.interval.ms": "100",
            }
        )
        props_file(config, props)
        emu = Emulator(config, out, work / "emulator.log")
        tail = Tail(out / f"{PREFIX}.{target.schema}.items.jsonl")
        writer = Writer(
            target.session,
            target.writes(),
            keys=int(args.rows * 1.2),
            seed=seed,
            mix=(0.53, 0.73, 0.98),
            tx_sizes=(2, 5),
        )
        try:
            result = torture(args, rnd, target, emu, tail, writer, offsets, out, started)
        finally:  # never leave a running emulator or writer behind, whatever happened
            writer.halt.set()
            emu.kill9()
            if writer.is_alive():
                writer.join(30)
    if result is None:
        return 2
    return report(args, work, started, *result)


def torture(args, rnd, target, emu, tail, writer, offsets, out, started):
    emu.start()

    client = [None]

    def streaming() -> bool:  # a new stream client (not the killed run's, which may still be exiting)
        now = target.stream_client()
        if now is not None and now != client[0]:
            client[0] = now
            return True
        return False

    wait(streaming, 60, "the emulator to stream", emu)
    writer.start()
    target.query(
        "INSERT INTO debezium_signal VALUES ('torture-1', 'execute-snapshot', %s)",
        (json.dumps({"data-collections": [f"{target.schema}.items"], "type": "incremental"}),),
    )
    # kill moments: a random time after each (re)start has begun streaming; committed progress is
    # offsets every 100 ms, so each run moves the snapshot on a little and dies somewhere in it
    kills = []
    seen_running = [False]

    def over() -> bool:  # the committed offsets say the snapshot ran and is finished
        running = snapshot_running(offsets)
        seen_running[0] = seen_running[0] or bool(running)
        return seen_running[0] and running is False

    def started_reading() -> bool:  # committed offsets show it, or reads appear (insert_delete may
        tail.poll()  # finish within one offset interval)
        return over() or seen_running[0] or tail.reads > 0

    run_reads = 0  # READ lines in the output when the current run started
    # kill n comes once the run has read past a random key around n / (kills + 1) of the key range, so the
    # kills spread over the whole snapshot and each run moves it on (a kill at a fixed time after a restart
    # would often land while the run still catches up with the writer's backlog, repeating the last point)
    step = writer.keys / (args.kills + 1)

    wait(started_reading, 120, "the snapshot to start", emu)
    for n in range(1, args.kills + 1):
        past_key = int(rnd.uniform(n - 0.5, n + 0.5) * step)

        def progressed(past_key: int = past_key) -> bool:  # or the snapshot is over
            tail.poll()
            return tail.max_read_id >= past_key or over()

        wait(progressed, 300, f"READs past key {past_key}", emu)
        time.sleep(rnd.uniform(0, args.max_kill_delay))
        state = offsets_state(offsets) or {}
        emu.kill9()
        over()
        tail.poll()
        resume = state.get("incremental_snapshot_primary_key")
        running = bool(state.get("incremental_snapshot_collections"))
        kills.append((n, running, resume))
        print(
            f"[{time.monotonic() - started:6.2f} s] kill -9 #{n} (this run: {tail.reads - run_reads} READs, "
            f"up to key {tail.max_read_id}); committed offsets: "
            + (
                f"snapshot in progress, resume after key {resume[0] if resume else None}"
                if running
                else "no snapshot in progress"
            ),
            flush=True,
        )
        time.sleep(rnd.uniform(0, 1.0))  # the writer goes on while the emulator is down
        tail.new_run()
        run_reads = tail.reads
        emu.start()
        wait(streaming, 60, "the restarted emulator to stream", emu)
        print(f"[{time.monotonic() - started:6.2f} s] restarted, streaming", flush=True)
    wait(lambda: snapshot_running(offsets) is False, 600, "the end of the incremental snapshot", emu)
    writer.halt.set()
    writer.join(30)
    if writer.error is not None:
        print(f"writer failed: {writer.error!r}")
        return None
    target.query("INSERT INTO marker VALUES (1)")
    marker = Tail(out / f"{PREFIX}.{target.schema}.marker.jsonl")

    def marker_seen() -> bool:
        marker.poll()
        return bool(marker.records)

    wait(marker_seen, 300, "the marker row's event", emu)
    code = emu.stop()
    tail.poll()
    table = keyed(
        ({"id": r[0], "v": r[1], "note": r[2]} for r in target.query("SELECT id, v, note FROM items")), ["id"]
    )
    return kills, writer, tail, table, code


def report(args, work, started, kills, writer, tail, table, code) -> int:
    records = tail.records
    got = replay(records)
    missing, extra, differ = differences(table, got)
    stale = stale_reads(records)
    ops = [r["value"]["payload"]["op"] for r in records if r.get("value")]
    reads = ops.count("r")
    streamed = len(ops) - reads
    distinct_reads = len(
        {record_key(r) for r in records if r.get("value") and r["value"]["payload"]["op"] == "r"}
    )
    in_progress = sum(1 for k in kills if k[1])
    print(
        f"\n{args.kills} kill -9 (with the snapshot in progress in the committed offsets at {in_progress}); "
        f"writer: {writer.ops} operations ({writer.failed} key moves onto a taken key rolled back); "
        f"{time.monotonic() - started:.1f} s"
    )
    print(
        f"emitted for items: {len(records)} records ({reads} READs of {distinct_reads} keys, "
        f"{streamed} streamed changes), {tail.bad} unreadable lines; final SIGTERM exit code {code}"
    )
    print(
        f"table: {len(table)} rows; replay: {len(got)} rows; missing {len(missing)}, extra {len(extra)}, "
        f"different {len(differ)}; READs after a newer streamed change: {len(stale)}"
    )
    for k in missing[:5]:
        print(f"  missing {dict(k)}: table {table[k]}")
    for k in extra[:5]:
        print(f"  extra {dict(k)}: replay {got[k]}")
    for k in differ[:5]:
        print(f"  {dict(k)}: table {table[k]} replay {got[k]}")
    for s in stale[:5]:
        print(f"  {s}")
    if tail.bad:
        # a SIGKILL can cut the output's write(2) at a page boundary; the next run appends to the fragment,
        # which turns that line (and the first record appended after it) unreadable. The replay above
        # skipped it: if a record had been lost that way, it would show as a difference.
        print(
            f"WARNING: {tail.bad} unreadable line(s) in the output: a kill -9 cut a write and the restarted "
            "emulator appended to the fragment (emulator/outputs/directory.py keeps a partial last line)"
        )
    ok = not missing and not extra and not differ and not stale
    print(
        "RESULT: replayed events "
        + ("EQUAL the table" if ok else "DIFFER from the table")
        + ("" if args.keep else f" (work dir {work} removed)" if ok else f" (work dir {work} kept)")
    )
    if ok and not args.keep:
        import shutil

        shutil.rmtree(work, ignore_errors=True)
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
