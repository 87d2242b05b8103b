"""A transaction reaches logical decoding before its commit is visible to other sessions: pgoutput sends it once
its commit record is flushed, and the committing backend leaves the proc array only after that. The Relation
handler reads the catalog (key, NOT NULL, defaults) from another session, so it must wait for the commit to show
(`await_commit_visible`), else it reads the catalog from before the transaction: case
relation_catalog_changed_in_tx keyed rows of a table whose primary key the transaction dropped, ~1 run in 8 on
a loaded machine. Here the window is held open on purpose: synchronous_standby_names naming a standby that never
connects stops the commit exactly there (SyncRepWaitForLSN, after the flush, before ProcArrayEndTransaction)."""

from __future__ import annotations

import threading
import time

from emulator.connectors.postgres.catalog import await_commit_visible
from emulator.connectors.postgres.replication import ReplicationStream
from emulator.testing.pgserver import PgServer

_PK = "SELECT count(*) FROM pg_constraint WHERE conname = 't_pkey'"


def test_catalog_read_waits_for_the_decoded_transactions_commit():
    with PgServer({"synchronous_commit": "on"}) as pg:
        c = pg.connect()
        c.execute("CREATE TABLE t (id int PRIMARY KEY)")
        c.execute("SELECT pg_create_logical_replication_slot('s', 'test_decoding')")
        c.execute("ALTER SYSTEM SET synchronous_standby_names = 'nobody'")
        c.execute("SELECT pg_reload_conf()")
        w = pg.connect()
        pid = w.info.backend_pid
        writer = threading.Thread(
            target=w.execute,
            args=("BEGIN; INSERT INTO t VALUES (1); ALTER TABLE t DROP CONSTRAINT t_pkey; COMMIT",),
        )
        writer.start()
        try:
            for _ in range(3000):  # until the commit waits for the standby (reload reaches it asynchronously)
                ev = c.execute("SELECT wait_event FROM pg_stat_activity WHERE pid = %s", (pid,)).fetchone()
                if ev is not None and ev[0] == "SyncRep":
                    break
                time.sleep(0.01)
            else:
                raise AssertionError("the commit never waited for the standby")
            changes = [r[2] for r in c.execute("SELECT * FROM pg_logical_slot_peek_changes('s', NULL, NULL)")]
            assert changes[-1].startswith("COMMIT ")  # decoded already ...
            assert c.execute(_PK).fetchone()[0] == 1  # ... while a new snapshot still has the dropped key
            xid = int(changes[0].split()[1])

            def release():
                time.sleep(0.5)  # while await_commit_visible waits (were it not to, the key would be read)
                r = pg.connect()
                r.execute("ALTER SYSTEM RESET synchronous_standby_names")
                r.execute("SELECT pg_reload_conf()")
                r.close()

            releaser = threading.Thread(target=release)
            releaser.start()
            await_commit_visible(c, xid)
            releaser.join()
            assert c.execute(_PK).fetchone()[0] == 0  # the catalog as the transaction left it
        finally:
            c.execute("ALTER SYSTEM RESET synchronous_standby_names")
            c.execute("SELECT pg_reload_conf()")
            writer.join()


_XID_LOCKED = (
    "SELECT count(*) FROM pg_locks WHERE locktype = 'transactionid' AND transactionid = %s::text::xid"
)


def test_no_wait_when_the_commit_waits_for_the_streams_own_walsender():
    """synchronous_standby_names naming the connector's walsender (or '*'): the commit waits for the stream to
    confirm it, which the stream does only after the transaction, so waiting for the commit to show could only
    run to the deadline (5 s per transaction). It returns at once, the commit still invisible."""
    with PgServer({"synchronous_commit": "on"}) as pg:
        c = pg.connect()
        c.execute("CREATE TABLE t (id int PRIMARY KEY)")
        c.execute("CREATE PUBLICATION p FOR ALL TABLES")
        stream = ReplicationStream(pg.dsn + "?application_name=us", "s", "p")
        try:
            start = stream.create_slot(export_snapshot=False).consistent_point
            stream.start(start)
            # a valid flush position makes it a candidate standby; it never confirms anything later
            stream.send_status(start)
            c.execute("ALTER SYSTEM SET synchronous_standby_names = 'us'")
            c.execute("SELECT pg_reload_conf()")
            for _ in range(3000):
                if c.execute("SELECT 1 FROM pg_stat_replication WHERE sync_state = 'sync'").fetchone():
                    break
                time.sleep(0.01)
            else:
                raise AssertionError("the stream never became the synchronous standby")
            w = pg.connect()
            writer = threading.Thread(target=w.execute, args=("INSERT INTO t VALUES (1)",))
            writer.start()
            for _ in range(3000):
                row = c.execute(
                    "SELECT wait_event, backend_xid::text FROM pg_stat_activity WHERE pid = %s",
                    (w.info.backend_pid,),
                ).fetchone()
                if row is not None and row[0] == "SyncRep":
                    break
                time.sleep(0.01)
            else:
                raise AssertionError("the commit never waited for the standby")
            xid = int(row[1])

            def release():
                time.sleep(1.5)  # were await_commit_visible to wait, it would wait for this
                r = pg.connect()
                r.execute("ALTER SYSTEM RESET synchronous_standby_names")
                r.execute("SELECT pg_reload_conf()")
                r.close()

            releaser = threading.Thread(target=release)
            releaser.start()
            await_commit_visible(c, xid, "s")
            assert (
                c.execute(_XID_LOCKED, (str(xid),)).fetchone()[0] == 1
            )  # returned with the commit still pending
            releaser.join()
            writer.join()
            w.close()
        finally:
            stream.close()
            c.execute("ALTER SYSTEM RESET synchronous_standby_names")
            c.execute("SELECT pg_reload_conf()")
