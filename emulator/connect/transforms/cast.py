"""Kafka's `Cast` ($Key / $Value): primitive fields or the whole value cast to another type, as Java
casts (integer wrap-around, Double/Float.toString for strings)."""

from __future__ import annotations

from decimal import Decimal
from typing import Any

from emulator.connect.converters.errors import NotEmulated
from emulator.connect.javafloat import java_double
from emulator.connect.javatext import double_text, float_text
from emulator.connect.record import DECIMAL, ConnectRecord
from emulator.connect.schema import Field, Schema
from emulator.connect.transforms.base import (
    Options,
    TransformError,
    fget,
    field_of,
    put_raw,
    require_map,
    require_struct,
)
from emulator.connect.transforms.keyvalue import (
    DATE,
    TIME,
    TIMESTAMP,
    K,
    KeyOrValue,
    SchemaCache,
    register_both,
)

# ----------------------------------------------------------------------------------------------- Cast

_CAST_TYPES = {
    "int8": "int8",
    "int16": "int16",
    "int32": "int32",
    "int64": "int64",
    "float32": "float",
    "float64": "double",
    "boolean": "boolean",
    "string": "string",
}
_CAST_INPUT = ("int8", "int16", "int32", "int64", "float", "double", "boolean", "string", "bytes")
_BITS = {"int8": 8, "int16": 16, "int32": 32, "int64": 64}
_JAVA_TYPE = {"float": "FLOAT32", "double": "FLOAT64"}


def _wrap(n: int, bits: int) -> int:
    n &= (1 << bits) - 1
    return n - (1 << bits) if n >= 1 << (bits - 1) else n


def _java_int(value: Any, bits: int) -> int:
    """`Number.byteValue()` / `shortValue()` / `intValue()` / `longValue()`."""
    if isinstance(value, float):
        if value != value:
            n = 0
        else:  # (int) / (long) saturate, narrower types then wrap the int
            lim = 63 if bits == 64 else 31
            n = (
                max(-(1 << lim), min((1 << lim) - 1, int(value)))
                if abs(value) != float("inf")
                else ((1 << lim) - 1 if value > 0 else -(1 << lim))
            )
        return _wrap(n, bits)
    return _wrap(int(value), bits)


def _to_float32(x: float) -> float:
    import struct as _st

    return _st.unpack(">f", _st.pack(">f", x))[0]


def cast_value(schema: Schema | None, value: Any, target: str) -> Any:
    if value is None:
        return None
    src = schema.type if schema is not None else _infer(value)
    if src not in _CAST_INPUT:
        raise TransformError(
            f"Cast transformation does not support casting from {src.upper()}; supported types "
            "are [INT8, INT16, INT32, INT64, FLOAT32, FLOAT64, BOOLEAN, STRING, BYTES]"
        )
    if schema is not None and schema.name in (TIMESTAMP, DATE, TIME):
        raise TransformError(
            f"Cast of the Kafka logical type {schema.name} is not supported by this emulator"
        )
    try:
        if target in _BITS:
            if isinstance(value, bool):
                return 1 if value else 0
            if isinstance(value, str):
                n = int(value)
                if not -(1 << (_BITS[target] - 1)) <= n < (1 << (_BITS[target] - 1)):
                    raise ValueError(value)
                return n
            if isinstance(value, bytes):
                raise TransformError("Unexpected type in Cast transformation: class [B")
            return _java_int(value, _BITS[target])
        if target in ("float", "double"):
            if isinstance(value, bool):
                x = 1.0 if value else 0.0
            elif isinstance(value, bytes):
                raise TransformError("Unexpected type in Cast transformation: class [B")
            else:
                x = float(value.strip() if isinstance(value, str) else value)
            return _to_float32(x) if target == "float" else x
        if target == "boolean":
            if isinstance(value, bool):
                return value
            if isinstance(value, str):
                return value.lower() == "true"
            if isinstance(value, bytes):
                raise TransformError("Unexpected type in Cast transformation: class [B")
            return _java_int(value, 64) != 0
        # string
        if isinstance(value, bool):
            return "true" if value else "false"
        if isinstance(value, bytes):
            import base64

            return base64.b64encode(value).decode()
        if isinstance(value, float):
            return float_text(value) if src == "float" else double_text(value)
        return str(value)
    except ValueError:
        raise TransformError(f"Value ({value}) was out of range for requested data type") from None


def _infer(value: Any) -> str:
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, int):
        return "int64" if not -(2**31) <= value < 2**31 else "int32"
    if isinstance(value, float):
        return "double"
    if isinstance(value, str):
        return "string"
    if isinstance(value, bytes):
        return "bytes"
    if isinstance(value, Decimal):
        return "bytes"
    return "struct"


class CastT(KeyOrValue):
    def __init__(self, opts: Options) -> None:
        super().__init__(opts)
        if opts.raw("spec") is None:
            raise opts.fail("spec", 'Missing required configuration "spec" which has no default value.')
        specs = opts.list("spec")
        if not specs:
            raise opts.fail("spec", "Must specify at least one field to cast.")
        self.casts: dict[str | None, str] = {}
        whole = False
        for m in specs:
            parts = m.split(":")
            if len(parts) > 2:
                raise opts.fail("spec", f"Invalid rename mapping: {m}")
            tname = parts[-1].strip()
            t = _CAST_TYPES.get(tname.lower())
            if t is None:
                if tname.upper() in ("BYTES", "ARRAY", "MAP", "STRUCT"):
                    raise opts.fail(
                        "spec",
                        f"Cast transformation does not support casting to {tname.upper()}; "
                        "supported types are [INT8, INT16, INT32, INT64, FLOAT32, FLOAT64, BOOLEAN, STRING]",
                    )
                raise opts.fail("spec", f"Invalid type found in casting spec: {tname}")
            if len(parts) == 1:
                self.casts[None] = t
                whole = True
            else:
                self.casts[parts[0].strip()] = t
        if whole and len(specs) > 1:
            raise opts.fail(
                "spec",
                "Cast transformations that specify a type to cast the entire value to may only "
                "specify a single cast in their spec",
            )
        self.whole = self.casts.get(None)
        self.replace_null = opts.bool("replace.null.with.default", True)
        self.cache = SchemaCache()

    def apply(self, r: ConnectRecord) -> ConnectRecord | None:
        value = self.value_of(r)
        if value is None:
            return r
        schema = self.schema_of(r)
        if schema is None:
            if self.whole is not None:
                return self.new(r, None, cast_value(None, value, self.whole))
            v = dict(require_map(value, "cast types"))
            for name, t in self.casts.items():
                v[name] = cast_value(None, v.get(name), t)
            return self.new(r, None, v)
        updated = self.cache.get(schema, self._schema)
        if self.whole is not None:
            return self.new(r, updated, cast_value(schema, value, self.whole))
        v = require_struct(value, "cast types", schema)
        if not self.replace_null:
            put_raw(schema, v, lambda n: field_of(updated, n))  # a cast null stays null
        out = {}
        for f in schema.fields:
            x = fget(f, v) if self.replace_null else v.get(f.name)
            t = self.casts.get(f.name)
            out[f.name] = cast_value(f.schema, x, t) if t is not None else x
        return self.new(r, updated, out)

    def _schema(self, schema: Schema) -> Schema:
        from emulator.connect.record import default_value as dv

        def cast_default(s: Schema, t: str) -> Any:
            if s.default is None:
                return None
            return _json_ready(t, cast_value(s, dv(s), t))

        if self.whole is not None:
            t = self.whole
            if schema.name in (DECIMAL, DATE, TIME, TIMESTAMP):
                # copySchemaBasics keeps the logical name on the primitive schema: SchemaBuilder.defaultValue
                # then validates the cast default against the logical type's Java class (BigDecimal,
                # java.util.Date) and fails the record (connect seed 112 trial 14: a whole-value Cast of a
                # NUMERIC with a default); without a default each converter decides (JsonConverter fails the
                # value, StringConverter prints it), which is not followed here
                if schema.default is not None:
                    raise TransformError("Invalid default value")
                raise NotEmulated(
                    f"Cast: the whole value of a {schema.name} schema cast to {t} keeps the logical name"
                )
            return Schema(
                t,
                optional=schema.optional,
                name=schema.name,
                version=schema.version,
                doc=schema.doc,
                parameters=schema.parameters,
                default=cast_default(schema, t),
            )
        fields = []
        for f in schema.fields:
            t = self.casts.get(f.name)
            if t is None:
                fields.append(f)
            else:
                fields.append(
                    Field(f.name, Schema(t, optional=f.schema.optional, default=cast_default(f.schema, t)))
                )
        return Schema(
            "struct",
            optional=schema.optional,
            name=schema.name,
            version=schema.version,
            doc=schema.doc,
            parameters=schema.parameters,
            fields=fields,
        )


def _json_ready(t: str, v: Any) -> Any:
    """A cast default as `Schema.default` holds it (JSON-ready)."""
    if t in ("float", "double"):
        return java_double(v)
    return v


register_both(CastT, K + "Cast")
