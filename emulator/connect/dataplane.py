"""Kafka Connect's data plane between the connector and the output: transforms, then converters.

What Connect's `WorkerSourceTask` does with each `SourceRecord`: the transformation chain (in `transforms=`
order, each stage behind its predicate), then the header converter on each header and the key and value
converters. Built once per connector from the configuration; `Engine.emit` runs every record through it,
so every output and every config form gets the same result.

When no transform is configured and the converters are exactly what the connectors already write (see
`converters.build(...).fast_path`), there is no stage at all and records go straight to the output.
Otherwise the connector runs with its internal form (`internal_config`: JsonConverter with schemas, BASE64
decimals, nulls kept): table records, transaction metadata and heartbeats arrive as `StructuredRecord`s
(precomputed schemas and the payload dicts, turned into Connect values by `from_structured` without any
JSON), as do MySQL/MariaDB schema changes and MongoDB events; anything else as JsonConverter bytes that
`from_json_record` parses.

Failures on a record (a transform or converter raising) follow `errors.tolerance`: `none` stops the task
with one line naming the transform; `all` skips the record and logs it.
"""

from __future__ import annotations

import dataclasses
import logging
from collections.abc import Callable

from emulator.config import ConfigError
from emulator.connect import converters, shared_headers
from emulator.connect.converters.errors import STOPS_ON_NOT_EMULATED, NotEmulated
from emulator.connect.record import ConnectRecord, from_json_record, from_structured, from_structured_wire
from emulator.connect.transforms import Stage, TransformConfigError, build_chain
from emulator.records import Record, StructuredRecord
from emulator.settings import settings_for

log = logging.getLogger("emulator.dataplane")

JSON_CONVERTER = "org.apache.kafka.connect.json.JsonConverter"

# what the connectors are told when a stage runs: JsonConverter with schemas everywhere, decimals as base64
_INTERNAL = {
    "key.converter": JSON_CONVERTER,
    "value.converter": JSON_CONVERTER,
    "header.converter": JSON_CONVERTER,
    "key.converter.schemas.enable": "true",
    "value.converter.schemas.enable": "true",
    "header.converter.schemas.enable": "true",
    "key.converter.decimal.format": "base64",
    "value.converter.decimal.format": "base64",
    "value.converter.replace.null.with.default": "false",
}


# what `build` found for a configuration that needs no data plane, when handed on (`Runner(plane=NONE)`)
NONE = object()


class DataPlaneError(Exception):
    """A record the task cannot deliver (errors.tolerance=none): one line for the user."""


class DataPlane:
    def __init__(
        self, stages: list[Stage], converters, tolerate: bool, log_errors: bool, log_messages: bool
    ) -> None:
        self.stages = stages
        self.converters = converters
        self.to_record: Callable[[ConnectRecord], Record] = converters.to_record
        # wire mode: every transform leaves field values alone and key and value go through JsonConverters
        # with BASE64 decimals (whose text for each value is its JSON-ready form) or AvroConverters (whose
        # writers read that form): table records are never decoded into Connect values
        wire = converters.wire_twin() if all(s.transform.wire_safe for s in stages) else None
        self.wire_to_record: Callable[[ConnectRecord], Record] | None = wire.to_record if wire else None
        self.tolerate = tolerate
        self.log_errors = log_errors
        self.log_messages = log_messages
        self.skipped = 0
        self.schema_topic: str | None = None  # set by `build` for the MySQL/MariaDB connectors
        self._leak: tuple[str, list] | None = None  # headers a delete leaves its tombstone (shared_headers)
        # the commonest chains in one step; imported here, as a start without a data plane needs none of it
        # (it imports the AvroConverter's writers)
        from emulator.connect import fused

        fused.install(self, wire)

    def apply(self, record: Record) -> Record | None:
        to_record = self.to_record
        if record.__class__ is StructuredRecord:
            if self.wire_to_record is not None:
                cr = from_structured_wire(record)
                to_record = self.wire_to_record
            else:
                cr = from_structured(record)
        else:
            cr = from_json_record(record)
        # MySQL/MariaDB schema changes: Debezium's SourceRecord has partition 0 (InsertField partition.field)
        if cr.topic == self.schema_topic:
            cr.partition = 0
        leak, self._leak = self._leak, None
        if leak is not None and cr.value is None and leak[0] == cr.topic:
            cr = dataclasses.replace(cr, headers=[*cr.headers, *leak[1]])  # see shared_headers
        shared, added = True, []
        for stage in self.stages:
            before = cr
            try:
                cr = stage.apply(cr)
            except Exception as e:  # noqa: BLE001 - Connect's RetryWithToleranceOperator catches everything
                # the stage's own input names the topic (a router before it changed it), as Connect's error reporter
                return self._failed(f"transforms.{stage.alias} ({stage.class_name})", e, record, before.topic)
            if shared and cr is not before:
                shared = shared_headers.track(stage.transform, before, cr, added)
            if cr is None:
                break
        if added:
            self._leak = (record.topic, added)
        if cr is None:
            return None
        if cr.partition == 0 and record.topic == self.schema_topic:
            # still the connector's own partition, not a transform's: the output places the record
            cr = dataclasses.replace(cr, partition=None)
        try:
            return to_record(cr)
        except Exception as e:  # noqa: BLE001
            return self._failed("converter", e, record, cr.topic)

    def _failed(self, where: str, exc: Exception, record: Record, topic: str) -> None:
        msg = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
        if isinstance(exc, NotEmulated):  # Debezium writes this record: skipping it would lose it
            raise DataPlaneError(
                f"{where} failed on a record of topic {topic}: {msg} ({STOPS_ON_NOT_EMULATED})"
            ) from exc
        if not self.tolerate:
            raise DataPlaneError(
                f"{where} failed on a record of topic {topic}: {msg} (errors.tolerance=none)"
            ) from exc
        self.skipped += 1
        if self.log_errors:
            detail = f" {record!r}" if self.log_messages else ""
            log.error(
                "%s failed on a record of topic %s, skipped (errors.tolerance=all): %s%s",
                where,
                topic,
                msg,
                detail,
            )
        else:
            log.debug("%s failed on a record of topic %s, skipped: %s", where, topic, msg)
        return None


def build(config) -> DataPlane | None:
    """The data plane for this configuration, or None when records can go to the output untouched.
    Bad transform options raise `ConfigError` naming the property (exit 2)."""
    settings = settings_for(config)
    try:
        stages = build_chain(settings)
    except TransformConfigError as e:
        raise ConfigError(str(e), e.name) from None
    conv = converters.build(config)
    if not stages and conv.fast_path:
        return None
    errors = settings.errors
    plane = DataPlane(stages, conv, errors.tolerance == "all", errors.log_enable, errors.log_include_messages)
    if config.connector in ("mysql", "mariadb"):  # schema-change records carry partition 0 into the chain
        plane.schema_topic = settings.topics.prefix or None
    return plane


def validate_transforms(config) -> None:
    """The transform / predicate options alone (the REST worker's validation): `ConfigError` naming the
    property."""
    try:
        build_chain(settings_for(config))
    except TransformConfigError as e:
        raise ConfigError(str(e), e.name) from None


def internal_config(config):
    """The configuration the connector runs with when a data plane is active: its own converter settings
    replaced by the internal form the data plane parses."""
    props = dict(config.props)
    for k in [k for k in props if k.startswith(("key.converter.", "value.converter.", "header.converter."))]:
        del props[k]
    props.update(_INTERNAL)
    return dataclasses.replace(config, props=props)
