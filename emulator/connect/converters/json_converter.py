"""Kafka's `org.apache.kafka.connect.json.JsonConverter` (4.x) on the Connect record model.

`convertToJson` walks the schema: bytes as base64, `Decimal` as base64 of the unscaled value or
(`decimal.format=NUMERIC`) as the number `BigDecimal.toString` prints, doubles and floats as Java prints them,
maps with non-string keys as `[[k, v], ...]`, and a null replaced by the schema's default when
`replace.null.with.default=true` (Connect's `Struct.get`) or kept null (`getWithoutDefault`) when false.
Per schema the walk is compiled once into a function that builds the orjson-ready payload; parts of a schema
that need nothing (ints, strings, booleans without defaults) are passed through untouched.
"""

from __future__ import annotations

import base64
from collections.abc import Callable
from decimal import Decimal
from operator import itemgetter
from typing import Any

import orjson

from emulator.connect.converters.errors import ConversionError
from emulator.connect.javafloat import java_double
from emulator.connect.javatext import decimal_text, float_text, unscaled_bytes
from emulator.connect.record import DECIMAL, default_value
from emulator.connect.schema import Schema
from emulator.connect.unset import is_unset, may_be_unset

Encoder = Callable[[Any], Any]
_REQUIRED = "Conversion error: null value for field that is required and has no default value"
_Fragment = orjson.Fragment
_dumps = orjson.dumps


def _b64(v: bytes) -> str:
    return base64.b64encode(v).decode()


def _float32(v: float) -> Any:
    if v != v or v in (float("inf"), float("-inf")):
        return float_text(v)  # "NaN" / "Infinity" as JSON strings, as Jackson quotes them
    return _Fragment(float_text(v).encode())


class JsonEncoding:
    """The compiled payload encoders of one converter configuration.

    `wire=True` (BASE64 decimals only): the values are still in their JSON-ready form (the data plane's
    wire mode), which already is this converter's text for every leaf (base64 bytes and decimals, Java
    doubles, ...): only nulls (defaults, required fields) need work."""

    def __init__(self, numeric: bool, replace_null: bool, wire: bool = False) -> None:
        if wire and numeric:
            raise ValueError("wire values hold BASE64 decimals")
        self.numeric = numeric
        self.replace_null = replace_null
        self.wire = wire
        self._cache: dict[int, tuple[Schema, Encoder | None, Any]] = {}

    # -- public
    def payload(self, schema: Schema | None, value: Any) -> Any:
        if schema is None:
            return _schemaless(value)
        enc, dflt = self.compiled(schema)
        if value is None:
            if dflt is None and not schema.optional:
                raise ConversionError(_REQUIRED)
            return dflt
        return value if enc is None else enc(value)

    def compiled(self, schema: Schema) -> tuple[Encoder | None, Any]:
        """(encoder or None for identity, the JSON-ready value a null becomes)."""
        hit = self._cache.get(id(schema))
        if hit is not None and hit[0] is schema:
            return hit[1], hit[2]
        enc = self._build(schema)
        dflt = None
        if self.replace_null and schema.default is not None:
            if self.wire:  # Schema.default is JSON-ready already
                dflt = schema.default
            else:
                d = default_value(schema)
                dflt = d if enc is None or d is None else enc(d)
        self._cache[id(schema)] = (schema, enc, dflt)
        return enc, dflt

    # -- building
    def _build(self, schema: Schema) -> Encoder | None:
        t = schema.type
        if self.wire and not self.replace_null and may_be_unset(schema):
            return _unset_refused  # an unset field (connect/unset.py) is a null to getWithoutDefault
        if self.wire and t in ("bytes", "double", "float"):
            return None
        if t == "bytes":
            if schema.name == DECIMAL:
                scale = int((schema.parameters or {}).get("scale", "0"))
                if self.numeric:
                    return lambda v: _Fragment(decimal_text(v).encode())
                return lambda v: _b64(unscaled_bytes(v, scale))
            return _b64
        if t == "double":
            return java_double
        if t == "float":
            return _float32
        if t == "struct":
            todo = []
            required = []  # fields whose null Connect refuses (required, no default to print)
            for f in schema.fields or ():
                enc, dflt = self.compiled(f.schema)
                if enc is not None or dflt is not None:
                    todo.append((f.name, enc, dflt))
                if dflt is None and not f.schema.optional:
                    required.append(f.name)
            get_required = itemgetter(*required) if len(required) > 1 else None
            one_required = required[0] if len(required) == 1 else None

            def check(v: dict) -> None:
                try:
                    if get_required is not None:
                        if None in get_required(v):
                            raise ConversionError(_REQUIRED)
                    elif one_required is not None and v[one_required] is None:
                        raise ConversionError(_REQUIRED)
                except KeyError:
                    raise ConversionError(_REQUIRED) from None

            if not todo:
                if not required:
                    return None

                def checked(v: dict) -> dict:
                    check(v)
                    return v

                return checked

            def struct(v: dict) -> dict:
                if required:
                    check(v)
                out = dict(v)
                for name, enc, dflt in todo:
                    x = out.get(name)
                    if x is None:
                        out[name] = dflt
                    elif enc is not None:
                        out[name] = enc(x)
                return out

            return struct
        if t == "array":
            enc, dflt = self.compiled(schema.items)
            if enc is None and dflt is None and schema.items.optional:
                return None
            item = self._nullable(schema.items, enc, dflt)
            return lambda v: [item(x) for x in v]
        if t == "map":
            kenc, kdflt = self.compiled(schema.keys)
            venc, vdflt = self.compiled(schema.values)
            kconv = self._nullable(schema.keys, kenc, kdflt)
            vconv = self._nullable(schema.values, venc, vdflt)
            if schema.keys.type == "string":
                if venc is None and vdflt is None and schema.values.optional:
                    return None
                return lambda v: {k: vconv(x) for k, x in v.items()}
            if self.wire:  # JSON-ready already as [[k, v], ...]
                return lambda v: [[kconv(k), vconv(x)] for k, x in v]
            return lambda v: [[kconv(k), vconv(x)] for k, x in v.items()]
        return None

    @staticmethod
    def _nullable(schema: Schema, enc: Encoder | None, dflt: Any) -> Encoder:
        """An element / map entry: a null takes the default, stays null if optional, else fails."""
        optional = schema.optional

        def conv(x: Any) -> Any:
            if x is None:
                if dflt is None and not optional:
                    raise ConversionError(_REQUIRED)
                return dflt
            return x if enc is None else enc(x)

        return conv


def _unset_refused(v: Any) -> Any:
    """replace.null.with.default=false on wire values: a field the connector left unset is the null of a required
    field, which JsonConverter refuses ("null value for field that is required")."""
    if is_unset(v):
        raise ConversionError(_REQUIRED)
    return v


def _schemaless(value: Any) -> Any:
    """JsonConverter without a schema: the value's own Java type decides."""
    if value is None or isinstance(value, (bool, int, str)):
        return value
    if isinstance(value, float):
        return java_double(value)
    if isinstance(value, (bytes, bytearray, memoryview)):
        return _b64(bytes(value))
    if isinstance(value, Decimal):
        raise ConversionError("JsonConverter: a Decimal needs a schema")
    if isinstance(value, list):
        return [_schemaless(x) for x in value]
    if isinstance(value, dict):
        if all(isinstance(k, str) for k in value):
            return {k: _schemaless(x) for k, x in value.items()}
        return [[_schemaless(k), _schemaless(x)] for k, x in value.items()]
    raise ConversionError(f"JsonConverter: cannot convert {type(value).__name__} without a schema")


class JsonConverter:
    """`schemas.enable` (default true), `decimal.format` BASE64|NUMERIC, `replace.null.with.default`."""

    def __init__(
        self,
        schemas_enable: bool = True,
        decimal_numeric: bool = False,
        replace_null_with_default: bool = True,
    ) -> None:
        self.schemas_enable = schemas_enable
        self.encoding = JsonEncoding(decimal_numeric, replace_null_with_default)
        self._schema_json: dict[int, tuple[Schema, bytes]] = {}

    def wire_twin(self) -> JsonConverter | None:
        """The same converter for values in their JSON-ready form (None with NUMERIC decimals, whose text
        differs from that form)."""
        if self.encoding.numeric:
            return None
        twin = JsonConverter(self.schemas_enable, False, self.encoding.replace_null)
        twin.encoding = JsonEncoding(False, self.encoding.replace_null, wire=True)
        twin._schema_json = self._schema_json
        return twin

    def schema_bytes(self, schema: Schema | None) -> bytes:
        if schema is None:
            return b"null"
        hit = self._schema_json.get(id(schema))
        if hit is not None and hit[0] is schema:
            return hit[1]
        text = (
            _dumps(self._as_json_schema(schema)) if self.encoding.numeric else schema.json_bytes()
        )  # Schema.to_json holds BASE64-form defaults already
        if len(self._schema_json) > 4096:
            self._schema_json.clear()
        self._schema_json[id(schema)] = (schema, text)
        return text

    def _as_json_schema(self, schema: Schema) -> dict:
        """`asJsonSchema`; defaults printed through `convertToJson` (so NUMERIC decimals as numbers)."""
        out = dict(schema.to_json())
        if schema.type == "struct":
            out["fields"] = [{**self._as_json_schema(f.schema), "field": f.name} for f in schema.fields or ()]
        elif schema.type == "array":
            out["items"] = self._as_json_schema(schema.items)
        elif schema.type == "map":
            out["keys"] = self._as_json_schema(schema.keys)
            out["values"] = self._as_json_schema(schema.values)
        if schema.default is not None and schema.name == DECIMAL and self.encoding.numeric:
            out["default"] = self.encoding.payload(schema.with_(default=None), default_value(schema))
        return out

    def from_connect_data(self, topic: str, headers: Any, schema: Schema | None, value: Any) -> bytes | None:
        if schema is None and value is None:
            return None
        payload = self.encoding.payload(schema, value)
        if self.schemas_enable:
            return b'{"schema":' + self.schema_bytes(schema) + b',"payload":' + _dumps(payload) + b"}"
        return _dumps(payload)

    def writer(self, schema: Schema) -> Callable[[Any], bytes]:
        """`from_connect_data` for non-null values of one schema, its lookups done once (the fused paths,
        emulator/connect/fused.py)."""
        enc, _ = self.encoding.compiled(schema)
        if self.schemas_enable:
            head = b'{"schema":' + self.schema_bytes(schema) + b',"payload":'
            if enc is None:
                return lambda v: head + _dumps(v) + b"}"
            return lambda v: head + _dumps(enc(v)) + b"}"
        if enc is None:
            return _dumps
        return lambda v: _dumps(enc(v))

    def from_connect_header(self, topic: str, name: str, schema: Schema | None, value: Any) -> bytes | None:
        return self.from_connect_data(topic, None, schema, value)
