"""`io.debezium.connector.mongodb.MongoDbConnector` on pymongo change streams.

Start-up (Debezium's MongoDbConnectorTask): refuse a standalone server; load the offset; snapshot when the
mode asks for it (the change stream is opened first and its resume token kept, so streaming resumes exactly
where the snapshot started); then stream with `resumeAfter` (or `startAtOperationTime` from `sec`/`ord`).
A resume point gone from the oplog (error 286 ChangeStreamHistoryLost, 260 InvalidResumeToken, 280) fails the
connector, except with `snapshot.mode=when_needed`, which snapshots again and streams from the new point.

Offsets: partition `{"server_id": <topic.prefix>}`; `sec`, `ord`, `resume_token` (base64 of the BSON token
document), `initsync` during a snapshot, `lsid`/`txnNumber` inside a transaction, with transaction metadata
Debezium's `transaction_id` / `transaction_data_collection_order_<db.coll>` (stored, never loaded back: a
restart inside a transaction writes its BEGIN again and counts from 1, as MongoDbOffsetContext.Loader), and
the incremental snapshot's progress.
"""

from __future__ import annotations

import base64
import json
import logging
import time
from contextlib import contextmanager, nullcontext
from typing import Any

import bson
from bson import Timestamp
from bson.codec_options import DatetimeConversion
from bson.json_util import CANONICAL_JSON_OPTIONS
from bson.json_util import dumps as bson_dumps
from bson.json_util import loads as bson_loads

from emulator.connectors.base import PositionLost, with_progress
from emulator.connectors.mongodb import events as ev
from emulator.connectors.mongodb.streams import SYSTEM_DATABASES, SourceError, open_source, operation_filter
from emulator.engine import Engine
from emulator.envelope import EnvelopeSettings
from emulator.pipeline.coordinator import SnapshotSession, blocking_snapshot
from emulator.pipeline.dispatcher import Dispatcher
from emulator.pipeline.signalling import wire_signals
from emulator.settings import MongoSettings, settings_for
from emulator.signals.record import SignalError

log = logging.getLogger("emulator.mongodb")

HISTORY_LOST = frozenset({286, 260, 280})
PAUSE_AFTER_EMPTY = 5  # empty change-stream polls before a poll.interval.ms pause (Debezium's fetcher)


class MongoConnectorError(SourceError):
    pass


class Filters:
    """database/collection include/exclude lists: anchored case-insensitive regexes, or case-sensitive
    literals with ``filters.match.mode=literal`` (the typed settings compile them either way)."""

    def __init__(self, settings: MongoSettings) -> None:
        mongo = settings.mongodb
        self.db_inc = mongo.database_include
        self.db_exc = mongo.database_exclude
        self.coll_inc = mongo.collection_include
        self.coll_exc = mongo.collection_exclude
        self.signal = settings.signals.data_collection

    def db_included(self, db: str) -> bool:
        if db in SYSTEM_DATABASES:
            return False
        if self.db_inc:
            return any(r.fullmatch(db) for r in self.db_inc)
        return not any(r.fullmatch(db) for r in self.db_exc)

    def collection_included(self, db: str, coll: str) -> bool:
        if not db or not coll or not self.db_included(db) or coll.startswith("system."):
            return False
        full = f"{db}.{coll}"
        if self.coll_inc:
            return any(r.fullmatch(full) for r in self.coll_inc)
        return not any(r.fullmatch(full) for r in self.coll_exc)


class QueryDocumentFilters:
    """MongoDB's `additional-conditions` (and blocking-snapshot filters): a JSON query document per
    collection, handed to the driver as a document (never evaluated as code); no surrogate keys."""

    surrogate_keys = False

    def text(self, flt: Any) -> str:
        text = flt if isinstance(flt, str) else json.dumps(flt)
        try:
            parsed = bson_loads(text) if text.strip() else {}
        except (ValueError, TypeError) as e:
            raise SignalError(f"filter {text!r} is not a JSON query document: {e}") from None
        if not isinstance(parsed, dict):
            raise SignalError(f"filter {text!r} is not a JSON query document")
        return text

    def checked(self, table_id: str, condition: str, columns: list[str]) -> str:
        return condition  # already checked as a query document by `text`

    def query(self, table_id: str, condition: str, columns: list[str]) -> str:
        return condition

    def blocking(self, table_id: str, flt: str, columns: list[str]) -> str:
        return flt


class _Captured:
    __slots__ = ("env",)

    def __init__(self, env: ev.CollectionEnvelope) -> None:
        self.env = env


def _encode_token(token: dict | None) -> str | None:
    return None if token is None else base64.b64encode(bson.encode(token)).decode()


def _decode_token(text: str | None) -> dict | None:
    return None if not text else bson.decode(base64.b64decode(text))


def _id_token(v: Any) -> str:
    return bson_dumps(v, json_options=CANONICAL_JSON_OPTIONS)


def mongo_marker(first_table: bool, last_table: bool, first_row: bool, last_row: bool) -> str:
    return "true"  # MongoDB marks only the snapshot's very last record (`last`, set by run_snapshot)


class MongoDbConnector:
    def __init__(self, config, engine: Engine) -> None:
        typed = settings_for(config)
        mongo = typed.mongodb
        self.cfg = config
        self.typed = typed
        self.engine = engine
        self.prefix = typed.topics.prefix
        self.uri = mongo.connection_string
        self.snapshot_mode = typed.snapshot.mode
        self.capture_mode = mongo.capture_mode
        self.full_update_type = mongo.capture_mode_full_update_type
        self.scope = mongo.capture_scope
        self.target = mongo.capture_target
        # MongoDB's name-adjustment modes are refused unless none (settings audit): no adjuster is built
        self.settings = EnvelopeSettings.of(
            typed,
            connector_name="mongodb",
            source_schema=ev.SOURCE_SCHEMA,
            structured=getattr(engine, "dataplane", None) is not None,  # the data plane takes the parts
        )
        self.filters = Filters(typed)
        self.field_exclude = mongo.field_exclude_list
        self.field_renames = mongo.field_renames
        # MongoDB filters skipped operations in the change stream's pipeline (supportsOperationFiltering)
        self.dispatcher = Dispatcher.for_connector(engine, self.settings, typed, never_skip=True)
        self.tx = self.dispatcher.tx
        self.translator = ev.Translator(self.settings, self.dispatcher, envelope_for=self.envelope_for)
        self.envelopes: dict[tuple[str, str], ev.CollectionEnvelope | None] = {}
        self.source: Any = None  # streams.ServerStreams or RecordedStreams (mongodb.connection.string)
        self.client = None
        # position
        self.sec: int | None = None
        self.ord: int | None = None
        self.token: dict | None = None
        self.initsync = False
        self.lsid: str | None = None
        self.txn: int | None = None
        wire_signals(self, typed, engine, QueryDocumentFilters(), self.filters.signal)
        if self.scope == "collection" and self.signals.channels == {"source"}:
            log.warning("capture.scope=collection disables the source signal channel")
            self.signals.channels.discard("source")
        engine.source = self

    # -- engine protocol -----------------------------------------------------------------------------------
    def position(self) -> dict[str, Any] | None:
        if self.sec is None and self.token is None:
            return None
        off: dict[str, Any] = {"sec": self.sec or 0, "ord": self.ord or 0}
        if self.token is not None:
            off["resume_token"] = _encode_token(self.token)
        return off

    def offset(self) -> dict[str, Any] | None:
        off = self.position()
        if off is None:
            return None
        if self.initsync:
            off["initsync"] = True
        if self.lsid is not None or self.txn is not None:
            off["lsid"] = self.lsid
            off["txnNumber"] = self.txn
        # TransactionContext.store (MongoDbOffsetContext.getOffset); its Loader does not read the keys back:
        # a restart inside a transaction begins it again (as Debezium)
        if self.tx.started and not self.initsync:
            off.update(self.tx.offset_keys(self.tx.begin_id))
        return with_progress(off, self.incremental)

    def committed(self, offset: dict[str, Any]) -> None:
        pass

    # -- collections ------------------------------------------------------------------------------------------
    def envelope_for(self, db: str | None, coll: str | None) -> ev.CollectionEnvelope | None:
        k = (db or "", coll or "")
        if k in self.envelopes:
            return self.envelopes[k]
        env = None
        if self._in_scope(*k) and self.filters.collection_included(*k):
            env = ev.CollectionEnvelope(
                self.settings, k[0], k[1], ev.field_filter_for(self.field_exclude, self.field_renames, *k)
            )
        self.envelopes[k] = env
        return env

    def _in_scope(self, db: str, coll: str) -> bool:
        if self.scope == "database":
            return db == self.target
        if self.scope == "collection":
            return f"{db}.{coll}" == self.target
        return True

    def captured_collections(self) -> list[tuple[str, str]]:
        return [
            c for c in self.source.collections(self.filters.db_included) if self.envelope_for(*c) is not None
        ]

    # -- connection --------------------------------------------------------------------------------------------
    def _connect(self):
        return client_for(self.typed)

    # -- adapter protocol (emulator.connectors.base) ------------------------------------------------------
    HISTORIZED = False
    ON_LOST_POSITION = "fail"  # the loss shows only when the change stream opens (HistoryLost)

    @staticmethod
    def check(config) -> None:
        """The server is reachable with these credentials and is a replica set or sharded cluster (a
        standalone server has no change streams); a recorded change stream's file exists."""
        from pymongo.errors import OperationFailure, PyMongoError

        from emulator.preflight import ConnectError

        typed = settings_for(config)
        uri = typed.mongodb.connection_string or ""
        where = uri.split("@")[-1]
        try:
            open_source(uri, lambda: client_for(typed, selection_timeout_ms=10000)).close()
        except SourceError as e:
            raise ConnectError(str(e)) from None
        except PyMongoError as e:  # an error the server answered (authentication) is not worth retrying
            first = (str(e).strip().splitlines() or [type(e).__name__])[0]
            raise ConnectError(
                f"MongoDB at {where}: cannot connect ({first})", transient=not isinstance(e, OperationFailure)
            ) from None

    def connect(self) -> None:
        self.source = open_source(self.uri, self._connect)
        self.client = getattr(self.source, "client", None)
        if self.client is None:  # a recorded stream runs only the connector's own $match: refuse the rest now
            operation_filter(self._pipeline())

    def offset_state(self, stored: dict | None) -> tuple[bool, bool]:
        return bool(stored), bool(stored) and bool(stored.get("initsync"))

    def position_available(self, stored: dict) -> bool:
        return True  # the oplog tells only when the change stream is opened (PositionLost from the stream)

    def lost_position_message(self, stored: dict) -> str:
        return "the stored resume point is no longer in the oplog"

    def prepare(self, snapshot: bool) -> None:
        return None

    def restore(self, stored: dict, history: bool = True) -> None:
        self.sec, self.ord = stored.get("sec"), stored.get("ord")
        self.token = _decode_token(stored.get("resume_token"))

    def stream_changes(self) -> None:
        self._stream()

    def _start_position(self) -> tuple[dict | None, Timestamp | None]:
        """The stream's current resume token and operation time (what a snapshot starts from)."""
        with self._watch(None, None) as stream:
            stream.try_next()
            token = stream.resume_token
        return token, self.source.operation_time()

    @contextmanager
    def snapshot_session(self, data: bool):
        """The change stream's current point first (streaming resumes exactly there), then every captured
        collection; `initsync` marks the offsets until the coordinator read them all."""
        token, op_time = self._start_position()
        self.token = token
        self.sec, self.ord = (op_time.time, op_time.inc) if op_time is not None else (int(time.time()), 0)
        self.initsync = True
        self.engine.commit(force=True)
        typed = self.typed
        only_rx = typed.snapshot.include_collection_list
        colls = [
            c
            for c in self.captured_collections()
            if not only_rx or any(r.fullmatch(f"{c[0]}.{c[1]}") for r in only_rx)
        ]
        queries = typed.mongodb.snapshot_filter_queries
        overrides = {
            name: bson_loads(queries[name])
            for name in typed.mongodb.snapshot_filter_collections
            if queries.get(name)
        }
        session = self._snapshot_session(colls if data else [], overrides)
        if self.notifier.enabled:  # MongoDB's notifications name only the collection in progress / scanned

            def started(env):
                self.notifier.initial("IN_PROGRESS", current_collection_in_progress=env.data_collection)

            def finished(env, _rows):
                self.notifier.initial(
                    "TABLE_SCAN_COMPLETED", scanned_collection=env.data_collection, status="SUCCEEDED"
                )

            session.started, session.finished = started, finished
        yield session
        if session.completed:
            self.initsync = False
            self.engine.commit(force=True)

    def _snapshot_session(self, colls, filters: dict[str, dict]) -> SnapshotSession:
        """Reads of `colls` (those with an envelope) with their filters; every record `true` but the last."""
        fetch = self.typed.snapshot.fetch_size or 0
        envs = [env for env in (self.envelope_for(db, coll) for db, coll in colls) if env is not None]
        tick = self.engine.tick

        def rows_of(env: ev.CollectionEnvelope):
            return self.source.find(env.db, env.coll, filters.get(env.data_collection) or {}, fetch or 0)

        def emit(env: ev.CollectionEnvelope, doc: dict, mark: str) -> None:
            self._emit_read(env, doc, mark)
            tick()

        return SnapshotSession(envs, rows_of, emit, lambda env: env.data_collection, markers=mongo_marker)

    def _emit_read(self, env: ev.CollectionEnvelope, doc: dict, marker: str) -> None:
        src = ev.source_block(self.prefix, env.db, env.coll, self.sec or 0, self.ord or 0, marker)
        self.dispatcher.emit(env.record("r", env.key(doc["_id"]), None, env.doc_json(doc), None, src, None))

    def blocking_snapshot(self, tables: list[str], filters: dict[str, str | None]) -> None:
        colls = [(db, coll) for db, _, coll in (t.partition(".") for t in tables)]
        session = self._snapshot_session(colls, {t: bson_loads(f) for t, f in filters.items() if f})
        blocking_snapshot(self, self.engine, nullcontext(session))

    # -- streaming ---------------------------------------------------------------------------------------------
    def _pipeline(self) -> list[dict]:
        user = list(self.typed.mongodb.cursor_pipeline)  # parsed once (a JSON array) by the settings
        order = self.typed.mongodb.cursor_pipeline_order
        internal = [{"$match": {"operationType": {"$in": ["insert", "update", "replace", "delete"]}}}]
        if order == "user_only":
            return user
        return user + internal if order == "user_first" else internal + user

    def _watch(self, token: dict | None, at: Timestamp | None):
        kw: dict[str, Any] = {}
        if self.capture_mode in ("change_streams_update_full", "change_streams_update_full_with_pre_image"):
            kw["full_document"] = "whenAvailable" if self.full_update_type == "post_image" else "updateLookup"
        if self.capture_mode.endswith("_with_pre_image"):
            kw["full_document_before_change"] = "whenAvailable"
        if token is not None:
            kw["resume_after"] = token
        elif at is not None:
            kw["start_at_operation_time"] = at
        mawait = self.typed.mongodb.cursor_max_await_time_ms
        if mawait:
            kw["max_await_time_ms"] = mawait
        if self.typed.mongodb.cursor_oversize_handling_mode == "split":
            kw["show_expanded_events"] = False
        return self.source.watch(self._pipeline(), self.scope, self.target, **kw)

    def _stream(self) -> None:
        from pymongo.errors import OperationFailure

        at = Timestamp(self.sec, self.ord) if self.token is None and self.sec else None
        poll_s = self.typed.tuning.poll_interval_ms / 1000.0
        try:
            stream = self._watch(self.token, at)
        except OperationFailure as e:
            if e.code in HISTORY_LOST:
                raise HistoryLost(e.code, self.snapshot_mode) from None
            raise
        log.info("streaming from %s", "resume token" if self.token else f"operation time {at}")
        self.streaming = True  # the change stream is open: later changes are in it (Capture.start waits)
        empty = 0  # polls that found nothing since the last pause
        with stream:
            while not self.engine.stopping:
                try:
                    change = stream.try_next()
                except OperationFailure as e:
                    if e.code in HISTORY_LOST:
                        raise HistoryLost(e.code, self.snapshot_mode) from None
                    raise
                if change is None:
                    self.token = stream.resume_token or self.token  # post-batch token: idle progress
                    self.signals.poll()
                    self.engine.idle()
                    # as Debezium's change-stream fetcher: poll.interval.ms only after every 5th empty poll
                    # (BufferingChangeStreamCursor.THROTTLE_NO_MESSAGE_BEFORE_PAUSE); a server's empty poll
                    # already waited for changes (a getMore awaiting data), a pause after each one delayed the
                    # next change by up to poll.interval.ms
                    empty += 1
                    if self.incremental.running:
                        pause = 0.01
                    elif empty >= PAUSE_AFTER_EMPTY:
                        pause, empty = poll_s, 0
                    else:
                        pause = 0.0
                    if self.engine.stop_event.wait(pause):
                        break
                    continue
                self.on_change(change)
                self.token = change.get("_id") or self.token
                self.signals.run_deferred()
                self.engine.tick()

    def on_change(self, change: dict) -> None:
        """One change-stream event: signals/watermarks, then the data record."""
        ns = change.get("ns") or {}
        ct = change.get("clusterTime")
        if ct is not None:
            self.sec, self.ord = ct.time, ct.inc
        self.lsid, self.txn = ev.session_of(change)
        op = ev.OPS.get(change.get("operationType"))
        if op is None or not self.dispatcher.admit(op, True):  # skipped.operations: the pipeline's filter
            return
        full = f"{ns.get('db')}.{ns.get('coll')}"
        if self.filters.signal and full == self.filters.signal and op == "c":
            doc = change.get("fullDocument") or {}
            self.signals.on_signal_row(
                {"id": doc.get("_id"), "type": doc.get("type"), "data": doc.get("data")}
            )
        self.translator.event(change)

    # -- ChunkReader (emulator/incremental/machine.py) and watermark writer -----------------------------------
    def captured_table_ids(self) -> list[str]:
        return [f"{d}.{c}" for d, c in self.captured_collections()]

    def table_by_id(self, table_id: str) -> _Captured | None:
        db, _, coll = table_id.partition(".")
        env = self.envelope_for(db, coll)
        return _Captured(env) if env is not None else None

    def _coll(self, ct: _Captured):
        return self.source.collection(ct.env.db, ct.env.coll)

    def max_key(self, ct: _Captured, key_cols: list[str], condition: str | None) -> list | None:
        flt = bson_loads(condition) if condition else {}
        doc = next(iter(self._coll(ct).find(flt, {"_id": 1}).sort("_id", -1).limit(1)), None)
        return None if doc is None else [_id_token(doc["_id"])]

    def read_chunk(
        self,
        ct: _Captured,
        key_cols: list[str],
        after: list | None,
        upto: list,
        limit: int,
        condition: str | None,
    ) -> list[list]:
        rng: dict[str, Any] = {"$lte": bson_loads(upto[0])}
        if after is not None:
            rng["$gt"] = bson_loads(after[0])
        flt = {"_id": rng}
        if condition:
            flt = {"$and": [flt, bson_loads(condition)]}
        return [[_id_token(d["_id"]), d] for d in self._coll(ct).find(flt).sort("_id", 1).limit(limit)]

    def write_watermark(self, row_id: str, kind: str, data: str) -> None:
        db, _, coll = self.filters.signal.partition(".")
        self.source.collection(db, coll).insert_one({"_id": row_id, "type": kind, "payload": ""})

    def delete_watermark(self, row_id: str) -> None:
        db, _, coll = self.filters.signal.partition(".")
        self.source.collection(db, coll).delete_one({"_id": row_id})

    def read_source(self, ct: _Captured) -> dict:
        return ev.source_block(
            self.prefix, ct.env.db, ct.env.coll, self.sec or 0, self.ord or 0, "incremental"
        )

    def keep_alive(self) -> None:
        return None  # the change stream needs nothing while a synchronous loop runs

    @staticmethod
    def is_retriable(exc: BaseException) -> bool:
        """A connection-level failure: the runner restarts the connector from its offsets."""
        from pymongo.errors import ConnectionFailure

        return isinstance(exc, ConnectionFailure | ConnectionError)

    def close(self) -> None:
        self.signals.close()
        if self.source is not None:
            self.source.close()
            self.source = self.client = None


def client_for(typed: MongoSettings, selection_timeout_ms: int | None = None):
    """A pymongo client for the connector's typed settings, checked to be a replica set or sharded cluster
    (`selection_timeout_ms`: at most this long to find a server, for the start-up check)."""
    import pymongo

    mongo = typed.mongodb
    uri = mongo.connection_string
    if not uri:
        raise MongoConnectorError("mongodb.connection.string is required")
    kw: dict[str, Any] = {
        "document_class": dict,
        "tz_aware": True,
        "datetime_conversion": DatetimeConversion.DATETIME_AUTO,
        "connectTimeoutMS": mongo.connect_timeout_ms,
        "serverSelectionTimeoutMS": mongo.server_selection_timeout_ms,
    }
    if selection_timeout_ms is not None:
        kw["serverSelectionTimeoutMS"] = min(kw["serverSelectionTimeoutMS"], selection_timeout_ms)
    if mongo.socket_timeout_ms:
        kw["socketTimeoutMS"] = mongo.socket_timeout_ms
    user = mongo.user
    if user and "@" not in uri.split("//", 1)[-1].split("/", 1)[0]:
        kw.update(username=user, password=mongo.password, authSource=mongo.authsource or "admin")
    if mongo.ssl_enabled:
        kw["tls"] = True
        if mongo.ssl_invalid_hostname_allowed:
            kw["tlsAllowInvalidHostnames"] = True
    client = pymongo.MongoClient(uri, **kw)
    try:
        check_topology(client.admin.command("hello"), uri)
    except BaseException:
        client.close()
        raise
    return client


class HistoryLost(PositionLost, MongoConnectorError):
    """The change stream cannot resume: the coordinator snapshots again (when_needed) or fails with this."""

    def __init__(self, code: int, mode: str = "initial") -> None:
        super().__init__(
            f"Resume of change stream was not possible, as the resume point may no longer be in the oplog "
            f"(error {code}); snapshot.mode={mode} does not take a new snapshot: use a new connector name / "
            "topic.prefix, delete the offsets, or set snapshot.mode=when_needed"
        )
        self.code = code


def check_topology(hello: dict, uri: str = "") -> str:
    """`replica_set` or `sharded`; a standalone server is refused (it has no oplog, so no change streams)."""
    if hello.get("msg") == "isdbgrid":
        return "sharded"
    if hello.get("setName"):
        return "replica_set"
    where = uri.split("@")[-1] if uri else "the server"
    raise MongoConnectorError(
        f"MongoDB at {where} is a standalone server: change streams need a replica set "
        "or a sharded cluster (start mongod with --replSet and run rs.initiate())"
    )
