"""Debezium's outbox `EventRouter` (io.debezium.transforms.outbox.EventRouter), tracing off.

Deletes and tombstones of the outbox table are dropped, updates are skipped (warn / error) or fail the
task (fatal); each insert becomes one record on `route.topic.replacement` (after `route.topic.regex`) of
the `route.by.field` value, keyed by `table.field.event.key`, with the `id` header and the additional
fields placed in headers, the envelope or the partition.
"""

from __future__ import annotations

import logging

from emulator.connect.record import ConnectRecord
from emulator.connect.schema import Field, Schema
from emulator.connect.transforms.base import (
    Options,
    Transform,
    TransformError,
    fget,
    field_of,
    is_envelope,
    java_regex,
    java_replacement,
    register,
    replace_first,
)

log = logging.getLogger("emulator.transforms")

PLACEMENTS = ("header", "envelope", "partition")


@register("io.debezium.transforms.outbox.EventRouter")
class EventRouter(Transform):
    def __init__(self, opts: Options) -> None:
        super().__init__(opts)
        self.invalid_op = opts.enum("table.op.invalid.behavior", ("warn", "error", "fatal"), "warn")
        self.f_id = opts.str("table.field.event.id", "id")
        self.f_key = opts.str("table.field.event.key", "aggregateid")
        opts.str("table.field.event.type", "type")
        self.f_ts = opts.str("table.field.event.timestamp")
        self.f_payload = opts.str("table.field.event.payload", "payload")
        self.f_version = opts.str("table.field.event.schema.version")
        self.route_by = opts.str("route.by.field", "aggregatetype")
        regex = opts.str("route.topic.regex", "(?<routedByValue>.*)")
        try:
            self.route_regex = java_regex(regex)
        except Exception as e:  # noqa: BLE001
            raise opts.fail("route.topic.regex", f"not a valid regular expression: {e}") from None
        self.route_replacement = java_replacement(
            opts.str("route.topic.replacement", "outbox.event.${routedByValue}")
        )
        self.tombstone_on_empty = opts.bool("route.tombstone.on.empty.payload", False)
        if opts.bool("table.expand.json.payload", False):
            raise opts.fail(
                "table.expand.json.payload",
                "true is not supported by this emulator "
                "(the JSON payload is passed on as the column's string)",
            )
        opts.enum("table.json.payload.null.behavior", ("ignore", "optional_bytes"), "ignore")
        self.missing = opts.enum("table.field.additional.missing", ("error", "ignore"), "error")
        self.additional: list[tuple[str, str, str]] = []
        placement = opts.str("table.fields.additional.placement")
        if placement is not None:
            for item in placement.split(","):
                parts = item.split(":")
                if len(parts) < 2:
                    raise opts.fail(
                        "table.fields.additional.placement",
                        f"'{item}' is not field:placement or field:placement:alias",
                    )
                name = parts[0].strip()
                where = parts[1].strip().lower()
                if where not in PLACEMENTS:
                    raise opts.fail(
                        "table.fields.additional.placement",
                        f"unknown placement '{parts[1].strip()}'; allowed: {', '.join(PLACEMENTS)}",
                    )
                self.additional.append((name, where, parts[2].strip() if len(parts) == 3 else name))
        for k in opts.props:
            if k.startswith("tracing."):
                log.info(
                    "%s%s: tracing is off in this emulator (as in Debezium without OpenTelemetry)",
                    opts.prefix,
                    k,
                )
        self.only_headers = not any(a[1] == "envelope" for a in self.additional)
        self.payload_schemas: dict[bytes, Schema] = {}
        self.versioned: dict[int, Schema] = {}

    def apply(self, r: ConnectRecord) -> ConnectRecord | None:
        if r.value is None:
            return None
        if not is_envelope(r):
            return r
        envelope = r.value
        op = envelope.get("op")
        if op == "d":
            return None
        if op == "u":
            if self.invalid_op == "fatal":
                raise TransformError(f"Unexpected update message received {r.key}, fail.")
            (log.error if self.invalid_op == "error" else log.warning)(
                "Unexpected update message received %s and ignored", r.key
            )
            return None
        after_field = field_of(r.value_schema, "after")
        if after_field is None:
            raise TransformError("Unknown field: after")
        event = envelope.get("after")
        if not isinstance(event, dict):
            raise TransformError("Only Struct objects supported for [Read Outbox Event], found: null")
        event_schema = after_field.schema
        payload_field = field_of(event_schema, self.f_payload)
        if payload_field is None:
            raise TransformError(f"Unable to find payload field {self.f_payload} in event")
        payload_schema = payload_field.schema
        timestamp = self._timestamp(envelope, event, event_schema)
        id_field = field_of(event_schema, self.f_id)
        event_id = fget(id_field, event) if id_field is not None else None
        payload = fget(payload_field, event)
        if id_field is None:
            raise TransformError(f"Unable to find event-id field {self.f_id} in event")
        headers = [*r.headers, ("id", id_field.schema, event_id)]
        routed = self._get_string(event_schema, event, self.route_by)
        value_schema = None
        if not self.only_headers:
            value_schema = self._value_schema(payload_schema, event_schema, routed, event)
        struct_value = None if self.only_headers else {f.name: None for f in value_schema.fields}
        if struct_value is not None:
            struct_value["payload"] = payload
        partition = None
        for name, where, alias in self.additional:
            f = field_of(event_schema, name)
            if self.missing == "ignore" and f is None:
                continue
            if f is None:
                raise TransformError(f"{name} is not a valid field name")
            v = fget(f, event)
            if where == "envelope":
                struct_value[alias] = v
            elif where == "header":
                headers.append((alias, f.schema, v))
            else:
                partition = v
        is_delete = payload is None or (isinstance(payload, str) and not payload.strip())
        if is_delete and self.tombstone_on_empty:
            new_schema, new_value = None, None
        elif self.only_headers:
            new_schema, new_value = payload_schema, payload
        else:
            new_schema, new_value = value_schema, struct_value
        key_schema, key = Schema("string"), None
        if self.f_key is not None:
            kf = field_of(event_schema, self.f_key)
            if kf is None:
                raise TransformError(f"{self.f_key} is not a valid field name")
            key_schema, key = kf.schema, fget(kf, event)
        if routed is None:
            raise TransformError(f"the outbox event has no topic: {self.route_by} is null")
        topic = replace_first(self.route_regex, self.route_replacement, routed)
        return ConnectRecord(
            routed if topic is None else topic,
            partition,
            key_schema,
            key,
            new_schema,
            new_value,
            headers,
            timestamp,
        )

    @staticmethod
    def _get_string(schema: Schema, value: dict, name: str) -> str | None:
        f = field_of(schema, name)
        if f is None:
            raise TransformError(f"{name} is not a valid field name")
        v = fget(f, value)
        if v is not None and not isinstance(v, str):
            raise TransformError(f"Field '{name}' is not of type STRING")
        return v

    def _timestamp(self, envelope: dict, event: dict, event_schema: Schema) -> int | None:
        if self.f_ts is None:
            return envelope.get("ts_ms")
        f = field_of(event_schema, self.f_ts)
        if f is None:
            raise TransformError(f"Unable to find timestamp field {self.f_ts} in event")
        ts = fget(f, event)
        if ts is None:
            return envelope.get("ts_ms")
        name = f.schema.name
        if name is None:
            raise TransformError(
                f"Unsupported field type {f.schema.type.upper()} (without logical schema name) "
                "for event timestamp"
            )
        if name in ("org.apache.kafka.connect.data.Timestamp", "io.debezium.time.Timestamp"):
            return ts
        if name == "io.debezium.time.MicroTimestamp":
            return ts // 1000
        if name == "io.debezium.time.NanoTimestamp":
            return ts // 1_000_000
        raise TransformError(f"Unsupported field type {name} for event timestamp")

    def _value_schema(
        self, payload_schema: Schema, event_schema: Schema, routed: str | None, event: dict
    ) -> Schema:
        if self.f_version is not None:
            vf = field_of(event_schema, self.f_version)
            version = fget(vf, event) if vf is not None else None
            hit = self.versioned.get(version)
            if hit is None:
                hit = self._build(payload_schema, event_schema, routed).with_(version=version)
                self.versioned[version] = hit
            return hit
        # Debezium caches by the payload schema alone: the name keeps the first routed topic seen
        key = payload_schema.json_bytes()
        hit = self.payload_schemas.get(key)
        if hit is None:
            hit = self._build(payload_schema, event_schema, routed)
            self.payload_schemas[key] = hit
        return hit

    def _build(self, payload_schema: Schema, event_schema: Schema, routed: str | None) -> Schema:
        original = event_schema.name
        if original is not None:
            dot = original.rfind(".")
            name = (
                (original[: dot + 1] + f"{routed}." + original[dot + 1 :])
                if dot != -1
                else f"{routed}.{original}"
            )
        else:
            name = str(routed)
        fields = [Field("payload", payload_schema)]
        for fname, where, alias in self.additional:
            if where == "envelope":
                f = field_of(event_schema, fname)
                if f is None:
                    if self.missing == "error":
                        raise TransformError(f"Unable to find field {fname} in event")
                    continue
                fields.append(Field(alias, f.schema))
        return Schema("struct", name=name, fields=fields)
