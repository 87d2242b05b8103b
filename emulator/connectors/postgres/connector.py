"""io.debezium.connector.postgresql.PostgresConnector: snapshot + pgoutput streaming.

This module only reads PostgreSQL: it turns snapshot rows and pgoutput messages into the neutral model
(TableDef + raw rows) and hands them to the shared envelope, transaction, heartbeat and incremental
snapshot code.
"""

from __future__ import annotations

import base64
import logging
import random
import time
from contextlib import contextmanager
from typing import Any

import psycopg
from psycopg import sql

from emulator.connect.json import Framed
from emulator.connect.schema import BYTES, STRING, Schema
from emulator.connectors.common import initial_statements
from emulator.connectors.postgres import pgoutput as po
from emulator.connectors.postgres.catalog import load_relation_table, load_table, load_tables, registry_for
from emulator.connectors.postgres.replication import ReplicationError, ReplicationStream
from emulator.connectors.postgres.source import (
    MESSAGE_KEY_SCHEMA,
    SOURCE_SCHEMA,
    SourceBuilder,
    message_value_schema,
    sequence,
)
from emulator.connectors.postgres.types import TypeConfig
from emulator.engine import Engine
from emulator.envelope import EnvelopeSettings, TableEnvelope
from emulator.filters import Filters, include_list_order
from emulator.incremental.chunks import PostgresChunks
from emulator.incremental.conditions import Predicate, SqlFilters, sql_literal_pg
from emulator.incremental.machine import IncrementalSnapshot
from emulator.model import TableDef
from emulator.naming import field_name_adjuster, schema_name_adjuster
from emulator.notifications import Notifier
from emulator.pipeline.coordinator import SnapshotSession, blocking_snapshot
from emulator.pipeline.dispatcher import Dispatcher
from emulator.records import Record
from emulator.settings import settings_for
from emulator.signals.processor import SignalProcessor

log = logging.getLogger("emulator.postgres")

SYSTEM_SCHEMAS = ("pg_catalog", "information_schema", "pg_toast")
SNAPSHOT_MODES = ("initial", "always", "initial_only", "no_data", "never", "when_needed")
UNCHANGED = po.UNCHANGED_TOAST

_FALLBACK = {"int8": 0, "int16": 0, "int32": 0, "int64": 0, "float": 0.0, "double": 0.0,
             "boolean": False, "string": "", "bytes": ""}


# the zero value Debezium's converters fall back to, as PostgreSQL text, for types whose fallback is not
# the Connect type's zero (decimals as 0, zoned times at the epoch, hstore "{}", interval "P0Y...")
_ZERO_TEXT = {
    "numeric": "0", "money": "$0.00", "interval": "00:00:00", "timestamptz": "1970-01-01 00:00:00+00",
    "timetz": "00:00:00+00", "hstore": "", "date": "1970-01-01", "time": "00:00:00",
    "timestamp": "1970-01-01 00:00:00", "point": "(0,0)",
}


def _fallback(col) -> Any:
    """What a column missing from an old-key tuple shows in `before`: NULL when optional, else the
    schema default, else the value Debezium's converter falls back to for NULL."""
    schema = col.schema
    if schema.optional:
        return None
    if schema.default is not None:
        return schema.default
    if schema.type == "array":
        return []
    zero = _ZERO_TEXT.get(col.type_name)
    if zero is not None:
        try:
            return col.convert(zero)
        except Exception:  # noqa: BLE001 - a converter that cannot read the zero: the type's zero
            pass
    if schema.type == "map":
        return {}
    return _FALLBACK.get(schema.type)


class CapturedTable:
    """A table as the stream sees it: its envelope plus how to map pgoutput tuples onto it."""

    __slots__ = ("env", "keep", "relation_names", "key_set", "fallbacks", "data_collection", "gate")

    def __init__(self, env: TableEnvelope, keep: list[int] | None) -> None:
        self.env = env
        self.keep = keep
        self.key_set = frozenset(env.key_idx)
        self.fallbacks = [_fallback(c) for c in env.table.columns]
        self.data_collection = env.table.id
        self.gate: Any = None  # the dispatcher's change function for this table, made on first use

    def raw(self, values: list) -> list:
        keep = self.keep
        return values if keep is None else [values[i] for i in keep]


class PostgresConnector:
    def __init__(self, config, engine: Engine) -> None:
        self.cfg = config
        get = config.get
        self.engine = engine
        self.metrics = engine.metrics.streaming  # integer counters only (emulator.metrics)
        self.prefix = get("topic.prefix")
        self.dbname = get("database.dbname")
        self.slot_name = get("slot.name") or "debezium"
        self.publication = get("publication.name") or "dbz_publication"
        self.snapshot_mode = (get("snapshot.mode") or "initial").lower()
        self.type_cfg = TypeConfig(
            decimal_handling_mode=(get("decimal.handling.mode") or "precise").lower(),
            time_precision_mode=(get("time.precision.mode") or "adaptive").lower(),
            binary_handling_mode=(get("binary.handling.mode") or "bytes").lower(),
            interval_handling_mode=(get("interval.handling.mode") or "numeric").lower(),
            hstore_handling_mode=(get("hstore.handling.mode") or "json").lower(),
            money_fraction_digits=int(get("money.fraction.digits") or 2),
            unavailable_value_placeholder=get("unavailable.value.placeholder")
            or "__debezium_unavailable_value",
            include_unknown_datatypes=_bool(get("include.unknown.datatypes")),
        )
        self.settings = EnvelopeSettings(
            prefix=self.prefix, connector_name="postgresql", source_schema=SOURCE_SCHEMA,
            key_schemas=_bool(get("key.converter.schemas.enable"), True),
            value_schemas=_bool(get("value.converter.schemas.enable"), True),
            header_schemas=_bool(get("header.converter.schemas.enable"), True),
            delimiter=get("topic.delimiter") or ".",
            replace_null_with_default=_bool(get("value.converter.replace.null.with.default"), True),
            structured=engine.dataplane is not None,  # the data plane takes records in their parts
            schema_name_adjuster=schema_name_adjuster(get("schema.name.adjustment.mode")),
            field_name_adjuster=field_name_adjuster(get("field.name.adjustment.mode")),
        )
        self.filters = Filters(config, SYSTEM_SCHEMAS)
        self.skipped = self.filters.skipped_ops
        self.source = SourceBuilder(self.prefix, self.dbname)
        typed = settings_for(config)
        self.dispatcher = Dispatcher.for_connector(engine, self.settings, typed, never_skip=False, eager_begin=True)
        self.tx = self.dispatcher.tx
        self.heartbeat_query = typed.heartbeat.action_query
        self.status_interval_s = int(get("status.update.interval.ms") or 10000) / 1000.0
        self.flush_lsn = _bool(get("flush.lsn.source"), True)
        self.drop_slot_on_stop = _bool(get("slot.drop.on.stop"), False)
        self.message_topic = self.settings.topic("message")
        binary_mode = self.type_cfg.binary_handling_mode
        self._msg_content = _binary_encoder(binary_mode)
        content_schema = Schema(BYTES if binary_mode == "bytes" else STRING, optional=True)
        self.msg_key_frame = Framed(self.settings.key_codec, MESSAGE_KEY_SCHEMA)
        self.msg_value_frame = Framed(self.settings.value_codec, message_value_schema(content_schema))

        self.conninfo = _conninfo(config)
        self.conn: psycopg.Connection | None = None
        self.stream: ReplicationStream | None = None
        self.slot: dict | None = None  # the replication slot's state at connect (None: there is none)
        self._exported: str | None = None  # the new slot's exported snapshot, for the initial snapshot
        self._start_lsn: int | None = None  # where streaming starts (slot, snapshot or stored offsets)
        self.by_oid: dict[int, CapturedTable | None] = {}
        self.by_id: dict[str, CapturedTable] = {}
        # position
        self.lsn_commit: int | None = None  # end LSN of the last fully processed transaction
        self.lsn_proc: int | None = None  # LSN of the last processed change
        self.proc_op: str | None = None  # what was processed at lsn_proc (B/C, c/u/d/t/m): the messageType
        self.lsn_events = 0  # changes processed at lsn_proc: a multi-insert (COPY) decodes to many at one LSN
        self.last_commit_lsn: int | None = None  # for source.sequence: null until the first commit
        self.xid: int | None = None
        self.ts_us = 0
        self.streaming = False
        # [xid, lsn, n] from a restart: changes of that transaction before lsn, and n at lsn, were emitted
        self.skip_until: list[int] | None = None
        self.in_tx = False
        self.confirmed_lsn = 0
        self.signal_table = self.filters.signal_table
        self._wm_conn: psycopg.Connection | None = None
        self._ro_xids: set[int] = set()  # read.only: transactions streamed since the last chunk read
        self._wal_geometry: tuple[int, int] | None = None
        self.notifier = Notifier(typed.notifications, self.settings, engine)
        settings = settings_for(config)
        self.incremental = IncrementalSnapshot(
            self, engine, incremental=settings.incremental, signal_table=settings.signals.data_collection,
            filters=SqlFilters("postgres"), retriable=self.is_retriable, notifier=self.notifier)
        self.signals = SignalProcessor(self, settings, engine, self.incremental)
        self.dispatcher.attach(self.incremental, self.signals, self.signal_table)
        engine.source = self

    # -- engine protocol ---------------------------------------------------------------------------------
    def offset(self) -> dict[str, Any] | None:
        if self.lsn_commit is None and self.lsn_proc is None:
            return None
        off: dict[str, Any] = {"lsn": self.lsn_commit, "lsn_commit": self.lsn_commit,
                               "lsn_proc": self.lsn_proc, "ts_usec": self.ts_us}
        if self.in_tx:
            off["txId"] = self.xid
        if self.proc_op is not None:  # none before streaming (a snapshot's offset), as Debezium's
            off["messageType"] = _MESSAGE_TYPE[self.proc_op]
        if self.lsn_events > 1:  # the key later Debezium versions store; absent, one change per LSN
            off["lsn_events_processed"] = self.lsn_events
        inc = self.incremental.offset()
        if inc:
            off.update(inc)
        return off

    def committed(self, offset: dict[str, Any]) -> None:
        lsn = offset.get("lsn_commit")
        if self.streaming and self.flush_lsn and self.stream is not None and lsn:
            self.confirmed_lsn = max(self.confirmed_lsn, lsn)
            self.stream.send_status(self.confirmed_lsn)

    # -- setup ---------------------------------------------------------------------------------------------
    def _connect(self) -> psycopg.Connection:
        conn = psycopg.connect(self.conninfo, autocommit=True)
        for stmt in initial_statements(self.cfg.get("database.initial.statements")):
            conn.execute(stmt)
        return conn

    def _check_server(self) -> None:
        wal_level = self.conn.execute("SHOW wal_level").fetchone()[0]
        if wal_level != "logical":
            raise RuntimeError(f"PostgreSQL wal_level is {wal_level!r}; logical decoding needs wal_level=logical")

    def _ensure_publication(self) -> None:
        mode = (self.cfg.get("publication.autocreate.mode") or "all_tables").lower()
        exists = self.conn.execute("SELECT 1 FROM pg_publication WHERE pubname = %s",
                                   (self.publication,)).fetchone()
        name = sql.Identifier(self.publication)
        if mode == "disabled":
            if not exists:
                raise RuntimeError(f"publication {self.publication!r} does not exist and "
                                   "publication.autocreate.mode=disabled")
            return
        with_ = self._publication_with()
        if mode == "all_tables":
            if not exists:
                self.conn.execute(sql.SQL("CREATE PUBLICATION {} FOR ALL TABLES{}").format(name, with_))
            return
        if mode == "no_tables":
            if not exists:
                self.conn.execute(sql.SQL("CREATE PUBLICATION {}{}").format(name, with_))
            return
        if mode == "filtered":
            tables = self._filtered_tables()
            if not tables:
                raise RuntimeError("publication.autocreate.mode=filtered but no table matches the filters")
            tl = sql.SQL(", ").join(sql.Identifier(s, t) for s, t in tables)
            if exists:
                self.conn.execute(sql.SQL("ALTER PUBLICATION {} SET TABLE {}").format(name, tl))
            else:
                self.conn.execute(sql.SQL("CREATE PUBLICATION {} FOR TABLE {}{}").format(name, tl, with_))
            return
        raise RuntimeError(f"publication.autocreate.mode {mode!r} is not one of all_tables, disabled, "
                           "filtered, no_tables")

    def _publication_with(self) -> sql.Composable:
        """The WITH clause Debezium creates its publication with: publish_via_partition_root (changes of
        partitions published as the root table's), and `publish` without the operations that
        skipped.operations names when it is set explicitly."""
        opts = []
        if _bool(self.cfg.get("publish.via.partition.root")):
            opts.append(sql.SQL("publish_via_partition_root = true"))
        # only when the property is set: Debezium checks the configuration has the key, not its default
        if "skipped.operations" in (getattr(self.cfg, "props", None) or {}) and self.skipped:
            ops = [n for op, n in (("c", "insert"), ("u", "update"), ("d", "delete"), ("t", "truncate"))
                   if op not in self.skipped]
            opts.append(sql.SQL("publish = {}").format(sql.Literal(",".join(ops))))
        return sql.SQL(" WITH ({})").format(sql.SQL(", ").join(opts)) if opts else sql.SQL("")

    def _autoset_replica_identity(self) -> None:
        """replica.identity.autoset.values: `<table regex>:<DEFAULT|FULL|NOTHING|INDEX name>`, comma
        separated; applied with ALTER TABLE at start, as Debezium does."""
        value = self.cfg.get("replica.identity.autoset.values")
        if not value:
            return
        import re

        tables = self._filtered_tables()
        for entry in value.split(","):
            entry = entry.strip()
            if not entry:
                continue
            pattern, sep, identity = entry.rpartition(":")
            ident = identity.strip().upper()
            if not sep or not (ident in ("DEFAULT", "FULL", "NOTHING") or ident.startswith("INDEX ")):
                raise ValueError(f"replica.identity.autoset.values entry {entry!r} is not "
                                 "<table>:<DEFAULT|FULL|NOTHING|INDEX name>")
            rx = re.compile(pattern.strip(), re.IGNORECASE)
            if ident.startswith("INDEX "):
                clause = sql.SQL("USING INDEX {}").format(sql.Identifier(identity.strip()[6:].strip()))
            else:
                clause = sql.SQL(ident)
            for schema, table in tables:
                if rx.fullmatch(f"{schema}.{table}"):
                    self.conn.execute(sql.SQL("ALTER TABLE {} REPLICA IDENTITY {}").format(
                        sql.Identifier(schema, table), clause))
                    log.info("replica identity of %s.%s set to %s", schema, table, ident)

    def _filtered_tables(self) -> list[tuple[str, str]]:
        rows = self.conn.execute(
            "SELECT n.nspname, c.relname FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace "
            "WHERE c.relkind IN ('r','p') AND n.nspname NOT IN ('pg_catalog','information_schema') "
            "AND n.nspname NOT LIKE 'pg_toast%%' AND n.nspname NOT LIKE 'pg_temp%%' ORDER BY 1, 2").fetchall()
        return [(s, t) for s, t in rows if self.filters.table_included(s, t)]

    def _slot_state(self) -> dict | None:
        deadline = time.monotonic() + 15
        while True:
            row = self.conn.execute(
                "SELECT plugin, database, active, confirmed_flush_lsn::text, restart_lsn::text "
                "FROM pg_replication_slots WHERE slot_name = %s", (self.slot_name,)).fetchone()
            # a previous run's connection may take a moment to be reaped after a crash
            if not row or not row[2] or time.monotonic() > deadline:
                break
            time.sleep(0.25)
        if not row:
            return None
        plugin, database, active, confirmed, restart = row
        if plugin != "pgoutput":
            raise RuntimeError(f"replication slot {self.slot_name!r} uses plugin {plugin!r}, not pgoutput")
        if database != self.dbname:
            raise RuntimeError(f"replication slot {self.slot_name!r} belongs to database {database!r}")
        if active:
            raise ReplicationError(f"replication slot {self.slot_name!r} is in use by another connection")
        return {"confirmed": po.lsn_to_int(confirmed) if confirmed else None,
                "restart": po.lsn_to_int(restart) if restart else None}

    # -- adapter protocol (emulator.connectors.base) ----------------------------------------------------------
    HISTORIZED = False
    ON_LOST_POSITION = "warn"  # Debezium streams from what the slot still has (spec 2.12)

    def connect(self) -> None:
        self.conn = self._connect()
        # Debezium's TypeRegistry is read once at start: enum labels added later are not seen by the
        # schemas of streamed changes (tests/data/pg/cases/enum_domain_ddl)
        registry_for(self.conn).resolve(self.conn, [r[0] for r in self.conn.execute(
            "SELECT oid FROM pg_catalog.pg_type WHERE typtype = 'e'").fetchall()])
        self._check_server()
        self._ensure_publication()
        self._autoset_replica_identity()
        self.slot = self._slot_state()

    def offset_state(self, stored: dict | None) -> tuple[bool, bool]:
        # offsets are saved only once a snapshot has a position: no lsn_commit means it did not finish
        return stored is not None, stored is not None and stored.get("lsn_commit") is None

    def position_available(self, stored: dict) -> bool:
        slot = self.slot
        if slot is None:
            return False
        return slot["restart"] is None or stored["lsn_commit"] >= slot["restart"]

    def lost_position_message(self, stored: dict) -> str:
        if self.slot is None:
            return (f"replication slot {self.slot_name} is gone: a new slot streams only changes made from now "
                    "on (snapshot.mode=when_needed takes a new snapshot instead)")
        return (f"stored LSN {po.int_to_lsn(stored['lsn_commit'])} is no longer available on the server; "
                "streaming from what the slot still has (snapshot.mode=when_needed takes a new snapshot)")

    def prepare(self, snapshot: bool) -> None:
        """The replication slot, created now if missing (exporting its snapshot when one will be taken)."""
        self.stream = ReplicationStream(self.conninfo, self.slot_name, self.publication,
                                        messages=self._server_version() >= 140000,
                                        extra_params=_stream_params(settings_for(self.cfg).postgres.slot_stream_params),
                                        )
        self._exported = None
        self._start_lsn = None
        if self.slot is None:
            info = self.stream.create_slot(export_snapshot=snapshot)
            self._exported = info.snapshot_name
            self._start_lsn = info.consistent_point
            log.info("created replication slot %s at %s", self.slot_name, po.int_to_lsn(self._start_lsn))
        elif not snapshot:
            self._start_lsn = self.slot["confirmed"] or self.slot["restart"] or 0

    def restore(self, stored: dict, history: bool = True) -> None:
        self._start_lsn = stored.get("lsn_commit") or stored.get("lsn")
        self.lsn_commit = self._start_lsn
        self.lsn_proc = stored.get("lsn_proc")
        self.proc_op = _MESSAGE_OP.get(stored.get("messageType"))
        self.lsn_events = stored.get("lsn_events_processed") or 0
        # after a BEGIN nothing of the transaction was processed: lsn_proc is the BEGIN's own LSN (as Debezium
        # stores it), which the first change shares or follows, so nothing of it may be skipped
        if stored.get("txId") is not None and self.lsn_proc is not None and stored.get("messageType") != "BEGIN":
            self.skip_until = [stored["txId"], self.lsn_proc, stored.get("lsn_events_processed") or 1]

    def stream_changes(self) -> None:
        start_lsn = self._start_lsn or 0
        self.lsn_commit = self.lsn_commit or start_lsn
        self._stream(start_lsn)

    def _server_version(self) -> int:
        return self.conn.info.server_version

    # -- tables --------------------------------------------------------------------------------------------
    def _capture(self, table: TableDef) -> CapturedTable:
        shaped, keep = self.filters.shape(table)
        ct = CapturedTable(TableEnvelope(self.settings, shaped), keep)
        self.by_id[shaped.id] = ct
        return ct

    def table_by_id(self, table_id: str) -> CapturedTable | None:
        ct = self.by_id.get(table_id)
        if ct is None:
            schema, _, name = table_id.partition(".")
            td = load_table(self.conn, schema, name, self.type_cfg)
            if td is None:
                return None
            ct = self._capture(td)
        return ct

    # -- snapshot ------------------------------------------------------------------------------------------
    def snapshot_session(self, data: bool):
        """The initial snapshot's consistent read: the new slot's exported snapshot (or a serializable
        deferrable transaction when the slot already existed), the captured tables in include-list order,
        rows by COPY. Once the coordinator read it completely, its LSN is where streaming starts."""
        return self._snapshot_session(self._exported, self._start_lsn)

    @contextmanager
    def _snapshot_session(self, exported: str | None, start_lsn: int | None):
        snap = psycopg.connect(self.conninfo, autocommit=True)
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
            tables = [t for t in loaded
                      if t.id != self.signal_table and (not only or any(p.fullmatch(t.id) for p in only))]
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

            def rows_of(ct: CapturedTable):
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

            session = SnapshotSession(captured, rows_of, emit_row, lambda ct: ct.env.table.id,
                                      captured=[t.id for t in loaded], estimates=estimates)
            yield session
            snap.execute("COMMIT")
        finally:
            snap.close()
        if not session.completed:  # stopped: no position, so nothing is saved and the next start snapshots again
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

    def _override_query(self, snap: psycopg.Connection, t: TableDef, stmt: str | None = None) -> sql.Composable:
        """snapshot.select.statement.overrides.<schema>.<table> (or a blocking snapshot's filter): the
        user's SELECT, its columns mapped onto the table's by name (a column it does not return is NULL)."""
        if stmt is None:
            stmt = (self.cfg.get(f"snapshot.select.statement.overrides.{t.id}") or "").strip().rstrip(";")
        if not stmt:
            raise ValueError(f"snapshot.select.statement.overrides.{t.id} is not set but the table is "
                             "listed in snapshot.select.statement.overrides")
        cur = snap.execute(sql.SQL("SELECT * FROM ({}) AS q LIMIT 0").format(sql.SQL(stmt)))
        returned = {d.name for d in cur.description}
        cols = sql.SQL(", ").join(sql.Identifier("q", c.name) if c.name in returned else sql.SQL("NULL")
                                  for c in t.columns)
        log.info("snapshot of %s uses the override: %s", t.id, stmt)
        return sql.SQL("COPY (SELECT {} FROM ({}) AS q) TO STDOUT").format(cols, sql.SQL(stmt))

    # -- streaming -----------------------------------------------------------------------------------------
    def _stream(self, start_lsn: int) -> None:
        stream = self.stream
        stream.start(start_lsn)
        self.streaming = True
        self.metrics.connected = True
        log.info("streaming from %s", po.int_to_lsn(start_lsn))
        engine = self.engine
        read = stream.read
        handlers = {
            ord("B"): self._on_begin, ord("C"): self._on_commit, ord("R"): self._on_relation,
            ord("I"): self._on_insert, ord("U"): self._on_update, ord("D"): self._on_delete,
            ord("T"): self._on_truncate, ord("M"): self._on_message, ord("Y"): _ignore, ord("O"): _ignore,
        }
        hb_next = time.monotonic()
        flush = engine.output.flush
        signals = self.signals
        busy = 0
        while not engine.stopping:
            data = read(0.1, flush)
            if data is None:
                if not self.in_tx and stream.server_wal_end > (self.lsn_commit or 0):
                    # nothing of ours is in flight: everything up to the server's position is done
                    self.lsn_commit = stream.server_wal_end
                engine.idle()
                now = time.monotonic()
                if stream.status_due(self.status_interval_s):
                    stream.send_status(self._confirmed())
                if self.heartbeat_query and engine.heartbeat and now >= hb_next:
                    hb_next = now + engine.heartbeat.interval_s
                    self._run_heartbeat_query()
                self.signals.poll()
                continue
            kind = data[0]
            if kind == 119:  # 'w'
                data = bytes(data)
                data_start = po.parse_xlogdata_header(data)[0]
                msg = data[25:]
                handlers[msg[0]](msg, data_start)
            elif kind == 107:  # 'k'
                stream.handle_keepalive(data, self._confirmed())
            engine.tick()
            busy += 1
            if busy >= 512:  # signals, resumed snapshots and read-only windows also progress under load
                busy = 0
                signals.poll()

    def _confirmed(self) -> int:
        """What the server may forget: only what our committed offsets already cover."""
        return self.confirmed_lsn

    def _run_heartbeat_query(self) -> None:
        try:
            self.conn.execute(self.heartbeat_query)
        except psycopg.Error as e:
            log.warning("heartbeat.action.query failed: %s", e)

    # pgoutput handlers: (message bytes, XLogData start LSN) ------------------------------------------------
    def _on_begin(self, msg: bytes, lsn: int) -> None:
        _final, ts_us, xid = po.parse_begin(msg)
        self.xid = xid
        self.ts_us = ts_us
        self.in_tx = True
        self.lsn_proc = lsn
        self.proc_op = "B"
        self.lsn_events = 0
        self.dispatcher.begin(f"{xid}:{lsn}", ts_us // 1000)

    def _on_commit(self, msg: bytes, lsn: int) -> None:
        _commit_lsn, end_lsn, ts_us = po.parse_commit(msg)
        self.dispatcher.commit(f"{self.xid}:{lsn}", ts_us // 1000)
        self.metrics.committed(ts_us // 1000, self.xid, only_with_events=True)
        self.last_commit_lsn = lsn
        self.lsn_commit = end_lsn
        self.lsn_proc = lsn
        self.proc_op = "C"
        self.in_tx = False
        if self.skip_until is not None and self.skip_until[0] == self.xid:
            self.skip_until = None
        inc = self.incremental
        if inc.read_only:
            xids = self._ro_xids
            if len(xids) > 100_000:
                xids.clear()
            xids.add(self.xid)
            if inc.window_mark is not None:
                inc.on_commit()

    def _on_relation(self, msg: bytes, lsn: int) -> None:
        rel = po.parse_relation(msg)
        if not self.filters.table_included(rel.namespace, rel.name):
            self.by_oid[rel.oid] = None
            return
        # the schema in force at this position is the Relation message's, not the catalog's now
        td = load_relation_table(self.conn, rel, self.type_cfg)
        stream_keep = td.extra["stream_keep"]
        old = self.by_id.get(td.id)
        ct = self._capture(td)
        if len(stream_keep) != len(rel.columns):
            inner = ct.keep
            ct.keep = [stream_keep[i] for i in inner] if inner is not None else stream_keep
        if (
            old is not None
            and old.env.value_schema.to_json() == ct.env.value_schema.to_json()
            and old.env.key_names == ct.env.key_names
            and (old.env.key_schema.to_json() if old.env.key_schema else None)
            == (ct.env.key_schema.to_json() if ct.env.key_schema else None)
            and old.keep == ct.keep
        ):
            ct = old  # unchanged: keep the precomputed frames
            self.by_id[td.id] = ct
        self.by_oid[rel.oid] = ct
        if old is not None and ct is not old and self.incremental.running:
            self.incremental.on_schema_change(td.id)

    def _change_target(self, relid: int, op: str, lsn: int) -> CapturedTable | None:
        """Bookkeeping common to every row change; the captured table, or None when nothing is emitted."""
        self.lsn_events = self.lsn_events + 1 if lsn == self.lsn_proc else 1
        self.lsn_proc = lsn
        self.proc_op = op
        if self.skip_until is not None and self._skip(lsn):
            return None
        ct = self.by_oid.get(relid)
        return ct if self.dispatcher.admit(op, ct is not None) else None

    def _gate(self, ct: CapturedTable):
        ct.gate = self.dispatcher.table(ct.env, ct.data_collection)
        return ct.gate

    def _tx_id(self, lsn: int) -> str | None:
        return f"{self.xid}:{lsn}" if self.tx.enabled else None

    def _skip(self, lsn: int) -> bool:
        su = self.skip_until
        if su is None or su[0] != self.xid or lsn > su[1]:
            return False
        if lsn < su[1]:
            return True
        if su[2] > 0:  # one of the changes at the stored LSN that were emitted
            su[2] -= 1
            return True
        return False

    def _src(self, t: TableDef, lsn: int) -> dict:
        return self.source(self.ts_us, "false", sequence(self.last_commit_lsn, lsn), t.namespace, t.name,
                           self.xid, lsn)

    def _on_insert(self, msg: bytes, lsn: int) -> None:
        relid, values, toast = po.parse_insert(msg)
        ct = self._change_target(relid, "c", lsn)
        if ct is None:
            return
        env = ct.env
        raw = ct.raw(values) if ct.keep is not None else values
        after = self._row_toast(ct, raw, None) if toast else env.row(raw)
        (ct.gate or self._gate(ct))("c", None, after, self._src(env.table, lsn),
                                    f"{self.xid}:{lsn}" if self.tx.enabled else None)

    def _row_toast(self, ct: CapturedTable, raw: list, old: dict | None) -> dict:
        env = ct.env
        vals = []
        for i, (conv, v) in enumerate(zip(env.converters, raw)):
            if v is None:
                vals.append(None)
            elif v is UNCHANGED:
                name = env.names[i]
                if old is not None and old.get(name) is not None and old[name] != env.unavailable[i]:
                    vals.append(old[name])
                else:
                    vals.append(env.unavailable[i])
            else:
                vals.append(conv(v))
        return env.fill_nulls(dict(zip(env.names, vals)))

    def _old_row(self, ct: CapturedTable, kind: str, raw: list) -> dict:
        env = ct.env
        if kind == "O":
            return env.row(raw) if UNCHANGED not in raw else self._row_toast(ct, raw, None)
        # 'K': only the replica-identity columns are sent; the rest are NULL in the tuple
        vals = []
        for i, (conv, v) in enumerate(zip(env.converters, raw)):
            if v is None or v is UNCHANGED:
                vals.append(ct.fallbacks[i])
            else:
                vals.append(conv(v))
        return env.fill_nulls(dict(zip(env.names, vals)))

    def _on_update(self, msg: bytes, lsn: int) -> None:
        relid, old_vals, old_kind, new_vals, toast = po.parse_update(msg)
        # skipped updates are dropped whole, key changes included (as Debezium)
        ct = self._change_target(relid, "u", lsn)
        if ct is None:
            return
        env = ct.env
        before = self._old_row(ct, old_kind, ct.raw(old_vals)) if old_vals is not None else None
        raw = ct.raw(new_vals)
        after = self._row_toast(ct, raw, before) if toast else env.row(raw)
        (ct.gate or self._gate(ct))("u", before, after, self._src(env.table, lsn),
                                    f"{self.xid}:{lsn}" if self.tx.enabled else None)

    def _on_delete(self, msg: bytes, lsn: int) -> None:
        relid, kind, old_vals = po.parse_delete(msg)
        ct = self._change_target(relid, "d", lsn)
        if ct is None:
            return
        env = ct.env
        before = self._old_row(ct, kind, ct.raw(old_vals))
        (ct.gate or self._gate(ct))("d", before, None, self._src(env.table, lsn),
                                    f"{self.xid}:{lsn}" if self.tx.enabled else None)

    def _on_truncate(self, msg: bytes, lsn: int) -> None:
        relids, _options = po.parse_truncate(msg)
        self.lsn_proc = lsn
        self.proc_op = "t"
        self.lsn_events = 1
        if self._skip(lsn) or not self.dispatcher.admit("t", True):
            return
        for relid in relids:
            ct = self.by_oid.get(relid)
            if ct is not None:
                self.dispatcher.truncate(ct.env, ct.data_collection, self._src(ct.env.table, lsn),
                                         self._tx_id(lsn))

    def _on_message(self, msg: bytes, lsn: int) -> None:
        transactional, _msg_lsn, prefix, content = po.parse_message(msg)
        if not self.filters.message_prefix_included(prefix):
            return
        if transactional:
            if self._skip(lsn):
                return
            self.lsn_proc = lsn
            self.proc_op = "m"
            self.lsn_events = 1
            src = self.source(self.ts_us, "false", sequence(self.last_commit_lsn, lsn), "", "", self.xid, lsn)
            # Debezium counts each message under the Java identity of a per-message collection object
            collection = ("io.debezium.connector.postgresql.LogicalDecodingMessageMonitor$"
                          f"LogicalDecodingMessageId@{random.getrandbits(31):x}")
            block = self.tx.event_block(f"{self.xid}:{lsn}", collection) if self.tx.enabled else None
        else:
            # no BEGIN/COMMIT around it: it is its own commit point
            self.last_commit_lsn = lsn
            if not self.in_tx:
                self.lsn_proc = lsn
                self.proc_op = "m"
                self.lsn_events = 1
            src = self.source(time.time_ns() // 1000, "false", sequence(lsn, lsn), "", "", None, lsn)
            block = None
        ns = time.time_ns()
        value = {"op": "m", "ts_ms": ns // 1_000_000, "source": src, "transaction": block,
                 "message": {"prefix": prefix, "content": self._msg_content(content)}}
        self.dispatcher.message(Record(self.message_topic, self.msg_key_frame.encode({"prefix": prefix}),
                                       self.msg_value_frame.encode(value)))

    # -- incremental snapshot source ---------------------------------------------------------------------
    def captured_table_ids(self) -> list[str]:
        return [f"{s}.{t}" for s, t in self._filtered_tables()]

    @staticmethod
    def is_retriable(exc: BaseException) -> bool:
        """A connection-level failure (server restarted, network cut): the runner restarts the connector
        from its offsets; anything else stops an incremental snapshot, not the connector."""
        return isinstance(exc, psycopg.OperationalError | ReplicationError | ConnectionError)

    def max_key(self, ct: CapturedTable, key_cols: list[str], condition: Predicate | None) -> list[str] | None:
        q = PostgresChunks.max_key(ct.env.table, key_cols, condition, sql_literal_pg(self.conn))
        with self.conn.transaction(), self.conn.cursor() as cur:
            cur.execute("SET TRANSACTION READ ONLY")  # a filter can read, never write
            with cur.copy(q) as cp:
                rows = list(cp.rows())
        return list(rows[0]) if rows else None

    def _chunk_query(self, ct: CapturedTable, key_cols: list[str], after: list[str] | None, upto: list[str],
                     limit: int, condition: Predicate | None) -> sql.Composable:
        return PostgresChunks.chunk(ct.env.table, key_cols, after, upto, limit, condition,
                                    sql_literal_pg(self.conn))

    def _refresh_table(self, ct: CapturedTable) -> CapturedTable:
        """A column the chunk query names is gone (DDL not yet seen in the stream): read the table again."""
        t = ct.env.table
        td = load_table(self.conn, t.namespace, t.name, self.type_cfg)
        if td is None:
            raise psycopg.errors.UndefinedTable(f"table {t.id} does not exist any more")
        log.info("incremental snapshot: the columns of %s changed; chunk read with the new definition", t.id)
        return self._capture(td)

    def read_chunk(self, ct: CapturedTable, key_cols: list[str], after: list[str] | None, upto: list[str],
                   limit: int, condition: str | None) -> list[list]:
        for attempt in (0, 1):
            try:
                with self.conn.transaction(), self.conn.cursor() as cur:
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
            (row_id, kind, data))

    def delete_watermark(self, row_id: str) -> None:
        """incremental.snapshot.watermarking.strategy=insert_delete: the open row goes at the close."""
        schema, _, table = self.signal_table.partition(".") if self.signal_table else ("", "", "")
        self._wm_connection().execute(
            sql.SQL("DELETE FROM {} WHERE id = %s").format(sql.Identifier(schema, table)), (row_id,))

    def read_source(self, ct: CapturedTable) -> dict:
        t = ct.env.table
        return self.source(time.time_ns() // 1000, "incremental", sequence(self.last_commit_lsn, self.lsn_proc),
                           t.namespace, t.name, None, None)

    def keep_alive(self) -> None:
        """Between the chunks of a long synchronous loop: the walsender must keep hearing from us."""
        if self.streaming and self.stream is not None and self.stream.status_due(self.status_interval_s):
            self.stream.send_status(self._confirmed())

    # read.only=true (no writes): pg_current_snapshot() and the WAL position as watermarks ----------------------
    def read_chunk_with_watermark(self, ct: CapturedTable, key_cols: list[str], after: list[str] | None,
                                  upto: list[str], limit: int, condition: str | None) -> tuple[list[list], int]:
        """The chunk, read in one REPEATABLE READ transaction, and the high watermark: the WAL insert
        position taken right after the transaction's snapshot (`pg_current_snapshot()`). Every transaction
        the chunk sees committed before it, so once the stream has passed it, the stream holds everything the
        chunk reflects; changes streamed from then on are newer than the chunk. A transaction already
        streamed but still running in the snapshot (the instant between its commit record and its end)
        makes the read start again."""
        if self._server_version() < 130000:
            raise RuntimeError("read.only incremental snapshots need PostgreSQL 13 or newer "
                               "(pg_current_snapshot)")
        conn = self.conn
        for attempt in range(100):
            conn.execute("BEGIN ISOLATION LEVEL REPEATABLE READ, READ ONLY")
            done = False
            try:
                snap, lsn = conn.execute(
                    "SELECT pg_current_snapshot()::text, (CASE WHEN pg_is_in_recovery() THEN "
                    "pg_last_wal_replay_lsn() ELSE pg_current_wal_insert_lsn() END)::text").fetchone()
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
            blk, seg = self.conn.execute("SELECT current_setting('wal_block_size')::int, "
                                         "pg_size_bytes(current_setting('wal_segment_size'))").fetchone()
            self._wal_geometry = (int(blk), int(seg))
        blk, seg = self._wal_geometry
        if lsn % seg == 40:  # SizeOfXLogLongPHD
            return lsn - 40
        if lsn % blk == 24:  # SizeOfXLogShortPHD
            return lsn - 24
        return lsn

    def watermark_passed(self, mark: int) -> bool:
        return not self.in_tx and (self.lsn_commit or 0) >= mark

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
            tds = [t for t in load_tables(snap, self.type_cfg, self.filters.table_included)
                   if t.id in wanted and t.id != self.signal_table]
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

    # -- lifecycle -----------------------------------------------------------------------------------------
    def close(self) -> None:
        if self.stream is not None:
            self.stream.close()
        if self.drop_slot_on_stop and self.conn is not None:
            self._drop_slot()
        self.signals.close()
        if self._wm_conn is not None:
            self._wm_conn.close()
        if self.conn is not None:
            self.conn.close()


    def _drop_slot(self) -> None:
        # the server's walsender may hold the slot for a moment after our replication connection closed
        deadline = time.monotonic() + 10
        while True:
            try:
                self.conn.execute("SELECT pg_drop_replication_slot(slot_name) FROM pg_replication_slots "
                                  "WHERE slot_name = %s", (self.slot_name,))
                log.info("dropped replication slot %s (slot.drop.on.stop)", self.slot_name)
                return
            except psycopg.errors.ObjectInUse:
                if time.monotonic() > deadline:
                    log.warning("could not drop slot %s: still in use", self.slot_name)
                    return
                time.sleep(0.2)
            except psycopg.Error as e:
                log.warning("could not drop slot %s: %s", self.slot_name, e)
                return


def _copy_table(t: TableDef) -> sql.Composable:
    """The snapshot read of a table. `COPY (SELECT ...)`, not `COPY table`: a partitioned table has no
    rows of its own and only the SELECT form reads its partitions' (as Debezium's SELECT * does)."""
    cols = sql.SQL(", ").join(sql.Identifier(c.name) for c in t.columns)
    return sql.SQL("COPY (SELECT {} FROM {}) TO STDOUT").format(cols, sql.Identifier(t.namespace, t.name))


# the offset's messageType: Debezium's ReplicationMessage.Operation name of what was processed at lsn_proc
_MESSAGE_TYPE = {"B": "BEGIN", "C": "COMMIT", "c": "INSERT", "u": "UPDATE", "d": "DELETE", "t": "TRUNCATE",
                 "m": "MESSAGE"}
_MESSAGE_OP = {name: op for op, name in _MESSAGE_TYPE.items()}


def _ignore(msg: bytes, lsn: int) -> None:
    return None


def _bool(value: str | None, default: bool = False) -> bool:
    if value is None or value == "":
        return default
    return str(value).strip().lower() == "true"


def _binary_encoder(mode: str):
    if mode == "hex":
        return lambda b: b.hex()
    if mode == "base64-url-safe":
        return lambda b: base64.urlsafe_b64encode(b).decode()
    return lambda b: base64.b64encode(b).decode()


def _conninfo(cfg) -> str:
    get = cfg.get
    parts = {
        "host": get("database.hostname"),
        "port": get("database.port") or "5432",
        "user": get("database.user"),
        "password": get("database.password"),
        "dbname": get("database.dbname"),
        "sslmode": get("database.sslmode") or "prefer",
        "sslcert": get("database.sslcert"),
        "sslkey": get("database.sslkey"),
        "sslrootcert": get("database.sslrootcert"),
        "sslpassword": get("database.sslpassword"),
        "application_name": "dbz-emulator",
        "connect_timeout": str(max(1, int(get("database.connect.timeout.ms") or 30000) // 1000)),
    }
    if not _bool(get("database.tcpKeepAlive"), True):
        parts["keepalives"] = "0"
    return psycopg.conninfo.make_conninfo(**{k: v for k, v in parts.items() if v})


def _stream_params(value: str | None) -> dict[str, str]:
    out = {}
    for part in (value or "").split(";"):
        if "=" in part:
            k, v = part.split("=", 1)
            out[k.strip()] = v.strip()
    return out
