"""Typed settings: frozen dataclasses built once from the validated Config and the PROPERTIES table.

``settings_for(config)`` returns the connector's settings (:class:`PostgresSettings`,
:class:`BinlogSettings` for MySQL and MariaDB, :class:`MongoSettings`), whose groups (``common``,
``topics``, ``snapshot``, ``signals``, ``notifications``, ``incremental``, ``heartbeat``, ``tx``,
``errors``, ``converters``, ``offsets``, ``tuning`` and the connector's own) name every property they read.
Defaults come from the table only (Debezium 3.6.3's values); code reads ``settings.snapshot.mode``, never
``config.get("snapshot.mode")``.  docs/ARCHITECTURE.md ("Settings") says where to add a property.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from emulator.settings.common import (
    Common,
    ConfigurationBased,
    Converters,
    Errors,
    Heartbeat,
    Incremental,
    Notifications,
    Offsets,
    Settings,
    Signals,
    Snapshot,
    Topics,
    Tuning,
    TxMetadata,
)
from emulator.settings.postgres import Postgres, PostgresSettings, ReplicaIdentity
from emulator.settings.relational import ColumnMapper, Relational

if TYPE_CHECKING:
    from emulator.settings.binlog import Binlog, BinlogSettings, SchemaHistory
    from emulator.settings.mongodb import MongoDb, MongoSettings

# the other connectors' settings modules, imported when one of their names is first read (a PostgreSQL start
# never builds their dataclasses)
_LAZY = {
    "Binlog": "binlog",
    "BinlogSettings": "binlog",
    "SchemaHistory": "binlog",
    "MongoDb": "mongodb",
    "MongoSettings": "mongodb",
}


def __getattr__(name: str) -> Any:
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    import importlib

    value = getattr(importlib.import_module(f"emulator.settings.{module}"), name)
    globals()[name] = value
    return value


__all__ = [
    "Binlog",
    "BinlogSettings",
    "ColumnMapper",
    "Common",
    "ConfigurationBased",
    "Converters",
    "Errors",
    "Heartbeat",
    "Incremental",
    "MongoDb",
    "MongoSettings",
    "Notifications",
    "Offsets",
    "Postgres",
    "PostgresSettings",
    "Relational",
    "ReplicaIdentity",
    "SchemaHistory",
    "Settings",
    "Signals",
    "Snapshot",
    "Topics",
    "Tuning",
    "TxMetadata",
    "settings_for",
]


def settings_for(config: Any) -> Settings:
    """The typed settings of a validated :class:`~emulator.config.Config`, built on the first call and kept on
    that Config, so every reader of one configuration shares one object (pass them down all the same).

    Raises :class:`~emulator.config.ConfigError` for the few values only a typed reading can reject
    (an unknown hash algorithm in ``column.mask.hash.*``, a ``cursor.pipeline`` that is not a JSON array).
    """
    from emulator.settings.postgres import postgres_settings

    cached = config.__dict__.get("_settings")
    if cached is not None:
        return cached
    kind = config.connector
    settings: Settings | None = None
    if kind == "postgres":
        settings = postgres_settings(config)
    elif kind in ("mysql", "mariadb"):
        from emulator.settings.binlog import binlog_settings

        settings = binlog_settings(config)
    elif kind == "mongodb":
        from emulator.settings.mongodb import mongodb_settings

        settings = mongodb_settings(config)
    if settings is not None:
        config.__dict__["_settings"] = settings
        return settings
    from emulator.settings.errors import ConfigError

    raise ConfigError(
        f"connector.class: unknown connector class {config.connector_class!r}", "connector.class"
    )
