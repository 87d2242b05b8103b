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
from emulator.connectors.postgres.types.arrays import array_converter, parse_array
from emulator.connectors.postgres.types.binary import bit_bool, bits_b64, bytea_bytes
from emulator.connectors.postgres.types.bitarrays import bit_array_converter
from emulator.connectors.postgres.types.encoders import (
    BIN_ENCODERS,
    b2a,
    b64,
    bigint_b64,
    conv_float,
    conv_float4,
)
from emulator.connectors.postgres.types.geometric import geometry, point
from emulator.connectors.postgres.types.hstore import hstore_json, hstore_map
from emulator.connectors.postgres.types.interval import interval_iso, interval_micros
from emulator.connectors.postgres.types.model import Converter, PgType, TypeConfig
from emulator.connectors.postgres.types.numeric import (
    java_plain_str,
    numeric_double,
    numeric_fixed_precise,
    numeric_string,
    numeric_variable_precise,
    parse_money,
    rescale_half_up,
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
    binary_schema,
    bits_schema,
    decimal_schema,
    enum_schema,
    named,
)
from emulator.connectors.postgres.types.temporal import (
    TS_INF_MS,
    TS_INF_US,
    civil,
    date_days,
    iso_year,
    micro_timestamp,
    time_micros,
    ts_micros,
    zoned_time,
    zoned_time_element,
    zoned_timestamp,
    zoned_timestamp_element,
)


@dataclass(slots=True)
class TypeMapping:
    schema: Schema  # optional/default not yet applied
    convert: Converter
    length: int | None = None
    scale: int | None = None
    item_optional: bool = True  # when used as an array element
    hstore: bool = False
    snapshot_convert: Converter | None = None  # when the JDBC snapshot path differs from pgoutput's
    element_convert: Converter | None = None  # as an array element (pgjdbc PgArray objects)
    unavailable: Any = None  # TOAST placeholder kind: see unavailable_value


def _typmod_time_precision(typmod: int) -> int:
    return typmod if 0 <= typmod <= 6 else 6


def _identity(t: str) -> str:
    return t


_identity.is_identity = True  # row builders leave it uncalled (emulator.envelope_rows.row_builder)


def empty_string(_t: str) -> str:
    return ""


def _null_unless(cfg: TypeConfig) -> Converter:
    """pgoutput values of types ReplicationMessageColumnValueResolver has no case for (name) are
    null unless include.unknown.datatypes (then the text)."""
    if cfg.include_unknown_datatypes:
        return _identity
    return lambda t: None


def _m_int(schema: Schema) -> Callable[[int, TypeConfig, PgType], TypeMapping]:
    return lambda typmod, cfg, t: TypeMapping(schema, int)


def _m_string(schema: Schema = S_STRING):
    def build(typmod: int, cfg: TypeConfig, t: PgType) -> TypeMapping:
        length = typmod - 4 if typmod >= 4 and t.name in ("varchar", "bpchar") else None
        # Debezium's Column length of `"char"` is 1: a column.mask.hash value is cut to its first character
        # (MaskStrings' TruncatingValueConverter; campaign seed 44794001, pg case mask_hash_char_cut_to_length)
        if t.name == "char":
            length = 1
        return TypeMapping(schema, _identity, length=length)

    return build


def _m_float(schema: Schema):
    return lambda typmod, cfg, t: TypeMapping(schema, conv_float)


def _m_bool(typmod: int, cfg: TypeConfig, t: PgType) -> TypeMapping:
    return TypeMapping(S_BOOL, "t".__eq__)


def _m_numeric(typmod: int, cfg: TypeConfig, t: PgType) -> TypeMapping:
    if typmod >= 4:
        precision = ((typmod - 4) >> 16) & 0xFFFF
        # pgjdbc reads the scale as 16 unsigned bits: PostgreSQL 15's negative scales (11-bit two's complement)
        # come out as 2048 + scale, numeric(5,-2) as 2046, and Debezium rescales values to that (recorded:
        # tests/data/pg/cases/numeric_negative_scale)
        scale = (typmod - 4) & 0xFFFF
    else:
        precision = scale = None
    mode = cfg.decimal_handling_mode
    if mode == "double":
        return TypeMapping(S_FLOAT64, numeric_double, precision, scale)
    if mode == "string":
        return TypeMapping(S_STRING, numeric_string(scale), precision, scale)
    if scale is None:
        return TypeMapping(S_VARIABLE_SCALE_DECIMAL, numeric_variable_precise)
    return TypeMapping(decimal_schema(scale, precision), numeric_fixed_precise(scale), precision, scale)


def _m_money(typmod: int, cfg: TypeConfig, t: PgType) -> TypeMapping:
    digits = cfg.money_fraction_digits
    mode = cfg.decimal_handling_mode
    if mode == "double":

        def conv(t: str) -> Any:
            u, s = parse_money(t)
            return float(java_plain_str(u, s))

        return TypeMapping(S_FLOAT64, conv)
    if mode == "string":

        def conv(t: str) -> Any:
            return java_plain_str(*parse_money(t))

        return TypeMapping(S_STRING, conv)

    def conv(t: str) -> Any:
        u, s = parse_money(t)
        return bigint_b64(rescale_half_up(u, s, digits))

    return TypeMapping(decimal_schema(digits), conv, scale=digits)


def _m_bytea(typmod: int, cfg: TypeConfig, t: PgType) -> TypeMapping:
    enc = BIN_ENCODERS[cfg.binary_handling_mode]
    if enc is b64:

        def conv(t: str) -> str:
            if t[:2] == "\\x":
                return b2a(bytes.fromhex(t[2:]), newline=False).decode("ascii")
            return b64(bytea_bytes(t))

    else:

        def conv(t: str) -> str:
            return enc(bytea_bytes(t))

    return TypeMapping(binary_schema(cfg), conv, unavailable="binary")


_GEOMETRIC = frozenset({"box", "circle", "line", "lseg", "path", "polygon"})
_NUMBER = re.compile(r"[+-]?(?:\d+\.?\d*(?:[eE][+-]?\d+)?|\.\d+(?:[eE][+-]?\d+)?|Infinity|NaN|inf|nan)")


def _java_double_str(x: float) -> str:
    """Double.toString(x) on JDK 17 (plain in [1e-3, 1e7), else d.dddE[-]n)."""
    return double_text(x)


def _m_unknown(cfg: TypeConfig, name: str = "") -> TypeMapping:
    enc = BIN_ENCODERS[cfg.binary_handling_mode]
    if name in _GEOMETRIC:  # pgoutput values are read as PGbox/PGpath/...: Java-formatted coordinates

        def conv(t: str) -> str:
            return enc(_NUMBER.sub(lambda m: _java_double_str(float(m.group())), t).encode("utf-8"))

        return TypeMapping(binary_schema(cfg), conv, item_optional=False)
    return TypeMapping(binary_schema(cfg), lambda t: enc(t.encode("utf-8")), item_optional=False)


# pgjdbc turns date 'infinity' into java.sql.Date(DATE_POSITIVE_INFINITY ms); Debezium's epoch day of
# that overflows int: the JDBC snapshot and array elements see these, pgoutput scalars _DATE_INF.
_DATE_INF_JDBC = {"infinity": -622191234, "-infinity": -625821272}


def _date_days_jdbc(t: str) -> int:
    v = _DATE_INF_JDBC.get(t)
    return date_days(t) if v is None else v


# time.precision.mode=isostring: java.time's ISO text (fraction without trailing zeros, years beyond
# 9999 with a sign) of the same values the other modes give as numbers, plus "Z"
S_ISODATE = named(STRING, "io.debezium.time.IsoDate")
S_ISOTIME = named(STRING, "io.debezium.time.IsoTime")
S_ISOTIMESTAMP = named(STRING, "io.debezium.time.IsoTimestamp")
# pgjdbc reads +-infinity dates as java.sql.Date(Long.MAX/MIN millis): these LocalDates
_ISO_DATE_INF_JDBC = {"infinity": "+292278994-08-16Z", "-infinity": "+292269055-12-02Z"}


def _iso_date(days: int) -> str:
    y, m, d = civil(days)
    return f"{iso_year(y)}-{m:02d}-{d:02d}Z"


def _iso_tod(micros: int) -> str:
    secs, us = divmod(micros, 1_000_000)
    hh, rest = divmod(secs, 3600)
    out = f"{hh:02d}:{rest // 60:02d}:{rest % 60:02d}"
    return out + ("." + f"{us:06d}".rstrip("0") if us else "")


def _iso_time(t: str) -> str:
    return _iso_tod(time_micros(t) % 86_400_000_000) + "Z"


def _iso_ts_micros(v: int) -> str:
    days, tod = divmod(v, 86_400_000_000)
    return _iso_date(days)[:-1] + "T" + _iso_tod(tod) + "Z"


def _iso_date_stream(t: str) -> str:
    return _iso_date(date_days(t))


def _iso_date_jdbc(t: str) -> str:
    v = _ISO_DATE_INF_JDBC.get(t)
    return _iso_date(date_days(t)) if v is None else v


def _m_date(typmod: int, cfg: TypeConfig, t: PgType) -> TypeMapping:
    if cfg.time_precision_mode == "isostring":
        return TypeMapping(
            S_ISODATE, _iso_date_stream, snapshot_convert=_iso_date_jdbc, element_convert=_iso_date_jdbc
        )
    schema = S_CONNECT_DATE if cfg.time_precision_mode == "connect" else S_DATE
    return TypeMapping(schema, date_days, snapshot_convert=_date_days_jdbc, element_convert=_date_days_jdbc)


def _m_time(typmod: int, cfg: TypeConfig, t: PgType) -> TypeMapping:
    p = _typmod_time_precision(typmod)
    mode = cfg.time_precision_mode
    if mode == "connect":
        return TypeMapping(S_CONNECT_TIME, lambda t: time_micros(t) // 1000, scale=p)
    if mode == "nanoseconds":
        return TypeMapping(S_NANOTIME, lambda t: time_micros(t) * 1000, scale=p)
    if mode == "isostring":
        return TypeMapping(S_ISOTIME, _iso_time, scale=p)
    if mode == "adaptive" and p <= 3:
        return TypeMapping(S_TIME, lambda t: time_micros(t) // 1000, scale=p)
    return TypeMapping(S_MICROTIME, time_micros, scale=p)


_I64_MIN, _I64_MAX = -(1 << 63), (1 << 63) - 1
_TS_INF_NS = {"infinity": _I64_MAX, "-infinity": _I64_MIN}


def _ts_nanos(t: str) -> int | None:
    """NanoTimestamp: +-infinity as Long.MAX/MIN; a value outside the int64 nanosecond range is NULL
    (Debezium's conversion overflows and gives no value)."""
    if t[0] > "9" or t[0] == "-":
        return _TS_INF_NS[t]
    v = ts_micros(t) * 1000
    return v if _I64_MIN <= v <= _I64_MAX else None


def _m_timestamp(typmod: int, cfg: TypeConfig, t: PgType) -> TypeMapping:
    p = _typmod_time_precision(typmod)
    if cfg.time_precision_mode == "nanoseconds":
        return TypeMapping(S_NANOTIMESTAMP, _ts_nanos, scale=p)
    if cfg.time_precision_mode == "isostring":

        def conv_iso(t: str) -> str:
            return _iso_ts_micros(TS_INF_US[t] if t[0] > "9" or t[0] == "-" else ts_micros(t))

        return TypeMapping(S_ISOTIMESTAMP, conv_iso, scale=p)
    if cfg.time_precision_mode == "connect" or (p <= 3 and cfg.time_precision_mode != "microseconds"):
        schema = S_CONNECT_TIMESTAMP if cfg.time_precision_mode == "connect" else S_TIMESTAMP

        def conv(t: str) -> int:
            if t[0] > "9" or t[0] == "-":  # [-]infinity
                return TS_INF_MS[t]
            return ts_micros(t) // 1000

        return TypeMapping(schema, conv, scale=p)

    def conv_us(t: str) -> int:
        if t[0] > "9" or t[0] == "-":
            return TS_INF_US[t]
        return micro_timestamp(ts_micros(t))

    return TypeMapping(S_MICROTIMESTAMP, conv_us, scale=p)


def _m_timestamptz(typmod: int, cfg: TypeConfig, t: PgType) -> TypeMapping:
    p = _typmod_time_precision(typmod)
    return TypeMapping(
        S_ZONEDTIMESTAMP, zoned_timestamp(p), scale=p, element_convert=zoned_timestamp_element(p)
    )


def _m_timetz(typmod: int, cfg: TypeConfig, t: PgType) -> TypeMapping:
    return TypeMapping(
        S_ZONEDTIME, zoned_time, scale=_typmod_time_precision(typmod), element_convert=zoned_time_element
    )


def _m_interval(typmod: int, cfg: TypeConfig, t: PgType) -> TypeMapping:
    if cfg.interval_handling_mode == "string":
        return TypeMapping(S_INTERVAL, interval_iso)
    return TypeMapping(S_MICRODURATION, interval_micros)


def _m_bit(typmod: int, cfg: TypeConfig, t: PgType) -> TypeMapping:
    length = typmod if typmod >= 0 else (1 if t.name == "bit" else 2147483647)
    if length > 1:
        return TypeMapping(bits_schema(length), bits_b64, length=length)
    return TypeMapping(S_BOOL, bit_bool, length=length)


def _m_hstore(typmod: int, cfg: TypeConfig, t: PgType) -> TypeMapping:
    if cfg.hstore_handling_mode == "map":
        return TypeMapping(S_HSTORE_MAP, hstore_map, hstore=True)
    return TypeMapping(S_JSON, hstore_json, hstore=True)


_BASE_TYPES: dict[str, Callable[[int, TypeConfig, PgType], TypeMapping]] = {
    "int2": _m_int(S_INT16),
    "int4": _m_int(S_INT32),
    "int8": _m_int(S_INT64),
    "oid": _m_int(S_INT64),
    "float4": lambda typmod, cfg, t: TypeMapping(S_FLOAT32, conv_float4),
    "float8": _m_float(S_FLOAT64),
    "bool": _m_bool,
    "numeric": _m_numeric,
    "money": _m_money,
    "text": _m_string(),
    "varchar": _m_string(),
    "bpchar": _m_string(),
    "name": lambda typmod, cfg, t: TypeMapping(S_STRING, _null_unless(cfg), snapshot_convert=_identity),
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
    "tsvector": lambda typmod, cfg, t: TypeMapping(S_TSVECTOR, _identity, item_optional=False),
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
    "point": lambda typmod, cfg, t: TypeMapping(S_POINT, point),
    "geometry": lambda typmod, cfg, t: TypeMapping(S_GEOMETRY, geometry),
    "geography": lambda typmod, cfg, t: TypeMapping(S_GEOGRAPHY, geometry),
}

# Array types Debezium explicitly maps to "no schema" (the column is dropped whatever the config).
_UNSUPPORTED_ARRAY_ELEMS = frozenset({"money", "name", "interval", "varbit", "xml", "point", "refcursor"})


def _root(t: PgType, typmod: int) -> tuple[PgType, int]:
    """Resolve a domain to its root base type; the first modifier found on the way (the column's,
    else the nearest domain's: varchar(20), numeric(12,3)) applies, also through domain chains."""
    while t.typtype == "d" and t.base is not None:
        if typmod < 0:
            typmod = t.typmod
        t = t.base
    return t, typmod


def type_mapping(t: PgType, typmod: int, cfg: TypeConfig) -> TypeMapping | None:
    t, typmod = _root(t, typmod)
    if t.is_array():
        return _array_mapping(t, typmod, cfg)
    if t.typtype == "e":
        return TypeMapping(enum_schema(t.enum_labels), _identity, item_optional=False)
    build = _BASE_TYPES.get(t.name)
    if build is not None:
        return build(typmod, cfg, t)
    return _m_unknown(cfg, t.name) if cfg.include_unknown_datatypes else None


def _array_mapping(t: PgType, typmod: int, cfg: TypeConfig) -> TypeMapping | None:
    elem = t.elem
    assert elem is not None
    if elem.name in _UNSUPPORTED_ARRAY_ELEMS:
        return None
    if elem.name == "bit":  # the schema of one bit(n), a null value (types/bitarrays.py)
        length = typmod if typmod >= 0 else 1
        schema = bits_schema(length) if length > 1 else S_BOOL
        return TypeMapping(schema, bit_array_converter(FAIL_MODE), length=length)
    if elem.typtype == "d":  # Debezium cannot resolve domain element types
        em = _m_unknown(cfg) if cfg.include_unknown_datatypes else None
    else:
        em = type_mapping(elem, typmod, cfg)
    if em is None:
        return None
    items = em.schema.with_(optional=True) if em.item_optional else em.schema
    elem_conv = em.element_convert or em.snapshot_convert or em.convert  # PgArray: JDBC objects
    conv = array_converter(elem_conv, ";" if elem.name == "box" else ",")  # box's typdelim is ';'
    if elem.name == "numeric":
        # pgjdbc's PgArray cannot make a BigDecimal of NaN: Debezium gets no array at all (null)
        # (tests/data/pg/cases/decimal_money_double)
        array_conv = conv

        def conv(s: str) -> Any:
            return None if "NaN" in s and "NaN" in parse_array(s) else array_conv(s)

        conv.required = lambda column: _numeric_array_required(array_conv, column)
        conv.strict = lambda column: _numeric_array_required(array_conv, column, FAIL_MODE)
    elif not em.item_optional or elem.name == "ltree":
        # a required element schema (enum, tsvector, unknown types): Connect's validation of the array,
        # when TableSchemaBuilder puts it into the row, fails on a NULL element; Debezium logs "Failed to
        # properly convert data value" and leaves the field null (pg case enum_array_null_element). ltree[]
        # the same way: convertLtreeArray calls toString() on each element, a NULL one throws (campaign seed
        # 44789000; pg case ltree_array_null_element)
        array_conv = conv
        conv = _null_if_null_element(array_conv)
        conv.required = lambda column: _required_elements_required(array_conv, column)
        conv.strict = lambda column: _required_elements_required(array_conv, column, FAIL_MODE)

    return TypeMapping(
        Schema(ARRAY, items=items),
        conv,
        unavailable=_ARRAY_TOAST.get(elem.name),
        length=em.length,
        scale=em.scale,
    )


def _null_if_null_element(array_conv: Converter) -> Converter:
    def conv(s: str) -> Any:
        items = array_conv(s)
        return None if None in items else items

    return conv


# event.converting.failure.handling.mode=fail: TableSchemaBuilder rethrows the conversion's failure ("Failed to
# properly convert data value"), nullable column or not (pg cases converting_fail_*)
FAIL_MODE = "event.converting.failure.handling.mode=fail"


def _required_elements_required(array_conv: Converter, column: str, mode: str = "") -> Converter:
    """A NOT NULL array of required elements: the null of an array holding a NULL fails Connect's
    required-field validation and Debezium stops ("Invalid value: null used for required field"). Under
    `mode` (FAIL_MODE) any such array stops, nullable or not. Checked as the snapshot reads the row."""
    why = f"under {mode}" if mode else "and its null the column's NOT NULL"

    def check(s: str) -> None:
        if "NULL" in s.upper() and None in array_conv(s):
            raise ValueError(
                f"column {column}: array {s} holds a NULL, which fails Connect's validation of its required "
                f"elements, {why}; Debezium stops here too"
            )

    def conv(s: str) -> Any:
        items = array_conv(s)
        if None in items:
            check(s)
        return items

    conv.check = (
        check  # (the snapshot checks a row as it reads it: event.processing.failure.handling.mode drops it)
    )
    return conv


def _numeric_array_required(array_conv: Converter, column: str, mode: str = "") -> Converter:
    """A NOT NULL numeric[]: the null of an array holding NaN fails Connect's required-field validation and
    Debezium stops ("Failed to read value of array", recorded: tests/data/pg/cases/numeric_array_nan_not_null).
    Under `mode` (FAIL_MODE) any such array stops, nullable or not."""
    why = f" (under {mode})" if mode else " required array"

    def check(s: str) -> None:
        if "NaN" in s and "NaN" in parse_array(s):
            raise ValueError(
                f"column {column}: numeric[] {s} holds NaN, which pgjdbc cannot read into a{why}; "
                "Debezium stops here too"
            )

    def conv(s: str) -> Any:
        check(s)
        return array_conv(s)

    conv.check = check
    return conv


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
