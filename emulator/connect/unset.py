"""A required field Debezium's converter failed on: null in the Struct, its schema default in the JSON.

When a binlog connector's value converter throws on a NOT NULL column that has a DEFAULT (time.precision.mode
nanoseconds: a DATETIME past epoch nanoseconds' long range; isostring / connect: a TIME outside a day),
Debezium's TableSchemaBuilder logs it and leaves the field unset. The Struct then holds null, and what a
reader sees depends on how it reads:

* `Struct.get` (JsonConverter with replace.null.with.default=true, InsertField's copy) gives the schema
  default: the plain envelope shows the default (recorded: tests/data/mariadb/cases/required_default_*);
* `Struct.getWithoutDefault` gives null: JsonConverter with replace.null.with.default=false prints null, and
  ExtractNewRecordState's addFields, which puts every field's raw value into a new Struct, fails with
  "Invalid value: null used for required field" (recorded: tests/data/connect/mariadb_unset_required*; the
  Connect campaign's seed 139 trial 3).

The connectors hand such a value over as the default itself, marked by its class (`UnsetInt` / `UnsetStr`, a
subclass of what the field's JSON-ready value is): everything that prints or compares it sees the default
(orjson and the C writers print an int / str subclass as its value), and the data plane, which alone tells
the two reads apart, finds it by class. Only the logical types those converters make can hold one
(`UNSET_NAMES`), so the data plane's per-schema checks cost nothing for any other schema.
"""

from __future__ import annotations

from typing import Any

from emulator.connect.schema import Schema

__all__ = ["UNSET_NAMES", "UnsetInt", "UnsetStr", "is_unset", "may_be_unset", "unset", "unset_fields"]


class UnsetInt(int):
    __slots__ = ()


class UnsetStr(str):
    __slots__ = ()


_CLASSES = (UnsetInt, UnsetStr)

# the schemas of the converters that throw on a required column (emulator/connectors/mysql/temporal_modes.py,
# types._connect_time_ms_required)
UNSET_NAMES = frozenset(
    ("io.debezium.time.NanoTimestamp", "io.debezium.time.IsoTime", "org.apache.kafka.connect.data.Time")
)


def unset(default: Any) -> Any:
    """The schema default `default` (JSON-ready) as the value of a field the converter left unset."""
    return UnsetStr(default) if isinstance(default, str) else UnsetInt(default)


def is_unset(value: Any) -> bool:
    return value.__class__ in _CLASSES


def may_be_unset(schema: Schema) -> bool:
    """Whether a field of this schema can hold an unset value (required, with a default, one of UNSET_NAMES)."""
    return schema.name in UNSET_NAMES and not schema.optional and schema.default is not None


_FIELDS: dict[int, tuple[Schema, tuple[tuple[str, Schema], ...]]] = {}


def unset_fields(schema: Schema | None) -> tuple[tuple[str, Schema], ...]:
    """The (name, schema) of a struct schema's fields that can hold an unset value (mostly none); asked per
    record, so kept per schema object."""
    if schema is None or schema.type != "struct":
        return ()
    hit = _FIELDS.get(id(schema))
    if hit is not None and hit[0] is schema:
        return hit[1]
    found = tuple((f.name, f.schema) for f in schema.fields or () if may_be_unset(f.schema))
    if len(_FIELDS) > 4096:
        _FIELDS.clear()
    _FIELDS[id(schema)] = (schema, found)
    return found
