"""Stop an in-process capture at a chosen point of its stream, whatever the machine's load: a hook on the
engine's per-event tick (the connector calls it after each WAL message / binlog event), no mock of the
database. Restart tests use it to land a stop inside a transaction."""

from __future__ import annotations

from emulator.api import Capture


def stop_after_records(cap: Capture, n: int) -> None:
    """Stop the capture right after the event that brings the records it wrote from now on to `n`."""
    engine = cap.runner.connector.engine
    tick = engine.tick
    start = engine.records

    def hooked() -> None:
        if engine.records - start >= n:
            engine.stop()
        tick()

    engine.tick = hooked
