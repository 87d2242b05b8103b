"""In-process delivery: records handed to a callback or collected for an iterator."""

from __future__ import annotations

import queue
from collections.abc import Callable

from emulator.outputs.base import Output
from emulator.records import Record


class CallbackOutput(Output):
    def __init__(self, callback: Callable[[Record], None]) -> None:
        self.callback = callback

    def write(self, record: Record) -> None:
        self.callback(record)


class QueueOutput(Output):
    """Records go to a queue; readers see them once flushed (as a file reader would)."""

    def __init__(self, maxsize: int = 0) -> None:
        self.queue: queue.Queue[Record | None] = queue.Queue(maxsize)
        self._pending: list[Record] = []

    def write(self, record: Record) -> None:
        self._pending.append(record)

    def flush(self) -> None:
        pending, self._pending = self._pending, []
        for r in pending:
            self.queue.put(r)

    def close(self) -> None:
        self.flush()
        self.queue.put(None)
