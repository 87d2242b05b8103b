"""Debezium's notifications (`notification.enabled.channels`): progress of the initial and incremental
snapshots, as records on `notification.sink.topic.name` (channel `sink`) and/or log lines (`log`).

The value's `additional_data` is a Java HashMap printed by JsonConverter, so its keys come out in HashMap
iteration order (bucket of String.hashCode, then insertion); `java_hashmap_order` reproduces it.
"""

from __future__ import annotations

import logging
import time
import uuid
from collections.abc import Callable, Iterable
from typing import Any

from emulator.connect.json import Framed
from emulator.connect.schema import MAP, REQ_INT64, REQ_STRING, Schema, struct
from emulator.javahash import hashmap_order, table_size
from emulator.records import Record

log = logging.getLogger("emulator.notifications")

INITIAL = "Initial Snapshot"
INCREMENTAL = "Incremental Snapshot"

KEY_SCHEMA = struct("io.debezium.connector.common.NotificationKey", [("id", REQ_STRING)], version=1)
VALUE_SCHEMA = struct(
    "io.debezium.connector.common.Notification",
    [
        ("id", REQ_STRING),
        ("type", REQ_STRING),
        ("aggregate_type", REQ_STRING),
        ("additional_data", Schema(MAP, optional=True, keys=REQ_STRING, values=REQ_STRING)),
        ("timestamp", REQ_INT64),
    ],
    version=1,
)


def java_hashmap_order(copied: list[str], added: Iterable[str] = ()) -> list[str]:
    """Iteration order of `m = new HashMap<>(mapOf(copied)); m.put(k)` for k in `added`: buckets by the
    spread String hash in the final table size, insertion order within a bucket (resizes keep it)."""
    keys = list(copied)
    cap = 16  # first put on an empty map allocates the default table
    if keys:  # the copy constructor sizes the table for the copied map (tableSizeFor(n / 0.75 + 1))
        cap = 1
        while cap < int(len(keys) / 0.75 + 1.0):
            cap <<= 1
    for k in added:
        if k not in keys:
            keys.append(k)
    return hashmap_order(keys, table_size(len(keys), cap))


class Notifier:
    """Builds and delivers notifications; a no-op unless a channel is enabled."""

    def __init__(self, notifications, settings, engine) -> None:
        """`notifications`: the typed settings group (emulator.settings.Notifications: enabled channels,
        sink topic); `settings`: the connector's EnvelopeSettings (converters, connector name)."""
        # names other than sink and log are refused at start (emulator/settings/checks.py)
        channels = {c.strip().lower() for c in notifications.enabled_channels if c.strip()}
        self.to_log = "log" in channels
        self.topic = notifications.sink_topic_name or None
        if "sink" in channels and self.topic is None:
            raise ValueError(
                "notification.sink.topic.name: must be provided when the 'sink' notification channel is enabled"
            )
        self.to_sink = "sink" in channels
        self.enabled = self.to_sink or self.to_log
        self.connector_name = settings.prefix
        self.engine = engine
        if self.to_sink:
            self.key_frame = Framed(settings.key_codec, KEY_SCHEMA)
            self.value_frame = Framed(settings.value_codec, VALUE_SCHEMA)

    def notify(self, aggregate: str, kind: str, data: dict[str, str], nid: str | None = None) -> None:
        if not self.enabled:
            return
        nid = nid or str(uuid.uuid4())
        order = java_hashmap_order(list(data), ["connector_name"])
        full = {**data, "connector_name": self.connector_name}
        additional = {k: full[k] for k in order}
        ts = time.time_ns() // 1_000_000
        if self.to_log:
            log.info(
                "[Notification Service] Notification{id='%s', aggregateType='%s', type='%s', "
                "additionalData=%s, timestamp=%d}",
                nid,
                aggregate,
                kind,
                "{" + ", ".join(f"{k}={v}" for k, v in additional.items()) + "}",
                ts,
            )
        if self.to_sink:
            value = {
                "id": nid,
                "type": kind,
                "aggregate_type": aggregate,
                "additional_data": additional,
                "timestamp": ts,
            }
            self.engine.emit(
                Record(self.topic, self.key_frame.encode({"id": nid}), self.value_frame.encode(value))
            )

    # -- the initial snapshot (RelationalSnapshotChangeEventSource) ------------------------------------------
    def initial(self, kind: str, **data: Any) -> None:
        self.notify(INITIAL, kind, {k: str(v) for k, v in data.items()})

    def initial_table_started(self, table: str, tables: list[str]) -> None:
        self.initial("IN_PROGRESS", current_collection_in_progress=table, data_collections=",".join(tables))

    def initial_table_done(self, table: str, rows: int, tables: list[str]) -> None:
        self.initial(
            "TABLE_SCAN_COMPLETED",
            scanned_collection=table,
            data_collections=",".join(tables),
            total_rows_scanned=rows,
            status="SUCCEEDED",
        )

    def snapshot_callbacks(self, data_tables: list[str], captured: list[str], id_of: Callable[[Any], str]):
        """run_snapshot's `started` / `finished` callbacks, or (None, None) when notifications are off.
        IN_PROGRESS lists the tables whose data is read (a HashMap's key set in Debezium), TABLE_SCAN_COMPLETED
        every captured table, sorted (signal table included)."""
        if not self.enabled:
            return None, None
        in_progress, scanned = java_hashmap_order([], data_tables), sorted(captured)
        return (
            lambda t: self.initial_table_started(id_of(t), in_progress),
            lambda t, rows: self.initial_table_done(id_of(t), rows, scanned),
        )
