"""Snapshot reads: the initial snapshot's consistent session (the slot's exported snapshot) and the
blocking snapshot's session, rows by COPY (snapshot.select.statement.overrides honoured)."""

from __future__ import annotations

import logging
import time
from contextlib import ExitStack, contextmanager

import psycopg
from psycopg import sql

from emulator.connectors.postgres import pgoutput as po
from emulator.connectors.postgres.captured import CapturedTable
from emulator.connectors.postgres.catalog import load_tables
from emulator.connectors.postgres.chunk_bind import stop_message, unbindable_key
from emulator.connectors.postgres.copy_text import copy_raw, copy_rows, parse_row
from emulator.connectors.postgres.failed_changes import (
    HANDLED,
    checked_rows,
    failure_mode,
    is_value_failure,
    report,
)
from emulator.connectors.postgres.quoted_names import stop_if_misquoted
from emulator.connectors.postgres.snapshot_lines import available, raw_checks, raw_line
from emulator.connectors.postgres.snapshot_tables import by_row_count, isolation_begin, lock_shared
from emulator.connectors.postgres.source import (
    sequence,
)
from emulator.envelope import TableEnvelope
from emulator.filters import include_list_order
from emulator.incremental.conditions import sql_literal_pg
from emulator.model import TableDef
from emulator.pipeline.coordinator import SnapshotSession, blocking_snapshot
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
    renderer,
    table_rows,
)
from emulator.pipeline.snapshot_records import LineBatch, ReadRecords, bytes_records, writes_lines
from emulator.pipeline.snapshot_workers import ForkedReaders, Lines, fork_available
from emulator.records import Record
from emulator.settings import settings_for
from emulator.snapshot import marker

log = logging.getLogger("emulator.postgres")


def _key_bound(t: TableDef, op: str, values: tuple) -> sql.Composable:
    """Debezium's cascading key bound over a NOT NULL key, as one row comparison (the same order as
    ORDER BY over the key's columns)."""
    cols = sql.SQL(", ").join(sql.Identifier(k) for k in t.key_columns)
    vals = sql.SQL(", ").join(sql.Literal(v) for v in values)
    return sql.SQL("({}) {} ({})").format(cols, sql.SQL(op), vals)


def _chunk_copy(t: TableDef, lower: tuple | None, upper: tuple | None) -> sql.Composable:
    """A piece of a chunked table (snapshot.max.threads > 1): [lower, upper) in key order, as Debezium's
    SnapshotChunkQueryBuilder reads its chunks."""
    preds = []
    if lower is not None:
        preds.append(_key_bound(t, ">=", lower))
    if upper is not None:
        preds.append(_key_bound(t, "<", upper))
    cols = sql.SQL(", ").join(sql.Identifier(col.name) for col in t.columns)
    where = sql.SQL(" WHERE {}").format(sql.SQL(" AND ").join(preds)) if preds else sql.SQL("")
    return sql.SQL("COPY (SELECT {} FROM {}{} ORDER BY {}) TO STDOUT").format(
        cols,
        sql.Identifier(t.namespace, t.name),
        where,
        sql.SQL(", ").join(sql.Identifier(k) for k in t.key_columns),
    )


def _copy_table(t: TableDef) -> sql.Composable:
    """The snapshot read of a table. `COPY (SELECT ...)`, not `COPY table`: a partitioned table has no
    rows of its own and only the SELECT form reads its partitions' (as Debezium's SELECT * does)."""
    cols = sql.SQL(", ").join(sql.Identifier(c.name) for c in t.columns)
    return sql.SQL("COPY (SELECT {} FROM {}) TO STDOUT").format(cols, sql.Identifier(t.namespace, t.name))


class SnapshotReads:
    """Initial and blocking snapshot sessions (a mixin of PostgresConnector)."""

    # -- snapshot ------------------------------------------------------------------------------------------
    def snapshot_session(self, data: bool):
        """The initial snapshot's consistent read: the new slot's exported snapshot (or a serializable
        deferrable transaction when the slot already existed), the captured tables in include-list order,
        rows by COPY. Once the coordinator read it completely, its LSN is where streaming starts."""
        return self._snapshot_session(self._exported, self._start_lsn, data)

    @contextmanager
    def _snapshot_session(self, exported: str | None, start_lsn: int | None, data: bool = True):
        snap = psycopg.connect(self.conninfo, autocommit=True)
        stack = ExitStack()
        try:
            if exported:
                snap.execute("BEGIN ISOLATION LEVEL REPEATABLE READ")
                snap.execute(sql.SQL("SET TRANSACTION SNAPSHOT {}").format(sql.Literal(exported)))
            else:
                snap.execute(isolation_begin(settings_for(self.cfg).postgres))
            if start_lsn is None:
                start_lsn = po.lsn_to_int(snap.execute("SELECT pg_current_wal_lsn()::text").fetchone()[0])
            xid = snap.execute("SELECT txid_current()").fetchone()[0] if exported else None
            include = self.filters.table_included
            typed = settings_for(self.cfg)
            only = typed.snapshot.include_collection_list
            # the signal table is captured but, as in Debezium, never exported by the snapshot
            loaded = load_tables(snap, self.type_cfg, include)
            tables = [
                t
                for t in loaded
                if t.id != self.signal_table and (not only or any(p.fullmatch(t.id) for p in only))
            ]
            tables = include_list_order(tables, typed.relational.table_include, lambda t: t.id)
            lock_shared(snap, typed.relational, tables)
            captured = [self._capture(t) for t in tables]
            ts_us = time.time_ns() // 1000
            seq = sequence(None, start_lsn)
            src = self.source
            emit = self.engine.emit

            estimates = dict(
                snap.execute(
                    "SELECT n.nspname || '.' || c.relname, greatest(c.reltuples, 0)::bigint FROM pg_class c "
                    "JOIN pg_namespace n ON n.oid = c.relnamespace WHERE c.relkind IN ('r', 'p')"
                ).fetchall()
            )

            overrides = set(typed.relational.snapshot_select_overrides)
            if data:  # (a name Debezium's SELECT cannot quote: quoted_names.py)
                stop_if_misquoted([(t.namespace, t.name) for t in tables if t.id not in overrides])
            threads, legacy = max_threads(self.cfg, len(captured))
            if chunked_path(self.cfg, threads, legacy) and not legacy:
                captured = by_row_count(
                    typed.relational, captured, lambda ct: self._count(snap, ct.env.table)
                )
                self._stop_where_debezium_cannot_bind(snap, captured, overrides, threads)
            markers = legacy_markers if legacy and threads > 1 else marker
            sources: dict[str, dict] = {}

            def source_for(t: TableDef, mark: str) -> dict:
                s = sources.get(mark + t.id)
                if s is None:
                    s = src(ts_us, mark, seq, t.namespace, t.name, xid, start_lsn)
                    sources[mark + t.id] = s
                return s

            # records made from per-table, per-marker parts (emulator.pipeline.snapshot_records)
            records = {
                id(ct): ReadRecords(ct.env, lambda mark, t=ct.env.table: source_for(t, mark))
                for ct in captured
                if bytes_records(ct.env)
            }
            mode = failure_mode(self.cfg)
            # (event.processing.failure.handling.mode warn|skip: rows checked here, so no forked reader)
            forked = threads > 1 and fork_available() and len(records) == len(captured) and mode == "fail"
            # the readers send directory lines when the output writes nothing else (LineBatch)
            lines = forked and writes_lines(self.engine)
            # ... straight from COPY's messages, in C where it is built (snapshot_lines)
            codec = snap.info.encoding
            raw = lines and available(codec)
            if threads > 1:
                item_of = {
                    ct.env.table.id: raw_line(records[id(ct)], codec)
                    if raw
                    else records[id(ct)].line
                    if lines
                    else records[id(ct)].parts
                    for ct in (captured if forked else ())
                }
                held = (lambda data: parse_row(data, codec)) if raw else list
                render = (
                    renderer(captured, markers, lambda env: item_of[env.table.id], held, lines)
                    if forked
                    else None
                )
                close, read = self._parallel_reads(
                    snap, captured, overrides, threads, legacy, render, lines, raw
                )
                stack.callback(close)
                rows_of = (
                    read if mode == "fail" else lambda ct: checked_rows(read(ct), ct.env, mode, "snapshot")
                )

            # one reader writing directory lines: a table's rows straight from COPY's messages into their lines
            # (snapshot_lines), where its row checks can be told from the message (raw_checks)
            line_writer = getattr(self.engine, "line_writer", None)  # (an engine of a test may have none)
            write_line = (
                line_writer() if line_writer is not None and threads == 1 and available(codec) else None
            )
            full = {}
            for ct in captured if write_line is not None else ():
                rr = records.get(id(ct))
                may_fail = raw_checks(ct.env.snapshot_converters)
                if rr is not None and may_fail is not None:
                    full[id(ct)] = (ct.env.topic, raw_line(rr, codec, compact=False), may_fail)
            engine = self.engine

            # one thread on Debezium's chunked path (a snapshot.max.threads.multiplier > 1): keyed tables in key order
            one_ordered = threads == 1 and chunked_path(self.cfg, threads, legacy)

            def rows_of_one(ct: CapturedTable):
                t = ct.env.table
                q = _copy_table(t)
                if t.id in overrides:
                    q = self._override_query(snap, t)
                elif one_ordered and not_null_key(t) and chunked(self._count(snap, t), threads):
                    q = _chunk_copy(t, None, None)
                est = estimates.get(t.id, 0)
                log.info("snapshot of %s: starting (about %d rows)", t.id, est)
                n = 0
                next_log = time.monotonic() + 5
                # values that stop Debezium (a NaN in a NOT NULL precise numeric) fail the row as it is read
                checks = [
                    (i, c.check) for i, c in enumerate(ct.env.snapshot_converters) if hasattr(c, "check")
                ]
                direct = full.get(id(ct))  # its rows are COPY's messages
                may_fail = direct[2] if direct is not None else None
                for row in (copy_rows if direct is None else copy_raw)(snap, q):
                    n += 1
                    if checks:
                        parsed = row
                        if (
                            direct is not None
                        ):  # a message is parsed for its checks only when it may fail them
                            parsed = parse_row(row, codec) if may_fail(row) is not None else None
                        try:
                            for i, check in checks if parsed is not None else ():
                                if parsed[i] is not None:
                                    check(parsed[i])
                        except HANDLED as e:  # event.processing.failure.handling.mode warn|skip: row dropped
                            if mode == "fail" or not is_value_failure(e):
                                raise
                            report(mode == "warn", f"snapshot row {n} of {t.id}", e)
                            continue
                    yield row
                    if not n & 4095 and time.monotonic() >= next_log:
                        next_log += 5
                        log.info("snapshot of %s: %d of about %d rows", t.id, n, max(est, n))
                log.info("snapshot of %s: %d rows", t.id, n)

            if threads == 1:
                rows_of = rows_of_one

            def emit_row(ct: CapturedTable, row, mark: str) -> None:
                f = full.get(id(ct))
                if f is not None:  # the row is its COPY message
                    write_line(f[0], f[1](row, mark))
                    engine.records += 1
                    return
                rr = records.get(id(ct))
                if rr is not None:
                    emit(rr.record(row, mark))
                    return
                env = ct.env
                after = env.snapshot_row(row)
                emit(env.change("r", None, after, source_for(env.table, mark), None, env.key_of(after)))

            # per table: (topic, value frame head and tail, key frame head and tail, headers) for emit_forked
            frames = {}
            for ct in captured:
                env = ct.env
                kf = env.key_frame
                frames[id(ct)] = (
                    env.topic,
                    env.value_frame.head,
                    env.value_frame.tail,
                    kf.head if kf is not None else b"",
                    kf.tail if kf is not None else b"",
                    env.settings.context_headers,
                )
            join = b"".join

            def emit_forked(ct: CapturedTable, item, mark: str) -> None:
                if type(item) is Lines:  # a reader's batch of compact lines, their marks in place
                    topic, vh, _, _, _, headers = frames[id(ct)]
                    emit(LineBatch(topic, item.data, vh, headers))
                elif type(item) is tuple:  # a reader's (key, payload) of a row with this very mark (renderer)
                    # ReadRecords.framed inlined: this process is the one all readers wait on
                    topic, vh, vt, kh, kt, headers = frames[id(ct)]
                    k = item[0]
                    emit(
                        Record(
                            topic,
                            None if k is None else join((kh, k, kt)),
                            join((vh, item[1], vt)),
                            headers,
                        )
                    )
                else:  # a table's last row: its mark is known here only (empty tables after it)
                    emit(records[id(ct)].record(item, mark))

            session = SnapshotSession(
                captured,
                rows_of,
                emit_forked if forked else emit_row,
                lambda ct: ct.env.table.id,
                captured=[t.id for t in loaded],
                estimates=estimates,
                markers=markers,
            )
            yield session
            stack.close()  # the readers first: they use `snap` too
            snap.execute("COMMIT")
        finally:
            stack.close()
            snap.close()
        if (
            not session.completed
        ):  # stopped: no position, so nothing is saved and the next start snapshots again
            return
        self.lsn_commit = start_lsn
        self.lsn_proc = start_lsn
        self.engine.commit(force=True)
        slot = self.slot
        if slot is not None and slot["confirmed"] is not None and slot["confirmed"] < start_lsn:
            # no exported snapshot: changes racing the snapshot start may be in neither, so stream
            # from what the slot still has (duplicates, never a gap), as Debezium's at-least-once
            start_lsn = slot["confirmed"]
            self.lsn_commit = start_lsn
        self._start_lsn = start_lsn

    def _parallel_reads(
        self, snap, captured, overrides, threads: int, legacy: bool, render, lines: bool, raw: bool = False
    ):
        """snapshot.max.threads > 1 (emulator.pipeline.snapshot_chunks): the plan made in the snapshot's
        transaction, `threads` readers on the same snapshot (forked workers that also build the records when
        `render` is given, else threads on `snap` and threads-1 more connections), and rows_of(table) over
        their read-ahead; `raw`: `render` takes the rows as COPY's messages (copy_raw). -> (close, rows_of)."""
        # this transaction's snapshot (the slot's, or its own when the slot already existed), exported again:
        # valid while the transaction lasts, where the slot's name ends with the replication connection's
        # next command
        exported = snap.execute("SELECT pg_export_snapshot()").fetchone()[0]
        pieces: list[Piece] = []
        queries: list[sql.Composable] = []
        by_table: dict[str, list[int]] = {}
        for ct in captured:
            t = ct.env.table
            override = t.id in overrides
            keyed = not legacy and not override and not_null_key(t)
            start = len(pieces)
            if keyed and chunked(self._count(snap, t), threads):
                bounds = self._cuts(snap, t, PIECE_ROWS)
                for lo, hi in zip([None, *bounds], [*bounds, None]):
                    pieces.append(Piece(ct, lo, hi, True))
                    queries.append(_chunk_copy(t, lo, hi))
            else:
                pieces.append(Piece(ct))
                queries.append(self._override_query(snap, t) if override else _copy_table(t))
            by_table[t.id] = list(range(start, len(pieces)))
        log.info(
            "snapshot with %d readers%s: %d tables in %d reads%s%s",
            threads,
            " (forked)" if render is not None else "",
            len(captured),
            len(pieces),
            " (legacy.snapshot.max.threads: one per table)" if legacy else "",
            "; they send lines" if lines else "",
        )

        def open_connection() -> psycopg.Connection:
            c = psycopg.connect(self.conninfo, autocommit=True)
            c.execute("BEGIN ISOLATION LEVEL REPEATABLE READ, READ ONLY")
            c.execute(sql.SQL("SET TRANSACTION SNAPSHOT {}").format(sql.Literal(exported)))
            return c

        if render is not None:

            def open_reader(w: int):
                conn = open_connection()

                def batches(i: int):
                    yield from render(pieces, by_table, i, (copy_raw if raw else copy_rows)(conn, queries[i]))

                return batches

            ahead = ForkedReaders(threads, len(pieces), open_reader)
            close = ahead.close

        else:
            conns = [snap]
            try:
                for _ in range(threads - 1):
                    conns.append(open_connection())

                def read(w: int, i: int):
                    yield from batched(copy_rows(conns[w], queries[i]))

                ahead = ChunkReadAhead(pieces, read, threads)
            except BaseException:
                for c in conns[1:]:
                    c.close()
                raise

            def close() -> None:
                ahead.close()
                for c in conns[1:]:
                    c.close()

        return close, table_rows(ahead, by_table, log, lines)

    @staticmethod
    def _cuts(snap: psycopg.Connection, t: TableDef, every: int) -> list[tuple]:
        """Keys every `every` rows in key order (the first excluded): where a chunked table's pieces
        start. One index scan; COPY's text, so that the bounds compare like the values read."""
        keys = sql.SQL(", ").join(sql.Identifier(k) for k in t.key_columns)
        q = sql.SQL(
            "COPY (SELECT {} FROM (SELECT {}, row_number() OVER (ORDER BY {}) AS dbz__rn FROM {}) s "
            "WHERE dbz__rn % {} = 1 AND dbz__rn > 1 ORDER BY dbz__rn) TO STDOUT"
        ).format(keys, keys, keys, sql.Identifier(t.namespace, t.name), sql.Literal(every))
        with snap.cursor().copy(q) as cp:
            return [tuple(r) for r in cp.rows()]

    def _stop_where_debezium_cannot_bind(self, snap, captured, overrides, threads: int) -> None:
        """Debezium's chunked snapshot fails on a money or bit(1) key (emulator.connectors.postgres.chunk_bind):
        stop before any record, as its snapshot does (it then retries forever; nothing is committed)."""
        typed = settings_for(self.cfg).snapshot
        for ct in captured:
            t = ct.env.table
            if t.id in overrides or not not_null_key(t):
                continue
            bad = unbindable_key(snap, t.namespace, t.name, list(t.key_columns))
            rows = self._count(snap, t) if bad else 0
            if rows:  # an empty table has no maximum key: nothing is bound
                mult = typed.table_multipliers.get(t.id) or typed.max_threads_multiplier or 1
                prop = (
                    f"snapshot.max.threads={threads}"
                    if threads > 1
                    else f"snapshot.max.threads.multiplier={mult}"
                )
                raise RuntimeError(stop_message(prop, t.id, *bad, rows < threads * mult))

    @staticmethod
    def _count(snap: psycopg.Connection, t: TableDef) -> int:
        q = sql.SQL("SELECT COUNT(1) FROM {}").format(sql.Identifier(t.namespace, t.name))
        return int(snap.execute(q).fetchone()[0])

    def _override_query(
        self, snap: psycopg.Connection, t: TableDef, stmt: str | None = None
    ) -> sql.Composable:
        """snapshot.select.statement.overrides.<schema>.<table> (or a blocking snapshot's filter): the
        user's SELECT, its columns mapped onto the table's by name (a column it does not return is NULL)."""
        if stmt is None:
            stmt = self.typed.relational.snapshot_select_statements.get(t.id, "")
        if not stmt:
            raise ValueError(
                f"snapshot.select.statement.overrides.{t.id} is not set but the table is "
                "listed in snapshot.select.statement.overrides"
            )
        cur = snap.execute(sql.SQL("SELECT * FROM ({}) AS q LIMIT 0").format(sql.SQL(stmt)))
        returned = {d.name for d in cur.description}
        cols = sql.SQL(", ").join(
            sql.Identifier("q", c.name) if c.name in returned else sql.SQL("NULL") for c in t.columns
        )
        log.info("snapshot of %s uses the override: %s", t.id, stmt)
        return sql.SQL("COPY (SELECT {} FROM ({}) AS q) TO STDOUT").format(cols, sql.SQL(stmt))

    # execute-snapshot type blocking -------------------------------------------------------------------------
    def blocking_snapshot(self, tables: list[str], filters: dict[str, str]) -> None:
        """`filters` maps a table to the (validated) SELECT that replaces its full read. The source block
        is the stream's position at the signal (Debezium keeps the streaming offset for blocking
        snapshots); ts is the snapshot's time."""
        blocking_snapshot(self, self.engine, self._blocking_session(set(tables), filters))

    @contextmanager
    def _blocking_session(self, wanted: set[str], filters: dict[str, str]):
        self.visible_conn()  # the signal's transaction visible first (PostgresConnector.visible_conn)
        snap = psycopg.connect(self.conninfo, autocommit=True)
        try:
            snap.execute(isolation_begin(settings_for(self.cfg).postgres))
            ts_us = snap.execute("SELECT (extract(epoch FROM now()) * 1000000)::bigint").fetchone()[0]
            tds = [
                t
                for t in load_tables(snap, self.type_cfg, self.filters.table_included)
                if t.id in wanted and t.id != self.signal_table
            ]
            typed = settings_for(self.cfg)
            lock_shared(snap, typed.relational, tds)
            captured = []
            for td in tds:
                shaped, keep = self.filters.shape(td)
                captured.append(CapturedTable(TableEnvelope(self.settings, shaped), keep))
            seq = sequence(self.last_commit_lsn, self.lsn_proc)
            src = self.source
            emit = self.engine.emit
            sources: dict[str, dict] = {}
            stream = self.stream
            mode = failure_mode(self.cfg)  # event.processing.failure.handling.mode: a failing row dropped
            next_status = [time.monotonic() + 1]
            # Debezium's blocking snapshot is its snapshot source too: on its chunked path (snapshot.max.threads
            # or a multiplier > 1) its chunked tables come in key order (read here on one connection), legacy has no `first`
            threads, legacy = max_threads(self.cfg, len(captured))
            chunking = chunked_path(self.cfg, threads, legacy) and not legacy
            if chunking:
                captured = by_row_count(
                    typed.relational, captured, lambda ct: self._count(snap, ct.env.table)
                )

            def rows_of(ct: CapturedTable):
                t = ct.env.table
                stmt = filters.get(t.id)
                if stmt is not None:
                    q = self._override_query(snap, t, stmt.render(sql_literal_pg(snap)))
                elif chunking and not_null_key(t) and chunked(self._count(snap, t), threads):
                    q = _chunk_copy(t, None, None)
                else:
                    q = _copy_table(t)
                n = 0
                for row in checked_rows(copy_rows(snap, q), ct.env, mode, "blocking snapshot"):
                    n += 1
                    yield row
                    if not n & 1023 and stream is not None and time.monotonic() >= next_status[0]:
                        next_status[0] = time.monotonic() + 1
                        stream.send_status(self._confirmed())  # keep the walsender from timing out
                log.info("blocking snapshot of %s: %d rows", t.id, n)

            def emit_row(ct: CapturedTable, row, mark: str) -> None:
                env = ct.env
                t = env.table
                after = env.snapshot_row(row)
                s = sources.get(mark + t.id)
                if s is None:
                    s = src(ts_us, mark, seq, t.namespace, t.name, self.xid, self.lsn_proc)
                    sources[mark + t.id] = s
                emit(env.change("r", None, after, s, None, env.key_of(after)))

            yield SnapshotSession(
                captured,
                rows_of,
                emit_row,
                lambda ct: ct.env.table.id,
                markers=legacy_markers if legacy and threads > 1 else marker,
            )
            snap.execute("COMMIT")
        finally:
            snap.close()
