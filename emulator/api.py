"""In-process API: capture changes from Python without files or Kafka.

    from emulator.api import Capture
    with Capture({"connector.class": "io.debezium.connector.postgresql.PostgresConnector", ...}) as cap:
        rec = cap.wait_for("dbserver1.public.orders", lambda r: r["value"]["payload"]["op"] == "c")

Records are delivered as dicts `{"topic", "key", "value", "headers"}` (key/value parsed JsonConverter
documents) once the engine has flushed them, i.e. with the latency a file reader would see.
"""

from __future__ import annotations

import queue
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

from emulator.config import Config, from_dict, load_config
from emulator.offsets import MemoryOffsetStore, OffsetStore
from emulator.outputs.memory import QueueOutput
from emulator.records import Record


def _config(config: Config | dict | str | Path) -> Config:
    if isinstance(config, Config):
        return config
    if isinstance(config, dict):
        return from_dict(config)
    return load_config(config)


class Capture:
    def __init__(self, config: Config | dict | str | Path, offsets: OffsetStore | None = None) -> None:
        from emulator.runner import Runner, offset_store

        self.config = _config(config)
        self.output = QueueOutput()
        if offsets is None:
            offsets = (offset_store(self.config) if self.config.get("offset.storage.file.filename")
                       else MemoryOffsetStore())
        self.runner = Runner(self.config, self.output, offsets)
        self.thread: threading.Thread | None = None
        self.error: BaseException | None = None
        self.seen: list[dict[str, Any]] = []
        self._done = False

    # -- lifecycle ---------------------------------------------------------------------------------------
    def start(self) -> Capture:
        def target() -> None:
            try:
                self.runner.run()
            except BaseException as e:  # surfaced to the reader
                self.error = e
                self.output.queue.put(None)

        self.thread = threading.Thread(target=target, name="emulator-capture", daemon=True)
        self.thread.start()
        return self

    def stop(self, timeout: float = 30) -> None:
        self.runner.stop()
        if self.thread is not None:
            self.thread.join(timeout)

    def __enter__(self) -> Capture:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    # -- reading -----------------------------------------------------------------------------------------
    def _next(self, timeout: float) -> dict[str, Any] | None:
        if self._done:
            return None
        try:
            rec: Record | None = self.output.queue.get(timeout=timeout)
        except queue.Empty:
            return None
        if rec is None:
            self._done = True
            if self.error is not None:
                raise RuntimeError(f"capture failed: {self.error}") from self.error
            return None
        d = rec.to_dict()
        self.seen.append(d)
        return d

    def records(self, timeout: float = 1.0) -> Iterator[dict[str, Any]]:
        """Records as they arrive; ends after `timeout` seconds without one, or when capture stops."""
        while True:
            d = self._next(timeout)
            if d is None:
                return
            yield d

    def wait_for(self, topic: str, predicate: Callable[[dict[str, Any]], bool] = lambda r: True,
                 timeout: float = 10.0) -> dict[str, Any]:
        """The first record on `topic` (already seen or arriving) matching `predicate`; AssertionError
        after `timeout` seconds, listing what did arrive."""
        for d in self.seen:
            if d["topic"] == topic and predicate(d):
                return d
        deadline = time.monotonic() + timeout
        while (left := deadline - time.monotonic()) > 0:
            d = self._next(min(left, 0.2))
            if d is not None and d["topic"] == topic and predicate(d):
                return d
            if self._done:
                break
        arrived = [f"{r['topic']}: {_brief(r)}" for r in self.seen[-20:]]
        raise AssertionError(f"no record on {topic!r} matched within {timeout} s; "
                             f"{len(self.seen)} arrived" + ("; last:\n  " + "\n  ".join(arrived) if arrived else ""))


def _brief(r: dict[str, Any]) -> str:
    v = r.get("value")
    p = v.get("payload") if isinstance(v, dict) else v
    if isinstance(p, dict) and "op" in p:
        return f"op={p['op']} after={p.get('after')}"
    return str(p)[:120]
