"""PostgreSQL connector settings: connection and TLS, slot and publication, LSN flushing, type modes."""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from emulator.settings.common import Patterns, Settings, common_groups
from emulator.settings.fields import blank_is_default, build, int_or, prop, stripped
from emulator.settings.post_processors import ReselectColumns, post_processors
from emulator.settings.relational import Relational


@dataclass(frozen=True, slots=True)
class ReplicaIdentity:
    """One ``replica.identity.autoset.values`` entry: tables matching ``pattern`` (``<schema>.<table>``,
    case-insensitive, whole name) get ``REPLICA IDENTITY <identity>`` (``DEFAULT``, ``FULL``, ``NOTHING``
    or ``INDEX``, then ``index`` is the index name as written)."""

    pattern: re.Pattern[str]
    identity: str
    index: str | None = None


def _replica_identities(config: Any, name: str) -> tuple[ReplicaIdentity, ...]:
    """Entries ``<table regex>:<DEFAULT|FULL|NOTHING|INDEX name>``, comma separated (checked by the table)."""
    out = []
    for entry in (config.get(name) or "").split(","):
        entry = entry.strip()
        if not entry:
            continue
        pattern, _, identity = entry.rpartition(":")
        ident = identity.strip()
        rx = re.compile(pattern.strip(), re.IGNORECASE)
        if ident.upper().startswith("INDEX "):
            out.append(ReplicaIdentity(rx, "INDEX", ident[6:].strip()))
        else:
            out.append(ReplicaIdentity(rx, ident.upper()))
    return tuple(out)


@dataclass(frozen=True, slots=True)
class Postgres:
    dbname: str = prop("database.dbname")
    sslmode: str = prop("database.sslmode")
    sslcert: str | None = prop("database.sslcert", parse=stripped)
    sslkey: str | None = prop("database.sslkey", parse=stripped)
    sslpassword: str | None = prop("database.sslpassword", secret=True)
    sslrootcert: str | None = prop("database.sslrootcert", parse=stripped)
    sslfactory: str | None = prop("database.sslfactory")
    tcp_keep_alive: bool = prop("database.tcpKeepAlive")
    # a JDBC pass-through (not in the table): libpq's connect_timeout, in whole seconds (at least 1)
    connect_timeout_ms: int = prop("database.connect.timeout.ms", parse=int_or(30000))
    connection_factory_class: str | None = prop("database.connection.factory.class")
    plugin_name: str = prop("plugin.name")
    slot_name: str = prop("slot.name")
    slot_drop_on_stop: bool = prop("slot.drop.on.stop")
    slot_failover: bool = prop("slot.failover")
    slot_stream_params: str | None = prop("slot.stream.params", parse=stripped)
    slot_max_retries: int = prop("slot.max.retries")
    slot_retry_delay_ms: int = prop("slot.retry.delay.ms")
    publication_name: str = prop("publication.name", parse=blank_is_default)
    publication_autocreate_mode: str = prop("publication.autocreate.mode")
    publish_via_partition_root: bool = prop("publish.via.partition.root")
    replica_identity_autoset: tuple[ReplicaIdentity, ...] = prop(
        "replica.identity.autoset.values", parse=_replica_identities
    )
    schema_include: Patterns = prop("schema.include.list")
    schema_exclude: Patterns = prop("schema.exclude.list")
    message_prefix_include: Patterns = prop("message.prefix.include.list")
    message_prefix_exclude: Patterns = prop("message.prefix.exclude.list")
    status_update_interval_ms: int = prop("status.update.interval.ms")
    flush_lsn_source: bool = prop("flush.lsn.source")
    lsn_flush_mode: str = prop("lsn.flush.mode")
    lsn_flush_timeout_ms: int = prop("lsn.flush.timeout.ms")
    lsn_flush_timeout_action: str = prop("lsn.flush.timeout.action")
    offset_mismatch_strategy: str = prop("offset.mismatch.strategy")
    xmin_fetch_interval_ms: int = prop("xmin.fetch.interval.ms")
    include_unknown_datatypes: bool = prop("include.unknown.datatypes")
    schema_refresh_mode: str = prop("schema.refresh.mode")
    hstore_handling_mode: str = prop("hstore.handling.mode")
    interval_handling_mode: str = prop("interval.handling.mode")
    money_fraction_digits: int = prop("money.fraction.digits")
    snapshot_isolation_mode: str = prop("snapshot.isolation.mode")
    # Debezium's ReselectColumnsPostProcessor (emulator/postprocessors/reselect.py applies it)
    post_processors: tuple[ReselectColumns, ...] = prop("post.processors", parse=post_processors)


@dataclass(frozen=True, slots=True)
class PostgresSettings(Settings):
    relational: Relational
    postgres: Postgres


def postgres_settings(config: Any) -> PostgresSettings:
    return PostgresSettings(
        **common_groups(config), relational=build(Relational, config), postgres=build(Postgres, config)
    )
