"""Kafka's transforms that reshape fields of the key or the value: ReplaceField, InsertField, ExtractField,
HoistField, ValueToKey, SetSchemaMetadata (each `$Key` / `$Value` where Kafka has both)."""

from __future__ import annotations

from typing import Any

from emulator.connect.record import ConnectRecord
from emulator.connect.schema import Field, Schema
from emulator.connect.transforms.base import (
    Options,
    Transform,
    TransformError,
    copy_basics,
    fget,
    field_of,
    put_raw,
    register,
    require_map,
    require_struct,
)
from emulator.connect.transforms.keyvalue import (
    OPT_STRING,
    REQ_STRING,
    TIMESTAMP,
    K,
    KeyOrValue,
    SchemaCache,
    register_both,
)

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
        v = require_struct(value, "field replacement", schema)
        updated = self.cache.get(schema, self._schema)
        if not self.replace_null:
            put_raw(schema, v, lambda n: field_of(updated, self.renames.get(n, n)) if self.keep(n) else None)
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


register_both(ReplaceFieldT, K + "ReplaceField")
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
        v = require_struct(value, "field insertion", schema)
        updated = self.cache.get(schema, self._schema)
        if self.replace_null:
            out = {f.name: fget(f, v) for f in schema.fields}
        else:
            put_raw(schema, v)
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
        if self.offset is not None:
            # Kafka's requireSinkRecord: a source connector's record has no Kafka offset, so every record with a
            # value fails here, after the struct copy (tombstones pass); recorded with Debezium 3.6.3, session 24
            raise TransformError(
                "Only SinkRecord supported for [field insertion], found: org.apache.kafka.connect.source.SourceRecord"
            )
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
        if self.offset is not None:
            fields.append(Field(self.offset[0], Schema("int64", optional=self.offset[1])))
        if self.timestamp is not None:
            fields.append(
                Field(
                    self.timestamp[0], Schema("int64", optional=self.timestamp[1], name=TIMESTAMP, version=1)
                )
            )
        if self.static is not None:
            fields.append(Field(self.static[0], OPT_STRING if self.static[1] else REQ_STRING))
        return copy_basics(schema, fields=fields)  # a name the value already has fails there, as in Kafka


register_both(InsertFieldT, K + "InsertField")


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
            require_struct(cur, "nested field access", f.schema)
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
            require_struct(value, "field extraction", schema)
        f = self._field(schema)
        if f is None:
            raise TransformError(f"Unknown field: {self.field}")
        return self.new(r, f.schema, None if value is None else self._value(schema, value))


register_both(ExtractFieldT, K + "ExtractField")


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
                f"schema type: {schema.type_name()}"
            )
        return self.new(r, updated, {self.field: value})


register_both(HoistFieldT, K + "HoistField")


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
        v = require_struct(r.value, "copying fields from value to key", r.value_schema)
        ks = self.cache.get(r.value_schema, self._schema)
        if not self.replace_null:
            put_raw(r.value_schema, v, lambda n: field_of(ks, n))
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
        if schema.type != "struct":
            # Kafka's SetSchemaMetadata builds the new schema with schema.fields(), which ConnectSchema refuses for
            # any other type: every record of a non-struct schema fails, as in Debezium (connect case
            # pg_setschemametadata_non_struct; under errors.tolerance=all Connect skips it, as here)
            raise TransformError("Cannot list fields on non-struct type")
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
                put_raw(schema, value)
                value = {f.name: value.get(f.name) for f in updated.fields}
        return self.new(r, updated, value)


register_both(SetSchemaMetadataT, K + "SetSchemaMetadata")
