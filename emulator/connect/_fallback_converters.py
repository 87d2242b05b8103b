"""Stand-in for `emulator.connect.converters` until it lands: JsonConverter only (schemas on/off, decimals
as base64, nulls replaced by defaults), headers through JsonConverter. Deleted once the real one exists."""

from __future__ import annotations

import base64
from decimal import Decimal
from typing import Any

import orjson

from emulator.connect.javafloat import java_double
from emulator.connect.record import DECIMAL, ConnectRecord
from emulator.connect.schema import Schema
from emulator.records import Record

JSON = "org.apache.kafka.connect.json.JsonConverter"


def to_json(schema: Schema | None, value: Any) -> Any:
    if value is None:
        if schema is not None and schema.default is not None:
            return schema.default
        return None
    if schema is None:
        if isinstance(value, bytes):
            return base64.b64encode(value).decode()
        if isinstance(value, dict):
            return {k: to_json(None, v) for k, v in value.items()}
        if isinstance(value, list):
            return [to_json(None, v) for v in value]
        if isinstance(value, float):
            return java_double(value)
        if isinstance(value, Decimal):
            return orjson.Fragment(str(value).encode())
        return value
    t = schema.type
    if t == "struct":
        return {f.name: to_json(f.schema, value.get(f.name)) for f in schema.fields}
    if t == "bytes":
        if schema.name == DECIMAL and isinstance(value, Decimal):
            scale = int((schema.parameters or {}).get("scale", "0"))
            unscaled = int(value.scaleb(scale))
            n = max(1, (unscaled.bit_length() + 8) // 8)
            return base64.b64encode(unscaled.to_bytes(n, "big", signed=True)).decode()
        return base64.b64encode(value).decode()
    if t in ("float", "double"):
        return java_double(float(value))
    if t == "array":
        return [to_json(schema.items, v) for v in value]
    if t == "map":
        if schema.keys.type == "string":
            return {k: to_json(schema.values, v) for k, v in value.items()}
        return [[to_json(schema.keys, k), to_json(schema.values, v)] for k, v in value.items()]
    return value


class _Json:
    def __init__(self, schemas: bool) -> None:
        self.schemas = schemas

    def encode(self, schema: Schema | None, value: Any) -> bytes | None:
        if schema is None and value is None:
            return None
        payload = to_json(schema, value)
        if self.schemas:
            return orjson.dumps(
                {"schema": schema.to_json() if schema is not None else None, "payload": payload}
            )
        return orjson.dumps(payload)


class Fallback:
    def __init__(self, config) -> None:
        get = config.props.get
        self.fast_path = all((get(f"{p}.converter") or JSON) == JSON for p in ("key", "value")) and (
            get("header.converter") or JSON
        ) in (JSON, "org.apache.kafka.connect.storage.SimpleHeaderConverter")
        self.key = _Json((get("key.converter.schemas.enable") or "true").lower() == "true")
        self.value = _Json((get("value.converter.schemas.enable") or "true").lower() == "true")
        self.header = _Json((get("header.converter.schemas.enable") or "true").lower() == "true")

    def to_record(self, cr: ConnectRecord) -> Record:
        headers = [(n, self.header.encode(s, v) or b"null") for n, s, v in cr.headers]
        return Record(
            cr.topic,
            self.key.encode(cr.key_schema, cr.key),
            self.value.encode(cr.value_schema, cr.value),
            headers,
            partition=cr.partition,
        )


def build(config) -> Fallback:
    return Fallback(config)
