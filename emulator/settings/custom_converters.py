"""``converters``: the custom converters Debezium ships in its binlog connector jars, parsed once.

A user lists aliases (``converters=boolean``) and gives each a class (``boolean.type=...``) and options
(``boolean.selector=...``). Only the classes below are emulated (MySQL and MariaDB connectors); any other
class is refused at start by :mod:`emulator.settings.validate`, naming ``<alias>.type``.
"""

from __future__ import annotations

import datetime as _dt
import re
from dataclasses import dataclass
from typing import Any

from emulator.settings.errors import ConfigError, show_value
from emulator.settings.values import compile_anchored, split_regex_list

TINYINT_ONE_TO_BOOLEAN = (
    "io.debezium.connector.binlog.converters.TinyIntOneToBooleanConverter",
    # the class's old name, kept by Debezium as a subclass of the binlog one
    "io.debezium.connector.mysql.converters.TinyIntOneToBooleanConverter",
)
JDBC_SINK_DATA_TYPES = (
    "io.debezium.connector.binlog.converters.JdbcSinkDataTypesConverter",
    "io.debezium.connector.mysql.converters.JdbcSinkDataTypesConverter",
)
ZERO_DATE_FALLBACK = ("io.debezium.connector.binlog.converters.ZeroDateFallbackConverter",)
SUPPORTED_CLASSES = TINYINT_ONE_TO_BOOLEAN + JDBC_SINK_DATA_TYPES + ZERO_DATE_FALLBACK

Patterns = tuple[re.Pattern[str], ...]


def selects(patterns: Patterns, table_id: str, column: str) -> bool:
    """Debezium's ``Predicates.includes`` on ``<db>.<table>.<column>``: whole-name, case-insensitive."""
    name = f"{table_id}.{column}"
    return any(p.match(name) for p in patterns)


@dataclass(frozen=True, slots=True)
class TinyIntToBoolean:
    """TinyIntOneToBooleanConverter: TINYINT / TINYINT UNSIGNED columns (of length 1 unless
    ``length.checker=false``) whose name matches ``selector`` become BOOLEAN fields."""

    alias: str
    selector: Patterns | None  # None: every column
    length_checker: bool = True


@dataclass(frozen=True, slots=True)
class JdbcSinkTypes:
    """JdbcSinkDataTypesConverter: columns matching ``selector.boolean`` become INT16 1/0, else matching
    ``selector.real`` FLOAT64 (FLOAT32 with ``treat.real.as.double=false``), else matching ``selector.string``
    STRING with the column's character set as a parameter. Unset selectors match nothing."""

    alias: str
    boolean: Patterns
    real: Patterns
    string: Patterns
    real_as_double: bool = True


@dataclass(frozen=True, slots=True)
class ZeroDateFallback:
    """ZeroDateFallbackConverter: DATE, DATETIME and TIMESTAMP columns (``target.types``) matching ``selector``
    get a fallback for NULL and zero dates: None (the NULL policy) or a literal, per type
    (``fallback.date|datetime|timestamp``) or per column (``column.<db>.<table>.<column>.fallback``, raw text
    parsed by the column's type)."""

    alias: str
    selector: Patterns | None  # None: every column
    date: bool
    datetime: bool
    timestamp: bool
    fallback_date: int | None  # epoch days
    fallback_datetime: int | None  # epoch microseconds (UTC)
    fallback_timestamp: str | None  # ISO_OFFSET_DATE_TIME text, UTC
    columns: tuple[
        tuple[str, str], ...
    ] = ()  # (<db>.<table>.<column>, raw fallback) as the properties key them


CustomConverter = TinyIntToBoolean | JdbcSinkTypes | ZeroDateFallback

_EPOCH = _dt.datetime(1970, 1, 1, tzinfo=_dt.UTC)
_DATE = re.compile(r"\d{4}-\d{2}-\d{2}")
_DATETIME = re.compile(r"\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}")
_NULL = "NULL"


def _is_null(raw: str | None) -> bool:
    return raw is None or not raw.strip() or raw.strip().upper() == _NULL


def _bad(name: str, raw: str, form: str) -> ConfigError:
    return ConfigError(f"{name}: {show_value(raw)} is not 'NULL' or {form}", name)


def parse_date_fallback(name: str, raw: str | None) -> int | None:
    """``LocalDate.parse``: NULL/blank -> None, else yyyy-MM-dd as epoch days."""
    if _is_null(raw):
        return None
    text = raw.strip()
    try:
        if not _DATE.fullmatch(text):
            raise ValueError
        return (_dt.date.fromisoformat(text) - _EPOCH.date()).days
    except ValueError:
        raise _bad(name, raw, "a date yyyy-MM-dd") from None


def parse_datetime_fallback(name: str, raw: str | None) -> int | None:
    """``LocalDateTime.parse(.., "yyyy-MM-dd HH:mm:ss")`` as UTC: NULL/blank -> None, else epoch microseconds."""
    if _is_null(raw):
        return None
    text = raw.strip()
    try:
        if not _DATETIME.fullmatch(text):
            raise ValueError
        t = _dt.datetime.fromisoformat(text).replace(tzinfo=_dt.UTC)
    except ValueError:
        raise _bad(name, raw, "a datetime yyyy-MM-dd HH:mm:ss") from None
    d = t - _EPOCH
    return (d.days * 86400 + d.seconds) * 1_000_000 + d.microseconds


def parse_timestamp_fallback(name: str, raw: str | None) -> str | None:
    """``OffsetDateTime.parse`` moved to UTC and printed with ISO_OFFSET_DATE_TIME (seconds always, the fraction
    without trailing zeros, ``Z``): NULL/blank -> None."""
    if _is_null(raw):
        return None
    text = raw.strip()
    try:
        if "T" not in text or not re.search(r"(Z|[+-]\d{2}:\d{2})$", text):
            raise ValueError
        t = _dt.datetime.fromisoformat(text).astimezone(_dt.UTC)
    except ValueError:
        raise _bad(name, raw, "an ISO-8601 offset datetime such as 1970-01-01T00:00:00Z") from None
    out = f"{t.year:04d}-{t.month:02d}-{t.day:02d}T{t.hour:02d}:{t.minute:02d}:{t.second:02d}"
    if t.microsecond:
        out += "." + f"{t.microsecond:06d}".rstrip("0")
    return out + "Z"


def _patterns(config: Any, alias: str, option: str) -> Patterns | None:
    """A selector option, None when unset or blank (``Strings.isNullOrBlank``)."""
    name = f"{alias}.{option}"
    value = config.props.get(name)
    if value is None or not value.strip():
        return None
    return tuple(compile_anchored(name, p) for p in split_regex_list(name, value.strip()))


def _flag(config: Any, alias: str, option: str, default: bool) -> bool:
    # Strings.isNullOrEmpty, then Boolean.parseBoolean: "true" in any case is true, any other text false
    value = config.props.get(f"{alias}.{option}")
    return default if not value else value.lower() == "true"


def _zero_date(config: Any, alias: str) -> ZeroDateFallback:
    props = config.props
    targets = props.get(f"{alias}.target.types")
    tokens = {
        t.strip() for t in (targets if targets is not None else "DATE,DATETIME,TIMESTAMP").upper().split(",")
    }
    selector = props.get(f"{alias}.selector")
    patterns = (
        None if selector is None or selector.strip() in ("", ".*") else _patterns(config, alias, "selector")
    )
    prefix, suffix = f"{alias}.column.", ".fallback"
    columns = tuple(
        sorted(
            (k[len(prefix) : -len(suffix)], v)
            for k, v in props.items()
            if k.startswith(prefix) and k.endswith(suffix) and len(k) > len(prefix) + len(suffix)
        )
    )
    return ZeroDateFallback(
        alias,
        patterns,
        "DATE" in tokens,
        "DATETIME" in tokens,
        "TIMESTAMP" in tokens,
        parse_date_fallback(f"{alias}.fallback.date", props.get(f"{alias}.fallback.date")),
        parse_datetime_fallback(f"{alias}.fallback.datetime", props.get(f"{alias}.fallback.datetime")),
        parse_timestamp_fallback(f"{alias}.fallback.timestamp", props.get(f"{alias}.fallback.timestamp")),
        columns,
    )


def custom_converters(config: Any, name: str) -> tuple[CustomConverter, ...]:
    """The configured converters in ``converters`` order (Debezium's CustomConverterRegistry asks each in
    turn; the first that registers for a column wins). The classes were checked at validation."""
    out: list[CustomConverter] = []
    for alias in (a.strip() for a in (config.props.get(name) or "").split(",")):
        if not alias:
            continue
        cls = (config.props.get(f"{alias}.type") or "").strip()
        if cls in TINYINT_ONE_TO_BOOLEAN:
            checker = _flag(config, alias, "length.checker", True)
            out.append(TinyIntToBoolean(alias, _patterns(config, alias, "selector"), checker))
        elif cls in JDBC_SINK_DATA_TYPES:
            out.append(
                JdbcSinkTypes(
                    alias,
                    _patterns(config, alias, "selector.boolean") or (),
                    _patterns(config, alias, "selector.real") or (),
                    _patterns(config, alias, "selector.string") or (),
                    _flag(config, alias, "treat.real.as.double", True),
                )
            )
        elif cls in ZERO_DATE_FALLBACK:
            out.append(_zero_date(config, alias))
    return tuple(out)
