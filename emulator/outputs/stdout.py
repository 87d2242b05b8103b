"""Readable output for watching a development database: one line per record."""

from __future__ import annotations

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
        key = _payload(record.key)
        value = _payload(record.value)
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


def _short(obj) -> str:
    return orjson.dumps(obj).decode() if obj is not None else "null"
