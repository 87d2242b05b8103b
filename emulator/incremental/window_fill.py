"""A chunk's rows into the incremental snapshot's window buffer, and the rows that fail on a value.

Debezium converts a chunk row when the window closes (AbstractIncrementalSnapshotChangeEventSource.sendEvent ->
EventDispatcher.dispatchSnapshotEvent), under the same failure handler as the initial snapshot and the stream: with
`event.processing.failure.handling.mode=warn|skip` the row is dropped and the snapshot goes on (recorded: pg case
processing_failure_incremental_snapshot). Here rows are converted as the chunk is read; a row that fails is left out
of the buffer, which prints the same: a streamed change of its key during the window would have dropped it anyway.
The connector decides which failures are dropped (`drops_failed_row`; a connector without it drops none)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from emulator.model import printed


def window_key(values: list) -> bytes:
    """A buffered row's key values as printed, so a streamed change replaces the buffered read of its row
    (a dict key was unhashable, a Fragment double equal to no other)."""
    return printed(values)


def fill(
    env: Any, key_cols: list[str], rows: list[list], drops: Callable[[BaseException, str], bool] | None
) -> tuple[dict[bytes, dict], str | None]:
    """The window buffer of `rows` (keyed by the table's key, or by the surrogate key of a keyless table: the
    second value names it)."""
    snap = env.snapshot_row
    by = env.key_names or key_cols[:1]
    buf: dict[bytes, dict] = {}
    for raw in rows:
        try:
            after = snap(raw)
        except (ValueError, ArithmeticError) as e:
            if drops is None or not drops(e, f"incremental snapshot row of {env.table.id}"):
                raise
            continue
        buf[window_key([after[k] for k in by])] = after
    return buf, (None if env.key_names else key_cols[0])
