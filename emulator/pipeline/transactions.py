"""Transaction metadata, written once for every connector: BEGIN/END records on `<prefix>.transaction`, the
per-event `transaction` block, and the counts a stored offset carries for an open transaction (Debezium's
TransactionMonitor and TransactionContext)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import orjson

from emulator.connect.json import Framed
from emulator.connect.schema import (
    OPT_INT64,
    REQ_STRING,
    Schema,
    struct,
)
from emulator.envelope import EnvelopeSettings, LineRecord
from emulator.javahash import hashmap_order, table_size
from emulator.records import Record, StructuredRecord

TX_ORDER_KEY = (
    "transaction_data_collection_order_"  # offset keys of TransactionContext's per-collection counts
)

_dumps = orjson.dumps
_LINE_TAIL = b"}\n"  # a transaction record's line ends with its value: it has no headers
_DC_CACHE = 1024  # collection names whose END piece is kept (PostgreSQL's messages count under one-off names)


def _esc(b: bytes) -> bytes:
    return b.replace(b"%", b"%%")


class _Lines:
    """The BEGIN and END records as their directory lines, each one `%` of a format made once per connector (the
    converters' schema frames and the fixed fields in place): what `orjson.dumps` prints for `_write`'s dicts
    through the frames. A one-event transaction's BEGIN and END into the directory output cost ~41.6k instructions
    as dicts encoded through the frames, ~21.4k as these lines (callgrind, a loop of the monitor's calls alone)."""

    __slots__ = ("begin", "end", "vstart", "pieces")

    def __init__(self, key_frame: Framed, value_frame: Framed) -> None:
        head = b'{"key":' + _esc(key_frame.head) + b'{"id":%b}' + _esc(key_frame.tail) + b',"value":'
        head += _esc(value_frame.head) + b'{"status":'
        tail = b',"ts_ms":%d}' + _esc(value_frame.tail) + _LINE_TAIL
        # arguments: the id's JSON twice (key, value), [END: the event count, the collections' pieces], ts_ms
        self.begin = head + b'"BEGIN","id":%b,"event_count":null,"data_collections":null' + tail
        self.end = head + b'"END","id":%b,"event_count":%d,"data_collections":[%b]' + tail
        # where the value starts after the key's payload (LineRecord's cut): the frame, `{"id":` and `}` around it
        self.vstart = len(b'{"key":') + len(key_frame.head) + len(key_frame.tail) + len(b',"value":')
        self.pieces: dict[str, bytes] = {}  # a collection's JSON in END's list but for its count (`%d`)

    def piece(self, collection: str) -> bytes:
        p = self.pieces.get(collection)
        if p is None:
            p = b'{"data_collection":' + _esc(_dumps(collection)) + b',"event_count":%d}'
            if len(self.pieces) < _DC_CACHE:
                self.pieces[collection] = p
        return p


def stored_tx_counts(offset: dict) -> dict[str, int]:
    """The per-collection counts a stored offset carries for its open transaction (Debezium's keys)."""
    n = len(TX_ORDER_KEY)
    return {k[n:]: int(v) for k, v in offset.items() if k.startswith(TX_ORDER_KEY) and v is not None}


class TransactionMonitor:
    """BEGIN/END records on `<prefix>.transaction` and the per-event `transaction` block.

    BEGIN is written lazily with the first captured event, so a transaction whose changes are all
    filtered out produces nothing (as Debezium)."""

    KEY_SCHEMA = struct(
        "io.debezium.connector.common.TransactionMetadataKey", [("id", REQ_STRING)], version=1
    )
    VALUE_SCHEMA = struct(
        "io.debezium.connector.common.TransactionMetadataValue",
        [
            ("status", REQ_STRING),
            ("id", REQ_STRING),
            ("event_count", OPT_INT64),
            (
                "data_collections",
                Schema(
                    "array",
                    optional=True,
                    items=struct(
                        "event.collection",
                        [("data_collection", REQ_STRING), ("event_count", Schema("int64"))],
                        optional=True,
                        version=1,
                    ),
                ),
            ),
            ("ts_ms", Schema("int64")),
        ],
        version=1,
    )

    def __init__(
        self,
        settings: EnvelopeSettings,
        emit: Callable[[Record], None],
        enabled: bool,
        topic_suffix: str = "transaction",
        records: Callable[[], int] | None = None,
        engine: Any = None,
    ) -> None:
        self.enabled = enabled
        self.emit = emit
        # the engine whose output takes lines as they are (the directory output, no data plane): BEGIN and END are
        # written there and counted in `engine.records`, as the dispatcher's line gates write, without a record
        self._engine = engine
        line_writer = getattr(engine, "line_writer", None) if not settings.structured else None
        self._write_line = line_writer() if line_writer is not None else None
        self.records = records  # how many records the engine wrote so far (the END record's offset below)
        self.ended: tuple[dict[str, int], int] | None = None  # (counts, records written) at the last END
        self.topic = settings.topic(topic_suffix)
        self.key_frame = Framed(settings.key_codec, self.KEY_SCHEMA)
        self.value_frame = Framed(settings.value_codec, self.VALUE_SCHEMA)
        self.structured = settings.structured  # the data plane takes the parts (no JSON to parse back)
        self._lines = _Lines(self.key_frame, self.value_frame) if not self.structured else None
        self.begin_id: str | None = None
        self.begin_ts_ms = 0
        self.started = False
        self.total = 0
        self.per_collection: dict[str, int] = {}
        self._table = 16  # the HashMap's table size: it only grows over the connector's life

    def begin(self, tx_id: str, ts_ms: int) -> None:
        self.begin_id = tx_id
        self.begin_ts_ms = ts_ms
        self.started = False
        self.total = 0
        self.per_collection = {}
        self.ended = None

    def touch(self) -> None:
        """A change was read in this transaction (captured or not): BEGIN is due."""
        if self.enabled and self.begin_id is not None and not self.started:
            self.started = True
            self._write_begin()

    @property
    def in_transaction(self) -> bool:
        return self.begin_id is not None

    def event_block(self, event_tx_id: str, data_collection: str) -> dict | None:
        if not self.enabled or self.begin_id is None:
            return None
        if not self.started:
            self.started = True
            self._write_begin()
        self.total += 1
        n = self.per_collection.get(data_collection, 0) + 1
        self.per_collection[data_collection] = n
        return {"id": event_tx_id, "total_order": self.total, "data_collection_order": n}

    def count(self, data_collection: str) -> None:
        """`event_block` for an event whose block its connector formatted itself (a record made as its line) from
        `total` and `per_collection` before this call: counted, and BEGIN written first when due."""
        if not self.enabled or self.begin_id is None:
            return
        if not self.started:
            self.started = True
            self._write_begin()
        self.total += 1
        counts = self.per_collection
        counts[data_collection] = counts.get(data_collection, 0) + 1

    def end(self, tx_id: str, ts_ms: int) -> None:
        if self.enabled and self.started:
            # Debezium's TransactionContext counts per collection in a HashMap: END lists them in its order
            counts = self.per_collection
            order = counts
            if len(counts) > 1:  # one collection (the common case) has one order: no hashing per transaction
                self._table = table_size(len(counts), self._table)  # clear() keeps the grown table
                order = hashmap_order(counts, self._table)
            lines = self._lines
            if lines is not None:
                if len(counts) == 1:
                    for k in counts:  # its one key
                        listed = (lines.pieces.get(k) or lines.piece(k)) % counts[k]
                else:
                    listed = b",".join([lines.piece(k) % counts[k] for k in order])
                idj = _dumps(tx_id)
                self._put(lines.end % (idj, idj, self.total, listed, ts_ms), idj, lines)
            else:
                self._write(
                    "END",
                    tx_id,
                    self.total,
                    [{"data_collection": k, "event_count": counts[k]} for k in order],
                    ts_ms,
                )
            if self.records is not None:
                self.ended = (counts, self.records())
        self.begin_id = None
        self.started = False

    def resume(self, counts: dict[str, int]) -> None:
        """A restart inside the open transaction (after some of its events were emitted): its BEGIN is not
        written again and the orders go on from the stored counts (none when it stopped right after the
        BEGIN), as Debezium's TransactionContext.load."""
        if not self.enabled or self.begin_id is None:
            return
        self.started = True
        self.per_collection = dict(counts)
        self.total = sum(counts.values())

    def offset_keys(self, source_tx_id: str) -> dict[str, object]:
        """What TransactionContext.store adds to the offset while events of a transaction were emitted:
        `transaction_id` and `transaction_data_collection_order_<collection>` per collection."""
        if not self.started:
            return {}
        keys: dict[str, object] = {"transaction_id": source_tx_id}
        for k, v in self.per_collection.items():
            keys[TX_ORDER_KEY + k] = v
        return keys

    def ended_keys(self, source_tx_id: str) -> dict[str, object]:
        """The END record's offset: Debezium takes it before TransactionContext.endTransaction clears the
        context, so while END is the last record written the stored offset still carries the ended
        transaction's `transaction_id` and counts (recorded: tests/data/pg/tx_restart/end_offset.txt)."""
        ended = self.ended
        if ended is None or self.records is None or ended[1] != self.records():
            return {}
        keys: dict[str, object] = {"transaction_id": source_tx_id}
        for k, v in ended[0].items():
            keys[TX_ORDER_KEY + k] = v
        return keys

    def _write_begin(self) -> None:
        lines = self._lines
        if lines is None:
            self._write("BEGIN", self.begin_id, None, None, self.begin_ts_ms)
            return
        idj = _dumps(self.begin_id)
        self._put(lines.begin % (idj, idj, self.begin_ts_ms), idj, lines)

    def _put(self, line: bytes, idj: bytes, lines: _Lines) -> None:
        """A BEGIN or END line (`idj`: its id's JSON) to the output: as it is when the output takes lines, else as
        a LineRecord through `emit`."""
        write_line = self._write_line
        if write_line is not None:
            write_line(self.topic, line)
            self._engine.records += 1
            return
        klen = len(idj) + 7  # {"id":...}
        self.emit(LineRecord(self.topic, line, klen, lines.vstart + klen, len(_LINE_TAIL), None))

    def _write(
        self, status: str, tx_id: str, count: int | None, collections: list | None, ts_ms: int
    ) -> None:
        value = {
            "status": status,
            "id": tx_id,
            "event_count": count,
            "data_collections": collections,
            "ts_ms": ts_ms,
        }
        if self.structured:
            self.emit(
                StructuredRecord(
                    self.topic,
                    self.KEY_SCHEMA,
                    {"id": tx_id},
                    self.VALUE_SCHEMA,
                    value,
                    None,
                    (self.key_frame, self.value_frame),
                )
            )
            return
        self.emit(Record(self.topic, self.key_frame.encode({"id": tx_id}), self.value_frame.encode(value)))
