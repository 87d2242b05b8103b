"""The MySQL connector's snapshot: locks, binlog position, schema and data reads, schema-change events.

A mixin of MySqlConnector (its state is set in MySqlConnector.__init__); split out of connector.py
so each module has one job."""

from __future__ import annotations

import logging
import time
from contextlib import contextmanager

import orjson
import pymysql

from emulator.connectors.mysql import chunk_time_key, textrows
from emulator.connectors.mysql.captured import SYSTEM_DATABASES, CapturedTable, quote_id
from emulator.connectors.mysql.ddl import Change, DdlError
from emulator.connectors.mysql.ddl_normalize import ansi_quotes
from emulator.connectors.mysql.schema_changes import db_charset, history_change, table_change
from emulator.connectors.mysql.snapshot_events import SnapshotEvent
from emulator.connectors.mysql.snapshot_render import mysql_renderer, one_reader_lines
from emulator.connectors.mysql.snapshot_select import override_select, projected
from emulator.connectors.mysql.source import source_block
from emulator.envelope import TableEnvelope
from emulator.filters import include_list_order
from emulator.javahash import hashmap_order, table_size
from emulator.pipeline.coordinator import SnapshotSession
from emulator.pipeline.snapshot_chunks import (
    PIECE_ROWS,
    ChunkReadAhead,
    Piece,
    batched,
    chunked,
    chunked_path,
    legacy_markers,
    max_threads,
    not_null_key,
    table_rows,
)
from emulator.pipeline.snapshot_records import LineBatch, bytes_records, writes_lines
from emulator.pipeline.snapshot_workers import ForkedReaders, Lines, fork_available
from emulator.records import Record, StructuredRecord
from emulator.settings import settings_for
from emulator.snapshot import marker

log = logging.getLogger("emulator.mysql")


def key_ordered_select(t, cols: str) -> str:
    """The plain read of a chunked table in key order (Debezium's chunks, one after the other)."""
    keys = ", ".join(quote_id(k) for k in t.key_columns)
    return f"SELECT {cols} FROM {quote_id(t.namespace)}.{quote_id(t.name)} ORDER BY {keys}"


def _cascade(conn: pymysql.Connection, keys: list[str], values: tuple, op: str, last: str) -> str:
    """Debezium's cascading key bound (CascadingOrBoundaryConditions): (k1 op v1) OR (k1 = v1 AND k2 op v2)
    ... OR (k1 = v1 AND ... AND kn last vn); `>`/`>=` is `key >= values` in key order, `<`/`<` is `key <
    values`. A form MySQL's range optimizer turns into index ranges."""
    ors = []
    n = len(keys)
    for i in range(n):
        ands = [f"{quote_id(keys[j])} = {conn.escape(values[j])}" for j in range(i)]
        ands.append(f"{quote_id(keys[i])} {last if i == n - 1 else op} {conn.escape(values[i])}")
        ors.append("(" + " AND ".join(ands) + ")")
    return "(" + " OR ".join(ors) + ")"


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
        pool: list[pymysql.Connection] = []
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
            # Debezium's parser takes the server's sql_mode here, for the rest of the run (ddl_normalize)
            self.parser.ansi_quotes = ansi_quotes(self._q("SELECT @@SESSION.sql_mode", conn=snap)[0][0])
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
                if self.store_only_captured_tables:
                    # Debezium reads the schema of the captured tables only (readTableStructure), and of their
                    # databases only (recorded: mariadb case store_only_captured_tables)
                    names = [n for n in names if self.filters.table_included(db, n)]
                    if not names:
                        continue
                create_db = self._q(f"SHOW CREATE DATABASE {quote_id(db)}", conn=snap)[0][1]
                tables = [
                    (n, self._q(f"SHOW CREATE TABLE {quote_id(db)}.{quote_id(n)}", conn=snap)[0][1])
                    for n in names
                ]
                schema.append((db, create_db, tables))
            if self.store_only_captured_tables:
                schema = self._captured_order(schema)
            pool = self._snapshot_pool(data, locked)
            if locked and self.locking_mode != "extended":
                self._q("UNLOCK TABLES", conn=snap)
                locked = False
            self.file, self.next_pos = file, pos
            self.gtids = self._new_gtid_set(gtid)
            self._pending_schema_change = None
            self._snapshot_schema(server_cs, schema, file, pos, defer_last=True)
            if data:  # a TIME maximum key Connector/J cannot read stops Debezium before its first row, the
                # held-back last schema change lost with it (case snapshot_threads_time_key_stops)
                chunk_time_key.check(self, snap)
            session = self._data_session(snap, file, pos, data, pool)
            try:
                yield session
                self._stop_readers()
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
            self._stop_readers()  # before their connections close
            for c in [*pool, snap]:
                try:
                    c.close()
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

    def _captured_order(self, schema: list) -> list:
        """store.only.captured.tables.ddl: Debezium reads the structure of its captured tables in their
        snapshot order (addSignalingCollectionAndSort: table.include.list order, the signal table last), its
        databases in the order their first table comes (readTableStructure's groupingBy)."""
        patterns = list(settings_for(self.cfg).relational.table_include)

        def rank(e: tuple) -> int:  # the first include pattern matched; else (the signal table) after them
            tid = f"{e[0]}.{e[2][0]}"
            return next((i for i, p in enumerate(patterns) if p.fullmatch(tid)), len(patterns))

        flat = sorted(((db, cdb, t) for db, cdb, tables in schema for t in tables), key=rank)
        grouped: dict[str, tuple[str, list]] = {}
        for db, create_db, t in flat:
            grouped.setdefault(db, (create_db, []))[1].append(t)
        return [(db, create_db, tables) for db, (create_db, tables) in grouped.items()]

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
        self.snapshot_events.clear()
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
            if self.locking_mode == "none":
                # without locks Debezium reads the CREATE TABLEs on its worker pool into a HashMap<TableId, String>
                # and writes them in that map's order (createSchemaEventsForTables; campaign seed 78004). Its first
                # putAll of a one-entry map pre-sizes the table to 2 buckets (campaign seed 81016: 6 tables, 8 buckets)
                ids = [f"{db}.{n}" for n, _ in tables]
                rank = {k: i for i, k in enumerate(hashmap_order(ids, table_size(len(ids), at_least=2)))}
                tables = sorted(tables, key=lambda t: rank[f"{db}.{t[0]}"])
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
            if self.type_cfg.convert_fail:  # (schema_changes._snapshot_schema_built)
                self._snapshot_schema_built(changes)
            tcs = [table_change(c) for c in changes if c.kind in ("CREATE", "ALTER", "DROP")]
            hcs = [history_change(c) for c in changes if c.kind in ("CREATE", "ALTER", "DROP")]
            ts_us = time.time_ns() // 1000
            self.history.append(position, ts_us // 1000, db, ddl, hcs)
            src = source_block(self.prefix, self.flavor.name, ts_us, "true", db, name, 0, None, file, pos, 0)
            # kept for a blocking snapshot, which dispatches this very event again (snapshot_events.py)
            self.snapshot_events.add(SnapshotEvent(db, name, ddl, src, ts_us // 1000, position, tcs, hcs))
            if self.include_schema_changes and (
                not self.store_only_captured_dbs or self._schema_change_db_ok(db)
            ):
                # the last one waits: it is the snapshot's "last" record when no row follows
                self._flush_pending_schema_change("true")
                self._pending_schema_change = (db, ddl, tcs, src, ts_us // 1000)
        if not defer_last:
            self._flush_pending_schema_change("true")

    def _stop_readers(self) -> None:
        close = getattr(self, "_close_readers", None)
        self._close_readers = None
        if close is not None:
            close()

    def _snapshot_pool(self, data: bool, locked: bool) -> list[pymysql.Connection]:
        """snapshot.max.threads > 1: the readers' connections, each in a consistent-snapshot transaction
        started while the global read lock holds (so at the snapshot's binlog position). Without the lock
        there is no common position: the pieces are read one after the other on the snapshot's connection."""
        typed = settings_for(self.cfg)
        threads = max(1, typed.snapshot.max_threads or 1)
        if not data or threads == 1 or not locked:
            return []
        pool = []
        try:
            for _ in range(threads):
                c = self._connect()
                pool.append(c)
                self._q("SET SESSION TRANSACTION ISOLATION LEVEL REPEATABLE READ", conn=c)
                self._q("START TRANSACTION WITH CONSISTENT SNAPSHOT", conn=c)
        except BaseException:
            for c in pool:
                c.close()
            raise
        return pool

    def _data_session(
        self, snap: pymysql.Connection, file: str, pos: int, data: bool, pool: list | None = None
    ) -> SnapshotSession:
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
            positions = None
            if t.id in overrides:
                stmt = statements.get(t.id)
                if stmt:
                    sql, positions = override_select(snap, t, stmt)
            log.info("snapshot of %s: starting", t.id)
            parse = projected(self._text_parser(ct), positions)
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
        # straight into the output's lines when it takes them (directory output, no data plane): one line
        # format per source block, no Record per row (snapshot_render.one_reader_lines)
        emit_line = one_reader_lines(self.engine, self.prefix, self.flavor.name, file, pos)
        threads, legacy = max_threads(self.cfg, len(tables))
        markers = legacy_markers if legacy and threads > 1 else marker
        forked = (
            bool(pool)
            and threads > 1
            and fork_available()
            and all(type(ct.env) is TableEnvelope for ct in tables)  # records as bytes
        )
        if chunked_path(self.cfg, threads, legacy) and tables:
            close, rows_of = self._parallel_reads(
                snap,
                pool or [],
                tables,
                overrides,
                statements,
                threads,
                legacy,
                markers if forked else None,
                file,
                pos,
            )
            self._close_readers = close
        emit_record = self.engine.emit

        def emit_row(ct: CapturedTable, after, mark: str) -> None:
            if self._pending_schema_change is not None:
                self._flush_pending_schema_change("true")
            if type(after) is Lines:  # a forked reader's batch of compact lines, their marks in place
                env = ct.env
                emit_record(
                    LineBatch(env.topic, after.data, env.value_frame.head, env.settings.context_headers)
                )
                return
            if (
                type(after) is tuple
            ):  # built by a forked reader with this very mark (snapshot_render.mysql_renderer)
                env = ct.env
                k, v = after
                vf = env.value_frame
                if k is not None:
                    kf = env.key_frame
                    k = kf.head + k + kf.tail
                emit_record(Record(env.topic, k, vf.head + v + vf.tail, env.settings.context_headers))
                return
            if emit_line is None or not emit_line(ct, after, mark):
                emit_one(ct, after, mark)

        return SnapshotSession(
            tables,
            rows_of,
            emit_row,
            lambda ct: ct.data_collection,
            captured=self.captured_table_ids(),
            estimates=counts,
            markers=markers,
        )

    def _parallel_reads(
        self, snap, pool, tables, overrides, statements, threads: int, legacy: bool, markers, file, pos
    ):
        """snapshot.max.threads > 1 (emulator.pipeline.snapshot_chunks): the plan, made in the snapshot's
        transaction, read by the pool's connections (forked workers that also build the records when
        `markers` is given, else threads), or on `snap` alone when there is no pool. -> (close, rows_of)."""
        pieces: list[Piece] = []
        queries: list[str] = []
        by_table: dict[str, list[int]] = {}
        positions: dict[str, list[int] | None] = {}  # an override's captured columns in its result
        for ct in tables:
            t = ct.env.table
            override = t.id in overrides and bool(statements.get(t.id))
            keyed = not legacy and not override and not_null_key(t)
            start = len(pieces)
            table_sql = f"{quote_id(t.namespace)}.{quote_id(t.name)}"
            cols = ", ".join(quote_id(c.name) for c in t.columns)
            # chunked() asks only whether the table has more than one row: counted up to 2, not scanned whole
            # (COUNT(1) of 1M rows: 0.3-0.5 s before the first row)
            if keyed and chunked(
                int(self._q(f"SELECT COUNT(*) FROM (SELECT 1 FROM {table_sql} LIMIT 2) s", conn=snap)[0][0]),
                threads,
            ):
                keys = ", ".join(quote_id(k) for k in t.key_columns)
                if not pool:  # one connection reads every piece: the table in key order is one read
                    pieces.append(Piece(ct, None, None, True))
                    queries.append(f"SELECT {cols} FROM {table_sql} ORDER BY {keys}")
                    by_table[t.id] = list(range(start, len(pieces)))
                    continue
                cuts = self._cuts(snap, ct, table_sql, keys)
                for lo, hi in zip([None, *cuts], [*cuts, None]):
                    preds = []
                    if lo is not None:
                        preds.append(_cascade(snap, t.key_columns, lo, ">", ">="))
                    if hi is not None:
                        preds.append(_cascade(snap, t.key_columns, hi, "<", "<"))
                    where = f" WHERE {' AND '.join(preds)}" if preds else ""
                    pieces.append(Piece(ct, lo, hi, True))
                    queries.append(f"SELECT {cols} FROM {table_sql}{where} ORDER BY {keys}")
            else:
                sql = f"SELECT {cols} FROM {table_sql}"
                if override:
                    sql, positions[t.id] = override_select(snap, t, statements[t.id])
                pieces.append(Piece(ct))
                queries.append(sql)
            by_table[t.id] = list(range(start, len(pieces)))
        parsers = {
            ct.env.table.id: projected(self._text_parser(ct), positions.get(ct.env.table.id)) for ct in tables
        }
        lines = markers is not None and writes_lines(self.engine)  # readers send directory lines (LineBatch)
        log.info(
            "snapshot with %d readers%s: %d tables in %d reads%s%s",
            len(pool) or 1,
            " (forked)" if markers is not None else "",
            len(tables),
            len(pieces),
            " (legacy.snapshot.max.threads: one per table)" if legacy else "",
            "; they send lines" if lines else "",
        )

        def rows(conn, i: int):
            return textrows.stream_rows(conn, queries[i], parsers[pieces[i].table.env.table.id])

        if not pool:
            ahead = None

            def close() -> None:
                pass

            def rows_of(ct: CapturedTable):
                t = ct.env.table
                log.info("snapshot of %s: starting", t.id)
                n = 0
                for i in by_table[t.id]:
                    for row in rows(snap, i):
                        n += 1
                        yield row
                log.info("snapshot of %s: %d rows", t.id, n)

            return close, rows_of
        if markers is not None:
            render = mysql_renderer(tables, markers, self.prefix, self.flavor.name, file, pos, lines)

            def open_reader(w: int):
                conn = pool[w]  # inherited: the parent does not use it until the worker is gone

                def batches(i: int):
                    yield from render(pieces, by_table, i, rows(conn, i))

                return batches

            ahead = ForkedReaders(len(pool), len(pieces), open_reader)
            close = ahead.close

        else:
            ahead = ChunkReadAhead(pieces, lambda w, i: batched(rows(pool[w], i)), len(pool))
            close = ahead.close

        return close, table_rows(ahead, by_table, log, lines)

    def _cuts(self, snap, ct: CapturedTable, table_sql: str, keys: str) -> list[tuple]:
        """The keys of rows PIECE_ROWS + 1, 2 x PIECE_ROWS + 1, ... of `ct`'s table in key order: where its
        pieces start. Keyed by the table's own index (its primary key, or the unique key Debezium takes): one
        short range read per cut, each starting at the last (`LIMIT 1 OFFSET PIECE_ROWS`), ~0.2 s for 1M rows;
        else (message.key.columns, a key on a TEXT/BLOB prefix) ROW_NUMBER() over the whole table, which
        materialises and numbers every row before answering: 1.3-1.5 s for the same 1M rows."""
        t = ct.env.table
        key = list(t.key_columns)
        by_name = {c.name: c for c in ct.table.columns}
        if key != list(t.extra.get("primary_key", ())) or any(
            k not in by_name or by_name[k].type_name.upper().endswith(("TEXT", "BLOB")) for k in key
        ):
            return [
                tuple(r)
                for r in self._q(
                    f"SELECT {keys} FROM (SELECT {keys}, ROW_NUMBER() OVER (ORDER BY {keys}) AS dbz__rn "
                    f"FROM {table_sql}) s WHERE dbz__rn % {PIECE_ROWS} = 1 AND dbz__rn > 1 ORDER BY dbz__rn",
                    conn=snap,
                )
            ]
        cuts: list[tuple] = []
        where = ""
        while True:
            r = self._q(
                f"SELECT {keys} FROM {table_sql}{where} ORDER BY {keys} LIMIT 1 OFFSET {PIECE_ROWS}",
                conn=snap,
            )
            if not r:
                return cuts
            cuts.append(tuple(r[0]))
            where = f" WHERE {_cascade(snap, key, cuts[-1], '>', '>=')}"

    def _snapshot_emitter(self, server_id: int, gtid: str | None, file: str, pos: int):
        """`emit_row(ct, after, marker)` for initial and blocking snapshots: one source block per
        (marker, table, second), as Debezium stamps snapshot reads with the read time in seconds."""
        prefix, name, emit = self.prefix, self.flavor.name, self.engine.emit
        # the block and its JSON: `change` takes the JSON (no payload dict serialized a row) when the envelope
        # makes bytes (a StructuredTableEnvelope hands the data plane the dict)
        sources: dict[tuple, tuple[dict, bytes]] = {}

        def emit_row(ct: CapturedTable, after: dict, mark: str) -> None:
            env = ct.env
            t = env.table
            if env.null_fill:
                env.fill_nulls(after)
            sec = int(time.time())
            k = (mark, t.id, sec)
            src = sources.get(k)
            if src is None:
                block = source_block(
                    prefix, name, sec * 1_000_000, mark, t.namespace, t.name, server_id, gtid, file, pos, 0
                )
                sources.clear()
                src = sources[k] = (block, orjson.dumps(block))
            emit(env.change("r", None, after, src[bytes_records(env)], None, env.key_of(after)))

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
        key = {"databaseName": db}
        if self.settings.structured:  # the data plane takes the parts (no JSON to parse back)
            kf, vf = self.schema_key_frame, self.schema_value_frame
            flavor = self.flavor
            record: Record = StructuredRecord(
                self.prefix, flavor.schema_change_key, key, flavor.schema_change_value, value,
                self.settings.context_headers, (kf, vf),
            )  # fmt: skip
        else:
            record = Record(
                self.prefix,
                self.schema_key_frame.encode(key),
                self.schema_value_frame.encode(value),
                self.settings.context_headers,
            )
        self.dispatcher.schema_change(record)
