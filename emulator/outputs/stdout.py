"""Readable output for watching a development database: one line per record."""

from __future__ import annotations

import base64
import sys
from typing import TextIO

import orjson

from emulator.outputs.base import Output
from emulator.records import Record

_OPS = {"c": "INSERT", "u": "UPDATE", "d": "DELETE", "r": "READ", "t": "TRUNCATE", "m": "MESSAGE"}


class StdoutOutput(Output):
    """`full=False`: `topic OP key -> after` summaries; `full=True`: the golden line shape with topic."""

    def __init__(self, stream: TextIO | None = None, full: bool = False) -> None:
        self.stream = stream or sys.stdout
        self.full = full

    def write(self, record: Record) -> None:
        if self.full:
            line = b'{"topic":' + orjson.dumps(record.topic) + b"," + record.line()[1:]
            self.stream.write(line.decode())
            return
        load = _readable if record.binary else _payload
        key = load(record.key)
        value = load(record.value)
        if value is None:
            text = f"{record.topic} TOMBSTONE key={_short(key)}"
        elif isinstance(value, dict) and "op" in value:
            op = _OPS.get(value["op"], value["op"])
            row = value.get("after") if value.get("after") is not None else value.get("before")
            if value["op"] == "m":
                row = value.get("message")
            text = f"{record.topic} {op} key={_short(key)} {_short(row)}"
        else:
            text = f"{record.topic} {_short(value)}"
        self.stream.write(text + "\n")

    def flush(self) -> None:
        self.stream.flush()


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
