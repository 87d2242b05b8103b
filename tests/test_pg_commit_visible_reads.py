"""The reads the stream makes for a decoded transaction, other than the Relation's catalog read
(tests/test_pg_commit_visible.py), wait for its commit to be visible too. pgoutput sends a transaction once its
commit record is flushed; the committing backend leaves the proc array only after that, so a read made from
another session in between sees the database from before the transaction.

Each test changes a row in a transaction whose decoding makes the connector read it again: an `execute-snapshot`
signal in the same transaction (incremental: the chunk and the maximum key are read at the signal; blocking: the
snapshot runs right after it), or a reselect post-processor reading a NULL column again. Read before the commit
shows, the row is the one from before the transaction: the snapshot's READ, emitted after the streamed UPDATE,
puts the old value back; the reselect fills the UPDATE with a value older than itself. The window is held open
on purpose: with synchronous_standby_names naming a standby that never connects, the writer's commit (its session
at synchronous_commit=on) stops after the flush, before it becomes visible; every other session (the
connector's, at the server's `local`) commits without waiting. The connector decodes the transaction then
(the walsender sends flushed WAL); the standby is given up 0.5 s later."""

from __future__ import annotations

import itertools
import json
import threading
import time

import psycopg
import pytest
from incremental_checks import Run
from psycopg import sql

from emulator.testing.pgserver import PgServer

_DDL = """
CREATE TABLE public.debezium_signal (id varchar(42) PRIMARY KEY, type varchar(32) NOT NULL, data varchar(2048));
CREATE TABLE public.marker (id int PRIMARY KEY);
CREATE TABLE public.t (id int PRIMARY KEY, v text NOT NULL, n text);
INSERT INTO public.t VALUES (1, 'before', 'old'), (2, 'other', 'x');
"""
_n = itertools.count(1)


@pytest.fixture(scope="module")
def pg():
    with PgServer({"synchronous_commit": "local"}) as server:
        yield server


class _Db:
    def __init__(self, pg: PgServer) -> None:
        self.name = f"vis{next(_n)}"
        with pg.connect() as c:
            c.execute(f"CREATE DATABASE {self.name}")
        self.dsn = f"postgresql://postgres@127.0.0.1:{pg.port}/{self.name}"

    def connect(self) -> psycopg.Connection:
        return psycopg.connect(self.dsn, autocommit=True)

    def topic(self, table: str) -> str:
        return f"{self.name}.public.{table}"

    def insert_marker(self, n: int) -> None:
        with self.connect() as c:
            c.execute("INSERT INTO public.marker VALUES (%s)", (n,))


def _held_commit(pg: PgServer, db: _Db, run: Run, tx: str) -> None:
    """Runs `tx` (its statements, without BEGIN/COMMIT) in one transaction whose commit stays invisible until
    0.5 s after the connector was sent all of it."""
    c = db.connect()
    c.execute("ALTER SYSTEM SET synchronous_standby_names = 'nobody'")
    c.execute("SELECT pg_reload_conf()")
    w = db.connect()
    w.execute("SET synchronous_commit = on")
    writer = threading.Thread(target=w.execute, args=(f"BEGIN; {tx}; COMMIT",))
    writer.start()
    try:
        deadline = time.monotonic() + 30
        while c.execute(
            "SELECT wait_event IS DISTINCT FROM 'SyncRep' FROM pg_stat_activity WHERE pid = %s",
            (w.info.backend_pid,),
        ).fetchone()[0]:
            assert time.monotonic() < deadline, "the commit never waited for the standby"
            time.sleep(0.01)
        lsn = c.execute("SELECT pg_current_wal_insert_lsn()::text").fetchone()[0]
        assert pg.wait_slot_sent(db.name, lsn), "the transaction was not sent"
        assert c.execute("SELECT v FROM public.t WHERE id = 1").fetchone()[0] == "before"  # not visible yet
        # the connector has it: its reads wait now (were they not to, they would see 'before')
        time.sleep(0.5)
    finally:
        c.execute("ALTER SYSTEM RESET synchronous_standby_names")
        c.execute("SELECT pg_reload_conf()")
        writer.join()
        w.close()
        c.close()


def _start(pg: PgServer, db: _Db, **extra: str) -> Run:
    with db.connect() as c:
        c.execute(_DDL)
    props = pg.connector_properties(
        **{
            "database.dbname": db.name,
            "topic.prefix": db.name,
            "slot.name": db.name,
            "publication.name": f"{db.name}_pub",
            "snapshot.mode": "no_data",
            "signal.data.collection": "public.debezium_signal",
            **extra,
        }
    )
    run = Run(db, props).start()
    # the Relation messages of both tables go out now: in the held transaction their catalog reads would wait
    # (tests/test_pg_commit_visible.py), and these tests are about the reads after them
    with db.connect() as c:
        c.execute("UPDATE public.t SET v = 'before' WHERE id = 1")
        c.execute("INSERT INTO public.debezium_signal VALUES ('warm', 'log', '{\"message\": \"warm\"}')")
    run.sync()
    return run


def _changes(run: Run, db: _Db) -> list[tuple]:
    return [
        (p["op"], p["after"]["id"], p["after"]["v"], p["after"]["n"])
        for r in run.records
        if r["topic"] == db.topic("t")
        for p in [r["value"]["payload"]]
    ]


@pytest.mark.parametrize("kind", ["incremental", "blocking"])
def test_a_snapshot_signalled_in_the_transaction_reads_it_after_its_commit_shows(pg, kind):
    db = _Db(pg)
    run = _start(pg, db)
    try:
        _held_commit(
            pg,
            db,
            run,
            "UPDATE public.t SET v = 'in-tx' WHERE id = 1; "
            "INSERT INTO public.debezium_signal VALUES ('go', 'execute-snapshot', "
            + sql.quote(json.dumps({"data-collections": ["public.t"], "type": kind}))
            + ")",
        )
        run.wait(lambda r: len(r.reads("t")) == 2, 30, "the snapshot's reads")
        changes = _changes(run, db)
        assert changes[:2] == [("u", 1, "before", "old"), ("u", 1, "in-tx", "old")]
        # (a blocking snapshot reads in the heap's order, where the updated row went last)
        assert sorted(changes[2:]) == [
            ("r", 1, "in-tx", "old"),  # the row as the transaction left it: read after its commit showed
            ("r", 2, "other", "x"),
        ]
    finally:
        run.stop()


def test_a_reselect_reads_the_row_after_its_transactions_commit_shows(pg):
    db = _Db(pg)
    run = _start(
        pg,
        db,
        **{
            "post.processors": "reselector",
            "reselector.type": "io.debezium.processors.reselect.ReselectColumnsPostProcessor",
        },
    )
    try:
        _held_commit(
            pg,
            db,
            run,
            "UPDATE public.t SET v = 'in-tx', n = NULL WHERE id = 1; UPDATE public.t SET n = 'later' WHERE id = 1",
        )
        run.sync()
        # the NULL read again: the row as the transaction left it (from before it: 'old', older than the UPDATE)
        assert _changes(run, db) == [
            ("u", 1, "before", "old"),
            ("u", 1, "in-tx", "later"),
            ("u", 1, "in-tx", "later"),
        ]
    finally:
        run.stop()
