"""Kafka's field transforms on the key or the value: ReplaceField, InsertField, ExtractField, HoistField,
ValueToKey, SetSchemaMetadata, MaskField (each `$Key` / `$Value` where Kafka has both)."""

from __future__ import annotations

from decimal import Decimal
from typing import Any

from emulator.connect.record import DECIMAL, ConnectRecord, default_value
from emulator.connect.schema import Field, Schema
from emulator.connect.transforms.base import (
    Options,
    Transform,
    TransformError,
    copy_basics,
    fget,
    field_of,
    register,
    require_map,
    require_struct,
)

K = "org.apache.kafka.connect.transforms."
OPT_STRING = Schema("string", optional=True)
REQ_STRING = Schema("string")
TIMESTAMP = "org.apache.kafka.connect.data.Timestamp"
DATE = "org.apache.kafka.connect.data.Date"
TIME = "org.apache.kafka.connect.data.Time"


class KeyOrValue(Transform):
    """The `$Key` / `$Value` split: `self.key` says which half the transform works on."""

    key = False

    def schema_of(self, r: ConnectRecord) -> Schema | None:
        return r.key_schema if self.key else r.value_schema

    def value_of(self, r: ConnectRecord) -> Any:
        return r.key if self.key else r.value

    def new(self, r: ConnectRecord, schema: Schema | None, value: Any) -> ConnectRecord:
        if self.key:
            return ConnectRecord(
                r.topic, r.partition, schema, value, r.value_schema, r.value, r.headers, r.timestamp
            )
        return ConnectRecord(r.topic, r.partition, r.key_schema, r.key, schema, value, r.headers, r.timestamp)


class SchemaCache:
    """Connect's per-transform `LRUCache<Schema, Schema>`, keyed by the schema object."""

    def __init__(self) -> None:
        self.d: dict[int, tuple[Schema, Schema]] = {}

    def get(self, schema: Schema, make) -> Schema:
        hit = self.d.get(id(schema))
        if hit is None or hit[0] is not schema:
            if len(self.d) > 256:
                self.d.clear()
            hit = (schema, make(schema))
            self.d[id(schema)] = hit
        return hit[1]


def _both(cls, base: str):
    """Register `$Key` and `$Value` subclasses of `cls` under `base$Key` / `base$Value`."""
    key = type(cls.__name__ + "Key", (cls,), {"key": True})
    value = type(cls.__name__ + "Value", (cls,), {"key": False})
    register(base + "$Key")(key)
    register(base + "$Value")(value)
    return cls


# --------------------------------------------------------------------------------------- ReplaceField


class ReplaceFieldT(KeyOrValue):
    def __init__(self, opts: Options) -> None:
        super().__init__(opts)
        self.exclude = set(opts.list("exclude"))
        self.include = set(opts.list("include"))
        self.renames: dict[str, str] = {}
        for m in opts.list("renames"):
            parts = m.split(":")
            if len(parts) != 2:
                raise opts.fail("renames", f"Invalid rename mapping: {m}")
            self.renames[parts[0]] = parts[1]
        self.reverse = {v: k for k, v in self.renames.items()}
        self.replace_null = opts.bool("replace.null.with.default", True)
        self.cache = SchemaCache()

    @classmethod
    def exclude_only(cls, names: list[str], key: bool) -> ReplaceFieldT:
        t = (_REPLACE_KEY if key else _REPLACE_VALUE)(Options("", {"exclude": ",".join(names)}))
        return t

    def keep(self, name: str) -> bool:
        return name not in self.exclude and (not self.include or name in self.include)

    def apply(self, r: ConnectRecord) -> ConnectRecord | None:
        value = self.value_of(r)
        if value is None:
            return r
        schema = self.schema_of(r)
        if schema is None:
            v = require_map(value, "field replacement")
            return self.new(r, None, {self.renames.get(k, k): x for k, x in v.items() if self.keep(k)})
        v = require_struct(value, "field replacement")
        updated = self.cache.get(schema, self._schema)
        out = {}
        for f in updated.fields:
            src = self.reverse.get(f.name, f.name)
            if self.replace_null:
                sf = field_of(schema, src)
                out[f.name] = fget(sf, v) if sf is not None else None
            else:
                out[f.name] = v.get(src)
        return self.new(r, updated, out)

    def _schema(self, schema: Schema) -> Schema:
        return copy_basics(
            schema,
            fields=[
                Field(self.renames.get(f.name, f.name), f.schema) for f in schema.fields if self.keep(f.name)
            ],
        )


_both(ReplaceFieldT, K + "ReplaceField")
_REPLACE_KEY = type("ReplaceFieldKeyDelegate", (ReplaceFieldT,), {"key": True})
_REPLACE_VALUE = type("ReplaceFieldValueDelegate", (ReplaceFieldT,), {"key": False})


# ---------------------------------------------------------------------------------------- InsertField


def _spec(value: str | None) -> tuple[str, bool] | None:
    if value is None:
        return None
    if value.endswith("?"):
        return value[:-1], True
    if value.endswith("!"):
        return value[:-1], False
    return value, True


class InsertFieldT(KeyOrValue):
    def __init__(self, opts: Options) -> None:
        super().__init__(opts)
        self.topic = _spec(opts.str("topic.field"))
        self.partition = _spec(opts.str("partition.field"))
        self.offset = _spec(opts.str("offset.field"))
        self.timestamp = _spec(opts.str("timestamp.field"))
        self.static = _spec(opts.str("static.field"))
        self.static_value = opts.str("static.value")
        self.replace_null = opts.bool("replace.null.with.default", True)
        if not any((self.topic, self.partition, self.offset, self.timestamp, self.static)):
            raise opts.fail("topic.field", "No field insertion configured")
        if self.static is not None and self.static_value is None:
            raise opts.fail("static.value", f"No value specified for static field: {self.static[0]}")
        if self.offset is not None:
            # Connect requires a SinkRecord here; on a source record every record fails
            raise opts.fail(
                "offset.field", "only applicable to sink connectors (every source record would fail)"
            )
        self.cache = SchemaCache()

    def apply(self, r: ConnectRecord) -> ConnectRecord | None:
        value = self.value_of(r)
        if value is None:
            return r
        schema = self.schema_of(r)
        if schema is None:
            v = dict(require_map(value, "field insertion"))
            self._put(v, r, schemaless=True)
            return self.new(r, None, v)
        v = require_struct(value, "field insertion")
        updated = self.cache.get(schema, self._schema)
        if self.replace_null:
            out = {f.name: fget(f, v) for f in schema.fields}
        else:
            out = {f.name: v.get(f.name) for f in schema.fields}
        for f in updated.fields:
            out.setdefault(f.name, None)
        self._put(out, r, schemaless=False)
        return self.new(r, updated, out)

    def _put(self, out: dict, r: ConnectRecord, schemaless: bool) -> None:
        if self.topic is not None:
            out[self.topic[0]] = r.topic
        if self.partition is not None and r.partition is not None:
            out[self.partition[0]] = r.partition
        if self.timestamp is not None and r.timestamp is not None:
            out[self.timestamp[0]] = r.timestamp
        if self.static is not None and self.static_value is not None:
            out[self.static[0]] = self.static_value

    def _schema(self, schema: Schema) -> Schema:
        fields = list(schema.fields)
        if self.topic is not None:
            fields.append(Field(self.topic[0], OPT_STRING if self.topic[1] else REQ_STRING))
        if self.partition is not None:
            fields.append(Field(self.partition[0], Schema("int32", optional=self.partition[1])))
        if self.timestamp is not None:
            fields.append(
                Field(
                    self.timestamp[0], Schema("int64", optional=self.timestamp[1], name=TIMESTAMP, version=1)
                )
            )
        if self.static is not None:
            fields.append(Field(self.static[0], OPT_STRING if self.static[1] else REQ_STRING))
        return copy_basics(schema, fields=fields)


_both(InsertFieldT, K + "InsertField")


# --------------------------------------------------------------------------------------- ExtractField


def field_path_v2(path: str) -> list[str]:
    """`SingleFieldPath` with `field.syntax.version=V2`: dots separate steps, a step in backticks may hold
    dots, a backslash before a closing backtick keeps it."""
    steps: list[str] = []
    idx, n = 0, len(path)
    while 0 <= idx < n:
        if path[idx] != "`":
            start = idx
            idx = path.find(".", idx)
            if idx >= 0:
                steps.append(path[start:idx])
                idx += 1
            else:
                steps.append(path[start:])
        else:
            tick = idx
            idx += 1
            field: list[str] = []
            start = idx
            while True:
                idx = path.find("`", idx)
                if idx == -1:
                    raise ValueError(
                        f"Incomplete backtick pair in path: [{path}], consider adding a backslash "
                        f"before backtick at position {tick} to escape it"
                    )
                escaped = path[idx - 1] == "\\"
                if idx >= n - 1:
                    if escaped:
                        raise ValueError(
                            f"Incomplete backtick pair in path: [{path}], consider adding a backslash "
                            f"before backtick at position {tick} to escape it"
                        )
                    field.append(path[start:idx])
                    steps.append("".join(field))
                    idx += 1
                    break
                if path[idx + 1] != ".":
                    idx += 1
                    continue
                if escaped:
                    field.append(path[start : idx - 1] + "`")
                    idx += 1
                    start = idx
                    continue
                field.append(path[start:idx])
                steps.append("".join(field))
                idx += 2
                break
    if path and path[-1] == ".":
        steps.append("")
    return steps


class ExtractFieldT(KeyOrValue):
    def __init__(self, opts: Options) -> None:
        super().__init__(opts)
        self.field = opts.str("field", required=True)
        version = opts.enum("field.syntax.version", ("V1", "V2"), "V1")
        if version == "V2":
            try:
                self.steps = field_path_v2(self.field) or [""]
            except ValueError as e:
                raise opts.fail("field", str(e)) from None
        else:
            self.steps = [self.field]
        self.replace_null = opts.bool("replace.null.with.default", True)

    def _field(self, schema: Schema) -> Field | None:
        cur = schema
        for step in self.steps[:-1]:
            if cur.type != "struct":
                raise TransformError("Cannot look up fields on non-struct type")
            f = field_of(cur, step)
            if f is None:
                return None
            cur = f.schema
        if cur.type != "struct":
            raise TransformError("Cannot look up fields on non-struct type")
        return field_of(cur, self.steps[-1])

    def _value(self, schema: Schema, value: dict) -> Any:
        cur, cur_schema = value, schema
        for step in self.steps[:-1]:
            f = field_of(cur_schema, step)
            if f is None:
                return None
            cur = fget(f, cur)
            if cur is None:
                return None
            require_struct(cur, "nested field access")
            cur_schema = f.schema
        f = field_of(cur_schema, self.steps[-1])
        if f is None:
            return None
        return fget(f, cur) if self.replace_null else cur.get(f.name)

    def apply(self, r: ConnectRecord) -> ConnectRecord | None:
        schema = self.schema_of(r)
        value = self.value_of(r)
        if schema is None:
            v = require_map(value, "field extraction") if value is not None else None
            for step in self.steps[:-1]:
                if v is None:
                    break
                v = v.get(step)
                if v is not None:
                    v = require_map(v, "nested field access")
            return self.new(r, None, None if v is None else v.get(self.steps[-1]))
        if value is not None:
            require_struct(value, "field extraction")
        f = self._field(schema)
        if f is None:
            raise TransformError(f"Unknown field: {self.field}")
        return self.new(r, f.schema, None if value is None else self._value(schema, value))


_both(ExtractFieldT, K + "ExtractField")


# ----------------------------------------------------------------------------------------- HoistField


class HoistFieldT(KeyOrValue):
    def __init__(self, opts: Options) -> None:
        super().__init__(opts)
        self.field = opts.str("field", required=True)
        self.cache = SchemaCache()

    def apply(self, r: ConnectRecord) -> ConnectRecord | None:
        schema = self.schema_of(r)
        value = self.value_of(r)
        if schema is None:
            return self.new(r, None, {self.field: value})
        updated = self.cache.get(schema, lambda s: Schema("struct", fields=[Field(self.field, s)]))
        if value is None and not schema.optional:
            raise TransformError(
                f'Invalid value: null used for required field: "{self.field}", '
                f"schema type: {schema.type.upper()}"
            )
        return self.new(r, updated, {self.field: value})


_both(HoistFieldT, K + "HoistField")


# ----------------------------------------------------------------------------------------- ValueToKey


@register(K + "ValueToKey")
class ValueToKey(Transform):
    def __init__(self, opts: Options) -> None:
        super().__init__(opts)
        self.fields = opts.list("fields")
        if opts.raw("fields") is None:
            raise opts.fail("fields", 'Missing required configuration "fields" which has no default value.')
        if not self.fields:
            raise opts.fail("fields", "Empty list")
        self.replace_null = opts.bool("replace.null.with.default", True)
        self.cache = SchemaCache()

    def apply(self, r: ConnectRecord) -> ConnectRecord | None:
        if r.value_schema is None:
            v = require_map(r.value, "copying fields from value to key")
            return ConnectRecord(
                r.topic,
                r.partition,
                None,
                {f: v.get(f) for f in self.fields},
                None,
                r.value,
                r.headers,
                r.timestamp,
            )
        v = require_struct(r.value, "copying fields from value to key")
        ks = self.cache.get(r.value_schema, self._schema)
        key = {}
        for name in self.fields:
            f = field_of(r.value_schema, name)
            key[name] = fget(f, v) if self.replace_null else v.get(name)
        return ConnectRecord(r.topic, r.partition, ks, key, r.value_schema, r.value, r.headers, r.timestamp)

    def _schema(self, schema: Schema) -> Schema:
        fields = []
        for name in self.fields:
            f = field_of(schema, name)
            if f is None:
                raise TransformError(f"Field does not exist: {name}")
            fields.append(Field(name, f.schema))
        return Schema("struct", fields=fields)


# ---------------------------------------------------------------------------------- SetSchemaMetadata


class SetSchemaMetadataT(KeyOrValue):
    def __init__(self, opts: Options) -> None:
        super().__init__(opts)
        self.name = opts.str("schema.name")
        self.version = opts.int("schema.version")
        self.replace_null = opts.bool("replace.null.with.default", True)
        if self.name is None and self.version is None:
            raise opts.fail("schema.name", "Neither schema name nor version configured")
        self.cache = SchemaCache()

    def apply(self, r: ConnectRecord) -> ConnectRecord | None:
        value = self.value_of(r)
        schema = self.schema_of(r)
        if value is None and schema is None:
            return r
        if schema is None:
            raise TransformError("Schema required for [updating schema metadata]")
        updated = self.cache.get(
            schema,
            lambda s: s.with_(
                name=self.name if self.name is not None else s.name,
                version=self.version if self.version is not None else s.version,
            ),
        )
        if isinstance(value, dict) and schema.type == "struct":
            if self.replace_null:
                value = {f.name: fget(f, value) for f in updated.fields}
            else:
                value = {f.name: value.get(f.name) for f in updated.fields}
        return self.new(r, updated, value)


_both(SetSchemaMetadataT, K + "SetSchemaMetadata")


# ------------------------------------------------------------------------------------------ MaskField


def _java_kind(schema: Schema | None, value: Any) -> str:
    """The Java class of a Connect value of this schema (MaskField picks replacements by class)."""
    if schema is None:
        if isinstance(value, bool):
            return "Boolean"
        if isinstance(value, int):
            return "Long" if abs(value) > 2**31 - 1 else "Integer"
        if isinstance(value, float):
            return "Double"
        if isinstance(value, str):
            return "String"
        if isinstance(value, Decimal):
            return "BigDecimal"
        if isinstance(value, list):
            return "List"
        if isinstance(value, dict):
            return "Map"
        return "byte[]"
    if schema.name == DECIMAL:
        return "BigDecimal"
    if schema.name in (TIMESTAMP, DATE, TIME):
        return "Date"
    return {
        "int8": "Byte",
        "int16": "Short",
        "int32": "Integer",
        "int64": "Long",
        "float": "Float",
        "double": "Double",
        "boolean": "Boolean",
        "string": "String",
        "bytes": "byte[]",
        "array": "List",
        "map": "Map",
        "struct": "Struct",
    }[schema.type]


_MASK_DEFAULT = {
    "Boolean": False,
    "Byte": 0,
    "Short": 0,
    "Integer": 0,
    "Long": 0,
    "Float": 0.0,
    "Double": 0.0,
    "BigDecimal": Decimal(0),
    "Date": 0,
    "String": "",
}
_JAVA_CLASS = {
    "Boolean": "class java.lang.Boolean",
    "String": "class java.lang.String",
    "byte[]": "class [B",
    "Struct": "class org.apache.kafka.connect.data.Struct",
    "Date": "class java.util.Date",
    "List": "class java.util.ArrayList",
    "Map": "class java.util.HashMap",
}


class MaskFieldT(KeyOrValue):
    def __init__(self, opts: Options) -> None:
        super().__init__(opts)
        if opts.raw("fields") is None:
            raise opts.fail("fields", 'Missing required configuration "fields" which has no default value.')
        self.fields = set(opts.list("fields"))
        if not self.fields:
            raise opts.fail("fields", "Empty list")
        self.replacement = opts.str("replacement")
        if self.replacement is not None and not self.replacement.strip():
            raise opts.fail("replacement", "String must be non-empty")
        self.replace_null = opts.bool("replace.null.with.default", True)

    def masked(self, schema: Schema | None, value: Any) -> Any:
        if value is None:
            return None
        kind = _java_kind(schema, value)
        if self.replacement is None:
            if kind in _MASK_DEFAULT:
                if kind == "BigDecimal" and schema is not None:
                    scale = int((schema.parameters or {}).get("scale", "0"))
                    return Decimal(0).scaleb(-scale) if scale else Decimal(0)
                return _MASK_DEFAULT[kind]
            if kind == "List":
                return []
            if kind == "Map":
                return {}
            raise TransformError(f"Cannot mask value of type: {_JAVA_CLASS.get(kind, kind)}")
        rep = self.replacement
        try:
            if kind in ("Byte", "Short", "Integer", "Long"):
                return int(rep.strip())
            if kind in ("Float", "Double"):
                return float(rep.strip())
            if kind == "BigDecimal":
                return Decimal(rep)
            if kind == "String":
                return rep
        except ValueError:
            raise TransformError(f"Unable to convert {rep} (class java.lang.String) to number") from None
        raise TransformError(
            f"Cannot mask value of type {_JAVA_CLASS.get(kind, kind)} with custom replacement."
        )

    def apply(self, r: ConnectRecord) -> ConnectRecord | None:
        value = self.value_of(r)  # no null shortcut: Connect's MaskField fails on tombstones
        schema = self.schema_of(r)
        if schema is None:
            v = dict(require_map(value, "mask fields"))
            for name in self.fields:
                if name in v:
                    v[name] = self.masked(None, v[name])
            return self.new(r, None, v)
        v = require_struct(value, "mask fields")
        out = {}
        for f in schema.fields:
            x = fget(f, v) if self.replace_null else v.get(f.name)
            out[f.name] = self.masked(f.schema, x) if f.name in self.fields else x
        return self.new(r, schema, out)


_both(MaskFieldT, K + "MaskField")

__all__ = ["KeyOrValue", "ReplaceFieldT", "SchemaCache", "default_value"]


# -------------------------------------------------------------------------------------------- Flatten

_FLAT = ("int8", "int16", "int32", "int64", "float", "double", "boolean", "string", "bytes", "array")


class FlattenT(KeyOrValue):
    def __init__(self, opts: Options) -> None:
        super().__init__(opts)
        self.delimiter = opts.str("delimiter", ".")
        self.cache = SchemaCache()

    def _name(self, prefix: str, name: str) -> str:
        return name if not prefix else prefix + self.delimiter + name

    def apply(self, r: ConnectRecord) -> ConnectRecord | None:
        value = self.value_of(r)
        if value is None:
            return r
        schema = self.schema_of(r)
        if schema is None:
            out: dict = {}
            self._schemaless(require_map(value, "flattening"), "", out)
            return self.new(r, None, out)
        v = require_struct(value, "flattening")
        updated = self.cache.get(schema, self._schema)
        out = {f.name: None for f in updated.fields}
        self._values(schema, v, "", out)
        return self.new(r, updated, out)

    def _schemaless(self, value: dict, prefix: str, out: dict) -> None:
        for k, v in value.items():
            name = self._name(prefix, k)
            if isinstance(v, dict):
                self._schemaless(v, name, out)
            else:
                out[name] = v

    def _schema(self, schema: Schema) -> Schema:
        fields: list[Field] = []
        self._fields(schema, "", fields, schema.optional)
        return copy_basics(schema, fields=fields)

    def _fields(self, schema: Schema, prefix: str, out: list[Field], optional: bool) -> None:
        for f in schema.fields:
            name = self._name(prefix, f.name)
            opt = optional or f.schema.optional
            t = f.schema.type
            if t in _FLAT:
                s = f.schema
                out.append(
                    Field(
                        name,
                        Schema(
                            t,
                            optional=opt,
                            name=s.name,
                            version=s.version,
                            doc=s.doc,
                            parameters=s.parameters,
                            default=s.default,
                            items=s.items,
                        ),
                    )
                )
            elif t == "struct":
                self._fields(f.schema, name, out, opt)
            else:
                raise TransformError(
                    f"Flatten transformation does not support {t.upper()} for record with "
                    f"schemas (for field {name})."
                )

    def _values(self, schema: Schema, value: dict | None, prefix: str, out: dict) -> None:
        if value is None:
            return
        for f in schema.fields:
            name = self._name(prefix, f.name)
            if f.schema.type == "struct":
                self._values(f.schema, value.get(f.name), name, out)
            else:
                out[name] = fget(f, value)


_both(FlattenT, K + "Flatten")


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


def java_double_str(d: float) -> str:
    """`Double.toString`."""
    if d != d:
        return "NaN"
    if d in (float("inf"), float("-inf")):
        return "Infinity" if d > 0 else "-Infinity"
    a = abs(d)
    if a == 0.0:
        return "-0.0" if str(d).startswith("-") else "0.0"
    if 1e-3 <= a < 1e7:
        r = repr(d)
        return r if "." in r else r + ".0"
    from emulator.connect.javafloat import _scientific

    return _scientific(d)


def java_float_str(f: float) -> str:
    """`Float.toString`: the shortest digits that read back as the same float32."""
    import struct as _st

    if f != f or f in (float("inf"), float("-inf")) or f == 0.0:
        return java_double_str(f)
    target = _st.pack(">f", f)
    for digits in range(1, 10):
        cand = float(f"{f:.{digits}g}")
        if _st.pack(">f", cand) == target:
            break
    a = abs(cand)
    if 1e-3 <= a < 1e7:
        text = f"{cand:.{digits}g}"
        if "e" in text:
            text = repr(cand)
        return text if "." in text else text + ".0"
    from emulator.connect.javafloat import _scientific

    return _scientific(cand)


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
            return java_float_str(value) if src == "float" else java_double_str(value)
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
        v = require_struct(value, "cast types")
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
        from emulator.connect.javafloat import java_double

        return java_double(v)
    return v


_both(CastT, K + "Cast")
