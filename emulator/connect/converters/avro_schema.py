"""Confluent's `AvroData.fromConnectSchema` (kafka-connect-avro-data 7.0.x): Connect schema -> Avro schema,
and the schema's JSON text as Avro Java's `Schema.toString()` writes it.

Mapping (with `connect.meta.data=true`, the default):
* int8/int16 -> `int` with `connect.type`; int32 `int`; int64 `long`; float32 `float`; float64 `double`;
  boolean, string, bytes as named; array -> `array`; a map with non-optional string keys -> `map`, else an
  array of `MapEntry` records (`key`, `value`);
* struct -> `record`, its Connect name split at the last dot into namespace and name (no name:
  `io.confluent.connect.avro.ConnectDefault`);
* optional -> a union `["null", T]`, or `[T, "null"]` when the schema has a default;
* properties on the non-union schema, in this order: `connect.doc`, `connect.version`,
  `connect.parameters`, `connect.default`, `connect.name`, `connect.type`; Connect's Decimal gets `scale` and
  `precision` (from `connect.decimal.precision`, else 64) first and `logicalType: decimal` last; Kafka's
  Date / Time / Timestamp get `logicalType` date / time-millis / timestamp-millis;
* a record field's `default`: the Connect default, or null for an optional field without one.
Equal Connect schemas map to one Avro schema, so a named record met again is written as a name reference.
"""

from __future__ import annotations

import re
import struct
import unicodedata
from decimal import Decimal
from typing import Any

import orjson

from emulator.connect.converters.errors import ConversionError
from emulator.connect.javafloat import java_double
from emulator.connect.javatext import unscaled_bytes
from emulator.connect.record import DECIMAL, default_value
from emulator.connect.schema import Schema

NAMESPACE = "io.confluent.connect.avro"
DEFAULT_NAME = "ConnectDefault"
KAFKA_DATE = "org.apache.kafka.connect.data.Date"
KAFKA_TIME = "org.apache.kafka.connect.data.Time"
KAFKA_TIMESTAMP = "org.apache.kafka.connect.data.Timestamp"
_LOGICAL = {KAFKA_DATE: "date", KAFKA_TIME: "time-millis", KAFKA_TIMESTAMP: "timestamp-millis"}
_PRIMITIVE = {
    "int8": "int",
    "int16": "int",
    "int32": "int",
    "int64": "long",
    "float": "float",
    "double": "double",
    "boolean": "boolean",
    "string": "string",
    "bytes": "bytes",
}
_PLAIN_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*\Z")  # doScrubName leaves these alone
_NOT_PLAIN = re.compile(r"[^A-Za-z0-9_]")
_URL_SAFE = frozenset(b"abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789.-*_")
_LETTERS = frozenset(("Lu", "Ll", "Lt", "Lm", "Lo"))


class Avro:
    """One Avro schema node. kind: a primitive name, 'record', 'array', 'map' or 'union'."""

    __slots__ = ("kind", "props", "name", "namespace", "fields", "items", "values", "branches", "key")

    def __init__(self, kind: str, props: dict | None = None) -> None:
        self.kind = kind
        self.props: dict[str, Any] = props if props is not None else {}
        self.name: str | None = None
        self.namespace: str | None = None
        self.fields: list[tuple[str, Avro, bool, Any]] = []  # (name, schema, has_default, default JSON)
        self.items: Avro | None = None
        self.values: Avro | None = None
        self.branches: list[Avro] = []
        self.key = None  # structural identity of a record (its Connect schema text)

    @property
    def fullname(self) -> str:
        return f"{self.namespace}.{self.name}" if self.namespace else self.name

    # -- Schema.toString()
    def to_json(self, names: dict[str, Any] | None = None, space: str | None = None) -> Any:
        names = {} if names is None else names
        k = self.kind
        if k == "union":
            return [b.to_json(names, space) for b in self.branches]
        if k == "record":
            full = self.fullname
            if full in names and names[full] == self.key:
                return self.name if (self.namespace or None) == (space or None) else full
            names[full] = self.key
            out: dict[str, Any] = {"type": "record", "name": self.name}
            if self.namespace is not None:
                if self.namespace != space:
                    out["namespace"] = self.namespace
            elif space is not None:
                out["namespace"] = ""
            fields = []
            for fname, fschema, has_default, default in self.fields:
                f = {"name": fname, "type": fschema.to_json(names, self.namespace)}
                if has_default:
                    f["default"] = default
                fields.append(f)
            out["fields"] = fields
            out.update(self.props)
            return out
        if k == "array":
            out = {"type": "array", "items": self.items.to_json(names, space)}
            out.update(self.props)
            return out
        if k == "map":
            out = {"type": "map", "values": self.values.to_json(names, space)}
            out.update(self.props)
            return out
        if not self.props:
            return k
        return {"type": k, **self.props}

    def text(self) -> str:
        return orjson.dumps(self.to_json(), default=_json_default).decode()


def _json_default(obj: Any) -> Any:
    raise TypeError(obj)


def split_name(name: str, scrub: bool) -> tuple[str | None, str]:
    """AvroData.splitName: Java's `name.split("\\.")` (trailing empty parts dropped), each part through
    scrubName, the last part the record's name and the others, joined by dots, its namespace."""
    if not name:
        return None, name
    parts = name.split(".")
    while parts and not parts[-1]:
        parts.pop()
    if not parts:  # "." splits to no part: parts[0] throws in AvroData
        raise ConversionError(
            f"AvroConverter: schema name {name!r} has no part (ArrayIndexOutOfBoundsException)"
        )
    if scrub:
        parts = [scrub_name(p) for p in parts]
    return (".".join(parts[:-1]) if len(parts) > 1 else None), parts[-1]


def scrub_name(name: str) -> str:
    """AvroData.doScrubName (`scrub.invalid.names=true`; kafka-connect-avro-data 7.0.16, from its bytecode): a
    name of ASCII letters, digits and `_` not starting with a digit is kept; any other is URL-encoded as
    `URLEncoder.encode(name, "UTF-8")` does (letters, digits and `.-*_` kept, a space `+`, every other UTF-8
    byte `%XX`), prefixed with `x` when that starts with a digit, and every character but ASCII letters,
    digits and `_` replaced by `_` (`my col` -> `my_col`, `1st` -> `x1st`, `ñu` -> `_C3_B1u`)."""
    if not name or _PLAIN_NAME.match(name):
        return name
    encoded = "".join(
        chr(b) if b in _URL_SAFE else "+" if b == 0x20 else f"%{b:02X}"
        for b in name.encode("utf-8", "surrogatepass")
    )
    if encoded[0].isdigit():
        encoded = "x" + encoded
    return _NOT_PLAIN.sub("_", encoded)


def _check_name(name: str) -> None:
    """Avro 1.11.3's Schema.validateName, which Schema.createRecord and Schema.Field apply to names but not to
    namespaces (a topic prefix `my-server` is a valid namespace there; recorded, the keys of connect case
    pg_avro_scrub_names): the first character a letter (Java's Character.isLetter on a UTF-16 unit: a character
    outside the BMP is two surrogates, neither a letter) or `_`, the others letters, decimal digits or `_`."""
    if _PLAIN_NAME.match(name):
        return
    if not name:
        raise ConversionError("Empty name")
    first = name[0]
    if not (first == "_" or (ord(first) < 0x10000 and unicodedata.category(first) in _LETTERS)):
        raise ConversionError(f"Illegal initial character: {name}")
    for c in name[1:]:
        if c != "_" and not (ord(c) < 0x10000 and unicodedata.category(c) in _LETTERS or _is_decimal(c)):
            raise ConversionError(f"Illegal character in: {name}")


def _is_decimal(c: str) -> bool:
    return ord(c) < 0x10000 and unicodedata.category(c) == "Nd"


_F32 = struct.Struct("<f")


def default_json(schema: Schema, value: Any, field: bool = False) -> Any:
    """`defaultValueFromConnect`: a Connect default as the JSON node Avro stores. `field`: as a record field's
    `default`, where Confluent's registered schema holds a float as the float32 widened to a double (a FLOAT
    DEFAULT 1.1 is `1.100000023841858` there, `1.1` in `connect.default`; recorded, connect case
    mariadb_avro_float_default; presumably Avro's Schema.Field storing the default as a double, not read)."""
    if value is None:
        return None
    t = schema.type
    if field and t == "float":
        return java_double(_F32.unpack(_F32.pack(float(value)))[0])
    if t == "bytes":
        raw = (
            unscaled_bytes(value, int((schema.parameters or {}).get("scale", "0")))
            if schema.name == DECIMAL and isinstance(value, Decimal)
            else bytes(value)
        )
        return raw.decode("latin-1")
    if t in ("float", "double"):
        return java_double(float(value))
    if t == "array":
        return [default_json(schema.items, x, field) for x in value]
    if t == "map":
        if schema.keys.type == "string" and not schema.keys.optional:
            return {k: default_json(schema.values, x, field) for k, x in value.items()}
        return [
            [default_json(schema.keys, k, field), default_json(schema.values, x, field)]
            for k, x in value.items()
        ]
    if t == "struct":
        return {f.name: default_json(f.schema, value.get(f.name), field) for f in schema.fields or ()}
    return value


def schema_key(schema: Schema) -> bytes:
    """Connect's schema equality, as text (type, optional, name, version, doc, parameters, default, fields)."""
    return schema.json_bytes()


class AvroData:
    """`fromConnectSchema` with Confluent's caches: equal Connect schemas -> the same Avro schema."""

    def __init__(self, connect_meta_data: bool = True, scrub_invalid_names: bool = False) -> None:
        self.meta = connect_meta_data
        self.scrub = scrub_invalid_names
        self._by_id: dict[int, tuple[Schema, Avro]] = {}
        self._by_key: dict[bytes, Avro] = {}

    def avro(self, schema: Schema) -> Avro:
        hit = self._by_id.get(id(schema))
        if hit is not None and hit[0] is schema:
            return hit[1]
        result = self._convert(schema)
        if len(self._by_id) > 4096:
            self._by_id.clear()
        self._by_id[id(schema)] = (schema, result)
        return result

    def _convert(self, schema: Schema) -> Avro:
        key = schema_key(schema)
        cached = self._by_key.get(key)
        if cached is not None:
            return cached
        namespace, name = NAMESPACE, DEFAULT_NAME
        if schema.name is not None:
            namespace, name = split_name(schema.name, self.scrub)
        t = schema.type
        connect_type = None
        if t in ("int8", "int16"):
            connect_type = t
        if t in _PRIMITIVE:
            base = Avro(_PRIMITIVE[t])
            if t == "bytes" and schema.name == DECIMAL:
                params = schema.parameters or {}
                base.props["scale"] = int(params.get("scale", "0"))
                base.props["precision"] = int(params.get("connect.decimal.precision", "64"))
        elif t == "array":
            base = Avro("array")
            base.items = self.avro(schema.items)
        elif t == "map":
            if schema.keys.type == "string" and not schema.keys.optional:
                base = Avro("map")
                base.values = self.avro(schema.values)
            else:
                entry = Avro("record")
                if schema.name is None:
                    entry.name, entry.namespace = "MapEntry", namespace
                else:
                    entry.name, entry.namespace = name, namespace
                    entry.props["connect.internal.type"] = "MapEntry"
                entry.key = b"MapEntry:" + key
                entry.fields = [self._field("key", schema.keys), self._field("value", schema.values)]
                base = Avro("array")
                base.items = entry
        elif t == "struct":
            if schema.optional:
                base = Avro("union")
                base.branches = [Avro("null"), self.avro(schema.with_(optional=False))]
                # (a struct default is unusual; Confluent's union order then ignores it, as here)
            else:
                base = Avro("record")
                _check_name(name)
                base.name, base.namespace = name, namespace
                base.key = key
                base.fields = [self._field(f.name, f.schema) for f in schema.fields or ()]
        else:
            raise ConversionError(f"AvroConverter: unknown schema type {t}")
        final = base
        if base.kind != "union":
            p = base.props
            if self.meta:
                if schema.doc is not None:
                    p["connect.doc"] = schema.doc
                if schema.version is not None:
                    p["connect.version"] = schema.version
                if schema.parameters:
                    p["connect.parameters"] = dict(schema.parameters)
                if schema.default is not None:
                    p["connect.default"] = default_json(schema, default_value(schema))
                if schema.name is not None:
                    p["connect.name"] = schema.name
                if connect_type is not None:
                    p["connect.type"] = connect_type
            if schema.name == DECIMAL and t == "bytes":
                p["logicalType"] = "decimal"
            elif schema.name in _LOGICAL:
                p["logicalType"] = _LOGICAL[schema.name]
            for k, v in (schema.parameters or {}).items():
                if k.startswith("avro"):
                    p[k] = v
            if schema.optional:
                final = Avro("union")
                final.branches = [base, Avro("null")] if schema.default is not None else [Avro("null"), base]
        self._by_key[key] = final
        return final

    def _field(self, name: str, schema: Schema) -> tuple[str, Avro, bool, Any]:
        if self.scrub:
            name = scrub_name(name)
        _check_name(name)
        if schema.default is not None:
            return name, self.avro(schema), True, default_json(schema, default_value(schema), field=True)
        if schema.optional:
            return name, self.avro(schema), True, None
        return name, self.avro(schema), False, None
