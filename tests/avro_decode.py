"""Test helper (stdlib): decode Confluent-framed Avro bytes with the writer schema of their id, so that
Avro recordings can be compared after the run-dependent masks of connect_compare.

`decode(raw, schemas_by_id)` -> {"schema_id": id, "datum": value}: records as dicts in field order, bytes
as {"$bytes": hex}, floats/doubles as {"$double": repr}, maps as dicts, unions as the branch's value.
"""

from __future__ import annotations

import struct
from typing import Any


class _Reader:
    def __init__(self, data: bytes, pos: int = 0) -> None:
        self.data = data
        self.pos = pos

    def long(self) -> int:
        shift = n = 0
        while True:
            b = self.data[self.pos]
            self.pos += 1
            n |= (b & 0x7F) << shift
            if not b & 0x80:
                break
            shift += 7
        return (n >> 1) ^ -(n & 1)

    def raw(self, n: int) -> bytes:
        out = self.data[self.pos : self.pos + n]
        self.pos += n
        return out


def _named(schema: Any, names: dict, space: str | None) -> Any:
    if isinstance(schema, str):
        if schema in names:
            return names[schema]
        if space and f"{space}.{schema}" in names:
            return names[f"{space}.{schema}"]
    return schema


def _register(schema: Any, names: dict, space: str | None) -> None:
    if isinstance(schema, list):
        for s in schema:
            _register(s, names, space)
    elif isinstance(schema, dict):
        t = schema.get("type")
        if t == "record":
            ns = schema.get("namespace", space)
            full = f"{ns}.{schema['name']}" if ns else schema["name"]
            names[full] = schema
            schema["_space"] = ns
            for f in schema["fields"]:
                _register(f["type"], names, ns)
        elif t == "array":
            _register(schema["items"], names, space)
        elif t == "map":
            _register(schema["values"], names, space)


def _read(r: _Reader, schema: Any, names: dict, space: str | None) -> Any:
    schema = _named(schema, names, space)
    if isinstance(schema, list):
        return _read(r, schema[r.long()], names, space)
    t = schema["type"] if isinstance(schema, dict) else schema
    if isinstance(t, (dict, list)):
        return _read(r, t, names, space)
    if t == "null":
        return None
    if t == "boolean":
        return r.raw(1) != b"\x00"
    if t in ("int", "long"):
        return r.long()
    if t == "float":
        return {"$double": repr(struct.unpack("<f", r.raw(4))[0])}
    if t == "double":
        return {"$double": repr(struct.unpack("<d", r.raw(8))[0])}
    if t == "string":
        return r.raw(r.long()).decode("utf-8")
    if t == "bytes":
        return {"$bytes": r.raw(r.long()).hex()}
    if t == "record":
        ns = schema.get("_space", space)
        return {f["name"]: _read(r, f["type"], names, ns) for f in schema["fields"]}
    if t in ("array", "map"):
        out: Any = [] if t == "array" else {}
        while True:
            n = r.long()
            if n == 0:
                break
            if n < 0:
                n = -n
                r.long()
            for _ in range(n):
                if t == "array":
                    out.append(_read(r, schema["items"], names, space))
                else:
                    k = r.raw(r.long()).decode("utf-8")
                    out[k] = _read(r, schema["values"], names, space)
        return out
    if isinstance(t, str) and t in names:
        return _read(r, names[t], names, space)
    raise ValueError(f"unknown Avro type {t!r}")


def decode(raw: bytes, schemas_by_id: dict[int, Any]) -> dict:
    if not raw or raw[0] != 0:
        raise ValueError("not Confluent wire format (magic byte 0)")
    sid = int.from_bytes(raw[1:5], "big")
    import copy

    schema = copy.deepcopy(schemas_by_id[sid])
    names: dict = {}
    _register(schema, names, None)
    r = _Reader(raw, 5)
    datum = _read(r, schema, names, None)
    if r.pos != len(raw):
        raise ValueError(f"{len(raw) - r.pos} bytes left after the datum")
    return {"schema_id": sid, "datum": datum}


def schemas_by_id(registry: dict) -> dict[int, Any]:
    return {v["id"]: v["schema"] for versions in registry.values() for v in versions}
