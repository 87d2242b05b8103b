"""io.debezium.connector.postgresql.PostgresConnector: snapshot + pgoutput streaming.

This module only reads PostgreSQL: it turns snapshot rows and pgoutput messages into the neutral model
(TableDef + raw rows) and hands them to the shared envelope, transaction, heartbeat and incremental
snapshot code.

This module is the adapter's wiring: configuration, connections, the offset and position, tables. Its
jobs live in mixins, one module each: `stream` (pgoutput handlers), `snapshots` (initial and blocking
snapshot sessions), `chunks` (the incremental snapshot's chunk source and watermarks), `slot`
(publication, replica identity, slot); `captured` holds the stream's table, `conninfo` the libpq string.
"""

from __future__ import annotations

import base64
import logging
from typing import Any

import psycopg

from emulator.connect.json import Framed
from emulator.connect.schema import BYTES, STRING, Schema
from emulator.connectors import guardrail
from emulator.connectors.base import with_progress
from emulator.connectors.postgres import pgoutput as po
from emulator.connectors.postgres.captured import CapturedTable
from emulator.connectors.postgres.catalog import await_commit_visible, load_table, registry_for
from emulator.connectors.postgres.chunks import ChunkSource
from emulator.connectors.postgres.conninfo import libpq_conninfo, stream_params
from emulator.connectors.postgres.failed_changes import drop_failed_changes
from emulator.connectors.postgres.quoted_names import parse_parts
from emulator.connectors.postgres.replication import ReplicationError, ReplicationStream
from emulator.connectors.postgres.reselect import PgReselect
from emulator.connectors.postgres.slot import SlotManagement
from emulator.connectors.postgres.snapshots import SnapshotReads
from emulator.connectors.postgres.source import (
    MESSAGE_KEY_SCHEMA,
    SOURCE_SCHEMA,
    SourceBuilder,
    message_value_schema,
    restored_last_commit,
)
from emulator.connectors.postgres.stream import MESSAGE_OP, MESSAGE_TYPE, PgoutputStream
from emulator.connectors.postgres.type_prime import stop_where_debezium_cannot_prime
from emulator.connectors.postgres.types import TypeConfig
from emulator.connectors.postgres.types.toast import placeholder_bytes
from emulator.engine import Engine
from emulator.envelope import EnvelopeSettings, TableEnvelope
from emulator.filters import Filters
from emulator.incremental.conditions import SqlFilters
from emulator.model import TableDef
from emulator.pipeline.dispatcher import Dispatcher
from emulator.pipeline.signalling import wire_signals
from emulator.pipeline.transactions import stored_tx_counts
from emulator.postprocessors.reselect import Reselector
from emulator.settings import settings_for

log = logging.getLogger("emulator.postgres")

SYSTEM_SCHEMAS = ("pg_catalog", "information_schema", "pg_toast")
SNAPSHOT_MODES = ("initial", "always", "initial_only", "no_data", "never", "when_needed")


DEFAULT_NAMING = "io.debezium.schema.defaulttopicnamingstrategy"


class PostgresConnector(PgoutputStream, SnapshotReads, ChunkSource, SlotManagement):
    def __init__(self, config, engine: Engine) -> None:
        typed = settings_for(config)
        pg = typed.postgres
        self.cfg = config
        self.typed = typed
        self.engine = engine
        self.metrics = engine.metrics.streaming  # integer counters only (emulator.metrics)
        self.prefix = typed.topics.prefix
        self.dbname = pg.dbname
        self.slot_name = pg.slot_name
        self.publication = pg.publication_name
        self.snapshot_mode = typed.snapshot.mode
        self.type_cfg = TypeConfig.from_settings(typed)
        drop_failed_changes(self)  # event.processing.failure.handling.mode warn|skip
        self.settings = EnvelopeSettings.of(
            typed,
            connector_name="postgresql",
            source_schema=SOURCE_SCHEMA,
            structured=engine.dataplane is not None,  # the data plane takes records in their parts
            # DefaultTopicNamingStrategy: the TableId's catalog (none here) and table, no schema (envelope.py)
            schema_in_topic=typed.topics.naming_strategy.strip().lower() != DEFAULT_NAMING,
        )
        self.filters = Filters(typed, SYSTEM_SCHEMAS)
        self.skipped = self.filters.skipped_ops
        self.source = SourceBuilder(self.prefix, self.dbname)
        self.dispatcher = Dispatcher.for_connector(
            engine, self.settings, typed, never_skip=False, eager_begin=True
        )
        self.tx = self.dispatcher.tx
        if pg.post_processors:  # Debezium's ReselectColumnsPostProcessor, applied by the dispatcher per table
            self.dispatcher.reselect = Reselector(
                pg.post_processors,
                placeholder_bytes(self.type_cfg),
                PgReselect(self.visible_conn).read,
                lambda env: env.table.extra.get("primary_key", env.table.key_columns),
            )
        self.heartbeat_query = typed.heartbeat.action_query
        self.status_interval_s = pg.status_update_interval_ms / 1000.0
        self.flush_lsn = pg.flush_lsn_source
        self.drop_slot_on_stop = pg.slot_drop_on_stop
        # LogicalDecodingMessageMonitor: the logical name + ".message", whatever topic.delimiter says (recorded: pg
        # case message_topic_ignores_delimiter)
        self.message_topic = self.prefix + ".message"
        binary_mode = self.type_cfg.binary_handling_mode
        self._msg_content = _binary_encoder(binary_mode)
        content_schema = Schema(BYTES if binary_mode == "bytes" else STRING, optional=True)
        self.msg_key_frame = Framed(self.settings.key_codec, MESSAGE_KEY_SCHEMA)
        self.msg_value_frame = Framed(self.settings.value_codec, message_value_schema(content_schema))

        self.conninfo = libpq_conninfo(typed)
        self.conn: psycopg.Connection | None = None
        self.stream: ReplicationStream | None = None
        self.slot: dict | None = None  # the replication slot's state at connect (None: there is none)
        self._exported: str | None = None  # the new slot's exported snapshot, for the initial snapshot
        self._start_lsn: int | None = None  # where streaming starts (slot, snapshot or stored offsets)
        self.by_oid: dict[int, CapturedTable | None] = {}
        self.by_id: dict[str, CapturedTable] = {}
        # relation id -> its last captured Relation message's column count
        self.rel_columns: dict[int, int] = {}
        self.stale: dict[int, str] = {}  # relation id -> the stop line of its next change (relation_stale)
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
        self._resume_tx: tuple[int, dict[str, int]] | None = None  # (xid, counts) of a restart inside it
        self.in_tx = False
        self._visible_epoch = -1  # the `tx_epoch` whose transaction `visible_conn` saw visible
        self.confirmed_lsn = 0
        self.signal_table = self.filters.signal_table
        self._wm_conn: psycopg.Connection | None = None
        self._ro_xids: set[int] = set()  # read.only: transactions streamed since the last chunk read
        self._wal_geometry: tuple[int, int] | None = None
        wire_signals(self, typed, engine, SqlFilters("postgres"), self.signal_table)
        engine.source = self

    # -- engine protocol ---------------------------------------------------------------------------------
    def offset(self) -> dict[str, Any] | None:
        return with_progress(self.position(), self.incremental)

    def position(self) -> dict[str, Any] | None:
        if self.lsn_commit is None and self.lsn_proc is None:
            return None
        off: dict[str, Any] = {
            "lsn": self.lsn_commit,
            "lsn_commit": self.lsn_commit,
            "lsn_proc": self.lsn_proc,
            "ts_usec": self.ts_us,
        }
        if self.in_tx:
            off["txId"] = self.xid
            # Debezium's lastCommitLsn, which its offset keeps as `lsn_commit` (ours is where the stream
            # restarts): a restart inside this transaction resumes `sequence` from it (source.restored_last_commit)
            off["last_commit_lsn"] = self.last_commit_lsn
            if self.tx.started:  # the transaction context Debezium stores (and a restart inside it resumes)
                off.update(self.tx.offset_keys(str(self.xid)))
        elif self.proc_op == "C" and self.xid is not None:
            # Debezium's SourceInfo keeps the committed transaction's id until the next message; while END is
            # the last record written its offset also keeps the transaction context (docs/pg-restart.md)
            off["txId"] = self.xid
            if self.tx.ended is not None:
                off.update(self.tx.ended_keys(str(self.xid)))
        if self.proc_op is not None:  # none before streaming (a snapshot's offset), as Debezium's
            off["messageType"] = MESSAGE_TYPE[self.proc_op]
        if self.lsn_events > 1:  # the key later Debezium versions store; absent, one change per LSN
            off["lsn_events_processed"] = self.lsn_events
        return off

    def committed(self, offset: dict[str, Any]) -> None:
        lsn = offset.get("lsn_commit")
        if self.streaming and self.flush_lsn and self.stream is not None and lsn:
            self.confirmed_lsn = max(self.confirmed_lsn, lsn)
            self.stream.send_status(self.confirmed_lsn)

    # -- setup ---------------------------------------------------------------------------------------------
    def _connect(self) -> psycopg.Connection:
        conn = psycopg.connect(self.conninfo, autocommit=True)
        for stmt in self.typed.relational.initial_statements:
            conn.execute(stmt)
        return conn

    def _check_server(self) -> None:
        wal_level = self.conn.execute("SHOW wal_level").fetchone()[0]
        if wal_level != "logical":
            raise RuntimeError(
                f"PostgreSQL wal_level is {wal_level!r}; logical decoding needs wal_level=logical"
            )

    # -- adapter protocol (emulator.connectors.base) ----------------------------------------------------------
    HISTORIZED = False
    ON_LOST_POSITION = "warn"  # Debezium streams from what the slot still has (spec 2.12)

    @staticmethod
    def check(config) -> None:
        """wal_level, the REPLICATION attribute and the publication (emulator.preflight)."""
        from emulator.preflight import check_postgres

        check_postgres(config)

    def connect(self) -> None:
        self.conn = self._connect()
        # before the publication and the slot, as Debezium's task
        stop_where_debezium_cannot_prime(self.conn)
        # Debezium's TypeRegistry is read once at start: enum labels added later are not seen by the
        # schemas of streamed changes (tests/data/pg/cases/enum_domain_ddl)
        registry_for(self.conn).resolve(
            self.conn,
            [
                r[0]
                for r in self.conn.execute(
                    "SELECT oid FROM pg_catalog.pg_type WHERE typtype = 'e'"
                ).fetchall()
            ],
        )
        self._check_server()
        guardrail.check(self.typed, self._guardrail_tables())
        self._ensure_publication()
        self.slot = self._slot_state()

    def _guardrail_tables(self) -> list[str]:
        """The tables Debezium's guardrail counts (emulator.connectors.guardrail): pgjdbc's TABLE and PARTITIONED
        TABLE (not in pg_* schemas or information_schema, not temporary) that the filters capture."""
        if self.typed.common.guardrail_collections_max <= 0:
            return []
        rows = self.conn.execute(
            "SELECT n.nspname, c.relname FROM pg_catalog.pg_class c JOIN pg_catalog.pg_namespace n ON n.oid = "
            "c.relnamespace WHERE c.relkind IN ('r', 'p') AND n.nspname !~ '^pg_' AND n.nspname <> "
            "'information_schema' AND c.relpersistence <> 't'"
        ).fetchall()
        return [f"{s}.{t}" for s, t in rows if self.filters.table_included(s, t)]

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
            return (
                f"replication slot {self.slot_name} is gone: a new slot streams only changes made from now "
                "on (snapshot.mode=when_needed takes a new snapshot instead)"
            )
        return (
            f"stored LSN {po.int_to_lsn(stored['lsn_commit'])} is no longer available on the server; "
            "streaming from what the slot still has (snapshot.mode=when_needed takes a new snapshot)"
        )

    def prepare(self, snapshot: bool) -> None:
        """The replication slot, created now if missing (exporting its snapshot when one will be taken)."""
        self.stream = ReplicationStream(
            self.conninfo,
            self.slot_name,
            self.publication,
            messages=self._server_version() >= 140000,
            extra_params=stream_params(self.typed.postgres.slot_stream_params),
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
        self.last_commit_lsn = restored_last_commit(stored)
        self.proc_op = MESSAGE_OP.get(stored.get("messageType"))
        self.lsn_events = stored.get("lsn_events_processed") or 0
        # after a BEGIN nothing of the transaction was processed: lsn_proc is the BEGIN's own LSN (as Debezium
        # stores it), which the first change shares or follows, so nothing of it may be skipped
        if (
            stored.get("txId") is not None
            and self.lsn_proc is not None
            and stored.get("messageType") not in ("BEGIN", "COMMIT")  # COMMIT: the END record's offset
        ):
            self.skip_until = [stored["txId"], self.lsn_proc, stored.get("lsn_events_processed") or 1]
            # its BEGIN record and first events were delivered: the restart goes on counting (Debezium's
            # WAL locator skips the BEGIN message, and TransactionContext.load restores the counts)
            if str(stored.get("transaction_id")) == str(stored["txId"]):
                self._resume_tx = (stored["txId"], stored_tx_counts(stored))

    def stream_changes(self) -> None:
        # replica.identity.autoset.values when streaming starts, after the snapshot, as Debezium's
        # PostgresReplicationConnection does ("Updating Replica Identity"): a change written during the snapshot
        # keeps the identity it had (campaign seed 44602001)
        self._autoset_replica_identity()
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
            if not self.filters.table_included(schema, name):
                # a table outside the filters is never read: Debezium's incremental snapshot skips it (its
                # refresh of a filtered table fails; recorded: pg case incremental_unknown_table_skipped)
                return None
            td = load_table(self.visible_conn(), schema, name, self.type_cfg)
            if td is None:
                return None
            ct = self._capture(td)
        return ct

    def visible_conn(self) -> psycopg.Connection:
        """The connection, once the last transaction the stream decoded is visible on it: pgoutput sends a
        transaction when its commit record is flushed, before its commit shows to other sessions
        (`catalog.await_commit_visible`), and every read made for what the stream decoded must see it — the
        Relation's catalog read, a table a signal names (created in the signal's transaction), the chunks and
        maximum key of an incremental snapshot and the rows of a blocking one (a row the signal's transaction
        changed read as it was before, then emitted after the change: tests/test_pg_commit_visible_reads.py),
        a reselect. One `pg_locks` query per transaction at most."""
        if self.xid is not None and self._visible_epoch != self.tx_epoch:
            await_commit_visible(self.conn, self.xid, self.slot_name)
            self._visible_epoch = self.tx_epoch
        return self.conn

    # -- incremental snapshot source ---------------------------------------------------------------------
    def captured_table_ids(self) -> list[str]:
        return [f"{s}.{t}" for s, t in self._filtered_tables()]

    @staticmethod
    def collection_read_back(name: str) -> str | None:
        """The name Debezium's TableId.parse reads an incremental snapshot's data collection as, None where it
        throws (quoted_names)."""
        try:
            return ".".join(parse_parts(name))
        except ValueError:
            return None

    @staticmethod
    def is_retriable(exc: BaseException) -> bool:
        """A connection-level failure (server restarted, network cut): the runner restarts the connector
        from its offsets; anything else stops an incremental snapshot, not the connector."""
        return isinstance(exc, psycopg.OperationalError | ReplicationError | ConnectionError)

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


def _binary_encoder(mode: str):
    if mode == "hex":
        return lambda b: b.hex()
    if mode == "base64-url-safe":
        return lambda b: base64.urlsafe_b64encode(b).decode()
    return lambda b: base64.b64encode(b).decode()
