"""column.propagate.source.type: a column's length and scale as Debezium's Column has them."""

from __future__ import annotations

from emulator.connectors.postgres.types.model import PgType

_UNKNOWN_LENGTH = 2147483647
_FIXED_PRECISION = {
    "int2": (5, 0),
    "int4": (10, 0),
    "oid": (10, 0),
    "int8": (19, 0),
    "float4": (8, 8),
    "float8": (17, 17),
    "bool": (1, 0),
    "char": (1, 0),
    "date": (13, 0),
}
_DATETIME_BASE = {"time": 8, "timetz": 14, "timestamp": 22, "timestamptz": 28}


def source_length_scale(pgtype: PgType, typmod: int, stream: bool) -> tuple[int | None, int | None]:
    """(length, scale) for the `__debezium.source.column.length/scale` schema parameters."""
    t = pgtype
    if t.is_array() and t.elem is not None:
        t = t.elem
    while t.typtype == "d" and t.base is not None:
        if typmod < 0:
            typmod = t.typmod
        t = t.base
    if t.is_array() and t.elem is not None:
        # a domain over an array: pgjdbc's precision of an array type is its element's (convertArrayToBaseOid),
        # and Debezium's domain type takes its base type's (pg case propagate_domain_array)
        t = t.elem
    name = t.name
    if name in _FIXED_PRECISION:
        return _FIXED_PRECISION[name]
    if name == "numeric":
        if typmod < 0:
            return (131089, 0) if stream else (0, None)
        return ((typmod - 4) >> 16) & 0xFFFF, (typmod - 4) & 0xFFFF
    if name in ("bpchar", "varchar"):
        return (_UNKNOWN_LENGTH if typmod < 0 else typmod - 4), 0
    if name in _DATETIME_BASE:
        seconds = 7 if typmod < 0 else 0 if typmod == 0 else 3 if typmod == 1 else typmod + 1
        return _DATETIME_BASE[name] + seconds, (6 if typmod < 0 else typmod)
    if name == "interval":
        # pgjdbc's TypeInfoCache.getScale: the typmod's low 16 bits, the fractional precision; a field range without
        # one (`interval year to month`) has INTERVAL_FULL_PRECISION there, 65535 (pg case propagate_interval_scale)
        return 49, (6 if typmod < 0 else typmod & 0xFFFF)
    if name == "bit":
        return (1 if typmod < 0 else typmod), 0
    if name == "varbit":
        return (_UNKNOWN_LENGTH if typmod < 0 else typmod), 0
    return _UNKNOWN_LENGTH, 0
