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


def _entry(config) -> Entry:
    cls = config.get("connector.class")
    entry = CONNECTORS.get(cls)
    if entry is None:
        raise ValueError(f"connector.class {cls!r} is not supported yet")
    return entry


def connector_class(config) -> type:
    """The adapter class for `connector.class` (ValueError naming it when unsupported)."""
    entry = _entry(config)
    return getattr(importlib.import_module(entry.module), entry.cls)


def partition_of(config) -> dict[str, Any]:
    entry = CONNECTORS.get(config.get("connector.class"))
    return {entry.partition_key if entry is not None else "server": config.get("topic.prefix")}


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
