"""Transaction metadata made as lines (emulator/pipeline/transactions.py `_Lines`, the PostgreSQL line path's block
`tx_formats.tx_block`, the dispatcher's counted line gates) against the records the generic path makes: the value
dict Debezium's TransactionMetadataValue holds, encoded through the converters' schema frames (`Framed.encode`,
orjson). The recorded cases with transaction metadata (tests/data/pg/cases, mariadb cases) check the same records
against Debezium 3.6.3; these check the bytes, and the shapes the cases do not hold (names needing escapes, `%`,
several collections, an END with none, schemas disabled)."""

from __future__ import annotations

import orjson
import pytest

from emulator.connect.json import Framed
from emulator.connect.schema import Schema
from emulator.connectors.postgres.source import SOURCE_SCHEMA
from emulator.connectors.postgres.tx_formats import tx_block
from emulator.engine import Engine
from emulator.envelope import EnvelopeSettings, LineRecord, TableEnvelope
from emulator.javahash import hashmap_order
from emulator.model import ColumnDef, TableDef
from emulator.offsets import MemoryOffsetStore
from emulator.outputs.directory import DirectoryOutput
from emulator.outputs.memory import CallbackOutput
from emulator.pipeline.dispatcher import Dispatcher
from emulator.pipeline.transactions import TransactionMonitor
from emulator.records import Record


def _settings(schemas: bool) -> EnvelopeSettings:
    return EnvelopeSettings(
        prefix="srv",
        connector_name="postgresql",
        source_schema=SOURCE_SCHEMA,
        key_schemas=schemas,
        value_schemas=schemas,
    )


def _expected(s: EnvelopeSettings, status: str, tx_id: str, ts_ms: int, counts: dict | None) -> bytes:
    """The record's directory line as the generic path builds it: dicts through the frames."""
    key = Framed(s.key_codec, TransactionMonitor.KEY_SCHEMA).encode({"id": tx_id})
    listed = None
    if counts is not None:
        order = hashmap_order(counts, 16) if len(counts) > 1 else counts
        listed = [{"data_collection": k, "event_count": counts[k]} for k in order]
    value = Framed(s.value_codec, TransactionMonitor.VALUE_SCHEMA).encode(
        {
            "status": status,
            "id": tx_id,
            "event_count": None if counts is None else sum(counts.values()),
            "data_collections": listed,
            "ts_ms": ts_ms,
        }
    )
    return Record("srv.transaction", key, value).line()


@pytest.mark.parametrize("schemas", [True, False])
@pytest.mark.parametrize(
    "collections",
    [
        ["public.orders"],
        ["s.a", "s.b", "s.a"],  # END lists them in Java's HashMap order (s.b, s.a)
        ['we"ird.t%d', "ü.ß", 'we"ird.t%d'],  # JSON escapes, a `%` in the name, non-ASCII
    ],
)
def test_begin_and_end_lines_are_the_generic_records(schemas, collections):
    s = _settings(schemas)
    out: list = []
    tx = TransactionMonitor(s, out.append, True)
    tx.begin('77:1"%s', 1_700_000_000_123)  # an id that needs escaping and holds a `%`
    for dc in collections:
        tx.event_block("77:2", dc)
    tx.end("77:9", 1_700_000_000_456)
    counts: dict[str, int] = {}
    for dc in collections:
        counts[dc] = counts.get(dc, 0) + 1
    assert [r.line() for r in out] == [
        _expected(s, "BEGIN", '77:1"%s', 1_700_000_000_123, None),
        _expected(s, "END", "77:9", 1_700_000_000_456, counts),
    ]
    # the key and value the Kafka output cuts out of the line are the generic record's
    assert out[1].key == Framed(s.key_codec, TransactionMonitor.KEY_SCHEMA).encode({"id": "77:9"})
    assert (
        _expected(s, "END", "77:9", 1_700_000_000_456, counts) == Record("t", out[1].key, out[1].value).line()
    )
    assert isinstance(out[0], LineRecord) and out[0].headers is None


def test_an_end_without_events_lists_none():
    """A transaction begun by a change that was filtered out (PostgreSQL: `touch`) ends with an empty list."""
    s = _settings(True)
    out: list = []
    tx = TransactionMonitor(s, out.append, True)
    tx.begin("5:10", 1)
    tx.touch()
    tx.end("5:20", 2)
    assert [r.line() for r in out] == [
        _expected(s, "BEGIN", "5:10", 1, None),
        _expected(s, "END", "5:20", 2, {}),
    ]


def test_line_block_is_the_event_block_and_counts_alike():
    """`tx_block` before `count` gives what `event_block` gives for the same event, for each of the events."""
    s = _settings(True)
    lines: list = []
    dicts: list = []
    by_line = TransactionMonitor(s, lines.append, True)
    by_dict = TransactionMonitor(s, dicts.append, True)
    for tx in (by_line, by_dict):
        tx.begin("900:5", 3)
    for i, dc in enumerate(["public.a", "public.b", "public.a", "public.a"]):
        lsn = 1000 + i
        block = tx_block(by_line, 900, dc, lsn)
        by_line.count(dc)
        assert block == orjson.dumps(by_dict.event_block(f"900:{lsn}", dc))
    for tx in (by_line, by_dict):
        tx.end("900:99", 4)
    assert [r.line() for r in lines] == [r.line() for r in dicts]
    by_line.begin("901:5", 3)
    by_line.end("901:6", 3)
    assert tx_block(by_line, 901, "public.a", 7) == b"null"  # outside a transaction, as event_block


def _line_gate(tx_enabled: bool):
    out: list = []
    engine = Engine(CallbackOutput(out.append), MemoryOffsetStore())
    settings = EnvelopeSettings(prefix="p", connector_name="postgresql", source_schema=Schema("string"))
    ident = lambda v: v  # noqa: E731
    table = TableDef("s", "t", [ColumnDef("id", Schema("int32"), ident)], ["id"])
    env = TableEnvelope(settings, table)
    tx = TransactionMonitor(settings, engine.emit, tx_enabled)
    d = Dispatcher(engine, tx, skipped=frozenset(), tombstones=True, skip_unchanged=False, never_skip=False)

    class Window:
        window_open = False

    w = Window()
    d.attach(w, None, None)
    _fmt, vstart, vtail = env._after_formats["c"]
    return d.table_line(env, "s.t", vstart, vtail), tx, w, out


def test_line_gate_counts_after_the_window_check_and_begins_first():
    change, tx, window, out = _line_gate(True)
    tx.begin("1:1", 0)
    window.window_open = True
    assert change("c", (b"line", 0)) is False  # refused: the caller's fallback counts it, not this
    assert (tx.total, tx.per_collection, out) == (0, {}, [])
    window.window_open = False
    assert change("c", (b"line", 0)) is True
    assert (tx.total, tx.per_collection) == (1, {"s.t": 1})
    assert orjson.loads(out[0].value)["payload"]["status"] == "BEGIN"  # BEGIN before the change
    assert out[1].line() == b"line"


def test_line_gate_without_metadata_counts_nothing():
    change, tx, _window, out = _line_gate(False)
    tx.begin("1:1", 0)
    assert change("c", (b"line", 0)) is True
    assert (tx.total, [r.line() for r in out]) == (0, [b"line"])


def test_lines_written_as_they_are_to_a_directory_output(tmp_path):
    """With an engine whose output takes lines (the directory output) BEGIN and END go there as lines, counted in
    the engine's records as its `emit` counts them; the file holds the generic records' lines."""
    s = _settings(True)
    engine = Engine(DirectoryOutput(tmp_path), MemoryOffsetStore())
    tx = TransactionMonitor(s, engine.emit, True, "transaction", lambda: engine.records, engine=engine)
    tx.begin("3:1", 10)
    tx.event_block("3:2", "public.t")
    tx.end("3:3", 11)
    engine.output.flush()
    assert engine.records == 2
    assert (tmp_path / "srv.transaction.jsonl").read_bytes() == _expected(
        s, "BEGIN", "3:1", 10, None
    ) + _expected(s, "END", "3:3", 11, {"public.t": 1})
    assert tx.ended_keys("3:0") == {"transaction_id": "3:0", "transaction_data_collection_order_public.t": 1}
