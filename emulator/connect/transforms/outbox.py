"""Debezium's outbox `EventRouter` (io.debezium.transforms.outbox.EventRouter), tracing off.

Deletes and tombstones of the outbox table are dropped, updates are skipped (warn / error) or fail the
task (fatal); each insert becomes one record on `route.topic.replacement` (after `route.topic.regex`) of
the `route.by.field` value, keyed by `table.field.event.key`, with the `id` header and the additional
fields placed in headers, the envelope or the partition.
"""

from __future__ import annotations

import json
import logging
from typing import Any

from emulator.connect.record import ConnectRecord
from emulator.connect.schema import Field, Schema
from emulator.connect.transforms.base import (
    Options,
    Transform,
    TransformError,
    fget,
    field_of,
    is_envelope,
    java_regex,
    java_replacement,
    register,
    replace_first,
)
from emulator.naming import Adjuster, field_name_adjuster

log = logging.getLogger("emulator.transforms")

PLACEMENTS = ("header", "envelope", "partition")
_KEY_STRING = Schema("string")


@register("io.debezium.transforms.outbox.EventRouter")
class EventRouter(Transform):
    def __init__(self, opts: Options) -> None:
        super().__init__(opts)
        self.invalid_op = opts.enum("table.op.invalid.behavior", ("warn", "error", "fatal"), "warn")
        self.f_id = opts.str("table.field.event.id", "id")
        self.f_key = opts.str("table.field.event.key", "aggregateid")
        opts.str("table.field.event.type", "type")
        self.f_ts = opts.str("table.field.event.timestamp")
        self.f_payload = opts.str("table.field.event.payload", "payload")
        self.f_version = opts.str("table.field.event.schema.version")
        self.route_by = opts.str("route.by.field", "aggregatetype")
        regex = opts.str("route.topic.regex", "(?<routedByValue>.*)")
        try:
            self.route_regex = java_regex(regex)
        except Exception as e:  # noqa: BLE001
            raise opts.fail("route.topic.regex", f"not a valid regular expression: {e}") from None
        self.route_replacement = java_replacement(
            opts.str("route.topic.replacement", "outbox.event.${routedByValue}")
        )
        self.tombstone_on_empty = opts.bool("route.tombstone.on.empty.payload", False)
        self.expand = opts.bool("table.expand.json.payload", False)
        self.null_bytes = (
            opts.enum("table.json.payload.null.behavior", ("ignore", "optional_bytes"), "ignore")
            == "optional_bytes"
        )
        # the expanded payload's field names (JsonSchemaData's FieldNamer; values are then looked up in the JSON
        # by the adjusted name, so a renamed key's value is null, as in Debezium)
        self.adjust = field_name_adjuster(
            opts.enum("field.name.adjustment.mode", ("none", "avro", "avro_unicode"), "none")
        )
        self.missing = opts.enum("table.field.additional.missing", ("error", "ignore"), "error")
        self.additional: list[tuple[str, str, str]] = []
        placement = opts.str("table.fields.additional.placement")
        if placement is not None:
            for item in placement.split(","):
                parts = item.split(":")
                if len(parts) < 2:
                    raise opts.fail(
                        "table.fields.additional.placement",
                        f"'{item}' is not field:placement or field:placement:alias",
                    )
                name = parts[0].strip()
                where = parts[1].strip().lower()
                if where not in PLACEMENTS:
                    raise opts.fail(
                        "table.fields.additional.placement",
                        f"unknown placement '{parts[1].strip()}'; allowed: {', '.join(PLACEMENTS)}",
                    )
                self.additional.append((name, where, parts[2].strip() if len(parts) == 3 else name))
        for k in opts.props:
            if k.startswith("tracing."):
                log.info(
                    "%s%s: tracing is off in this emulator (as in Debezium without OpenTelemetry)",
                    opts.prefix,
                    k,
                )
        self.only_headers = not any(a[1] == "envelope" for a in self.additional)
        self.payload_schemas: dict[bytes, Schema] = {}
        self.versioned: dict[int, Schema] = {}
        self.inferred: dict[bytes, Schema] = {}

    def apply(self, r: ConnectRecord) -> ConnectRecord | None:
        if r.value is None:
            return None
        if not is_envelope(r):
            return r
        envelope = r.value
        op = envelope.get("op")
        if op == "d":
            return None
        if op == "u":
            if self.invalid_op == "fatal":
                raise TransformError(f"Unexpected update message received {r.key}, fail.")
            (log.error if self.invalid_op == "error" else log.warning)(
                "Unexpected update message received %s and ignored", r.key
            )
            return None
        after_field = field_of(r.value_schema, "after")
        if after_field is None:
            raise TransformError("Unknown field: after")
        event = envelope.get("after")
        if not isinstance(event, dict):
            raise TransformError("Only Struct objects supported for [Read Outbox Event], found: null")
        event_schema = after_field.schema
        payload_field = field_of(event_schema, self.f_payload)
        if payload_field is None:
            raise TransformError(f"Unable to find payload field {self.f_payload} in event")
        payload_schema = payload_field.schema
        timestamp = self._timestamp(envelope, event, event_schema)
        id_field = field_of(event_schema, self.f_id)
        event_id = fget(id_field, event) if id_field is not None else None
        payload = fget(payload_field, event)
        if id_field is None:
            raise TransformError(f"Unable to find event-id field {self.f_id} in event")
        headers = [*r.headers, ("id", id_field.schema, event_id)]
        if self.expand:
            if isinstance(payload, str):
                try:
                    payload_schema, payload = expand_json(
                        self.f_payload, payload, self.null_bytes, self.adjust
                    )
                    # one object per inferred schema text (the converters cache by schema object)
                    payload_schema = self.inferred.setdefault(payload_schema.json_bytes(), payload_schema)
                    if len(self.inferred) > 4096:
                        self.inferred.clear()
                except ExpansionFailed as e:  # Debezium logs "JSON expansion failed" and keeps the string
                    log.warning("JSON expansion failed: %s", e)
            elif payload is not None:
                log.warning("Expand JSON payload is turned on but payload is not a string in %s", r.key)
        routed = self._get_string(event_schema, event, self.route_by)
        value_schema = None
        if not self.only_headers:
            value_schema = self._value_schema(payload_schema, event_schema, routed, event)
        struct_value = None if self.only_headers else {f.name: None for f in value_schema.fields}
        if struct_value is not None:
            struct_value["payload"] = payload
        partition = None
        for name, where, alias in self.additional:
            f = field_of(event_schema, name)
            if self.missing == "ignore" and f is None:
                continue
            if f is None:
                raise TransformError(f"{name} is not a valid field name")
            v = fget(f, event)
            if where == "envelope":
                struct_value[alias] = v
            elif where == "header":
                headers.append((alias, f.schema, v))
            else:
                # Debezium reads it with Struct.getInt32, which checks the field's schema type (recorded: connect
                # case mariadb_outbox_partition_not_int, a VARCHAR `type` fails every event)
                if f.schema.type != "int32":
                    raise TransformError(f"Field '{name}' is not of type INT32")
                partition = v
        is_delete = payload is None or (isinstance(payload, str) and not payload.strip())
        if is_delete and self.tombstone_on_empty:
            new_schema, new_value = None, None
        elif self.only_headers:
            new_schema, new_value = payload_schema, payload
        else:
            new_schema, new_value = value_schema, struct_value
        key_schema, key = _KEY_STRING, None
        if self.f_key is not None:
            kf = field_of(event_schema, self.f_key)
            if kf is None:
                raise TransformError(f"{self.f_key} is not a valid field name")
            key_schema, key = kf.schema, fget(kf, event)
        if routed is None:
            raise TransformError(f"the outbox event has no topic: {self.route_by} is null")
        topic = replace_first(self.route_regex, self.route_replacement, routed)
        return ConnectRecord(
            routed if topic is None else topic,
            partition,
            key_schema,
            key,
            new_schema,
            new_value,
            headers,
            timestamp,
        )

    @staticmethod
    def _get_string(schema: Schema, value: dict, name: str) -> str | None:
        f = field_of(schema, name)
        if f is None:
            raise TransformError(f"{name} is not a valid field name")
        v = fget(f, value)
        if v is not None and not isinstance(v, str):
            raise TransformError(f"Field '{name}' is not of type STRING")
        return v

    def _timestamp(self, envelope: dict, event: dict, event_schema: Schema) -> int | None:
        if self.f_ts is None:
            return envelope.get("ts_ms")
        f = field_of(event_schema, self.f_ts)
        if f is None:
            raise TransformError(f"Unable to find timestamp field {self.f_ts} in event")
        ts = fget(f, event)
        if ts is None:
            return envelope.get("ts_ms")
        name = f.schema.name
        if name is None:
            raise TransformError(
                f"Unsupported field type {f.schema.type_name()} (without logical schema name) "
                "for event timestamp"
            )
        if name in ("org.apache.kafka.connect.data.Timestamp", "io.debezium.time.Timestamp"):
            return ts
        if name == "io.debezium.time.MicroTimestamp":
            return ts // 1000
        if name == "io.debezium.time.NanoTimestamp":
            return ts // 1_000_000
        raise TransformError(f"Unsupported field type {name} for event timestamp")

    def _value_schema(
        self, payload_schema: Schema, event_schema: Schema, routed: str | None, event: dict
    ) -> Schema:
        if self.f_version is not None:
            vf = field_of(event_schema, self.f_version)
            version = fget(vf, event) if vf is not None else None
            hit = self.versioned.get(version)
            if hit is None:
                hit = self._build(payload_schema, event_schema, routed).with_(version=version)
                self.versioned[version] = hit
            return hit
        # Debezium caches by the payload schema alone: the name keeps the first routed topic seen
        key = payload_schema.json_bytes()
        hit = self.payload_schemas.get(key)
        if hit is None:
            hit = self._build(payload_schema, event_schema, routed)
            self.payload_schemas[key] = hit
        return hit

    def _build(self, payload_schema: Schema, event_schema: Schema, routed: str | None) -> Schema:
        original = event_schema.name
        if original is not None:
            dot = original.rfind(".")
            name = (
                (original[: dot + 1] + f"{routed}." + original[dot + 1 :])
                if dot != -1
                else f"{routed}.{original}"
            )
        else:
            name = str(routed)
        fields = [Field("payload", payload_schema)]
        for fname, where, alias in self.additional:
            if where == "envelope":
                f = field_of(event_schema, fname)
                if f is None:
                    if self.missing == "error":
                        raise TransformError(f"Unable to find field {fname} in event")
                    continue
                fields.append(Field(alias, f.schema))
        return Schema("struct", name=name, fields=fields)


# ------------------------------------------------------------------------- table.expand.json.payload


class ExpansionFailed(Exception):
    pass


_INT32 = Schema("int32", optional=True)
_INT64 = Schema("int64", optional=True)
_FLOAT64 = Schema("double", optional=True)
_STRING = Schema("string", optional=True)
_BOOLEAN = Schema("boolean", optional=True)
_BYTES = Schema("bytes", optional=True)


def expand_json(key: str, text: str, null_bytes: bool, adjust: Adjuster | None = None) -> tuple[Schema, Any]:
    """Debezium's `JsonSchemaData`: a JSON text -> (Connect schema inferred from it, its value)."""
    if not text.startswith(("{", "[")):
        raise ExpansionFailed(f"Unable to parse payload starting with '{text[:1]}'")
    try:
        doc = json.loads(text)
    except ValueError as e:
        raise ExpansionFailed(str(e)) from None
    schema = _schema_of(key, doc, null_bytes, adjust)
    if schema is None or schema.type != "struct":
        # toConnectData builds a Struct from whatever schema it got: anything but an object fails
        raise ExpansionFailed("the payload is not a JSON object")
    return schema, _value_of(doc, schema)


def _schema_of(key: str | None, node: Any, null_bytes: bool, adjust: Adjuster | None) -> Schema | None:
    if isinstance(node, bool):
        return _BOOLEAN
    if isinstance(node, str):
        return _STRING
    if isinstance(node, int):
        if -(2**31) <= node < 2**31:
            return _INT32
        if -(2**63) <= node < 2**63:
            return _INT64
        raise ExpansionFailed("a number beyond long becomes a BigDecimal that a FLOAT64 field refuses")
    if isinstance(node, float):
        return _FLOAT64
    if isinstance(node, list):
        if not node:
            return None
        return Schema("array", optional=True, items=_array_items(key, node, null_bytes, adjust))
    if isinstance(node, dict):
        fields: list[Field] = []
        names: set[str] = set()
        for name, v in node.items():
            name = adjust(name) if adjust is not None else name
            fs = _schema_of((f"{key}." if key else "") + name, v, null_bytes, adjust)
            if fs is not None and name not in names:
                names.add(name)
                fields.append(Field(name, fs))
        return Schema("struct", optional=True, name=key, fields=fields)
    return _BYTES if null_bytes else None  # null


def _array_items(key: str | None, array: list, null_bytes: bool, adjust: Adjuster | None) -> Schema:
    sample = None
    ref_schema = None
    for e in array:
        if e is None:
            continue
        if sample is None:
            sample = e
        if _node_type(e) != _node_type(sample):
            raise ExpansionFailed("Field is not a homogenous array")
        if _node_type(sample) == "number":
            ref_schema = ref_schema or _schema_of(None, sample, null_bytes, adjust)
            if _schema_of(None, e, null_bytes, adjust) is not ref_schema:
                raise ExpansionFailed("Field is not a homogenous array, different number types")
    if isinstance(sample, dict):
        distinct: list[Schema] = []
        for e in array:
            if isinstance(e, dict):
                s = _schema_of(key, e, null_bytes, adjust)
                if not any(s.json_bytes() == d.json_bytes() for d in distinct):
                    distinct.append(s)
        if len(distinct) > 1:
            # Debezium merges them in java.util.HashSet order (schema hash codes): not reproduced
            raise TransformError(
                "table.expand.json.payload: an array whose objects differ in their fields is not supported "
                "by this emulator"
            )
        return distinct[0]
    schema = _schema_of(None, sample, null_bytes, adjust)
    if schema is None:
        raise ExpansionFailed("Array has unrecognized member schema.")
    return schema


def _node_type(v: Any) -> str:
    if v is None:
        return "null"
    if isinstance(v, bool):
        return "boolean"
    if isinstance(v, int | float):
        return "number"
    if isinstance(v, str):
        return "string"
    if isinstance(v, list):
        return "array"
    return "object"


def _value_of(node: Any, schema: Schema) -> Any:
    if node is None:
        return None
    if isinstance(node, dict):
        if schema.type != "struct":
            raise ExpansionFailed("an object where the schema has no struct")
        out = {f.name: None for f in schema.fields}
        for f in schema.fields:
            if f.name in node:
                out[f.name] = _checked(_value_of(node[f.name], f.schema), f)
        return out
    if isinstance(node, list):
        return [_value_of(e, schema.items) for e in node]
    return node


_TYPE_OK = {
    "boolean": lambda v: isinstance(v, bool),
    "string": lambda v: isinstance(v, str),
    "int32": lambda v: isinstance(v, int) and not isinstance(v, bool),
    "int64": lambda v: isinstance(v, int) and not isinstance(v, bool),
    "double": lambda v: isinstance(v, float),
    "struct": lambda v: isinstance(v, dict),
    "array": lambda v: isinstance(v, list),
    "bytes": lambda v: False,
}


def _checked(value: Any, f: Field) -> Any:
    """Struct.put's validation: a value of another type than the field's schema fails the expansion."""
    if value is not None and not _TYPE_OK[f.schema.type](value):
        raise ExpansionFailed(f"Invalid Java object for schema type {f.schema.type_name()}: field {f.name}")
    return value
