"""MySQL and MariaDB (binlog family) settings; ``flavor`` says which of the two connectors is configured
(``mysql`` or ``mariadb``), the way Debezium's binlog module is shared by both."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from emulator.settings.common import Patterns, Settings, common_groups
from emulator.settings.custom_converters import CustomConverter, custom_converters
from emulator.settings.fields import build, prop, stripped
from emulator.settings.post_processors import ReselectColumns, post_processors
from emulator.settings.relational import Relational


@dataclass(frozen=True, slots=True)
class SchemaHistory:
    storage: str = prop("schema.history.internal")
    file_filename: str | None = prop("schema.history.internal.file.filename", parse=stripped)
    kafka_topic: str | None = prop("schema.history.internal.kafka.topic")
    kafka_bootstrap_servers: str | None = prop("schema.history.internal.kafka.bootstrap.servers")
    kafka_recovery_poll_interval_ms: int = prop("schema.history.internal.kafka.recovery.poll.interval.ms")
    kafka_recovery_attempts: int = prop("schema.history.internal.kafka.recovery.attempts")
    kafka_query_timeout_ms: int = prop("schema.history.internal.kafka.query.timeout.ms")
    kafka_create_timeout_ms: int = prop("schema.history.internal.kafka.create.timeout.ms")
    skip_unparseable_ddl: bool = prop("schema.history.internal.skip.unparseable.ddl")
    store_only_captured_tables_ddl: bool = prop("schema.history.internal.store.only.captured.tables.ddl")
    store_only_captured_databases_ddl: bool = prop(
        "schema.history.internal.store.only.captured.databases.ddl"
    )
    memory_optimization: bool = prop("schema.history.internal.memory.optimization")


@dataclass(frozen=True, slots=True)
class Binlog:
    server_id: int = prop("database.server.id")
    server_id_offset: int = prop("database.server.id.offset")
    ssl_mode: str = prop("database.ssl.mode")
    jdbc_driver: str | None = prop("database.jdbc.driver")  # MySQL only
    protocol: str | None = prop("database.protocol")  # MySQL only
    database_include: Patterns = prop("database.include.list")
    database_exclude: Patterns = prop("database.exclude.list")
    connect_timeout_ms: int = prop("connect.timeout.ms")
    connect_keep_alive: bool = prop("connect.keep.alive")
    connect_keep_alive_interval_ms: int = prop("connect.keep.alive.interval.ms")
    use_nongraceful_disconnect: bool = prop("use.nongraceful.disconnect")
    min_row_count_to_stream_results: int = prop("min.row.count.to.stream.results")
    buffer_size: int = prop("binlog.buffer.size")
    net_read_timeout: int | None = prop("binlog.net.read.timeout")
    net_write_timeout: int | None = prop("binlog.net.write.timeout")
    include_query: bool = prop("include.query")
    include_schema_changes: bool = prop("include.schema.changes")
    bigint_unsigned_handling_mode: str = prop("bigint.unsigned.handling.mode")
    event_deserialization_failure_mode: str = prop("event.deserialization.failure.handling.mode")
    inconsistent_schema_mode: str = prop("inconsistent.schema.handling.mode")
    enable_time_adjuster: bool = prop("enable.time.adjuster")
    gtid_source_includes: Patterns = prop("gtid.source.includes")
    gtid_source_excludes: Patterns = prop("gtid.source.excludes")
    gtid_source_filter_dml_events: bool = prop("gtid.source.filter.dml.events")
    ddl_parser_type: str = prop("ddl.parser.type")
    # Debezium's shipped custom converters (emulator/connectors/mysql/custom_converters.py applies them)
    custom_converters: tuple[CustomConverter, ...] = prop("converters", parse=custom_converters)
    # Debezium's ReselectColumnsPostProcessor (emulator/postprocessors/reselect.py applies it; MySqlConnector)
    post_processors: tuple[ReselectColumns, ...] = prop("post.processors", parse=post_processors)


@dataclass(frozen=True, slots=True)
class BinlogSettings(Settings):
    flavor: str  # "mysql" or "mariadb"
    relational: Relational
    binlog: Binlog
    history: SchemaHistory

    @property
    def mariadb(self) -> bool:
        return self.flavor == "mariadb"


def binlog_settings(config: Any) -> BinlogSettings:
    return BinlogSettings(
        **common_groups(config),
        flavor=config.connector,
        relational=build(Relational, config),
        binlog=build(Binlog, config),
        history=build(SchemaHistory, config),
    )
