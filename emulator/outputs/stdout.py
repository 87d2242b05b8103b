"""Readable output for watching a development database: one line per record.

    dbserver1.public.orders INSERT key={"id": 1} {"id": 1, "price": 12.50, "placed": "2024-01-31"}

Values are decoded by their schema (`readable.py`: decimals as numbers, dates and times as ISO text, bytes as
hex). `raw=True` prints the records themselves instead, exactly as the directory output stores them, with
the topic: `{"topic":T,"key":K,"value":V,"headers":[...]}`.
"""

from __future__ import annotations

import base64
import sys
from typing import Any, TextIO

import orjson

from emulator.outputs.base import Output
from emulator.outputs.readable import Render, compile_schema, field_schema
from emulator.records import Record

_OPS = {"c": "INSERT", "u": "UPDATE", "d": "DELETE", "r": "READ", "t": "TRUNCATE", "m": "MESSAGE"}
_PAYLOAD = b',"payload":'


class _Doc:
    """A JsonConverter document's payload plus renderers for it, compiled once per schema."""

    cache: dict[bytes, tuple[dict | None, Render]] = {}

    @classmethod
    def parse(cls, raw: bytes) -> tuple[Any, dict | None, Render]:
        doc = orjson.loads(raw)
        if not (isinstance(doc, dict) and set(doc) == {"schema", "payload"}):
            return doc, None, compile_schema(None)
        i = raw.find(_PAYLOAD)  # the schema comes first; its bytes identify it
        key = raw[:i] if i > 0 else orjson.dumps(doc["schema"])
        hit = cls.cache.get(key)
        if hit is None:
            if len(cls.cache) > 4096:
                cls.cache.clear()
            hit = cls.cache[key] = (doc["schema"], compile_schema(doc["schema"]))
        return doc["payload"], hit[0], hit[1]


_ROWS: dict[int, tuple[dict, Render, Render]] = {}


def _row_renderers(schema: dict) -> tuple[Render, Render]:
    hit = _ROWS.get(id(schema))
    if hit is None or hit[0] is not schema:
        hit = _ROWS[id(schema)] = (
            schema,
            compile_schema(field_schema(schema, "after")),
            compile_schema(field_schema(schema, "before")),
        )
    return hit[1], hit[2]


class StdoutOutput(Output):
    """`raw=False`: `topic OP key=... row` lines with decoded values; `raw=True`: whole records as JSON."""

    def __init__(self, stream: TextIO | None = None, raw: bool = False, full: bool | None = None) -> None:
        self.stream = stream or sys.stdout
        self.raw = raw if full is None else full

    def write(self, record: Record) -> None:
        if self.raw:
            line = b'{"topic":' + orjson.dumps(record.topic) + b"," + record.line()[1:]
            self.stream.write(line.decode())
            return
        if record.binary:  # converter bytes that may not be JSON (data plane)
            self.stream.write(_render_binary(record) + "\n")
            return
        self.stream.write(render_record(record) + "\n")

    def flush(self) -> None:
        self.stream.flush()


def render_record(record: Record) -> str:
    """The readable line of one record (without the newline)."""
    if record.key is None:
        key = "null"
    else:
        k, _, render_key = _Doc.parse(record.key)
        key = render_key(k)
    if record.value is None:
        return f"{record.topic} TOMBSTONE key={key}"
    value, schema, render_value = _Doc.parse(record.value)
    if isinstance(value, dict) and value.get("op") in _OPS:
        op = value["op"]
        if op == "m":
            return f"{record.topic} MESSAGE key={key} {orjson.dumps(value.get('message')).decode()}"
        after, before = _row_renderers(schema) if schema else (compile_schema(None),) * 2
        row = after(value["after"]) if value.get("after") is not None else before(value.get("before"))
        return f"{record.topic} {_OPS[op]} key={key} {row}"
    return f"{record.topic} {render_value(value)}"


def _render_binary(record: Record) -> str:
    key = _readable(record.key)
    value = _readable(record.value)
    if value is None:
        return f"{record.topic} TOMBSTONE key={_short(key)}"
    if isinstance(value, dict) and "op" in value:
        op = _OPS.get(value["op"], value["op"])
        row = value.get("after") if value.get("after") is not None else value.get("before")
        if value["op"] == "m":
            row = value.get("message")
        return f"{record.topic} {op} key={_short(key)} {_short(row)}"
    return f"{record.topic} {_short(value)}"


def _payload(raw: bytes | None):
    if raw is None:
        return None
    doc = orjson.loads(raw)
    if isinstance(doc, dict) and set(doc) == {"schema", "payload"}:
        return doc["payload"]
    return doc


def _readable(raw: bytes | None):
    """Converter bytes that may not be JSON (data plane): JSON as parsed, Confluent Avro as its schema id
    and size, other UTF-8 text as a string, anything else as base64."""
    if raw is None:
        return None
    try:
        return _payload(raw)
    except orjson.JSONDecodeError:
        pass
    if len(raw) >= 5 and raw[0] == 0:
        return {"avro": {"schema_id": int.from_bytes(raw[1:5], "big"), "bytes": len(raw) - 5}}
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError:
        return {"b64": base64.b64encode(raw).decode()}


def _short(obj) -> str:
    return orjson.dumps(obj).decode() if obj is not None else "null"
