"""Wiring: configuration -> connector + engine + output + offsets, and the run loop."""

from __future__ import annotations

import logging
from pathlib import Path
from typing import Any

from emulator.engine import Engine
from emulator.offsets import FileOffsetStore, MemoryOffsetStore, OffsetStore
from emulator.outputs.base import Output

log = logging.getLogger("emulator")

POSTGRES = "io.debezium.connector.postgresql.PostgresConnector"


def connector_class(config) -> type:
    cls = config.get("connector.class")
    if cls == POSTGRES:
        from emulator.connectors.postgres.connector import PostgresConnector

        return PostgresConnector
    raise ValueError(f"connector.class {cls!r} is not supported yet")


def partition_of(config) -> dict[str, Any]:
    return {"server": config.get("topic.prefix")}


def offset_store(config) -> OffsetStore:
    path = config.get("offset.storage.file.filename")
    if path:
        return FileOffsetStore(Path(path), partition_of(config))
    log.warning("offset.storage.file.filename is not set: offsets are kept in memory only, "
                "a restart begins anew")
    return MemoryOffsetStore()


class Runner:
    """One connector instance: `run()` blocks until `stop()` (or the end of an initial_only snapshot)."""

    def __init__(self, config, output: Output, offsets: OffsetStore | None = None) -> None:
        self.config = config
        flush_ms = int(config.get("offset.flush.interval.ms") or 1000)
        self.engine = Engine(output, offsets or offset_store(config), flush_ms)
        self.connector = connector_class(config)(config, self.engine)

    def run(self) -> None:
        try:
            self.connector.run()
        except KeyboardInterrupt:
            pass
        finally:
            try:
                self.engine.close()
            finally:
                self.connector.close()

    def stop(self) -> None:
        self.engine.stop()
