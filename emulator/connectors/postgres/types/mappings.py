"""The type table: a PostgreSQL type (+ typmod, handling modes) -> its schema and converters."""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from emulator.connect.javatext import double_text
from emulator.connect.schema import (
    ARRAY,
    STRING,
    Schema,
)
from emulator.connectors.postgres.types.arrays import _array_conv, _parse_array
from emulator.connectors.postgres.types.binary import _bit_bool, _bits_b64, _bytea_bytes
from emulator.connectors.postgres.types.encoders import (
    _BIN_ENCODERS,
    _b2a,
    _b64,
    _bigint_b64,
    _conv_float,
    _conv_float4,
)
from emulator.connectors.postgres.types.geometric import _geometry, _point
from emulator.connectors.postgres.types.hstore import _hstore_json, _hstore_map
from emulator.connectors.postgres.types.interval import _interval_iso, _interval_micros
from emulator.connectors.postgres.types.model import Converter, PgType, TypeConfig
from emulator.connectors.postgres.types.numeric import (
    _java_plain_str,
    _numeric_double,
    _numeric_fixed_precise,
    _numeric_string,
    _numeric_variable_precise,
    _parse_money,
    _rescale_half_up,
)
from emulator.connectors.postgres.types.schemas import (
    S_BOOL,
    S_CONNECT_DATE,
    S_CONNECT_TIME,
    S_CONNECT_TIMESTAMP,
    S_DATE,
    S_FLOAT32,
    S_FLOAT64,
    S_GEOGRAPHY,
    S_GEOMETRY,
    S_HSTORE_MAP,
    S_INT16,
    S_INT32,
    S_INT64,
    S_INTERVAL,
    S_JSON,
    S_LTREE,
    S_MICRODURATION,
    S_MICROTIME,
    S_MICROTIMESTAMP,
    S_NANOTIME,
    S_NANOTIMESTAMP,
    S_POINT,
    S_STRING,
    S_TIME,
    S_TIMESTAMP,
    S_TSVECTOR,
    S_UUID,
    S_VARIABLE_SCALE_DECIMAL,
    S_XML,
    S_ZONEDTIME,
    S_ZONEDTIMESTAMP,
    _binary_schema,
    _bits_schema,
    _decimal_schema,
    _enum_schema,
    _named,
)
from emulator.connectors.postgres.types.temporal import (
    _TS_INF_MS,
    _TS_INF_US,
    _civil,
    _date_days,
    _iso_year,
    _time_micros,
    _ts_micros,
    _zoned_time,
    _zoned_timestamp,
)


@dataclass(slots=True)
class _Mapping:
    schema: Schema  # optional/default not yet applied
    convert: Converter
    length: int | None = None
    scale: int | None = None
    item_optional: bool = True  # when used as an array element
    hstore: bool = False
    snapshot_convert: Converter | None = None  # when the JDBC snapshot path differs from pgoutput's
    element_convert: Converter | None = None  # as an array element (pgjdbc PgArray objects)
    unavailable: Any = None  # TOAST placeholder kind: see _unavailable


def _typmod_time_precision(typmod: int) -> int:
    return typmod if 0 <= typmod <= 6 else 6


def _identity(t: str) -> str:
    return t


_identity.is_identity = True  # row builders leave it uncalled (emulator.envelope.row_builder)


def _empty_string(_t: str) -> str:
    return ""


def _null_unless(cfg: TypeConfig) -> Converter:
    """pgoutput values of types ReplicationMessageColumnValueResolver has no case for (name) are
    null unless include.unknown.datatypes (then the text)."""
    if cfg.include_unknown_datatypes:
        return _identity
    return lambda t: None


def _m_int(schema: Schema) -> Callable[[int, TypeConfig, PgType], _Mapping]:
    return lambda typmod, cfg, t: _Mapping(schema, int)


def _m_string(schema: Schema = S_STRING):
    def build(typmod: int, cfg: TypeConfig, t: PgType) -> _Mapping:
        length = typmod - 4 if typmod >= 4 and t.name in ("varchar", "bpchar") else None
        return _Mapping(schema, _identity, length=length)

    return build


def _m_float(schema: Schema):
    return lambda typmod, cfg, t: _Mapping(schema, _conv_float)


def _m_bool(typmod: int, cfg: TypeConfig, t: PgType) -> _Mapping:
    return _Mapping(S_BOOL, "t".__eq__)


def _m_numeric(typmod: int, cfg: TypeConfig, t: PgType) -> _Mapping:
    if typmod >= 4:
        precision = ((typmod - 4) >> 16) & 0xFFFF
        scale = (((typmod - 4) & 0x7FF) ^ 1024) - 1024
    else:
        precision = scale = None
    mode = cfg.decimal_handling_mode
    if mode == "double":
        return _Mapping(S_FLOAT64, _numeric_double, precision, scale)
    if mode == "string":
        return _Mapping(S_STRING, _numeric_string(scale), precision, scale)
    if scale is None:
        return _Mapping(S_VARIABLE_SCALE_DECIMAL, _numeric_variable_precise)
    return _Mapping(_decimal_schema(scale, precision), _numeric_fixed_precise(scale), precision, scale)


def _m_money(typmod: int, cfg: TypeConfig, t: PgType) -> _Mapping:
    digits = cfg.money_fraction_digits
    mode = cfg.decimal_handling_mode
    if mode == "double":

        def conv(t: str) -> Any:
            u, s = _parse_money(t)
            return float(_java_plain_str(u, s))

        return _Mapping(S_FLOAT64, conv)
    if mode == "string":

        def conv(t: str) -> Any:
            return _java_plain_str(*_parse_money(t))

        return _Mapping(S_STRING, conv)

    def conv(t: str) -> Any:
        u, s = _parse_money(t)
        return _bigint_b64(_rescale_half_up(u, s, digits))

    return _Mapping(_decimal_schema(digits), conv, scale=digits)


def _m_bytea(typmod: int, cfg: TypeConfig, t: PgType) -> _Mapping:
    enc = _BIN_ENCODERS[cfg.binary_handling_mode]
    if enc is _b64:

        def conv(t: str) -> str:
            if t[:2] == "\\x":
                return _b2a(bytes.fromhex(t[2:]), newline=False).decode("ascii")
            return _b64(_bytea_bytes(t))

    else:

        def conv(t: str) -> str:
            return enc(_bytea_bytes(t))

    return _Mapping(_binary_schema(cfg), conv, unavailable="binary")


_GEOMETRIC = frozenset({"box", "circle", "line", "lseg", "path", "polygon"})
_NUMBER = re.compile(r"[+-]?(?:\d+\.?\d*(?:[eE][+-]?\d+)?|\.\d+(?:[eE][+-]?\d+)?|Infinity|NaN|inf|nan)")


def _java_double_str(x: float) -> str:
    """Double.toString(x) on JDK 17 (plain in [1e-3, 1e7), else d.dddE[-]n)."""
    return double_text(x)


def _m_unknown(cfg: TypeConfig, name: str = "") -> _Mapping:
    enc = _BIN_ENCODERS[cfg.binary_handling_mode]
    if name in _GEOMETRIC:  # pgoutput values are read as PGbox/PGpath/...: Java-formatted coordinates

        def conv(t: str) -> str:
            return enc(_NUMBER.sub(lambda m: _java_double_str(float(m.group())), t).encode("utf-8"))

        return _Mapping(_binary_schema(cfg), conv, item_optional=False)
    return _Mapping(_binary_schema(cfg), lambda t: enc(t.encode("utf-8")), item_optional=False)


# pgjdbc turns date 'infinity' into java.sql.Date(DATE_POSITIVE_INFINITY ms); Debezium's epoch day of
# that overflows int: the JDBC snapshot and array elements see these, pgoutput scalars _DATE_INF.
_DATE_INF_JDBC = {"infinity": -622191234, "-infinity": -625821272}


def _date_days_jdbc(t: str) -> int:
    v = _DATE_INF_JDBC.get(t)
    return _date_days(t) if v is None else v


# time.precision.mode=isostring: java.time's ISO text (fraction without trailing zeros, years beyond
# 9999 with a sign) of the same values the other modes give as numbers, plus "Z"
S_ISODATE = _named(STRING, "io.debezium.time.IsoDate")
S_ISOTIME = _named(STRING, "io.debezium.time.IsoTime")
S_ISOTIMESTAMP = _named(STRING, "io.debezium.time.IsoTimestamp")
# pgjdbc reads +-infinity dates as java.sql.Date(Long.MAX/MIN millis): these LocalDates
_ISO_DATE_INF_JDBC = {"infinity": "+292278994-08-16Z", "-infinity": "+292269055-12-02Z"}


def _iso_date(days: int) -> str:
    y, m, d = _civil(days)
    return f"{_iso_year(y)}-{m:02d}-{d:02d}Z"


def _iso_tod(micros: int) -> str:
    secs, us = divmod(micros, 1_000_000)
    hh, rest = divmod(secs, 3600)
    out = f"{hh:02d}:{rest // 60:02d}:{rest % 60:02d}"
    return out + ("." + f"{us:06d}".rstrip("0") if us else "")


def _iso_time(t: str) -> str:
    return _iso_tod(_time_micros(t) % 86_400_000_000) + "Z"


def _iso_ts_micros(v: int) -> str:
    days, tod = divmod(v, 86_400_000_000)
    return _iso_date(days)[:-1] + "T" + _iso_tod(tod) + "Z"


def _iso_date_stream(t: str) -> str:
    return _iso_date(_date_days(t))


def _iso_date_jdbc(t: str) -> str:
    v = _ISO_DATE_INF_JDBC.get(t)
    return _iso_date(_date_days(t)) if v is None else v


def _m_date(typmod: int, cfg: TypeConfig, t: PgType) -> _Mapping:
    if cfg.time_precision_mode == "isostring":
        return _Mapping(
            S_ISODATE, _iso_date_stream, snapshot_convert=_iso_date_jdbc, element_convert=_iso_date_jdbc
        )
    schema = S_CONNECT_DATE if cfg.time_precision_mode == "connect" else S_DATE
    return _Mapping(schema, _date_days, snapshot_convert=_date_days_jdbc, element_convert=_date_days_jdbc)


def _m_time(typmod: int, cfg: TypeConfig, t: PgType) -> _Mapping:
    p = _typmod_time_precision(typmod)
    mode = cfg.time_precision_mode
    if mode == "connect":
        return _Mapping(S_CONNECT_TIME, lambda t: _time_micros(t) // 1000, scale=p)
    if mode == "nanoseconds":
        return _Mapping(S_NANOTIME, lambda t: _time_micros(t) * 1000, scale=p)
    if mode == "isostring":
        return _Mapping(S_ISOTIME, _iso_time, scale=p)
    if mode == "adaptive" and p <= 3:
        return _Mapping(S_TIME, lambda t: _time_micros(t) // 1000, scale=p)
    return _Mapping(S_MICROTIME, _time_micros, scale=p)


_I64_MIN, _I64_MAX = -(1 << 63), (1 << 63) - 1
_TS_INF_NS = {"infinity": _I64_MAX, "-infinity": _I64_MIN}


def _ts_nanos(t: str) -> int | None:
    """NanoTimestamp: +-infinity as Long.MAX/MIN; a value outside the int64 nanosecond range is NULL
    (Debezium's conversion overflows and gives no value)."""
    if t[0] > "9" or t[0] == "-":
        return _TS_INF_NS[t]
    v = _ts_micros(t) * 1000
    return v if _I64_MIN <= v <= _I64_MAX else None


def _m_timestamp(typmod: int, cfg: TypeConfig, t: PgType) -> _Mapping:
    p = _typmod_time_precision(typmod)
    if cfg.time_precision_mode == "nanoseconds":
        return _Mapping(S_NANOTIMESTAMP, _ts_nanos, scale=p)
    if cfg.time_precision_mode == "isostring":

        def conv_iso(t: str) -> str:
            return _iso_ts_micros(_TS_INF_US[t] if t[0] > "9" or t[0] == "-" else _ts_micros(t))

        return _Mapping(S_ISOTIMESTAMP, conv_iso, scale=p)
    if cfg.time_precision_mode == "connect" or (p <= 3 and cfg.time_precision_mode != "microseconds"):
        schema = S_CONNECT_TIMESTAMP if cfg.time_precision_mode == "connect" else S_TIMESTAMP

        def conv(t: str) -> int:
            if t[0] > "9" or t[0] == "-":  # [-]infinity
                return _TS_INF_MS[t]
            return _ts_micros(t) // 1000

        return _Mapping(schema, conv, scale=p)

    def conv_us(t: str) -> int:
        if t[0] > "9" or t[0] == "-":
            return _TS_INF_US[t]
        return _ts_micros(t)

    return _Mapping(S_MICROTIMESTAMP, conv_us, scale=p)


def _m_timestamptz(typmod: int, cfg: TypeConfig, t: PgType) -> _Mapping:
    p = _typmod_time_precision(typmod)
    return _Mapping(S_ZONEDTIMESTAMP, _zoned_timestamp(p), scale=p)


def _m_timetz(typmod: int, cfg: TypeConfig, t: PgType) -> _Mapping:
    return _Mapping(S_ZONEDTIME, _zoned_time, scale=_typmod_time_precision(typmod))


def _m_interval(typmod: int, cfg: TypeConfig, t: PgType) -> _Mapping:
    if cfg.interval_handling_mode == "string":
        return _Mapping(S_INTERVAL, _interval_iso)
    return _Mapping(S_MICRODURATION, _interval_micros)


def _m_bit(typmod: int, cfg: TypeConfig, t: PgType) -> _Mapping:
    length = typmod if typmod >= 0 else (1 if t.name == "bit" else 2147483647)
    if length > 1:
        return _Mapping(_bits_schema(length), _bits_b64, length=length)
    return _Mapping(S_BOOL, _bit_bool, length=length)


def _m_hstore(typmod: int, cfg: TypeConfig, t: PgType) -> _Mapping:
    if cfg.hstore_handling_mode == "map":
        return _Mapping(S_HSTORE_MAP, _hstore_map, hstore=True)
    return _Mapping(S_JSON, _hstore_json, hstore=True)


_BASE_TYPES: dict[str, Callable[[int, TypeConfig, PgType], _Mapping]] = {
    "int2": _m_int(S_INT16),
    "int4": _m_int(S_INT32),
    "int8": _m_int(S_INT64),
    "oid": _m_int(S_INT64),
    "float4": lambda typmod, cfg, t: _Mapping(S_FLOAT32, _conv_float4),
    "float8": _m_float(S_FLOAT64),
    "bool": _m_bool,
    "numeric": _m_numeric,
    "money": _m_money,
    "text": _m_string(),
    "varchar": _m_string(),
    "bpchar": _m_string(),
    "name": lambda typmod, cfg, t: _Mapping(S_STRING, _null_unless(cfg), snapshot_convert=_identity),
    "char": _m_string(),
    "citext": _m_string(),
    "inet": _m_string(),
    "cidr": _m_string(),
    "macaddr": _m_string(),
    "macaddr8": _m_string(),
    "int4range": _m_string(),
    "int8range": _m_string(),
    "numrange": _m_string(),
    "tsrange": _m_string(),
    "tstzrange": _m_string(),
    "daterange": _m_string(),
    "isbn": _m_string(),
    "uuid": _m_string(S_UUID),
    "json": _m_string(S_JSON),
    "jsonb": _m_string(S_JSON),
    "xml": _m_string(S_XML),
    "ltree": _m_string(S_LTREE),
    "tsvector": lambda typmod, cfg, t: _Mapping(S_TSVECTOR, _identity, item_optional=False),
    "bytea": _m_bytea,
    "date": _m_date,
    "time": _m_time,
    "timetz": _m_timetz,
    "timestamp": _m_timestamp,
    "timestamptz": _m_timestamptz,
    "interval": _m_interval,
    "bit": _m_bit,
    "varbit": _m_bit,
    "hstore": _m_hstore,
    "point": lambda typmod, cfg, t: _Mapping(S_POINT, _point),
    "geometry": lambda typmod, cfg, t: _Mapping(S_GEOMETRY, _geometry),
    "geography": lambda typmod, cfg, t: _Mapping(S_GEOGRAPHY, _geometry),
}

# Array types Debezium explicitly maps to "no schema" (the column is dropped whatever the config).
_UNSUPPORTED_ARRAY_ELEMS = frozenset(
    {"money", "name", "interval", "varbit", "bit", "xml", "point", "refcursor"}
)


def _root(t: PgType, typmod: int) -> tuple[PgType, int]:
    """Resolve a domain to its root base type; the first modifier found on the way (the column's,
    else the nearest domain's: varchar(20), numeric(12,3)) applies, also through domain chains."""
    while t.typtype == "d" and t.base is not None:
        if typmod < 0:
            typmod = t.typmod
        t = t.base
    return t, typmod


def _mapping(t: PgType, typmod: int, cfg: TypeConfig) -> _Mapping | None:
    t, typmod = _root(t, typmod)
    if t.is_array():
        return _array_mapping(t, typmod, cfg)
    if t.typtype == "e":
        return _Mapping(_enum_schema(t.enum_labels), _identity, item_optional=False)
    build = _BASE_TYPES.get(t.name)
    if build is not None:
        return build(typmod, cfg, t)
    return _m_unknown(cfg, t.name) if cfg.include_unknown_datatypes else None


def _array_mapping(t: PgType, typmod: int, cfg: TypeConfig) -> _Mapping | None:
    elem = t.elem
    assert elem is not None
    if elem.name in _UNSUPPORTED_ARRAY_ELEMS:
        return None
    if elem.typtype == "d":  # Debezium cannot resolve domain element types
        em = _m_unknown(cfg) if cfg.include_unknown_datatypes else None
    else:
        em = _mapping(elem, typmod, cfg)
    if em is None:
        return None
    items = em.schema.with_(optional=True) if em.item_optional else em.schema
    elem_conv = em.element_convert or em.snapshot_convert or em.convert  # PgArray: JDBC objects
    conv = _array_conv(elem_conv)
    if elem.name == "numeric":
        # pgjdbc's PgArray cannot make a BigDecimal of NaN: Debezium gets no array at all (null)
        # (tests/data/pg/cases/decimal_money_double)
        array_conv = conv

        def conv(s: str) -> Any:
            return None if "NaN" in s and "NaN" in _parse_array(s) else array_conv(s)

    return _Mapping(
        Schema(ARRAY, items=items),
        conv,
        unavailable=_ARRAY_TOAST.get(elem.name),
        length=em.length,
        scale=em.scale,
    )


# UnchangedToastedReplicationMessageColumn: array types with a typed placeholder; other arrays get null
_ARRAY_TOAST = {
    "text": "strings",
    "varchar": "strings",
    "json": "strings",
    "jsonb": "strings",
    "int4": "bytes",
    "date": "bytes",
    "int8": "bytes",
    "uuid": "uuid",
    "bytea": "binary",
}
