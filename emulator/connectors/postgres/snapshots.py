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
from emulator.connectors.postgres.source import (
    sequence,
)
from emulator.envelope import TableEnvelope
from emulator.filters import include_list_order
from emulator.incremental.conditions import sql_literal_pg
from emulator.model import TableDef
from emulator.pipeline.coordinator import SnapshotSession, blocking_snapshot
from emulator.pipeline.snapshot_chunks import Chunk, ChunkReadAhead, legacy_markers, plan_table
from emulator.settings import settings_for

log = logging.getLogger("emulator.postgres")


def _key_bound(t: TableDef, op: str, values: tuple) -> sql.Composable:
    """Debezium's cascading key bound over a NOT NULL key, as one row comparison (the same order as
    ORDER BY over the key's columns)."""
    cols = sql.SQL(", ").join(sql.Identifier(k) for k in t.key_columns)
    vals = sql.SQL(", ").join(sql.Literal(v) for v in values)
    return sql.SQL("({}) {} ({})").format(cols, sql.SQL(op), vals)


def _chunk_copy(t: TableDef, c: Chunk) -> sql.Composable:
    """A chunk of snapshot.max.threads > 1 (SnapshotChunkQueryBuilder): the key range, in key order."""
    preds = []
    if c.lower is not None:
        preds.append(_key_bound(t, ">=", c.lower))
    if c.upper is not None:
        preds.append(_key_bound(t, "<=" if c.upper_inclusive else "<", c.upper))
    cols = sql.SQL(", ").join(sql.Identifier(col.name) for col in t.columns)
    return sql.SQL("COPY (SELECT {} FROM {} WHERE {} ORDER BY {}) TO STDOUT").format(
        cols,
        sql.Identifier(t.namespace, t.name),
        sql.SQL(" AND ").join(preds),
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
        return self._snapshot_session(self._exported, self._start_lsn)

    @contextmanager
    def _snapshot_session(self, exported: str | None, start_lsn: int | None):
        snap = psycopg.connect(self.conninfo, autocommit=True)
        stack = ExitStack()
        try:
            if exported:
                snap.execute("BEGIN ISOLATION LEVEL REPEATABLE READ")
                snap.execute(sql.SQL("SET TRANSACTION SNAPSHOT {}").format(sql.Literal(exported)))
            else:
                snap.execute("BEGIN ISOLATION LEVEL SERIALIZABLE, READ ONLY, DEFERRABLE")
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
            tables = include_list_order(tables, self.cfg.get("table.include.list"), lambda t: t.id)
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
            threads = max(1, typed.snapshot.max_threads or 1)
            legacy = bool(typed.tuning.legacy_snapshot_max_threads)
            if legacy:  # Debezium's table-per-thread pool: no more connections than tables
                threads = max(1, min(threads, len(captured)))
            markers = legacy_markers if legacy and threads > 1 else None
            if threads > 1:
                close, rows_of = self._parallel_reads(snap, exported, captured, overrides, threads, legacy)
                stack.callback(close)

            def rows_of_one(ct: CapturedTable):
                t = ct.env.table
                q = _copy_table(t)
                if t.id in overrides:
                    q = self._override_query(snap, t)
                est = estimates.get(t.id, 0)
                log.info("snapshot of %s: starting (about %d rows)", t.id, est)
                n = 0
                next_log = time.monotonic() + 5
                with snap.cursor().copy(q) as cp:
                    for row in cp.rows():
                        n += 1
                        yield row
                        if not n & 4095 and time.monotonic() >= next_log:
                            next_log += 5
                            log.info("snapshot of %s: %d of about %d rows", t.id, n, max(est, n))
                log.info("snapshot of %s: %d rows", t.id, n)

            if threads == 1:
                rows_of = rows_of_one
            sources: dict[str, dict] = {}

            def emit_row(ct: CapturedTable, row, mark: str) -> None:
                env = ct.env
                t = env.table
                after = env.snapshot_row(row)
                key = env.key_of(after)
                s = sources.get(mark + t.id)
                if s is None:
                    s = src(ts_us, mark, seq, t.namespace, t.name, xid, start_lsn)
                    sources[mark + t.id] = s
                emit(env.change("r", None, after, s, None, key))

            session = SnapshotSession(
                captured,
                rows_of,
                emit_row,
                lambda ct: ct.env.table.id,
                captured=[t.id for t in loaded],
                estimates=estimates,
            )
            if markers is not None:
                session.markers = markers
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

    def _parallel_reads(self, snap, exported, captured, overrides, threads: int, legacy: bool):
        """snapshot.max.threads > 1 (emulator.pipeline.snapshot_chunks): `threads` connections on the
        snapshot (`snap` and threads-1 more importing it), the chunk plan made in the snapshot's transaction,
        and rows_of(table) over the read-ahead."""
        if exported is None:  # a slot that already existed: export this transaction's snapshot
            exported = snap.execute("SELECT pg_export_snapshot()").fetchone()[0]
        conns = [snap]
        ahead = None
        try:
            for _ in range(threads - 1):
                c = psycopg.connect(self.conninfo, autocommit=True)
                conns.append(c)
                c.execute("BEGIN ISOLATION LEVEL REPEATABLE READ, READ ONLY")
                c.execute(sql.SQL("SET TRANSACTION SNAPSHOT {}").format(sql.Literal(exported)))
            chunks: list[Chunk] = []
            by_table: dict[str, list[int]] = {}
            queries: list[sql.Composable] = []
            for ct in captured:
                t = ct.env.table
                override = t.id in overrides
                plain = self._override_query(snap, t) if override else _copy_table(t)
                by_name = {c.name: c for c in t.columns}
                keyed = (
                    not legacy
                    and not override
                    and bool(t.key_columns)
                    # a nullable key column (a unique index as the key): read as one chunk
                    and all(k in by_name and not by_name[k].schema.optional for k in t.key_columns)
                )
                plan = plan_table(
                    ct,
                    keyed,
                    lambda t=t: self._count(snap, t),
                    lambda n, t=t: self._key_at(snap, t, n),
                    lambda t=t: self._key_at(snap, t, None),
                    threads,
                )
                by_table[t.id] = list(range(len(chunks), len(chunks) + len(plan)))
                chunks.extend(plan)
                queries.extend(
                    plain if c.lower is None and c.upper is None else _chunk_copy(t, c) for c in plan
                )
            log.info(
                "snapshot with %d connections: %d tables in %d chunks%s",
                threads,
                len(captured),
                len(chunks),
                " (legacy.snapshot.max.threads: one per table)" if legacy else "",
            )

            def read_chunk(worker: int, i: int):
                with conns[worker].cursor().copy(queries[i]) as cp:
                    yield from cp.rows()

            ahead = ChunkReadAhead(chunks, read_chunk, threads)
        except BaseException:
            for c in conns[1:]:
                c.close()
            raise

        def close() -> None:
            ahead.close()
            for c in conns[1:]:
                c.close()

        def rows_of(ct: CapturedTable):
            t = ct.env.table
            n = 0
            log.info("snapshot of %s: starting", t.id)
            for i in by_table[t.id]:
                for row in ahead.rows(i):
                    n += 1
                    yield row
            log.info("snapshot of %s: %d rows", t.id, n)

        return close, rows_of

    @staticmethod
    def _count(snap: psycopg.Connection, t: TableDef) -> int:
        q = sql.SQL("SELECT COUNT(1) FROM {}").format(sql.Identifier(t.namespace, t.name))
        return int(snap.execute(q).fetchone()[0])

    @staticmethod
    def _key_at(snap: psycopg.Connection, t: TableDef, offset: int | None) -> tuple | None:
        """The key at `offset` in key order (ChunkBoundaryCalculator), or the largest key (None); as the
        text COPY prints it, so that the bounds compare like the values read."""
        keys = sql.SQL(", ").join(sql.Identifier(k) for k in t.key_columns)
        if offset is None:
            order = sql.SQL(", ").join(sql.SQL("{} DESC").format(sql.Identifier(k)) for k in t.key_columns)
            tail = sql.SQL("LIMIT 1")
        else:
            order = keys
            tail = sql.SQL("OFFSET {} ROWS FETCH NEXT 1 ROWS ONLY").format(sql.Literal(offset))
        q = sql.SQL("COPY (SELECT {} FROM {} ORDER BY {} {}) TO STDOUT").format(
            keys, sql.Identifier(t.namespace, t.name), order, tail
        )
        with snap.cursor().copy(q) as cp:
            rows = list(cp.rows())
        return tuple(rows[0]) if rows else None

    def _override_query(
        self, snap: psycopg.Connection, t: TableDef, stmt: str | None = None
    ) -> sql.Composable:
        """snapshot.select.statement.overrides.<schema>.<table> (or a blocking snapshot's filter): the
        user's SELECT, its columns mapped onto the table's by name (a column it does not return is NULL)."""
        if stmt is None:
            stmt = (self.cfg.get(f"snapshot.select.statement.overrides.{t.id}") or "").strip().rstrip(";")
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
        snap = psycopg.connect(self.conninfo, autocommit=True)
        try:
            snap.execute("BEGIN ISOLATION LEVEL SERIALIZABLE, READ ONLY, DEFERRABLE")
            ts_us = snap.execute("SELECT (extract(epoch FROM now()) * 1000000)::bigint").fetchone()[0]
            tds = [
                t
                for t in load_tables(snap, self.type_cfg, self.filters.table_included)
                if t.id in wanted and t.id != self.signal_table
            ]
            captured = []
            for td in tds:
                shaped, keep = self.filters.shape(td)
                captured.append(CapturedTable(TableEnvelope(self.settings, shaped), keep))
            seq = sequence(self.last_commit_lsn, self.lsn_proc)
            src = self.source
            emit = self.engine.emit
            sources: dict[str, dict] = {}
            stream = self.stream
            next_status = [time.monotonic() + 1]

            def rows_of(ct: CapturedTable):
                t = ct.env.table
                stmt = filters.get(t.id)
                if stmt is not None:
                    q = self._override_query(snap, t, stmt.render(sql_literal_pg(snap)))
                else:
                    q = _copy_table(t)
                n = 0
                with snap.cursor().copy(q) as cp:
                    for row in cp.rows():
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

            yield SnapshotSession(captured, rows_of, emit_row, lambda ct: ct.env.table.id)
            snap.execute("COMMIT")
        finally:
            snap.close()
