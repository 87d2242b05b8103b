"""`event.processing.failure.handling.mode=warn|skip` on the PostgreSQL connector: a change or a snapshot row whose
value Debezium cannot convert is dropped, and the capture goes on.

Debezium converts a streamed change inside EventDispatcher.dispatchDataChangeEvent, whose failure handler stops the
connector under `fail` (the default) and logs (`warn`) or not (`skip`) and drops the change otherwise; the snapshot's
rows likewise. Recorded (pg cases processing_failure_warn_stream, _warn_snapshot, _skip_arrays): the change is
missing, its transaction's BEGIN/END still come (END's event_count without it: 0 when it was the only one), the
snapshot's next row keeps its marker. What fails is what stops the emulator on a value under `fail` (the errors that
say "Debezium stops here too": a NaN in a NOT NULL precise numeric, an array Connect cannot validate with
event.converting.failure.handling.mode=fail, a value shifted into a column of another type). Not dropped: the
decoder's own failures (relation_stale: Debezium's decoder fails before the dispatcher), which stop both.

The rows of incremental and blocking snapshots likewise (EventDispatcher.dispatchSnapshotEvent has the same
handler; recorded: pg cases processing_failure_incremental_snapshot, processing_failure_blocking_snapshot: the row
is missing, the blocking snapshot's `first`/`last` mark the rows sent). With snapshot.max.threads > 1 the initial
snapshot's readers are threads, not forked processes (which convert in the children), and their rows are checked as
they are taken (recorded: pg case processing_failure_snapshot_threads: the dropped last row of the last table leaves
`last` on the row before)."""

from __future__ import annotations

import logging
from collections.abc import Callable, Iterable, Iterator

from emulator.settings import settings_for

log = logging.getLogger("emulator.postgres")

STOP_MARK = "Debezium stops here too"
HANDLED = (ValueError, ArithmeticError)


def failure_mode(cfg) -> str:
    """`fail`, `warn` or `skip`."""
    return settings_for(cfg).errors.processing_failure_mode.strip().lower()


def is_value_failure(e: BaseException) -> bool:
    return isinstance(e, HANDLED) and STOP_MARK in str(e)


def report(warn: bool, where: str, e: BaseException) -> None:
    (log.warning if warn else log.debug)(
        "Error while processing event at %s, skipped (event.processing.failure.handling.mode): %s", where, e
    )


def drop_failed_changes(stream) -> None:
    """On the connector (`stream`, a PgoutputStream; its `_stream` loop looks its handlers up on the instance): the
    INSERT, UPDATE and DELETE handlers drop a change that fails on a value, under `warn` / `skip` (nothing changes
    under `fail`)."""
    mode = failure_mode(stream.cfg)
    if mode == "fail":
        return
    warn = mode == "warn"
    for name in ("_on_insert", "_on_update", "_on_delete"):
        setattr(stream, name, _dropping(getattr(stream, name), warn))

    def drops_failed_row(e: BaseException, where: str) -> bool:  # (incremental snapshot rows: window_fill.py)
        if not is_value_failure(e):
            return False
        report(warn, where, e)
        return True

    stream.drops_failed_row = drops_failed_row


def checked_rows(rows: Iterable[list], env, mode: str, what: str) -> Iterator[list]:
    """A snapshot's rows (raw values) without those whose value fails, under `warn` / `skip` (a blocking
    snapshot's; the initial snapshot checks its rows in snapshots.py): what stops the emulator on a value is
    checked as the row is read, so the row is never sent and `first`/`last` mark the rows that are."""
    checks = [(i, c.check) for i, c in enumerate(env.snapshot_converters) if hasattr(c, "check")]
    if mode == "fail" or not checks:
        yield from rows
        return
    for n, row in enumerate(rows, 1):
        try:
            for i, check in checks:
                if row[i] is not None:
                    check(row[i])
        except HANDLED as e:
            if not is_value_failure(e):
                raise
            report(mode == "warn", f"{what} row {n} of {env.table.id}", e)
            continue
        yield row


def _dropping(handler: Callable[[bytes, int], None], warn: bool) -> Callable[[bytes, int], None]:
    def handle(msg: bytes, lsn: int) -> None:
        try:
            handler(msg, lsn)
        except HANDLED as e:
            if STOP_MARK not in str(e):
                raise
            report(warn, f"LSN {lsn}", e)

    return handle
