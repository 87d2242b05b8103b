"""MongoDB connector settings: connection, filters (regex or literal), capture mode and scope, cursor."""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass
from types import MappingProxyType
from typing import Any

from emulator.settings.common import Patterns, Settings, common_groups
from emulator.settings.fields import build, prop, stripped

_FILTER_OVERRIDE = "snapshot.collection.filter.overrides."


def _names(config: Any, name: str) -> tuple[str, ...]:
    return tuple(x.strip() for x in (config.get(name) or "").split(",") if x.strip())


def _filter_queries(config: Any, _name: str) -> Mapping[str, str]:
    """``snapshot.collection.filter.overrides.<db>.<collection>``: the filter per collection."""
    return MappingProxyType(
        {
            key[len(_FILTER_OVERRIDE) :]: value.strip()
            for key, value in config.props.items()
            if key.startswith(_FILTER_OVERRIDE) and value.strip()
        }
    )


def _pipeline(config: Any, name: str) -> tuple[Any, ...]:
    """``cursor.pipeline``: a JSON array of aggregation stages (empty when unset)."""
    text = (config.get(name) or "").strip()
    if not text:
        return ()
    try:
        stages = json.loads(text)
    except ValueError as exc:
        from emulator.settings.errors import ConfigError

        raise ConfigError(f"{name}: not a JSON array of pipeline stages: {exc}", name) from None
    if not isinstance(stages, list):
        from emulator.settings.errors import ConfigError

        raise ConfigError(f"{name}: not a JSON array of pipeline stages", name)
    return tuple(stages)


@dataclass(frozen=True, slots=True)
class MongoDb:
    connection_string: str = prop("mongodb.connection.string", secret=True)
    authentication_class: str = prop("mongodb.authentication.class")
    user: str | None = prop("mongodb.user", parse=stripped)
    password: str | None = prop("mongodb.password", secret=True)
    authsource: str = prop("mongodb.authsource")
    ssl_enabled: bool = prop("mongodb.ssl.enabled")
    ssl_invalid_hostname_allowed: bool = prop("mongodb.ssl.invalid.hostname.allowed")
    poll_interval_ms: int = prop("mongodb.poll.interval.ms")
    connect_timeout_ms: int = prop("mongodb.connect.timeout.ms")
    heartbeat_frequency_ms: int = prop("mongodb.heartbeat.frequency.ms")
    socket_timeout_ms: int = prop("mongodb.socket.timeout.ms")
    server_selection_timeout_ms: int = prop("mongodb.server.selection.timeout.ms")
    allow_offset_invalidation: bool = prop("internal.mongodb.allow.offset.invalidation")
    connect_max_attempts: int = prop("connect.max.attempts")
    filters_match_mode: str = prop("filters.match.mode")
    database_include: Patterns = prop("database.include.list")
    database_exclude: Patterns = prop("database.exclude.list")
    collection_include: Patterns = prop("collection.include.list")
    collection_exclude: Patterns = prop("collection.exclude.list")
    field_exclude_list: str | None = prop("field.exclude.list", parse=stripped)
    field_renames: str | None = prop("field.renames", parse=stripped)
    capture_mode: str = prop("capture.mode")
    capture_mode_full_update_type: str = prop("capture.mode.full.update.type")
    capture_scope: str = prop("capture.scope")
    capture_target: str | None = prop("capture.target", parse=stripped)
    cursor_pipeline: tuple[Any, ...] = prop("cursor.pipeline", parse=_pipeline)
    cursor_pipeline_order: str = prop("cursor.pipeline.order")
    cursor_oversize_handling_mode: str = prop("cursor.oversize.handling.mode")
    cursor_oversize_skip_threshold: int = prop("cursor.oversize.skip.threshold")
    cursor_max_await_time_ms: int = prop("cursor.max.await.time.ms")
    snapshot_filter_collections: tuple[str, ...] = prop("snapshot.collection.filter.overrides", parse=_names)
    snapshot_filter_queries: Mapping[str, str] = prop(
        "snapshot.collection.filter.overrides.<collection>", parse=_filter_queries
    )


@dataclass(frozen=True, slots=True)
class MongoSettings(Settings):
    mongodb: MongoDb


def mongodb_settings(config: Any) -> MongoSettings:
    return MongoSettings(**common_groups(config), mongodb=build(MongoDb, config))
