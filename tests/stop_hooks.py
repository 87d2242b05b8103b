"""Stop an in-process capture at a chosen point of its stream, whatever the machine's load: a hook on the
output's write (the connectors check for a stop before each WAL message / binlog event), no mock of the
database. Restart tests use it to land a stop inside a transaction."""

from __future__ import annotations

from emulator.api import Capture


def stop_after_records(cap: Capture, n: int) -> None:
    """Stop the capture right after the event that brings the records it wrote from now on to `n` (the stop
    is asked for at the n-th write; the event's other records are still written, as a stop between events
    does). On the write, not the engine's tick: the PostgreSQL stream ticks only every 32nd row change.
    Capture's output sees every record in `write` (a directory output also takes lines by `write_line`)."""
    output = cap.runner.connector.engine.output
    engine = cap.runner.connector.engine
    write = output.write
    left = [n]

    def hooked(record) -> None:
        write(record)
        left[0] -= 1
        if left[0] == 0:
            engine.stop()

    output.write = hooked
