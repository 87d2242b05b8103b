"""The MySQL connector as a chunk source for incremental snapshots (chunks, watermarks, keep-alive)
and for blocking snapshots started by a signal.

A mixin of MySqlConnector."""

from __future__ import annotations

import logging
import time
from contextlib import contextmanager
from typing import Any

import pymysql

from emulator.connectors.mysql import textrows
from emulator.connectors.mysql.captured import CapturedTable, quote_id
from emulator.connectors.mysql.ddl_model import Change
from emulator.connectors.mysql.gtid import MariaGtidSet, MySqlGtidSet
from emulator.connectors.mysql.jdbc_schema import read_table
from emulator.connectors.mysql.schema_changes import history_change, table_change
from emulator.connectors.mysql.snapshot import key_ordered_select
from emulator.connectors.mysql.snapshot_events import SnapshotEvent
from emulator.connectors.mysql.source import source_block
from emulator.incremental.chunks_mysql import MySqlChunks
from emulator.incremental.conditions import Predicate
from emulator.javahash import hashmap_order, table_size
from emulator.pipeline.coordinator import SnapshotSession, blocking_snapshot
from emulator.pipeline.snapshot_chunks import (
    chunked,
    chunked_path,
    legacy_markers,
    max_threads,
    not_null_key,
)
from emulator.snapshot import marker

log = logging.getLogger("emulator.mysql")


class MySqlChunkSource:
    """The MySQL connector as a chunk source for incremental snapshots (chunks, watermarks, keep-alive)"""

    # -- incremental snapshot source ---------------------------------------------------------------------------
    @staticmethod
    def is_retriable(exc: BaseException) -> bool:
        """A connection-level failure (server restarted, network cut): the runner restarts the connector
        from its offsets; anything else stops an incremental snapshot, not the connector."""
        return isinstance(exc, pymysql.err.OperationalError | ConnectionError)

    def max_key(self, ct: CapturedTable, key_cols: list[str], condition: Predicate | None) -> list | None:
        rows = self._read_only(*MySqlChunks.max_key(ct.env.table, key_cols, condition, self.conn.escape))
        return list(rows[0]) if rows else None

    def _read_only(self, sql: str, args: Any) -> list[tuple]:
        """A chunk query in a read-only transaction (a filter can read, never write); inside the
        consistent-snapshot transaction of a read.only chunk the query runs as it is."""
        if self.conn.get_autocommit() and not self._in_ro_snapshot:
            self._q("START TRANSACTION READ ONLY")
            try:
                rows = self._q(sql, args)
            finally:
                self._q("COMMIT")
            return rows
        return self._q(sql, args)

    def read_chunk(
        self,
        ct: CapturedTable,
        key_cols: list[str],
        after: list | None,
        upto: list,
        limit: int,
        condition: Predicate | None,
    ) -> list[list]:
        q = MySqlChunks.chunk(ct.env.table, key_cols, after, upto, limit, condition, self.conn.escape)
        return [list(r) for r in self._read_only(*q)]

    def write_watermark(self, row_id: str, kind: str, data: str) -> None:
        if not self.signal_table:
            raise ValueError("incremental snapshots need signal.data.collection (the watermark table)")
        if self._wm_conn is None:
            self._wm_conn = self._connect()
        db, _, table = self.signal_table.partition(".")
        self._q(
            f"INSERT INTO {quote_id(db)}.{quote_id(table)} VALUES (%s, %s, %s)",
            (row_id, kind, data),
            conn=self._wm_conn,
        )

    # read.only=true: chunk reads with an executed-GTID-set watermark, nothing written -------------------
    def read_chunk_with_watermark(
        self,
        ct: CapturedTable,
        key_cols: list[str],
        after: list | None,
        upto: list,
        limit: int,
        condition: str | None,
    ) -> tuple[list[list], MariaGtidSet | MySqlGtidSet | tuple[str, int]]:
        """The chunk, read in a consistent-snapshot transaction, and its watermark: the executed GTID set
        every transaction visible to the read belongs to. Once the stream has completed every transaction
        of that set the window closes; until then every streamed change drops its key from the chunk.
        MariaDB reports the snapshot's own GTID position (BINLOG_GTID_POS of binlog_snapshot_file/position:
        exact, unlike gtid_binlog_pos, which runs ahead of commits becoming visible); MySQL's
        gtid_executed is read right after the snapshot started - a superset of what it sees, which only
        makes the window drop more reads. Without GTIDs (MySQL with gtid_mode=OFF) the watermark is the
        binlog position, compared the same way."""
        conn = self.conn
        self._q("SET SESSION TRANSACTION ISOLATION LEVEL REPEATABLE READ", conn=conn)
        self._q("START TRANSACTION WITH CONSISTENT SNAPSHOT, READ ONLY", conn=conn)
        self._in_ro_snapshot = True
        try:
            if self.mariadb_server:
                file, pos, gtid = self._snapshot_position(conn)
            else:
                file, pos, gtid = self._binlog_status(conn=conn)
            rows = self.read_chunk(ct, key_cols, after, upto, limit, condition)
            self._q("COMMIT", conn=conn)
        except BaseException:
            self._q("ROLLBACK", conn=conn)
            raise
        finally:
            self._in_ro_snapshot = False
        mark = self._new_gtid_set(gtid) if gtid and self.gtids is not None else None
        if not mark:
            if not self._warned_position_watermark:
                self._warned_position_watermark = True
                log.warning("read-only incremental snapshot without GTIDs: windows use binlog positions")
            return rows, (file, pos)
        log.debug(
            "read-only chunk of %s: window open until the stream has executed %s", ct.env.table.id, mark
        )
        return rows, mark

    def watermark_passed(self, mark) -> bool:
        if self.in_tx:
            return False
        if isinstance(mark, tuple):
            return (self.file, self.next_pos) >= (mark[0], int(mark[1]))
        return self.gtids is not None and self.gtids.contains_all(mark)

    def delete_watermark(self, row_id: str) -> None:
        """incremental.snapshot.watermarking.strategy=insert_delete: the open row is deleted again."""
        if self._wm_conn is None:
            self._wm_conn = self._connect()
        db, _, table = (self.signal_table or "").partition(".")
        self._q(
            f"DELETE FROM {quote_id(db)}.{quote_id(table)} WHERE {quote_id(self._signal_id_column())} = %s",
            (row_id,),
            conn=self._wm_conn,
        )

    def _signal_id_column(self) -> str:
        db, _, table = (self.signal_table or "").partition(".")
        t = self.catalog.get(db, table)
        return t.columns[0].name if t is not None and t.columns else "id"

    def keep_alive(self) -> None:
        return None  # the binlog connection needs nothing while a synchronous loop runs

    def retrieve_schema(self, table_id: str) -> bool:
        """An incremental snapshot of a table the schema does not know (one outside the filters, or gone):
        Debezium's retrieveAndRefreshSchema. It reads the table over JDBC (jdbc_schema.py); when that finds it,
        the table's CREATE (`ddl` null, the JDBC-built table) goes to the schema history and the schema-change
        topic unless store.only.captured.tables.ddl keeps a table outside the filters out (the dispatcher's
        filter), and the JDBC-built table replaces the model's, so later DDL of that table describes it
        (RelationalDatabaseSchema.refresh). The source block is the event being processed (the signal or
        window row). -> whether the table is now captured (never for a filtered table: Debezium's refresh
        then fails and the table is skipped). Recorded: mariadb cases incremental_unknown_table_*."""
        db, dot, name = table_id.partition(".")
        if not dot or "." in name:  # Debezium's TableId of another shape never equals a table's
            return False
        table = read_table(self._q, db, name)
        if table is None:
            return False
        captured = self._db_included(db) and self.filters.table_included(db, name)
        if captured or not self.store_only_captured_tables:
            ts_ms = self.commit_ts_us // 1000 if self.commit_ts_us else self._ts * 1000
            position = self._history_position()  # (MySqlSchemaChanges)
            tc = {"type": "CREATE", "id": table.quoted_id, "table": table.change_payload()}
            history = history_change(Change("CREATE", db, "", table, name))
            self.history.append(position, ts_ms, db, None, [history])
            if self.include_schema_changes:
                self._emit_schema_change(db, None, [tc], self._event_source(), ts_ms)
        self.catalog.put(table)
        self._invalidate(db, name)
        return captured

    def _event_source(self) -> dict:
        """The source block of the stream event being handled: Debezium's offset context when a signal
        (or the window row that moves a snapshot on) runs."""
        # a chunk's records sent while handling this event set the offset's table to theirs (Debezium's sendEvent:
        # offsetContext.event), so a table read over JDBC next carries it (campaign seed 90003, case
        # incremental_unknown_table_after_chunk)
        chunk = self._chunk_of_event
        if chunk is not None and chunk[0] == (self.file, self._start):
            return self._src(chunk[1], self.last_row)
        sig = self.table_by_id(self.signal_table) if self.signal_table else None
        if sig is not None:
            return self._src(sig, self.last_row)
        return source_block(
            self.prefix,
            self.flavor.name,
            self.commit_ts_us or self._ts * 1_000_000,
            "false",
            "",
            None,
            self._sid,
            self.gtid,
            self.file,
            self._start,
            self.last_row,
            self.thread,
            self.query,
        )

    # execute-snapshot type blocking ---------------------------------------------------------------------
    def blocking_snapshot(self, tables: list[str], filters: dict[str, str]) -> None:
        """`filters` maps a table to the (validated) SELECT that replaces its full read. The source block
        carries the stream's position at the signal."""
        blocking_snapshot(self, self.engine, self._blocking_session(tables, filters))

    @contextmanager
    def _blocking_session(self, tables: list[str], filters: dict[str, str]):
        cts = []
        for tid in sorted(set(tables)):
            if tid == self.signal_table:
                continue
            ct = self.table_by_id(tid)
            if ct is not None:
                cts.append(ct)
        snap = self._connect()
        file, pos, sid, gtid = self.file, self._start, self._sid, self.gtid
        try:
            self._q("SET SESSION TRANSACTION ISOLATION LEVEL REPEATABLE READ", conn=snap)
            self._q("START TRANSACTION WITH CONSISTENT SNAPSHOT", conn=snap)
            held = self._blocking_schema(snap, cts, (sid, gtid, file, pos))
            # Debezium's blocking snapshot is its snapshot source too: on its chunked path (snapshot.max.threads
            # or a multiplier > 1) its chunked tables come in key order (read here on one connection), legacy has no `first`
            threads, legacy = max_threads(self.cfg, len(cts))
            chunking = chunked_path(self.cfg, threads, legacy) and not legacy

            def rows_of(ct: CapturedTable):
                t = ct.env.table
                stmt = filters.get(t.id)
                if stmt:  # the checked SELECT, values escaped by the driver
                    sql = (
                        f"SELECT {', '.join('q.' + quote_id(c.name) for c in t.columns)} "
                        f"FROM ({stmt.render(snap.escape)}) AS q"
                    )
                else:
                    sql = (
                        f"SELECT {', '.join(quote_id(c.name) for c in t.columns)} FROM {quote_id(t.namespace)}."
                        f"{quote_id(t.name)}"
                    )
                    if chunking and not_null_key(t):
                        count = self._q(
                            f"SELECT COUNT(1) FROM {quote_id(t.namespace)}.{quote_id(t.name)}", conn=snap
                        )
                        if chunked(int(count[0][0]), threads):
                            sql = key_ordered_select(t, ", ".join(quote_id(c.name) for c in t.columns))
                n = 0
                for row in textrows.stream_rows(snap, sql, self._text_parser(ct)):
                    n += 1
                    yield row
                log.info("blocking snapshot of %s: %d rows", t.id, n)

            emit_row = self._snapshot_emitter(sid, gtid, file, pos)

            def emit_first(ct: CapturedTable, after, mark: str) -> None:
                nonlocal held
                if held is not None:  # a row follows the schema events: the held one goes out as it is
                    self._emit_kept(held)
                    held = None
                emit_row(ct, after, mark)

            yield SnapshotSession(
                cts,
                rows_of,
                emit_first,
                lambda ct: ct.data_collection,
                markers=legacy_markers if legacy and threads > 1 else marker,
            )
            if held is not None:  # no row read: the last schema event closes the snapshot (unless stopped)
                self._emit_kept(held, last=not self.engine.stopping)
            self._q("COMMIT", conn=snap)
        finally:
            snap.close()

    def _blocking_schema(self, snap, cts: list[CapturedTable], at: tuple) -> SnapshotEvent | None:
        """The schema events of a blocking snapshot (Debezium's readTableStructure on demand, then
        createSchemaChangeEventsForTables): a DROP TABLE of each table read, then its SHOW CREATE TABLE per database
        (in HashMap order without locks, as the initial snapshot), no SET / database statements, added to the
        snapshot source's kept events unless an equal one is there (snapshot_events.py); then every kept event of
        these tables is applied to the model, recorded in the schema history and emitted, in the kept order, each
        with the source block it was built with. A new one carries `at` (the rows' server id, GTID, file and
        position) and `snapshot` "false". The last one is held back and returned: it goes out before the first row,
        or as the snapshot's `last` record when no row follows. Recorded: mariadb cases
        blocking_snapshot_schema_events, blocking_snapshot_kept_events."""
        sid, gtid, file, pos = at
        ids = [(ct.env.table.namespace, ct.env.table.name) for ct in cts]
        stmts = [(db, n, f"DROP TABLE IF EXISTS `{db}`.`{n}`") for db, n in ids]
        for db in dict.fromkeys(db for db, _ in ids):
            names = [n for d, n in ids if d == db]
            if self.locking_mode == "none":
                order = hashmap_order([f"{db}.{n}" for n in names], table_size(len(names), at_least=2))
                names = [o[len(db) + 1 :] for o in order]
            for n in names:
                stmts.append(
                    (db, n, self._q(f"SHOW CREATE TABLE {quote_id(db)}.{quote_id(n)}", conn=snap)[0][1])
                )
        events = self.snapshot_events
        position = {"file": self.file, "pos": self._start, "server_id": self._sid, "ts_sec": self._ts}
        for db, name, ddl in stmts:
            if (db, ddl) not in events:
                ts_us = time.time_ns() // 1000
                src = source_block(
                    self.prefix, self.flavor.name, ts_us, "false", db, name, sid, gtid, file, pos, 0
                )
                events.add(SnapshotEvent(db, name, ddl, src, ts_us // 1000, position))
        applied: dict[tuple[str, str], str] = {}
        held = None
        for ev in events.of_tables(set(ids)):
            changes = [c for c in self.parser.apply(ev.ddl, ev.db) if c.kind in ("CREATE", "ALTER", "DROP")]
            self._invalidate(ev.db, ev.table)
            applied[(ev.db, ev.table)] = ev.ddl
            if ev.table_changes is None:  # built now: a later blocking snapshot dispatches it as it is now
                ev.table_changes = [table_change(c) for c in changes]
                ev.history_changes = [history_change(c) for c in changes]
            self.history.append(ev.position, ev.ts_ms, ev.db, ev.ddl, ev.history_changes or [])
            if self.include_schema_changes:
                if held is not None:
                    self._emit_kept(held)
                held = ev
        # Debezium's schema ends as its last dispatched CREATE: an older text than the table's own when the table
        # went back to a text an earlier snapshot kept. The emulator keeps the table as it is (no record emitted)
        for db, name, ddl in stmts:
            if not ddl.startswith("DROP TABLE") and applied.get((db, name)) != ddl:
                changes = [c for c in self.parser.apply(ddl, db) if c.kind in ("CREATE", "ALTER", "DROP")]
                self._invalidate(db, name)
                self.history.append(
                    position, time.time_ns() // 1_000_000, db, ddl, [history_change(c) for c in changes]
                )
        return held

    def _emit_kept(self, ev: SnapshotEvent, last: bool = False) -> None:
        """A kept schema event emitted as it was built. `last`: the snapshot read no row after it, so Debezium's
        postSnapshot marks it `last` - in the event's own source struct, which it dispatches again later with that
        mark (recorded: mariadb case blocking_snapshot_kept_events)."""
        if last:
            ev.src["snapshot"] = "last"
        self._emit_schema_change(ev.db, ev.ddl, ev.table_changes or [], dict(ev.src), ev.ts_ms)

    def read_source(self, ct: CapturedTable) -> dict:
        self._chunk_of_event = ((self.file, self._start), ct)  # (for `_event_source`)
        t = ct.env.table
        return source_block(
            self.prefix,
            self.flavor.name,
            time.time_ns() // 1000,
            "incremental",
            t.namespace,
            t.name,
            self._sid,
            self.gtid,
            self.file,
            self._start,
            0,
            self.thread,
            None,
        )
