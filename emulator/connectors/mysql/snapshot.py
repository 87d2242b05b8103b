"""The MySQL connector's snapshot: locks, binlog position, schema and data reads, schema-change events.

A mixin of MySqlConnector (its state is set in MySqlConnector.__init__); split out of connector.py
so each module has one job."""

from __future__ import annotations

import logging
import time
from contextlib import contextmanager

import pymysql

from emulator.connectors.mysql import textrows
from emulator.connectors.mysql.captured import SYSTEM_DATABASES, CapturedTable, quote_id
from emulator.connectors.mysql.ddl import Change, DdlError
from emulator.connectors.mysql.schema_changes import db_charset, history_change, table_change
from emulator.connectors.mysql.source import source_block
from emulator.filters import include_list_order
from emulator.pipeline.coordinator import SnapshotSession
from emulator.records import Record
from emulator.settings import settings_for

log = logging.getLogger("emulator.mysql")


class MySqlSnapshot:
    """The MySQL connector's snapshot: locks, binlog position, schema and data reads, schema-change events."""

    # -- snapshot ----------------------------------------------------------------------------------------------
    @contextmanager
    def _snapshot(self, data: bool):
        """The initial snapshot: under the global read lock (snapshot.locking.mode) the binlog position and
        every table's structure (the schema history and the schema-change records, the last held back),
        then the rows in a consistent-snapshot transaction, read by the coordinator."""
        start = time.monotonic()
        session = None
        snap = self._connect()
        locked = False
        try:
            if self.locking_mode in ("minimal", "minimal_at_least_once", "minimal_percona", "extended"):
                try:
                    self._q("FLUSH TABLES WITH READ LOCK", conn=snap)
                    locked = True
                except pymysql.err.MySQLError as e:
                    log.warning("global read lock not available (%s); snapshot without a lock", e)
            self._q("SET SESSION TRANSACTION ISOLATION LEVEL REPEATABLE READ", conn=snap)
            self._q("START TRANSACTION WITH CONSISTENT SNAPSHOT", conn=snap)
            if not locked and self.mariadb_server:
                # no lock: MariaDB tells the binlog position of the consistent snapshot itself
                file, pos, gtid = self._snapshot_position(snap)
            else:
                file, pos, gtid = self._binlog_status(conn=snap)
            server_cs = self._q("SELECT @@character_set_server, @@collation_server", conn=snap)[0]
            # store.only.captured.databases.ddl=false (the default): the schema of every non-system
            # database is read and recorded, captured or not (recorded: case otherdb_snapshot)
            dbs = [
                r[0]
                for r in self._q("SHOW DATABASES", conn=snap)
                if (self._db_included(r[0]) if self.store_only_captured_dbs else r[0] not in SYSTEM_DATABASES)
            ]
            dbs.sort()
            schema: list[tuple[str, str, list[tuple[str, str]]]] = []
            for db in dbs:
                names = sorted(
                    r[0]
                    for r in self._q(
                        f"SHOW FULL TABLES IN {quote_id(db)} WHERE Table_type = 'BASE TABLE'", conn=snap
                    )
                )
                create_db = self._q(f"SHOW CREATE DATABASE {quote_id(db)}", conn=snap)[0][1]
                tables = [
                    (n, self._q(f"SHOW CREATE TABLE {quote_id(db)}.{quote_id(n)}", conn=snap)[0][1])
                    for n in names
                ]
                schema.append((db, create_db, tables))
            if locked and self.locking_mode != "extended":
                self._q("UNLOCK TABLES", conn=snap)
                locked = False
            self.file, self.next_pos = file, pos
            self.gtids = self._new_gtid_set(gtid)
            self._pending_schema_change = None
            self._snapshot_schema(server_cs, schema, file, pos, defer_last=True)
            session = self._data_session(snap, file, pos, data)
            try:
                yield session
            except Exception:
                # a row read failed: Debezium had queued every schema change before reading rows, and its
                # engine delivers what it polled before the failure (case snapshot_fails_first_row); the
                # held-back last one goes out as "true", as it would before a row
                self._flush_pending_schema_change("true")
                raise
            if not session.completed:
                return
            # no row read at all (no_data, or empty tables): the last schema change closes the snapshot
            # (Debezium marks it "last")
            self._flush_pending_schema_change("last")
            self._q("COMMIT", conn=snap)
            if locked:
                self._q("UNLOCK TABLES", conn=snap)
                locked = False
        finally:
            try:
                snap.close()
            except Exception:  # noqa: BLE001
                pass
        if session is None or not session.completed or self.engine.stopping:
            return
        self.snapshot_done = True
        log.info(
            "snapshot done in %.2f s at %s:%s (gtids %s)",
            time.monotonic() - start,
            self.file,
            self.next_pos,
            self.gtids,
        )

    def _flush_pending_schema_change(self, marker: str) -> None:
        pending = getattr(self, "_pending_schema_change", None)
        if pending is not None:
            self._pending_schema_change = None
            db, ddl, tcs, src, ts_ms = pending
            src["snapshot"] = marker
            self._emit_schema_change(db, ddl, tcs, src, ts_ms)

    def _snapshot_schema(
        self, server_cs: tuple, schema: list, file: str, pos: int, defer_last: bool = False
    ) -> None:
        self.history.reset()
        self.catalog.tables.clear()
        self.catalog.db_charsets.clear()
        self.catalog.server_charset = server_cs[0]
        self.by_id.clear()
        self.schema_epoch += 1
        position = {"file": file, "pos": pos, "snapshot": True}
        if self.gtids is not None:
            position["gtids"] = str(self.gtids)
        stmts: list[tuple[str, str | None, str, list[Change]]] = []
        stmts.append(
            ("", None, f"SET character_set_server={server_cs[0]}, collation_server={server_cs[1]}", [])
        )
        for db, _create_db, tables in schema:
            for name, _ in tables:
                stmts.append((db, name, f"DROP TABLE IF EXISTS `{db}`.`{name}`", None))
        for db, create_db, tables in schema:
            cs, coll = db_charset(create_db, server_cs)
            stmts.append((db, None, f"DROP DATABASE IF EXISTS `{db}`", []))
            stmts.append((db, None, f"CREATE DATABASE `{db}` CHARSET {cs} COLLATE {coll}", []))
            stmts.append((db, None, f"USE `{db}`", []))
            for name, ddl in tables:
                stmts.append((db, name, ddl, None))
        for db, name, ddl, fixed in stmts:
            if fixed is None:
                try:
                    changes = self.parser.apply(ddl, db or None)
                except DdlError as e:
                    if not self.skip_unparseable:
                        raise DdlError(
                            f"{e}; set schema.history.internal.skip.unparseable.ddl=true to skip it"
                        ) from None
                    log.warning("skipping unparseable DDL %r", ddl)
                    changes = []
            else:
                changes = (
                    self.parser.apply(ddl, db or None)
                    if ddl.startswith(("CREATE DATABASE", "DROP DATABASE"))
                    else []
                )
            tcs = [table_change(c) for c in changes if c.kind in ("CREATE", "ALTER", "DROP")]
            ts_us = time.time_ns() // 1000
            self.history.append(
                position,
                ts_us // 1000,
                db,
                ddl,
                [history_change(c) for c in changes if c.kind in ("CREATE", "ALTER", "DROP")],
            )
            if self.include_schema_changes and (
                not self.store_only_captured_dbs or self._schema_change_db_ok(db)
            ):
                src = source_block(
                    self.prefix, self.flavor.name, ts_us, "true", db, name, 0, None, file, pos, 0
                )
                # the last one waits: it is the snapshot's "last" record when no row follows
                self._flush_pending_schema_change("true")
                self._pending_schema_change = (db, ddl, tcs, src, ts_us // 1000)
        if not defer_last:
            self._flush_pending_schema_change("true")

    def _data_session(self, snap: pymysql.Connection, file: str, pos: int, data: bool) -> SnapshotSession:
        """The tables whose rows the snapshot reads (none without `data`), in include-list order or by
        row count (snapshot.tables.order.by.row.count)."""
        if not data:
            return SnapshotSession([], iter, self._snapshot_emitter(0, None, file, pos), str, captured=[])
        typed = settings_for(self.cfg)
        only = typed.snapshot.include_collection_list
        tables = []
        for tid in self.captured_table_ids():
            if tid == self.signal_table:
                continue
            if only and not any(p.fullmatch(tid) for p in only):
                continue
            ct = self.table_by_id(tid)
            if ct is not None:
                tables.append(ct)
        tables = include_list_order(tables, typed.relational.table_include, lambda ct: ct.data_collection)
        order = typed.relational.snapshot_tables_order_by_row_count.lower()
        # the server's row estimates: progress and ETA, and the optional ordering
        counts = {
            f"{db}.{t}": int(n or 0)
            for db, t, n in self._q(
                "SELECT table_schema, table_name, table_rows FROM information_schema.tables", conn=snap
            )
        }
        if order in ("ascending", "descending") and tables:
            tables.sort(key=lambda ct: counts.get(ct.data_collection, 0), reverse=order == "descending")
        overrides = set(typed.relational.snapshot_select_overrides)
        statements = typed.relational.snapshot_select_statements

        def rows_of(ct: CapturedTable):
            t = ct.env.table
            cols = ", ".join(quote_id(c.name) for c in t.columns)
            sql = f"SELECT {cols} FROM {quote_id(t.namespace)}.{quote_id(t.name)}"
            if t.id in overrides:
                stmt = statements.get(t.id)
                if stmt:
                    sql = f"SELECT {', '.join('q.' + quote_id(c.name) for c in t.columns)} FROM ({stmt}) AS q"
            log.info("snapshot of %s: starting", t.id)
            parse = self._text_parser(ct)
            n = 0
            next_log = time.monotonic() + 10
            for row in textrows.stream_rows(snap, sql, parse):
                n += 1
                yield row
                if not n & 8191 and time.monotonic() >= next_log:
                    next_log += 10
                    log.info("snapshot of %s: %d rows so far", t.id, n)
            log.info("snapshot of %s: %d rows", t.id, n)

        emit_one = self._snapshot_emitter(0, None, file, pos)

        def emit_row(ct: CapturedTable, after: dict, mark: str) -> None:
            if self._pending_schema_change is not None:
                self._flush_pending_schema_change("true")
            emit_one(ct, after, mark)

        return SnapshotSession(
            tables,
            rows_of,
            emit_row,
            lambda ct: ct.data_collection,
            captured=self.captured_table_ids(),
            estimates=counts,
        )

    def _snapshot_emitter(self, server_id: int, gtid: str | None, file: str, pos: int):
        """`emit_row(ct, after, marker)` for initial and blocking snapshots: one source block per
        (marker, table, second), as Debezium stamps snapshot reads with the read time in seconds."""
        prefix, name, emit = self.prefix, self.flavor.name, self.engine.emit
        sources: dict[tuple, dict] = {}

        def emit_row(ct: CapturedTable, after: dict, mark: str) -> None:
            env = ct.env
            t = env.table
            if env.null_fill:
                env.fill_nulls(after)
            sec = int(time.time())
            k = (mark, t.id, sec)
            src = sources.get(k)
            if src is None:
                src = source_block(
                    prefix, name, sec * 1_000_000, mark, t.namespace, t.name, server_id, gtid, file, pos, 0
                )
                sources.clear()
                sources[k] = src
            emit(env.change("r", None, after, src, None, env.key_of(after)))

        return emit_row

    # -- schema changes --------------------------------------------------------------------------------------
    def _emit_schema_change(
        self, db: str, ddl: str, table_changes: list[dict], src: dict, ts_ms: int
    ) -> None:
        value = {
            "source": src,
            "ts_ms": time.time_ns() // 1_000_000,
            "databaseName": db,
            "schemaName": None,
            "ddl": ddl,
            "tableChanges": table_changes,
        }
        self.dispatcher.schema_change(
            Record(
                self.prefix,
                self.schema_key_frame.encode({"databaseName": db}),
                self.schema_value_frame.encode(value),
                self.settings.context_headers,
            )
        )
