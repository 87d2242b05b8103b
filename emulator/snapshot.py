"""The snapshot read loop every connector shares (initial, blocking) and its `source.snapshot` markers.

Debezium (RelationalSnapshotChangeEventSource): the last row of the last table is `last`; otherwise the
first row of the first table is `first`; otherwise a table's last row is `last_in_data_collection`, its
first `first_in_data_collection`, and every other row `true`. "First/last table" are positions in the
list of tables to snapshot, empty ones included; but the very last row emitted is always `last` (empty
tables at the end).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from typing import Any, TypeVar

T = TypeVar("T")
_END = object()


def marker(first_table: bool, last_table: bool, first_row: bool, last_row: bool) -> str:
    if last_row and last_table:
        return "last"
    if first_table and first_row:
        return "first"
    if last_row:
        return "last_in_data_collection"
    if first_row:
        return "first_in_data_collection"
    return "true"


def run_snapshot(
    tables: Sequence[T],
    rows_of: Callable[[T], Iterable[Any]],
    emit: Callable[[T, Any, str], None],
    stopping: Callable[[], bool] = lambda: False,
    started: Callable[[T], None] | None = None,
    finished: Callable[[T, int], None] | None = None,
    metrics: Any = None,
    table_id: Callable[[T], str] | None = None,
    estimates: dict[str, int] | None = None,
    markers: Callable[[bool, bool, bool, bool], str] = marker,
) -> bool:
    """Feeds every row to `emit(table, row, marker)` with one row of look-ahead. Returns False if
    `stopping()` became true before the end.

    `started(table)` / `finished(table, rows)` run around each table (notifications). Like Debezium's
    buffering snapshot receiver, the row last read is handed on only when the next row arrives or the
    snapshot ends, so a table's `finished` (and the next table's `started`) come before its last row.

    `metrics` (an `emulator.metrics.SnapshotMetrics`, tables named by `table_id`) gets each table's start,
    its row count every 256 rows and its end, and whether the snapshot completed.

    `markers(first_table, last_table, first_row, last_row)` gives each row's `source.snapshot`: the
    relational markers by default; MongoDB marks every row `true` (the very last is `last` either way)."""
    if metrics is None:
        return _run(tables, rows_of, emit, stopping, started, finished, None, [], markers)
    ids = [table_id(t) if table_id is not None else str(t) for t in tables]
    metrics.begin(ids, estimates)
    ok = False
    try:
        ok = _run(tables, rows_of, emit, stopping, started, finished, metrics, ids, markers)
    finally:
        metrics.end(ok)
    return ok


def _run(tables, rows_of, emit, stopping, started, finished, metrics, ids, marker) -> bool:
    n = len(tables)
    held_table: Any = _END  # three variables, not a tuple per row: this loop runs per snapshot row
    held_row: Any = None
    held_mark = ""
    for ti, table in enumerate(tables):
        first_table, last_table = ti == 0, ti == n - 1
        if started is not None:
            started(table)
        if metrics is not None:
            metrics.table_started(ids[ti])
        it = iter(rows_of(table))
        row = next(it, _END)
        first_row = True
        count = 0
        while row is not _END:
            try:
                nxt = next(it, _END)
            except Exception:
                # the row after `row` cannot be read or converted. Debezium converts a row before its
                # buffering receiver takes it, so the record before `row` was handed on and `row` stays
                # held (lost); a failing first row of a table leaves the held one unsent (mariadb case
                # snapshot_fails_after_other_table)
                if held_table is not _END:
                    emit(held_table, held_row, held_mark)
                raise
            if held_table is not _END:
                emit(held_table, held_row, held_mark)
            held_table, held_row = table, row
            held_mark = marker(first_table, last_table, first_row, nxt is _END)
            count += 1
            if not count & 255 and metrics is not None:
                metrics.table_rows(ids[ti], getattr(it, "snapshot_rows", count))
            row = nxt
            first_row = False
            if stopping():
                return False
        count = getattr(it, "snapshot_rows", count)  # items that stand for many rows (forked readers' lines)
        if finished is not None:
            finished(table, count)
        if metrics is not None:
            metrics.table_done(ids[ti], count)
    if held_table is not _END:
        # EventDispatcher's buffering receiver marks the snapshot's last record `last` even when it
        # comes from an earlier table (the last tables were empty)
        emit(held_table, held_row, "last")
    return True
