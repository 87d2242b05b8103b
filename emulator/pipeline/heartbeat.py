"""Heartbeat records on `__debezium-heartbeat.<prefix>` (Debezium's HeartbeatImpl), for every connector."""

from __future__ import annotations

import time

from emulator.connect.json import Framed
from emulator.connect.schema import (
    REQ_STRING,
    Schema,
    struct,
)
from emulator.envelope import EnvelopeSettings
from emulator.records import Record, StructuredRecord


class Heartbeat:
    KEY_SCHEMA = struct("io.debezium.connector.common.ServerNameKey", [("serverName", REQ_STRING)], version=1)
    VALUE_SCHEMA = struct("io.debezium.connector.common.Heartbeat", [("ts_ms", Schema("int64"))], version=1)

    def __init__(
        self, settings: EnvelopeSettings, interval_ms: int, topic_prefix: str = "__debezium-heartbeat"
    ) -> None:
        self.interval_s = interval_ms / 1000.0
        self.topic = f"{topic_prefix}.{settings.prefix}"
        self.key_frame = Framed(settings.key_codec, self.KEY_SCHEMA)
        self.key_payload = {"serverName": settings.prefix}
        self.key = self.key_frame.encode(self.key_payload)
        self.value_frame = Framed(settings.value_codec, self.VALUE_SCHEMA)
        self.structured = settings.structured  # the data plane takes the parts
        self.next_due = time.monotonic() + self.interval_s if interval_ms > 0 else float("inf")

    def due(self, now: float) -> bool:
        return now >= self.next_due

    def record(self, now: float) -> Record:
        self.next_due = now + self.interval_s
        value = {"ts_ms": time.time_ns() // 1_000_000}
        if self.structured:
            return StructuredRecord(
                self.topic,
                self.KEY_SCHEMA,
                self.key_payload,
                self.VALUE_SCHEMA,
                value,
                None,
                (self.key_frame, self.value_frame),
            )
        return Record(self.topic, self.key, self.value_frame.encode(value))
