"""Settings every connector shares, as frozen dataclasses read once from the validated Config.

Each field names its property (:func:`~emulator.settings.fields.prop`); its type and its default are the
property's row in the PROPERTIES table (Debezium 3.6.3's default), never a literal here.  Groups follow
Debezium's own: topics, snapshot, signals, notifications, incremental snapshots, heartbeats, transaction
metadata, errors, converters, offsets (worker), and the tuning properties that cannot change a record.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Any

from emulator.settings.fields import int_or, prop, stripped
from emulator.settings.spec import INT
from emulator.settings.values import parse_int

Patterns = tuple[re.Pattern[str], ...]


def _skipped_operations(config: Any, name: str) -> frozenset[str]:
    """``skipped.operations``: the op codes dropped from the stream; ``none`` alone means none."""
    text = (config.get(name) or "").strip().lower()
    if text in ("", "none"):
        return frozenset()
    return frozenset(op.strip() for op in text.split(",") if op.strip())


_MULTIPLIER = "snapshot.max.threads.multiplier."


def _table_multipliers(config: Any, _name: str) -> Mapping[str, int]:
    """``snapshot.max.threads.multiplier.<table id>``: a table's own multiplier (validated integers >= 1)."""
    return MappingProxyType(
        {
            key[len(_MULTIPLIER) :]: parse_int(key, value, INT)
            for key, value in config.props.items()
            if key.startswith(_MULTIPLIER)
        }
    )


def _stripped(config: Any, name: str) -> str | None:
    return stripped(config, name)


@dataclass(frozen=True, slots=True)
class Topics:
    prefix: str = prop("topic.prefix")
    delimiter: str = prop("topic.delimiter")
    naming_strategy: str = prop("topic.naming.strategy")
    cache_size: int = prop("topic.cache.size")

    def topic(self, *names: str) -> str:
        """``<topic.prefix>.<name>...`` joined by ``topic.delimiter`` (data, transaction topics)."""
        return self.delimiter.join((self.prefix, *names))


@dataclass(frozen=True, slots=True)
class Heartbeat:
    interval_ms: int = prop("heartbeat.interval.ms")
    action_query: str | None = prop("heartbeat.action.query", parse=_stripped)  # relational connectors only
    topic_prefix: str = prop("topic.heartbeat.prefix")  # the topic is <topic.heartbeat.prefix>.<topic.prefix>

    @property
    def enabled(self) -> bool:
        return self.interval_ms > 0


@dataclass(frozen=True, slots=True)
class TxMetadata:
    enabled: bool = prop("provide.transaction.metadata")
    topic_suffix: str = prop("topic.transaction")  # the topic is <topic.prefix>.<topic.transaction>


@dataclass(frozen=True, slots=True)
class ConfigurationBased:
    """``snapshot.mode=configuration_based``: what to snapshot and whether to stream."""

    snapshot_data: bool = prop("snapshot.mode.configuration.based.snapshot.data")
    snapshot_schema: bool = prop("snapshot.mode.configuration.based.snapshot.schema")
    start_stream: bool = prop("snapshot.mode.configuration.based.start.stream")
    snapshot_on_schema_error: bool = prop("snapshot.mode.configuration.based.snapshot.on.schema.error")
    snapshot_on_data_error: bool = prop("snapshot.mode.configuration.based.snapshot.on.data.error")


@dataclass(frozen=True, slots=True)
class Snapshot:
    mode: str = prop("snapshot.mode")
    mode_custom_name: str | None = prop("snapshot.mode.custom.name")
    configuration_based: ConfigurationBased
    delay_ms: int = prop("snapshot.delay.ms")
    streaming_delay_ms: int = prop("streaming.delay.ms")
    fetch_size: int | None = prop("snapshot.fetch.size")
    max_threads: int = prop("snapshot.max.threads")
    max_threads_multiplier: int = prop("snapshot.max.threads.multiplier")
    table_multipliers: Mapping[str, int] = prop(
        "snapshot.max.threads.multiplier.<table>", parse=_table_multipliers
    )
    include_collection_list: Patterns = prop("snapshot.include.collection.list")


@dataclass(frozen=True, slots=True)
class Signals:
    data_collection: str | None = prop("signal.data.collection", parse=_stripped)
    poll_interval_ms: int = prop("signal.poll.interval.ms")
    enabled_channels: tuple[str, ...] = prop("signal.enabled.channels")
    file: str = prop("signal.file")
    kafka_topic: str | None = prop("signal.kafka.topic")
    kafka_group_id: str = prop("signal.kafka.groupId")
    kafka_bootstrap_servers: str | None = prop("signal.kafka.bootstrap.servers")
    kafka_poll_timeout_ms: int = prop("signal.kafka.poll.timeout.ms")
    kafka_offset_commit: bool = prop("signal.kafka.consumer.offset.commit.enabled")
    kafka_consumer_offset_commit: bool = prop("kafka.consumer.offset.commit.enabled")

    def channel(self, name: str) -> bool:
        """Whether ``signal.enabled.channels`` lists ``name`` (``source``, ``file``, ``kafka``...)."""
        return name in {c.lower() for c in self.enabled_channels}


@dataclass(frozen=True, slots=True)
class Notifications:
    enabled_channels: tuple[str, ...] = prop("notification.enabled.channels")
    sink_topic_name: str | None = prop("notification.sink.topic.name", parse=_stripped)


@dataclass(frozen=True, slots=True)
class Incremental:
    chunk_size: int = prop("incremental.snapshot.chunk.size")
    watermarking_strategy: str = prop("incremental.snapshot.watermarking.strategy")
    allow_schema_changes: bool = prop("incremental.snapshot.allow.schema.changes")
    read_only: bool | None = prop("read.only")  # relational connectors only


@dataclass(frozen=True, slots=True)
class Errors:
    tolerance: str = prop("errors.tolerance")
    retry_timeout_ms: int = prop("errors.retry.timeout")
    retry_delay_max_ms: int = prop("errors.retry.delay.max.ms")
    log_enable: bool = prop("errors.log.enable")
    log_include_messages: bool = prop("errors.log.include.messages")
    max_retries: int = prop("errors.max.retries")  # -1: forever, 0: no retry
    retriable_restart_wait_ms: int = prop("retriable.restart.connector.wait.ms")
    processing_failure_mode: str = prop("event.processing.failure.handling.mode")
    converting_failure_mode: str = prop("event.converting.failure.handling.mode")


@dataclass(frozen=True, slots=True)
class Converters:
    """The worker's converters (their own further options are checked by emulator.connect.converters)."""

    key: str = prop("key.converter")
    value: str = prop("value.converter")
    header: str = prop("header.converter")
    key_schemas_enable: bool = prop("key.converter.schemas.enable")
    value_schemas_enable: bool = prop("value.converter.schemas.enable")
    header_schemas_enable: bool = prop("header.converter.schemas.enable")
    key_decimal_format: str = prop("key.converter.decimal.format")
    value_decimal_format: str = prop("value.converter.decimal.format")
    key_replace_null_with_default: bool = prop("key.converter.replace.null.with.default")
    value_replace_null_with_default: bool = prop("value.converter.replace.null.with.default")
    key_schemas_cache_size: str = prop("key.converter.schemas.cache.size")
    value_schemas_cache_size: str = prop("value.converter.schemas.cache.size")


def _enabled(config: Any, name: str) -> bool:
    """``exactly.once.source.support`` (a worker property outside the table): ``enabled`` or not."""
    return (config.props.get(name) or "").strip().lower() == "enabled"


@dataclass(frozen=True, slots=True)
class Offsets:
    """Worker-level offset storage.  The last five are Kafka Connect worker properties outside the table
    (pass-through): their defaults are Connect's and the emulator's, written here once."""

    storage: str | None = prop("offset.storage", parse=_stripped)
    file_filename: str | None = prop("offset.storage.file.filename", parse=_stripped)
    flush_interval_ms: int = prop("offset.flush.interval.ms")
    flush_timeout_ms: int = prop("offset.flush.timeout.ms")
    storage_topic: str | None = prop("offset.storage.topic", parse=_stripped)
    storage_partitions: int = prop("offset.storage.partitions", parse=int_or(25))
    storage_replication_factor: int = prop("offset.storage.replication.factor", parse=int_or(-1))
    transaction_boundary_interval_ms: int = prop("transaction.boundary.interval.ms", parse=int_or(200))
    # exactly-once source support: records and offsets in one Kafka transaction (Connect's default: disabled)
    exactly_once: bool = prop("exactly.once.source.support", parse=_enabled)


@dataclass(frozen=True, slots=True)
class Tuning:
    """Accepted properties that cannot change a record (queue sizes, fetch sizes, metrics)."""

    tasks_max: int = prop("tasks.max")
    max_queue_size: int = prop("max.queue.size")
    max_batch_size: int = prop("max.batch.size")
    max_queue_size_in_bytes: int = prop("max.queue.size.in.bytes")
    poll_interval_ms: int = prop("poll.interval.ms")
    query_fetch_size: int = prop("query.fetch.size")
    custom_metric_tags: tuple[str, ...] = prop("custom.metric.tags")
    statistics_metrics_enabled: bool = prop("statistics.metrics.enabled")
    legacy_snapshot_max_threads: bool = prop("legacy.snapshot.max.threads")


@dataclass(frozen=True, slots=True)
class Common:
    """Connector identity and the record-shaping properties of every connector."""

    name: str | None = prop("name", parse=_stripped)
    connector_class: str = prop("connector.class")
    transforms: tuple[str, ...] = prop("transforms")
    predicates: tuple[str, ...] = prop("predicates")
    tombstones_on_delete: bool = prop("tombstones.on.delete")
    skipped_operations: frozenset[str] = prop("skipped.operations", parse=_skipped_operations)
    # whether skipped.operations is set at all: Debezium's PostgreSQL publication checks the key, not the value
    skipped_operations_set: bool = prop("skipped.operations", parse=lambda config, name: name in config.props)
    skip_messages_without_change: bool = prop("skip.messages.without.change")
    schema_name_adjustment_mode: str = prop("schema.name.adjustment.mode")
    field_name_adjustment_mode: str = prop("field.name.adjustment.mode")
    source_struct_version: str = prop("source.struct.version")
    guardrail_collections_max: int = prop("guardrail.collections.max")
    guardrail_collections_limit_action: str = prop("guardrail.collections.limit.action")


@dataclass(frozen=True, slots=True)
class Settings:
    """What every connector's settings hold; :func:`emulator.settings.settings_for` builds the subclass
    for the configured connector.  ``config`` is the validated Config, kept for the pass-through
    readers only (transform, predicate and converter options, producer/consumer client properties)."""

    connector: str  # postgres, mysql, mariadb, mongodb
    common: Common
    topics: Topics
    snapshot: Snapshot
    signals: Signals
    notifications: Notifications
    incremental: Incremental
    heartbeat: Heartbeat
    tx: TxMetadata
    errors: Errors
    converters: Converters
    offsets: Offsets
    tuning: Tuning
    config: Any = field(repr=False, compare=False)

    def prefixed(self, prefix: str) -> dict[str, str]:
        """The properties under ``prefix``, named without it: a transform's, predicate's or client's own
        options (``transforms.<alias>.*``), which their owners read and check (Connect's semantics)."""
        n = len(prefix)
        return {k[n:]: v for k, v in self.config.props.items() if k.startswith(prefix)}


def common_groups(config: Any) -> dict[str, Any]:
    """The groups every connector has, read from ``config`` (keyword arguments for a Settings class)."""
    from emulator.settings.fields import build

    snapshot = build(Snapshot, config, configuration_based=build(ConfigurationBased, config))
    return {
        "connector": config.connector,
        "common": build(Common, config),
        "topics": build(Topics, config),
        "snapshot": snapshot,
        "signals": build(Signals, config),
        "notifications": build(Notifications, config),
        "incremental": build(Incremental, config),
        "heartbeat": build(Heartbeat, config),
        "tx": build(TxMetadata, config),
        "errors": build(Errors, config),
        "converters": build(Converters, config),
        "offsets": build(Offsets, config),
        "tuning": build(Tuning, config),
        "config": config,
    }
