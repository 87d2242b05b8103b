"""The runtime shared by every connector: delivery to the output, offset commits, heartbeats, stop.

Order of durability: records are written to the output; at a commit the output is made durable first,
then the connector's offset is saved, then the connector is told (PostgreSQL then confirms the LSN to the
server). A crash anywhere in between can only repeat records after the last saved offset.
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable
from typing import Any, Protocol

from emulator.metrics import ConnectorMetrics
from emulator.offsets import OffsetStore
from emulator.outputs.base import Output
from emulator.pipeline.heartbeat import Heartbeat
from emulator.records import Record

log = logging.getLogger("emulator.engine")


class Source(Protocol):
    def offset(self) -> dict[str, Any] | None: ...

    def committed(self, offset: dict[str, Any]) -> None: ...


class Engine:
    def __init__(
        self,
        output: Output,
        offsets: OffsetStore,
        flush_interval_ms: int = 1000,
        heartbeat: Heartbeat | None = None,
        dataplane=None,
    ) -> None:
        self.output = output
        self.offsets = offsets
        self.flush_interval_s = max(flush_interval_ms, 0) / 1000.0
        self.heartbeat = heartbeat
        self.source: Source | None = None
        self.stop_event = threading.Event()
        self.records = 0  # written to the output
        self._committed_records = 0  # `records` at the last output commit: more since means uncommitted
        self._last_commit = time.monotonic()
        self.listeners: list[Callable[[Record], None]] = []
        self.metrics = ConnectorMetrics()  # counters the connectors keep (emulator.metrics)
        self.dataplane = dataplane
        if dataplane is not None:  # transforms / converters: only then is there per-record work here
            self.emit = self._emit_through_dataplane

    def _emit_through_dataplane(self, record: Record) -> None:
        out = self.dataplane.apply(record)
        if out is not None:  # a record a transform dropped leaves nothing for the output to make durable
            self.output.write(out)
            self.records += 1

    @property
    def stopping(self) -> bool:
        return self.stop_event.is_set()

    def stop(self) -> None:
        self.stop_event.set()

    def emit(self, record: Record) -> None:
        self.output.write(record)
        self.records += 1

    def tick(self) -> None:
        """Between two source messages: time-driven work (heartbeats, periodic commits)."""
        now = time.monotonic()
        if self.heartbeat is not None and self.heartbeat.due(now):
            self.emit(self.heartbeat.record(now))
        if now - self._last_commit >= self.flush_interval_s:
            self.commit()

    def idle(self) -> None:
        """The source has nothing more right now: let readers see what we have, then tick."""
        self.output.flush()
        self.tick()

    def commit(self, force: bool = False) -> None:
        self._last_commit = time.monotonic()
        src = self.source
        offset = src.offset() if src is not None else None
        if offset is None:
            self.output.flush()
            return
        if self.records != self._committed_records or force:
            if self.output.commit() is False:  # offset.flush.timeout.ms passed: Connect retries next interval
                return
            self._committed_records = self.records
        if self.offsets.save(offset) is False:  # not stored in time: the source must not move past it
            return
        src.committed(offset)

    def close(self) -> None:
        try:
            self.commit(force=True)
        finally:
            self.output.close()
