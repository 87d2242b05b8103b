"""Debezium's smaller transforms: HeaderToValue and SchemaChangeEventFilter."""

from __future__ import annotations

from emulator.connect.record import ConnectRecord
from emulator.connect.schema import Field, Schema
from emulator.connect.transforms.base import (
    Options,
    Transform,
    TransformError,
    copy_basics,
    fget,
    register,
    require_struct,
)

D = "io.debezium.transforms."
SCHEMA_CHANGE_TYPES = ("CREATE", "ALTER", "DROP", "TRUNCATE", "DATABASE")


def _required_list(opts: Options, key: str) -> list[str]:
    if opts.raw(key) is None or not opts.raw(key).strip():
        raise opts.fail(key, "a value is required")
    items = opts.list(key)
    if any(not i for i in items):
        raise opts.fail(key, "must not contain empty elements")
    if any(" " in i for i in items):
        raise opts.fail(key, "must not contain spaces in any element")
    return items


@register(D + "HeaderToValue")
class HeaderToValue(Transform):
    def __init__(self, opts: Options) -> None:
        super().__init__(opts)
        self.fields = _required_list(opts, "fields")
        self.headers = _required_list(opts, "headers")
        op = opts.str("operation")
        if op is None:
            raise opts.fail("operation", "a value is required")
        op = op.strip().lower()
        if op not in ("move", "copy"):
            raise opts.fail(
                "operation", f"invalid value {opts.raw('operation')!r}; allowed values: move, copy"
            )
        if len(self.headers) != len(self.fields):
            raise opts.fail(
                "fields", "'fields' config must have the same number of elements as 'headers' config."
            )
        if any("." in f for f in self.fields):
            raise opts.fail("fields", "nested fields (dot notation) are not supported by this emulator")
        self.move = op == "move"
        self.cache: dict[int, tuple[Schema, Schema]] = {}

    def apply(self, r: ConnectRecord) -> ConnectRecord | None:
        if r.value is None:
            return r
        value = require_struct(r.value, "Header field insertion")
        schema = r.value_schema
        entries = []
        for name, hschema, hvalue in r.headers:
            if name in self.headers:
                entries.append((self.fields[self.headers.index(name)], hschema, hvalue))
        if not entries:
            return r
        hit = self.cache.get(id(schema))
        if hit is None or hit[0] is not schema:  # Debezium caches by the value schema alone
            fields = list(schema.fields)
            names = {f.name for f in fields}
            for fname, hschema, _ in entries:
                if fname not in names:
                    names.add(fname)
                    fields.append(Field(fname, hschema))
            hit = (schema, copy_basics(schema, fields=fields))
            self.cache[id(schema)] = hit
        updated = hit[1]
        out = {f.name: None for f in updated.fields}
        for f in schema.fields:
            v = fget(f, value)
            if v is not None:
                out[f.name] = v
        for fname, _, hvalue in entries:
            if fname not in out:
                raise TransformError(f"{fname} is not a valid field name")
            out[fname] = hvalue
        headers = [h for h in r.headers if h[0] not in self.headers] if self.move else r.headers
        return ConnectRecord(r.topic, r.partition, r.key_schema, r.key, updated, out, headers, r.timestamp)


@register(D + "SchemaChangeEventFilter")
class SchemaChangeEventFilter(Transform):
    def __init__(self, opts: Options) -> None:
        super().__init__(opts)
        raw = opts.str("schema.change.event.exclude.list")
        if raw is None or not raw.strip():
            raise opts.fail("schema.change.event.exclude.list", "a value is required")
        self.exclude = set()
        for t in raw.split(","):
            t = t.strip()
            if t not in SCHEMA_CHANGE_TYPES:
                raise opts.fail(
                    "schema.change.event.exclude.list",
                    f"No enum constant io.debezium.schema.SchemaChangeEvent.SchemaChangeEventType.{t}",
                )
            self.exclude.add(t)

    def apply(self, r: ConnectRecord) -> ConnectRecord | None:
        s = r.value_schema
        if (
            r.value is None
            or s is None
            or s.name is None
            or not s.name.endswith((".SchemaChangeValue", ".SchemaChangeKey"))
        ):
            return r
        changes = require_struct(r.value, "Read schema change event to filter").get("tableChanges")
        if changes is None:
            return None
        kind = "DATABASE" if not changes else changes[0].get("type")
        return None if kind in self.exclude else r
