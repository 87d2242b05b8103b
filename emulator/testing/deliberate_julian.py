"""The deliberate differences `timestamp_array_bc_jdbc_lost` and `date_bc_jdbc_lost` (PostgreSQL; README
"Differences from Debezium"), recognized by the differential comparison as emulator.testing.deliberate recognizes
the excluded key columns.

Debezium reads timestamp[] / timestamptz[] elements through pgjdbc's PgArray, as java.sql.Timestamp in the hybrid
Julian calendar: an element before 1582-10-15 comes out as the Julian reading of its date (44 BC March 15 as March
13; 1582-10-10 as 1582-10-20), and a timestamptz[] element loses its era (0044-03-15 BC as 0044-03-15). The emulator
sends what PostgreSQL holds. A date read over JDBC (a snapshot read's scalar, an array element anywhere) likewise
goes through java.sql.Date. Recognized narrowly, element by element: only in an array field whose items are a
timestamp or date schema (Timestamp, MicroTimestamp, NanoTimestamp, Connect's Timestamp, ZonedTimestamp,
IsoTimestamp, Date, Connect's Date, IsoDate) or a date scalar of a snapshot read (`op: r`), only where the emulator's element is before 1582-10-15 and Debezium's before 1582-10-25 (the gap moves a date ten days
at most; a dropped era of a year before 1582 stays before it: the generator draws no BC year past 1581 where the
era is dropped); every other element, field and record is compared.
"""

from __future__ import annotations

import re
from typing import Any

from emulator.testing.parallel_order import payload

ARRAY_TS_BC = "timestamp_array_bc_jdbc_lost"
DATE_BC = "date_bc_jdbc_lost"

_PER_SECOND = {
    "io.debezium.time.Timestamp": 1000,
    "org.apache.kafka.connect.data.Timestamp": 1000,
    "io.debezium.time.MicroTimestamp": 1_000_000,
    "io.debezium.time.NanoTimestamp": 1_000_000_000,
}
_DAYS = ("io.debezium.time.Date", "org.apache.kafka.connect.data.Date")
_TEXT = ("io.debezium.time.ZonedTimestamp", "io.debezium.time.IsoTimestamp", "io.debezium.time.IsoDate")
GREGORIAN_S = -12219292800  # 1582-10-15T00:00:00Z, seconds since the epoch
EARLIEST_S = -210866803200  # 4714-11-24T00:00:00Z (4713 BC), PostgreSQL's first timestamp
_DAY = 86400
_DATE = re.compile(r"([+-]?)(\d{4,})-(\d\d)-(\d\d)(?:T|Z?$)")


def _before(value: Any, name: str, seconds: int) -> bool | None:
    """Whether an element of schema `name` is before `seconds` since the epoch (None: not a timestamp value)."""
    if name in _DAYS:
        if isinstance(value, int) and not isinstance(value, bool):
            return EARLIEST_S // _DAY <= value < seconds // _DAY
        return None
    if name in _PER_SECOND:
        if isinstance(value, int) and not isinstance(value, bool):
            # (PostgreSQL's earliest timestamp is 4714-11-24 BC: a number below is a saturated one, not a date)
            return EARLIEST_S * _PER_SECOND[name] <= value < seconds * _PER_SECOND[name]
        return None
    if not isinstance(value, str) or (m := _DATE.match(value)) is None:
        return None  # (also `infinity` / `-infinity`)
    year = int(m.group(2)) * (-1 if m.group(1) == "-" else 1)
    limit = (1582, 10, 15 + (seconds - GREGORIAN_S) // _DAY)
    return (year, int(m.group(3)), int(m.group(4))) < limit


def _known(name: Any) -> bool:
    return name in _PER_SECOND or name in _DAYS or name in _TEXT


def _julian_fields(value: dict, read: bool) -> dict[str, dict[str, tuple[str, bool]]]:
    """'before'/'after' -> {field: (its items' or its own schema name, is an array)} for the timestamp and date
    arrays of a value schema, and (`read`: a snapshot read, over JDBC) its date scalars."""
    out: dict[str, dict[str, tuple[str, bool]]] = {}
    for part in (value.get("schema") or {}).get("fields") or []:
        if part.get("field") not in ("before", "after"):
            continue
        for f in part.get("fields") or []:
            items = f.get("items") or {}
            if f.get("type") == "array" and _known(items.get("name")):
                out.setdefault(part["field"], {})[f["field"]] = (items["name"], True)
            elif read and f.get("name") in _DAYS + ("io.debezium.time.IsoDate",):
                out.setdefault(part["field"], {})[f["field"]] = (f["name"], False)
    return out


def _julian_element(ours: Any, theirs: Any, name: str) -> bool:
    return bool(_before(ours, name, GREGORIAN_S)) and bool(_before(theirs, name, GREGORIAN_S + 10 * _DAY))


def accept_julian_array_elements(
    config: dict[str, Any], gold: dict[str, list[dict]], ours: dict[str, list[dict]]
) -> dict[str, int]:
    """In place on `ours` (records paired by position in each topic): an array field whose every differing element
    is such a Julian reading takes Debezium's array, a snapshot read's date scalar Debezium's date. -> {case name:
    records changed}: ARRAY_TS_BC for timestamp[]/timestamptz[], DATE_BC for dates."""
    if "postgresql" not in str(config.get("connector.class", "")).lower():
        return {}
    changed: dict[str, int] = {}
    for topic, recs in gold.items():
        for g, o in zip(recs, ours.get(topic, [])):
            gv, ov = g.get("value"), o.get("value")
            if not isinstance(gv, dict) or not isinstance(ov, dict) or "schema" not in gv:
                continue
            gp, op, touched = payload(gv), payload(ov), set()
            fields = _julian_fields(gv, isinstance(gp, dict) and gp.get("op") == "r")
            for part, names in fields.items():
                grow, orow = gp.get(part), op.get(part) if isinstance(op, dict) else None
                if not isinstance(grow, dict) or not isinstance(orow, dict):
                    continue
                for field, (name, array) in names.items():
                    a, b = orow.get(field), grow.get(field)
                    if a == b:
                        continue
                    if not array:
                        if _julian_element(a, b, name):
                            orow[field] = b
                            touched.add(DATE_BC)
                        continue
                    if not isinstance(a, list) or not isinstance(b, list) or len(a) != len(b):
                        continue
                    if all(x == y or _julian_element(x, y, name) for x, y in zip(a, b)):
                        orow[field] = b
                        touched.add(DATE_BC if name in _DAYS or name.endswith("IsoDate") else ARRAY_TS_BC)
            for case in touched:
                changed[case] = changed.get(case, 0) + 1
    return changed
