"""The run loop every connector shares (Debezium's ChangeEventSourceCoordinator), on one thread.

    connect -> load offsets -> Snapshotter plan -> snapshot (notifications) | restore from offsets
            -> commit -> stream until stop  (a blocking snapshot runs inside the stream, which waits)

The adapter (`emulator.connectors.base.SourceAdapter`) does the database's part of each step; the order
of the steps, the snapshot-mode decision, the notifications around the initial snapshot, the delays, the
lost-position policy and the blocking snapshot's frame live here once.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable, Iterable, Sequence
from contextlib import AbstractContextManager
from dataclasses import dataclass
from typing import Any

from emulator.connectors.base import PositionLost
from emulator.pipeline.snapshotter import ALWAYS, Mode, decide, mode_of
from emulator.snapshot import marker, run_snapshot

log = logging.getLogger("emulator.coordinator")


@dataclass
class SnapshotSession:
    """What an adapter hands the coordinator for a snapshot read, from inside its consistent read (a
    context manager that closes it): the tables in order, their rows, how one row becomes a record
    (`emit(table, row, marker)`), and `table_id` naming a table for metrics and notifications.

    Notifications: `captured` (every captured table id) makes the coordinator send Debezium's relational
    IN_PROGRESS / TABLE_SCAN_COMPLETED; an adapter whose notifications differ (MongoDB) sets `started` /
    `finished` itself. `completed` is set by the coordinator before the session closes: only a complete
    read may become the streaming start position."""

    tables: Sequence[Any]
    rows_of: Callable[[Any], Iterable[Any]]
    emit: Callable[[Any, Any, str], None]
    table_id: Callable[[Any], str]
    captured: Sequence[str] | None = None
    estimates: dict[str, int] | None = None
    started: Callable[[Any], None] | None = None
    finished: Callable[[Any, int], None] | None = None
    markers: Callable[[bool, bool, bool, bool], str] = marker
    completed: bool = False


class Coordinator:
    """`snapshot`: the typed `emulator.settings.Snapshot` group (mode, its configuration_based flags,
    snapshot.delay.ms, streaming.delay.ms)."""

    def __init__(self, adapter, snapshot, engine) -> None:
        self.adapter = adapter
        self.engine = engine
        self.mode_name = (snapshot.mode or "initial").lower()
        self.mode: Mode = mode_of(self.mode_name, snapshot.configuration_based)
        self.snapshot_delay_s = max(snapshot.delay_ms or 0, 0) / 1000.0
        self.streaming_delay_s = max(snapshot.streaming_delay_ms or 0, 0) / 1000.0

    def run(self) -> None:
        a, engine = self.adapter, self.engine
        a.connect()
        stored = engine.offsets.load()
        exists, in_progress = a.offset_state(stored)
        available = True
        if exists and not in_progress and self.mode.data != ALWAYS:
            available = a.position_available(stored)
        plan = decide(self.mode, exists, in_progress, available)
        if plan.lost:
            message = a.lost_position_message(stored)
            if a.ON_LOST_POSITION == "fail":
                raise PositionLost(message)
            log.warning("%s", message)
        if plan.data or (plan.schema and a.HISTORIZED):
            if plan.reset:
                log.info(
                    "snapshot.mode=%s: discarding stored offsets and taking a new snapshot", self.mode_name
                )
            a.prepare(snapshot=True)
            if not self._snapshot(plan.data):
                return
            if exists and not plan.reset:  # recovery: the schema is new, the position the stored one
                self._restore(stored, history=False)
        else:
            a.prepare(snapshot=False)
            a.notifier.initial("SKIPPED")
            if exists:
                self._restore(stored, history=True)
        engine.commit(force=True)
        if not plan.stream:
            log.info("snapshot.mode=%s: not streaming; stopping", self.mode_name)
            return
        if self.streaming_delay_s > 0 and engine.stop_event.wait(self.streaming_delay_s):
            return
        log.info("streaming from %s", a.position() or "the server's current position")
        try:
            a.stream_changes()
        except PositionLost:
            if not self.mode.on_data_error or engine.stopping:
                raise
            log.warning(
                "the stored position is gone from the server: new snapshot (snapshot.mode=%s)", self.mode_name
            )
            again = decide(self.mode, False, False)
            if not self._snapshot(again.data):
                return
            engine.commit(force=True)
            a.stream_changes()

    def _snapshot(self, data: bool) -> bool:
        """The initial snapshot with its notifications; False when a stop interrupted it."""
        a, engine = self.adapter, self.engine
        if self.snapshot_delay_s > 0 and engine.stop_event.wait(self.snapshot_delay_s):
            return False
        start = time.monotonic()
        a.notifier.initial("STARTED")
        with a.snapshot_session(data) as s:
            started, finished = s.started, s.finished
            if s.captured is not None:
                started, finished = a.notifier.snapshot_callbacks(
                    [s.table_id(t) for t in s.tables], s.captured, s.table_id
                )
            s.completed = run_snapshot(
                s.tables,
                s.rows_of,
                s.emit,
                lambda: engine.stopping,
                started,
                finished,
                engine.metrics.snapshot,
                s.table_id,
                s.estimates,
                s.markers,
            )
        if engine.stopping:
            engine.commit(force=True)
            return False
        a.notifier.initial("COMPLETED")
        log.info("snapshot done in %.2f s", time.monotonic() - start)
        return True

    def _restore(self, stored: dict, history: bool) -> None:
        self.adapter.restore(stored, history=history)
        self.adapter.incremental.restore(stored)


def blocking_snapshot(adapter, engine, session: AbstractContextManager[SnapshotSession]) -> None:
    """Debezium's blocking snapshot (execute-snapshot, type blocking): the stream waits - this runs on the
    streaming thread, after the signal's own event - while the session's tables are read the way the
    initial snapshot reads them (op `r`, the snapshot markers over the listed tables, no transaction
    block, no notifications); then the stream resumes from where it was.

    The pause is the adapter's one thread being here, between two events of its log; the paused stream
    gets `adapter.keep_alive()` every 1024 rows (PostgreSQL's walsender must keep hearing from us)."""
    emitted = 0
    keep_alive = adapter.keep_alive
    with session as s:
        names = ", ".join(s.table_id(t) for t in s.tables) or "no table"
        log.info("blocking snapshot of %s: streaming paused at %s", names, adapter.position())
        emit = s.emit

        def counted(table, row, mark: str) -> None:
            nonlocal emitted
            emit(table, row, mark)
            emitted += 1
            if not emitted & 1023:
                keep_alive()

        ok = run_snapshot(
            s.tables,
            s.rows_of,
            counted,
            lambda: engine.stopping,
            metrics=engine.metrics.snapshot,
            table_id=s.table_id,
            markers=s.markers,
        )
    if ok:
        log.info("blocking snapshot done (%d records); streaming resumes", emitted)
    else:
        log.warning(
            "blocking snapshot interrupted by a stop after %d records; send the signal again", emitted
        )
