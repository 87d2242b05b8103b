"""DATE / TIME / DATETIME under time.precision.mode=microseconds, nanoseconds and isostring (Debezium 3.6.3's
MySqlConnector: JdbcValueConverters' generic temporal conversions; TIMESTAMP stays io.debezium.time.ZonedTimestamp
and YEAR io.debezium.time.Year in every mode). Recorded with the harness (tests/data/mariadb/cases/time_mode_*):

* microseconds: DATE io.debezium.time.Date (days), TIME io.debezium.time.MicroTime (signed, any MariaDB range),
  DATETIME(0-6) io.debezium.time.MicroTimestamp: adaptive_time_microseconds but with microseconds for fsp 0-3 too;
* nanoseconds: TIME io.debezium.time.NanoTime, DATETIME io.debezium.time.NanoTimestamp; a DATETIME outside
  Java's long range of epoch nanoseconds is null (Debezium multiplies the epoch day first: a date on 1677-09-21
  is out though its instant fits), and stops the connector in a NOT NULL column;
* isostring: io.debezium.time.IsoDate "2021-03-04Z", IsoTime "12:00:00.5Z", IsoTimestamp "...T05:06:07.1234Z"
  (java.time's ISO formatters: seconds always, the fraction without trailing zeros); a TIME outside
  00:00:00..24:00:00 is null (24:00:00 itself is "00:00:00Z"), and stops the connector in a NOT NULL column.

Zero dates are read as in the other modes: null, or in a NOT NULL column the schema default, else the type's
fallback (epoch: 0, "1970-01-01Z", "1970-01-01T00:00:00Z").

The converters are plain Python callables (no `inline` / `int_result` where a value can be null), so the
binlog row decoders and the line path call them as they are."""

from __future__ import annotations

import datetime as _dt
from typing import Any

from emulator.connect.schema import Schema
from emulator.connect.unset import unset
from emulator.connectors.mysql.values import (
    ZERO,
    connect_time_ms,
    identity,
    text_call,
    text_date,
    text_datetime_us,
    text_datetime_us_written,
    text_time_us,
    with_zero,
)

NEW_MODES = ("microseconds", "nanoseconds", "isostring")

_EPOCH_ORD = _dt.date(1970, 1, 1).toordinal()
_DAY_US = 86_400_000_000
_DAY_NS = 86_400_000_000_000
_LONG_MIN, _LONG_MAX = -(2**63), 2**63 - 1


def _schema(kind: str, name: str) -> Schema:
    return Schema(kind, name=f"io.debezium.time.{name}", version=1)


def _frac(nanos: int) -> str:
    """java.time's ISO fraction: none for 0, else the nanoseconds without trailing zeros."""
    return "" if not nanos else "." + f"{nanos:09d}".rstrip("0")


def iso_date(days: int) -> str:
    d = _dt.date.fromordinal(days + _EPOCH_ORD)
    return f"{d.year:04d}-{d.month:02d}-{d.day:02d}Z"


def iso_time(us: int) -> str | None:
    """IsoTime.toIsoString(Duration, false): null outside 0..24 h; 24:00:00 wraps to midnight."""
    if not 0 <= us <= _DAY_US:
        return None
    us %= _DAY_US
    sec, frac = divmod(us, 1_000_000)
    h, rem = divmod(sec, 3600)
    mi, se = divmod(rem, 60)
    return f"{h:02d}:{mi:02d}:{se:02d}{_frac(frac * 1000)}Z"


def iso_timestamp(us: int) -> str:
    days, rem = divmod(us, _DAY_US)
    d = _dt.date.fromordinal(days + _EPOCH_ORD)
    sec, frac = divmod(rem, 1_000_000)
    h, rem = divmod(sec, 3600)
    mi, se = divmod(rem, 60)
    y = f"{d.year:04d}" if d.year <= 9999 else f"+{d.year}"
    return f"{y}-{d.month:02d}-{d.day:02d}T{h:02d}:{mi:02d}:{se:02d}{_frac(frac * 1000)}Z"


def nano_timestamp(us: int) -> int | None:
    """NanoTimestamp.toEpochNanos: Math.multiplyExact(epochDay, nanos a day) + nano of day, each step in a
    Java long, else null (the converter's IllegalArgumentException)."""
    days, rem = divmod(us, _DAY_US)
    base = days * _DAY_NS
    if not _LONG_MIN <= base <= _LONG_MAX:
        return None
    v = base + rem * 1000
    return v if v <= _LONG_MAX else None


def _required(conv, name: str, what: str, error: type[Exception], default: Any = None):
    """A NOT NULL column: Debezium's converter fails, TableSchemaBuilder leaves the field null and Connect's Struct
    takes the field's schema `default` (recorded: cases required_default_*, campaign seed 106008; the Struct holds
    null, which ExtractNewRecordState's raw copy refuses: connect/unset.py); without one the
    null fails the required field and stops the connector (`error`: types.EventConversionError, passed in as
    types.py imports this module)."""

    # the default as an unset field's value: printed as the default, null to readers without defaults (connect.unset)
    filled = None if default is None else unset(default)

    def f(v):
        r = conv(v)
        if r is None:
            if filled is not None:
                return filled
            raise error(
                f"column {name}: {what} cannot be converted under this time.precision.mode (Debezium's converter "
                "throws: a null a required field refuses, or event.converting.failure.handling.mode=fail; "
                "Debezium stops here too)"
            )
        return r

    return f


def temporal(
    base: str,
    mode: str,
    name: str,
    optional: bool,
    zero_default: Any,
    error: type[Exception],
    key: bool = False,
    fail: bool = False,
) -> tuple[Schema, Any, Any, Any] | None:
    """(schema, binlog converter, snapshot converter, DEFAULT converter or None: the snapshot's) of a
    DATE/TIME/DATETIME under one of NEW_MODES, else None. `zero_default`: as types.map_column's (a NOT NULL column's schema default: what a zero date, or a
    value the mode cannot convert, reads as); `error`: what such a value raises without one. `key`: a
    message.key.columns column: a DATETIME out of nanoseconds' range stops Debezium even when nullable (its key
    field is required; case time_nanoseconds_key_column_out_of_range_stops), a zero date is still null. `fail`:
    event.converting.failure.handling.mode=fail, a value the converter throws on stops, nullable or not, default or
    not (case converting_fail_value_stops)."""
    if mode not in NEW_MODES or base not in ("DATE", "TIME", "DATETIME"):
        return None
    if base == "DATE":
        if mode != "isostring":
            zero = None if optional else (0 if zero_default is None else zero_default)
            return (
                _schema("int32", "Date"),
                with_zero(identity, zero, "r", ints=True),
                text_call(text_date, zero),
                None,
            )
        zero = None if optional else ("1970-01-01Z" if zero_default is None else zero_default)
        conv = with_zero(iso_date, zero)
        return _schema("string", "IsoDate"), conv, lambda s, c=conv: c(text_date(s)), None
    if base == "TIME":
        if mode == "microseconds":
            return _schema("int64", "MicroTime"), identity, text_time_us, None
        if mode == "nanoseconds":
            return _schema("int64", "NanoTime"), _nanos, lambda s: text_time_us(s) * 1000, None
        what = "a TIME outside 00:00:00..24:00:00"
        conv = (
            _required(iso_time, name, what, error)
            if fail
            else iso_time
            if optional
            else _required(iso_time, name, what, error, zero_default)
        )
        return _schema("string", "IsoTime"), conv, lambda s, c=conv: c(text_time_us(s)), None
    # DATETIME (rows read through JDBC, DEFAULTs as written: values.text_datetime_us_written)
    if mode == "microseconds":
        zero = None if optional else (0 if zero_default is None else zero_default)
        conv = with_zero(identity, zero, "r", ints=True)
        return (
            _schema("int64", "MicroTimestamp"),
            conv,
            text_call(text_datetime_us, zero, 1),
            text_call(text_datetime_us_written, zero, 1),
        )
    if mode == "nanoseconds":
        zero = None if optional else (0 if zero_default is None else zero_default)
        what = "a DATETIME outside epoch nanoseconds' range"
        one = (
            _required(nano_timestamp, name, what, error)
            if fail
            else nano_timestamp
            if optional and not key
            else _required(nano_timestamp, name, what, error, zero_default)
        )
        conv = with_zero(one, zero)
        return _datetime(_schema("int64", "NanoTimestamp"), conv)
    zero = None if optional else ("1970-01-01T00:00:00Z" if zero_default is None else zero_default)
    return _datetime(_schema("string", "IsoTimestamp"), with_zero(iso_timestamp, zero))


def _datetime(schema: Schema, conv) -> tuple[Schema, Any, Any, Any]:
    return (
        schema,
        conv,
        lambda s, c=conv: c(text_datetime_us(s)),
        lambda s, c=conv: c(text_datetime_us_written(s)),
    )


def _nanos(us: int) -> int:
    return us * 1000


def default_throws(base: str, mode: str, text: str) -> bool:
    """Whether Debezium's converter throws on a DEFAULT's text (TableSchemaBuilder.parseDefaultValue: `warn` leaves
    no schema default, `fail` stops when the table's schema is built; case converting_fail_default_stops): a TIME
    outside a day under isostring / connect, a DATETIME outside NanoTimestamp's range under nanoseconds."""
    try:
        if base == "TIME" and mode in ("isostring", "connect"):
            us = text_time_us(text)
            return (iso_time(us) if mode == "isostring" else connect_time_ms(us)) is None
        if base == "DATETIME" and mode == "nanoseconds":
            us = text_datetime_us_written(text)
            return us is not ZERO and us is not None and nano_timestamp(us) is None
    except (ValueError, TypeError, IndexError, OverflowError):
        return False
    return False
