"""Debezium's shipped custom converters (``converters=...``) on a column's mapping.

Debezium's TableSchemaBuilder asks the CustomConverterRegistry first: a converter that registers for the
column gives the field's schema (then made optional and given the default as usual) and converts the raw
value, in place of the connector's own converter; the schema default is the converter applied to the parsed
DDL default; column mappers (mask, truncate, propagate) still apply on top. The raw value is what the
connector reads before its own conversion: in the stream the binlog's value (integers signed at their width,
strings as bytes), in the snapshot the JDBC value (numbers as the column's number, strings as the column's
bytes). Schema-change events are not affected. Recorded: mariadb cases tinyint_bool, tinyint_bool_notx,
jdbc_sink_types, jdbc_sink_types_float.

A column type whose raw value was not recorded for a converter (BIT, DECIMAL, ENUM, temporal types ... under a
JdbcSinkDataTypesConverter selector) is refused, naming the selector, rather than guessed.
"""

from __future__ import annotations

import math
import struct
from typing import Any

from emulator.connect.javafloat import java_double
from emulator.connect.schema import Schema
from emulator.connectors.mysql.ddl_model import Column
from emulator.connectors.mysql.types import Mapped, UnsupportedColumn, codec_of
from emulator.connectors.mysql.values import (
    ZERO,
    float32_json,
    text_date,
    text_datetime_us,
    zoned_iso_trimmed,
)
from emulator.settings.custom_converters import (
    CustomConverter,
    JdbcSinkTypes,
    TinyIntToBoolean,
    ZeroDateFallback,
    parse_date_fallback,
    parse_datetime_fallback,
    parse_timestamp_fallback,
    selects,
)

_TINYINT_FAMILY = ("TINYINT", "TINYINT UNSIGNED")  # typeName as the converter compares it (not ZEROFILL)
_INTEGERS = frozenset({"TINYINT", "SMALLINT", "MEDIUMINT", "INT", "INTEGER", "BIGINT", "BOOLEAN", "BOOL"})
_FLOAT32 = frozenset({"FLOAT"})
_FLOAT64 = frozenset({"DOUBLE", "DOUBLE PRECISION", "REAL"})  # MariaDB's REAL is a DOUBLE
_STRINGS = frozenset({"CHAR", "VARCHAR", "NCHAR", "NVARCHAR", "TINYTEXT", "TEXT", "MEDIUMTEXT", "LONGTEXT"})
_TEXT_DATA_TYPES = frozenset({"CHAR", "VARCHAR", "TEXT"})
CHARSET_PARAMETER = "__debezium.source.column.character_set"
_F32 = struct.Struct("<f")


def _int_value(v: int) -> int:
    """Java's ``Number.intValue()``: the low 32 bits, signed (a BIGINT 2^32 is 0)."""
    return ((v & 0xFFFFFFFF) ^ 0x80000000) - 0x80000000


def _positive(v: int) -> bool:
    # ((Number) x).intValue() > 0 on a TINYINT: the binlog's is a signed byte, so an unsigned 128..255 is false
    return v > 0


_positive.inline = "(r > 0)"  # the binlog row decoders inline this expression


def _positive_text(s: str) -> bool:
    # the snapshot's JDBC value is the column's number (Connector/J's tinyInt1isBit is off): unsigned 255 is
    # true there, -1 false (recorded)
    return int(s) > 0


def _default_number(col: Column) -> int | None:
    """The DDL default as the converter receives it (a number; TRUE/FALSE as 1/0), None: no default."""
    text = col.default if col.has_default else None
    if text is None:
        return None
    if text in ("TRUE", "FALSE"):
        return 1 if text == "TRUE" else 0
    try:
        return int(text)
    except ValueError:
        return None


def _tinyint_boolean(conv: TinyIntToBoolean, table_id: str, col: Column) -> tuple[Mapped, Any] | None:
    if col.type_name.upper() not in _TINYINT_FAMILY or (conv.length_checker and col.length != 1):
        return None
    if conv.selector is not None and not selects(conv.selector, table_id, col.name):
        return None
    d = _default_number(col)
    return Mapped(Schema("boolean"), _positive, _positive_text), (None if d is None else d > 0)


def _refuse(conv: JdbcSinkTypes, option: str, col: Column) -> UnsupportedColumn:
    return UnsupportedColumn(
        f"{conv.alias}.{option}: column {col.name} of type {col.type_name}: JdbcSinkDataTypesConverter's values "
        "for this type were not recorded; narrow the selector to the column types it is meant for",
        f"{conv.alias}.{option}",
    )


def _f32(x: float) -> float:
    """Java's double-to-float narrowing: beyond the float range it rounds to an infinity (recorded: a DOUBLE 1e300
    under ``treat.real.as.double=false`` is "Infinity"), where struct raises."""
    try:
        return _F32.unpack(_F32.pack(x))[0]
    except OverflowError:
        return math.copysign(math.inf, x)


def _jdbc_sink(conv: JdbcSinkTypes, table_id: str, col: Column, default: Any) -> tuple[Mapped, Any] | None:
    base = col.base_type
    if selects(conv.boolean, table_id, col.name):
        if base not in _INTEGERS:
            raise _refuse(conv, "selector.boolean", col)
        d = _default_number(col)

        def to_int16(v: int) -> int:
            return 1 if _int_value(v) > 0 else 0

        return Mapped(Schema("int16"), to_int16, lambda s: to_int16(int(s))), (
            None if d is None else to_int16(d)
        )
    if selects(conv.real, table_id, col.name):
        if base not in _FLOAT32 and base not in _FLOAT64:
            raise _refuse(conv, "selector.real", col)
        # the JDBC value of a FLOAT column is a Float (FLOAT(M,D) too), of a DOUBLE/REAL a Double
        read = (lambda s: _f32(float(s))) if base in _FLOAT32 else float
        text = col.default if col.has_default else None
        try:
            raw_default = None if text is None else read(text)
        except ValueError:
            raw_default = None
        if conv.real_as_double:  # Number.doubleValue(): a float widened exactly
            return Mapped(Schema("double"), java_double, lambda s: java_double(read(s))), (
                None if raw_default is None else java_double(raw_default)
            )

        def as_float(v: float) -> Any:  # Number.floatValue(): a double rounded to float
            return float32_json(_f32(v))

        return Mapped(Schema("float"), as_float, lambda s: as_float(read(s))), (
            None if raw_default is None else as_float(raw_default)
        )
    if selects(conv.string, table_id, col.name):
        if base not in _STRINGS or col.charset is None:
            raise _refuse(conv, "selector.string", col)
        # new String(bytes, UTF_8) on the column's bytes, snapshot and stream: a latin1 'ç' is U+FFFD (recorded).
        # In the snapshot only CHAR, VARCHAR and TEXT (Debezium's BinlogFieldReader.TEXT_DATA_TYPES, by exact
        # typeName) are read as the column's bytes; a TINYTEXT/MEDIUMTEXT/LONGTEXT is Connector/J's String, kept
        # as is (recorded: a cp1251 TINYTEXT reads right in the snapshot, U+FFFD in the stream)
        codec = (
            codec_of(col.value_charset or col.charset)
            if col.type_name.upper() in _TEXT_DATA_TYPES
            else "utf-8"
        )

        def from_bytes(b: bytes) -> str:
            return b.decode("utf-8", "replace")

        from_bytes.inline = "r.decode('utf-8', 'replace')"  # the binlog row decoders inline this expression

        def from_text(s: str) -> str:  # the snapshot's text back to the column's bytes
            return s if codec == "utf-8" else s.encode(codec, "replace").decode("utf-8", "replace")

        schema = Schema("string", parameters={CHARSET_PARAMETER: col.charset})
        return Mapped(schema, from_bytes, from_text), default  # the parsed default String, as is
    return None


_DATE_JDBC, _TIMESTAMP_JDBC, _TIMESTAMP_TZ_JDBC = 91, 93, 2014


def _zero_date(conv: ZeroDateFallback, table_id: str, col: Column, default: Any) -> tuple[Mapped, Any] | None:
    """NULL and zero dates (the binlog's and JDBC's null) become the fallback; other values the type's
    fixed schema: DATE io.debezium.time.Date, DATETIME io.debezium.time.Timestamp (MicroTimestamp from 4
    fractional digits: Debezium 3.6.3's class, whatever time.precision.mode), TIMESTAMP ZonedTimestamp
    printed with ISO_OFFSET_DATE_TIME. The schema is optional when the fallback is NULL; its default is the
    fallback where the DDL default parses to a value (the converter's first call)."""
    if conv.selector is not None and not selects(conv.selector, table_id, col.name):
        return None
    key = f"{table_id}.{col.name}"
    raw = dict(conv.columns).get(key)
    prop = f"{conv.alias}.column.{key}.fallback"
    type_name = col.type_name.upper()
    if col.jdbc_type == _DATE_JDBC and conv.date:
        fallback = parse_date_fallback(prop, raw) if raw is not None else conv.fallback_date
        schema = Schema("int32", name="io.debezium.time.Date", version=1)
        read, value, label = text_date, None, "date"
    elif col.jdbc_type == _TIMESTAMP_JDBC and conv.datetime and type_name == "DATETIME":
        us = parse_datetime_fallback(prop, raw) if raw is not None else conv.fallback_datetime
        micro = col.length is not None and col.length >= 4
        fallback = us if us is None or micro else us // 1000
        name = "io.debezium.time.MicroTimestamp" if micro else "io.debezium.time.Timestamp"
        schema = Schema("int64", name=name, version=1)
        read, value, label = text_datetime_us, (None if micro else (lambda v: v // 1000)), "datetime"
    elif (col.jdbc_type == _TIMESTAMP_TZ_JDBC or type_name == "TIMESTAMP") and conv.timestamp:
        fallback = parse_timestamp_fallback(prop, raw) if raw is not None else conv.fallback_timestamp
        schema = Schema("string", name="io.debezium.time.ZonedTimestamp", version=1)
        read, value, label = text_datetime_us, zoned_iso_trimmed, "timestamp"
    else:
        return None
    if fallback is not None and col.optional:
        # Debezium hands a NULL to the converter too, which prints the fallback for it: the emulator's paths
        # print NULL as null, so a literal fallback is taken only where the column cannot be NULL
        where = prop if raw is not None else f"{conv.alias}.fallback.{label}"
        raise UnsupportedColumn(
            f"{where}: column {col.name} is nullable, and ZeroDateFallbackConverter prints its literal fallback for "
            "a NULL there too, which the emulator does not; narrow the selector to NOT NULL columns, or use NULL",
            where,
        )

    def convert(v: Any, fb: Any = fallback, f: Any = value) -> Any:
        if v is ZERO:
            return fb
        return v if f is None else f(v)

    # a NULL fallback makes the field optional, NOT NULL column or not
    return Mapped(schema, convert, lambda s: convert(read(s)), always_optional=fallback is None), (
        fallback if default is not None else None
    )


def convert_column(
    converters: tuple[CustomConverter, ...], table_id: str, col: Column, mapped: Mapped, default: Any
) -> tuple[Mapped, Any]:
    """The column's mapping and schema default after the first converter that registers for it, or the
    arguments unchanged."""
    for conv in converters:
        if isinstance(conv, TinyIntToBoolean):
            got = _tinyint_boolean(conv, table_id, col)
        elif isinstance(conv, JdbcSinkTypes):
            got = _jdbc_sink(conv, table_id, col, default)
        else:
            got = _zero_date(conv, table_id, col, default)
        if got is not None:
            return got
    return mapped, default
