"""The sink campaign's second set of column types (session 18): PostgreSQL NaN numerics, `numeric` without scale,
intervals (both `interval.handling.mode`s), bit strings, money, network/text-output types, hstore, point,
`time with time zone`, arrays of most element types, the `isostring`/`microseconds`/`nanoseconds` time modes;
MariaDB BIT(n), BIGINT UNSIGNED under both `bigint.unsigned.handling.mode`s, POINT/GEOMETRY and zero dates.

They are drawn from a random stream of their own (`extra_cols`), so seeds of the first set keep their
statements. Each expected value is reasoned from the source's value and Debezium's documented mapping, never
from the emulator or the sink:

- bit strings: `io.debezium.data.Bits` holds the bit string's number little-endian in ceil(n/8) bytes, on
  PostgreSQL without its high zero bytes (BIT(1) and PostgreSQL `bit(1)` are booleans);
- intervals: `MicroDuration` = ((years*12 + months) * 365.25/12 + days) days + the time part, in microseconds
  computed in doubles (compared to the microsecond: the double's last digit), saturated at the int64 range as
  Java's `(long)` cast; `io.debezium.time.Interval` is ISO 8601 `PnYnMnDTnHnMnS`, compared as its components;
- `time with time zone`: `ZonedTime` is the time moved to UTC with a `Z`, compared as micros of the day;
- `isostring`: ISO text of the same values, compared as parsed values (its ±infinity forms are not drawn);
- `nanoseconds`: NanoTime is nanos of the day (a long); a NanoTimestamp outside int64 nanoseconds is null in
  Debezium's records; ±infinity (Long.MAX/MIN nanos) are the ends of Spark's range, as in the other modes;
- point: `io.debezium.data.geometry.Point` {x, y, wkb = little-endian WKB of the point, srid null};
  MariaDB POINT the same with the column's SRID (null for 0), other geometries `Geometry` {wkb, srid};
- MariaDB zero dates are null (Debezium's documented zero-date handling for nullable columns);
- BIGINT UNSIGNED: `long` wraps above 2^63 - 1 (Java's long), `precise` is Decimal(20, 0).
"""

from __future__ import annotations

import datetime as dt
import json
import math
import re
import struct
from decimal import Decimal
from typing import Any

from emulator.testing import sink_campaign_types as _types
from emulator.testing.sink_campaign_types import ColType, Modes

I64_MIN, I64_MAX = -(1 << 63), (1 << 63) - 1

PG_MORE: list[ColType] = [
    ColType("numeric", ("3.14159", "'NaN'", "1e-20", "-0.5"), "num"),
    ColType("numeric(10,2)", ("'NaN'", "12.5"), "num"),
    ColType(
        "interval",
        (
            "'1 year 2 mons 3 days 04:05:06.789'",
            "'-3 mons'",
            "'00:00:00'",
            "'-1 year -2 mons +3 days -04:05:06.789'",
        ),
        "interval",
    ),
    ColType("interval day to second(2)", ("'3 days 04:05:06.78'", "'-1 day'"), "interval"),
    ColType("bit(1)", ("B'1'", "B'0'"), "bool"),
    ColType("bit(3)", ("B'101'", "B'000'"), "bits", bits=3),
    ColType("bit varying(12)", ("B'1'", "B'111100001111'", "B'0000000011'"), "bits", bits=12),
    ColType("money", ("12.34", "-92233720368547758.08", "0"), "money"),
    ColType("inet", ("'192.168.0.1/24'", "'::1'", "'10.0.0.1'"), "text"),
    ColType("cidr", ("'10.0.0.0/8'", "'2001:db8::/32'"), "text"),
    ColType("macaddr", ("'08:00:2b:01:02:03'",), "text"),
    ColType("macaddr8", ("'08:00:2b:01:02:03:04:05'",), "text"),
    ColType("xml", ("'<a><b>x</b></a>'", "'<root/>'"), "text"),
    ColType("tsvector", ("'a fat cat'", "'ab:1,3 c:2'"), "text"),
    ColType("citext", ("'MiXeD'",), "text"),
    ColType("ltree", ("'a.b.c'",), "text"),
    ColType("hstore", ("'a=>1, b=>\"two\"'", "''", "'k=>NULL'"), "hstore"),
    ColType("point", ("'(1.5,2.5)'", "'(-3,0.1)'"), "point"),
    ColType("timetz", ("'13:45:30.123456+02'", "'23:59:59.999999-14'", "'00:00:00+00'"), "timetz"),
    ColType("timetz(2)", ("'10:11:12.34+05:30'",), "timetz"),
]


def _arr(sql: str, values: tuple[str, ...], elem: ColType) -> ColType:
    return ColType(sql, values, "arr", elem.prec, elem=elem)


PG_ARRAYS: list[ColType] = [
    _arr("numeric(5,2)[]", ("'{1.5,-2.25}'", "'{}'", "'{NULL,0.01}'"), ColType("numeric(5,2)", (), "num")),
    _arr("date[]", ("'{2024-01-01,infinity}'", "'{-infinity}'"), ColType("date", (), "date")),
    _arr("uuid[]", ("'{a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11}'",), ColType("uuid", (), "text")),
    _arr("real[]", ("'{1.5,NaN,-Infinity}'",), ColType("real", (), "f32")),
    _arr("double precision[]", ("'{2.25,1e300}'",), ColType("double precision", (), "f64")),
    _arr("boolean[]", ("'{t,f,NULL}'",), ColType("boolean", (), "bool")),
    _arr("smallint[]", ("'{1,-2}'",), ColType("smallint", (), "int")),
    _arr("timestamp[]", ("'{\"2024-01-01 10:00:00.5\"}'",), ColType("timestamp", (), "ts")),
    _arr("timestamptz[]", ("'{\"2024-01-01 10:00:00+02\"}'",), ColType("timestamptz", (), "tstz")),
    _arr("time[]", ("'{10:00:00.25}'",), ColType("time", (), "time")),
    _arr("varchar(5)[]", ("'{ab,cd}'", "'{\"a b\",NULL}'"), ColType("varchar(5)", (), "text")),
    _arr("inet[]", ("'{10.0.0.1,::1}'",), ColType("inet", (), "text")),
    _arr("mood[]", ("'{happy,ok}'",), ColType("mood", (), "text")),
    _arr("interval[]", ('\'{"1 day","-2 mons"}\'',), ColType("interval", (), "interval")),
]

MARIADB_MORE: list[ColType] = [
    ColType("BIT(1)", ("b'1'", "b'0'"), "bool"),
    ColType("BIT(10)", ("b'1010101010'", "b'0'"), "bits", bits=10),
    ColType("BIT(64)", ("b'" + "1" * 64 + "'", "b'1'"), "bits", bits=64),
    ColType("BIT(33)", ("b'100000000000000000000000000000001'",), "bits", bits=33),
    ColType("BIGINT UNSIGNED", ("18446744073709551615", "9223372036854775808", "1"), "u64"),
    ColType("POINT", ("ST_GeomFromText('POINT(1 2)')", "ST_GeomFromText('POINT(-1.5 0)', 4326)"), "point"),
    ColType(
        "GEOMETRY",
        ("ST_GeomFromText('LINESTRING(0 0,1 1)')", "ST_GeomFromText('POINT(3 4)', 4326)"),
        "geom",
    ),
    ColType("DATE", ("'2024-02-29'", "'0000-00-00'"), "zdate"),
    ColType("DATETIME(3)", ("'2001-09-09 01:46:40.654'", "'0000-00-00 00:00:00'"), "zts", prec=3),
]

EXTENSIONS = ("hstore", "citext", "ltree")


def pg_select_more(q: str, c: ColType) -> str | None:
    """The source's value of a second-set type as PostgreSQL's own output (None: not one of them)."""
    k = c.kind
    if k == "money":
        return f"{q}::numeric::text"
    if k == "interval":
        return _pg_interval_parts(q)
    if k in ("bits", "timetz") or (k == "bool" and c.sql.startswith("bit")):
        return f"{q}::text"
    if k == "text":  # the type's output function (what pgoutput sends): inet's ::text adds a /32
        return f"CASE WHEN {q} IS NULL THEN NULL ELSE format('%s', {q}) END"  # format('%s', NULL) is ''"
    if k == "hstore":
        return f"hstore_to_json({q})::text"
    if k == "point":
        return f"{q}[0]::text || ',' || {q}[1]::text"
    if k == "arr" and c.elem is not None:
        e = c.elem
        if e.kind == "interval":
            return f"(SELECT array_agg({_pg_interval_parts('x')} ORDER BY o) FROM unnest({q}) WITH ORDINALITY u(x, o))"
        if e.sql.startswith("varchar") or e.kind == "bin":
            return q  # the driver's list (bytea as bytes)
        out = "CASE WHEN x IS NULL THEN NULL ELSE format('%s', x) END"
        return f"CASE WHEN {q} IS NULL THEN NULL ELSE ARRAY(SELECT {out} FROM unnest({q}) WITH ORDINALITY u(x, o) ORDER BY o) END"
    return None


def _pg_interval_parts(q: str) -> str:
    # years|months|days|hours|minutes|seconds (extract(second) carries the fraction)
    parts = [f"extract({f} from {q})::text" for f in ("year", "month", "day", "hour", "minute", "second")]
    return "(" + " || '|' || ".join(parts) + ")"


def mariadb_select_more(q: str, c: ColType) -> str | None:
    if c.kind == "point" or c.kind == "geom":
        return f"CONCAT(HEX(ST_AsWKB({q})), '|', ST_SRID({q}))"
    if c.kind in ("zdate", "zts"):
        return f"CAST({q} AS CHAR)"  # zero dates as text (the driver turns them into None or a str)
    return None


# -- expected values -----------------------------------------------------------------------------------


def interval_micros(parts: str) -> int:
    y, mo, d, h, mi, s = (Decimal(x) for x in parts.split("|"))
    days = float(y * 12 + mo) * (365.25 / 12) + float(d)
    v = (((days * 24 + float(h)) * 60 + float(mi)) * 60 + float(s)) * 1e6
    return I64_MAX if v >= 2**63 else I64_MIN if v <= -(2**63) else int(v)


def interval_parts(parts: str) -> tuple:
    y, mo, d, h, mi, s = (Decimal(x) for x in parts.split("|"))
    return ("I", int(y), int(mo), int(d), int(h), int(mi), s.normalize() + 0)


_ISO_DUR = re.compile(
    r"^P(?:(-?\d+)Y)?(?:(-?\d+)M)?(?:(-?\d+)D)?(?:T(?:(-?\d+)H)?(?:(-?\d+)M)?(?:(-?[\d.]+)S)?)?$"
)


def parse_iso_interval(v: str) -> Any:
    m = _ISO_DUR.match(v)
    if not m:
        return ("bad interval", v)
    y, mo, d, h, mi, s = (g or "0" for g in m.groups())
    return ("I", int(y), int(mo), int(d), int(h), int(mi), Decimal(s).normalize() + 0)


def bits_le(bitstr: str, n: int, db: str) -> bytes:
    """A bit string ('101') as Debezium's Bits: its number little-endian in ceil(n/8) bytes (MariaDB), on
    PostgreSQL without the high zero bytes (java.util.BitSet.toByteArray: B'000' is empty; real Debezium's
    records of case generated_seed1003 show both)."""
    b = int(bitstr or "0", 2).to_bytes((n + 7) // 8, "little")
    return b.rstrip(b"\0") if db == "pg" else b


def timetz_utc_micros(v: str) -> int:
    """'13:45:30.123456+02' / '10:11:12.34+05:30' -> micros of the day in UTC."""
    m = re.match(r"^(\d\d):(\d\d):(\d\d)(?:\.(\d+))?([+-])(\d\d)(?::(\d\d))?(?::(\d\d))?$", v)
    assert m, v
    hh, mm, ss, frac, sign, oh, om, os_ = m.groups()
    us = ((int(hh) * 60 + int(mm)) * 60 + int(ss)) * 1_000_000 + int(((frac or "") + "000000")[:6])
    off = (int(oh) * 3600 + int(om or 0) * 60 + int(os_ or 0)) * 1_000_000
    return (us - off if sign == "+" else us + off) % 86_400_000_000


def parse_zoned_time(v: str) -> Any:
    """Debezium's ZonedTime text ('11:45:30.123456Z') -> micros of the day in UTC."""
    if not v.endswith("Z"):
        return ("bad zoned time", v)
    hh, mm, rest = v[:-1].split(":")
    sec, _, frac = rest.partition(".")
    return ((int(hh) * 60 + int(mm)) * 60 + int(sec)) * 1_000_000 + int((frac + "000000")[:6])


def point_struct(xy: str) -> dict:
    x, y = (float(p) for p in xy.split(","))
    return {"x": x, "y": y, "wkb": struct.pack("<BIdd", 1, 1, x, y), "srid": None}


def mariadb_geom(v: str, point: bool) -> dict:
    hexwkb, _, srid = v.partition("|")
    wkb = bytes.fromhex(hexwkb)
    s = int(srid) or None
    if not point:
        return {"wkb": wkb, "srid": s}
    x, y = struct.unpack("<dd", wkb[5:21])
    return {"x": x, "y": y, "wkb": wkb, "srid": s}


def u64(v: int, mode: str) -> Any:
    if mode == "precise":
        return Decimal(v)
    return v - (1 << 64) if v > I64_MAX else v


def f32(v: float) -> float:
    return struct.unpack("f", struct.pack("f", v))[0]


def canon_struct(v: Any) -> Any:
    if isinstance(v, dict):
        return tuple(sorted((k, canon_struct(x)) for k, x in v.items()))
    if isinstance(v, float) and math.isnan(v):
        return "NaN"
    if isinstance(v, memoryview | bytearray):
        return bytes(v)
    return v


def parse_iso_temporal(v: Any, kind: str) -> Any:
    """isostring's text of a date/time/timestamp -> the value (time: micros of the day)."""
    if not isinstance(v, str):
        return v
    s = v[:-1] if v.endswith("Z") else v
    try:
        if kind == "date":
            return dt.date.fromisoformat(s)
        if kind == "time":
            t = dt.time.fromisoformat(s)
            return ((t.hour * 60 + t.minute) * 60 + t.second) * 1_000_000 + t.microsecond
        return dt.datetime.fromisoformat(s)
    except ValueError:
        return ("bad iso", v)


# -- the dispatch (the first set's kinds go to `sink_campaign_types`) ----------------------------------


def _ts_micros_since_epoch(t: dt.datetime) -> int:
    d = t - dt.datetime(1970, 1, 1)
    return (d.days * 86_400 + d.seconds) * 1_000_000 + d.microseconds


def expected(c: ColType, v: Any, m: Modes, db: str) -> Any:
    """The sink's value for the source's value `v` of any drawn type."""
    if v is None:
        return None
    k = c.kind
    if k == "arr" and c.elem is not None:
        e = c.elem
        return [None if x is None else expected(e, int(x) if e.kind == "int" else x, m, db) for x in v]
    if k == "num" and isinstance(v, str) and v == "NaN":
        # Debezium: NaN has no Decimal (null in precise mode), "NaN" in string mode, a double NaN in double
        return None if m.decimal == "precise" else ("NaN" if m.decimal == "string" else math.nan)
    if k == "money":
        return _types.expected(ColType(c.sql, (), "num"), v, m, db)
    if k == "interval":
        return interval_micros(v) if m.interval == "numeric" else interval_parts(v)
    if k == "bits":
        return bits_le(v if isinstance(v, str) else format(int.from_bytes(v, "big"), "b"), c.bits, db)
    if k == "bool" and c.sql.upper().startswith("BIT"):
        return v in ("1", b"\x01", 1)
    if k == "text":
        return v
    if k == "hstore":
        return json.loads(v)
    if k == "point":
        return point_struct(v) if db == "pg" else mariadb_geom(v, True)
    if k == "geom":
        return mariadb_geom(v, False)
    if k == "timetz":
        return timetz_utc_micros(v)
    if k == "u64":
        return u64(int(v), m.unsigned)
    if k in ("zdate", "zts"):
        if str(v).startswith("0000-00-00"):
            return None  # Debezium: a zero date is null in a nullable column
        return _types.expected(ColType(c.sql, (), "date" if k == "zdate" else "ts", c.prec), v, m, db)
    if db == "pg" and m.time in ("isostring", "microseconds", "nanoseconds") and k in ("time", "ts"):
        return _time_mode(c, v, m)
    return _types.expected(c, v, m, db)


def _time_mode(c: ColType, v: Any, m: Modes) -> Any:
    if c.kind == "time":
        us = _types.micros_of_day(v)
        if m.time == "isostring":
            return us % 86_400_000_000  # java.time's LocalTime has no 24:00
        return us * 1000 if m.time == "nanoseconds" else us
    t = _types.pg_ts(v)
    # by the text: a real 0001-01-01 00:00:00 is MIN_TS too (Spark's first instant), but outside int64
    # nanoseconds, so null, while '-infinity' is Long.MIN, the end of the range (pg seed 14, Kafka input)
    if m.time == "nanoseconds" and "infinity" not in v:
        ns = _ts_micros_since_epoch(t) * 1000
        if not I64_MIN <= ns <= I64_MAX:
            return None  # outside NanoTimestamp's int64: Debezium's conversion gives no value
    return t


def canon(v: Any, c: ColType | None = None, m: Modes | None = None) -> Any:
    if v is None or c is None or m is None:
        return _types.canon(v, c, m)
    k = c.kind
    if k == "arr" and c.elem is not None and isinstance(v, list):
        return [canon(x, c.elem, m) for x in v]
    if k == "interval" and isinstance(v, str):
        return parse_iso_interval(v)
    if k == "hstore" and isinstance(v, str):
        return json.loads(v)
    if k == "timetz" and isinstance(v, str):
        return parse_zoned_time(v)
    if k in ("point", "geom") and isinstance(v, dict):
        return canon_struct(v)
    if k in ("bits",) and isinstance(v, memoryview | bytearray):
        return bytes(v)
    if m.time == "isostring" and k in ("date", "time", "ts") and isinstance(v, str):
        return parse_iso_temporal(v, k)
    if k == "money":
        return _types.canon(v, ColType(c.sql, (), "num"), m)
    if k == "u64" and isinstance(v, Decimal | str):
        return _types.canon(Decimal(v))
    return _types.canon(v, c, m)


def pg_select(name: str, c: ColType) -> str:
    q = '"' + name + '"'
    return pg_select_more(q, c) or _types.pg_select(name, c)


def mariadb_select(name: str, c: ColType) -> str:
    q = "`" + name + "`"
    return mariadb_select_more(q, c) or q
