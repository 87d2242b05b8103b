"""The one gate every change passes: Debezium's EventDispatcher for the three connectors.

A connector decodes its log (pgoutput, binlog, change stream) and hands each row change here as neutral
pieces — the table's envelope, the operation, the before/after rows, the source block — instead of
building records itself. The dispatcher applies, in Debezium's order:

  admit      skipped.operations dropped at the source (whole event, nothing counted); a change of a
             table that is not captured counted as filtered; PostgreSQL opens the transaction here
  change     signal-table insert → signals, synchronously (window reads go out right before the close
             row's own event); skip.messages.without.change; transaction block; the incremental
             snapshot window told about the key; key unchanged → one record, key changed → delete
             (+`__debezium.newkey`) [+ tombstone] + create (+`__debezium.oldkey`); delete → tombstone
             per `tombstones.on.delete`; the streaming metrics as Debezium counts them (onEvent)
  emit       every record — snapshot and incremental reads, heartbeats, transaction BEGIN/END,
             notifications, schema changes — goes to `engine.emit` (data plane when transforms or
             converters are configured, then the output and the delivery bookkeeping)

Per-event cost when a feature is off: a frozenset lookup for skipped operations, `tx_id is None`, one
attribute for an active incremental snapshot and one string comparison for the signal table; the
records are still built by `TableEnvelope`'s precomputed frames.

`never_skip` is Debezium's `supportsOperationFiltering()`: the binlog and MongoDB connectors drop
skipped operations where the events are read, so a key-changing UPDATE that is not skipped emits both
its delete and its create; PostgreSQL's EventDispatcher checks each record, so `skipped.operations=d`
drops the delete half of a key change and keeps the create.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from emulator.envelope import EnvelopeSettings, LineRecord
from emulator.metrics import StreamingMetrics
from emulator.model import printed
from emulator.pipeline.heartbeat import Heartbeat
from emulator.pipeline.transactions import TransactionMonitor
from emulator.records import Record


def _same_json(a: Any, b: Any) -> bool:
    """Equal as printed: otherwise an UPDATE of a row keyed by a Fragment double looked like a key change."""
    return a == b or printed(a) == printed(b)


def _same_printed(a: Any, b: Any) -> bool:
    """Equal as printed, as skip.messages.without.change compares (Debezium: the value Structs' `equals`, so a
    double 0.0 and -0.0 differ, which Python's == takes for equal; pg case full_identity_notx_skip)."""
    return printed(a) == printed(b)


def _no_key(row: dict | None) -> None:
    return None


NEWKEY = "__debezium.newkey"
OLDKEY = "__debezium.oldkey"

# The stream's line gates (`Dispatcher.table_line`, `table_line_delete`): one body each, the output's call put in
# per kind of writer and compiled once, so that each gate's closure holds only the variables its call uses (one
# closure over the three writers with a branch between them cost 110-190 instructions a row more, callgrind; the
# three written out repeated the window check and the counting, review item D5 of session 15). The kinds
# (`Dispatcher._line_way`): `line` the directory output (the line as it is), `kv` the Kafka output (key and value
# cut from the line, `produce_line`; a tombstone by `produce_kv`), `emit` anything else (a `LineRecord` through
# `emit`, which counts it: the data plane, other outputs).
_LINE_GATE = """
def make(inc, m, engine, emit, write, topic, vstart, vtail, headers):
    def change(op, line):
        if inc is not None and inc.window_open:
            return False
        if op == "c":
            m.creates += 1
        else:
            m.updates += 1
{call}
        return True

    return change
"""
_LINE_CALLS = {
    "line": """
        write(topic, line[0])
        engine.records += 1""",
    "kv": """
        text, klen = line
        write(topic, text, klen, vstart + klen, vtail, headers)
        engine.records += 1""",
    "emit": """
        text, klen = line
        emit(LineRecord(topic, text, klen, vstart + klen, vtail, headers))""",
}
# a DELETE's line, then its tombstone per tombstones.on.delete: the tombstone's key is the delete's (`line`: the
# tombstone's line around the key payload; `kv`: the key's JSON as `produce_line` cuts it; `emit`: the payload
# for `tombstone_json`)
_DELETE_GATE = """
def make(inc, m, engine, emit, write, tomb, topic, vstart, vtail, headers, tombstones, kstart, keyed, pre, post):
    def change(_op, line):
        if inc is not None and inc.window_open:
            return False
        m.deletes += 1
        text, klen = line
{call}
        return True

    return change
"""
_DELETE_CALLS = {
    "line": """
        write(topic, text)
        engine.records += 1
        if tombstones:
            write(topic, pre + text[kstart : kstart + klen] + post if klen else pre)
            engine.records += 1""",
    "kv": """
        write(topic, text, klen, vstart + klen, vtail, headers)
        engine.records += 1
        if tombstones:
            tomb(topic, text[7 : vstart + klen - 9] if klen else None, None, headers)
            engine.records += 1""",
    "emit": """
        emit(LineRecord(topic, text, klen, vstart + klen, vtail, headers))
        if tombstones:
            emit(tomb(text[kstart : kstart + klen] if keyed else None))""",
}


def _makers(name: str, template: str, calls: dict[str, str]) -> dict[str, Callable[..., Callable]]:
    out = {}
    for kind, call in calls.items():
        ns: dict[str, Any] = {"LineRecord": LineRecord}
        exec(compile(template.replace("{call}", call), f"<{name} {kind}>", "exec"), ns)  # noqa: S102
        out[kind] = ns["make"]
    return out


_LINE_MAKERS = _makers("line gate", _LINE_GATE, _LINE_CALLS)
_DELETE_MAKERS = _makers("delete line gate", _DELETE_GATE, _DELETE_CALLS)


class Dispatcher:
    __slots__ = (
        "engine",
        "emit",
        "tx",
        "metrics",
        "skipped",
        "never_skip",
        "tombstones",
        "skip_unchanged",
        "eager_begin",
        "incremental",
        "signals",
        "signal_table",
        "reselect",
    )

    def __init__(
        self,
        engine,
        tx: TransactionMonitor,
        *,
        skipped: frozenset[str],
        tombstones: bool,
        skip_unchanged: bool,
        never_skip: bool,
        eager_begin: bool = False,
    ) -> None:
        self.engine = engine
        # engine.emit is already the data plane's when transforms/converters are configured
        self.emit: Callable[[Record], None] = engine.emit
        self.tx = tx
        metrics = getattr(engine, "metrics", None)  # an engine stand-in without metrics gets its own
        self.metrics = metrics.streaming if metrics is not None else StreamingMetrics()
        self.skipped = skipped
        self.never_skip = never_skip
        self.tombstones = tombstones
        self.skip_unchanged = skip_unchanged
        # PostgreSQL writes BEGIN for any change read in the transaction, captured or not
        self.eager_begin = eager_begin and tx.enabled
        self.incremental: Any = None  # the incremental snapshot's window machine
        self.signals: Any = None  # the signal processor (source channel: rows of the signal table)
        self.signal_table: str | None = None
        # post.processors (emulator/postprocessors/reselect.py): set by the connector, None when not configured
        self.reselect: Any = None

    @classmethod
    def for_connector(
        cls, engine, envelope: EnvelopeSettings, settings: Any, *, never_skip: bool, eager_begin: bool = False
    ) -> Dispatcher:
        """The dispatcher of one connector from its typed settings (emulator.settings): the transaction
        monitor (`provide.transaction.metadata`, `topic.transaction`), the engine's heartbeat
        (`heartbeat.interval.ms`, `topic.heartbeat.prefix`), `skipped.operations`,
        `tombstones.on.delete` and `skip.messages.without.change`."""
        tx = TransactionMonitor(
            envelope,
            engine.emit,
            settings.tx.enabled,
            settings.tx.topic_suffix,
            lambda: engine.records,
            engine=engine,
        )
        hb = settings.heartbeat
        engine.heartbeat = Heartbeat(envelope, hb.interval_ms, hb.topic_prefix) if hb.enabled else None
        common = settings.common
        return cls(
            engine,
            tx,
            skipped=common.skipped_operations,
            tombstones=common.tombstones_on_delete,
            skip_unchanged=common.skip_messages_without_change,
            never_skip=never_skip,
            eager_begin=eager_begin,
        )

    def attach(self, incremental: Any, signals: Any, signal_table: str | None) -> None:
        """The incremental snapshot's window machine and the signal processor (both created after the
        connector's envelope settings), and the signal table (`signal.data.collection`)."""
        self.incremental = incremental
        self.signals = signals
        self.signal_table = signal_table

    # -- streaming changes ---------------------------------------------------------------------------------
    def admit(self, op: str, captured: bool) -> bool:
        """A change event was read: False when nothing is to be emitted for it (skipped operation, or a
        table not captured — counted as filtered, with its operation, as Debezium's onFilteredEvent)."""
        if op in self.skipped:
            return False
        if self.eager_begin:
            self.tx.touch()
        if not captured:
            m = self.metrics
            m.filtered += 1
            self._count_op(op)
            return False
        return True

    def _count_op(self, op: str) -> None:
        m = self.metrics
        if op == "c":
            m.creates += 1
        elif op == "u":
            m.updates += 1
        elif op == "d":
            m.deletes += 1
        elif op == "t":
            m.truncates += 1

    def table(self, env, dc: str) -> Callable[..., None]:
        """The change function of one table (`dc`, its `schema.table`): `change(op, before, after, source,
        tx_id)` with everything that does not change from row to row bound once. Connectors keep it with
        their captured table and call it per row; a new envelope (schema change) gets a new one.

        Per row, in Debezium's order: a signal-table insert is processed first (the reads of a window it
        closes go out before the row's own event; a blocking snapshot runs right after it); an UPDATE
        that changes the key becomes delete (+`__debezium.newkey`) [+ tombstone] and create
        (+`__debezium.oldkey`), unless skip.messages.without.change drops the UPDATE first (its value columns
        equal, key change or not; not counted); then the transaction block (`tx_id` None: none due), the incremental window
        told the key (and the row image, for surrogate keys), the count (Debezium's onEvent), the record,
        and a delete's tombstone per `tombstones.on.delete`."""
        key_of = env._key or _no_key  # env.key_of without its own call per row
        fused = getattr(getattr(self.engine, "dataplane", None), "table_change", None)  # fused.plain_avro
        record = (fused and fused(env)) or env.change
        tombstone = env.tombstone
        value_part = env.value_part
        key_header = env.key_header
        emit = self.emit
        event_block = self.tx.event_block
        m = self.metrics
        inc = self.incremental
        sig = self.signals
        signal = sig is not None and self.signal_table is not None and dc == self.signal_table
        if self.reselect is not None and not signal:  # chosen per table: no per-row check without it
            record = self.reselect.wrap(env, record) or record
        # whole skipped events were dropped by admit(); PostgreSQL's EventDispatcher also checks each
        # record, so there one half of a key change can be skipped
        skip = frozenset() if self.never_skip else self.skipped
        skip_unchanged = self.skip_unchanged
        tombstones = self.tombstones

        def change(
            op: str,
            before: dict | None,
            after: dict | None,
            source: dict,
            tx_id: str | None,
            headers: list[tuple[str, bytes]] | None = None,
        ) -> None:
            if op == "c":
                key = key_of(after)
                row = after
                if signal:
                    sig.on_signal_row(after)
                m.creates += 1
            elif op == "u":
                key = key_of(after)
                row = after
                if before is not None:
                    # (skip.messages.without.change first: Debezium's emitUpdateRecord compares the values before
                    # the keys, so a key change the value does not show is skipped too; pg case
                    # skip_unchanged_key_change)
                    if skip_unchanged and _same_printed(value_part(before), value_part(after)):
                        return
                    old_key = key_of(before)
                    if old_key != key and not _same_json(old_key, key):
                        if "d" not in skip:
                            change("d", before, None, source, tx_id, [key_header(NEWKEY, key)])
                        if "c" not in skip:
                            change("c", None, after, source, tx_id, [key_header(OLDKEY, old_key)])
                        return
                m.updates += 1
            else:
                key = key_of(before)
                row = before  # the image the window matches a surrogate key against
                m.deletes += 1
            block = event_block(tx_id, dc) if tx_id is not None else None
            if inc is not None and inc.window_open:  # `active`, read without a property call per row
                inc.on_stream_event(dc, key, row, None)
            emit(record(op, before, after, source, block, key, headers))
            if op == "d" and tombstones:
                emit(tombstone(key, headers))
            if signal and op == "c" and sig.deferred:
                sig.run_deferred()

        return change

    def table_json(self, env, dc: str) -> Callable[..., bool] | None:
        """`table()`'s change function for an INSERT or an UPDATE without old row whose `after` and key come
        as JSON text (`env.change_json`): `change(op, (after, key), source, tx_id) -> False` when it cannot
        take it (an incremental snapshot window is open: that needs the row; the caller then goes through
        `table()`). None for the signal table (its rows are read)."""
        if self.signals is not None and self.signal_table is not None and dc == self.signal_table:
            return None
        if self.reselect is not None and self.reselect.applies(env):
            return None  # post.processors reads the row dicts
        record = env.change_json
        emit = self.emit
        event_block = self.tx.event_block
        m = self.metrics
        inc = self.incremental

        def change(op: str, row: tuple[bytes, bytes | None], source: bytes, tx_id: str | None) -> bool:
            if inc is not None and inc.window_open:
                return False
            after, key = row
            if op == "c":
                m.creates += 1
            else:
                m.updates += 1
            emit(record(op, after, source, event_block(tx_id, dc) if tx_id is not None else None, key))
            return True

        return change

    def table_json_old(self, env, dc: str) -> Callable[..., bool] | None:
        """`table()`'s change function for an UPDATE with its old row whose key is the new row's (the same
        key JSON: not a key change) and for a DELETE, rows and key as JSON text (`env.change_json_old`):
        `change(op, before, after, key, source, tx_id) -> False` when it cannot take it, and the caller goes
        through `table()`: an incremental snapshot window is open; skip.messages.without.change with an
        UPDATE whose value JSON is the same (`table()` compares the rows); every UPDATE of a table post.processors
        may read again (it reads the row dicts; it never touches a delete). None for the signal table (its rows
        are read)."""
        if self.signals is not None and self.signal_table is not None and dc == self.signal_table:
            return None
        record = env.change_json_old
        tombstone = env.tombstone_json
        emit = self.emit
        event_block = self.tx.event_block
        m = self.metrics
        inc = self.incremental
        tombstones = self.tombstones
        # skip.messages.without.change: rows whose JSON differs differ as printed (`_same_printed`); equal JSON
        # may still be a NULL and its column's default, which `table()` tells apart
        compare = self.skip_unchanged

        def change(op: str, before: bytes, after: bytes, key: bytes | None, source: bytes, tx_id) -> bool:
            if inc is not None and inc.window_open:
                return False
            if op == "u":
                if compare and before == after:
                    return False
                m.updates += 1
            else:
                m.deletes += 1
            emit(
                record(op, before, after, source, event_block(tx_id, dc) if tx_id is not None else None, key)
            )
            if op == "d" and tombstones:
                emit(tombstone(key))
            return True

        if self.reselect is not None and self.reselect.applies(env):

            def deletes_only(
                op: str, before: bytes, after: bytes, key: bytes | None, source: bytes, tx_id
            ) -> bool:
                return op == "d" and change(op, before, after, key, source, tx_id)

            return deletes_only
        return change

    def _counted(
        self, change: Callable[[str, tuple], bool] | None, dc: str
    ) -> Callable[[str, tuple], bool] | None:
        """A line change function (`table_line`, `table_line_delete`) that counts each event in the transaction
        first (BEGIN before it when due) when transaction metadata is on: the line holds the block the connector
        formatted from the monitor's counts (`TransactionMonitor.count`)."""
        if change is None or not self.tx.enabled:
            return change
        count = self.tx.count
        inc = self.incremental

        def counted(op: str, line: tuple[bytes, int]) -> bool:
            if inc is not None and inc.window_open:
                return False
            count(dc)
            return change(op, line)

        return counted

    def table_line(self, env, dc: str, vstart: int, vtail: int) -> Callable[[str, tuple], bool] | None:
        """`table_json`'s change function for records the connector formatted whole (`line`: the line and its
        key's length; with transaction metadata the line holds the event's block, counted here): `change(op,
        line) -> False` when it cannot take it (an incremental snapshot window is open). `vstart`, `vtail`:
        where the value starts after a key of length 0 and how long the line's tail after it is."""
        return self._counted(self._table_line(env, dc, vstart, vtail), dc)

    def _line_way(self) -> tuple[str, Callable | None, Callable | None]:
        """How the line gates hand a record to the output: (kind, its writer, the Kafka output's `produce_kv`);
        the kinds are `_LINE_GATE`'s."""
        engine = self.engine
        write_line = engine.line_writer() if hasattr(engine, "line_writer") else None
        if write_line is not None:
            return "line", write_line, None
        produce_line = engine.line_producer() if hasattr(engine, "line_producer") else None
        if produce_line is None:
            return "emit", None, None
        # the output's (Engine.line_producer gives its bound produce_line): None where it has no produce_kv
        return "kv", produce_line, getattr(getattr(produce_line, "__self__", None), "produce_kv", None)

    def _table_line(self, env, dc: str, vstart: int, vtail: int) -> Callable[[str, tuple], bool] | None:
        if self.signals is not None and self.signal_table is not None and dc == self.signal_table:
            return None
        if self.reselect is not None and self.reselect.applies(env):
            return None  # post.processors reads the row dicts
        kind, write, _kv = self._line_way()
        gate = _LINE_MAKERS[kind](
            self.incremental,
            self.metrics,
            self.engine,
            self.emit,
            write,
            env.topic,
            vstart,
            vtail,
            env.settings.context_headers,
        )
        if (
            kind == "line"
        ):  # what the gate reads, for a caller in C that does its work without the call (fast_rows)
            gate.direct = (self.incremental, self.metrics, self.engine, write, env.topic)
        return gate

    def table_line_delete(self, env, dc: str, vstart: int, vtail: int) -> Callable[[str, tuple], bool] | None:
        """`table_line` for DELETEs: `change("d", line) -> False` when an incremental snapshot window is open; the
        delete's line as it is, then its tombstone per `tombstones.on.delete` (the key cut out of the line:
        `tombstone_json`'s record for it), counted as `table()` counts a delete. Also for a table post.processors
        may read again: it never touches a delete."""
        return self._counted(self._table_line_delete(env, dc, vstart, vtail), dc)

    def _table_line_delete(
        self, env, dc: str, vstart: int, vtail: int
    ) -> Callable[[str, tuple], bool] | None:
        if self.signals is not None and self.signal_table is not None and dc == self.signal_table:
            return None
        kind, write, tomb = self._line_way()
        if kind == "kv" and tomb is None:  # an output with produce_line but no produce_kv
            kind, write = "emit", None
        kf = env.key_frame
        kstart = len(b'{"key":') + (len(kf.head) if kf is not None else 0)  # the key's JSON in the line
        pre = post = b""
        if kind == "line":  # the tombstone's line around its key: Record.line of tombstone_json's record
            if kf is None:
                pre = env.tombstone_json(None).line()
            else:
                pre, _, post = env.tombstone_json(b"\x00").line().partition(b"\x00")
        elif kind == "emit":
            tomb = env.tombstone_json
        return _DELETE_MAKERS[kind](
            self.incremental,
            self.metrics,
            self.engine,
            self.emit,
            write,
            tomb,
            env.topic,
            vstart,
            vtail,
            env.settings.context_headers,
            self.tombstones,
            kstart,
            kf is not None,
            pre,
            post,
        )

    def change(
        self, env, dc: str, op: str, before: dict | None, after: dict | None, source: dict, tx_id: str | None
    ) -> None:
        """One change through a table function built for it (for callers off the per-row path)."""
        self.table(env, dc)(op, before, after, source, tx_id)

    def document(
        self,
        env,
        op: str,
        key: dict,
        before: str | None,
        after: str | None,
        update: dict | None,
        source: dict,
        tx_id: str | None,
    ) -> None:
        """A MongoDB change (its document envelope, `env.record`): counted, the transaction block, the
        incremental window told the `_id`, the record, and a delete's tombstone per `tombstones.on.delete`
        — the order `table()` keeps for row changes."""
        self._count_op(op)
        dc = env.data_collection
        block = self.tx.event_block(tx_id, dc) if tx_id is not None else None
        inc = self.incremental
        if inc is not None and inc.window_open:
            inc.on_stream_event(dc, {"_id": key["id"]})
        self.emit(env.record(op, key, before, after, update, source, block))
        if op == "d" and self.tombstones:
            self.emit(env.tombstone(key))

    def truncate(self, env, dc: str, source: dict, tx_id: str | None) -> None:
        """TRUNCATE of one captured table: a record with no key (admit('t', ...) decided it is due)."""
        self.metrics.truncates += 1
        block = self.tx.event_block(tx_id, dc) if tx_id is not None else None
        rec = env.change("t", None, None, source, block, None)
        self.emit(Record(rec.topic, None, rec.value, rec.headers))

    def message(self, record: Record) -> None:
        """A logical decoding message (PostgreSQL `pg_logical_emit_message`): its record as built."""
        self.emit(record)

    def schema_change(self, record: Record) -> None:
        """A schema change event (binlog DDL on the `<topic.prefix>` topic): its record as built."""
        self.emit(record)

    # -- transactions -----------------------------------------------------------------------------------------
    def begin(self, tx_id: str, ts_ms: int, eager: bool = False) -> None:
        """A source transaction starts. `eager`: BEGIN is written now (binlog), not with the first event."""
        tx = self.tx
        tx.begin(tx_id, ts_ms)
        if eager and tx.enabled:
            tx.touch()

    def commit(self, tx_id: str, ts_ms: int) -> None:
        """The source transaction ended: END (when BEGIN was written)."""
        self.tx.end(tx_id, ts_ms)
