"""Signals and incremental snapshots (DBLog watermark windows), shared by every connector.

Signals
-------
Channels (`signal.enabled.channels`): `source` (rows inserted into the table named by
`signal.data.collection`, seen in the change stream) and `file` (`signal.file`, one JSON document per line;
processed lines are removed from the file, as Debezium's FileSignalChannel does). Signal types:
`execute-snapshot` (`incremental` or `blocking`), `stop-snapshot`, `pause-snapshot`, `resume-snapshot`,
`log`. A malformed signal (bad JSON, unknown type, missing fields, a refused filter) is logged and skipped;
it never stops the connector.

`additional-conditions` filters are one boolean expression over the table's columns, parsed with the
source's own grammar, checked against an allow-list and rendered from the checked tree with the driver's
literal escaping (emulator/sqlcondition.py: no subqueries, statements, comments, or functions that sleep,
read files or reach other tables). A refused filter refuses the whole signal, so no query runs at all; it is
logged, and with notifications enabled it gets the notifications of a table scan that failed
(STARTED, TABLE_SCAN_COMPLETED with status SQL_EXCEPTION, COMPLETED). `data-collections` never reach SQL
text (they select among the captured tables, whose identifiers are quoted), and `surrogate-key` must name a
column of the table.

Incremental snapshot windows (Debezium's AbstractIncrementalSnapshotChangeEventSource.readChunk)
-------------------------------------------------------------------------------------------------
`insert_insert` (default): insert `<chunk>-open` into the signal table, read the chunk (rows after the last
key and up to the table's maximum key read at the table's start, in key order, at most
`incremental.snapshot.chunk.size`), insert `<chunk>-close`. While the stream is between the open and the
close row, every streamed change of a buffered key drops that key from the buffer (the streamed event is
newer). When the close row arrives, what is left is emitted as `op: r` with `source.snapshot =
"incremental"` right before the close row's own event, and the next window starts. Empty or finished tables
move on to the next table inside the same window, so the last window of a snapshot is an empty one.

`insert_delete` (`incremental.snapshot.watermarking.strategy`): as Debezium's DeleteWindowCloser does, the
open row is inserted, the chunk read, the open row deleted and the window closed at once, without waiting
for the stream: the chunk's reads are emitted immediately and the next chunk follows, until the snapshot
ends or is paused. Every change the stream has not yet delivered is then emitted after the reads, so the
replayed result is still exact; nothing is de-duplicated. The signal table keeps no watermark rows.

Read-only (`read.only=true`): no writes. The connector reads the chunk inside one consistent read and returns
a high watermark with it (PostgreSQL: the WAL insert position taken inside the chunk's REPEATABLE READ
transaction, right after its `pg_current_snapshot()`; every transaction visible to the chunk committed before
that position). The window is open from the chunk read on; it closes when the stream has passed the
watermark, checked after every commit and while the stream is idle (keepalives and heartbeats move the
position on). Signals then come through the `file` channel (or a signal table the user writes to).

Tables without a primary key (and no `surrogate-key`, no `message.key.columns`) are skipped with the warning
Debezium logs ("... skipped cause the table has no primary keys"); a keyless table with a `surrogate-key`
is chunked by that column and its window is keyed by it. A table that is gone is skipped with a warning.

A schema change of the table whose window is open (the stream reports a changed relation) discards the
window and reads the chunk again under a new window, as Debezium's processSchemaChange/rereadChunk does;
the old window's close row is then ignored. Chunk rows are emitted with the schema they were read with.

Progress lives in the connector offsets: the tables still to do (with their filter and surrogate key), the
maximum key and the key of the last emitted chunk. A restart resumes after the last emitted chunk (rows of a
window that had not closed are read again).

The connector supplies the database side (see `IncrementalSource`) and calls `on_signal_row`,
`on_stream_event`, `on_schema_change`, `on_commit`, `poll` and `run_deferred` from its stream.
"""

from __future__ import annotations

import json
import logging
import os
import re
import time
import uuid
from collections.abc import Callable
from datetime import UTC, datetime
from typing import Any, Protocol

from emulator.notifications import INCREMENTAL as INCREMENTAL_AGGREGATE
from emulator.sqlcondition import ConditionError, Predicate, check_condition, check_select, dialect_of

log = logging.getLogger("emulator.incremental")

COLLECTION_ID = "incremental_snapshot_collections_id"
COLLECTION_CONDITION = "incremental_snapshot_collections_additional_condition"
COLLECTION_SURROGATE = "incremental_snapshot_collections_surrogate_key"


class IncrementalSource(Protocol):
    """What a connector provides. Keys are lists of the key columns' values as the database prints them
    (opaque to this module, stored in offsets and handed back)."""

    def captured_table_ids(self) -> list[str]: ...

    def table_by_id(self, table_id: str) -> Any: ...  # None when gone; has .env (TableEnvelope)

    def max_key(self, ct: Any, key_cols: list[str], condition: str | None) -> list | None: ...

    def read_chunk(self, ct: Any, key_cols: list[str], after: list | None, upto: list,
                   limit: int, condition: str | None) -> list[list]: ...

    def write_watermark(self, row_id: str, kind: str, data: str) -> None: ...  # INSERT into the signal table

    def read_source(self, ct: Any) -> dict: ...  # source block of an incremental read

    # Optional (looked up with getattr):
    #   delete_watermark(row_id)                      insert_delete strategy
    #   read_chunk_with_watermark(ct, key_cols, after, upto, limit, condition) -> (rows, mark)   read.only
    #   watermark_passed(mark) -> bool                read.only: the stream has passed `mark`
    #   blocking_snapshot(tables, filters)            execute-snapshot type blocking (filters: table -> SELECT)
    #   keep_alive()                                  called between chunks of a long synchronous loop


def _iso_now() -> str:
    now = datetime.now(UTC)
    return now.strftime("%Y-%m-%dT%H:%M:%S.") + f"{now.microsecond:06d}000Z"


class SignalError(ValueError):
    pass


# -- filters -------------------------------------------------------------------------------------------------
# Parsing, checking and rendering live in emulator/sqlcondition.py; these two keep the older text API.


def validate_condition(condition: str, columns: list[str], table: tuple[str, str] | None = None,
                       dialect: str = "postgres") -> str:
    """An `additional-conditions` filter checked for `dialect`; returns the SQL generated from the checked
    tree (values shown as standard literals). Raises ConditionError."""
    return str(check_condition(condition, columns, table, dialect))


def validate_blocking_filter(flt: str, table: tuple[str, str], columns: list[str],
                             dialect: str = "postgres") -> str:
    """A blocking snapshot's filter (a SELECT of that table, or a predicate) checked for `dialect`."""
    return str(check_select(flt, table, columns, dialect))


# -- the snapshot ------------------------------------------------------------------------------------------

class IncrementalSnapshot:
    def __init__(self, source: IncrementalSource, config, engine) -> None:
        get = config.get
        self.source = source
        self.engine = engine
        self.chunk_size = int(get("incremental.snapshot.chunk.size") or 1024)
        if self.chunk_size <= 0:
            self.chunk_size = 1024
        self.signal_table = (get("signal.data.collection") or "").strip() or None
        self.strategy = (get("incremental.snapshot.watermarking.strategy") or "insert_insert").lower()
        self.read_only = str(get("read.only") or "").strip().lower() == "true"
        channels = get("signal.enabled.channels") or "source"
        self.channels = {c.strip().lower() for c in channels.split(",") if c.strip()}
        self._config = config
        self.dialect = dialect_of(getattr(config, "connector", None))  # the source's SQL grammar
        self.kafka_channel = None  # opened on first poll: the connector is streaming by then
        for ch in self.channels - {"source", "file", "kafka"}:
            log.warning("signal channel %r is not available in the emulator yet; its signals are not read", ch)
        self.signal_file = (get("signal.file") or "file-signals.txt") if "file" in self.channels else None
        self.file_poll_s = max(int(get("signal.poll.interval.ms") or 5000), 1) / 1000.0
        self._next_file_poll = 0.0
        # progress: tables still to do, current first: {id, condition, surrogate}
        self.queue: list[dict[str, Any]] = []
        self.last_key: list | None = None  # end of the chunk read last (the next chunk starts after it)
        self.done_key: list | None = None  # end of the last emitted chunk (what a restart resumes after)
        self.max_key: list | None = None
        # the window in flight
        self.chunk_id: str | None = None
        self.chunk_start: list | None = None
        self.window_open = False
        self.buffer: dict[tuple, dict] = {}
        self.window_table: str | None = None
        self.window_ct: Any = None
        self.window_by_surrogate: str | None = None  # keyless table: window keyed by this column
        self.window_mark: Any = None  # read-only high watermark
        self.paused = False
        self.pending_start = False
        self.deferred: list[Callable[[], None]] = []
        self.blocking: Callable[[list[str], dict[str, str]], None] | None = \
            getattr(source, "blocking_snapshot", None)
        self.notifier = getattr(source, "notifier", None)
        self.correlation_id: str | None = None  # the execute-snapshot signal's id: notifications' id
        self.rows_scanned = 0  # rows read from the current table so far (TABLE_SCAN_COMPLETED)
        self._skip_status = "UNKNOWN_SCHEMA"  # why _table_to_read refused the current table

    # -- state ------------------------------------------------------------------------------------------
    @property
    def active(self) -> bool:
        """A window is open: streamed changes must go through `on_stream_event`."""
        return self.window_open

    @property
    def running(self) -> bool:
        return bool(self.queue)

    @property
    def waiting_for_stream(self) -> bool:
        """read.only: a window waits for the stream to pass its watermark (check after commits)."""
        return self.window_mark is not None

    def offset(self) -> dict | None:
        if not self.queue:
            return None
        return {"incremental_snapshot_collections": [dict(e) for e in self.queue],
                "incremental_snapshot_primary_key": self.done_key,
                "incremental_snapshot_maximum_key": self.max_key,
                "incremental_snapshot_correlation_id": self.correlation_id}

    def restore(self, stored: dict) -> None:
        cols = stored.get("incremental_snapshot_collections")
        if not cols:
            return
        conds = stored.get("incremental_snapshot_conditions") or {}
        surr = stored.get("incremental_snapshot_surrogate_keys") or {}
        queue = []
        for c in cols:
            if isinstance(c, str):  # older offsets: ids only, filters beside them
                queue.append(_entry(c, conds.get(c), surr.get(c)))
            elif isinstance(c, dict) and c.get(COLLECTION_ID):
                queue.append(_entry(c[COLLECTION_ID], c.get(COLLECTION_CONDITION), c.get(COLLECTION_SURROGATE)))
        if not queue:
            return
        self.queue = queue
        self.done_key = self.last_key = stored.get("incremental_snapshot_primary_key")
        self.max_key = stored.get("incremental_snapshot_maximum_key")
        self.correlation_id = stored.get("incremental_snapshot_correlation_id")
        self.pending_start = True
        log.info("incremental snapshot in progress: resuming %s after key %s",
                 ", ".join(e[COLLECTION_ID] for e in self.queue), self.done_key)

    def _notify(self, kind: str, **data: Any) -> None:
        """An "Incremental Snapshot" notification (Debezium's IncrementalSnapshotNotificationService)."""
        n = self.notifier
        if n is not None and n.enabled:
            n.notify(INCREMENTAL_AGGREGATE, kind, {k: str(v) for k, v in data.items()}, self.correlation_id)

    def _collections(self) -> str:
        return ",".join(e[COLLECTION_ID] for e in self.queue)

    def _guard(self, what: str, fn: Callable, *args) -> None:
        """Database errors that a restart would not cure (a filter value of the wrong type, a missing
        signal table, a permission) stop the snapshot with a logged error instead of the connector;
        connection failures propagate (the runner restarts the connector from its offsets)."""
        try:
            fn(*args)
        except (SignalError, ConditionError, re.error, TypeError, AttributeError):
            raise  # a malformed signal: logged and skipped by `signal`, the snapshot goes on
        except Exception as e:
            if self.source.is_retriable(e):
                raise
            first = str(e).strip().splitlines()[0] if str(e).strip() else ""
            log.error("%s failed (%s: %s); the incremental snapshot is stopped", what, type(e).__name__, first)
            self.queue = []
            self._reset_window()
            self.done_key = self.last_key = self.max_key = None
            self.paused = False
            self.pending_start = False

    # -- signals ----------------------------------------------------------------------------------------
    def on_signal_row(self, row: dict) -> None:
        """A row inserted into the signal table (seen in the stream)."""
        sid = "" if row.get("id") is None else str(row.get("id"))
        kind = "" if row.get("type") is None else str(row.get("type"))
        if kind in ("snapshot-window-open", "snapshot-window-close"):
            self._guard("incremental snapshot window", self._on_watermark, sid, kind)
            return
        if "source" not in self.channels:
            return
        self.signal(sid, kind, row.get("data"), channel="source")

    def signal(self, sid: str, kind: str, data: Any, channel: str = "source") -> None:
        """Handle one signal; anything wrong with it is logged and the signal skipped."""
        try:
            if not kind:
                raise SignalError("the signal has no type")
            if isinstance(data, str):
                try:
                    payload = json.loads(data) if data.strip() else {}
                except ValueError:
                    log.warning("Signal '%s' has been received but the data '%s' cannot be parsed", sid,
                                data[:300])
                    return
            elif data is None:
                payload = {}
            else:
                payload = data
            if not isinstance(payload, dict):
                raise SignalError("data is not a JSON object")
            log.info("Received signal '%s' of type '%s' (%s channel)", sid, kind, channel)
            self._guard(f"signal '{sid}' ({kind})", self._dispatch, sid, kind, payload)
        except (SignalError, ConditionError, re.error, TypeError, AttributeError) as e:
            log.error("signal '%s' (%s) ignored: %s", sid, kind, e)

    def _dispatch(self, sid: str, kind: str, data: dict) -> None:
        if kind == "log":
            message = data.get("message")
            if not message:
                log.warning("Logging signal '%s' has arrived but the requested field 'message' is missing "
                            "from data", sid)
                return
            src = getattr(self.engine, "source", None)
            off = src.offset() if src is not None else None
            logging.getLogger("emulator.signal").info(str(message).replace("{}", str(off), 1))
        elif kind == "execute-snapshot":
            self._execute(sid, data)
        elif kind == "stop-snapshot":
            self._stop(sid, data)
        elif kind == "pause-snapshot":
            if self.queue and not self.paused:
                self.paused = True
                log.info("incremental snapshot paused (signal '%s')", sid)
                self._notify("PAUSED", data_collections=self._collections())
            else:
                log.info("pause-snapshot '%s': no incremental snapshot is running", sid)
        elif kind == "resume-snapshot":
            if self.queue and self.paused:
                self.paused = False
                log.info("incremental snapshot resumed (signal '%s')", sid)
                self._notify("RESUMED", data_collections=self._collections())
                if self.chunk_id is None:
                    if self.pending_start:  # restored from offsets and paused before it started
                        self.pending_start = False
                        self.last_key = self.done_key
                    self._next_chunk()
            else:
                log.info("resume-snapshot '%s': no paused incremental snapshot", sid)
        else:
            log.warning("Signal '%s' has been received but the type '%s' is not recognized", sid, kind)

    def _execute(self, sid: str, data: dict) -> None:
        stype = str(data.get("type") or "incremental").strip().lower()
        if stype not in ("incremental", "blocking"):
            raise SignalError(f"snapshot type {stype!r} is not incremental or blocking")
        names = data.get("data-collections")
        if not isinstance(names, list) or not names or not all(isinstance(n, str) for n in names):
            raise SignalError("execute-snapshot needs a non-empty 'data-collections' array of names")
        tables = self._expand(names)
        conds = data.get("additional-conditions") or []
        if not isinstance(conds, list):
            raise SignalError("'additional-conditions' must be an array")
        if data.get("additional-condition"):  # the pre-2.5 form: one filter for every table
            conds = [{"data-collection": ".*", "filter": data["additional-condition"]}, *conds]
        matchers = []
        for ac in conds:
            if not isinstance(ac, dict) or not ac.get("data-collection") or ac.get("filter") is None:
                raise SignalError("additional-conditions items need 'data-collection' and 'filter'")
            matchers.append((re.compile(str(ac["data-collection"]).replace('"', ""), re.IGNORECASE),
                             self._filter_text(ac["filter"])))
        surrogate = data.get("surrogate-key") if self.supports_surrogate_key else None
        surrogate = str(surrogate).strip() if surrogate else None
        if stype == "blocking":
            self._execute_blocking(sid, tables, matchers)
            return
        if not self.read_only and not self.signal_table:
            raise SignalError("incremental snapshots need signal.data.collection (the watermark table or "
                              "collection), or read.only=true")
        if self.read_only and getattr(self.source, "read_chunk_with_watermark", None) is None:
            raise SignalError("this connector has no read-only incremental snapshots")
        entries = []
        for t in tables:
            ct = self.source.table_by_id(t)
            cond = next((f for rx, f in matchers if rx.fullmatch(t)), None)
            if ct is not None:
                try:
                    if cond is not None:
                        cond = self._checked_condition(t, cond, ct)
                    if surrogate and surrogate not in ct.env.names:
                        raise SignalError(f"surrogate-key {surrogate!r} is not a column of {t}")
                except (ConditionError, SignalError):
                    self._notify_refused(sid, tables)
                    raise
            entries.append(_entry(t, cond, surrogate))
        start = not self.queue
        self.queue.extend(entries)
        log.info("Requested 'INCREMENTAL' snapshot of data collections %s (signal '%s')%s%s",
                 [e[COLLECTION_ID] for e in entries], sid,
                 "" if not any(e[COLLECTION_CONDITION] for e in entries) else " with additional conditions",
                 f", surrogate key {surrogate!r}" if surrogate else "")
        if start:
            self.paused = False
            self.pending_start = False
            self.done_key = self.last_key = self.max_key = None
            self.rows_scanned = 0
            self.correlation_id = sid
            self._notify("STARTED", data_collections=self._collections())
            self._next_chunk()

    # Hooks for connectors whose additional-conditions are not SQL (MongoDB: JSON query documents).
    supports_surrogate_key = True

    def _filter_text(self, flt: Any) -> str:
        """An `additional-conditions` filter as given, kept as text (checked per table later)."""
        return str(flt)

    def _checked_condition(self, table_id: str, condition: str, ct: Any) -> str:
        """The filter for one table, checked now (a refused filter refuses the signal); the text is what
        the offsets keep, as Debezium's do, and is checked again when a chunk query is built from it."""
        self._query_condition(table_id, condition, ct)
        return condition

    def _query_condition(self, table_id: str, condition: str, ct: Any) -> Predicate | str:
        """What the source's chunk queries get: the checked predicate, rendered by the source with its
        driver's literal escaping (never the user's text)."""
        schema, _, tname = table_id.partition(".")
        return check_condition(condition, ct.env.names, (schema, tname), self.dialect)

    def _notify_refused(self, sid: str, tables: list[str]) -> None:
        """A refused filter: the notifications Debezium sends when a table's chunk query fails (its scan
        completes with status SQL_EXCEPTION), without any query having run; a snapshot in progress goes on."""
        n = self.notifier
        if n is None or not n.enabled:
            return
        alone = not self.queue
        keep = self.correlation_id
        self.correlation_id = sid
        if alone:
            self._notify("STARTED", data_collections=",".join(tables))
        for t in tables:
            self._notify("TABLE_SCAN_COMPLETED", data_collections=",".join(tables), scanned_collection=t,
                         total_rows_scanned=0, status="SQL_EXCEPTION")
        if alone:
            self._notify("COMPLETED")
        self.correlation_id = keep

    def _execute_blocking(self, sid: str, tables: list[str], matchers) -> None:
        if self.blocking is None:
            raise SignalError("blocking snapshots are not supported by this connector")
        filters: dict[str, str] = {}
        known = []
        for t in tables:
            ct = self.source.table_by_id(t)
            if ct is None:
                log.warning("blocking snapshot: table %s is not known; skipped", t)
                continue
            known.append(t)
            flt = next((f for rx, f in matchers if rx.fullmatch(t)), None)
            if flt is not None:
                schema, _, tname = t.partition(".")
                filters[t] = check_select(flt, (schema, tname), ct.env.names, self.dialect)
        log.info("Requested 'BLOCKING' snapshot of data collections %s (signal '%s')", known, sid)
        fn = self.blocking
        # runs once the current event is out (Debezium pauses the stream after it)
        self.deferred.append(lambda: fn(known, filters))

    def run_deferred(self) -> None:
        while self.deferred:
            fn = self.deferred.pop(0)
            try:
                fn()
            except Exception as e:
                if self.source.is_retriable(e):
                    raise
                first = str(e).strip().splitlines()[0] if str(e).strip() else ""
                log.warning("Error while executing requested blocking snapshot (%s: %s); streaming resumes",
                            type(e).__name__, first)

    def _stop(self, sid: str, data: dict) -> None:
        stype = str(data.get("type") or "incremental").strip().lower()
        if stype == "blocking":
            log.warning("Stopping a blocking snapshot is not supported (signal '%s')", sid)
            return
        if stype != "incremental":
            raise SignalError(f"snapshot type {stype!r} is not incremental or blocking")
        if not self.queue:
            log.warning("No active incremental snapshot, stop ignored (signal '%s')", sid)
            return
        names = data.get("data-collections")
        if not names:
            log.info("Stopping incremental snapshot (signal '%s')", sid)
            self._notify("ABORTED")
            self.correlation_id = None
            self.queue = []
            self._reset_window()
            self.done_key = self.last_key = self.max_key = None
            self.paused = False
            self.pending_start = False
            return
        if not isinstance(names, list):
            raise SignalError("'data-collections' must be an array")
        drop = set(self._expand([str(n) for n in names]))
        self._notify("ABORTED", data_collections=",".join(str(n) for n in names))
        current = self.queue[0][COLLECTION_ID]
        log.info("Removing %s collections from incremental snapshot (signal '%s')", sorted(drop), sid)
        rest = [self.queue[0]]
        for e in self.queue[1:]:
            if e[COLLECTION_ID] in drop:
                log.info("Removed '%s' from incremental snapshot collection list.", e[COLLECTION_ID])
            else:
                rest.append(e)
        for t in drop - {e[COLLECTION_ID] for e in self.queue}:
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
                self._reset_window()
                self.paused = False
                self.pending_start = False
            elif self.chunk_id is None and not self.paused and not self.pending_start:
                self._next_chunk()

    def _expand(self, names: list[str]) -> list[str]:
        """Debezium's expandDataCollectionIds: each name is a regex over the captured tables' ids; a name
        matching nothing is kept as it is (and skipped, with a warning, when its turn comes)."""
        ids = self.source.captured_table_ids()
        out: list[str] = []
        for n in names:
            n = str(n).strip()
            plain = n.replace('"', "")
            pat = re.compile(plain)
            hits = [t for t in ids if t == plain or pat.fullmatch(t)]
            out.extend(hits if hits else [plain])
        return out

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
        if self.read_only:
            self._next_chunk_read_only()
        elif self.strategy == "insert_delete":
            self._run_insert_delete()
        else:
            self._open_chunk()

    def _table_to_read(self, entry: dict) -> tuple[Any, list[str]] | None:
        """The current table and its chunking columns, or None (logged) when it has to be skipped."""
        table_id = entry[COLLECTION_ID]
        ct = self.source.table_by_id(table_id)
        if ct is None:
            log.warning("Schema not found for table '%s'; it is skipped by the incremental snapshot", table_id)
            self._skip_status = "UNKNOWN_SCHEMA"
            return None
        sk = entry.get(COLLECTION_SURROGATE)
        if sk:
            if sk not in ct.env.names:
                log.warning("Incremental snapshot for table '%s' skipped: surrogate key %r is not a column",
                            table_id, sk)
                self._skip_status = "NO_PRIMARY_KEY"
                return None
            return ct, [sk]
        if not ct.env.key_names:
            log.warning("Incremental snapshot for table '%s' skipped cause the table has no primary keys "
                        "(give it a primary key, or send a surrogate-key in the execute-snapshot signal)",
                        table_id)
            self._skip_status = "NO_PRIMARY_KEY"
            return None
        return ct, list(ct.env.key_names)

    def _read_next(self, read: Callable) -> tuple[Any, Any] | None:
        """Debezium's readChunk loop: the next non-empty chunk, moving past empty/finished/invalid tables.
        `read(ct, key_cols, cond)` returns (rows, mark). Returns (ct, mark) with the buffer filled, or None
        when the snapshot ran out of tables."""
        while self.queue:
            entry = self.queue[0]
            table_id = entry[COLLECTION_ID]
            got = self._table_to_read(entry)
            if got is None:
                self._table_finished(self._skip_status)
                continue
            ct, key_cols = got
            cond = entry.get(COLLECTION_CONDITION)
            try:
                if cond:  # checked again: offsets may come from elsewhere, columns may have changed
                    cond = self._query_condition(table_id, cond, ct)
                if self.max_key is None:
                    self.max_key = self.source.max_key(ct, key_cols, cond)
                    if self.max_key is None:
                        log.info("No maximum key returned by the query, incremental snapshotting of table "
                                 "'%s' finished as it is empty", table_id)
                        self._table_finished("EMPTY")
                        continue
                    log.info("Incremental snapshot for table '%s' will end at position %s", table_id,
                             self.max_key)
                rows, mark = read(ct, key_cols, cond)
            except Exception as e:
                if self.source.is_retriable(e):
                    raise
                log.error("Incremental snapshot of table '%s' failed and is skipped: %s: %s", table_id,
                          type(e).__name__, str(e).strip().splitlines()[0] if str(e).strip() else "")
                self._table_finished("SQL_EXCEPTION")
                continue
            # the source may have reloaded a table whose columns changed under the query
            ct = self.source.table_by_id(table_id) or ct
            if not rows:
                log.info("No data returned by the query, incremental snapshotting of table '%s' finished",
                         table_id)
                self._table_finished("SUCCEEDED")
                continue
            env = ct.env
            names = env.names
            key_pos = [names.index(k) for k in key_cols]
            self.chunk_start = self.last_key
            self.last_key = [rows[-1][i] for i in key_pos]
            buf: dict[tuple, dict] = {}
            if env.key_names:
                key_names = env.key_names
                snap = env.snapshot_row
                for raw in rows:
                    after = snap(raw)
                    buf[tuple(after[k] for k in key_names)] = after
                self.window_by_surrogate = None
            else:  # keyless table chunked by its surrogate key: the window is keyed by that column
                sk = key_cols[0]
                for raw in rows:
                    after = env.snapshot_row(raw)
                    buf[(after[sk],)] = after
                self.window_by_surrogate = sk
            self.buffer = buf
            self.window_table = table_id
            self.window_ct = ct
            self.rows_scanned += len(rows)
            if self.notifier is not None and self.notifier.enabled:
                self._notify("IN_PROGRESS", data_collections=self._collections(),
                             current_collection_in_progress=table_id,
                             maximum_key=_key_text(self.max_key), last_processed_key=_key_text(self.last_key))
            return ct, mark
        return None

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
        opened = _iso_now()
        self.source.write_watermark(f"{self.chunk_id}-open", "snapshot-window-open",
                                    json.dumps({"openWindowTimestamp": opened}))
        self._read_next(self._read_plain)
        self.source.write_watermark(f"{self.chunk_id}-close", "snapshot-window-close",
                                    json.dumps({"openWindowTimestamp": opened,
                                                "closeWindowTimestamp": _iso_now()}))
        if not self.queue:
            log.info("incremental snapshot finished")

    def _run_insert_delete(self) -> None:
        """insert_delete: open row in, chunk read, open row deleted, window closed at once (Debezium's
        DeleteWindowCloser closes the window itself instead of waiting for the stream), next chunk."""
        delete = getattr(self.source, "delete_watermark", None)
        if delete is None:
            log.error("incremental.snapshot.watermarking.strategy=insert_delete is not supported by this "
                      "connector; using insert_insert")
            self.strategy = "insert_insert"
            self._open_chunk()
            return
        keep_alive = getattr(self.source, "keep_alive", None)
        while self.queue and not self.paused and not self.engine.stopping:
            self.chunk_id = str(uuid.uuid4())
            self.source.write_watermark(f"{self.chunk_id}-open", "snapshot-window-open",
                                        json.dumps({"openWindowTimestamp": _iso_now()}))
            self._read_next(self._read_plain)
            delete(f"{self.chunk_id}-open")
            self._emit_window()
            # the loop runs inside one stream event: without the engine's periodic commit here a kill -9
            # would lose every chunk of it (Debezium's offsets move on with each record it emits)
            self.engine.tick()
            if keep_alive is not None:
                keep_alive()
        if not self.queue:
            log.info("incremental snapshot finished")
            self._reset_window()

    def _next_chunk_read_only(self) -> None:
        """read.only: chunk and high watermark in one consistent read; the window is open from now on and
        closes once the stream has passed the watermark. Windows whose watermark the stream has already
        passed close at once, so a quiet database is snapshotted without waiting."""
        read = self.source.read_chunk_with_watermark
        passed = self.source.watermark_passed

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
        self._notify("TABLE_SCAN_COMPLETED", data_collections=self._collections(),
                     scanned_collection=entry[COLLECTION_ID], total_rows_scanned=self.rows_scanned, status=status)
        self.queue.pop(0)
        self.rows_scanned = 0
        log.info("incremental snapshot of table '%s' done", entry[COLLECTION_ID])
        self.done_key = self.last_key = self.max_key = None
        if not self.queue:
            self.paused = False
            self._notify("COMPLETED")
            self.correlation_id = None

    def _on_watermark(self, sid: str, kind: str) -> None:
        if self.chunk_id is None or self.read_only:
            return
        if kind == "snapshot-window-open":
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
                for key_vals, after in self.buffer.items():
                    emit(env.change("r", None, after, src, None, dict(zip(names, key_vals))))
            else:
                for after in self.buffer.values():
                    emit(env.change("r", None, after, src, None, None))
        if self.window_table is not None:
            self.done_key = self.last_key
        self.buffer = {}
        self.window_table = None
        self.window_ct = None
        self.window_by_surrogate = None
        self.chunk_id = None
        self.chunk_start = None
        if next_chunk and self.queue and not self.paused and not self.read_only and \
                self.strategy != "insert_delete":
            self._open_chunk()

    def on_stream_event(self, table_id: str, key: dict | None, row: dict | None = None, rec: Any = None) -> None:
        """A change the stream emits (for key changes: once per key). `row` is the row image (after, or
        before for deletes), used only for keyless tables windowed by a surrogate key."""
        if not self.window_open or self.window_table != table_id:
            return
        if key is not None:
            if self.buffer.pop(tuple(key.values()), None) is not None:
                log.debug("Removed '%s' from window", key)
        elif self.window_by_surrogate is not None and row is not None:
            self.buffer.pop((row.get(self.window_by_surrogate),), None)

    def on_schema_change(self, table_id: str) -> None:
        """The stream reports a changed schema for `table_id`: a window of that table is read again."""
        if self.window_table != table_id or self.chunk_id is None or self.engine.stopping:
            return
        self._guard("incremental snapshot chunk re-read", self._reread, table_id)

    def _reread(self, table_id: str) -> None:
        log.info("Schema of '%s' changed during an incremental snapshot window: reading the chunk again",
                 table_id)
        self.last_key = self.chunk_start
        if self.read_only:
            self.window_open = False
            self.window_mark = None
            self.buffer = {}
            self.window_table = None
            self.window_ct = None
            self._next_chunk_read_only()
        elif self.strategy == "insert_insert":
            self._open_chunk()

    def on_commit(self) -> None:
        """A transaction has been fully processed (read.only windows close on stream progress)."""
        if self.window_mark is not None and self.source.watermark_passed(self.window_mark):
            self._guard("incremental snapshot window", self._close_read_only)

    def _close_read_only(self) -> None:
        self.window_open = False
        self.window_mark = None
        self._emit_window(next_chunk=False)
        if self.queue and not self.paused:
            self._next_chunk_read_only()

    # -- polling ----------------------------------------------------------------------------------------
    def poll(self) -> None:
        """Called while the stream is idle and every so often while it is busy."""
        if self.pending_start and not self.paused:
            self.pending_start = False
            self._reset_window()
            self.last_key = self.done_key
            self._guard("resuming the incremental snapshot", self._next_chunk)
        if self.window_mark is not None and self.source.watermark_passed(self.window_mark):
            self._guard("incremental snapshot window", self._close_read_only)
        if self.signal_file is not None:
            now = time.monotonic()
            if now >= self._next_file_poll:
                self._next_file_poll = now + self.file_poll_s
                self._poll_file()
        if "kafka" in self.channels:
            self._poll_kafka()
        if self.deferred:
            self.run_deferred()

    def _poll_kafka(self) -> None:
        if self.kafka_channel is None:
            from emulator.signals_kafka import KafkaSignalChannel

            try:
                self.kafka_channel = KafkaSignalChannel(self._config, self._config.get("topic.prefix"))
            except Exception as e:  # a missing broker must not stop the capture
                log.error("Kafka signal channel unavailable: %s", e)
                self.channels.discard("kafka")
                return
        for sid, kind, data in self.kafka_channel.poll():
            self.signal(sid, kind, data, channel="kafka")

    def _poll_file(self) -> None:
        """Debezium's FileSignalChannel: read every line, empty the file, handle the signals."""
        path = self.signal_file
        try:
            with open(path, "r+b") as f:
                data = f.read()
                if not data:
                    return
                # keep a last line still being written (no newline and not yet a whole JSON document)
                keep = b""
                if not data.endswith(b"\n"):
                    head, _, tail = data.rpartition(b"\n")
                    try:
                        json.loads(tail)
                    except ValueError:
                        data, keep = head + (b"\n" if head else b""), tail
                f.seek(0)
                f.truncate(0)
                if keep:
                    f.write(keep)
                f.flush()
                os.fsync(f.fileno())
        except FileNotFoundError:
            return
        except OSError as e:
            log.warning("signal file %s cannot be read: %s", path, e)
            return
        for line in data.split(b"\n"):
            line = line.strip()
            if not line:
                continue
            try:
                doc = json.loads(line)
                if not isinstance(doc, dict) or "type" not in doc:
                    raise ValueError("not a JSON object with id, type and data")
                data_field = doc.get("data")
                self.signal("" if doc.get("id") is None else str(doc["id"]), str(doc["type"]),
                            data_field, channel="file")
            except ValueError as e:
                log.warning("Skipped signal due to an error '%s': %s", line[:300].decode(errors="replace"), e)

    def close(self) -> None:
        if self.kafka_channel is not None:
            self.kafka_channel.close()
            self.kafka_channel = None


def _key_text(key: list | None) -> str:
    """A key as Debezium's notifications print it: values joined by ',' (Objects.toString)."""
    if key is None:
        return '"<null>"'
    return ",".join("<null>" if v is None else str(v) for v in key)


def _entry(table_id: str, condition: str | None, surrogate: str | None) -> dict[str, Any]:
    return {COLLECTION_ID: table_id, COLLECTION_CONDITION: condition or None,
            COLLECTION_SURROGATE: surrogate or None}
