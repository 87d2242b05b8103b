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


def retriable(exc: BaseException) -> bool:
    """Connection-level failures Kafka Connect would restart the task for (database restarted, network
    cut); configuration and data errors are not."""
    import psycopg

    from emulator.connectors.postgres.replication import ReplicationError

    if isinstance(exc, psycopg.OperationalError | ReplicationError | ConnectionError):
        return True
    return False


class Runner:
    """One connector: `run()` blocks until `stop()` (or the end of an initial_only snapshot). Retriable
    failures restart the connector from its committed offsets, as Kafka Connect does, up to
    `errors.max.retries` times (-1: forever) with `retriable.restart.connector.wait.ms` between tries."""

    def __init__(self, config, output: Output, offsets: OffsetStore | None = None) -> None:
        self.config = config
        flush_ms = int(config.get("offset.flush.interval.ms") or 1000)
        self.engine = Engine(output, offsets or offset_store(config), flush_ms)
        self.cls = connector_class(config)
        self.connector = self.cls(config, self.engine)
        self.max_retries = int(config.get("errors.max.retries") or -1)
        self.retry_wait_s = int(config.get("retriable.restart.connector.wait.ms") or 10000) / 1000.0

    def run(self) -> None:
        retries = 0
        try:
            while True:
                try:
                    self.connector.run()
                    return
                except KeyboardInterrupt:
                    return
                except Exception as e:
                    if not retriable(e) or self.engine.stopping or \
                            (self.max_retries >= 0 and retries >= self.max_retries):
                        raise
                    retries += 1
                    log.warning("connector failed (%s: %s); restarting in %.1f s (retry %d)",
                                type(e).__name__, str(e).strip().splitlines()[0] if str(e).strip() else "",
                                self.retry_wait_s, retries)
                    self.engine.commit(force=True)
                    self._close_connector()
                    if self.engine.stop_event.wait(self.retry_wait_s):
                        return
                    self.connector = self.cls(self.config, self.engine)
        finally:
            try:
                self.engine.close()
            finally:
                self._close_connector()

    def _close_connector(self) -> None:
        try:
            self.connector.close()
        except Exception as e:  # a broken connection may not close cleanly
            log.debug("closing the connector: %s", e)

    def stop(self) -> None:
        self.engine.stop()
