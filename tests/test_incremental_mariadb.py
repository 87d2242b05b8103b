"""Incremental snapshots of the MariaDbConnector, in the style of Debezium's incremental-snapshot ITs
(AbstractIncrementalSnapshotTest), the MariaDB half of tests/test_incremental.py: a real throwaway MariaDB,
the connector in-process, tables read in chunks while a writer thread updates, deletes and inserts rows (the
concurrent-writes-and-restart scenario of every backend is tests/suite/test_incremental_snapshots.py). Runs check
(tests/incremental_checks.py) that
replaying the emitted events gives exactly the table and that no READ of a key comes after a newer streamed
change of that key.
"""

from __future__ import annotations

import itertools
import json
import random
import threading
import time
from collections.abc import Callable
from pathlib import Path

import pymysql
import pytest
from incremental_checks import (
    PyMySqlSession,
    Run,
    Writer,
    assert_replay_equals,
    mariadb_writes,
)

from emulator.testing import mariadbserver
from emulator.testing.mariadbserver import MariaDbServer

pytestmark = pytest.mark.skipif(
    not mariadbserver.available(),
    reason="MariaDB server binaries not installed (scripts/setup.sh installs them)",
)

SIGNAL_DDL = (
    "CREATE TABLE debezium_signal (id VARCHAR(42) PRIMARY KEY, type VARCHAR(32) NOT NULL, "
    "data VARCHAR(2048) NULL);"
)
ITEMS_DDL = """
CREATE TABLE items (id INT PRIMARY KEY, v BIGINT NOT NULL, note TEXT);
INSERT INTO items SELECT seq, seq, CONCAT('n', seq) FROM seq_1_to_1000;
"""
_n = itertools.count(1)


@pytest.fixture(scope="module")
def server():
    with MariaDbServer() as s:
        yield s


class Db:
    """A fresh database of the shared server with its own topic prefix, server id and schema history.
    `writable=False` leaves the connector's user without write grants on it (read.only runs)."""

    def __init__(
        self, server: MariaDbServer, ddl: str, work: Path, signal_table: bool = True, writable: bool = True
    ) -> None:
        self.n = next(_n)
        self.sent: list[str] = []  # ids of the signals sent through signal()
        self.name = f"minc{self.n}"
        self.server = server
        self.work = work
        server.sql(f"CREATE DATABASE {self.name}")
        if writable:  # the watermark rows are written by the connector's user
            server.sql(f"GRANT INSERT, UPDATE, DELETE ON {self.name}.* TO 'debezium'@'127.0.0.1'")
        server.sql(
            (SIGNAL_DDL if signal_table else "") + "CREATE TABLE marker (id INT PRIMARY KEY);" + ddl,
            self.name,
        )

    def connect(self) -> PyMySqlSession:
        return PyMySqlSession(self.server.connect(database=self.name))

    def run(self, sql: str, args=None) -> None:
        with self.connect() as c:
            c.execute(sql, args)

    def query(self, sql: str, args=None) -> list[tuple]:
        with self.connect() as c:
            return c.execute(sql, args)

    def rows(self, table: str) -> list[dict]:
        conn = self.server.connect(database=self.name, cursorclass=pymysql.cursors.DictCursor)
        try:
            with conn.cursor() as cur:
                cur.execute(f"SELECT * FROM {table}")
                return list(cur.fetchall())
        finally:
            conn.close()

    def signal(self, kind: str, data: dict | str | None, sid: str | None = None) -> None:
        payload = data if isinstance(data, str) or data is None else json.dumps(data)
        sid = sid or f"sig-{time.monotonic_ns()}"
        self.sent.append(sid)  # Run.snapshot_done waits until the connector has handled it
        self.run("INSERT INTO debezium_signal VALUES (%s, %s, %s)", (sid, kind, payload))

    def props(self, **extra: str | None) -> dict[str, str]:
        props = self.server.connector_properties(
            **{
                "database.include.list": self.name,
                "topic.prefix": self.name,
                "database.server.id": str(5400 + self.n),  # one binlog client per server id
                "schema.history.internal.file.filename": str(self.work / f"{self.name}-history.dat"),
                "snapshot.mode": "no_data",
                "signal.data.collection": f"{self.name}.debezium_signal",
                "incremental.snapshot.chunk.size": "10",
                "offset.flush.interval.ms": "200",
            }
        )
        props.update(extra)
        return {k: v for k, v in props.items() if v is not None}

    def table_id(self, table: str) -> str:
        return f"{self.name}.{table}"

    def topic(self, table: str) -> str:
        return f"{self.name}.{self.name}.{table}"

    def insert_marker(self, n: int) -> None:
        self.run("INSERT INTO marker VALUES (%s)", (n,))


def items_writer(db: Db, **kw) -> Writer:
    return Writer(db.connect, mariadb_writes(), **kw)


def check_replay(run: Run, db: Db, table: str = "items", key_cols=("id",)) -> None:
    assert_replay_equals(run.records, db.topic(table), db.rows(table), key_cols)


def wait_for_open_window(db: Db) -> None:
    deadline = time.monotonic() + 30
    while not db.query("SELECT 1 FROM debezium_signal WHERE type = 'snapshot-window-open'"):
        assert time.monotonic() < deadline, "no window opened"
        time.sleep(0.05)


# -- the IT-style concurrency test ----------------------------------------------------------------------------


def test_updates_and_deletes_inside_a_window_drop_the_read(server, tmp_path):
    """Deterministic window overlap: the table is write-locked before the signal, so the chunk's queries
    wait right after the open row; the changes the lock holder commits then are inside the window (in the
    binlog between the open and the close row) and the chunk read after the unlock already sees them."""
    db = Db(server, ITEMS_DDL, tmp_path)
    run = Run(db, db.props(**{"incremental.snapshot.chunk.size": "100"})).start()
    run.sync()
    locker = db.connect()
    try:
        locker.execute("LOCK TABLES items WRITE")
        db.signal("execute-snapshot", {"data-collections": [db.table_id("items")]})
        wait_for_open_window(db)
        locker.execute("UPDATE items SET v = 5000, note = 'in-window' WHERE id = 2")
        locker.execute("DELETE FROM items WHERE id = 5")
        locker.execute("UNLOCK TABLES")
    finally:
        locker.close()
    run.wait(lambda r: r.snapshot_done(), 60, "the snapshot")
    run.sync()
    run.stop()
    read_ids = [r["key"]["payload"]["id"] for r in run.reads("items")]
    assert 2 not in read_ids and 5 not in read_ids
    assert len(read_ids) == 998 and read_ids == sorted(read_ids)
    topic = db.topic("items")
    changes = [
        (i, r["value"]["payload"]["op"], r["key"]["payload"]["id"])
        for i, r in enumerate(run.records)
        if r["topic"] == topic and r["value"] and r["value"]["payload"]["op"] in "ud"
    ]
    assert [c[1:] for c in changes] == [("u", 2), ("d", 5)]
    first_read = next(
        i
        for i, r in enumerate(run.records)
        if r["topic"] == topic and r["value"] and r["value"]["payload"]["op"] == "r"
    )
    assert changes[-1][0] < first_read  # the window's reads come at its close
    src = run.reads("items")[0]["value"]["payload"]["source"]
    assert src["snapshot"] == "incremental" and src["connector"] == "mariadb"
    check_replay(run, db)


# -- keys -----------------------------------------------------------------------------------------------------


def test_composite_primary_key(server, tmp_path):
    db = Db(
        server,
        """
        CREATE TABLE pairs (a INT, b VARCHAR(8), v BIGINT NOT NULL, PRIMARY KEY (a, b));
        INSERT INTO pairs SELECT seq DIV 7, CONCAT('k', seq MOD 7), seq FROM seq_0_to_299;
    """,
        tmp_path,
    )
    run = Run(db, db.props(**{"incremental.snapshot.chunk.size": "9"})).start()
    run.sync()
    stop = threading.Event()

    touched: set[tuple[int, str]] = set()

    def write() -> None:
        rnd = random.Random(3)
        versions = itertools.count(1_000_000)
        with db.connect() as c:
            while not stop.is_set():
                # even `a` only: the rows of odd `a` are never touched, whatever the snapshot's duration
                a, b = 2 * rnd.randint(0, 23), f"k{rnd.randint(0, 7)}"
                touched.add((a, b))
                if rnd.random() < 0.6:
                    c.execute("UPDATE pairs SET v = %s WHERE a = %s AND b = %s", (next(versions), a, b))
                elif rnd.random() < 0.5:
                    c.execute("DELETE FROM pairs WHERE a = %s AND b = %s", (a, b))
                else:
                    c.execute(
                        "INSERT INTO pairs VALUES (%s, %s, %s) ON DUPLICATE KEY UPDATE v = VALUES(v)",
                        (a, b, next(versions)),
                    )

    t = threading.Thread(target=write, daemon=True)
    t.start()
    try:
        db.signal("execute-snapshot", {"data-collections": [db.table_id("pairs")]})
        run.wait(lambda r: r.snapshot_done(), 60, "the snapshot")
    finally:
        stop.set()
        t.join(10)
    run.sync()
    run.stop()
    keys = [(r["key"]["payload"]["a"], r["key"]["payload"]["b"]) for r in run.reads("pairs")]
    assert keys == sorted(keys) and len(keys) == len(set(keys))
    # a row the writer never touched existed unchanged the whole time: the snapshot read it (a touched one's
    # read may be superseded by its change in the window); the writer never names an odd `a`, so there are
    # always such rows (a fast writer once touched every row before the snapshot ended)
    untouched = {(i // 7, f"k{i % 7}") for i in range(300)} - touched
    assert untouched and not untouched - set(keys), sorted(untouched - set(keys))[:10]
    check_replay(run, db, "pairs", ("a", "b"))


# -- watermarking variants -----------------------------------------------------------------------------------


def test_insert_delete_watermarks(server, tmp_path):
    """insert_delete: the open row is deleted at the close, nothing is left in the signal table."""
    db = Db(server, ITEMS_DDL, tmp_path)
    run = Run(db, db.props(**{"incremental.snapshot.watermarking.strategy": "insert_delete"})).start()
    run.sync()
    # keys 601-1000 are never written: they must all be read, however long the snapshot takes
    writer = items_writer(db, seed=11, keys=600)
    writer.start()
    try:
        db.signal("execute-snapshot", {"data-collections": [db.table_id("items")]}, "del-1")
        run.wait(lambda r: r.snapshot_done(), 60, "the snapshot")
    finally:
        writer.stop()
    run.sync()
    run.stop()
    assert db.query("SELECT id FROM debezium_signal") == [("del-1",)]
    sig = [
        (r["value"]["payload"]["op"], r["key"]["payload"]["id"])
        for r in run.records
        if r["topic"] == db.topic("debezium_signal") and r["value"]
    ]
    opens = [k for op, k in sig if op == "c" and k.endswith("-open")]
    # one open row per chunk of at most 10 rows; how many rows are left to read depends on how long the
    # writer (which deletes) ran, so the bound is the rows read, not the 1000 the table started with
    read = {r["key"]["payload"]["id"] for r in run.reads("items")}
    assert len(opens) >= -(-len(read) // 10) and not any(k.endswith("-close") for _, k in sig)
    assert sorted(k for op, k in sig if op == "d") == sorted(opens)
    # every row the writer never touched is read (how many it touched depends on the snapshot's duration)
    untouched = set(range(1, 1001)) - writer.touched
    assert untouched and not untouched - read, sorted(untouched - read)[:10]
    check_replay(run, db)


def test_read_only_watermarks(server, tmp_path):
    """read.only=true: the connector's user has no write grant on the database and there is no signal
    table; the signal comes from the file, each window from a consistent-snapshot chunk read and the
    binlog passing its watermark."""
    db = Db(server, ITEMS_DDL, tmp_path, signal_table=False, writable=False)
    signals = tmp_path / "signals.jsonl"
    props = db.props(
        **{
            "read.only": "true",
            "signal.data.collection": None,
            "signal.enabled.channels": "file",
            "signal.file": str(signals),
            "signal.poll.interval.ms": "100",
        }
    )
    run = Run(db, props).start()
    run.sync()
    # keys 601-1000 are never written: they must all be read, however long the snapshot takes
    writer = items_writer(db, seed=5, delay=0.001, keys=600)
    writer.start()
    try:
        signals.write_text(
            json.dumps(
                {
                    "id": "ro-1",
                    "type": "execute-snapshot",
                    "data": {"data-collections": [db.table_id("items")]},
                }
            )
            + "\n"
        )
        run.wait(lambda r: len(r.reads("items")) > 0, 30, "the first read")
        run.wait(lambda r: r.snapshot_done(), 120, "the snapshot")
    finally:
        writer.stop()
    run.sync()
    # a quiet table: windows close on the stream's position alone, not on new changes
    signals.write_text(
        json.dumps(
            {"id": "ro-2", "type": "execute-snapshot", "data": {"data-collections": [db.table_id("marker")]}}
        )
        + "\n"
    )
    run.wait(lambda r: r.snapshot_done() and len(r.reads("marker")) >= 1, 30, "the quiet table's snapshot")
    run.stop()
    assert run.cap.error is None
    check_replay(run, db)
    # windows stay open until the stream passes the watermark, so keys the writer touched may go to newer
    # streamed changes (how many depends on the machine); every key it never touched is read
    untouched = set(range(1, 1001)) - writer.touched
    read = {r["key"]["payload"]["id"] for r in run.reads("items")}
    assert untouched and not untouched - read, sorted(untouched - read)[:10]


def _crash_inside_the_insert_delete_loop(db: Db, send_signal: Callable[[], None]) -> tuple[Run, int]:
    """Runs an insert_delete snapshot of `items` under a writer and takes the offsets committed while the
    loop was at key ~600 as a kill -9's; a new connector resumes from them and finishes. Returns the run
    (records of both connectors) and the key the committed offsets said to resume after."""
    run = Run(db, db.props(**{"incremental.snapshot.watermarking.strategy": "insert_delete"})).start()
    run.sync()
    inc = run.connector.incremental
    emit_window = inc._emit_window
    crash: dict = {}

    def emit_then_crash(next_chunk: bool = True) -> None:
        emit_window(next_chunk)
        key = int(inc.done_key[0]) if inc.done_key else 0
        if key >= 500 and "slept" not in crash:
            crash["slept"] = True
            time.sleep(0.3)  # longer than offset.flush.interval.ms: a commit is due
        elif key >= 600 and "offsets" not in crash:
            crash["offsets"] = run.offsets.load()  # what a kill -9 now would leave behind
            run.cap.runner.stop()

    inc._emit_window = emit_then_crash
    writer = items_writer(db, seed=13, delay=0.001)
    writer.start()
    try:
        send_signal()
        run.cap.thread.join(60)
        assert not run.cap.thread.is_alive()
        run.stop()
        stored = crash["offsets"]
        assert stored.get("incremental_snapshot_collections"), f"no snapshot progress committed: {stored}"
        resume_after = int(stored["incremental_snapshot_primary_key"][0])
        assert resume_after >= 500
        run.offsets.save(stored)
        mark = len(run.records)
        run.start()
        run.wait(lambda r: r.snapshot_done(), 60, "the resumed snapshot")
    finally:
        writer.stop()
    run.sync()
    run.stop()
    later = [int(r["key"]["payload"]["id"]) for r in run.reads("items", since=mark)]
    assert later and min(later) > resume_after, "the restart must resume after the last committed chunk"
    check_replay(run, db)
    return run, resume_after


def test_insert_delete_progress_is_committed_while_chunks_are_read(server, tmp_path):
    """insert_delete reads chunk after chunk in one synchronous loop inside the signal row's event; the
    offsets must be committed inside that loop too, or a kill -9 during it loses every chunk read so far
    (the restart sees the execute-snapshot signal again and starts over from the first key)."""
    db = Db(server, ITEMS_DDL, tmp_path)
    _crash_inside_the_insert_delete_loop(
        db, lambda: db.signal("execute-snapshot", {"data-collections": [db.table_id("items")]}, "del-crash")
    )


def test_insert_delete_commit_inside_the_signal_event_resumes_at_the_next_row(server, tmp_path):
    """The offsets committed inside the insert_delete loop are in the middle of the signal row's rows event:
    the restart must read that event again past the signal row, then the rest of its transaction - here a
    second row of the same multi-row INSERT and a marker row in the next event of the transaction, which a
    restart skipping the whole event and then rows of the next one would lose."""
    db = Db(server, ITEMS_DDL, tmp_path)

    def send_signal() -> None:
        with db.connect() as c, c.transaction():
            c.execute(
                "INSERT INTO debezium_signal VALUES (%s, 'execute-snapshot', %s), ('log-1', 'log', %s)",
                (
                    "del-crash",
                    json.dumps({"data-collections": [db.table_id("items")]}),
                    json.dumps({"message": "after the snapshot signal"}),
                ),
            )
            c.execute("INSERT INTO marker VALUES (999999)")

    run, _ = _crash_inside_the_insert_delete_loop(db, send_signal)
    markers = [r["value"]["payload"]["after"]["id"] for r in run.records if r["topic"] == db.topic("marker")]
    assert 999999 in markers
    signal_rows = [
        r["key"]["payload"]["id"]
        for r in run.records
        if r["topic"] == db.topic("debezium_signal") and r["value"] and r["value"]["payload"]["op"] == "c"
    ]
    assert signal_rows.count("del-crash") == 1  # handled once: the restart skips it
    assert "log-1" in signal_rows
