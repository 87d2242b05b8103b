"""Kafka Connect schemas (JsonConverter `schema` documents) → Spark types, and payload values → Python values.

Decoding follows the schema's `type`, `name` and `parameters`, never the shape of the value:
Decimal bytes become DecimalType(precision, scale), `io.debezium.time.*` become dates / timestamps / longs,
ZonedTimestamp a UTC timestamp, Json/Xml/Uuid/Enum strings, Bits binary, structs (geometry included) structs,
arrays arrays, maps maps. The Arrow type of a column is derived from its Spark type, so the Delta tables
written with delta-rs read back in Spark with exactly the Spark type chosen here.
"""

from __future__ import annotations

import base64
import datetime as dt
from collections.abc import Callable
from decimal import Decimal
from typing import Any

from pyspark.sql import types as T

PLACEHOLDER = "__debezium_unavailable_value"
PLACEHOLDER_BYTES = PLACEHOLDER.encode()

_EPOCH = dt.datetime(1970, 1, 1)
_EPOCH_DATE = dt.date(1970, 1, 1)

SPARK_PRIMITIVES: dict[str, T.DataType] = {
    "int8": T.ByteType(),
    "int16": T.ShortType(),
    "int32": T.IntegerType(),
    "int64": T.LongType(),
    "float32": T.FloatType(),
    "float64": T.DoubleType(),
    "float": T.FloatType(),
    "double": T.DoubleType(),
    "boolean": T.BooleanType(),
    "string": T.StringType(),
    "bytes": T.BinaryType(),
}

# logical name -> Spark type (for names whose physical type alone would be wrong or too weak)
_DATE_NAMES = {"io.debezium.time.Date", "org.apache.kafka.connect.data.Date"}
NTZ_NAMES = {
    "io.debezium.time.Timestamp": 1_000,
    "io.debezium.time.MicroTimestamp": 1,
    "io.debezium.time.NanoTimestamp": None,
    "org.apache.kafka.connect.data.Timestamp": 1_000,
}
_STRING_NAMES = {
    "io.debezium.data.Json",
    "io.debezium.data.Xml",
    "io.debezium.data.Uuid",
    "io.debezium.data.Enum",
    "io.debezium.data.EnumSet",
    "io.debezium.data.Ltree",
    "io.debezium.time.ZonedTime",
    "io.debezium.time.Interval",
    "io.debezium.data.VariableScaleDecimal",
}
# Debezium's epoch day for PostgreSQL's date 'infinity' overflows int into the far past (-622191234 from the
# snapshot's JDBC read and in arrays, -2147472692 from pgoutput; '-infinity' gives -625821272 / -2147472691):
# no PostgreSQL date is that early (4713 BC is its first), so these two are read as the last date, not the first
DATE_POS_INFINITY = (-622_191_234, -2_147_472_692)
# NanoTimestamp's +-infinity: Debezium writes Long.MAX / Long.MIN nanoseconds. Neither is a whole microsecond, so
# no PostgreSQL timestamp gives them; read as the ends of Spark's range like +-infinity in the other modes (as
# plain nanoseconds 'infinity' was 2262-04-11 23:47:16.854775, a real timestamp's value)
NANO_INF = ((1 << 63) - 1, -(1 << 63))
DECIMAL = "org.apache.kafka.connect.data.Decimal"
VSD = "io.debezium.data.VariableScaleDecimal"
ZONED_TS = "io.debezium.time.ZonedTimestamp"
BITS = "io.debezium.data.Bits"


def spark_type(schema: dict) -> T.DataType:
    """The Spark type of a Connect schema."""
    name, typ = schema.get("name"), schema["type"]
    params = schema.get("parameters") or {}
    if name == DECIMAL and typ == "bytes":
        scale = int(params.get("scale", 0))
        prec = int(params.get("connect.decimal.precision", 38))
        if prec > 38 or scale > prec:
            return T.StringType()  # does not fit Spark's decimal: exact text instead
        return T.DecimalType(max(prec, 1), scale)
    if name == VSD:
        return T.StringType()  # any scale per value: kept exact as text (also NaN/Infinity)
    if name in _DATE_NAMES:
        return T.DateType()
    if name in NTZ_NAMES:
        return T.TimestampNTZType()
    if name == ZONED_TS:
        return T.TimestampType()
    if name in _STRING_NAMES:
        return T.StringType()
    if typ == "struct":
        return T.StructType(
            [
                T.StructField(f["field"], spark_type(f), f.get("optional", True))
                for f in schema.get("fields", [])
            ]
        )
    if typ == "array":
        return T.ArrayType(spark_type(schema["items"]), schema["items"].get("optional", True))
    if typ == "map":
        return T.MapType(
            spark_type(schema["keys"]), spark_type(schema["values"]), schema["values"].get("optional", True)
        )
    if typ in SPARK_PRIMITIVES:
        return SPARK_PRIMITIVES[typ]
    raise ValueError(f"unsupported Connect schema type {typ!r} ({name})")


def _b64(v: Any) -> bytes:
    return v if isinstance(v, bytes) else base64.b64decode(v)


def _unscaled(b: bytes) -> int:
    return int.from_bytes(b, "big", signed=True)


def _zoned(v: str) -> dt.datetime:
    s = v.replace("Z", "+00:00")
    try:
        t = dt.datetime.fromisoformat(s)
    except ValueError:  # more than 6 fraction digits
        head, _, rest = s.partition(".")
        digits = "".join(ch for ch in rest if ch.isdigit())
        t = dt.datetime.fromisoformat(f"{head}.{digits[:6]}{rest[len(digits) :]}")
    return t.astimezone(dt.UTC)


def _clamp(f: Callable[[Any], Any], lo: Any, hi: Any) -> Callable[[Any], Any]:
    """Values beyond Spark's range (PostgreSQL's +/-infinity arrive as huge epoch offsets) clamp to its ends."""

    def g(v: Any) -> Any:
        if v is None:
            return None
        try:
            return f(v)
        except (OverflowError, ValueError):
            return (
                hi
                if (
                    v > 0
                    if isinstance(v, int)
                    else "infinity" not in str(v).lower() or not str(v).startswith("-")
                )
                else lo
            )

    return g


def decoder(schema: dict) -> Callable[[Any], Any]:
    """A function turning a JSON payload value of this schema into the Python value of its Spark type.
    The TOAST placeholder passes through unchanged (as str, or bytes for binary columns)."""
    name, typ = schema.get("name"), schema["type"]
    st = spark_type(schema)

    if name == DECIMAL and typ == "bytes":
        scale = int((schema.get("parameters") or {}).get("scale", 0))
        as_text = isinstance(st, T.StringType)

        def dec(v: Any) -> Any:
            if v is None:
                return None
            d = Decimal(_unscaled(_b64(v))).scaleb(-scale)
            return str(d) if as_text else d

        return dec
    if name == VSD:

        def vsd(v: Any) -> Any:
            if v is None:
                return None
            return str(Decimal(_unscaled(_b64(v["value"]))).scaleb(-int(v["scale"])))

        return vsd
    if isinstance(st, T.DateType):
        days = _clamp(lambda v: _EPOCH_DATE + dt.timedelta(days=v), dt.date.min, dt.date.max)
        return lambda v: dt.date.max if v in DATE_POS_INFINITY else days(v)
    if isinstance(st, T.TimestampNTZType):
        unit = NTZ_NAMES[name]
        if unit is None:
            nanos = _clamp(
                lambda v: _EPOCH + dt.timedelta(microseconds=v // 1000), dt.datetime.min, dt.datetime.max
            )
            ends = {NANO_INF[0]: dt.datetime.max, NANO_INF[1]: dt.datetime.min}
            return lambda v: ends.get(v) or nanos(v)
        return _clamp(
            lambda v: _EPOCH + dt.timedelta(microseconds=v * unit), dt.datetime.min, dt.datetime.max
        )
    if isinstance(st, T.TimestampType):
        return _clamp(_zoned, dt.datetime.min.replace(tzinfo=dt.UTC), dt.datetime.max.replace(tzinfo=dt.UTC))
    if typ == "struct" and isinstance(st, T.StructType):
        fields = [(f["field"], decoder(f)) for f in schema.get("fields", [])]
        return lambda v: None if v is None else {k: d(v.get(k)) for k, d in fields}
    if typ == "array":
        item = decoder(schema["items"])
        return lambda v: None if v is None else [item(x) for x in v]
    if typ == "map":
        kd, vd = decoder(schema["keys"]), decoder(schema["values"])
        return lambda v: (
            None if v is None else {kd(k): vd(x) for k, x in (v.items() if isinstance(v, dict) else v)}
        )
    if typ == "bytes":
        return lambda v: None if v is None else _b64(v)
    if typ in ("float32", "float64", "float", "double"):
        return lambda v: None if v is None else float(v)  # "NaN"/"Infinity" arrive as strings
    return lambda v: v


def is_placeholder(v: Any) -> bool:
    if v is None:
        return False
    if isinstance(v, str):
        return v == PLACEHOLDER
    if isinstance(v, bytes):
        return v == PLACEHOLDER_BYTES
    if isinstance(v, list):
        return len(v) == 1 and is_placeholder(v[0])
    return False


def arrow_type(st: T.DataType):
    from pyspark.sql.pandas.types import to_arrow_type

    return to_arrow_type(st, timezone="UTC")


def spark_schema_from_arrow(schema) -> T.StructType:
    from pyspark.sql.pandas.types import from_arrow_schema

    return from_arrow_schema(schema)
