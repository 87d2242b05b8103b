"""JsonConverter framing: `{"schema":...,"payload":...}` with schemas on, the bare payload with them off.

Payloads handed to these functions are already JSON-ready (bytes as base64 text, NaN as "NaN", ...),
so one orjson call produces the whole record. The schema half is constant per table: it is serialized
once into a prefix and glued to each payload.
"""

from __future__ import annotations

from typing import Any

import orjson

from emulator.connect.schema import Schema

_dumps = orjson.dumps


class JsonCodec:
    __slots__ = ("schemas_enable",)

    def __init__(self, schemas_enable: bool = True) -> None:
        self.schemas_enable = schemas_enable

    def prefix(self, schema: Schema) -> bytes:
        return b'{"schema":' + schema.json_bytes() + b',"payload":' if self.schemas_enable else b""

    def suffix(self) -> bytes:
        return b"}" if self.schemas_enable else b""

    def encode(self, schema: Schema, payload: Any) -> bytes:
        if self.schemas_enable:
            return b'{"schema":' + schema.json_bytes() + b',"payload":' + _dumps(payload) + b"}"
        return _dumps(payload)


class Framed:
    """A schema's pre-serialized framing: `encode(payload)` is one dumps plus two concatenations."""

    __slots__ = ("head", "tail")

    def __init__(self, codec: JsonCodec, schema: Schema) -> None:
        self.head = codec.prefix(schema)
        self.tail = codec.suffix()

    def encode(self, payload: Any) -> bytes:
        return self.head + _dumps(payload) + self.tail
