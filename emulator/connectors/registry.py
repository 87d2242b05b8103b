"""connector.class -> the adapter that runs it, and the shape of its offsets' partition.

Adapters are imported only when asked for (each pulls in its database driver). Nothing a connector
imports may import this module back: the runner and the entry points look connectors up here, the
connectors know only `emulator.connectors.base`.
"""

from __future__ import annotations

import importlib
from dataclasses import dataclass
from typing import Any

POSTGRES = "io.debezium.connector.postgresql.PostgresConnector"
MYSQL = "io.debezium.connector.mysql.MySqlConnector"
MARIADB = "io.debezium.connector.mariadb.MariaDbConnector"
MONGODB = "io.debezium.connector.mongodb.MongoDbConnector"


@dataclass(frozen=True)
class Entry:
    module: str
    cls: str
    partition_key: str  # Debezium's source partition: {"server": prefix}, MongoDB {"server_id": prefix}


CONNECTORS: dict[str, Entry] = {
    POSTGRES: Entry("emulator.connectors.postgres.connector", "PostgresConnector", "server"),
    MYSQL: Entry("emulator.connectors.mysql.connector", "MySqlConnector", "server"),
    MARIADB: Entry("emulator.connectors.mysql.connector", "MariaDbConnector", "server"),
    MONGODB: Entry("emulator.connectors.mongodb.connector", "MongoDbConnector", "server_id"),
}


def connector_class(name: str | None) -> type:
    """The adapter class for a `connector.class` value (ValueError naming it when unsupported)."""
    entry = CONNECTORS.get(name or "")
    if entry is None:
        raise ValueError(f"connector.class {name!r} is not supported yet")
    return getattr(importlib.import_module(entry.module), entry.cls)


def partition_of(name: str | None, prefix: str | None) -> dict[str, Any]:
    """The source partition of connector class `name` with `topic.prefix` `prefix`."""
    entry = CONNECTORS.get(name or "")
    return {entry.partition_key if entry is not None else "server": prefix}


def partition_for(settings) -> dict[str, Any]:
    """`partition_of` for typed settings (`emulator.settings.settings_for`)."""
    return partition_of(settings.common.connector_class, settings.topics.prefix)


def retriable(exc: BaseException) -> bool:
    """Whether any connector would restart after `exc` (for callers that have no adapter at hand, such as
    the API's start-up wait); with an adapter, ask its own `is_retriable`."""
    if isinstance(exc, ConnectionError):
        return True
    seen = set()
    for entry in CONNECTORS.values():
        if entry.module in seen:
            continue
        seen.add(entry.module)
        try:
            cls = getattr(importlib.import_module(entry.module), entry.cls)
        except ImportError:  # a driver that is not installed raised nothing we could catch
            continue
        if cls.is_retriable(exc):
            return True
    return False
