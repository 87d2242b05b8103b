"""Signals and incremental snapshots (DBLog watermark windows), shared by every connector.

Per chunk: insert `<chunk>-open` into the signal table, read the chunk (rows with key > last key and
<= the table's maximum key read at start, in key order, `incremental.snapshot.chunk.size` rows), insert
`<chunk>-close`. While the stream is between the open and the close row, every streamed change of a
buffered key drops that key from the buffer (the streamed event is newer). When the close row arrives the
rest of the buffer is emitted as `op: r` with `source.snapshot = "incremental"`, right before the close
row's own event, and the next chunk starts. Progress (collections, last key, maximum key) lives in the
connector offsets, so a restart resumes after the last finished chunk.

The connector supplies the database side through `IncrementalSource`.
"""

from __future__ import annotations

import json
import logging
import re
import uuid
from collections.abc import Callable
from datetime import UTC, datetime
from typing import Any, Protocol

log = logging.getLogger("emulator.incremental")


class IncrementalSource(Protocol):
    def captured_table_ids(self) -> list[str]: ...

    def table_by_id(self, table_id: str) -> Any: ...  # has .env (TableEnvelope)

    def max_key(self, ct: Any, key_cols: list[str], condition: str | None) -> list[str] | None: ...

    def read_chunk(self, ct: Any, key_cols: list[str], after: list[str] | None, upto: list[str],
                   limit: int, condition: str | None) -> list[list]: ...

    def write_watermark(self, row_id: str, kind: str, data: str) -> None: ...

    def read_source(self, ct: Any) -> dict: ...


def _iso_now() -> str:
    now = datetime.now(UTC)
    return now.strftime("%Y-%m-%dT%H:%M:%S.") + f"{now.microsecond:06d}000Z"


class ConditionError(ValueError):
    pass


def validate_condition(condition: str, columns: list[str]) -> str:
    """`additional-conditions` filters are one boolean predicate over the table's columns; anything else
    (several statements, comments, subqueries, unknown columns) is refused."""
    import sqlglot
    from sqlglot import exp

    text = condition.strip()
    if not text:
        raise ConditionError("empty filter")
    if ";" in text or "--" in text or "/*" in text:
        raise ConditionError(f"filter {condition!r} must be a single predicate (no ';' or comments)")
    try:
        stmts = sqlglot.parse(f"SELECT 1 FROM t WHERE {text}", read="postgres")
    except sqlglot.errors.ParseError as e:
        raise ConditionError(f"filter {condition!r} does not parse: {str(e).splitlines()[0]}") from None
    if len(stmts) != 1 or not isinstance(stmts[0], exp.Select):
        raise ConditionError(f"filter {condition!r} must be a single predicate")
    where = stmts[0].args.get("where")
    if where is None:
        raise ConditionError(f"filter {condition!r} is not a predicate")
    for node in where.walk():
        if isinstance(node, (exp.Select, exp.Subquery, exp.Union, exp.Insert, exp.Update, exp.Delete,
                             exp.Command)):
            raise ConditionError(f"filter {condition!r} may not contain a subquery or statement")
    known = {c.lower() for c in columns}
    for col in where.find_all(exp.Column):
        if col.name.lower() not in known:
            raise ConditionError(f"filter {condition!r} names unknown column {col.name!r}")
    return text


class IncrementalSnapshot:
    def __init__(self, source: IncrementalSource, config, engine) -> None:
        get = config.get
        self.source = source
        self.engine = engine
        self.chunk_size = int(get("incremental.snapshot.chunk.size") or 1024)
        self.signal_table = (get("signal.data.collection") or "").strip() or None
        self.strategy = (get("incremental.snapshot.watermarking.strategy") or "insert_insert").lower()
        channels = get("signal.enabled.channels") or "source"
        self.channels = {c.strip().lower() for c in channels.split(",") if c.strip()}
        self.signal_file = get("signal.file")
        self._file_pos = 0
        # state
        self.queue: list[str] = []  # table ids still to snapshot, current first
        self.conditions: dict[str, str] = {}
        self.surrogate: dict[str, str] = {}
        self.last_key: list[str] | None = None
        self.max_key: list[str] | None = None
        self.chunk_id: str | None = None
        self.window_open = False
        self.buffer: dict[tuple, dict] = {}
        self.window_table: str | None = None
        self.paused = False
        self.pending_start = False
        self.blocking: Callable[[list[str]], None] | None = None

    # -- state ------------------------------------------------------------------------------------------
    @property
    def active(self) -> bool:
        return self.window_open

    @property
    def running(self) -> bool:
        return bool(self.queue)

    def offset(self) -> dict | None:
        if not self.queue:
            return None
        return {"incremental_snapshot_collections": list(self.queue),
                "incremental_snapshot_primary_key": self.last_key,
                "incremental_snapshot_maximum_key": self.max_key,
                "incremental_snapshot_conditions": self.conditions or None,
                "incremental_snapshot_surrogate_keys": self.surrogate or None}

    def restore(self, stored: dict) -> None:
        cols = stored.get("incremental_snapshot_collections")
        if not cols:
            return
        self.queue = list(cols)
        self.last_key = stored.get("incremental_snapshot_primary_key")
        self.max_key = stored.get("incremental_snapshot_maximum_key")
        self.conditions = stored.get("incremental_snapshot_conditions") or {}
        self.surrogate = stored.get("incremental_snapshot_surrogate_keys") or {}
        self.pending_start = True
        log.info("resuming incremental snapshot of %s after key %s", ", ".join(self.queue), self.last_key)

    # -- signals ----------------------------------------------------------------------------------------
    def on_signal_row(self, row: dict) -> None:
        """A row inserted into the signal table (seen in the stream)."""
        sid = str(row.get("id") or "")
        kind = str(row.get("type") or "")
        if kind in ("snapshot-window-open", "snapshot-window-close"):
            self._on_watermark(sid, kind)
            return
        if "source" not in self.channels:
            return
        self.signal(sid, kind, row.get("data"))

    def signal(self, sid: str, kind: str, data: Any) -> None:
        try:
            payload = json.loads(data) if isinstance(data, str) and data.strip() else (data or {})
            if not isinstance(payload, dict):
                raise ValueError("data is not a JSON object")
            self._dispatch(sid, kind, payload)
        except (ValueError, ConditionError) as e:
            log.error("signal %r (%s) ignored: %s", sid, kind, e)

    def _dispatch(self, sid: str, kind: str, data: dict) -> None:
        if kind == "log":
            log.info("signal %s: %s", sid, data.get("message"))
        elif kind == "execute-snapshot":
            stype = str(data.get("type") or "incremental").lower()
            names = data.get("data-collections")
            if not isinstance(names, list) or not names:
                raise ValueError("execute-snapshot needs a non-empty 'data-collections' array")
            tables = self._match(names)
            if not tables:
                raise ValueError(f"no captured table matches {names}")
            conds = {}
            for ac in data.get("additional-conditions") or []:
                dc, flt = ac.get("data-collection"), ac.get("filter")
                if not dc or flt is None:
                    raise ValueError("additional-conditions items need 'data-collection' and 'filter'")
                for t in self._match([dc]):
                    ct = self.source.table_by_id(t)
                    conds[t] = validate_condition(str(flt), ct.env.names)
            if stype == "blocking":
                if self.blocking is None:
                    raise ValueError("blocking snapshots are not supported by this connector")
                self.blocking(tables, conds)
                return
            if stype != "incremental":
                raise ValueError(f"snapshot type {stype!r} is not incremental or blocking")
            surrogate = data.get("surrogate-key")
            for t in tables:
                if t in self.queue:
                    continue
                self.queue.append(t)
                if t in conds:
                    self.conditions[t] = conds[t]
                if surrogate:
                    self.surrogate[t] = str(surrogate)
            log.info("incremental snapshot of %s requested by signal %s", ", ".join(tables), sid)
            if self.chunk_id is None and not self.paused:
                self._next_chunk()
        elif kind == "stop-snapshot":
            names = data.get("data-collections")
            if names:
                drop = set(self._match(names))
                current = self.queue[0] if self.queue else None
                self.queue = [t for t in self.queue if t not in drop]
                if current in drop:
                    self._reset_table()
            else:
                self.queue = []
                self._reset_table()
            log.info("incremental snapshot stopped by signal %s", sid)
        elif kind == "pause-snapshot":
            self.paused = True
            log.info("incremental snapshot paused")
        elif kind == "resume-snapshot":
            if self.paused:
                self.paused = False
                log.info("incremental snapshot resumed")
                if self.queue and self.chunk_id is None:
                    self._next_chunk()
        else:
            raise ValueError(f"unknown signal type {kind!r}")

    def _match(self, names: list[str]) -> list[str]:
        ids = self.source.captured_table_ids()
        out: list[str] = []
        for n in names:
            n = str(n).strip()
            pat = re.compile(n.replace('"', ""))
            for t in ids:
                if t not in out and (t == n or pat.fullmatch(t)):
                    out.append(t)
        return out

    def _reset_table(self) -> None:
        self.last_key = None
        self.max_key = None
        self.chunk_id = None
        self.window_open = False
        self.buffer = {}
        self.window_table = None

    # -- chunks -----------------------------------------------------------------------------------------
    def _key_cols(self, table_id: str, ct) -> list[str]:
        sk = self.surrogate.get(table_id)
        return [sk] if sk else list(ct.env.key_names)

    def _next_chunk(self) -> None:
        """One window, as Debezium's readChunk: open, then (maximum key,) chunk query — moving on to the
        next table while a table turns out empty or finished — then close."""
        if not self.queue:
            return
        self.chunk_id = str(uuid.uuid4())
        self.window_table = None
        self.buffer = {}
        self.source.write_watermark(f"{self.chunk_id}-open", "snapshot-window-open",
                                    json.dumps({"openWindowTimestamp": _iso_now()}))
        while self.queue:
            table_id = self.queue[0]
            ct = self.source.table_by_id(table_id)
            key_cols = self._key_cols(table_id, ct) if ct is not None else []
            if ct is None or not key_cols:
                log.warning("incremental snapshot: table %s is gone or has no primary key and no "
                            "surrogate-key; skipped", table_id)
                self._table_finished()
                continue
            cond = self.conditions.get(table_id)
            if self.max_key is None:
                self.max_key = self.source.max_key(ct, key_cols, cond)
                if self.max_key is None:
                    log.info("incremental snapshot: table %s is empty", table_id)
                    self._table_finished()
                    continue
            rows = self.source.read_chunk(ct, key_cols, self.last_key, self.max_key, self.chunk_size, cond)
            if not rows:
                log.info("incremental snapshot of %s done", table_id)
                self._table_finished()
                continue
            env = ct.env
            key_pos = [env.names.index(k) for k in key_cols]
            for raw in rows:
                after = env.snapshot_row(raw)
                self.buffer[tuple(after[env.names[i]] for i in env.key_idx)] = after
            self.last_key = [rows[-1][i] for i in key_pos]
            self.window_table = table_id
            break
        self.source.write_watermark(f"{self.chunk_id}-close", "snapshot-window-close",
                                    json.dumps({"openWindowTimestamp": _iso_now(),
                                                "closeWindowTimestamp": _iso_now()}))
        if not self.queue:
            log.info("incremental snapshot finished")

    def _table_finished(self) -> None:
        self.queue.pop(0)
        self.last_key = None
        self.max_key = None

    def _on_watermark(self, sid: str, kind: str) -> None:
        if self.chunk_id is None:
            return
        if kind == "snapshot-window-open" and sid == f"{self.chunk_id}-open":
            self.window_open = True
        elif kind == "snapshot-window-close" and sid == f"{self.chunk_id}-close":
            self.window_open = False
            self._emit_window()

    def _emit_window(self) -> None:
        if self.window_table is not None and self.buffer:
            ct = self.source.table_by_id(self.window_table)
            env = ct.env
            src = self.source.read_source(ct)
            for key_vals, after in self.buffer.items():
                key = dict(zip(env.key_names, key_vals)) if env.key_names else None
                self.engine.emit(env.change("r", None, after, src, None, key))
        self.buffer = {}
        self.window_table = None
        self.chunk_id = None
        if self.queue and not self.paused:
            self._next_chunk()

    def on_stream_event(self, table_id: str, key: dict | None, after: dict | None, rec: Any) -> None:
        if not self.window_open or self.window_table != table_id or key is None:
            return
        self.buffer.pop(tuple(key.values()), None)

    # -- polling ----------------------------------------------------------------------------------------
    def poll(self) -> None:
        if self.pending_start and not self.paused:
            self.pending_start = False
            self._reset_window_only()
            self._next_chunk()
        if "file" in self.channels and self.signal_file:
            self._poll_file()

    def _reset_window_only(self) -> None:
        self.chunk_id = None
        self.window_open = False
        self.buffer = {}
        self.window_table = None

    def _poll_file(self) -> None:
        try:
            with open(self.signal_file, "rb") as f:
                f.seek(self._file_pos)
                data = f.read()
        except FileNotFoundError:
            return
        lines = data.split(b"\n")
        consumed = len(data) - len(lines[-1])
        self._file_pos += consumed
        for line in lines[:-1]:
            line = line.strip()
            if not line:
                continue
            try:
                doc = json.loads(line)
                self.signal(str(doc.get("id", "")), str(doc["type"]), doc.get("data"))
            except (ValueError, KeyError, TypeError) as e:
                log.error("file signal %r ignored: %s", line[:200], e)

    def close(self) -> None:
        pass
