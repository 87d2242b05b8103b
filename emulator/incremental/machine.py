"""The incremental snapshot window machine (DBLog watermark windows; Debezium's
AbstractIncrementalSnapshotChangeEventSource), shared by every connector. No SQL and no IO of its own: the
connector reads chunks (ChunkReader), the strategy writes or waits for watermarks (watermarks.py), the
engine emits; signals (emulator/signals/) start, stop, pause and resume it.

A chunk is read under an open window. While the stream is inside the window, every streamed change of a
buffered key drops that key from the buffer (the streamed event is newer). When the window closes, what is
left is emitted as `op: r` with `source.snapshot = "incremental"` (for insert_insert, right before the close
row's own event) and the next window starts. Empty or finished tables move on to the next table inside the
same window, so the last window of a snapshot is an empty one.

Tables without a primary key (and no `surrogate-key`, no `message.key.columns`) are skipped with the warning
Debezium logs ("... skipped cause the table has no primary keys"); a keyless table with a `surrogate-key` is
chunked by that column and its window is keyed by it. A table the schema does not know (gone, outside the
filters) is read from the database first (Debezium's retrieveAndRefreshSchema), then skipped with a warning.

A schema change of the table whose window is open (the stream reports a changed relation) discards the window
and reads the chunk again under a new window, as Debezium's processSchemaChange/rereadChunk does; the old
window's close row is then ignored. Chunk rows are emitted with the schema they were read with.

Progress lives in the connector offsets (state.py); a restart resumes after the last emitted chunk.

Connection failures are the connector's to judge (`retriable`, from the adapter): they propagate and the
runner restarts the connector from its offsets; any other database error stops the snapshot (or skips the
table) with a logged error instead of the connector.
"""

from __future__ import annotations

import logging
import re
import uuid
from collections.abc import Callable
from typing import Any, Protocol

from emulator.incremental import state, watermarks, window_fill
from emulator.incremental.conditions import ConditionError
from emulator.incremental.window_fill import window_key as _window_key
from emulator.notifications import INCREMENTAL as INCREMENTAL_AGGREGATE
from emulator.settings.common import Incremental
from emulator.signals.record import SignalError

log = logging.getLogger("emulator.incremental")


# a malformed signal (raised while it is handled): logged and skipped by the signal processor
MALFORMED = (SignalError, ConditionError, re.error, TypeError, AttributeError)


class ChunkAbandoned(Exception):
    """A chunk read that fails outside Debezium's per-table SQLException handling (readChunk's outer catch):
    the table is skipped (TABLE_SCAN_COMPLETED, SQL_EXCEPTION) and the chunk ends without its window
    close, so nothing more is read until another execute-snapshot signal starts a new snapshot."""


class ChunkReader(Protocol):
    """What a connector provides. Keys are lists of the key columns' values as the database prints them
    (opaque here, stored in offsets and handed back); `condition` is what the filter policy's `query` made
    of the signal's filter."""

    def captured_table_ids(self) -> list[str]: ...

    def table_by_id(self, table_id: str) -> Any: ...  # None when gone; has .env (TableEnvelope)

    def max_key(self, ct: Any, key_cols: list[str], condition: Any) -> list | None: ...

    def read_chunk(
        self, ct: Any, key_cols: list[str], after: list | None, upto: list, limit: int, condition: Any
    ) -> list[list]: ...

    def read_source(self, ct: Any) -> dict: ...  # source block of an incremental read

    def keep_alive(self) -> None: ...  # between the chunks of a long synchronous loop


class IncrementalSnapshot:
    def __init__(
        self,
        source: ChunkReader,
        engine,
        *,
        incremental: Incremental,
        signal_table: str | None,
        filters: Any,
        retriable: Callable[[BaseException], bool],
        notifier: Any = None,
    ) -> None:
        """`incremental`: the typed `incremental.snapshot.*` / `read.only` settings; `signal_table`:
        `signal.data.collection` (where the watermark rows go); `filters`: SqlFilters or the connector's own
        policy (MongoDB query documents); `retriable`: the connector's judgement of an exception;
        `notifier`: the connector's Notifier ("Incremental Snapshot" notifications), None for none."""
        self.source = source
        self.engine = engine
        self.filters = filters
        self.retriable = retriable
        self.chunk_size = incremental.chunk_size if incremental.chunk_size > 0 else 1024
        self.signal_table = signal_table
        self.read_only = bool(incremental.read_only)
        name = (incremental.watermarking_strategy or "insert_insert").lower()
        self.strategy = watermarks.strategy_for(source, name, self.read_only)
        self.notifier = notifier
        # progress (state.py): tables still to do, current first: {id, condition, surrogate}
        self.queue: list[dict[str, Any]] = []
        self.last_key: list | None = None  # end of the chunk read last (the next chunk starts after it)
        self.done_key: list | None = None  # end of the last emitted chunk (what a restart resumes after)
        self.max_key: list | None = None
        self.correlation_id: str | None = None  # the execute-snapshot signal's id: notifications' id
        # the window in flight
        self.chunk_id: str | None = None
        self.chunk_start: list | None = None
        self.window_open = False
        self.buffer: dict[bytes, dict] = {}
        self.window_table: str | None = None
        self.window_ct: Any = None
        self.window_by_surrogate: str | None = None  # keyless table: window keyed by this column
        self.window_mark: Any = None  # read-only high watermark
        self.paused = False
        self.pending_start = False
        self.rows_scanned = 0  # rows read from the current table so far (TABLE_SCAN_COMPLETED)
        self._skip_status = "UNKNOWN_SCHEMA"  # why _table_to_read refused the current table
        self.abandoned = False  # the current chunk ended on ChunkAbandoned: no window close

    # -- state ------------------------------------------------------------------------------------------
    @property
    def active(self) -> bool:
        """A window is open: streamed changes must go through `on_stream_event`."""
        return self.window_open

    @property
    def running(self) -> bool:
        return bool(self.queue)

    def offset(self) -> dict | None:
        if not self.queue:
            return None
        return state.to_offset(state.Progress(self.queue, self.done_key, self.max_key, self.correlation_id))

    def restore(self, stored: dict) -> None:
        p = state.from_offset(stored)
        if p is None:
            return
        self.queue = p.queue
        self.done_key = self.last_key = p.done_key
        self.max_key = p.max_key
        self.correlation_id = p.correlation_id
        self.pending_start = True
        log.info(
            "incremental snapshot in progress: resuming %s after key %s",
            ", ".join(e[state.COLLECTION_ID] for e in self.queue),
            self.done_key,
        )

    def notify(self, kind: str, **data: Any) -> None:
        """An "Incremental Snapshot" notification (Debezium's IncrementalSnapshotNotificationService)."""
        n = self.notifier
        if n is not None and n.enabled:
            n.notify(INCREMENTAL_AGGREGATE, kind, {k: str(v) for k, v in data.items()}, self.correlation_id)

    def collections(self) -> str:
        return ",".join(e[state.COLLECTION_ID] for e in self.queue)

    def guard(self, what: str, fn: Callable, *args) -> None:
        """Database errors that a restart would not cure (a filter value of the wrong type, a missing
        signal table, a permission) stop the snapshot with a logged error instead of the connector;
        connection failures propagate (the runner restarts the connector from its offsets)."""
        try:
            fn(*args)
        except MALFORMED:
            raise  # a malformed signal: logged and skipped by the processor, the snapshot goes on
        except Exception as e:
            if self.retriable(e):
                raise
            log.error(
                "%s failed (%s: %s); the incremental snapshot is stopped",
                what,
                type(e).__name__,
                _first_line(e),
            )
            self._clear()

    def _clear(self) -> None:
        self.queue = []
        self._reset_window()
        self.done_key = self.last_key = self.max_key = None
        self.paused = False
        self.pending_start = False

    # -- control (the signal actions) -------------------------------------------------------------------
    def start(self, sid: str, entries: list[dict[str, Any]]) -> None:
        """execute-snapshot: queue the tables; a snapshot not yet running starts with its first chunk."""
        start = not self.queue
        self.queue.extend(entries)
        if start:
            self.paused = False
            self.pending_start = False
            self.done_key = self.last_key = self.max_key = None
            self.rows_scanned = 0
            self.correlation_id = sid
            self.notify("STARTED", data_collections=self.collections())
            self._next_chunk()

    def stop_all(self) -> None:
        self.notify("ABORTED")
        self.correlation_id = None
        self._clear()

    def stop_tables(self, names: list[str], drop: set[str], sid: str) -> None:
        """stop-snapshot of some tables: queued ones are removed; the current one ends with its window."""
        self.notify("ABORTED", data_collections=",".join(names))
        current = self.queue[0][state.COLLECTION_ID]
        log.info("Removing %s collections from incremental snapshot (signal '%s')", sorted(drop), sid)
        rest = [self.queue[0]]
        for e in self.queue[1:]:
            if e[state.COLLECTION_ID] in drop:
                log.info("Removed '%s' from incremental snapshot collection list.", e[state.COLLECTION_ID])
            else:
                rest.append(e)
        for t in drop - {e[state.COLLECTION_ID] for e in self.queue}:
            log.warning("Could not remove '%s', collection is not part of the incremental snapshot.", t)
        self.queue = rest
        if current in drop:
            # the current table's window is dropped; the window in flight (if any) moves on at its close
            self.buffer = {}
            self.window_table = None
            self.window_ct = None
            self.window_by_surrogate = None
            self.queue.pop(0)
            self.done_key = self.last_key = self.max_key = None
            if not self.queue:
                log.info("Incremental snapshot has stopped.")
                self.correlation_id = None
                self._clear()
            elif self.chunk_id is None and not self.paused and not self.pending_start:
                self._next_chunk()

    def pause(self, sid: str) -> None:
        if self.queue and not self.paused:
            self.paused = True
            log.info("incremental snapshot paused (signal '%s')", sid)
            self.notify("PAUSED", data_collections=self.collections())
        else:
            log.info("pause-snapshot '%s': no incremental snapshot is running", sid)

    def resume(self, sid: str) -> None:
        if self.queue and self.paused:
            self.paused = False
            log.info("incremental snapshot resumed (signal '%s')", sid)
            self.notify("RESUMED", data_collections=self.collections())
            if self.chunk_id is None:
                if self.pending_start:  # restored from offsets and paused before it started
                    self.pending_start = False
                    self.last_key = self.done_key
                self._next_chunk()
        else:
            log.info("resume-snapshot '%s': no paused incremental snapshot", sid)

    def _reset_window(self) -> None:
        self.chunk_id = None
        self.chunk_start = None
        self.window_open = False
        self.buffer = {}
        self.window_table = None
        self.window_ct = None
        self.window_by_surrogate = None
        self.window_mark = None

    # -- chunks -----------------------------------------------------------------------------------------
    def _next_chunk(self) -> None:
        s = self.strategy
        if isinstance(s, watermarks.ReadOnly):
            self._next_chunk_read_only()
        elif isinstance(s, watermarks.InsertDelete):
            self._run_insert_delete()
        else:
            self._open_chunk()

    def _table_to_read(self, entry: dict) -> tuple[Any, list[str]] | None:
        """The current table and its chunking columns, or None (logged) when it has to be skipped."""
        table_id = entry[state.COLLECTION_ID]
        ct = self.source.table_by_id(table_id)
        if ct is None:
            ct = self._retrieve(table_id)
        if ct is None:
            log.warning(
                "Schema not found for table '%s'; it is skipped by the incremental snapshot", table_id
            )
            self._skip_status = "UNKNOWN_SCHEMA"
            return None
        sk = entry.get(state.COLLECTION_SURROGATE)
        if sk:
            if sk not in ct.env.names:
                log.warning(
                    "Incremental snapshot for table '%s' skipped: surrogate key %r is not a column",
                    table_id,
                    sk,
                )
                self._skip_status = "NO_PRIMARY_KEY"
                return None
            return ct, [sk]
        if not ct.env.key_names:
            log.warning(
                "Incremental snapshot for table '%s' skipped cause the table has no primary keys "
                "(give it a primary key, or send a surrogate-key in the execute-snapshot signal)",
                table_id,
            )
            self._skip_status = "NO_PRIMARY_KEY"
            return None
        return ct, list(ct.env.key_names)

    def _retrieve(self, table_id: str) -> Any:
        """Debezium's isTableInvalid: a table its schema does not know is read from the database first
        (`retrieve_schema`, optional; a historized connector records its CREATE). None: still unknown."""
        retrieve = getattr(self.source, "retrieve_schema", None)
        try:
            return self.source.table_by_id(table_id) if retrieve and retrieve(table_id) else None
        except Exception as e:
            if self.retriable(e):
                raise
            log.warning("Schema retrieval failed for %s: %s: %s", table_id, type(e).__name__, _first_line(e))
            return None

    def _read_next(self, read: Callable) -> tuple[Any, Any] | None:
        """Debezium's readChunk loop: the next non-empty chunk, moving past empty/finished/invalid tables.
        `read(ct, key_cols, cond)` returns (rows, mark). Returns (ct, mark) with the buffer filled, or None
        when the snapshot ran out of tables."""
        while self.queue:
            entry = self.queue[0]
            table_id = entry[state.COLLECTION_ID]
            got = self._table_to_read(entry)
            if got is None:
                self._table_finished(self._skip_status)
                continue
            ct, key_cols = got
            cond = entry.get(state.COLLECTION_CONDITION)
            try:
                if cond:  # checked again: offsets may come from elsewhere, columns may have changed
                    cond = self.filters.query(table_id, cond, ct.env.names)
                if self.max_key is None:
                    self.max_key = self.source.max_key(ct, key_cols, cond)
                    if self.max_key is None:
                        log.info(
                            "No maximum key returned by the query, incremental snapshotting of table "
                            "'%s' finished as it is empty",
                            table_id,
                        )
                        self._table_finished("EMPTY")
                        continue
                    log.info(
                        "Incremental snapshot for table '%s' will end at position %s", table_id, self.max_key
                    )
                rows, mark = read(ct, key_cols, cond)
            except ChunkAbandoned as e:
                log.warning(
                    "Error while executing incremental snapshot for table '%s', skipping and continuing "
                    "streaming: %s",
                    table_id,
                    e,
                )
                self._table_finished("SQL_EXCEPTION")
                self.abandoned = True
                return None
            except Exception as e:
                if self.retriable(e):
                    raise
                log.error(
                    "Incremental snapshot of table '%s' failed and is skipped: %s: %s",
                    table_id,
                    type(e).__name__,
                    _first_line(e),
                )
                self._table_finished("SQL_EXCEPTION")
                continue
            # the source may have reloaded a table whose columns changed under the query
            ct = self.source.table_by_id(table_id) or ct
            if not rows:
                log.info(
                    "No data returned by the query, incremental snapshotting of table '%s' finished", table_id
                )
                self._table_finished("SUCCEEDED")
                continue
            self._fill(ct, key_cols, rows)
            self.window_table = table_id
            self.window_ct = ct
            self.rows_scanned += len(rows)
            if self.notifier is not None and self.notifier.enabled:
                self.notify(
                    "IN_PROGRESS",
                    data_collections=self.collections(),
                    current_collection_in_progress=table_id,
                    maximum_key=state.key_text(self.max_key),
                    last_processed_key=state.key_text(self.last_key),
                )
            return ct, mark
        return None

    def _fill(self, ct: Any, key_cols: list[str], rows: list[list]) -> None:
        key_pos = [ct.env.names.index(k) for k in key_cols]
        self.chunk_start = self.last_key
        self.last_key = [rows[-1][i] for i in key_pos]
        drops = getattr(self.source, "drops_failed_row", None)  # event.processing.failure.handling.mode
        self.buffer, self.window_by_surrogate = window_fill.fill(ct.env, key_cols, rows, drops)

    def _read_plain(self, ct, key_cols, cond):
        return self.source.read_chunk(ct, key_cols, self.last_key, self.max_key, self.chunk_size, cond), None

    def _open_chunk(self) -> None:
        """insert_insert: open, (maximum key,) chunk, close - the close row's arrival emits the window."""
        if not self.queue:
            return
        self.chunk_id = str(uuid.uuid4())
        self.window_open = False
        self.buffer = {}
        self.window_table = None
        self.window_ct = None
        self.strategy.open(self.chunk_id)
        self.abandoned = False
        self._read_next(self._read_plain)
        if self.abandoned:
            return
        self.strategy.close(self.chunk_id)
        if not self.queue:
            log.info("incremental snapshot finished")

    def _run_insert_delete(self) -> None:
        """insert_delete: open row in, chunk read, open row deleted, window closed at once (Debezium's
        DeleteWindowCloser closes the window itself instead of waiting for the stream), next chunk."""
        while self.queue and not self.paused and not self.engine.stopping:
            self.chunk_id = str(uuid.uuid4())
            self.strategy.open(self.chunk_id)
            self.abandoned = False
            self._read_next(self._read_plain)
            if self.abandoned:
                break
            self.strategy.close(self.chunk_id)
            self._emit_window()
            # the loop runs inside one stream event: without the engine's periodic commit here a kill -9
            # would lose every chunk of it (Debezium's offsets move on with each record it emits)
            self.engine.tick()
            self.source.keep_alive()
        if not self.queue:
            log.info("incremental snapshot finished")
            self._reset_window()

    def _next_chunk_read_only(self) -> None:
        """read.only: chunk and high watermark in one consistent read; the window is open from now on and
        closes once the stream has passed the watermark. Windows whose watermark the stream has already
        passed close at once, so a quiet database is snapshotted without waiting."""
        read, passed = self.strategy.read, self.strategy.passed

        def read_ro(ct, key_cols, cond):
            return read(ct, key_cols, self.last_key, self.max_key, self.chunk_size, cond)

        while self.queue and not self.paused and not self.engine.stopping:
            self.chunk_id = str(uuid.uuid4())
            got = self._read_next(read_ro)
            if got is None:
                break
            self.window_mark = got[1]
            self.window_open = True
            if not passed(self.window_mark):
                return
            self.window_open = False
            self.window_mark = None
            self._emit_window(next_chunk=False)
        if not self.queue:
            log.info("incremental snapshot finished")
        self._reset_window()

    def _table_finished(self, status: str) -> None:
        entry = self.queue[0]
        self.notify(
            "TABLE_SCAN_COMPLETED",
            data_collections=self.collections(),
            scanned_collection=entry[state.COLLECTION_ID],
            total_rows_scanned=self.rows_scanned,
            status=status,
        )
        self.queue.pop(0)
        self.rows_scanned = 0
        log.info("incremental snapshot of table '%s' done", entry[state.COLLECTION_ID])
        self.done_key = self.last_key = self.max_key = None
        if not self.queue:
            self.paused = False
            self.notify("COMPLETED")
            self.correlation_id = None

    # -- the stream -------------------------------------------------------------------------------------
    def on_watermark(self, sid: str, kind: str) -> None:
        """An open/close row of the signal table seen in the stream (insert_insert windows)."""
        if self.chunk_id is None or self.read_only:
            return
        if kind == watermarks.OPEN:
            if sid == f"{self.chunk_id}-open":
                self.window_open = True
        elif sid == f"{self.chunk_id}-close":
            self.window_open = False
            self._emit_window()

    def _emit_window(self, next_chunk: bool = True) -> None:
        ct = self.window_ct
        if ct is not None and self.buffer:
            env = ct.env
            src = self.source.read_source(ct)
            emit = self.engine.emit
            if env.key_names:
                names = env.key_names
                for after in self.buffer.values():
                    emit(env.change("r", None, after, src, None, {k: after[k] for k in names}))
            else:
                for after in self.buffer.values():
                    emit(env.change("r", None, after, src, None, None))
        if self.window_table is not None:
            self.done_key = self.last_key
        self._reset_window()  # (every caller has closed the window already)
        insert_insert = isinstance(self.strategy, watermarks.InsertInsert)
        if next_chunk and insert_insert and self.queue and not self.paused:
            self._open_chunk()

    def on_stream_event(
        self, table_id: str, key: dict | None, row: dict | None = None, rec: Any = None
    ) -> None:
        """A change the stream emits (for key changes: once per key). `row` is the row image (after, or
        before for deletes), used only for keyless tables windowed by a surrogate key."""
        if not self.window_open or self.window_table != table_id:
            return
        if key is not None:
            if self.buffer.pop(_window_key(list(key.values())), None) is not None:
                log.debug("Removed '%s' from window", key)
        elif self.window_by_surrogate is not None and row is not None:
            self.buffer.pop(_window_key([row.get(self.window_by_surrogate)]), None)

    def on_schema_change(self, table_id: str) -> None:
        """The stream reports a changed schema for `table_id`: a window of that table is read again."""
        if self.window_table != table_id or self.chunk_id is None or self.engine.stopping:
            return
        self.guard("incremental snapshot chunk re-read", self._reread, table_id)

    def _reread(self, table_id: str) -> None:
        log.info(
            "Schema of '%s' changed during an incremental snapshot window: reading the chunk again", table_id
        )
        self.last_key = self.chunk_start
        if self.read_only:
            self.window_open = False
            self.window_mark = None
            self.buffer = {}
            self.window_table = None
            self.window_ct = None
            self._next_chunk_read_only()
        elif isinstance(self.strategy, watermarks.InsertInsert):
            self._open_chunk()

    def on_commit(self) -> None:
        """A transaction has been fully processed (read.only windows close on stream progress)."""
        if self.window_mark is not None and self.strategy.passed(self.window_mark):
            self.guard("incremental snapshot window", self._close_read_only)

    def _close_read_only(self) -> None:
        self.window_open = False
        self.window_mark = None
        self._emit_window(next_chunk=False)
        if self.queue and not self.paused:
            self._next_chunk_read_only()

    def poll(self) -> None:
        """While the stream is idle (and every so often while busy): a snapshot restored from offsets
        starts, a read-only window whose watermark the stream has passed closes."""
        if self.pending_start and not self.paused:
            self.pending_start = False
            self._reset_window()
            self.last_key = self.done_key
            self.guard("resuming the incremental snapshot", self._next_chunk)
        if self.window_mark is not None and self.strategy.passed(self.window_mark):
            self.guard("incremental snapshot window", self._close_read_only)


def _first_line(e: BaseException) -> str:
    text = str(e).strip()
    return text.splitlines()[0] if text else ""
