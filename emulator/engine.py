"""The runtime shared by every connector: delivery to the output, offset commits, heartbeats, stop.

Order of durability: records are written to the output; at a commit the output is made durable first,
then the connector's offset is saved, then the connector is told (PostgreSQL then confirms the LSN to the
server). A crash anywhere in between can only repeat records after the last saved offset.

Latency (docs/latency.md): the source flushes the output whenever it would wait for its log, and `tick`
also flushes it every MAX_LINGER_S while the log never runs dry. The periodic commit of an output that
can split its commit (`commit_point` on this thread, `make_durable` on another: the directory output)
with a file offset store runs its fsyncs and the offset file's replace on `BackgroundCommitter`'s thread;
the source is told on this thread once both are done. Forced commits (snapshot end, stop, failures) stay
synchronous.
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable
from typing import Any, Protocol

from emulator.metrics import ConnectorMetrics
from emulator.offsets import FileOffsetStore, OffsetStore
from emulator.outputs.base import Output
from emulator.pipeline.committer import BackgroundCommitter
from emulator.pipeline.heartbeat import Heartbeat
from emulator.records import Record

log = logging.getLogger("emulator.engine")

# While the source stays busy (PostgreSQL's loop flushes whenever its log runs dry), what the output
# buffered is flushed at least this often: a steady stream that never runs dry would otherwise keep lines in
# a 1 MiB buffer (~45 ms at 5,000 events/s, longer at lower rates that still keep the reader busy). The
# first record after a quiet spell is flushed by the tick right after it (the binlog reader blocks without
# a flush until the server's next heartbeat, 100 ms). Checked with the commit's deadline in `tick`: no
# per-event work while records flow.
MAX_LINGER_S = 0.005


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
        self._last_commit = now = time.monotonic()
        self._flush_due = now + MAX_LINGER_S
        self._flushed_records = 0  # `records` at the last flush by tick/idle
        self._due = now  # the earliest of the flush and commit deadlines: `tick`'s one comparison
        self._committer: BackgroundCommitter | None = None
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

    def line_writer(self) -> Callable[[str, bytes], None] | None:
        """For a record that is its directory line and nothing else: `write_line(topic, line)` of the output
        when nothing else needs the record (no data plane, an output that writes lines as they are), else
        None. The caller counts what it writes in `records`, as `emit` does."""
        return getattr(self.output, "write_line", None) if self.dataplane is None else None

    def line_producer(self) -> Callable[..., None] | None:
        """As `line_writer`, for an output that sends a line's key and value apart (Kafka):
        `produce_line(topic, line, klen, vstart, vtail, headers)`, what `write(LineRecord(...))` does without
        the record object; None with a data plane or another output."""
        return getattr(self.output, "produce_line", None) if self.dataplane is None else None

    def tick(self) -> None:
        """Between two source messages: time-driven work (heartbeats, the output's linger flush, periodic
        commits, a finished background commit)."""
        now = time.monotonic()
        if self.heartbeat is not None and self.heartbeat.due(now):
            self.emit(self.heartbeat.record(now))
        if now >= self._due:
            self._timed(now)

    def _timed(self, now: float) -> None:
        # the deadline moves only with a flush that had something to show: until a record comes, each tick
        # lands here (only between records), and the one after that record flushes it
        if now >= self._flush_due and self.records != self._flushed_records:
            self._flushed_records = self.records
            self._flush_due = now + MAX_LINGER_S
            self.output.flush()
        if now - self._last_commit >= self.flush_interval_s:
            self.commit()
        elif self._committer is not None and self._committer.finished:
            self._apply_done()
        self._due = min(self._flush_due, self._last_commit + self.flush_interval_s)

    def _wake(self) -> None:
        """From the committer's thread: a commit finished; the next `tick` tells the source."""
        self._due = 0.0

    def idle(self) -> None:
        """The source has nothing more right now: let readers see what we have, then tick."""
        self._flushed_records = self.records
        self.output.flush()
        self.tick()

    def commit(self, force: bool = False) -> None:
        """Make the output durable, save the source's offset, tell the source. `force` (and an output or
        offset store that cannot split the commit): here and now, after any background commit in flight.
        Otherwise a background commit; while one is in flight the next interval takes a newer offset."""
        self._last_commit = now = time.monotonic()
        self._due = min(self._flush_due, now + self.flush_interval_s)
        src = self.source
        committer = self._committer
        if committer is not None:
            if force:
                committer.wait()
            self._apply_done()
            if committer.busy:
                return
        offset = src.offset() if src is not None else None
        if offset is None:
            self.output.flush()
            return
        if not force and self._can_split():
            if committer is None:
                committer = self._committer = BackgroundCommitter(
                    self.output.make_durable, self.offsets.save, self._wake
                )
            token = self.output.commit_point() if self.records != self._committed_records else None
            committer.submit(token, offset, self.records)
            return
        if self.records != self._committed_records or force:
            if self.output.commit() is False:  # offset.flush.timeout.ms passed: Connect retries next interval
                return
            self._committed_records = self.records
        if self.offsets.save(offset) is False:  # not stored in time: the source must not move past it
            return
        src.committed(offset)

    def _can_split(self) -> bool:
        # an exactly-once Kafka output commits records and offset in one transaction: never split
        return (
            getattr(self.output, "commit_point", None) is not None
            and not getattr(self.output, "transactional_id", None)
            and (
                isinstance(self.offsets, FileOffsetStore) or getattr(self.offsets, "saves_off_thread", False)
            )
        )

    def abandon_background_commit(self) -> None:
        """After an output failure, before the output starts afresh: wait for a commit in flight and forget
        its result (an offset it saved covers delivered records only; the restart reads the saved one)."""
        committer = self._committer
        if committer is not None:
            committer.wait()
            try:
                committer.take()
            except Exception as e:  # noqa: BLE001 - the failure the restart is already handling
                log.debug("background commit abandoned: %s", e)

    def _apply_done(self) -> None:
        """Tell the source about a background commit that finished (raises what failed there)."""
        done = self._committer.take()
        if done is not None:
            offset, records = done
            self._committed_records = max(self._committed_records, records)
            if self.source is not None:
                self.source.committed(offset)

    def close(self) -> None:
        try:
            self.commit(force=True)
        finally:
            try:
                if self._committer is not None:
                    self._committer.close()
                    self._committer = None
            finally:
                self.output.close()
