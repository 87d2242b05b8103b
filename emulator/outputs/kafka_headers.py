"""Kafka Connect's SimpleHeaderConverter over a header's JsonConverter bytes (the Kafka output's headers).

The records carry their headers as JsonConverter JSON; with Connect's default header converter the Kafka
output writes what `SimpleHeaderConverter.fromConnectHeader` would: `Values.convertToString` of the value
(strings raw, structs as `{"id":1}`-like text, Kafka dates bare). The data plane's own SimpleHeaderConverter
(`emulator.connect.converters.text_converters.values_to_string`) works on Connect values with their Schema
objects; this one on the decoded JSON, numbers kept in their source text.
"""

from __future__ import annotations

import base64
import datetime as dt
import json
from decimal import Decimal
from typing import Any


class _Raw(str):
    """A JSON number kept in its source text (Jackson writes Java's `toString` of the number)."""


def _java_date(schema_name: str | None, value: Any) -> str | None:
    if schema_name == "org.apache.kafka.connect.data.Date":
        millis = int(value) * 86_400_000
    elif schema_name in ("org.apache.kafka.connect.data.Time", "org.apache.kafka.connect.data.Timestamp"):
        millis = int(value)
    else:
        return None
    # Values.dateFormatFor picks the pattern from the value (the worker runs in UTC)
    when = dt.datetime(1970, 1, 1, tzinfo=dt.UTC) + dt.timedelta(milliseconds=millis)
    if millis < 86_400_000:
        return when.strftime("%H:%M:%S.") + f"{when.microsecond // 1000:03d}Z"
    if millis % 86_400_000 == 0:
        return when.strftime("%Y-%m-%d")
    return when.strftime("%Y-%m-%dT%H:%M:%S.") + f"{when.microsecond // 1000:03d}Z"


def _escape(s: str) -> str:
    return s.replace("\\", "\\\\").replace('"', '\\"')


def _values_append(out: list[str], schema: dict | None, value: Any, embedded: bool) -> None:
    """`org.apache.kafka.connect.data.Values.append` on a value decoded from JsonConverter JSON."""
    if value is None:
        out.append("null")
        return
    name = schema.get("name") if schema else None
    type_ = schema.get("type") if schema else None
    if name == "org.apache.kafka.connect.data.Decimal":
        scale = int((schema.get("parameters") or {}).get("scale", 0))
        if isinstance(value, str) and not isinstance(value, _Raw):  # base64 two's complement
            unscaled = int.from_bytes(base64.b64decode(value), "big", signed=True)
            out.append(str(Decimal(unscaled).scaleb(-scale)))
        else:
            out.append(str(value))
        return
    formatted = _java_date(name, value) if name else None
    if formatted is not None:
        out.append(formatted)
    elif isinstance(value, bool):
        out.append("true" if value else "false")
    elif isinstance(value, _Raw | int | float):
        out.append(str(value))
    elif isinstance(value, str):
        if type_ == "bytes":  # JsonConverter writes bytes as base64, which Values writes too
            out.append(f'"{value}"' if embedded else value)
        else:
            out.append(f'"{_escape(value)}"' if embedded else value)
    elif isinstance(value, list):
        items = schema.get("items") if schema else None
        out.append("[")
        for i, v in enumerate(value):
            if i:
                out.append(",")
            _values_append(out, items, v, True)
        out.append("]")
    elif isinstance(value, dict):
        if type_ == "map" or type_ is None:
            vschema = schema.get("values") if schema else None
            kschema = schema.get("keys") if schema else None
            out.append("{")
            for i, (k, v) in enumerate(value.items()):
                if i:
                    out.append(",")
                _values_append(out, kschema, k, True)
                out.append(":")
                _values_append(out, vschema, v, True)
            out.append("}")
        else:  # struct: fields in schema order
            out.append("{")
            for i, f in enumerate(schema.get("fields") or ()):
                if i:
                    out.append(",")
                _values_append(out, None, f["field"], True)
                out.append(":")
                _values_append(out, f, value.get(f["field"]), True)
            out.append("}")
    else:  # pragma: no cover - JSON has no other types
        out.append(str(value))


def simple_header_bytes(json_bytes: bytes) -> bytes | None:
    """The bytes `SimpleHeaderConverter.fromConnectHeader` writes for a header whose JsonConverter bytes are
    given (with or without the `{"schema","payload"}` envelope)."""
    doc = json.loads(json_bytes, parse_float=_Raw, parse_int=_Raw)
    if isinstance(doc, dict) and set(doc) == {"schema", "payload"}:
        schema, value = doc["schema"], doc["payload"]
    else:
        schema, value = None, doc
    if value is None:
        return None
    if (
        isinstance(value, str)
        and not isinstance(value, _Raw)
        and (schema or {}).get("type") in (None, "string")
    ):
        return value.encode()
    out: list[str] = []
    _values_append(out, schema, value, False)
    return "".join(out).encode()
