"""The neutral change model every connector produces and the envelope layer consumes.

A connector describes each captured table once as a `TableDef` (columns with their Connect schema and a
converter from the connector's raw value to the JSON-ready payload value) and then reports changes as
rows of raw values in column order. Nothing here knows about a particular database.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import orjson

from emulator.connect.schema import Schema

# raw value (whatever the connector reads: PG text, a binlog value, ...) -> JSON-ready payload value
Converter = Callable[[Any], Any]


def printed(value: Any) -> bytes:
    """A JSON-ready payload value as it is printed, the form in which two values are compared or hashed:
    a double outside [1e-3, 1e7) is an orjson.Fragment (Java's text), equal to no other Fragment, and a
    VariableScaleDecimal a dict (unhashable) — pg case key_double_fragment."""
    return orjson.dumps(value, default=repr)


@dataclass(slots=True)
class ColumnDef:
    name: str
    schema: Schema  # the Connect field schema (optional/default already set)
    convert: Converter  # never called with None: NULL is always None
    type_name: str = ""  # the source type's name, for logs and column.propagate.source.type
    unavailable: Any = None  # JSON-ready placeholder used for unchanged TOAST values
    length: int | None = None
    scale: int | None = None
    # where a database reads a value differently in a snapshot query than in its log (PG: JDBC vs
    # pgoutput text for e.g. infinite dates), the snapshot's converter; None = same as `convert`
    snapshot_convert: Converter | None = None
    null_value: Any = None  # what NULL is printed as (None: null)
    # the schema in the record key when it differs from the value's: Debezium's column mappers
    # (propagate.source.type parameters, ...) shape only value fields
    key_schema: Schema | None = None
    # (length, scale) for column.propagate.source.type where they differ from `length`/`scale`
    source_size: tuple[int | None, int | None] | None = None
    # whether the column's JDBC type is a character type (Debezium's column.mask.* replace only those values;
    # None: unknown, the Connect schema's string type decides)
    text_type: bool | None = None


@dataclass(slots=True)
class TableDef:
    """One captured table. `namespace` is the PG schema or the MySQL database."""

    namespace: str
    name: str
    columns: list[ColumnDef]
    key_columns: list[str] = field(default_factory=list)  # empty: keyless table (null key)
    extra: dict[str, Any] = field(default_factory=dict)  # connector-private data (oids, ...)
    # key columns the column filters exclude: they stay in the key but not in before/after
    key_only: frozenset[str] = frozenset()

    @property
    def id(self) -> str:
        return f"{self.namespace}.{self.name}"

    def column_names(self) -> list[str]:
        return [c.name for c in self.columns]
