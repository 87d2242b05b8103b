"""io.debezium.connector.mysql.MySqlConnector and io.debezium.connector.mariadb.MariaDbConnector.

One code base for both: a snapshot read over the SQL protocol (pymysql), then the binlog (`binlog.py` on
mysql-replication). The table model comes from DDL (`ddl.py`), persisted in the schema history
(`history.py`); rows become the neutral model and go through the shared envelope, transaction, heartbeat
and incremental-snapshot code. The flavours differ in names, in how transactions and GTIDs appear in the
binlog and in the SQL for the binlog position.
"""

from __future__ import annotations

import logging
import re
import time
from contextlib import contextmanager
from typing import Any

import pymysql

from emulator import DEBEZIUM_VERSION
from emulator.connect.json import Framed
from emulator.connectors.common import initial_statements
from emulator.connectors.mysql import binlog as bl
from emulator.connectors.mysql import textrows
from emulator.connectors.mysql.ddl import Catalog, Change, DdlError, DdlParser, Table
from emulator.connectors.mysql.gtid import MariaGtidSet, MySqlGtidSet
from emulator.connectors.mysql.history import SchemaHistory
from emulator.connectors.mysql.source import Flavor, source_block
from emulator.connectors.mysql.types import TypeConfig, _identity, default_value, map_column
from emulator.engine import Engine
from emulator.envelope import EnvelopeSettings, TableEnvelope
from emulator.filters import Filters, include_list_order
from emulator.incremental.chunks import MySqlChunks
from emulator.incremental.conditions import Predicate, SqlFilters
from emulator.incremental.machine import IncrementalSnapshot
from emulator.model import ColumnDef, TableDef
from emulator.naming import field_name_adjuster, schema_name_adjuster
from emulator.notifications import Notifier
from emulator.pipeline.coordinator import SnapshotSession, blocking_snapshot
from emulator.pipeline.dispatcher import Dispatcher
from emulator.records import Record
from emulator.settings import settings_for
from emulator.signals.processor import SignalProcessor

log = logging.getLogger("emulator.mysql")

# pymysql conversions: Python values are escaped as usual, result values stay text (str, or bytes for
# binary columns) for the connector's own converters
_TEXT_RESULTS = {k: v for k, v in pymysql.converters.conversions.items() if not isinstance(k, int)}
SYSTEM_DATABASES = ("mysql", "information_schema", "performance_schema", "sys")
_DML = re.compile(r"(?is)^\s*(INSERT|UPDATE|DELETE|REPLACE)\b")


class _TableEntry:
    """A table-map layout, bound to its captured table and row decoder for one schema epoch."""

    __slots__ = ("tm", "epoch", "ct", "dec")

    def __init__(self, tm: bl.TableMap) -> None:
        self.tm = tm
        self.epoch = -1
        self.ct = None
        self.dec = None


class CapturedTable:
    __slots__ = ("env", "keep", "data_collection", "decoders", "table", "ncols", "gate")

    def __init__(self, env: TableEnvelope, keep: list[int] | None, table: Table) -> None:
        self.env = env
        self.keep = keep
        self.data_collection = env.table.id
        self.decoders: dict[bytes, Any] = {}
        self.table = table
        self.ncols = len(table.columns)
        self.gate: Any = None  # the dispatcher's change function for this table, made on first use


def _bool(value: str | None, default: bool = False) -> bool:
    if value is None or value == "":
        return default
    return str(value).strip().lower() == "true"


class MySqlConnector:
    FLAVOR = "mysql"

    def __init__(self, config, engine: Engine) -> None:
        self.cfg = config
        get = config.get
        self.engine = engine
        self.metrics = engine.metrics.streaming  # integer counters only (emulator.metrics)
        self.flavor = Flavor(self.FLAVOR)
        self.prefix = get("topic.prefix")
        self.locking_mode = (get("snapshot.locking.mode") or "minimal").lower()
        tpm = (get("time.precision.mode") or "adaptive_time_microseconds").lower()
        self.type_cfg = TypeConfig(
            decimal_mode=(get("decimal.handling.mode") or "precise").lower(),
            bigint_unsigned_mode=(get("bigint.unsigned.handling.mode") or "long").lower(),
            binary_mode=(get("binary.handling.mode") or "bytes").lower(),
            time_precision_mode=tpm,
            snapshot_timestamp_trimmed=self.flavor.name == "mysql",
            mariadb_connector=self.flavor.mariadb,
        )
        self.settings = EnvelopeSettings(
            prefix=self.prefix,
            connector_name=self.flavor.name,
            source_schema=self.flavor.source_schema,
            key_schemas=_bool(get("key.converter.schemas.enable"), True),
            value_schemas=_bool(get("value.converter.schemas.enable"), True),
            header_schemas=_bool(get("header.converter.schemas.enable"), True),
            delimiter=get("topic.delimiter") or ".",
            replace_null_with_default=_bool(get("value.converter.replace.null.with.default"), True),
            structured=engine.dataplane is not None,  # the data plane takes records in their parts
            schema_name_adjuster=schema_name_adjuster(get("schema.name.adjustment.mode")),
            field_name_adjuster=field_name_adjuster(get("field.name.adjustment.mode")),
        )
        self.filters = Filters(config, SYSTEM_DATABASES)
        self.db_include = self.filters.ns_include
        self.db_exclude = self.filters.ns_exclude
        self.include_schema_changes = _bool(get("include.schema.changes"), True)
        self.include_query = _bool(get("include.query"))
        self.skip_unparseable = _bool(get("schema.history.internal.skip.unparseable.ddl"))
        self.store_only_captured_dbs = _bool(get("schema.history.internal.store.only.captured.databases.ddl"))
        self.inconsistent_mode = (get("inconsistent.schema.handling.mode") or "fail").lower()
        typed = settings_for(config)
        # the binlog connectors filter skipped operations where events are read (supportsOperationFiltering)
        self.dispatcher = Dispatcher.for_connector(engine, self.settings, typed, never_skip=True)
        self.tx = self.dispatcher.tx
        self.heartbeat_query = typed.heartbeat.action_query
        self.server_id = int(get("database.server.id") or 0)
        self.schema_key_frame = Framed(self.settings.key_codec, self.flavor.schema_change_key)
        self.schema_value_frame = Framed(self.settings.value_codec, self.flavor.schema_change_value)
        self.history = SchemaHistory(get("schema.history.internal.file.filename"), self.prefix)
        self.catalog = Catalog()
        self.parser = DdlParser(
            self.catalog,
            keep_comments=_bool(get("include.schema.comments")),
            mysql_grammar=not self.flavor.mariadb,
        )
        self._pending_schema_change: tuple | None = None
        self.gtid_includes = (
            config.regex_list("gtid.source.includes") if hasattr(config, "regex_list") else []
        )
        self.gtid_excludes = (
            config.regex_list("gtid.source.excludes") if hasattr(config, "regex_list") else []
        )
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
        self.last_ts_ms = 0
        self.event_server_id = 0
        self.thread: int | None = None
        self.query: str | None = None
        self.last_row = 0
        self.snapshot_done = False
        self.streaming = False
        self.notifier = Notifier(typed.notifications, self.settings, engine)
        settings = settings_for(config)
        self.incremental = IncrementalSnapshot(
            self, engine, incremental=settings.incremental, signal_table=settings.signals.data_collection,
            filters=SqlFilters("mysql"), retriable=self.is_retriable, notifier=self.notifier)
        self.signals = SignalProcessor(self, settings, engine, self.incremental)
        self.dispatcher.attach(self.incremental, self.signals, self.signal_table)
        self._in_ro_snapshot = False  # a read.only chunk's consistent-snapshot transaction is open
        self.table_ids: dict[int, _TableEntry] = {}
        self.tm_cache: dict[bytes, _TableEntry] = {}
        self._ts = self._sid = self._start = self._next = 0
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
        engine.source = self

    # -- engine protocol ------------------------------------------------------------------------------
    def offset(self) -> dict[str, Any] | None:
        if not self.file:
            return None
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
        if self.gtids is not None:
            off["gtids"] = str(self.gtids)
        if self.event_server_id:
            off["server_id"] = self.event_server_id
        off["ts_sec"] = self.last_ts_ms // 1000
        if not self.snapshot_done:
            off["snapshot"] = True
        else:
            off["snapshot_completed"] = True
        inc = self.incremental.offset()
        if inc:
            off.update(inc)
        return off

    def committed(self, offset: dict[str, Any]) -> None:
        return None

    # -- connections ------------------------------------------------------------------------------------
    def _conn_settings(self) -> dict[str, Any]:
        get = self.cfg.get
        return {
            "host": get("database.hostname") or "localhost",
            "port": int(get("database.port") or 3306),
            "user": get("database.user"),
            # PyMySQL would send a str password as Latin-1; the server (and Debezium's JDBC driver) use UTF-8
            "password": (get("database.password") or "").encode("utf-8"),
            "connect_timeout": max(1, int(get("connect.timeout.ms") or 30000) // 1000),
        }

    def _connect(self) -> pymysql.Connection:
        try:
            conn = pymysql.connect(
                **self._conn_settings(), charset="utf8mb4", autocommit=True, conv=_TEXT_RESULTS
            )
        except pymysql.err.OperationalError as e:
            raise ConnectionError(
                f"cannot connect to {self.cfg.get('database.hostname')}:{self.cfg.get('database.port')}: {e}"
            ) from e
        with conn.cursor() as cur:
            cur.execute("SET SESSION time_zone = '+00:00'")
            for stmt in initial_statements(self.cfg.get("database.initial.statements")):
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
        for c in t.columns:
            m = map_column(c, self.type_cfg)
            d = default_value(c, m)
            schema = m.schema.with_(optional=c.optional or m.always_optional, default=d)
            cols.append(
                ColumnDef(c.name, schema, m.convert, c.type_name, None, c.length, c.scale, m.snapshot_convert)
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
                (field, None if conv is _identity else conv, base.get(c.name) in textrows.BINARY_TYPES)
            )
        return textrows.compile_text_row_parser(cols)

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

    def connect(self) -> None:
        self.conn = self._connect()
        self._check_server()
        self.catalog.server_charset = self._var("character_set_server") or "utf8mb4"

    def offset_state(self, stored: dict | None) -> tuple[bool, bool]:
        return stored is not None, stored is not None and bool(stored.get("snapshot"))

    def position_available(self, stored: dict) -> bool:
        files = {r[0] for r in self._q("SHOW BINARY LOGS")}
        return stored.get("file") in files

    def lost_position_message(self, stored: dict) -> str:
        return (f"The connector is trying to read binlog starting at {stored.get('file')}:{stored.get('pos')} "
                f"(GTIDs {stored.get('gtids')}), but this is no longer available on the server. Reconfigure "
                "the connector to use a snapshot when needed (snapshot.mode=when_needed).")

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
        self.snapshot_done = True
        if self.skip_events or self.skip_rows:
            # resume at the start of the interrupted transaction, skipping what was emitted
            self.tx_file, self.tx_pos = self.file, self.next_pos

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
                        f"SHOW FULL TABLES IN {_qi(db)} WHERE Table_type = 'BASE TABLE'", conn=snap
                    )
                )
                create_db = self._q(f"SHOW CREATE DATABASE {_qi(db)}", conn=snap)[0][1]
                tables = [
                    (n, self._q(f"SHOW CREATE TABLE {_qi(db)}.{_qi(n)}", conn=snap)[0][1]) for n in names
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
            yield session
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
            cs, coll = _db_charset(create_db, server_cs)
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
                        raise DdlError(f"{e}; set schema.history.internal.skip.unparseable.ddl=true to skip it") from None
                    log.warning("skipping unparseable DDL %r", ddl)
                    changes = []
            else:
                changes = (
                    self.parser.apply(ddl, db or None)
                    if ddl.startswith(("CREATE DATABASE", "DROP DATABASE"))
                    else []
                )
            tcs = [_table_change(c) for c in changes if c.kind in ("CREATE", "ALTER", "DROP")]
            ts_us = time.time_ns() // 1000
            self.history.append(
                position,
                ts_us // 1000,
                db,
                ddl,
                [_history_change(c) for c in changes if c.kind in ("CREATE", "ALTER", "DROP")],
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
        tables = include_list_order(tables, self.cfg.get("table.include.list"), lambda ct: ct.data_collection)
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
            cols = ", ".join(_qi(c.name) for c in t.columns)
            sql = f"SELECT {cols} FROM {_qi(t.namespace)}.{_qi(t.name)}"
            if t.id in overrides:
                stmt = statements.get(t.id)
                if stmt:
                    sql = f"SELECT {', '.join('q.' + _qi(c.name) for c in t.columns)} FROM ({stmt}) AS q"
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

        return SnapshotSession(tables, rows_of, emit_row, lambda ct: ct.data_collection,
                               captured=self.captured_table_ids(), estimates=counts)

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

    # -- streaming -----------------------------------------------------------------------------------------
    def _reader(self) -> bl.BinlogReader:
        settings = dict(self._conn_settings())
        settings["read_timeout"] = 60
        kw: dict[str, Any] = {
            "blocking": True,
            "slave_heartbeat": 0.1,
            "enable_logging": False,
            "report_slave": None,
        }
        gset = self.gtids.filtered(self.gtid_includes, self.gtid_excludes) if self.gtids is not None else None
        if gset is not None and self.mariadb_server:
            # MariaDB: by GTID state (the completed transactions), also to resume inside a transaction: the
            # server starts at its GTID event and the events already emitted are skipped
            kw.update(
                is_mariadb=True,
                auto_position=str(gset),
                annotate_rows_event=self.include_query and self.flavor.mariadb,
            )
        elif gset is not None and str(gset) and not (self.skip_events or self.skip_rows or self.tx_file):
            kw.update(auto_position=str(gset))  # MySQL: COM_BINLOG_DUMP_GTID
        else:
            kw.update(
                log_file=self.tx_file or self.file, log_pos=self.tx_pos or self.next_pos, resume_stream=True
            )
        return bl.BinlogReader(settings, self.server_id, mariadb_server=self.mariadb_server, **kw)

    def _stream(self) -> None:
        self.reader = self._reader()
        self.reader.connect()
        self.streaming = True
        self.metrics.connected = True
        log.info(
            "streaming from %s:%s (gtids %s)",
            self.tx_file or self.file,
            self.tx_pos or self.next_pos,
            self.gtids,
        )
        engine = self.engine
        read = self.reader.read
        handle = self.handle_event
        checksum = 4 if self.reader.checksum else 0
        hb_next = time.monotonic()
        busy = 0
        while not engine.stopping:
            etype, data, ev = read()
            if etype == bl.HEARTBEAT:
                engine.idle()
                now = time.monotonic()
                if self.heartbeat_query and engine.heartbeat and now >= hb_next:
                    hb_next = now + engine.heartbeat.interval_s
                    self._run_heartbeat_query()
                self.signals.poll()
                continue
            handle(etype, data, ev, checksum)
            engine.tick()
            busy += 1
            if busy >= 512:  # signals, resumed snapshots and deferred work also progress under load
                busy = 0
                self.signals.poll()

    def handle_event(self, etype: int, data: bytes, ev: Any, checksum: int) -> None:
        """One binlog event: `data` is the packet (OK byte, 19-byte header, body, checksum), `ev` the
        library's event object for events other than table maps and rows."""
        ts, _t, sid, size, next_pos = bl._HEADER.unpack_from(data, 1)
        self._ts = ts
        self._sid = sid
        self._start = next_pos - size if next_pos else 0
        self._next = next_pos
        if etype in bl.ROW_EVENTS:
            self._on_rows(etype, data[20 : len(data) - checksum])
        else:
            h = self._handlers.get(etype)
            if h is not None:
                h(data, ev, checksum)
        if ts:
            self.last_ts_ms = ts * 1000

    def _run_heartbeat_query(self) -> None:
        try:
            self._q(self.heartbeat_query)
        except pymysql.err.MySQLError as e:
            log.warning("heartbeat.action.query failed: %s", e)

    # event handlers ------------------------------------------------------------------------------------
    def _on_rotate(self, data: bytes, ev, checksum: int) -> None:
        if ev is None:
            return
        if self._ts:  # a real rotation (not the stream's first, fake one): table ids restart
            self.table_ids.clear()
        elif ev.next_binlog == self.file and ev.position <= 4:
            return  # GTID positioning: the fake rotation names the file, not the position we resume at
        self.file = ev.next_binlog
        self.next_pos = ev.position

    def _begin_position(self) -> None:
        """A transaction (or standalone DDL) starts here: the restart position until it completes."""
        self.in_tx = True
        self.tx_file, self.tx_pos = self.file, self._start
        self.events_done = 0
        self.rows_done = 0
        if self.skip_gtid is not None and self.pos_gtid != self.skip_gtid:
            self.skip_events = self.skip_rows = 0
            self.skip_gtid = None

    def _begin(self, tx_id: str) -> None:
        if not self.in_tx:
            self._begin_position()
        # BEGIN is written when the transaction starts, captured changes or not
        self.dispatcher.begin(tx_id, self.last_ts_ms, eager=True)

    def _complete(self) -> None:
        if self.pos_gtid is not None and self.gtids is not None:
            self.gtids.add(self.pos_gtid)
        self.in_tx = False
        self.tx_file = self.tx_pos = None
        self.next_pos = self._next
        self.events_done = self.rows_done = 0
        self.skip_events = self.skip_rows = 0
        self.skip_gtid = None
        self.thread = None
        self.pos_gtid = None
        self.commit_ts_us = 0
        if not self.flavor.mariadb:
            self.gtid = None
        inc = self.incremental
        if inc.read_only and inc.window_mark is not None:
            inc.on_commit()

    def _on_mariadb_gtid(self, data: bytes, ev, checksum: int) -> None:
        if ev is None:
            return
        if self.in_tx:  # the previous group ended without COMMIT/XID (e.g. a rolled-back statement)
            self._complete()
        self.tx_standalone = bool(ev.flags & 1)
        self.event_server_id = self._sid
        self.pos_gtid = ev.gtid
        self._begin_position()
        if self.flavor.mariadb:
            self.gtid = ev.gtid
            self._begin(ev.gtid)
        else:
            self.gtid = None  # the MySQL connector does not read MariaDB GTID events: no transaction, no gtid

    def _on_mysql_gtid(self, data: bytes, ev, checksum: int) -> None:
        if ev is None:
            return
        self.event_server_id = self._sid
        self.gtid = self.pos_gtid = ev.gtid
        self.tx_standalone = True  # until a BEGIN follows (a DDL follows its GTID directly)
        self._begin_position()
        self.commit_ts_us = mysql_original_commit_us(data)

    def _on_annotate(self, data: bytes, ev, checksum: int) -> None:
        if ev is not None and self.include_query:
            q = ev.sql_statement
            self.query = q.decode("utf-8", "replace") if isinstance(q, bytes) else q

    def _on_rows_query(self, data: bytes, ev, checksum: int) -> None:
        if ev is not None and self.include_query:
            q = ev.query
            self.query = q.decode("utf-8", "replace") if isinstance(q, bytes) else q

    def _on_xid(self, data: bytes, ev, checksum: int) -> None:
        if self.in_tx:
            self.dispatcher.commit(self.tx.begin_id or "", self._ts * 1000)
        self.metrics.committed(self.commit_ts_us // 1000 or self._ts * 1000, self.gtid or self.tx.begin_id)
        self._complete()
        self.query = None

    def _on_query(self, data: bytes, ev, checksum: int) -> None:
        if ev is None:
            return
        sql = ev.query.strip()
        upper = sql[:16].upper()
        db = ev.schema.decode("utf-8", "replace") if isinstance(ev.schema, bytes) else (ev.schema or "")
        self.event_server_id = self._sid
        if upper == "BEGIN" or upper.startswith("XA START"):
            if self.flavor.mariadb:
                if not self.in_tx:  # no GTID event before it (a server without GTIDs)
                    self._begin(f"file={self.file},pos={self._start}")
                return
            if self.mariadb_server:
                return
            self.tx_standalone = False
            self.thread = ev.slave_proxy_id
            self._begin(self.gtid or f"file={self.file},pos={self._start}")
            return
        if upper in ("COMMIT", "ROLLBACK") or upper.startswith("XA "):
            if self.in_tx and upper == "COMMIT":
                self.dispatcher.commit(self.tx.begin_id or "", self._ts * 1000)
                self.metrics.committed(self.commit_ts_us // 1000 or self._ts * 1000, self.gtid)
            self._complete()
            return
        if _DML.match(sql):
            log.warning("statement-based binlog event ignored (binlog_format must be ROW): %.200s", sql)
            return
        try:
            changes = self.parser.apply(sql, db or None)
        except DdlError as e:
            if not self.skip_unparseable:
                raise DdlError(
                    f"{e} at {self.file}:{self._start}; set "
                    "schema.history.internal.skip.unparseable.ddl=true to skip it"
                ) from None
            log.warning("skipping unparseable DDL at %s:%s: %r", self.file, self._start, sql)
            changes = []
        self._apply_changes(changes, db)
        if self.in_tx and self.tx_standalone:
            self._complete()
        elif not self.in_tx:
            self.next_pos = self._next

    def _apply_changes(self, changes: list[Change], db: str) -> None:
        ts_ms = self.commit_ts_us // 1000 if self.commit_ts_us else self._ts * 1000
        position = {"file": self.file, "pos": self._start, "server_id": self._sid, "ts_sec": self._ts}
        if self.gtids is not None:
            position["gtids"] = str(self.gtids)
        if self.gtid:
            position["gtid"] = self.gtid
        # one statement naming several tables (DROP TABLE a, b / RENAME TABLE a TO b, c TO d): each of its
        # events carries all of them in source.table, in Debezium's (HashSet) order
        names = [ch.table_name for ch in changes if ch.kind in ("CREATE", "ALTER", "DROP") and ch.table_name]
        joined = (
            _java_hashset_join([(ch.db, ch.table_name) for ch in changes if ch.table_name])
            if len(names) > 1
            else None
        )
        for ch in changes:
            if ch.kind == "TRUNCATE":
                self._truncate(ch)
                continue
            if ch.table_name:
                self._invalidate(ch.db, ch.table_name)
                if ch.kind == "ALTER":
                    self.incremental.on_schema_change(f"{ch.db}.{ch.table_name}")
            if ch.previous:
                self._invalidate(*ch.previous)
            if ch.kind == "DATABASE" and ch.ddl.upper().startswith("DROP"):
                self.by_id = {k: v for k, v in self.by_id.items() if not k.startswith(ch.db + ".")}
                self.schema_epoch += 1
            # store.only.captured.databases.ddl: Debezium skips (history and topic) the statements of
            # databases it does not capture; by default it keeps them all
            if self.store_only_captured_dbs and not self._schema_change_db_ok(ch.db):
                continue
            tcs = [_table_change(ch)] if ch.kind in ("CREATE", "ALTER", "DROP") else []
            self.history.append(position, ts_ms, ch.db, ch.ddl, [_history_change(ch)] if tcs else [])
            if self.include_schema_changes:
                table = joined or (
                    "" if ch.kind == "OTHER" else ch.table_name if ch.kind != "DATABASE" else None
                )
                src = source_block(
                    self.prefix,
                    self.flavor.name,
                    ts_ms * 1000,
                    "false",
                    ch.db,
                    table,
                    self._sid,
                    self.gtid,
                    self.file,
                    self._start,
                    self.last_row,
                )
                self._emit_schema_change(ch.db, ch.ddl, tcs, src, ts_ms)

    def _truncate(self, ch: Change) -> None:
        ct = self._captured(ch.db, ch.table_name or "")
        if ct is None or not self.dispatcher.admit("t", True):
            return
        self.dispatcher.truncate(ct.env, ct.data_collection, self._src(ct, 0), self._tx_id())

    def _tx_id(self) -> str | None:
        """The transaction block's id, or None when no block is due (metadata off, no transaction)."""
        tx = self.tx
        return tx.begin_id if tx.enabled and self.in_tx else None

    def _on_table_map(self, data: bytes, ev, checksum: int) -> None:
        key = data[26 : len(data) - checksum]
        entry = self.tm_cache.get(key)
        if entry is None:
            entry = _TableEntry(bl.parse_table_map(data[20 : len(data) - checksum]))
            if len(self.tm_cache) > 10000:
                self.tm_cache.clear()
            self.tm_cache[key] = entry
        self.table_ids[int.from_bytes(data[20:26], "little")] = entry

    def _src(self, ct: CapturedTable, row: int) -> dict:
        t = ct.env.table
        return source_block(
            self.prefix,
            self.flavor.name,
            self.commit_ts_us or self._ts * 1_000_000,
            "false",
            t.namespace,
            t.name,
            self._sid,
            self.gtid,
            self.file,
            self._start,
            row,
            self.thread,
            self.query,
        )

    def _decoder(self, ct: CapturedTable, tm: bl.TableMap):
        dec = ct.decoders.get(tm.key)
        if dec is None:
            n = len(tm.types)
            if n != ct.ncols:
                msg = (
                    f"binlog row of {ct.data_collection} at {self.file}:{self._start} has {n} columns, the "
                    f"schema has {ct.ncols}: the schema history does not match the binlog"
                )
                if self.inconsistent_mode == "fail":
                    raise RuntimeError(msg + " (inconsistent.schema.handling.mode=fail)")
                log.warning("%s; skipped", msg)
                return None
            cols = ct.env.table.columns
            # outputs keyed by the field names as printed (field.name.adjustment.mode)
            by_name = {c.name: (c, field) for c, field in zip(cols, ct.env.names)}
            outputs: list[Any] = []
            keep = ct.keep
            kept = set(keep) if keep is not None else None
            for i, c in enumerate(ct.table.columns):
                if kept is not None and i not in kept:
                    outputs.append(None)
                    continue
                cd, field = by_name[c.name]
                outputs.append((field, None if cd.convert is _identity else cd.convert))
            dec = bl.compile_row_decoder(tm, outputs)
            ct.decoders[tm.key] = dec
        return dec

    def _resolve(self, entry: _TableEntry) -> None:
        """(Re)bind a table map to its captured table and row decoder for the current schema."""
        entry.epoch = self.schema_epoch
        entry.ct = entry.dec = None
        tm = entry.tm
        ct = self._captured(tm.schema, tm.table)
        if ct is None:
            if (
                (tm.schema, tm.table) not in self.catalog.tables
                and self._db_included(tm.schema)
                and self.filters.table_included(tm.schema, tm.table)
            ):
                msg = f"no schema for table {tm.schema}.{tm.table} at {self.file}:{self._start}"
                if self.inconsistent_mode == "fail":
                    raise RuntimeError(msg + " (inconsistent.schema.handling.mode=fail)")
                log.warning("%s; its events are skipped", msg)
            return
        entry.ct = ct
        entry.dec = self._decoder(ct, tm)

    def _on_rows(self, etype: int, body: bytes) -> None:
        table_id, p, n, full = bl.rows_body_start(body, etype)
        entry = self.table_ids.get(table_id)
        events_done = self.events_done
        self.events_done = events_done + 1
        skip_rows = 0
        if self.skip_events or self.skip_rows:
            if events_done < self.skip_events:
                return
            if events_done == self.skip_events:
                skip_rows = self.skip_rows
        if entry is None:
            return
        if entry.epoch != self.schema_epoch:
            self._resolve(entry)
        dec = entry.dec
        if dec is None:  # a table not captured: one filtered event per rows event, as Debezium's binlog
            self.dispatcher.admit("c" if etype in bl.WRITES else "u" if etype in bl.UPDATES else "d", False)
            return
        ct = entry.ct
        if not full:
            log.warning(
                "rows event of %s at %s:%s without every column (binlog_row_image must be FULL); skipped",
                ct.data_collection,
                self.file,
                self._start,
            )
            return
        env = ct.env
        end = len(body)
        t = env.table
        tid = ct.data_collection
        ts_us = self.commit_ts_us or self._ts * 1_000_000
        base = {
            "version": DEBEZIUM_VERSION,
            "connector": self.flavor.name,
            "name": self.prefix,
            "ts_ms": ts_us // 1000,
            "snapshot": "false",
            "db": t.namespace,
            "sequence": None,
            "ts_us": ts_us,
            "ts_ns": ts_us * 1000,
            "table": t.name,
            "server_id": self._sid,
            "gtid": self.gtid,
            "file": self.file,
            "pos": self._start,
            "row": 0,
            "thread": self.thread,
            "query": self.query,
        }
        tx_id = self._tx_id()
        change = ct.gate
        if change is None:
            change = ct.gate = self.dispatcher.table(env, tid)
        fill = env.null_fill
        row = 0
        if etype in bl.WRITES:
            op = "c"
        elif etype in bl.UPDATES:
            op = "u"
        else:
            op = "d"
        if not self.dispatcher.admit(op, True):  # skipped.operations: the whole event, as Debezium's binlog
            p = end
        # the offsets read rows_done only at a commit inside the event, which only a signal row causes
        track = tid == self.signal_table
        while p < end:
            if op == "c":
                before = None
                after, p = dec(body, p)
            elif op == "u":
                before, p = dec(body, p)
                after, p = dec(body, p)
            else:
                after = None
                before, p = dec(body, p)
            if row < skip_rows:
                row += 1
                self.rows_done = row
                continue
            if fill:
                if before is not None:
                    env.fill_nulls(before)
                if after is not None:
                    env.fill_nulls(after)
            if row:
                src = base.copy()
                src["row"] = row
            else:
                src = base
            row += 1
            if track:
                self.last_row = row - 1
                self.rows_done = row
            change(op, before, after, src, tx_id)
        if row > skip_rows:
            self.last_row = row - 1
        if self.in_tx:
            self.rows_done = 0
        else:
            self.rows_done = row
            self.next_pos = self._next
            self.query = None

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
            f"INSERT INTO {_qi(db)}.{_qi(table)} VALUES (%s, %s, %s)",
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
            f"DELETE FROM {_qi(db)}.{_qi(table)} WHERE {_qi(self._signal_id_column())} = %s",
            (row_id,),
            conn=self._wm_conn,
        )

    def _signal_id_column(self) -> str:
        db, _, table = (self.signal_table or "").partition(".")
        t = self.catalog.get(db, table)
        return t.columns[0].name if t is not None and t.columns else "id"

    def keep_alive(self) -> None:
        return None  # the binlog connection needs nothing while a synchronous loop runs

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

            def rows_of(ct: CapturedTable):
                t = ct.env.table
                stmt = filters.get(t.id)
                if stmt:  # the checked SELECT, values escaped by the driver
                    sql = (
                        f"SELECT {', '.join('q.' + _qi(c.name) for c in t.columns)} "
                        f"FROM ({stmt.render(snap.escape)}) AS q"
                    )
                else:
                    sql = (
                        f"SELECT {', '.join(_qi(c.name) for c in t.columns)} FROM {_qi(t.namespace)}."
                        f"{_qi(t.name)}"
                    )
                n = 0
                for row in textrows.stream_rows(snap, sql, self._text_parser(ct)):
                    n += 1
                    yield row
                log.info("blocking snapshot of %s: %d rows", t.id, n)

            emit_row = self._snapshot_emitter(sid, gtid, file, pos)
            yield SnapshotSession(cts, rows_of, emit_row, lambda ct: ct.data_collection)
            self._q("COMMIT", conn=snap)
        finally:
            snap.close()

    def read_source(self, ct: CapturedTable) -> dict:
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

    # -- lifecycle ---------------------------------------------------------------------------------------------
    def close(self) -> None:
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


def mysql_original_commit_us(data: bytes) -> int:
    """The original_commit_timestamp of a MySQL (>= 8.0.1) GTID event, truncated to milliseconds, in µs;
    0 when the event has none. Body: flags(1) sid(16) gno(8) lt_type(1) last_committed(8) sequence(8)
    immediate_commit_timestamp(7, top bit: original follows) [original_commit_timestamp(7)]."""
    body = data[20:]
    if len(body) < 49 or body[25] != 2:
        return 0
    immediate = int.from_bytes(body[42:49], "little")
    original = immediate
    if immediate >> 55 and len(body) >= 56:
        immediate &= (1 << 55) - 1
        original = int.from_bytes(body[49:56], "little")
    return original // 1000 * 1000


def _qi(name: str) -> str:
    return "`" + name.replace("`", "``") + "`"


def _db_charset(create_db: str, server_cs: tuple) -> tuple[str, str]:
    cs = re.search(r"(?i)CHARACTER SET (\w+)", create_db)
    coll = re.search(r"(?i)COLLATE (\w+)", create_db)
    charset = cs.group(1) if cs else server_cs[0]
    collation = (
        coll.group(1) if coll else (server_cs[1] if charset == server_cs[0] else f"{charset}_general_ci")
    )
    return charset, collation


def _table_change(ch: Change) -> dict:
    if ch.kind == "DROP" or ch.table is None:
        return {"type": ch.kind, "id": f'"{ch.db}"."{ch.table_name}"', "table": None}
    return {"type": ch.kind, "id": ch.table.quoted_id, "table": ch.table.change_payload()}


def _java_string_hash(s: str) -> int:
    h = 0
    for unit in s.encode("utf-16-be").hex(" ", 2).split():  # UTF-16 code units, like Java's String.hashCode
        h = (31 * h + int(unit, 16)) & 0xFFFFFFFF
    return h


def _java_hashset_join(tables: list[tuple[str, str]]) -> str:
    """Table names joined with "," in the iteration order of a java.util.HashSet of Debezium TableIds
    (hash of "db.table"): by bucket of the final capacity, then insertion order within a bucket."""
    ids: list[tuple[str, str]] = []
    for t in tables:
        if t not in ids:
            ids.append(t)
    cap = 16
    while len(ids) > cap * 3 // 4:
        cap *= 2

    def bucket(t: tuple[str, str]) -> int:
        h = _java_string_hash(f"{t[0]}.{t[1]}")
        return (h ^ (h >> 16)) & (cap - 1)

    order = sorted(range(len(ids)), key=lambda i: (bucket(ids[i]), i))
    return ",".join(ids[i][1] for i in order)


def _history_change(ch: Change) -> dict:
    d: dict[str, Any] = {
        "type": ch.kind,
        "id": ch.table.quoted_id if ch.table else f'"{ch.db}"."{ch.table_name}"',
    }
    if ch.previous:
        d["previousId"] = f'"{ch.previous[0]}"."{ch.previous[1]}"'
    if ch.table is not None and ch.kind != "DROP":
        d["table"] = ch.table.to_json()
    return d
