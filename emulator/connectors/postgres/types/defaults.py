"""Column defaults as PostgresDefaultValueConverter reads them: literals through the column's converter,
function calls and CURRENT_* -> the type's zero."""

from __future__ import annotations

import re
import uuid as _uuid
from decimal import InvalidOperation
from typing import Any

from emulator.connect.schema import (
    BOOLEAN,
)
from emulator.connectors.postgres.types.encoders import b64, float4_outlier, float_json
from emulator.connectors.postgres.types.interval import INT_RE, parse_java_double, parse_java_float
from emulator.connectors.postgres.types.mappings import TypeMapping
from emulator.connectors.postgres.types.model import PgType
from emulator.connectors.postgres.types.numeric import java_plain_str, parse_java_bigdecimal

# Debezium 3.6.3: FUNCTION_DEFAULT_PATTERN "^[(]?[A-Za-z0-9_.]+\((?:.+(?:, ?.+)*)?\)" (this is the same
# language), LITERAL_DEFAULT_PATTERN "'([^']*(?:''[^']*)*)'", CURRENT_DATE_TIMES, TRIM_DATA_TYPES.
_FUNCTION_DEFAULT = re.compile(r"\(?[A-Za-z0-9_.]+\(.*\)")
_LITERAL_DEFAULT = re.compile(r"'([^']*(?:''[^']*)*)'")
_CURRENT_DATE_TIMES = frozenset(
    {"current_timestamp", "current_time", "current_date", "localtime", "localtimestamp"}
)
_TRIM_DEFAULT_TYPES = frozenset(
    {
        "bit", "varbit", "bool", "numeric", "float4", "float8", "int2", "int4", "serial", "int8",
        "bigserial", "smallserial", "uuid", "date", "time", "timestamp", "timestamptz", "interval",
    }
)  # fmt: skip
_NO_DEFAULT = object()

# The 3.6 mappers read date / time / timestamp defaults with pgjdbc's TimestampUtils (toLocalDateTime, toLocalTime,
# toOffsetDateTime), which give LocalDateTime.MAX / MIN for 'infinity' / '-infinity' and LocalTime.MAX for 24:00
# (the value converters of rows read them otherwise); then the column's converter, per schema name (pg case
# default_infinity_times, all time.precision.mode values recorded):
# a date's epoch day cast to int (LocalDate.MAX 365241780471, MIN -365243219162)
_DATE_INF_DEFAULT = {
    "infinity": {"io.debezium.time.IsoDate": "+999999999-12-31Z", None: 169560311},
    "-infinity": {"io.debezium.time.IsoDate": "-999999999-01-01Z", None: -170999002},
}
# 23:59:59.999999999
_TIME_MAX_DEFAULT = {
    "io.debezium.time.MicroTime": 86399999999,
    "io.debezium.time.NanoTime": 86399999999999,
    "io.debezium.time.IsoTime": "23:59:59.999999999Z",
    None: 86399999,  # io.debezium.time.Time, org.apache.kafka.connect.data.Time
}
# MicroTimestamp: TimeUnit.SECONDS.toMicros saturates at Long.MAX / MIN, plus the micro-of-second (999999 for
# MAX: wraps around); Timestamp / NanoTimestamp / connect overflow with an exception (no default)
_TIMESTAMP_INF_DEFAULT = {
    "infinity": {
        "io.debezium.time.MicroTimestamp": -9223372036853775810,
        "io.debezium.time.IsoTimestamp": "+999999999-12-31T23:59:59.999999999Z",
    },
    "-infinity": {
        "io.debezium.time.MicroTimestamp": -9223372036854775808,
        "io.debezium.time.IsoTimestamp": "-999999999-01-01T00:00:00Z",
    },
}


def _extract_literal(v: str) -> str | None:
    """extractDefault(String): the first quoted literal ('' unescaped), the raw text, or None (NULL::)."""
    if "'" not in v:
        return None if v.startswith("NULL::") else v
    m = _LITERAL_DEFAULT.search(v)
    if m is None:
        raise ValueError("no literal")
    return m.group(1).replace("''", "'")


def _extract_default(v: str, generated: str) -> str | None:
    """extractDefault(String, String): a function call or CURRENT_xxx gives the type's placeholder."""
    if _FUNCTION_DEFAULT.match(v) or v.lower() in _CURRENT_DATE_TIMES:
        return generated
    return _extract_literal(v)


def _java_trim(v: str) -> str:
    i, j = 0, len(v)
    while i < j and v[i] <= " ":
        i += 1
    while j > i and v[j - 1] <= " ":
        j -= 1
    return v[i:j]


def _typeid_name(s: str) -> str:
    """TypeId.parse(s).typeName(): the last dot-separated part, unquoted."""
    s = s.strip()
    if s.endswith('"'):
        i = s.rfind('"', 0, len(s) - 1)
        return s[i + 1 : -1].replace('""', '"')
    return s.rsplit(".", 1)[-1]


def _extract_enum_default(enum_name: str, v: str) -> str:
    idx = v.rfind("::")
    if idx == -1 or _typeid_name(v[idx + 2 :]) != enum_name:
        return v
    literal = v[:idx]
    if literal.startswith("'") and literal.endswith("'") and len(literal) >= 2:
        return literal[1:-1]
    return literal


def _java_parse_bool(s: str) -> bool:
    return s.lower() == "true"


def _java_parse_int(s: str, bits: int) -> int:
    if not INT_RE.match(s):
        raise ValueError(s)
    n = int(s)
    if not -(1 << (bits - 1)) <= n < (1 << (bits - 1)):
        raise ValueError(s)
    return n


# Debezium's mappers by column type name -> function-default placeholder
_DEFAULT_MAPPERS: dict[str, str] = {
    "bit": "00",
    "varbit": "0",
    "bool": "false",
    "bpchar": "",
    "varchar": "",
    "text": "",
    "numeric": "0.0",
    "float4": "0.0",
    "float8": "0.0",
    "int2": "0",
    "int4": "0",
    "serial": "0",
    "int8": "0",
    "bigserial": "0",
    "smallserial": "0",
    "json": "{}",
    "jsonb": "{}",
    "xml": "",
    "uuid": "00000000-0000-0000-0000-000000000000",
    "date": "1970-01-01",
    "time": "00:00",
    "timestamp": "1970-01-01",
    "timestamptz": "1970-01-01",
    "interval": "epoch",
}
_INT_BITS = {"int2": 16, "smallserial": 16, "int4": 32, "serial": 32, "int8": 64, "bigserial": 64}
_EXCEPTIONS = (ValueError, ArithmeticError, KeyError, IndexError, InvalidOperation, OverflowError, TypeError)


def default_value(pgtype: PgType, expr: str, m: TypeMapping) -> Any:
    """The schema default (JSON-ready) for a column default expression (pg_get_expr), or None."""
    type_name = pgtype.name
    if pgtype.typtype == "e":
        try:
            return m.convert(_extract_enum_default(type_name, expr))
        except _EXCEPTIONS:
            return None
    generated = _DEFAULT_MAPPERS.get(type_name)
    if generated is None:
        return None
    if type_name in _TRIM_DEFAULT_TYPES:
        expr = _java_trim(expr)
    try:
        raw = _extract_default(expr, generated)
        if raw is None:
            return None
        value = _default_raw_to_value(type_name, raw, m)
    except _EXCEPTIONS:
        return None
    if value is _NO_DEFAULT or isinstance(value, dict):  # Struct defaults are dropped (KAFKA-12694)
        return None
    return value


def _default_raw_to_value(type_name: str, raw: str, m: TypeMapping) -> Any:
    conv = m.convert
    schema = m.schema
    if type_name in _INT_BITS:
        return conv(str(_java_parse_int(raw, _INT_BITS[type_name])))
    if type_name == "bool":
        return _java_parse_bool(raw)
    if type_name == "float4":
        f = parse_java_float(raw)
        return f if 1e-3 <= abs(f) < 1e7 else float4_outlier(f)
    if type_name == "float8":
        return float_json(parse_java_double(raw))
    if type_name == "numeric":
        u, s = parse_java_bigdecimal(raw)
        return conv(java_plain_str(u, s))
    if type_name == "bit":
        if len(raw) == 1:  # B'1' -> Boolean
            b = raw == "1"
            if schema.type == BOOLEAN:
                return b
            return b64(b"\x01" if b else b"\x00")
        if schema.type == BOOLEAN:
            return int(raw, 2) != 0
        return conv(raw)
    if type_name == "varbit":
        if schema.type == BOOLEAN:
            return int(raw, 2) != 0
        return conv(raw)
    if type_name == "uuid":
        return conv(str(_uuid.UUID(raw)))
    if type_name == "date":
        if raw in _DATE_INF_DEFAULT:
            forms = _DATE_INF_DEFAULT[raw]
            return forms.get(schema.name, forms[None])
        return conv(raw)
    if type_name == "time":
        if raw.startswith("24:"):
            return _TIME_MAX_DEFAULT.get(schema.name, _TIME_MAX_DEFAULT[None])
        return conv(raw)
    if type_name == "timestamp":
        if raw in _TIMESTAMP_INF_DEFAULT:
            return _TIMESTAMP_INF_DEFAULT[raw].get(schema.name, _NO_DEFAULT)
        return conv(raw)
    if type_name == "timestamptz":
        if raw in ("infinity", "-infinity"):
            return _NO_DEFAULT
        return conv(raw)
    # text-like, json, xml, interval: the literal through the column's own converter
    return conv(raw)
