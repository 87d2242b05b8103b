"""Values as a person reads them, decoded by the Connect schema's logical names.

JsonConverter writes a Decimal as base64 bytes, a date as days since the epoch, a MicroTimestamp as
microseconds. For watching a database those are unreadable, so `render(schema, value)` turns a payload into
JSON-like text with:

* decimals (`Decimal`, `VariableScaleDecimal`) as numbers with their scale: `12.50`
* Debezium and Connect dates, times and timestamps as ISO-8601 text: `"2024-01-31"`, `"10:11:12.5"`,
  `"2024-01-31T10:11:12.345678"` (timestamps without a zone are local to the source, as in Debezium)
* durations (`MicroDuration`, `NanoDuration`) as ISO-8601 durations: `"P1DT2H3M4.5S"`
* bytes as `0x` + hex, `Bits` as `0b` + bits (most significant first)
* everything else (strings, numbers, `ZonedTimestamp`, `Json`, `Uuid`, ...) as JSON

A renderer is compiled once per schema; payloads without a schema (`schemas.enable=false`) are plain JSON.
"""

from __future__ import annotations

import base64
import datetime as dt
from collections.abc import Callable
from decimal import Decimal
from typing import Any

import orjson

Render = Callable[[Any], str]

_EPOCH = dt.datetime(1970, 1, 1)
_EPOCH_DATE = dt.date(1970, 1, 1)


def _json(v: Any) -> str:
    return orjson.dumps(v).decode()


def _unscaled(b64: str) -> int:
    return int.from_bytes(base64.b64decode(b64), "big", signed=True)


def _decimal(unscaled: int, scale: int) -> str:
    return str(Decimal(unscaled).scaleb(-scale))


def _frac(digits: int, width: int) -> str:
    text = f"{digits:0{width}d}".rstrip("0")
    return "." + text if text else ""


def _date(days: int) -> str:
    try:
        return '"' + (_EPOCH_DATE + dt.timedelta(days=days)).isoformat() + '"'
    except OverflowError:
        return str(days)  # outside Python's years 1-9999 (PostgreSQL's infinity): the number as sent


def _timestamp(units_per_s: int, width: int) -> Render:
    def render(v: int) -> str:
        secs, frac = divmod(v, units_per_s)
        try:
            text = (_EPOCH + dt.timedelta(seconds=secs)).isoformat()
        except OverflowError:
            return str(v)
        return f'"{text}{_frac(frac, width)}"'

    return render


def _time(units_per_s: int, width: int) -> Render:
    """Time of day; MySQL TIME can be negative or beyond 24 h, so hours are not wrapped."""

    def render(v: int) -> str:
        sign = "-" if v < 0 else ""
        secs, frac = divmod(abs(v), units_per_s)
        h, rem = divmod(secs, 3600)
        m, s = divmod(rem, 60)
        return f'"{sign}{h:02d}:{m:02d}:{s:02d}{_frac(frac, width)}"'

    return render


def _duration(units_per_s: int, width: int) -> Render:
    def render(v: int) -> str:
        sign = "-" if v < 0 else ""
        secs, frac = divmod(abs(v), units_per_s)
        days, rem = divmod(secs, 86400)
        h, rem = divmod(rem, 3600)
        m, s = divmod(rem, 60)
        out = f"{sign}P" + (f"{days}D" if days else "")
        clock = (
            (f"{h}H" if h else "")
            + (f"{m}M" if m else "")
            + (f"{s}{_frac(frac, width)}S" if s or frac else "")
        )
        if clock or not days:
            out += "T" + (clock or "0S")
        return f'"{out}"'

    return render


def _hex(v: str) -> str:
    return "0x" + base64.b64decode(v).hex()


def _bits(length: int) -> Render:
    def render(v: str) -> str:
        n = int.from_bytes(base64.b64decode(v), "little")  # Debezium's Bits: little-endian bytes
        return "0b" + format(n, f"0{max(length, 1)}b")

    return render


def _variable_scale(v: dict) -> str:
    return _decimal(_unscaled(v["value"]), int(v["scale"]))


# logical name -> renderer of a non-null value (the Connect type follows from the name)
_BY_NAME: dict[str, Render] = {
    "io.debezium.data.VariableScaleDecimal": _variable_scale,
    "io.debezium.time.Date": _date,
    "org.apache.kafka.connect.data.Date": _date,
    "io.debezium.time.Timestamp": _timestamp(1000, 3),
    "org.apache.kafka.connect.data.Timestamp": _timestamp(1000, 3),
    "io.debezium.time.MicroTimestamp": _timestamp(1_000_000, 6),
    "io.debezium.time.NanoTimestamp": _timestamp(1_000_000_000, 9),
    "io.debezium.time.Time": _time(1000, 3),
    "org.apache.kafka.connect.data.Time": _time(1000, 3),
    "io.debezium.time.MicroTime": _time(1_000_000, 6),
    "io.debezium.time.NanoTime": _time(1_000_000_000, 9),
    "io.debezium.time.MicroDuration": _duration(1_000_000, 6),
    "io.debezium.time.NanoDuration": _duration(1_000_000_000, 9),
}


def compile_schema(schema: dict | None) -> Render:
    """A renderer for values of `schema` (a JsonConverter schema document)."""
    if not schema:
        return _json
    name = schema.get("name")
    params = schema.get("parameters") or {}
    kind = schema.get("type")
    if name == "org.apache.kafka.connect.data.Decimal" and kind == "bytes":
        scale = int(params.get("scale", 0))
        inner: Render = lambda v: _decimal(_unscaled(v), scale)  # noqa: E731
    elif name == "io.debezium.data.Bits" and kind == "bytes":
        inner = _bits(int(params.get("length", 1)))
    elif name in _BY_NAME:
        inner = _BY_NAME[name]
    elif kind == "bytes":
        inner = _hex
    elif kind == "struct":
        fields = [(f["field"], _json(f["field"]), compile_schema(f)) for f in schema.get("fields", [])]

        def inner(v: dict) -> str:
            return "{" + ", ".join(f"{key}: {r(v.get(name))}" for name, key, r in fields if name in v) + "}"

    elif kind == "array":
        item = compile_schema(schema.get("items"))

        def inner(v: list) -> str:
            return "[" + ", ".join(item(x) for x in v) + "]"

    elif kind == "map":
        keys, values = compile_schema(schema.get("keys")), compile_schema(schema.get("values"))

        def inner(v: Any) -> str:
            pairs = v.items() if isinstance(v, dict) else v  # non-string keys come as [k, v] pairs
            return "{" + ", ".join(f"{keys(k)}: {values(x)}" for k, x in pairs) + "}"

    else:
        return _json

    def render(v: Any) -> str:
        if v is None:
            return "null"
        try:
            return inner(v)
        except (ValueError, TypeError, KeyError, AttributeError):  # not what the schema says: show it as sent
            return _json(v)

    return render


def field_schema(schema: dict | None, name: str) -> dict | None:
    """The schema of struct field `name`, if any."""
    for f in (schema or {}).get("fields", []):
        if f.get("field") == name:
            return f
    return None
