"""Change-stream documents -> Debezium MongoDB records (pure translation, no server needed).

Value envelope `<prefix>.<db>.<collection>.Envelope` (Debezium's MongoDbSchema): `before`, `after` (Json
strings, STRICT extended JSON), `updateDescription` {removedFields, updatedFields, truncatedArrays}, `source`
(`io.debezium.connector.mongo.Source`), `op`, `ts_ms`, `transaction`. Key `<prefix>.<db>.<collection>.Key`
{id: the `_id` in RELAXED extended JSON}. insert -> c, update/replace -> u, delete -> d (+ tombstone);
every other operation type (drop, rename, dropDatabase, invalidate, DDL events) produces no data record.
"""

from __future__ import annotations

import re
import time
from typing import Any

from emulator import DEBEZIUM_VERSION
from emulator.connect.json import Framed
from emulator.connect.schema import OPT_INT64, OPT_STRING, REQ_STRING, Schema, struct
from emulator.connectors.common import SOURCE_HEAD
from emulator.connectors.mongodb import extjson
from emulator.envelope import TX_BLOCK, EnvelopeSettings
from emulator.records import Record, StructuredRecord

JSON = Schema("string", optional=True, name="io.debezium.data.Json", version=1)

SOURCE_SCHEMA = struct(
    "io.debezium.connector.mongo.Source",
    [
        *SOURCE_HEAD,
        ("collection", REQ_STRING),
        ("ord", Schema("int32")),
        ("lsid", OPT_STRING),
        ("txnNumber", OPT_INT64),
        ("wallTime", OPT_INT64),
    ],
    version=1,
)

TRUNCATED_ARRAY = struct(
    "io.debezium.connector.mongodb.changestream.truncatedarray",
    [("field", REQ_STRING), ("size", Schema("int32"))],
    version=1,
)

UPDATE_DESCRIPTION = struct(
    "io.debezium.connector.mongodb.changestream.updatedescription",
    [
        ("removedFields", Schema("array", optional=True, items=REQ_STRING)),
        ("updatedFields", JSON),
        ("truncatedArrays", Schema("array", optional=True, items=TRUNCATED_ARRAY)),
    ],
    optional=True,
    version=1,
)

OPS = {"insert": "c", "update": "u", "replace": "u", "delete": "d"}

# Debezium 2.7.3's MongoDbSchema declares only `ts_ms` at envelope level (see README "MongoDB").
ENVELOPE_TS_US_NS = False


def source_block(
    prefix: str,
    db: str,
    coll: str,
    sec: int,
    inc: int,
    snapshot: str | None = None,
    lsid: str | None = None,
    txn: int | None = None,
    wall_ms: int | None = None,
) -> dict:
    ts_ms = sec * 1000
    return {
        "version": DEBEZIUM_VERSION,
        "connector": "mongodb",
        "name": prefix,
        "ts_ms": ts_ms,
        "snapshot": snapshot,
        "db": db,
        "sequence": None,
        "ts_us": ts_ms * 1000,
        "ts_ns": ts_ms * 1_000_000,
        "collection": coll,
        "ord": inc,
        "lsid": lsid,
        "txnNumber": txn,
        "wallTime": wall_ms or None,
    }


# -- field.exclude.list / field.renames -----------------------------------------------------------------------


def _pattern(part: str) -> str:
    return ".*" if part == "*" else re.escape(part)


class FieldFilter:
    """Debezium's FieldSelector for one collection: excluded paths and renames (`old.path` -> `new`)."""

    def __init__(self, excludes: list[tuple[str, ...]], renames: list[tuple[tuple[str, ...], str]]) -> None:
        self.excludes = excludes
        self.renames = renames

    @property
    def empty(self) -> bool:
        return not self.excludes and not self.renames

    def _rename_path(self, path: tuple[str, ...]) -> tuple[str, ...] | None:
        """None: excluded; else the (possibly renamed) path. Array indices in paths are skipped."""
        plain = tuple(p for p in path if not p.isdigit())
        for ex in self.excludes:
            if plain[: len(ex)] == ex:
                return None
        out = list(path)
        for old, new in self.renames:
            # rename when `old` is a prefix of the plain path: replace its last element at that depth
            if plain[: len(old)] == old:
                depth, seen = -1, 0
                for i, p in enumerate(path):
                    if not p.isdigit():
                        seen += 1
                        if seen == len(old):
                            depth = i
                            break
                out[depth] = new
                plain = tuple(p for p in out if not p.isdigit())
        return tuple(out)

    def document(self, doc: dict | None, path: tuple[str, ...] = ()) -> dict | None:
        if doc is None or self.empty:
            return doc
        out: dict = {}
        for k, v in doc.items():
            p = self._rename_path((*path, k))
            if p is None:
                continue
            out[p[-1]] = self._value(v, (*path, k))
        return out

    def _value(self, v: Any, path: tuple[str, ...]) -> Any:
        if isinstance(v, dict):
            return self.document(v, path)
        if isinstance(v, list):
            return [self._value(x, path) for x in v]
        return v

    def dotted(self, name: str) -> str | None:
        """A dotted path as updateDescription prints it (removed fields, truncated arrays)."""
        if self.empty:
            return name
        p = self._rename_path(tuple(name.split(".")))
        return None if p is None else ".".join(p)

    def updated(self, fields: dict) -> dict:
        if self.empty:
            return fields
        out: dict = {}
        for k, v in fields.items():
            path = tuple(k.split("."))
            p = self._rename_path(path)
            if p is None:
                continue
            out[".".join(p)] = self._value(v, path)
        return out


def field_filter_for(exclude: str | None, renames: str | None, db: str, coll: str) -> FieldFilter:
    def applies(spec_db: str, spec_coll: str) -> bool:
        return bool(re.fullmatch(_pattern(spec_db), db) and re.fullmatch(_pattern(spec_coll), coll))

    ex: list[tuple[str, ...]] = []
    for item in (exclude or "").split(","):
        parts = item.strip().split(".")
        if len(parts) >= 3 and applies(parts[0], parts[1]):
            ex.append(tuple(parts[2:]))
    rn: list[tuple[tuple[str, ...], str]] = []
    for item in (renames or "").split(","):
        if ":" not in item:
            continue
        left, _, new = item.strip().partition(":")
        parts = left.split(".")
        if len(parts) >= 3 and applies(parts[0], parts[1]) and new:
            rn.append((tuple(parts[2:]), new))
    return FieldFilter(ex, rn)


# -- per-collection envelope ----------------------------------------------------------------------------------


class CollectionEnvelope:
    """Schemas and record builders of one collection. `names`/`key_names`/`snapshot_row`/`change` make it
    usable by the shared incremental-snapshot layer (rows are `[_id token, document]`)."""

    names = ["_id", "__document"]
    key_names = ["_id"]

    def __init__(self, settings: EnvelopeSettings, db: str, coll: str, fields: FieldFilter) -> None:
        self.settings = settings
        self.db = db
        self.coll = coll
        self.data_collection = f"{db}.{coll}"
        self.fields = fields
        self.topic = settings.topic(db, coll)
        self.key_schema = struct(f"{self.topic}.Key", [("id", REQ_STRING)])
        env_fields = [
            ("before", JSON),
            ("after", JSON),
            ("updateDescription", UPDATE_DESCRIPTION),
            ("source", settings.source_schema),
            ("op", OPT_STRING),
            ("ts_ms", OPT_INT64),
        ]
        if ENVELOPE_TS_US_NS:
            env_fields += [("ts_us", OPT_INT64), ("ts_ns", OPT_INT64)]
        env_fields.append(("transaction", TX_BLOCK))
        self.envelope_schema = struct(f"{self.topic}.Envelope", env_fields)
        self.key_frame = Framed(settings.key_codec, self.key_schema)
        self.value_frame = Framed(settings.value_codec, self.envelope_schema)
        self.frames = (self.key_frame, self.value_frame)

    def doc_json(self, doc: dict | None) -> str | None:
        if doc is None:
            return None
        return extjson.dumps(self.fields.document(doc), extjson.STRICT)

    def key(self, id_value: Any) -> dict:
        return {"id": extjson.key_string(id_value)}

    def record(
        self,
        op: str,
        key: dict,
        before: str | None,
        after: str | None,
        update: dict | None,
        source: dict,
        transaction: dict | None,
    ) -> Record:
        ns = time.time_ns()
        payload = {
            "before": before,
            "after": after,
            "updateDescription": update,
            "source": source,
            "op": op,
            "ts_ms": ns // 1_000_000,
        }
        if ENVELOPE_TS_US_NS:
            payload["ts_us"] = ns // 1000
            payload["ts_ns"] = ns
        payload["transaction"] = transaction
        if self.settings.structured:  # the data plane runs: the parts, no JSON text it would parse back
            return StructuredRecord(
                self.topic,
                self.key_schema,
                key,
                self.envelope_schema,
                payload,
                self.settings.context_headers,
                self.frames,
            )
        return Record(
            self.topic,
            self.key_frame.encode(key),
            self.value_frame.encode(payload),
            self.settings.context_headers,
        )

    def tombstone(self, key: dict) -> Record:
        if self.settings.structured:
            return StructuredRecord(
                self.topic, self.key_schema, key, None, None, self.settings.context_headers, self.frames
            )
        return Record(self.topic, self.key_frame.encode(key), None, self.settings.context_headers)

    # -- shared incremental layer ------------------------------------------------------------------------
    def snapshot_row(self, raw: list) -> dict:
        doc = raw[1]
        return {"_id": extjson.key_string(doc["_id"]), "__document": doc}

    def change(
        self,
        op: str,
        before: Any,
        after: dict | None,
        source: dict,
        transaction: dict | None,
        key: dict | None,
    ) -> Record:
        doc = after["__document"] if after else None
        return self.record(
            op,
            {"id": key["_id"]} if key else self.key(doc["_id"]),
            None,
            self.doc_json(doc),
            None,
            source,
            transaction,
        )

    def update_description(self, ud: dict | None) -> dict | None:
        if ud is None:
            return None
        f = self.fields
        removed = [x for x in (f.dotted(n) for n in ud.get("removedFields") or []) if x is not None]
        updated = ud.get("updatedFields")
        truncated = []
        for t in ud.get("truncatedArrays") or []:
            name = f.dotted(t["field"])
            if name is not None:
                truncated.append({"field": name, "size": int(t["newSize"])})
        return {
            "removedFields": removed or None,
            "updatedFields": None if updated is None else extjson.dumps(f.updated(updated), extjson.STRICT),
            "truncatedArrays": truncated or None,
        }


# -- change-stream events --------------------------------------------------------------------------------------


def session_of(event: dict) -> tuple[str | None, int | None]:
    lsid = event.get("lsid")
    txn = event.get("txnNumber")
    return (None if lsid is None else extjson.dumps(lsid, extjson.STRICT), None if txn is None else int(txn))


def tx_id(lsid: str | None, txn: int | None) -> str | None:
    """Debezium's `SessionTxnId` text: `<lsid JSON>:<txnNumber>`, or the one part that is there."""
    if lsid is None and txn is None:
        return None
    if lsid is None:
        return str(txn)
    if txn is None:
        return lsid
    return f"{lsid}:{txn}"


def wall_ms(event: dict) -> int | None:
    w = event.get("wallTime")
    if w is None:
        return None
    return extjson.date_ms(w)


class Translator:
    """Turns change-stream events into the dispatcher's document changes and transaction boundaries."""

    def __init__(self, settings: EnvelopeSettings, dispatcher, *, envelope_for) -> None:
        self.settings = settings
        self.dispatcher = dispatcher  # emulator.pipeline.dispatcher.Dispatcher
        self.envelope_for = envelope_for  # (db, coll) -> CollectionEnvelope | None (not captured)
        self.open_tx: str | None = None

    def transaction_boundary(self, tid: str | None, ts_ms: int) -> None:
        """Debezium's generic rule: a new id ends the open transaction and begins one; no id ends it."""
        if tid == self.open_tx:
            return
        if self.open_tx is not None:
            self.dispatcher.commit(self.open_tx, ts_ms)
            self.open_tx = None
        if tid is not None:
            self.dispatcher.begin(tid, ts_ms)
            self.open_tx = tid

    def event(self, ev: dict) -> CollectionEnvelope | None:
        """One change-stream event. Returns the envelope of the collection when a data record was written."""
        op = OPS.get(ev.get("operationType"))
        if op is None:
            return None
        ns = ev.get("ns") or {}
        env = self.envelope_for(ns.get("db"), ns.get("coll"))
        if env is None:
            return None
        ct = ev["clusterTime"]
        lsid, txn = session_of(ev)
        tid = tx_id(lsid, txn)
        self.transaction_boundary(tid, ct.time * 1000)
        src = source_block(
            self.settings.prefix, env.db, env.coll, ct.time, ct.inc, "false", lsid, txn, wall_ms(ev)
        )
        before = env.doc_json(ev.get("fullDocumentBeforeChange"))
        after = update = None
        if op != "d":
            after = env.doc_json(ev.get("fullDocument"))
            if ev.get("operationType") == "update":
                update = env.update_description(ev.get("updateDescription"))
        self.dispatcher.document(env, op, env.key(ev["documentKey"]["_id"]), before, after, update, src, tid)
        return env
