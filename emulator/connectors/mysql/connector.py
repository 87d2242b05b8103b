"""io.debezium.connector.mysql.MySqlConnector and io.debezium.connector.mariadb.MariaDbConnector.

One code base for both: a snapshot read over the SQL protocol (pymysql), then the binlog (`binlog.py` on
mysql-replication). The table model comes from DDL (`ddl.py`), persisted in the schema history
(`history.py`); rows become the neutral model and go through the shared envelope, transaction, heartbeat
and incremental-snapshot code. The flavours differ in names, in how transactions and GTIDs appear in the
binlog and in the SQL for the binlog position.

This module wires the parts together (settings, connections, offsets, position, restart); the
snapshot is in `snapshot.py`, the binlog event handlers in `stream.py`, DDL and schema history in
`schema_changes.py`, the incremental/blocking snapshot surface in `chunk_source.py` (mixins of
`MySqlConnector`), the per-table state in `captured.py`.
"""

from __future__ import annotations

import logging
import re
from dataclasses import replace
from typing import Any

import pymysql

from emulator.connect.json import Framed
from emulator.connect.schema import Schema
from emulator.connectors import guardrail
from emulator.connectors.base import with_progress
from emulator.connectors.mysql import binlog as bl
from emulator.connectors.mysql import textrows
from emulator.connectors.mysql.binlog_values import hold_time_adjuster, release_time_adjuster
from emulator.connectors.mysql.captured import SYSTEM_DATABASES, CapturedTable, TableEntry, quote_id
from emulator.connectors.mysql.chunk_source import MySqlChunkSource
from emulator.connectors.mysql.custom_converters import convert_column
from emulator.connectors.mysql.ddl import Catalog, DdlParser, Table
from emulator.connectors.mysql.ddl_model import Column
from emulator.connectors.mysql.ddl_types import TEXT_JDBC_TYPES
from emulator.connectors.mysql.failed_rows import dropping_parser
from emulator.connectors.mysql.gtid import MariaGtidSet, MySqlGtidSet, source_filter
from emulator.connectors.mysql.history import SchemaHistory
from emulator.connectors.mysql.reselect import MySqlReselect
from emulator.connectors.mysql.schema_changes import MySqlSchemaChanges
from emulator.connectors.mysql.snapshot import MySqlSnapshot
from emulator.connectors.mysql.snapshot_events import SnapshotEvents
from emulator.connectors.mysql.source import Flavor
from emulator.connectors.mysql.stream import MySqlBinlogStream
from emulator.connectors.mysql.temporal_modes import default_throws
from emulator.connectors.mysql.tls import tls_options
from emulator.connectors.mysql.types import (
    DEFAULTED_TYPES,
    EventConversionError,
    TypeConfig,
    default_value,
    map_column,
)
from emulator.connectors.mysql.values import identity
from emulator.engine import Engine
from emulator.envelope import EnvelopeSettings, TableEnvelope
from emulator.filters import Filters
from emulator.incremental.conditions import SqlFilters
from emulator.model import ColumnDef, TableDef
from emulator.pipeline.dispatcher import Dispatcher
from emulator.pipeline.signalling import wire_signals
from emulator.pipeline.transactions import stored_tx_counts
from emulator.postprocessors.reselect import Reselector, placeholder_bytes
from emulator.settings import settings_for

log = logging.getLogger("emulator.mysql")

# pymysql conversions: Python values are escaped as usual, result values stay text (str, or bytes for
# binary columns) for the connector's own converters
_TEXT_RESULTS = {k: v for k, v in pymysql.converters.conversions.items() if not isinstance(k, int)}


def _field_doc(schema: Schema, c: Column) -> str:
    """A column comment as the doc of its field schema (Debezium's TableSchemaBuilder.addField: key and value
    alike; recorded: mariadb case schema_comments). Kafka's SchemaBuilder.doc refuses to replace a doc the
    type's builder set (Geometry, Point), which stops Debezium: stop too rather than print either."""
    if schema.doc is not None and schema.doc != c.comment:
        raise ValueError(
            f"column {c.name!r} ({c.type_name}) has a comment and include.schema.comments is set: Kafka's "
            f"SchemaBuilder refuses to replace the type's doc {schema.doc!r} (Debezium stops here)"
        )
    return c.comment


class MySqlConnector(MySqlSnapshot, MySqlBinlogStream, MySqlSchemaChanges, MySqlChunkSource):
    FLAVOR = "mysql"

    def __init__(self, config, engine: Engine) -> None:
        typed = settings_for(config)
        binlog = typed.binlog
        self.cfg = config
        self.typed = typed
        self.engine = engine
        self.metrics = engine.metrics.streaming  # integer counters only (emulator.metrics)
        self.flavor = Flavor(self.FLAVOR)
        self.prefix = typed.topics.prefix
        self.locking_mode = typed.relational.snapshot_locking_mode
        self.type_cfg = TypeConfig.from_settings(typed)
        self.custom_converters = binlog.custom_converters
        self.settings = EnvelopeSettings.of(
            typed,
            connector_name=self.flavor.name,
            source_schema=self.flavor.source_schema,
            structured=engine.dataplane is not None,  # the data plane takes records in their parts
        )
        self.filters = Filters(typed, SYSTEM_DATABASES)
        self.db_include = self.filters.ns_include
        self.db_exclude = self.filters.ns_exclude
        self.include_schema_changes = binlog.include_schema_changes
        self.include_query = binlog.include_query
        self.skip_unparseable = typed.history.skip_unparseable_ddl
        self.store_only_captured_dbs = typed.history.store_only_captured_databases_ddl
        self.store_only_captured_tables = typed.history.store_only_captured_tables_ddl
        self.inconsistent_mode = binlog.inconsistent_schema_mode
        self.failure_mode = typed.errors.processing_failure_mode  # fail, or warn|skip: failed_rows.py
        # the binlog connectors filter skipped operations where events are read (supportsOperationFiltering)
        self.dispatcher = Dispatcher.for_connector(engine, self.settings, typed, never_skip=True)
        # Debezium's ReselectColumnsPostProcessor, applied by the dispatcher per table
        if binlog.post_processors:
            self.dispatcher.reselect = Reselector(
                binlog.post_processors,
                placeholder_bytes(typed.relational.unavailable_value_placeholder),
                MySqlReselect(lambda: self.conn, self.table_by_id).read,
                lambda env: env.table.extra.get("primary_key", env.table.key_columns),
            )
        self.tx = self.dispatcher.tx
        self.heartbeat_query = typed.heartbeat.action_query
        self.server_id = binlog.server_id or 0
        self.schema_key_frame = Framed(self.settings.key_codec, self.flavor.schema_change_key)
        self.schema_value_frame = Framed(self.settings.value_codec, self.flavor.schema_change_value)
        self.history = SchemaHistory(typed.history.file_filename, self.prefix)
        self.catalog = Catalog()
        self.parser = DdlParser(
            self.catalog,
            keep_comments=typed.relational.include_schema_comments,
            mysql_grammar=not self.flavor.mariadb,
        )
        self._pending_schema_change: tuple | None = None
        self.snapshot_events = SnapshotEvents()  # the snapshot source's schema events (snapshot_events.py)
        self.gtid_includes = list(binlog.gtid_source_includes)
        self.gtid_excludes = list(binlog.gtid_source_excludes)
        # gtid.source.filter.dml.events: the rows of a transaction whose GTID source is filtered out are not
        # emitted (Debezium's ignoreDmlEventByGtidSource, set at each GTID event); the rows handler is wrapped
        # only when a filter is set, so the usual path pays nothing
        self.dml_source = source_filter(
            self.gtid_includes, self.gtid_excludes, binlog.gtid_source_filter_dml_events
        )
        self.dml_skip = False
        if self.dml_source is not None:
            self._on_rows = self._source_filtered_rows(self._on_rows)
        self.signal_table = self.filters.signal_table
        self.by_id: dict[str, CapturedTable | None] = {}
        self.schema_epoch = 0
        self.conn: pymysql.Connection | None = None
        self._wm_conn: pymysql.Connection | None = None
        self.reader: bl.BinlogReader | None = None
        self.mariadb_server = False
        self.server_version = ""
        # position
        self.file = ""
        self.next_pos = 4
        self.gtids: MariaGtidSet | MySqlGtidSet | None = None
        self._warned_position_watermark = False
        self.tx_file: str | None = None
        self.tx_pos: int | None = None
        self.gtid: str | None = None  # the GTID shown in source blocks and transaction ids
        self.pos_gtid: str | None = None  # the GTID of the current group, for the offsets' GTID set
        self.commit_ts_us = 0  # MySQL 8: the GTID event's original_commit_timestamp, truncated to ms
        self.in_tx = False
        self.tx_standalone = False
        self.events_done = 0
        self.rows_done = 0
        self.skip_events = 0
        self.skip_rows = 0
        self.skip_gtid: str | None = None
        # (transaction id, counts) stored inside a transaction: its BEGIN was delivered, the restart goes on counting
        self._resume_tx: tuple[str, dict[str, int]] | None = None
        self.last_ts_ms = 0
        self.event_server_id = 0
        self.thread: int | None = None
        self.query: str | None = None
        self.last_row = 0
        self.snapshot_done = False
        self.streaming = False
        wire_signals(self, typed, engine, SqlFilters("mysql"), self.signal_table)
        self._in_ro_snapshot = False  # a read.only chunk's consistent-snapshot transaction is open
        # ((binlog file, event start), table) of the last chunk read: `MySqlChunkSource._event_source`
        self._chunk_of_event: tuple[tuple[str, int], CapturedTable] | None = None
        self.table_ids: dict[bytes, TableEntry] = {}  # by the table id's 6 bytes
        self.tm_cache: dict[bytes, TableEntry] = {}
        self.tm_last = b""  # the last table map event's body (its id and map): the same again is skipped
        self._ts = self._sid = self._start = self._next = 0
        self._xa_init()  # prepared XA groups held until their XA COMMIT (xa_hold.py)
        self._handlers = {
            bl.TABLE_MAP: self._on_table_map,
            bl.QUERY: self._on_query,
            bl.XID: self._on_xid,
            bl.ROTATE: self._on_rotate,
            bl.MARIADB_GTID: self._on_mariadb_gtid,
            bl.MYSQL_GTID: self._on_mysql_gtid,
            bl.MARIADB_ANNOTATE: self._on_annotate,
            bl.ROWS_QUERY: self._on_rows_query,
        }
        self._plain = self._plain_tx_handlers()  # the plain GTID / XID handlers (stream_tx.py)
        # enable.time.adjuster is process state: refused if another connector of this process differs; taken last
        # (nothing above decodes a date), so a constructor that fails leaves no hold that close() would not release
        hold_time_adjuster(typed.binlog.enable_time_adjuster)
        self._adjuster_held = True
        engine.source = self

    # -- engine protocol ------------------------------------------------------------------------------
    def offset(self) -> dict[str, Any] | None:
        return with_progress(self.position(), self.incremental)

    def position(self) -> dict[str, Any] | None:
        if not self.file:
            return None
        if self._xa_position is not None:  # a held XA group's records being made (xa_hold._xa_replay)
            return dict(self._xa_position)
        off: dict[str, Any] = {}
        if self.in_tx and self.tx_file is not None:
            off["file"], off["pos"] = self.tx_file, self.tx_pos
            # events_done already counts a rows event being handled; a commit from inside one (insert_delete
            # chunks read in the signal row's event) must have the restart read that event again and skip
            # only its first rows_done rows, not the whole event plus rows of the next one
            off["event"] = self.events_done - 1 if self.rows_done else self.events_done
            off["row"] = self.rows_done
            if self.pos_gtid:
                off["transaction_gtid"] = self.pos_gtid
        else:
            off["file"], off["pos"] = self.file, self.next_pos
        if self.tx.started:  # Debezium's TransactionContext.store (BinlogOffsetContext.getOffset)
            off.update(self.tx.offset_keys(self.tx.begin_id))
        if self.gtids is not None:
            off["gtids"] = str(self.gtids)
        if self.event_server_id:
            off["server_id"] = self.event_server_id
        if self.xa_held or self.xa_done is not None:
            self._xa_offset(off)
        off["ts_sec"] = self.last_ts_ms // 1000
        if not self.snapshot_done:
            off["snapshot"] = True
        else:
            off["snapshot_completed"] = True
        return off

    def committed(self, offset: dict[str, Any]) -> None:
        return None

    # -- connections ------------------------------------------------------------------------------------
    def _conn_settings(self) -> dict[str, Any]:
        rel = self.typed.relational
        return {
            "host": rel.hostname or "localhost",
            "port": rel.port,
            "user": rel.user,
            # PyMySQL would send a str password as Latin-1; the server (and Debezium's JDBC driver) use UTF-8
            "password": (rel.password or "").encode("utf-8"),
            "connect_timeout": max(1, self.typed.binlog.connect_timeout_ms // 1000),
            **tls_options(self.typed.binlog.ssl_mode),
        }

    def _connect(self) -> pymysql.Connection:
        try:
            conn = pymysql.connect(
                **self._conn_settings(), charset="utf8mb4", autocommit=True, conv=_TEXT_RESULTS
            )
        except pymysql.err.OperationalError as e:
            raise ConnectionError(
                f"cannot connect to {self.typed.relational.hostname}:{self.typed.relational.port}: {e}"
            ) from e
        with conn.cursor() as cur:
            cur.execute("SET SESSION time_zone = '+00:00'")
            for stmt in self.typed.relational.initial_statements:
                cur.execute(stmt)
        return conn

    def _q(self, sql: str, args: Any = None, conn: pymysql.Connection | None = None) -> list[tuple]:
        with (conn or self.conn).cursor() as cur:
            cur.execute(sql, args)
            return list(cur.fetchall())

    def _var(self, name: str) -> str | None:
        rows = self._q("SHOW GLOBAL VARIABLES LIKE %s", (name,))
        return rows[0][1] if rows else None

    def _check_server(self) -> None:
        self.server_version = self._q("SELECT VERSION()")[0][0]
        self.mariadb_server = "mariadb" in self.server_version.lower()
        fmt = (self._var("binlog_format") or "").upper()
        if fmt != "ROW":
            raise RuntimeError(
                f"The MySQL server is not configured to use a ROW binlog_format, which is "
                f"required for this connector to work properly (binlog_format={fmt or 'unset'}). "
                "Change the binlog_format to ROW and restart the connector."
            )
        image = (self._var("binlog_row_image") or "FULL").upper()
        if image != "FULL":
            raise RuntimeError(
                f"The MySQL server is not configured to use a FULL binlog_row_image, which is "
                f"required for this connector to work properly (binlog_row_image={image}). "
                "Change the binlog_row_image to FULL and restart the connector."
            )
        log_bin = (self._var("log_bin") or "ON").upper()
        if log_bin not in ("ON", "1"):
            raise RuntimeError("The MySQL server does not appear to be using a binlog (log_bin is OFF)")

    def _uses_binary_log_status(self) -> bool:
        if self.mariadb_server:
            return False
        m = re.match(r"(\d+)\.(\d+)", self.server_version)
        return bool(m) and (int(m.group(1)), int(m.group(2))) >= (8, 4)

    def _binlog_status(self, conn=None) -> tuple[str, int, str | None]:
        sql = "SHOW BINARY LOG STATUS" if self._uses_binary_log_status() else "SHOW MASTER STATUS"
        rows = self._q(sql, conn=conn)
        if not rows:
            raise RuntimeError("the server's binary log is not enabled (SHOW MASTER STATUS is empty)")
        row = rows[0]
        file, pos = row[0], int(row[1])
        if self.mariadb_server:
            gtid = self._q("SELECT @@GLOBAL.gtid_binlog_pos", conn=conn)[0][0] or ""
        else:
            gtid = row[4] if len(row) > 4 else None
            gtid = gtid.replace("\n", "") if gtid else None
        return file, pos, gtid

    def _snapshot_position(self, snap) -> tuple[str, int, str | None]:
        status = dict(self._q("SHOW STATUS LIKE 'binlog_snapshot_%'", conn=snap))
        file, pos = status.get("Binlog_snapshot_file"), status.get("Binlog_snapshot_position")
        if not file or pos is None:
            return self._binlog_status(conn=snap)
        gtid = self._q("SELECT BINLOG_GTID_POS(%s, %s)", (file, int(pos)), conn=snap)[0][0]
        return file, int(pos), gtid or ""

    def _source_filtered_rows(self, on_rows):
        def filtered(etype: int, body: bytes, checksum: int) -> None:
            if self.dml_skip:
                self.events_done += 1  # counted as read, as a restart inside the transaction counts it
                return
            on_rows(etype, body, checksum)

        return filtered

    def _new_gtid_set(self, text: str | None):
        if text is None:
            return None
        return MariaGtidSet(text) if self.mariadb_server else MySqlGtidSet(text)

    # -- filters --------------------------------------------------------------------------------------------
    def _db_included(self, db: str) -> bool:
        if db in SYSTEM_DATABASES:
            return False
        if self.db_include and not any(p.fullmatch(db) for p in self.db_include):
            return False
        if self.db_exclude and any(p.fullmatch(db) for p in self.db_exclude):
            return False
        return True

    def _schema_change_db_ok(self, db: str) -> bool:
        return not db or self._db_included(db)

    # -- tables ------------------------------------------------------------------------------------------------
    def _table_def(self, t: Table) -> TableDef:
        cols = []
        converters = self.custom_converters
        # a message.key.columns column is a required key field: under time.precision.mode=connect (or isostring:
        # the same null from JdbcValueConverters) an out-of-day TIME there stops Debezium ("Unexpected value for
        # JDBC type 92"; campaign seed 64006), nullable or not; under nanoseconds a DATETIME outside NanoTimestamp's
        # range there stops it likewise (case time_nanoseconds_key_column_out_of_range_stops)
        mode = self.type_cfg.time_precision_mode
        keyed = set()
        if mode in ("connect", "isostring", "nanoseconds") and self.filters.key_patterns:
            tid = f"{t.db}.{t.name}"
            keyed = {
                c.name for p in self.filters.key_patterns for c in t.columns if p.fullmatch(f"{tid}.{c.name}")
            }
        for c in t.columns:
            key = c.name in keyed
            mc = replace(c, optional=False) if key and c.base_type == "TIME" and mode != "nanoseconds" else c
            m = map_column(mc, self.type_cfg, key=key)
            d = default_value(c, m)
            if (
                self.type_cfg.convert_fail
                and c.has_default
                and c.default is not None
                and default_throws(c.base_type, mode, c.default)
            ):
                # event.converting.failure.handling.mode=fail: TableSchemaBuilder.parseDefaultValue rethrows when
                # the table's schema is built (a streamed CREATE/ALTER: before its schema change; case
                # converting_fail_default_stops)
                raise EventConversionError(
                    f"column {t.db}.{t.name}.{c.name}: DEFAULT {c.default} cannot be converted under "
                    f"time.precision.mode={mode} and event.converting.failure.handling.mode=fail; Debezium stops "
                    "here too"
                )
            if d is not None and not c.optional and c.base_type in DEFAULTED_TYPES:
                # a zero date (or an unconvertible time) reads as the default
                m = map_column(c, self.type_cfg, d, key=key)
            if converters:
                m, d = convert_column(converters, f"{t.db}.{t.name}", c, m, d)
            schema = m.schema.with_(optional=c.optional or m.always_optional, default=d)
            if c.comment is not None:  # kept only with include.schema.comments (the DDL parser drops it)
                schema = schema.with_(doc=_field_doc(schema, c))
            cols.append(
                ColumnDef(
                    c.name,
                    schema,
                    m.convert,
                    c.type_name,
                    None,
                    c.length,
                    c.scale,
                    m.snapshot_convert,
                    text_type=c.jdbc_type in TEXT_JDBC_TYPES,
                )
            )
        return TableDef(t.db, t.name, cols, t.key_columns())

    def _captured(self, db: str, name: str) -> CapturedTable | None:
        tid = f"{db}.{name}"
        if tid in self.by_id:
            return self.by_id[tid]
        t = self.catalog.get(db, name)
        if t is None or not self.filters.table_included(db, name):
            self.by_id[tid] = None
            return None
        shaped, keep = self.filters.shape(self._table_def(t))
        ct = CapturedTable(TableEnvelope(self.settings, shaped), keep, t)
        self.by_id[tid] = ct
        return ct

    def _text_parser(self, ct: CapturedTable):
        """The snapshot/chunk row parser of a captured table (its columns, in its SELECT order)."""
        base = {c.name: c.base_type for c in ct.table.columns}
        cols = []
        for c, field in zip(ct.env.table.columns, ct.env.names):  # field: the name as printed
            conv = c.snapshot_convert or c.convert
            cols.append(
                (field, None if conv is identity else conv, base.get(c.name) in textrows.BINARY_TYPES)
            )
        parse = textrows.compile_text_row_parser(cols)
        if self.failure_mode == "fail":
            return parse
        return dropping_parser(parse, self.failure_mode == "warn", ct.data_collection)

    def _invalidate(self, db: str, name: str) -> None:
        self.by_id.pop(f"{db}.{name}", None)
        self.schema_epoch += 1

    def table_by_id(self, table_id: str) -> CapturedTable | None:
        db, _, name = table_id.partition(".")
        return self._captured(db, name)

    def captured_table_ids(self) -> list[str]:
        return sorted(
            f"{db}.{n}"
            for (db, n) in self.catalog.tables
            if self._db_included(db) and self.filters.table_included(db, n)
        )

    # -- adapter protocol (emulator.connectors.base) ------------------------------------------------------
    HISTORIZED = True  # a schema history: no_data and recovery still read the tables' structure
    ON_LOST_POSITION = "fail"

    @staticmethod
    def check(config) -> None:
        """The binlog on, ROW and FULL, and the replication privileges (emulator.preflight)."""
        from emulator.preflight import check_binlog

        check_binlog(config)

    def connect(self) -> None:
        self.conn = self._connect()
        self._check_server()
        guardrail.check(self.typed, self._guardrail_tables(), not self.store_only_captured_tables)
        self.catalog.server_charset = self._var("character_set_server") or "utf8mb4"

    def _guardrail_tables(self) -> list[str]:
        """The tables Debezium's guardrail counts (emulator.connectors.guardrail): those whose schemas the history
        keeps, as the snapshot's schema read selects them."""
        if self.typed.common.guardrail_collections_max <= 0:
            return []
        out = []
        for (db,) in self._q("SHOW DATABASES"):
            if not (self._db_included(db) if self.store_only_captured_dbs else db not in SYSTEM_DATABASES):
                continue
            for n, *_rest in self._q(f"SHOW FULL TABLES IN {quote_id(db)} WHERE Table_type = 'BASE TABLE'"):
                if not self.store_only_captured_tables or self.filters.table_included(db, n):
                    out.append(f"{db}.{n}")
        return out

    def offset_state(self, stored: dict | None) -> tuple[bool, bool]:
        return stored is not None, stored is not None and bool(stored.get("snapshot"))

    def position_available(self, stored: dict) -> bool:
        files = {r[0] for r in self._q("SHOW BINARY LOGS")}
        return stored.get("file") in files

    def lost_position_message(self, stored: dict) -> str:
        return (
            f"The connector is trying to read binlog starting at {stored.get('file')}:{stored.get('pos')} "
            f"(GTIDs {stored.get('gtids')}), but this is no longer available on the server. Reconfigure "
            "the connector to use a snapshot when needed (snapshot.mode=when_needed)."
        )

    def prepare(self, snapshot: bool) -> None:
        return None

    def snapshot_session(self, data: bool):
        return self._snapshot(data)

    def restore(self, stored: dict, history: bool = True) -> None:
        self._restore(stored, recover_history=history)

    def stream_changes(self) -> None:
        self._stream()

    def _restore(self, stored: dict, recover_history: bool = True) -> None:
        if not recover_history:
            pass
        elif not self.history.exists():
            raise RuntimeError(
                "The db history topic or its content is fully or partially missing "
                f"({self.history.path}). Please check database schema history topic configuration and "
                "re-execute the snapshot (snapshot.mode=recovery rebuilds it from the current tables)."
            )
        else:
            n = self.history.recover(self.catalog, stored)
            log.info(
                "schema history: %d records applied (up to %s:%s)", n, stored.get("file"), stored.get("pos")
            )
        self.file = stored["file"]
        self.next_pos = int(stored["pos"])
        self.gtids = self._new_gtid_set(stored.get("gtids"))
        self.skip_events = int(stored.get("event") or 0)
        self.skip_rows = int(stored.get("row") or 0)
        self.skip_gtid = stored.get("transaction_gtid")
        # TransactionContext.load: the transaction stays open with its counts until the binlog starts it again
        # (Debezium 3.6.3's TransactionMonitor.transactionStartedEvent then writes no second BEGIN)
        tx_id = stored.get("transaction_id")
        self._resume_tx = (str(tx_id), stored_tx_counts(stored)) if tx_id is not None else None
        self._xa_restore(stored)
        self.snapshot_done = True
        if self.skip_events or self.skip_rows:
            # resume at the start of the interrupted transaction, skipping what was emitted
            self.tx_file, self.tx_pos = self.file, self.next_pos

    # -- lifecycle ---------------------------------------------------------------------------------------------
    def close(self) -> None:
        if self.__dict__.pop("_adjuster_held", False):
            release_time_adjuster(self.typed.binlog.enable_time_adjuster)
        if self.reader is not None:
            try:
                self.reader.close()
            except Exception:  # noqa: BLE001
                pass
        for c in (self._wm_conn, self.conn):
            if c is not None:
                try:
                    c.close()
                except Exception:  # noqa: BLE001
                    pass
        self.signals.close()


class MariaDbConnector(MySqlConnector):
    FLAVOR = "mariadb"
