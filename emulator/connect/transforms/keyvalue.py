"""The `$Key` / `$Value` split Kafka's field transforms share, and their schema cache."""

from __future__ import annotations

from typing import Any

from emulator.connect.record import ConnectRecord
from emulator.connect.schema import Schema
from emulator.connect.transforms.base import Transform, register

K = "org.apache.kafka.connect.transforms."
OPT_STRING = Schema("string", optional=True)
REQ_STRING = Schema("string")
TIMESTAMP = "org.apache.kafka.connect.data.Timestamp"
DATE = "org.apache.kafka.connect.data.Date"
TIME = "org.apache.kafka.connect.data.Time"


class KeyOrValue(Transform):
    """The `$Key` / `$Value` split: `self.key` says which half the transform works on."""

    key = False

    def schema_of(self, r: ConnectRecord) -> Schema | None:
        return r.key_schema if self.key else r.value_schema

    def value_of(self, r: ConnectRecord) -> Any:
        return r.key if self.key else r.value

    def new(self, r: ConnectRecord, schema: Schema | None, value: Any) -> ConnectRecord:
        if self.key:
            return ConnectRecord(
                r.topic, r.partition, schema, value, r.value_schema, r.value, r.headers, r.timestamp
            )
        return ConnectRecord(r.topic, r.partition, r.key_schema, r.key, schema, value, r.headers, r.timestamp)


class SchemaCache:
    """Connect's per-transform `LRUCache<Schema, Schema>`, keyed by the schema object."""

    def __init__(self) -> None:
        self.d: dict[int, tuple[Schema, Schema]] = {}

    def get(self, schema: Schema, make) -> Schema:
        hit = self.d.get(id(schema))
        if hit is None or hit[0] is not schema:
            if len(self.d) > 256:
                self.d.clear()
            hit = (schema, make(schema))
            self.d[id(schema)] = hit
        return hit[1]


def register_both(cls, base: str):
    """Register `$Key` and `$Value` subclasses of `cls` under `base$Key` / `base$Value`."""
    key = type(cls.__name__ + "Key", (cls,), {"key": True})
    value = type(cls.__name__ + "Value", (cls,), {"key": False})
    register(base + "$Key")(key)
    register(base + "$Value")(value)
    return cls
