"""The incremental snapshot's ChunkReader surface: maximum key, chunk reads, watermark rows and the
read-only strategy's consistent chunk + high-watermark read."""

from __future__ import annotations

import logging
import time

import psycopg
from psycopg import sql

from emulator.connectors.postgres import pgoutput as po
from emulator.connectors.postgres.captured import CapturedTable
from emulator.connectors.postgres.catalog import load_table
from emulator.connectors.postgres.source import (
    sequence,
)
from emulator.incremental.chunks_postgres import PostgresChunks
from emulator.incremental.conditions import Predicate, sql_literal_pg
from emulator.incremental.machine import ChunkAbandoned

log = logging.getLogger("emulator.postgres")

_GENERATED_SQL = """
SELECT a.attname FROM pg_catalog.pg_attribute a
JOIN pg_catalog.pg_class c ON c.oid = a.attrelid JOIN pg_catalog.pg_namespace n ON n.oid = c.relnamespace
WHERE n.nspname = %s AND c.relname = %s AND a.attnum > 0 AND NOT a.attisdropped AND a.attgenerated <> ''
ORDER BY a.attnum LIMIT 1
"""


class ChunkSource:
    """The incremental snapshot's chunk source and watermarks (a mixin of PostgresConnector)."""

    def max_key(
        self, ct: CapturedTable, key_cols: list[str], condition: Predicate | None
    ) -> list[str] | None:
        conn = self.visible_conn()  # what the signal's own transaction changed is read (`visible_conn`)
        q = PostgresChunks.max_key(ct.env.table, key_cols, condition, sql_literal_pg(conn))
        with conn.transaction(), conn.cursor() as cur:
            cur.execute("SET TRANSACTION READ ONLY")  # a filter can read, never write
            t = ct.env.table
            cur.execute(_GENERATED_SQL, (t.namespace, t.name))
            generated = cur.fetchone()
            if generated is not None:
                # with pgoutput Debezium refreshes the table without its generated columns, then maps the
                # maximum-key query's `SELECT *` row onto it: ColumnUtils.toArray throws, readChunk's outer
                # catch skips the table (tests/data/pg/cases/incremental_generated_column_skipped)
                raise ChunkAbandoned(
                    f"Column '{generated[0]}' not found in result set for table '{t.namespace}.{t.name}'"
                )
            with cur.copy(q) as cp:
                rows = list(cp.rows())
        return list(rows[0]) if rows else None

    def _chunk_query(
        self,
        ct: CapturedTable,
        key_cols: list[str],
        after: list[str] | None,
        upto: list[str],
        limit: int,
        condition: Predicate | None,
    ) -> sql.Composable:
        return PostgresChunks.chunk(
            ct.env.table, key_cols, after, upto, limit, condition, sql_literal_pg(self.conn)
        )

    def _refresh_table(self, ct: CapturedTable) -> CapturedTable:
        """A column the chunk query names is gone (DDL not yet seen in the stream): read the table again."""
        t = ct.env.table
        td = load_table(self.conn, t.namespace, t.name, self.type_cfg)
        if td is None:
            raise psycopg.errors.UndefinedTable(f"table {t.id} does not exist any more")
        log.info("incremental snapshot: the columns of %s changed; chunk read with the new definition", t.id)
        return self._capture(td)

    def read_chunk(
        self,
        ct: CapturedTable,
        key_cols: list[str],
        after: list[str] | None,
        upto: list[str],
        limit: int,
        condition: str | None,
    ) -> list[list]:
        conn = self.visible_conn()
        for attempt in (0, 1):
            try:
                with conn.transaction(), conn.cursor() as cur:
                    cur.execute("SET TRANSACTION READ ONLY")  # a filter can read, never write
                    with cur.copy(self._chunk_query(ct, key_cols, after, upto, limit, condition)) as cp:
                        return [list(r) for r in cp.rows()]
            except psycopg.errors.UndefinedColumn:
                if attempt:
                    raise
                ct = self._refresh_table(ct)
        return []

    def _wm_connection(self) -> psycopg.Connection:
        if not self.signal_table:
            raise ValueError("incremental snapshots need signal.data.collection (the watermark table)")
        if self._wm_conn is None:
            self._wm_conn = self._connect()
            # watermark rows must reach the stream at once; with synchronous_commit=off they would wait
            # for the WAL writer (up to wal_writer_delay per window)
            if self._wm_conn.execute("SHOW synchronous_commit").fetchone()[0] == "off":
                self._wm_conn.execute("SET synchronous_commit = local")
        return self._wm_conn

    def write_watermark(self, row_id: str, kind: str, data: str) -> None:
        schema, _, table = self.signal_table.partition(".") if self.signal_table else ("", "", "")
        self._wm_connection().execute(
            sql.SQL("INSERT INTO {} VALUES (%s, %s, %s)").format(sql.Identifier(schema, table)),
            (row_id, kind, data),
        )

    def delete_watermark(self, row_id: str) -> None:
        """incremental.snapshot.watermarking.strategy=insert_delete: the open row goes at the close."""
        schema, _, table = self.signal_table.partition(".") if self.signal_table else ("", "", "")
        self._wm_connection().execute(
            sql.SQL("DELETE FROM {} WHERE id = %s").format(sql.Identifier(schema, table)), (row_id,)
        )

    def read_source(self, ct: CapturedTable) -> dict:
        t = ct.env.table
        return self.source(
            time.time_ns() // 1000,
            "incremental",
            sequence(self.last_commit_lsn, self.lsn_proc),
            t.namespace,
            t.name,
            None,
            None,
        )

    def keep_alive(self) -> None:
        """Between the chunks of a long synchronous loop: the walsender must keep hearing from us."""
        if self.streaming and self.stream is not None and self.stream.status_due(self.status_interval_s):
            self.stream.send_status(self._confirmed())

    # read.only=true (no writes): pg_current_snapshot() and the WAL position as watermarks ----------------------
    def read_chunk_with_watermark(
        self,
        ct: CapturedTable,
        key_cols: list[str],
        after: list[str] | None,
        upto: list[str],
        limit: int,
        condition: str | None,
    ) -> tuple[list[list], int]:
        """The chunk, read in one REPEATABLE READ transaction, and the high watermark: the WAL insert
        position taken right after the transaction's snapshot (`pg_current_snapshot()`). Every transaction
        the chunk sees committed before it, so once the stream has passed it, the stream holds everything the
        chunk reflects; changes streamed from then on are newer than the chunk. A transaction already
        streamed but still running in the snapshot (the instant between its commit record and its end)
        makes the read start again."""
        if self._server_version() < 130000:
            raise RuntimeError(
                "read.only incremental snapshots need PostgreSQL 13 or newer (pg_current_snapshot)"
            )
        conn = self.visible_conn()  # the transaction being decoded is not in `_ro_xids` yet
        for attempt in range(100):
            conn.execute("BEGIN ISOLATION LEVEL REPEATABLE READ, READ ONLY")
            done = False
            try:
                snap, lsn = conn.execute(
                    "SELECT pg_current_snapshot()::text, (CASE WHEN pg_is_in_recovery() THEN "
                    "pg_last_wal_replay_lsn() ELSE pg_current_wal_insert_lsn() END)::text"
                ).fetchone()
                if self._snapshot_misses_streamed(snap):
                    conn.execute("ROLLBACK")
                    done = True
                    time.sleep(min(0.001 * (attempt + 1), 0.05))
                    continue
                with conn.cursor().copy(self._chunk_query(ct, key_cols, after, upto, limit, condition)) as cp:
                    rows = [list(r) for r in cp.rows()]
                conn.execute("COMMIT")
                done = True
                self._ro_xids.clear()
                return rows, self._record_end(po.lsn_to_int(lsn))
            except psycopg.errors.UndefinedColumn:
                conn.execute("ROLLBACK")
                done = True
                ct = self._refresh_table(ct)
            finally:
                if not done and not conn.closed:
                    try:
                        conn.execute("ROLLBACK")
                    except psycopg.Error:
                        pass
        raise RuntimeError("read.only incremental snapshot: no consistent chunk read after 100 tries")

    def _snapshot_misses_streamed(self, snap: str) -> bool:
        xmin_s, xmax_s, xip_s = snap.split(":")
        xmin, xmax = int(xmin_s), int(xmax_s)
        xip = {int(x) for x in xip_s.split(",") if x}
        epoch = xmax >> 32
        for x in self._ro_xids:
            full = (epoch << 32) | (x & 0xFFFFFFFF)
            if full > xmax:
                full -= 1 << 32
            if full >= xmin and (full >= xmax or full in xip):
                return True
        return False

    def _record_end(self, lsn: int) -> int:
        """pg_current_wal_insert_lsn() points past the page header when it sits at a page boundary, where a
        record's end (what the stream reports) is the boundary itself."""
        if self._wal_geometry is None:
            blk, seg = self.conn.execute(
                "SELECT current_setting('wal_block_size')::int, "
                "pg_size_bytes(current_setting('wal_segment_size'))"
            ).fetchone()
            self._wal_geometry = (int(blk), int(seg))
        blk, seg = self._wal_geometry
        if lsn % seg == 40:  # SizeOfXLogLongPHD
            return lsn - 40
        if lsn % blk == 24:  # SizeOfXLogShortPHD
            return lsn - 24
        return lsn

    def watermark_passed(self, mark: int) -> bool:
        return not self.in_tx and (self.lsn_commit or 0) >= mark
