"""The Kafka Connect record model the data plane (transforms, converters) works on.

A `ConnectRecord` is Connect's `SourceRecord` in Python: a topic, an optional partition, key and value each
with their `Schema`, headers `(name, schema, value)` and a timestamp. Values are plain Python objects:

* struct -> dict in schema field order; map -> dict; array -> list;
* int8..int64 -> int; float/double -> float (NaN and the infinities as real floats); boolean -> bool;
  string -> str; bytes -> `bytes` (`ByteArray` where a transform moved a value Connect holds as a Java
  `byte[]` out of the struct that says so);
* `org.apache.kafka.connect.data.Decimal` -> `decimal.Decimal` (scale from the schema's parameters);
* everything else (Debezium logical types, Kafka Date/Time/Timestamp) -> the plain int/str that
  JsonConverter prints for it.

A null struct field is kept as None even when its schema has a default (Connect's `getWithoutDefault`);
whoever reads it with `Struct.get` semantics applies `default_value(schema)`. A field the connector marks as
unset (connect/unset.py: its converter failed, the default stands in) is such a null here.

`from_structured` builds it from what table envelopes hand the data plane (`StructuredRecord`: the
precomputed schemas and JSON-ready payloads), with value decoders compiled once per schema object; nothing is
parsed. `from_json_record` turns the other records (anything handed over as JsonConverter bytes, schemas
enabled, decimals as base64) back into this model; their schema
text repeats on every record, so parsed schemas are cached by the schema bytes.

Decoders never change the payloads they are given (the connectors keep row dicts for TOAST and key-change
bookkeeping): a struct that needs decoding is copied.
"""

from __future__ import annotations

import base64
from binascii import a2b_base64
from collections.abc import Callable
from dataclasses import dataclass, field
from decimal import Decimal
from typing import Any

import orjson

from emulator.connect.javatext import EXACT
from emulator.connect.schema import Field, Schema
from emulator.connect.unset import is_unset, may_be_unset
from emulator.records import Record, StructuredRecord

__all__ = [
    "DECIMAL",
    "ConnectRecord",
    "Header",
    "decoder",
    "default_value",
    "from_json_record",
    "from_structured",
    "from_structured_wire",
    "wire_float",
    "parse_json",
    "schema_from_json",
]

Header = tuple[str, Schema | None, Any]  # (name, schema, value)

DECIMAL = "org.apache.kafka.connect.data.Decimal"


class ByteArray(bytes):
    """Bytes Connect holds as a Java `byte[]` under a plain BYTES schema: the `value` of Debezium's
    VariableScaleDecimal once `Flatten` took it out of its struct. StringConverter prints a `byte[]` as
    `[B@<hash>`; the relational connectors' own BYTES columns are ByteBuffers (`java.nio.HeapByteBuffer[...]`)."""

    __slots__ = ()


@dataclass(slots=True)
class ConnectRecord:
    topic: str
    partition: int | None
    key_schema: Schema | None
    key: Any
    value_schema: Schema | None
    value: Any
    headers: list[Header] = field(default_factory=list)
    timestamp: int | None = None


# ------------------------------------------------------------------------------------------ schemas


def schema_from_json(obj: dict) -> Schema:
    """JsonConverter's `asConnectSchema`: the `schema` half of a record back into a `Schema`."""
    t = obj["type"]
    fields = items = keys = values = None
    if t == "struct":
        fields = [Field(f["field"], schema_from_json(f)) for f in obj.get("fields") or ()]
    elif t == "array":
        items = schema_from_json(obj["items"])
    elif t == "map":
        keys = schema_from_json(obj["keys"])
        values = schema_from_json(obj["values"])
    return Schema(
        t,
        optional=bool(obj.get("optional", True)),
        name=obj.get("name"),
        version=obj.get("version"),
        doc=obj.get("doc"),
        parameters=obj.get("parameters"),
        default=obj.get("default"),
        fields=fields,
        items=items,
        keys=keys,
        values=values,
    )


# ------------------------------------------------------------------------------------------- values

Decoder = Callable[[Any], Any]
_DECODERS: dict[int, tuple[Schema, Decoder | None]] = {}
_SPECIAL_FLOATS = {"NaN": float("nan"), "Infinity": float("inf"), "-Infinity": float("-inf")}


_Fragment = orjson.Fragment


def _float(v: Any) -> Any:
    c = v.__class__
    if c is float:
        return v
    if c is str:
        return _SPECIAL_FLOATS[v]
    if c is _Fragment:  # javafloat.java_double's pre-rendered Java text (1.0E10): read it as JSON does
        return float(orjson.loads(orjson.dumps(v)))
    return float(v)


wire_float = _float  # a float / double in its JSON-ready form -> the Python float


def _bytes(v: Any) -> Any:
    return base64.b64decode(v)


def _decimal(scale: int) -> Decoder:
    exp = Decimal(1).scaleb(-scale, EXACT)

    def dec(v: Any) -> Decimal:
        if v.__class__ is str:  # decimal.format=BASE64: big-endian two's complement unscaled value
            return Decimal(int.from_bytes(a2b_base64(v), "big", signed=True)).scaleb(-scale, EXACT)
        return Decimal(str(v)).quantize(exp, context=EXACT)  # NUMERIC (JSON number)

    return dec


def _unset_to_none(v: Any) -> Any:
    return None if is_unset(v) else v


def _build_decoder(schema: Schema) -> Decoder | None:
    """A function JSON payload -> model value for `schema`, or None where the JSON value already is the
    model value (most primitives and structs of them: nothing to do per record)."""
    t = schema.type
    if may_be_unset(schema):  # a field the connector's converter left unset: null in Connect's Struct
        return _unset_to_none
    if schema.name == DECIMAL and t == "bytes":
        return _decimal(int((schema.parameters or {}).get("scale", "0")))
    if t == "bytes":
        return _bytes
    if t in ("float", "double"):
        return _float
    if t == "struct":
        subs = [(f.name, decoder(f.schema)) for f in schema.fields or ()]
        todo = [(n, d) for n, d in subs if d is not None]
        if not todo:
            return None

        def struct(v: dict) -> dict:
            v = dict(v)  # never the caller's dict (see the module docstring)
            for n, d in todo:
                x = v.get(n)
                if x is not None:
                    v[n] = d(x)
            return v

        return struct
    if t == "array":
        item = decoder(schema.items)
        if item is None:
            return None
        return lambda v: [None if x is None else item(x) for x in v]
    if t == "map":
        if schema.keys.type != "string":  # JsonConverter writes such maps as [[k, v], ...]
            return _map_pairs(schema)
        vd = decoder(schema.values)
        if vd is None:
            return None
        return lambda v: {k: None if x is None else vd(x) for k, x in v.items()}
    return None


def decoder(schema: Schema) -> Decoder | None:
    cached = _DECODERS.get(id(schema))
    if cached is not None and cached[0] is schema:
        return cached[1]
    d = _build_decoder(schema)
    _DECODERS[id(schema)] = (schema, d)
    return d


def _map_pairs(schema: Schema) -> Decoder:
    kd, vd = decoder(schema.keys), decoder(schema.values)

    def pairs(v: Any) -> dict:
        items = v.items() if isinstance(v, dict) else v
        return {
            (k if kd is None or k is None else kd(k)): (x if vd is None or x is None else vd(x))
            for k, x in items
        }

    return pairs


def parse_json(schema: Schema | None, payload: Any) -> Any:
    """A JSON-ready payload (what JsonConverter prints) -> the model value for `schema`."""
    if payload is None or schema is None:
        return payload
    d = decoder(schema)
    return payload if d is None else d(payload)


_DEFAULTS: dict[int, tuple[Schema, Any]] = {}


def default_value(schema: Schema) -> Any:
    """The schema's default as a model value (`Schema.default` holds it JSON-ready)."""
    if schema.default is None:
        return None
    cached = _DEFAULTS.get(id(schema))
    if cached is not None and cached[0] is schema:
        return cached[1]
    d = decoder(schema)
    value = schema.default if d is None else d(orjson.loads(orjson.dumps(schema.default)))
    _DEFAULTS[id(schema)] = (schema, value)
    return value


# ---------------------------------------------------------------------------- JsonConverter -> model

_SCHEMAS: dict[bytes, Schema] = {}
_SCHEMA_CACHE_MAX = 4096
_HEAD = b'{"schema":'
_MID = b',"payload":'


def _split(data: bytes) -> tuple[Schema | None, Any]:
    """`{"schema":S,"payload":P}` -> (Schema, model value), the schema parsed once per distinct text."""
    if data.startswith(_HEAD):
        cut = data.find(_MID)
        if cut > 0:
            text = data[len(_HEAD) : cut]
            schema = _SCHEMAS.get(text)
            if schema is None:
                try:
                    schema = schema_from_json(orjson.loads(text))
                except orjson.JSONDecodeError:  # ',"payload":' inside the schema text: parse it all
                    schema = None
                else:
                    if len(_SCHEMAS) >= _SCHEMA_CACHE_MAX:
                        _SCHEMAS.clear()
                    _SCHEMAS[text] = schema
            if schema is not None:
                return schema, parse_json(schema, orjson.loads(data[cut + len(_MID) : -1]))
    obj = orjson.loads(data)
    if isinstance(obj, dict) and obj.keys() == {"schema", "payload"}:
        schema = schema_from_json(obj["schema"]) if obj["schema"] is not None else None
        return schema, parse_json(schema, obj["payload"])
    raise ValueError("the connector's record is not JsonConverter output with schemas enabled")


HEADER_LISTS: dict[int, tuple[list, list[Header]]] = {}


def connect_headers(headers: list[tuple[str, bytes]] | None) -> list[Header]:
    """The header list in the model; for a shared list (the context headers) the same list object each time:
    transforms never change a record's list in place (they make a new one), and the converters cache
    their output by its identity."""
    if not headers:
        return []
    cached = HEADER_LISTS.get(id(headers))
    if cached is not None and cached[0] is headers:
        return cached[1]
    out: list[Header] = []
    for name, raw in headers:
        if raw is None or raw == b"null":
            out.append((name, None, None))
        else:
            schema, value = _split(raw)
            out.append((name, schema, value))
    if len(HEADER_LISTS) >= 64:  # shared lists (the context headers) are the hits; others churn
        HEADER_LISTS.clear()
    HEADER_LISTS[id(headers)] = (headers, out)
    return out


def _source_snapshot(value: Any) -> Any:
    """Debezium never puts snapshot=false into the source struct (SnapshotRecord.FALSE.toSource() does
    nothing): the value is null and JsonConverter prints the schema's default "false". A copy when changed."""
    if value.__class__ is dict:
        src = value.get("source")
        if src.__class__ is dict and src.get("snapshot") == "false":
            src = dict(src)
            src["snapshot"] = None
            value = dict(value)
            value["source"] = src
    return value


_VALUE_PLANS: dict[int, tuple[Schema, Decoder]] = {}


def _value_plan(schema: Schema, decode: bool = True) -> Decoder:
    """Payload -> model value for a table record's value schema: the decoder, then the source fix-up."""
    d = decoder(schema) if decode else None
    snapshot = False
    if schema.type == "struct":
        src = next((f for f in schema.fields or () if f.name == "source"), None)
        snapshot = (
            src is not None
            and src.schema.type == "struct"
            and any(f.name == "snapshot" for f in src.schema.fields or ())
        )
    if d is None and not snapshot:
        return lambda v: v
    if not snapshot:
        return d

    def plan(v: Any) -> Any:
        if d is not None:
            v = d(v)
        src = v.get("source")
        if src is not None and src.get("snapshot") == "false":  # see _source_snapshot
            src = dict(src)
            src["snapshot"] = None
            v = dict(v)
            v["source"] = src
        return v

    return plan


_WIRE_PLANS: dict[int, tuple[Schema, Decoder]] = {}


def from_structured_wire(record: StructuredRecord) -> ConnectRecord:
    """Like `from_structured`, the values left in their JSON-ready form (only the source fix-up): for a chain
    of transforms that read no field values and JsonConverters that would print that form again."""
    value_schema, value = record.value_schema, record.value_payload
    if value is not None:
        hit = _WIRE_PLANS.get(id(value_schema))
        if hit is None or hit[0] is not value_schema:
            hit = (value_schema, _value_plan(value_schema, decode=False))
            _WIRE_PLANS[id(value_schema)] = hit
        value = hit[1](value)
    headers = record.headers
    if headers:
        hit = HEADER_LISTS.get(id(headers))
        headers = hit[1] if hit is not None and hit[0] is headers else connect_headers(headers)
    else:
        headers = []
    key = record.key_payload
    return ConnectRecord(
        record.topic, None, record.key_schema if key is not None else None, key, value_schema, value, headers
    )


def from_structured(record: StructuredRecord) -> ConnectRecord:
    """A table envelope's record in its parts -> a `ConnectRecord` (no JSON parsed)."""
    key_schema, key = record.key_schema, record.key_payload
    if key is not None:
        hit = _DECODERS.get(id(key_schema))
        d = hit[1] if hit is not None and hit[0] is key_schema else decoder(key_schema)
        if d is not None:
            key = d(key)
    value_schema, value = record.value_schema, record.value_payload
    if value is not None:
        hit = _VALUE_PLANS.get(id(value_schema))
        if hit is None or hit[0] is not value_schema:
            hit = (value_schema, _value_plan(value_schema))
            _VALUE_PLANS[id(value_schema)] = hit
        value = hit[1](value)
    headers = record.headers
    if headers:
        hit = HEADER_LISTS.get(id(headers))
        headers = hit[1] if hit is not None and hit[0] is headers else connect_headers(headers)
    else:
        headers = []
    return ConnectRecord(record.topic, None, key_schema, key, value_schema, value, headers)


def from_json_record(record: Record) -> ConnectRecord:
    """A connector's record (JsonConverter bytes with schemas) -> a `ConnectRecord`."""
    key_schema = value_schema = key = value = None
    if record.key is not None:
        key_schema, key = _split(record.key)
    if record.value is not None:
        value_schema, value = _split(record.value)
        value = _source_snapshot(value)
    return ConnectRecord(
        record.topic,
        getattr(record, "partition", None),
        key_schema,
        key,
        value_schema,
        value,
        connect_headers(record.headers),
    )
