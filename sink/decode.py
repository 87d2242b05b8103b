"""Connect schemas → Spark expressions that decode payload text on executors (`from_json`, then logical types).

`physical(schema)` is the Spark type `from_json` reads a payload value as (bytes as their base64 text, dates as
day numbers...); `convert(col, schema)` turns that into the value of `sink.types.spark_type(schema)` with the
same results as `sink.types.decoder` (clamping included). Decimals that fit a long are pure expressions;
wider ones and VariableScaleDecimal go through a vectorized Python UDF (`Unsupported` marks what neither
handles: such tables take the driver path).
"""

from __future__ import annotations

from decimal import Decimal

from pyspark.sql import Column
from pyspark.sql import functions as F
from pyspark.sql import types as T

from sink.types import (
    DATE_POS_INFINITY,
    DECIMAL,
    NANO_INF,
    NTZ_NAMES,
    SPARK_PRIMITIVES,
    VSD,
    ZONED_TS,
    spark_type,
)

MIN_US, MAX_US = -62_135_596_800_000_000, 253_402_300_799_999_999  # Python's datetime range
MIN_DAY, MAX_DAY = -719_162, 2_932_896


class Unsupported(Exception):
    pass


def physical(schema: dict) -> T.DataType:
    typ = schema["type"]
    if typ == "bytes":
        return T.StringType()
    if typ == "struct":
        return T.StructType([T.StructField(f["field"], physical(f), True) for f in schema.get("fields", [])])
    if typ == "array":
        return T.ArrayType(physical(schema["items"]), True)
    if typ == "map":
        if schema["keys"]["type"] != "string":
            raise Unsupported("map with non-string keys (JsonConverter writes an array of pairs)")
        return T.MapType(T.StringType(), physical(schema["values"]), True)
    if typ in SPARK_PRIMITIVES:  # logical types are read as their physical value, converted by `convert`
        return SPARK_PRIMITIVES[typ]
    raise Unsupported(f"Connect type {typ!r}")


def _pow256() -> Column:
    return F.array(*[F.lit(Decimal(256**k)).cast(T.DecimalType(20, 0)) for k in range(9)])


def _decimal(c: Column, prec: int, scale: int) -> Column:
    """base64 big-endian two's complement unscaled value → decimal(prec, scale), for prec <= 18."""
    h = F.hex(F.unbase64(c))
    n = F.length(h) / 2
    u = F.conv(h, 16, 10).cast(T.DecimalType(20, 0))
    # negative when the first hex digit is 8-F: compared as text (hex() prints 0-9A-F, in ASCII order), not by
    # a second conv() per value (Spark's NumberConverter: 1.7-4.7 % of the JVM's samples with the first)
    neg = F.substring(h, 1, 1) >= F.lit("8")
    signed = F.when(neg, u - F.element_at(_pow256(), n.cast("int") + 1)).otherwise(u)
    text = F.concat(signed.cast(T.DecimalType(20, 0)).cast("string"), F.lit(f"E-{scale}"))
    return F.when(c.isNull(), F.lit(None)).otherwise(text.cast(T.DecimalType(prec, scale)))


def _py_decimal(scale: int, as_text: bool):
    def conv(v):
        import base64
        from decimal import Decimal as D

        if v is None:
            return None
        d = D(int.from_bytes(base64.b64decode(v), "big", signed=True)).scaleb(-scale)
        return str(d) if as_text else d

    return conv


def _vsd(v):
    if v is None:
        return None
    import base64
    from decimal import Decimal as D

    return str(D(int.from_bytes(base64.b64decode(v["value"]), "big", signed=True)).scaleb(-int(v["scale"])))


def _clamp(c: Column, lo: int, hi: int) -> Column:
    """least/greatest skip nulls: a null stays null."""
    return F.when(c.isNull(), F.lit(None)).otherwise(F.least(F.greatest(c, F.lit(lo)), F.lit(hi)))


def _clamped_ts(us: Column) -> Column:
    return F.timestamp_micros(_clamp(us, MIN_US, MAX_US)).cast(T.TimestampNTZType())


def convert(c: Column, schema: dict) -> Column:
    """The decoded value of payload column `c` (read with `physical(schema)`)."""
    name, typ = schema.get("name"), schema["type"]
    st = spark_type(schema)
    if name == DECIMAL and typ == "bytes":
        scale = int((schema.get("parameters") or {}).get("scale", 0))
        if isinstance(st, T.DecimalType) and st.precision <= 18:
            return _decimal(c, st.precision, scale)
        return F.udf(_py_decimal(scale, isinstance(st, T.StringType)), st, useArrow=True)(c)
    if name == VSD:
        return F.udf(_vsd, T.StringType(), useArrow=True)(c)
    if isinstance(st, T.DateType):
        days = F.when(c.isin(*DATE_POS_INFINITY), F.lit(MAX_DAY)).otherwise(_clamp(c, MIN_DAY, MAX_DAY))
        return F.date_from_unix_date(days)
    if isinstance(st, T.TimestampNTZType):
        unit = NTZ_NAMES[name]
        if (
            unit is None
        ):  # nanoseconds: floor division (div truncates; no subtraction that overflows at Long.MIN)
            us = F.call_function("div", c, F.lit(1000)) - F.when(c % 1000 < 0, 1).otherwise(0)
            inf = F.when(c == NANO_INF[0], F.lit(MAX_US)).when(c == NANO_INF[1], F.lit(MIN_US))
            return _clamped_ts(inf.otherwise(us))
        if unit == 1:
            return _clamped_ts(c)
        return _clamped_ts(_clamp(c, MIN_US // unit, MAX_US // unit) * unit)
    if isinstance(st, T.TimestampType) and name == ZONED_TS:
        # lower() would initialize ICU's case tables (~1.3 s of JVM CPU, position_expr._hex); only the letters
        # of "infinity" matter to the comparison, and lowering just them compares the same
        low = F.translate(c, "INFTY", "infty")
        return (
            F.when(low == "infinity", F.timestamp_micros(F.lit(MAX_US)))
            .when(low == "-infinity", F.timestamp_micros(F.lit(MIN_US)))
            .otherwise(c.try_cast(T.TimestampType()))
        )
    if typ == "bytes":
        return F.unbase64(c)
    if typ == "struct" and isinstance(st, T.StructType):
        fields = schema.get("fields", [])
        if not any(_needs(f) for f in fields):
            return c
        parts = [convert(c.getField(f["field"]), f).alias(f["field"]) for f in fields]
        return F.when(c.isNull(), F.lit(None)).otherwise(F.struct(*parts))
    if typ == "array":
        if not _needs(schema["items"]):
            return c
        return F.transform(c, lambda x: convert(x, schema["items"]))
    if typ == "map":
        if not _needs(schema["values"]):
            return c
        return F.transform_values(c, lambda _k, x: convert(x, schema["values"]))
    return c


def _needs(schema: dict) -> bool:
    """Whether the physical value differs from the decoded one."""
    try:
        return physical(schema) != spark_type(schema)
    except Unsupported:
        return True
