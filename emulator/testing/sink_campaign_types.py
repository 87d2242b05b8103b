"""The sink campaign's column types (`sink_campaign.py`): per database the types a random table draws (taken from
the capture generators' lists, `workloads_pg_tables.PG_TYPES` / `workloads_mariadb.TYPES`, minus what the
campaign cannot judge: NaN numerics, zero dates, geometry), how the source's own value is read back, and the
value the sink's table must hold for it under the connector's handling modes.

The expected value is derived from the database's value alone (its text output for PostgreSQL, the driver's
value for MariaDB) and the documented mapping (README "Types by schema"): never from the sink or the emulator.
Both sides become one canonical form (`canon`) before they are compared: decimals as their normalized text,
NaN floats as "NaN", aware timestamps as naive UTC, hex text in lower case.
"""

from __future__ import annotations

import base64
import datetime as dt
import math
import struct
from dataclasses import dataclass
from decimal import Decimal
from typing import Any

from emulator.testing.workloads_mariadb import TYPES as MARIADB_TYPES
from emulator.testing.workloads_pg_tables import PG_TYPES

EPOCH = dt.datetime(1970, 1, 1)
MAX_TS, MIN_TS = dt.datetime.max, dt.datetime.min  # the sink clamps +-infinity to Spark's (Python's) range
MAX_DATE, MIN_DATE = dt.date.max, dt.date.min


@dataclass(frozen=True)
class ColType:
    sql: str  # the column's type in CREATE TABLE
    values: tuple[str, ...]  # SQL literals
    kind: str  # int num f32 f64 bool str bin date time ts tstz arr
    prec: int = 6  # fractional digits of time / timestamp types
    bits: int = 0  # a bit string's length (kind "bits")
    elem: ColType | None = None  # an array's element type (second-set arrays, `sink_campaign_more`)


@dataclass(frozen=True)
class Modes:
    decimal: str = "precise"
    binary: str = "bytes"
    time: str = "adaptive"
    interval: str = "numeric"  # PostgreSQL interval.handling.mode
    unsigned: str = "long"  # MariaDB bigint.unsigned.handling.mode


PG_KINDS = {
    "smallint": "int",
    "integer": "int",
    "bigint": "int",
    "numeric(10,2)": "num",
    "numeric(38,10)": "num",
    "numeric": "num",
    "numeric(5,-2)": "num",
    "numeric(3,5)": "num",
    "real": "f32",
    "double precision": "f64",
    "boolean": "bool",
    "char(5)": "str",
    "varchar(20)": "str",
    "text": "str",
    "varchar": "str",
    "bytea": "bin",
    "date": "date",
    "time": "time",
    "time(3)": "time",
    "time(0)": "time",
    "timestamp": "ts",
    "timestamp(3)": "ts",
    "timestamp(0)": "ts",
    "timestamptz": "tstz",
    "timestamptz(0)": "tstz",
    "uuid": "str",
    "json": "str",
    "jsonb": "str",
    "mood": "str",
    "integer[]": "arr",
    "text[]": "arr",
    "bigint[]": "arr",
}

MARIADB_KINDS = {
    "TINYINT": "int",
    "SMALLINT": "int",
    "MEDIUMINT": "int",
    "INT": "int",
    "INT UNSIGNED": "int",
    "BIGINT": "int",
    "DECIMAL(10,2)": "num",
    "DECIMAL(30,10)": "num",
    "DECIMAL(5,0)": "num",
    "NUMERIC(8,3)": "num",
    "DECIMAL(65,30)": "num",
    "DECIMAL(1,1)": "num",
    "DOUBLE": "f64",
    "FLOAT": "f32",
    "CHAR(5)": "str",
    "VARCHAR(30)": "str",
    "TEXT": "str",
    "MEDIUMTEXT": "str",
    "TINYTEXT": "str",
    "BLOB": "bin",
    "BINARY(4)": "bin",
    "VARBINARY(8)": "bin",
    "DATE": "date",
    "TIME": "time",
    "TIME(3)": "time",
    "TIME(6)": "time",
    "DATETIME": "ts",
    "DATETIME(3)": "ts",
    "DATETIME(6)": "ts",
    "TIMESTAMP NULL DEFAULT NULL": "tstz",
    "TIMESTAMP(6) NULL DEFAULT NULL": "tstz",
    "YEAR": "int",
    "ENUM('a','b','c d')": "str",
    "SET('x','y','z')": "str",
    "JSON": "str",
}


def _pick(table: list[tuple[str, list[str]]], kinds: dict[str, str], default_frac: int) -> list[ColType]:
    out = []
    for sql, values in table:
        kind = kinds.get(sql)
        if kind is None:
            continue
        # MariaDB's zero dates ("!") and NaN numerics (no Decimal holds them) are left to the capture campaigns
        vals = tuple(v for v in values if not v.startswith("!") and not (kind == "num" and "NaN" in v))
        head = sql.split()[0]
        frac = default_frac
        if kind in ("time", "ts", "tstz") and "(" in head:
            frac = int(head.split("(")[1].split(")")[0])
        out.append(ColType(sql, vals, kind, frac))
    return out


PG_COLS = _pick(PG_TYPES, PG_KINDS, 6)
MARIADB_COLS = _pick(MARIADB_TYPES, MARIADB_KINDS, 0)
# a TOAST-able text: ~13-38 kB of md5 text, stored out of line (PostgreSQL) / a long TEXT (MariaDB)
PG_TOAST = ColType("text", (), "toast")
MARIADB_TOAST = ColType("MEDIUMTEXT", (), "toast")


TEXT_OUTPUT = {"uuid", "json", "jsonb", "mood"}  # what pgoutput sends is their text output


def pg_select(name: str, c: ColType) -> str:
    """How the source's value is read back: PostgreSQL's own text output for the types whose Python driver
    value could hide an edge (infinity, precision), the driver's value for the rest."""
    q = '"' + name + '"'
    if c.kind in ("num", "f32", "f64", "date", "time", "ts", "tstz", "bool") or c.sql in TEXT_OUTPUT:
        return f"{q}::text"
    return q


# -- expected values -----------------------------------------------------------------------------------


def micros_of_day(t: str) -> int:
    hh, mm, rest = t.split(":")
    sec, _, frac = rest.partition(".")
    return ((int(hh) * 60 + int(mm)) * 60 + int(sec)) * 1_000_000 + int((frac + "000000")[:6])


def pg_ts(text: str) -> dt.datetime:
    if text == "infinity":
        return MAX_TS
    if text == "-infinity":
        return MIN_TS
    if text[-3] in "+-" and text[-3:].lstrip("+-").isdigit():
        assert text.endswith("+00"), text  # the servers run in UTC
        text = text[:-3]
    return dt.datetime.fromisoformat(text)


def _floor_ms(t: dt.datetime) -> dt.datetime:
    return t.replace(microsecond=t.microsecond // 1000 * 1000)


def _time_in_millis(c: ColType, m: Modes, db: str) -> bool:
    """Connect's Time, or PostgreSQL's adaptive io.debezium.time.Time for time(0..3); else MicroTime."""
    return m.time == "connect" or (db == "pg" and m.time == "adaptive" and c.prec <= 3)


def expected(c: ColType, v: Any, m: Modes, db: str) -> Any:
    """The value the sink's table must hold for the source's value `v` (as `pg_select` / the driver read it)."""
    if v is None:
        return None
    k = c.kind
    if k == "num":
        d = Decimal(v) if isinstance(v, str) else v
        return float(d) if m.decimal == "double" else d
    if k == "f32":
        return struct.unpack("f", struct.pack("f", float(v)))[0]
    if k == "f64":
        return float(v)
    if k == "bool":
        return v in ("t", "true")  # boolean::text is "true"/"false"
    if k == "bin":
        b = bytes(v)
        if m.binary == "base64":
            return base64.b64encode(b).decode()
        if m.binary == "base64-url-safe":
            return base64.urlsafe_b64encode(b).decode()
        if m.binary == "hex":
            return b.hex()
        return b
    if k == "date":
        if v == "infinity":
            return MAX_DATE
        if v == "-infinity":
            return MIN_DATE
        return v if isinstance(v, dt.date) else dt.date.fromisoformat(v)
    if k == "time":
        us = (
            micros_of_day(v)
            if isinstance(v, str)
            else (v.days * 86_400 + v.seconds) * 1_000_000 + v.microseconds
        )
        if db == "mariadb" and m.time == "connect" and not 0 <= us < 86_400_000_000:
            return (
                None  # Debezium's: a TIME outside a day is null in Connect's Time (differential-mariadb.md)
            )
        return us // 1000 if _time_in_millis(c, m, db) else us
    if k == "ts":
        t = pg_ts(v) if isinstance(v, str) else v
        # connect mode: Connect's Timestamp (millis, floored as Instant.toEpochMilli does; +-infinity clamps
        # to the last millisecond of Spark's range); the adaptive modes pick millis only for precisions
        # that have no finer digits
        return _floor_ms(t) if m.time == "connect" else t
    if k == "tstz":
        return pg_ts(v) if isinstance(v, str) else v  # ZonedTimestamp keeps micros; MariaDB's session is UTC
    return v


def canon(v: Any, c: ColType | None = None, m: Modes | None = None) -> Any:
    """One comparable form for both sides."""
    if v is None:
        return None
    if isinstance(v, str) and c is not None and c.kind == "bin" and m is not None and m.binary == "hex":
        return v.lower()
    if isinstance(v, Decimal) or (c is not None and c.kind == "num" and isinstance(v, str)):
        d = Decimal(v).normalize()
        return ("D", format(d, "f") if d == d else str(d))
    if isinstance(v, float):
        if math.isnan(v):
            return "NaN"
        return v
    if isinstance(v, dt.datetime) and v.tzinfo is not None:
        return v.astimezone(dt.UTC).replace(tzinfo=None)
    if isinstance(v, list):
        return [canon(x) for x in v]
    if isinstance(v, memoryview | bytearray):
        return bytes(v)
    return v
