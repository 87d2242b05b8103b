"""Incremental snapshots and signals, in the style of Debezium's incremental-snapshot ITs
(AbstractIncrementalSnapshotTest): a real throwaway PostgreSQL, the connector in-process, tables read in
chunks while a writer thread updates, deletes and inserts rows. The scenario every backend shares (1000 rows,
a writer, a restart in the middle; pause/resume, stop-snapshot, the file channel) is in
tests/suite/test_incremental_snapshots.py and test_signals.py; what stays here is PostgreSQL's own or looks inside the
window machine. Runs check the two properties that make an incremental snapshot correct:

* replaying the emitted events (r/c/u upsert the key's row, d removes it) gives exactly the table;
* no READ of a key comes after a streamed change of that key that is newer than the READ (rows carry a
  version `v` that every write raises, so "newer" is `v` order).

The run, the writer and both checks are tests/incremental_checks.py's, shared with the MariaDB suite
(tests/test_incremental_mariadb.py) and bench/torture_incremental.py.
"""

from __future__ import annotations

import itertools
import json
import logging
import random
import threading
import time

import psycopg
import pytest
from incremental_checks import Run, Writer, assert_replay_equals, pg_writes

from emulator.api import CaptureError
from emulator.incremental.conditions import ConditionError, validate_blocking_filter, validate_condition
from emulator.testing.pgserver import PgServer

SIGNAL_DDL = (
    "CREATE TABLE public.debezium_signal (id varchar(42) PRIMARY KEY, type varchar(32) NOT NULL, "
    "data varchar(2048) NULL);"
)
_n = itertools.count(1)


@pytest.fixture(scope="module")
def pg():
    with PgServer() as server:
        yield server


class Db:
    """A fresh database of the shared server, with its own slot, publication and topic prefix."""

    def __init__(self, pg: PgServer, ddl: str, signal_table: bool = True) -> None:
        self.name = f"inc{next(_n)}"
        self.sent: list[str] = []  # ids of the signals sent through signal()
        self.pg = pg
        with pg.connect() as c:
            c.execute(f"CREATE DATABASE {self.name}")
        self.dsn = f"postgresql://postgres@127.0.0.1:{pg.port}/{self.name}"
        self.run(
            (SIGNAL_DDL if signal_table else "") + "CREATE TABLE public.marker (id int PRIMARY KEY);" + ddl
        )

    def connect(self) -> psycopg.Connection:
        return psycopg.connect(self.dsn, autocommit=True)

    def run(self, sql: str, args=None) -> None:
        with self.connect() as c:
            c.execute(sql, args)

    def query(self, sql: str, args=None) -> list[tuple]:
        with self.connect() as c:
            return c.execute(sql, args).fetchall()

    def signal(self, kind: str, data: dict | str | None, sid: str | None = None) -> None:
        payload = data if isinstance(data, str) or data is None else json.dumps(data)
        sid = sid or f"sig-{time.monotonic_ns()}"
        self.sent.append(sid)  # Run.snapshot_done waits until the connector has handled it
        self.run("INSERT INTO public.debezium_signal VALUES (%s, %s, %s)", (sid, kind, payload))

    def props(self, **extra: str) -> dict[str, str]:
        props = self.pg.connector_properties(
            **{
                "database.dbname": self.name,
                "topic.prefix": self.name,
                "slot.name": self.name,
                "publication.name": f"{self.name}_pub",
                "snapshot.mode": "no_data",
                "signal.data.collection": "public.debezium_signal",
                "incremental.snapshot.chunk.size": "10",
                "offset.flush.interval.ms": "200",
            }
        )
        props.update(extra)
        return {k: v for k, v in props.items() if v is not None}

    def topic(self, table: str) -> str:
        return f"{self.name}.public.{table}"

    def insert_marker(self, n: int) -> None:
        self.run("INSERT INTO public.marker VALUES (%s)", (n,))

    def rows(self, table: str) -> list[dict]:
        with self.connect() as c:
            cur = c.execute(f"SELECT * FROM public.{table}")
            names = [d.name for d in cur.description]
            return [dict(zip(names, row)) for row in cur.fetchall()]


def items_writer(db: Db, **kw) -> Writer:
    return Writer(db.connect, pg_writes(), **kw)


ITEMS_DDL = """
CREATE SEQUENCE public.ver;
CREATE TABLE public.items (id int PRIMARY KEY, v bigint NOT NULL, note text);
ALTER TABLE public.items REPLICA IDENTITY FULL;
INSERT INTO public.items SELECT i, nextval('public.ver'), 'n' || i FROM generate_series(1, 1000) i;
"""


def check_replay(run: Run, db: Db, table: str = "items", key_cols=("id",)) -> None:
    assert_replay_equals(run.records, db.topic(table), db.rows(table), key_cols)


# -- the IT-style concurrency test ----------------------------------------------------------------------------


def test_updates_and_deletes_inside_a_window_drop_the_read(pg):
    """Deterministic window overlap (as the golden workload does it): the table is locked before the signal,
    so the chunk query waits right after the open row; the changes committed then are inside the window."""
    db = Db(pg, ITEMS_DDL)
    run = Run(db, db.props(**{"incremental.snapshot.chunk.size": "100"})).start()
    run.sync()
    locker = db.connect()
    locker.execute("BEGIN")
    locker.execute("LOCK TABLE public.items IN ACCESS EXCLUSIVE MODE")
    db.signal("execute-snapshot", {"data-collections": ["public.items"]})
    deadline = time.monotonic() + 30
    while not db.query("SELECT 1 FROM public.debezium_signal WHERE type = 'snapshot-window-open'"):
        assert time.monotonic() < deadline, "no window opened"
        time.sleep(0.05)
    locker.execute("UPDATE public.items SET v = nextval('ver'), note = 'in-window' WHERE id = 2")
    locker.execute("DELETE FROM public.items WHERE id = 5")
    locker.execute("COMMIT")
    locker.close()
    run.wait(lambda r: r.snapshot_done(), 60, "the snapshot")
    run.sync()
    run.stop()
    read_ids = [r["key"]["payload"]["id"] for r in run.reads("items")]
    assert 2 not in read_ids and 5 not in read_ids
    assert len(read_ids) == 998 and read_ids == sorted(read_ids)
    topic = db.topic("items")
    streamed = [
        (r["value"]["payload"]["op"], r["key"]["payload"]["id"])
        for r in run.records
        if r["topic"] == topic and r["value"] and r["value"]["payload"]["op"] in "ud"
    ]
    assert streamed == [("u", 2), ("d", 5)]
    first_read = next(
        i
        for i, r in enumerate(run.records)
        if r["topic"] == topic and r["value"] and r["value"]["payload"]["op"] == "r"
    )
    last_change = max(
        i
        for i, r in enumerate(run.records)
        if r["topic"] == topic and r["value"] and r["value"]["payload"]["op"] in "ud"
    )
    assert last_change < first_read  # the window's reads come at its close
    src = run.reads("items")[0]["value"]["payload"]["source"]
    assert src["snapshot"] == "incremental" and src["txId"] is None and src["lsn"] is None
    check_replay(run, db)


# -- keys -----------------------------------------------------------------------------------------------------


def test_composite_primary_key(pg):
    db = Db(
        pg,
        """
        CREATE SEQUENCE public.ver;
        CREATE TABLE public.pairs (a int, b text, v bigint NOT NULL, PRIMARY KEY (a, b));
        ALTER TABLE public.pairs REPLICA IDENTITY FULL;
        INSERT INTO public.pairs SELECT i / 7, 'k' || (i % 7), nextval('public.ver') FROM generate_series(0, 299) i;
    """,
    )
    run = Run(db, db.props(**{"incremental.snapshot.chunk.size": "9"})).start()
    run.sync()
    stop = threading.Event()
    touched = set()  # keys the writer changed: a key changed in its chunk's window may have no read

    def write():
        rnd = random.Random(3)
        with db.connect() as c:
            while not stop.is_set():
                a, b = rnd.randint(0, 45), f"k{rnd.randint(0, 7)}"
                touched.add((a, b))
                time.sleep(0.002)  # paced: under load an unpaced writer touched most keys before the chunks
                if rnd.random() < 0.6:
                    c.execute("UPDATE public.pairs SET v = nextval('ver') WHERE a = %s AND b = %s", (a, b))
                elif rnd.random() < 0.5:
                    c.execute("DELETE FROM public.pairs WHERE a = %s AND b = %s", (a, b))
                else:
                    c.execute(
                        "INSERT INTO public.pairs VALUES (%s, %s, nextval('ver')) ON CONFLICT (a, b) "
                        "DO UPDATE SET v = excluded.v",
                        (a, b),
                    )

    t = threading.Thread(target=write, daemon=True)
    t.start()
    try:
        db.signal("execute-snapshot", {"data-collections": ["public.pairs"]})
        run.wait(lambda r: r.snapshot_done(), 60, "the snapshot")
    finally:
        stop.set()
        t.join(10)
    run.sync()
    run.stop()
    keys = [(r["key"]["payload"]["a"], r["key"]["payload"]["b"]) for r in run.reads("pairs")]
    untouched = {(i // 7, f"k{i % 7}") for i in range(300)} - touched  # never changed: each must be read
    assert keys == sorted(keys) and len(keys) == len(set(keys)) and untouched <= set(keys)
    check_replay(run, db, "pairs", ("a", "b"))


def test_table_without_primary_key_is_skipped_with_a_warning(pg, caplog):
    caplog.set_level(logging.INFO, logger="emulator")
    db = Db(
        pg,
        """
        CREATE TABLE public.nokey (x int, y text);
        INSERT INTO public.nokey SELECT i, 'y' FROM generate_series(1, 30) i;
        CREATE TABLE public.withkey (id int PRIMARY KEY);
        INSERT INTO public.withkey SELECT generate_series(1, 25);
    """,
    )
    run = Run(db, db.props()).start()
    run.sync()
    db.signal("execute-snapshot", {"data-collections": ["public.nokey", "public.withkey"]})
    run.wait(lambda r: r.snapshot_done(), 30, "the snapshot")
    run.sync()
    run.stop()
    assert run.reads("nokey") == []
    assert len(run.reads("withkey")) == 25
    assert any(
        "Incremental snapshot for table 'public.nokey' skipped cause the table has no primary keys" in m
        for m in caplog.messages
    )


def test_surrogate_key(pg):
    """`surrogate-key`: chunks follow that column (here the reverse of the primary key); a keyless table
    can be snapshotted by one too."""
    db = Db(
        pg,
        """
        CREATE TABLE public.sk (id int PRIMARY KEY, seq int UNIQUE NOT NULL, note text);
        INSERT INTO public.sk SELECT i, 1000 - i, 'n' FROM generate_series(1, 45) i;
        CREATE TABLE public.loose (seq int NOT NULL, note text);
        INSERT INTO public.loose SELECT i, 'x' FROM generate_series(1, 23) i;
    """,
    )
    run = Run(db, db.props(**{"incremental.snapshot.chunk.size": "10"})).start()
    run.sync()
    db.signal("execute-snapshot", {"data-collections": ["public.sk", "public.loose"], "surrogate-key": "seq"})
    run.wait(lambda r: r.snapshot_done(), 30, "the snapshot")
    run.sync()
    run.stop()
    ids = [r["key"]["payload"]["id"] for r in run.reads("sk")]
    assert ids == list(range(45, 0, -1))  # seq order = descending id
    loose = [r["value"]["payload"]["after"]["seq"] for r in run.reads("loose")]
    assert loose == list(range(1, 24))
    assert all(r["key"] is None for r in run.reads("loose"))


# -- filters ----------------------------------------------------------------------------------------------------


def test_additional_conditions(pg):
    db = Db(
        pg,
        """
        CREATE TABLE public.products (id int PRIMARY KEY, color text, quantity int);
        INSERT INTO public.products SELECT i, CASE WHEN i % 3 = 0 THEN 'blue' ELSE 'red' END, i
          FROM generate_series(1, 90) i;
        CREATE TABLE public.other (id int PRIMARY KEY);
        INSERT INTO public.other SELECT generate_series(1, 12);
    """,
    )
    run = Run(db, db.props(**{"incremental.snapshot.chunk.size": "4"})).start()
    run.sync()
    db.signal(
        "execute-snapshot",
        {
            "data-collections": ["public.products", "public.other"],
            "type": "INCREMENTAL",
            "additional-conditions": [
                {"data-collection": "PUBLIC.PRODUCTS", "filter": "color = 'blue' AND quantity > 10"}
            ],
        },
    )
    run.wait(lambda r: r.snapshot_done(), 30, "the snapshot")
    # the pre-2.5 single `additional-condition` applies to every listed table
    db.signal("execute-snapshot", {"data-collections": ["public.other"], "additional-condition": "id <= 3"})
    run.wait(lambda r: len(r.reads("other")) == 15 and r.snapshot_done(), 30, "the second snapshot")
    run.stop()
    got = [r["value"]["payload"]["after"]["id"] for r in run.reads("products")]
    assert got == [i for i in range(1, 91) if i % 3 == 0 and i > 10]
    assert [r["key"]["payload"]["id"] for r in run.reads("other")] == list(range(1, 13)) + [1, 2, 3]


INJECTIONS = [
    "1=1; DROP TABLE public.victim",
    "id > 0 --",
    "id > 0 /* x */",
    "id IN (SELECT id FROM public.victim)",
    "EXISTS (SELECT 1)",
    "nosuchcolumn = 1",
    "other.id > 0",
    "pg_terminate_backend(pg_backend_pid())",
    "pg_sleep(5) IS NULL",
    "id > 0) OR (1=1",
    "id = E'\\'' OR true",
    "DELETE FROM public.victim",
    "",
]


def test_additional_conditions_injection_is_refused_and_nothing_runs(pg, caplog):
    caplog.set_level(logging.INFO, logger="emulator")
    db = Db(
        pg,
        """
        CREATE TABLE public.victim (id int PRIMARY KEY);
        INSERT INTO public.victim SELECT generate_series(1, 20);
    """,
    )
    run = Run(db, db.props()).start()
    run.sync()
    with db.connect() as c:
        pid = c.execute(
            "SELECT pid FROM pg_stat_activity WHERE datname = %s AND application_name = "
            "'dbz-emulator' LIMIT 1",
            (db.name,),
        ).fetchone()
    for flt in INJECTIONS:
        db.signal(
            "execute-snapshot",
            {
                "data-collections": ["public.victim"],
                "additional-conditions": [{"data-collection": "public.victim", "filter": flt}],
            },
        )
    run.sync()
    assert run.snapshot_done()
    run.stop()
    assert run.reads("victim") == []
    assert db.query("SELECT count(*) FROM public.victim") == [(20,)]
    assert db.query("SELECT count(*) FROM public.debezium_signal WHERE type LIKE 'snapshot-window%'") == [
        (0,)
    ]
    refused = [m for m in caplog.messages if "ignored" in m and "filter" in m]
    assert len(refused) == len(INJECTIONS), refused
    assert pid is not None  # the connector's session was not terminated by a filter


def test_condition_validation_unit():
    cols = ["id", "color", "quantity", "ts", "Name", "data"]
    ok = {  # columns come out as the table's real names, quoted: what runs names exactly what was checked
        "color = 'blue' AND quantity > 10": '"color" = \'blue\' AND "quantity" > 10',
        "id % 2 = 0": '"id" % 2 = 0',
        "lower(color) LIKE 'b%'": "LOWER(\"color\") LIKE 'b%'",
        "ts > now() - interval '1 day'": "\"ts\" > CURRENT_TIMESTAMP - INTERVAL '1 DAY'",
        "id IN (1, 2, 3)": '"id" IN (1, 2, 3)',
        "\"Name\" = 'x'": "\"Name\" = 'x'",
        "quantity::int BETWEEN 1 AND 5": 'CAST("quantity" AS INT) BETWEEN 1 AND 5',
        "color IS NOT NULL": '"color" IS NOT NULL',
        "products.id > 3": '"id" > 3',
        "color = 'it''s'": "\"color\" = 'it''s'",
        "data->>'k' = 'v'": "\"data\" ->> 'k' = 'v'",
    }
    for text, sql in ok.items():
        assert validate_condition(text, cols, ("public", "products")) == sql
    for bad in INJECTIONS + [
        "name = 'x'",
        "other.id > 1",
        "lo_import('/etc/passwd') > 0",
        "*",
        "set_config('a', 'b', false) = 'b'",
        "id > (SELECT max(id) FROM t)",
    ]:
        with pytest.raises(ConditionError):
            validate_condition(bad, cols, ("public", "products"))
    t = ("public", "products")
    assert (
        validate_blocking_filter("SELECT * FROM public.products WHERE id > 3 ORDER BY id DESC", t, cols)
        == 'SELECT * FROM "public"."products" WHERE "id" > 3 ORDER BY "id" DESC'
    )
    assert validate_blocking_filter("id > 3", t, cols) == 'SELECT * FROM "public"."products" WHERE "id" > 3'
    for bad in [
        "SELECT * FROM public.other",
        "SELECT * FROM public.products; DROP TABLE x",
        "SELECT * FROM public.products JOIN public.x ON true",
        "SELECT pg_sleep(1) FROM public.products",
        "SELECT * FROM public.products FOR UPDATE",
        "SELECT * FROM (SELECT 1) q",
        "WITH x AS (DELETE FROM public.products RETURNING *) SELECT * FROM x",
    ]:
        with pytest.raises(ConditionError):
            validate_blocking_filter(bad, t, cols)


# -- signals ----------------------------------------------------------------------------------------------------

TWO_TABLES_DDL = """
    CREATE TABLE public.t1 (id int PRIMARY KEY, v text);
    INSERT INTO public.t1 SELECT i, 'a' FROM generate_series(1, 60) i;
    CREATE TABLE public.t2 (id int PRIMARY KEY, v text);
    INSERT INTO public.t2 SELECT i, 'b' FROM generate_series(1, 40) i;
"""


def _paused_after_first_window(db: Db, run: Run, tables: list[str]) -> None:
    n = time.monotonic_ns()
    with db.connect() as c, c.transaction():  # both rows in one transaction: the pause lands before the close
        c.execute(
            "INSERT INTO public.debezium_signal VALUES (%s, 'execute-snapshot', %s)",
            (f"go-{n}", json.dumps({"data-collections": tables})),
        )
        c.execute("INSERT INTO public.debezium_signal VALUES (%s, 'pause-snapshot', '{}')", (f"hold-{n}",))
    run.wait(
        lambda r: r.connector.incremental.paused and r.connector.incremental.chunk_id is None, 30, "pause"
    )


def test_stop_snapshot_of_one_collection(pg):
    db = Db(
        pg,
        TWO_TABLES_DDL
        + """
        CREATE TABLE public.t3 (id int PRIMARY KEY);
        INSERT INTO public.t3 SELECT generate_series(1, 15);
    """,
    )
    run = Run(db, db.props()).start()
    run.sync()
    _paused_after_first_window(db, run, ["public.t1", "public.t2", "public.t3"])
    db.signal("stop-snapshot", {"data-collections": ["public.t2"], "type": "incremental"})  # a queued one
    db.signal("resume-snapshot", {})
    run.wait(lambda r: r.snapshot_done(), 30, "the snapshot")
    assert len(run.reads("t1")) == 60 and run.reads("t2") == [] and len(run.reads("t3")) == 15
    # stopping the table being read moves on to the next one
    _paused_after_first_window(db, run, ["public.t1", "public.t3"])
    before_t3 = len(run.reads("t3"))
    db.signal("stop-snapshot", {"data-collections": ["public\\.t1"]})
    db.signal("resume-snapshot", {})
    run.wait(lambda r: r.snapshot_done(), 30, "the second snapshot")
    run.stop()
    assert len(run.reads("t1")) == 70  # one more window of t1 before the stop
    assert len(run.reads("t3")) == before_t3 + 15


def test_log_signal_and_regex_collections(pg, caplog):
    caplog.set_level(logging.INFO, logger="emulator")
    db = Db(pg, TWO_TABLES_DDL)
    run = Run(db, db.props()).start()
    run.sync()
    db.signal("log", {"message": "Signal message at offset {}"}, "log-1")
    db.signal("execute-snapshot", {"data-collections": ["public\\.t[12]"]})
    run.wait(lambda r: r.snapshot_done() and len(r.reads("t2")) == 40, 30, "the snapshot")
    run.stop()
    assert len(run.reads("t1")) == 60
    logged = [m for m in caplog.messages if m.startswith("Signal message at offset ")]
    assert logged and "lsn" in logged[0] and "{}" not in logged[0]


def test_malformed_signals_are_logged_and_skipped(pg, caplog):
    caplog.set_level(logging.INFO, logger="emulator")
    db = Db(pg, TWO_TABLES_DDL)
    run = Run(db, db.props()).start()
    run.sync()
    bad = [
        ("execute-snapshot", "{not json"),
        ("execute-snapshot", "[1, 2]"),
        ("execute-snapshot", json.dumps({"type": "incremental"})),
        ("execute-snapshot", json.dumps({"data-collections": []})),
        ("execute-snapshot", json.dumps({"data-collections": "public.t1"})),
        ("execute-snapshot", json.dumps({"data-collections": ["public.t1"], "type": "sideways"})),
        ("execute-snapshot", json.dumps({"data-collections": ["(unclosed"]})),
        ("execute-snapshot", json.dumps({"data-collections": ["public.t1"], "additional-conditions": "x"})),
        ("execute-snapshot", json.dumps({"data-collections": ["public.t1"], "surrogate-key": "nope"})),
        ("stop-snapshot", json.dumps({"type": "sideways"})),
        ("log", "{}"),
        ("no-such-signal", "{}"),
        ("execute-snapshot", None),
    ]
    for i, (kind, data) in enumerate(bad):
        db.signal(kind, data, f"bad-{i}")
    run.sync()
    assert run.reads("t1") == []
    db.signal("execute-snapshot", {"data-collections": ["public.t1"]}, "good")
    run.wait(lambda r: r.snapshot_done() and len(r.reads("t1")) == 60, 30, "the good signal's snapshot")
    run.stop()
    assert run.cap.error is None
    text = "\n".join(caplog.messages)
    assert "cannot be parsed" in text and "is not recognized" in text and "data-collections" in text
    for i in range(len(bad)):
        assert f"'bad-{i}'" in text, f"signal bad-{i} left no log line"


def test_filters_failing_in_the_database_are_not_fatal(pg, caplog):
    """A filter can pass the checks and still fail when it runs (a value of the wrong type): the table is
    skipped (incremental) or the snapshot abandoned (blocking) with a logged error; streaming goes on."""
    caplog.set_level(logging.INFO, logger="emulator")
    db = Db(pg, TWO_TABLES_DDL)
    run = Run(db, db.props()).start()
    run.sync()
    db.signal(
        "execute-snapshot",
        {
            "data-collections": ["public.t1", "public.t2"],
            "additional-conditions": [{"data-collection": "public.t1", "filter": "id > 'abc'"}],
        },
    )
    run.wait(lambda r: r.snapshot_done() and len(r.reads("t2")) == 40, 30, "t2 after the failing t1")
    db.signal(
        "execute-snapshot",
        {
            "type": "blocking",
            "data-collections": ["public.t1"],
            "additional-conditions": [{"data-collection": "public.t1", "filter": "id > 'abc'"}],
        },
    )
    db.run("INSERT INTO public.t1 VALUES (500, 'streamed')")
    run.sync()
    run.stop()
    assert run.cap.error is None and run.reads("t1") == []
    assert run.ops("t1") == ["c"]
    text = "\n".join(caplog.messages)
    assert "Incremental snapshot of table 'public.t1' failed and is skipped" in text
    assert "Error while executing requested blocking snapshot" in text


def test_in_process_channel(pg):
    """Debezium's in-process channel: signals sent by the embedding program (Capture.signal)."""
    db = Db(pg, TWO_TABLES_DDL)
    # slot.drop.on.stop: the module's server has 20 replication slots for all its tests
    run = Run(db, db.props(**{"signal.enabled.channels": "in-process", "slot.drop.on.stop": "true"})).start()
    run.sync()
    sid = run.cap.signal("execute-snapshot", {"data-collections": ["public.t2"], "type": "incremental"})
    assert sid.startswith("in-process-")
    run.wait(lambda r: r.snapshot_done() and len(r.reads("t2")) == 40, 30, "the in-process signal's snapshot")
    # the source channel is not enabled: a signal-table row is no signal (its watermark rows still work)
    db.run(  # (not db.signal: no channel handles this row, so snapshot_done must not wait for it)
        "INSERT INTO public.debezium_signal VALUES ('row-1', 'execute-snapshot', %s)",
        (json.dumps({"data-collections": ["public.t1"]}),),
    )
    run.cap.signal("execute-snapshot", json.dumps({"data-collections": ["public.t2"]}), "second")
    run.wait(lambda r: r.snapshot_done() and len(r.reads("t2")) == 80, 30, "the second in-process snapshot")
    run.stop()
    assert run.reads("t1") == []


def test_in_process_channel_not_enabled(pg):
    db = Db(pg, TWO_TABLES_DDL)
    run = Run(db, db.props(**{"slot.drop.on.stop": "true"})).start()
    try:
        with pytest.raises(CaptureError, match="in-process"):
            run.cap.signal("log", {"message": "x"})
    finally:
        run.stop()


# -- watermarking variants -----------------------------------------------------------------------------------


def test_insert_delete_watermarks(pg):
    """insert_delete: the open row is deleted at the close, nothing is left in the signal table."""
    db = Db(pg, ITEMS_DDL)
    run = Run(db, db.props(**{"incremental.snapshot.watermarking.strategy": "insert_delete"})).start()
    run.sync()
    # keys 601-1000 are never written: they must all be read, however long the snapshot takes
    writer = items_writer(db, seed=11, keys=600)
    writer.start()
    try:
        db.signal("execute-snapshot", {"data-collections": ["public.items"]}, "del-1")
        run.wait(lambda r: r.snapshot_done(), 60, "the snapshot")
    finally:
        writer.stop()
    run.sync()
    run.stop()
    assert db.query("SELECT id FROM public.debezium_signal") == [("del-1",)]
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


def test_read_only_watermarks(pg, tmp_path):
    """read.only=true: every connector session is read-only (default_transaction_read_only) and there is no
    signal table at all; signals come from the file, windows from pg_current_snapshot() and the WAL."""
    db = Db(pg, ITEMS_DDL + "CREATE PUBLICATION ro_pub FOR ALL TABLES;", signal_table=False)
    signals = tmp_path / "signals.jsonl"
    props = db.props(
        **{
            "read.only": "true",
            "signal.data.collection": None,
            "signal.enabled.channels": "file",
            "signal.file": str(signals),
            "signal.poll.interval.ms": "100",
            "publication.name": "ro_pub",
            "publication.autocreate.mode": "disabled",
            "database.initial.statements": "SET default_transaction_read_only = on",
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
                {"id": "ro-1", "type": "execute-snapshot", "data": {"data-collections": ["public.items"]}}
            )
            + "\n"
        )
        run.wait(lambda r: len(r.reads("items")) > 0, 30, "the first read")
        run.wait(lambda r: r.snapshot_done(), 120, "the snapshot")
    finally:
        writer.stop()
    run.sync()
    # a quiet table: windows close on the stream's idle position (keepalives), not on new changes
    signals.write_text(
        json.dumps(
            {"id": "ro-2", "type": "execute-snapshot", "data": {"data-collections": ["public.marker"]}}
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


# -- blocking snapshots ----------------------------------------------------------------------------------------


def test_blocking_snapshot(pg):
    db = Db(pg, TWO_TABLES_DDL + "CREATE TABLE public.t0 (id int PRIMARY KEY);")
    run = Run(db, db.props()).start()
    run.sync()
    with db.connect() as c:
        c.execute("BEGIN")
        c.execute(
            "INSERT INTO public.debezium_signal VALUES ('block-1', 'execute-snapshot', %s)",
            (
                json.dumps(
                    {
                        "type": "blocking",
                        "data-collections": ["public.t[0-2]"],
                        "additional-conditions": [
                            {
                                "data-collection": "public.t2",
                                "filter": "SELECT * FROM public.t2 WHERE id > 30 ORDER BY id DESC",
                            }
                        ],
                    }
                ),
            ),
        )
        c.execute("INSERT INTO public.t1 VALUES (1000, 'same tx')")
        c.execute("COMMIT")
    db.run("INSERT INTO public.t2 VALUES (0, 'after')")  # outside the filter, whenever it commits
    run.sync()
    db.signal(
        "execute-snapshot",
        {
            "type": "blocking",
            "data-collections": ["public.t1"],
            "additional-conditions": [{"data-collection": "public.t1", "filter": "id <= 2"}],
        },
        "block-2",
    )
    run.sync()
    run.stop()
    t1 = db.topic("t1")
    t2 = db.topic("t2")
    recs = [r for r in run.records if r["topic"] in (t1, t2, db.topic("debezium_signal")) and r["value"]]
    kinds = [
        (
            r["topic"].rsplit(".", 1)[1],
            r["value"]["payload"]["op"],
            r["value"]["payload"]["source"]["snapshot"],
        )
        for r in recs
    ]
    first = kinds[: 1 + 61 + 10]
    assert first[0] == ("debezium_signal", "c", "false")  # the signal's own event comes first
    reads = first[1:]
    assert [k[0] for k in reads] == ["t1"] * 61 + ["t2"] * 10  # the empty t0 counts as the first table
    marks = [k[2] for k in reads]
    assert marks[0] == "first_in_data_collection" and marks[60] == "last_in_data_collection"
    assert set(marks[1:60]) == {"true"} and marks[61] == "first_in_data_collection"
    assert marks[-1] == "last" and set(marks[62:-1]) == {"true"}
    t2_ids = [
        r["value"]["payload"]["after"]["id"]
        for r in recs
        if r["topic"] == t2 and r["value"]["payload"]["op"] == "r"
    ][:10]
    assert t2_ids == list(range(40, 30, -1))
    # the change in the signal's transaction (and the later one) is streamed after the snapshot
    assert kinds[1 + 71] == ("t1", "c", "false") and kinds[1 + 72] == ("t2", "c", "false")
    read0 = recs[1]["value"]["payload"]
    assert read0["transaction"] is None and read0["source"]["txId"] is not None
    assert read0["source"]["lsn"] == recs[0]["value"]["payload"]["source"]["lsn"]
    second = [r["value"]["payload"] for r in recs[74:] if r["value"]["payload"]["op"] == "r"]
    assert [p["after"]["id"] for p in second] == [1, 2]
    assert [p["source"]["snapshot"] for p in second] == ["first", "last"]


# -- schema changes ------------------------------------------------------------------------------------------


def test_schema_change_during_a_window_reads_the_chunk_again(pg, caplog):
    caplog.set_level(logging.INFO, logger="emulator")
    db = Db(pg, ITEMS_DDL)
    run = Run(db, db.props(**{"incremental.snapshot.chunk.size": "50"})).start()
    run.sync()
    locker = db.connect()
    locker.execute("BEGIN")
    locker.execute("LOCK TABLE public.items IN ACCESS EXCLUSIVE MODE")
    db.signal("execute-snapshot", {"data-collections": ["public.items"]})
    deadline = time.monotonic() + 30
    while not db.query("SELECT 1 FROM public.debezium_signal WHERE type = 'snapshot-window-open'"):
        assert time.monotonic() < deadline
        time.sleep(0.05)
    locker.execute("ALTER TABLE public.items ADD COLUMN extra text DEFAULT 'x'")
    locker.execute("UPDATE public.items SET v = nextval('ver') WHERE id = 7")
    locker.execute("COMMIT")
    locker.close()
    run.wait(lambda r: r.snapshot_done(), 60, "the snapshot")
    # a column dropped between windows without a change of the table in the stream: the next chunk query
    # would name it, so the table is read again from the catalog
    run.sync()
    mark = len(run.records)
    db.run("ALTER TABLE public.items DROP COLUMN note")
    db.signal("execute-snapshot", {"data-collections": ["public.items"]})
    run.wait(lambda r: r.snapshot_done() and len(r.reads("items", since=mark)) >= 1000, 60, "the second one")
    run.sync()
    run.stop()
    first = run.reads("items")[: len(run.reads("items")) - len(run.reads("items", since=mark))]
    assert len(first) == 1000
    assert all(r["value"]["payload"]["after"].get("extra") == "x" for r in first)
    # the re-read window opened after the update of 7: 7 is read again, with its new value (checked below)
    assert any("reading the chunk again" in m for m in caplog.messages)
    second = run.reads("items", since=mark)
    assert all("note" not in r["value"]["payload"]["after"] for r in second)
    fields = [f["field"] for f in second[0]["value"]["schema"]["fields"][1]["fields"]]
    assert fields == ["id", "v", "extra"]
    check_replay(run, db)


def test_offsets_keep_progress(pg):
    """The stored offsets name the tables still to do (with their filters) and the last emitted key."""
    db = Db(pg, TWO_TABLES_DDL)
    run = Run(db, db.props()).start()
    run.sync()
    _paused_after_first_window(db, run, ["public.t1", "public.t2"])
    run.stop()
    off = run.offsets.load()
    assert [c["incremental_snapshot_collections_id"] for c in off["incremental_snapshot_collections"]] == [
        "public.t1",
        "public.t2",
    ]
    assert off["incremental_snapshot_primary_key"] == ["10"]
    assert off["incremental_snapshot_maximum_key"] == ["60"]
    run.start()
    run.wait(lambda r: r.snapshot_done(), 30, "the resumed snapshot")
    run.stop()
    assert [r["key"]["payload"]["id"] for r in run.reads("t1")] == list(range(1, 61))
    assert len(run.reads("t2")) == 40
    assert "incremental_snapshot_collections" not in run.offsets.load()
