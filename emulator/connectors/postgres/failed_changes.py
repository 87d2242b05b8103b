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

Not recorded, so refused or unchanged: with snapshot.max.threads > 1 (forked readers convert in the children)
`warn`/`skip` is refused at start (emulator.settings.validate); a row of an incremental or blocking snapshot that
fails still stops the emulator."""

from __future__ import annotations

import logging
from collections.abc import Callable

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


def _dropping(handler: Callable[[bytes, int], None], warn: bool) -> Callable[[bytes, int], None]:
    def handle(msg: bytes, lsn: int) -> None:
        try:
            handler(msg, lsn)
        except HANDLED as e:
            if STOP_MARK not in str(e):
                raise
            report(warn, f"LSN {lsn}", e)

    return handle
