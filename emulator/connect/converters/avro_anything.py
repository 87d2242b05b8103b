"""Schemaless Connect values in Confluent's AvroConverter: `AvroData` writes a value without a Connect schema
(a map a transform made from a tombstone, e.g. `HoistField` of a null value) as its fixed record
`io.confluent.connect.avro.Anything` — one nullable field per Java type, the value in the field of its type
(maps as arrays of `MapEntry{key, value}` records, nested values as `Anything` again, a null nested value as
an `Anything` with every field null). Found by the data-plane campaign (seed 9 trial 1,
tests/data/connect/mariadb_avro_schemaless_hoist)."""

from __future__ import annotations

import struct
from typing import Any

import orjson

from emulator.connect.converters.errors import ConversionError

ANYTHING_NAME = "io.confluent.connect.avro.Anything"
_FIELDS = ("boolean", "bytes", "double", "float", "int", "long", "string", "array", "map")
# Java's Schema.toString order of keys (the registry's text)
ANYTHING_TEXT = orjson.dumps(
    {
        "type": "record",
        "name": "Anything",
        "namespace": "io.confluent.connect.avro",
        "fields": [
            *({"name": t, "type": ["null", t], "default": None} for t in _FIELDS[:7]),
            {"name": "array", "type": ["null", {"type": "array", "items": "Anything"}], "default": None},
            {
                "name": "map",
                "type": [
                    "null",
                    {
                        "type": "array",
                        "items": {
                            "type": "record",
                            "name": "MapEntry",
                            "fields": [
                                {"name": "key", "type": "Anything"},
                                {"name": "value", "type": "Anything"},
                            ],
                        },
                    },
                ],
                "default": None,
            },
        ],
    }
).decode()
_NULLS = bytes(len(_FIELDS))


def _long(out: bytearray, n: int) -> None:
    n = (n << 1) ^ (n >> 63)  # zigzag
    while n > 0x7F:
        out.append((n & 0x7F) | 0x80)
        n >>= 7
    out.append(n)


def _slot(value: Any) -> int:
    """The `Anything` field of a value's Java type (AvroData.schemaTypeForSchemalessJavaType)."""
    if value is True or value is False:
        return 0
    if isinstance(value, (bytes, bytearray, memoryview)):
        return 1
    if isinstance(value, float):
        return 2  # a Python float is a Java Double here
    if isinstance(value, int):
        return 4 if -(2**31) <= value < 2**31 else 5
    if isinstance(value, str):
        return 6
    if isinstance(value, list):
        return 7
    if isinstance(value, dict):
        return 8
    raise ConversionError(f"Unknown Java type for schemaless data: {type(value).__name__}")


def write_anything(out: bytearray, value: Any) -> None:
    if value is None:
        out += _NULLS
        return
    slot = _slot(value)
    out += _NULLS[:slot]
    out.append(2)  # the union's second branch
    if slot == 0:
        out.append(1 if value else 0)
    elif slot in (1, 6):
        raw = value.encode() if slot == 6 else bytes(value)
        _long(out, len(raw))
        out += raw
    elif slot == 2:
        out += struct.pack("<d", value)
    elif slot in (4, 5):
        _long(out, value)
    else:
        items = list(value.items()) if slot == 8 else value
        if items:
            _long(out, len(items))
            for item in items:
                if slot == 8:
                    write_anything(out, item[0])
                    write_anything(out, item[1])
                else:
                    write_anything(out, item)
        out.append(0)
    out += _NULLS[slot + 1 :]
