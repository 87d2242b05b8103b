"""Debezium's shipped custom converters (``converters=...``) on a column's mapping.

Debezium's TableSchemaBuilder asks the CustomConverterRegistry first: a converter that registers for the
column gives the field's schema (then made optional and given the default as usual) and converts the raw
value, in place of the connector's own converter; column mappers (mask, truncate, propagate) still apply on
top. The raw value is what the connector reads before its own conversion: the binlog's signed integer in
the stream, the JDBC value in the snapshot. Schema-change events are not affected (the table's columns are
unchanged; recorded: mariadb cases tinyint_bool, tinyint_bool_notx).
"""

from __future__ import annotations

from typing import Any

from emulator.connect.schema import Schema
from emulator.connectors.mysql.ddl_model import Column
from emulator.connectors.mysql.types import Mapped
from emulator.settings.custom_converters import CustomConverter, TinyIntToBoolean

_TINYINT_FAMILY = ("TINYINT", "TINYINT UNSIGNED")  # typeName as the converter compares it (not ZEROFILL)


def _positive(v: int) -> bool:
    # ((Number) x).intValue() > 0: the binlog's TINYINT is a signed byte, so an unsigned 128..255 is false
    return v > 0


_positive.inline = "r > 0"  # the binlog row decoders inline this expression


def _positive_text(s: str) -> bool:
    # the snapshot's JDBC value is the column's number (Connector/J's tinyInt1isBit is off): unsigned 255 is
    # true there, -1 false (recorded)
    return int(s) > 0


def convert_column(
    converters: tuple[CustomConverter, ...], table_id: str, col: Column, mapped: Mapped, default: Any
) -> tuple[Mapped, Any]:
    """The column's mapping and schema default after the first converter that registers for it, or the
    arguments unchanged."""
    for conv in converters:
        if isinstance(conv, TinyIntToBoolean):
            if col.type_name.upper() not in _TINYINT_FAMILY:
                continue
            if conv.length_checker and col.length != 1:
                continue
            if not conv.selects(table_id, col.name):
                continue
            # the schema default is the converter applied to the parsed DDL default (a NULL default: none)
            return Mapped(Schema("boolean"), _positive, _positive_text), (
                None if default is None else default > 0
            )
    return mapped, default
