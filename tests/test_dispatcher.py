"""The dispatcher (emulator/pipeline/dispatcher.py) without a database: MongoDB change-stream events (as in
tests/test_mongodb_events.py) pushed through a real MongoDbConnector and Engine into a memory output, and
relational changes pushed into the dispatcher itself.

Expected values are Debezium's documented behaviour: `skipped.operations` ("c" inserts/creates, "u"
updates/replaces, "d" deletes) removes those events from the stream (MongoDB filters them in the change
stream's pipeline, ChangeStreamPipelineFactory); a delete is followed by a tombstone unless
`tombstones.on.delete=false`; the streaming metrics count each emitted change once (TotalNumberOfCreate/
Update/DeleteEventsSeen) and nothing for a skipped one.
"""

from __future__ import annotations

from bson import Int64, Timestamp

from emulator.config import from_dict
from emulator.connect.schema import Schema
from emulator.connectors.mongodb.connector import MongoDbConnector
from emulator.engine import Engine
from emulator.envelope import EnvelopeSettings, TableEnvelope
from emulator.model import ColumnDef, TableDef
from emulator.offsets import MemoryOffsetStore
from emulator.outputs.memory import CallbackOutput
from emulator.pipeline.dispatcher import Dispatcher
from emulator.pipeline.transactions import TransactionMonitor

TOPIC = "fulfillment.inventory.customers"


def _cfg(**props: str):
    """A validated MongoDB connector Config (the connector reads typed settings from it)."""
    return from_dict(
        {
            "connector.class": "io.debezium.connector.mongodb.MongoDbConnector",
            "topic.prefix": "fulfillment",
            "mongodb.connection.string": "mongodb://x/?replicaSet=rs0",
            **props,
        }
    )


def _change(op: str, doc_id: int, inc: int, **extra) -> dict:
    e = {
        "_id": {"_data": f"82{inc:04d}"},
        "operationType": op,
        "clusterTime": Timestamp(1558965508, inc),
        "ns": {"db": "inventory", "coll": "customers"},
        "documentKey": {"_id": Int64(doc_id)},
    }
    e.update(extra)
    return e


def _stream(**props: str):
    records = []
    engine = Engine(CallbackOutput(records.append), MemoryOffsetStore())
    c = MongoDbConnector(_cfg(**props), engine)
    doc = {"_id": Int64(1), "name": "a"}
    for e in (
        _change("insert", 1, 1, fullDocument=doc),
        _change(
            "update",
            1,
            2,
            fullDocument={**doc, "name": "b"},
            updateDescription={"updatedFields": {"name": "b"}, "removedFields": []},
        ),
        _change("replace", 1, 3, fullDocument={**doc, "name": "c"}),
        _change("delete", 1, 4),
    ):
        c.on_change(e)
    out = [(r.topic, r.to_dict()["value"]["payload"]["op"] if r.value is not None else None) for r in records]
    return out, engine.metrics.streaming


def test_mongodb_default_emits_every_change_and_a_tombstone():
    out, m = _stream()
    assert out == [(TOPIC, "c"), (TOPIC, "u"), (TOPIC, "u"), (TOPIC, "d"), (TOPIC, None)]
    assert (m.creates, m.updates, m.deletes, m.filtered) == (1, 2, 1, 0)


def test_mongodb_skipped_operations_drop_updates_and_replaces():
    out, m = _stream(**{"skipped.operations": "u"})
    assert out == [(TOPIC, "c"), (TOPIC, "d"), (TOPIC, None)]
    assert (m.creates, m.updates, m.deletes) == (1, 0, 1)


def test_mongodb_skipped_deletes_and_no_tombstones():
    out, _ = _stream(**{"skipped.operations": "c,d", "tombstones.on.delete": "false"})
    assert out == [(TOPIC, "u"), (TOPIC, "u")]
    out, _ = _stream(**{"tombstones.on.delete": "false"})
    assert out == [(TOPIC, "c"), (TOPIC, "u"), (TOPIC, "u"), (TOPIC, "d")]


# -- the relational path: a TableEnvelope and a stand-in incremental snapshot -------------------------------
# Expected orders are those of the recordings of real Debezium in tests/data/pg/cases/
# dispatcher_skipped_delete_key_change (PostgreSQL: each record checked against skipped.operations) and
# tests/data/mariadb/cases/dispatcher_skipped_delete_key_change (binlog: the source filters whole events).


class _Window:
    """Records what the dispatcher tells the incremental window and the signal processor (the calls, in
    order): one object plays both."""

    def __init__(self, out: list) -> None:
        self.out = out
        self.window_open = True  # what `active` reports
        self.deferred: list = []

    def on_stream_event(self, table_id, key, row=None, rec=None):
        self.out.append(("window", key, row))

    def on_signal_row(self, row):
        self.out.append(("signal", row["id"]))
        self.deferred.append(1)

    def run_deferred(self):
        self.out.append(("deferred",))
        self.deferred.clear()


def _relational(never_skip: bool, skipped: frozenset[str], tx: bool = False):
    out: list = []
    engine = Engine(CallbackOutput(lambda r: out.append(("record", r))), MemoryOffsetStore())
    settings = EnvelopeSettings(prefix="p", connector_name="postgresql", source_schema=Schema("string"))
    ident = lambda v: v  # noqa: E731
    table = TableDef(
        "s", "t", [ColumnDef("id", Schema("int32"), ident), ColumnDef("v", Schema("string"), ident)], ["id"]
    )
    env = TableEnvelope(settings, table)
    d = Dispatcher(
        engine,
        TransactionMonitor(settings, engine.emit, tx),
        skipped=skipped,
        tombstones=True,
        skip_unchanged=True,
        never_skip=never_skip,
    )
    w = _Window(out)
    d.attach(w, w, "s.signal")
    return d, env, out, engine.metrics.streaming


def _records(out: list) -> list:
    return [
        (e[1].to_dict()["value"] or {}).get("payload", {}).get("op", "tombstone") if e[0] == "record" else e
        for e in out
    ]


def test_key_change_record_by_record_skip_as_postgresql():
    d, env, out, m = _relational(never_skip=False, skipped=frozenset("d"))
    d.change(env, "s.t", "u", {"id": 1, "v": "a"}, {"id": 10, "v": "a"}, "src", None)
    assert _records(out) == [("window", {"id": 10}, {"id": 10, "v": "a"}), "c"]
    assert [h for h, _ in out[-1][1].headers][:1] == ["__debezium.oldkey"]
    assert (m.creates, m.deletes, m.updates) == (1, 0, 0)


def test_key_change_whole_as_the_binlog_connector():
    d, env, out, m = _relational(never_skip=True, skipped=frozenset("d"))
    d.change(env, "s.t", "u", {"id": 1, "v": "a"}, {"id": 10, "v": "a"}, "src", None)
    assert _records(out) == [
        ("window", {"id": 1}, {"id": 1, "v": "a"}),
        "d",
        "tombstone",
        ("window", {"id": 10}, {"id": 10, "v": "a"}),
        "c",
    ]
    assert [h for h, _ in out[1][1].headers][:1] == ["__debezium.newkey"]
    assert [h for h, _ in out[2][1].headers][:1] == ["__debezium.newkey"]
    assert (m.creates, m.deletes, m.updates) == (1, 1, 0)


def test_delete_gives_the_window_its_before_image_and_unchanged_updates_are_skipped():
    d, env, out, m = _relational(never_skip=True, skipped=frozenset("t"))
    d.change(env, "s.t", "u", {"id": 2, "v": "b"}, {"id": 2, "v": "b"}, "src", None)  # no change
    d.change(env, "s.t", "d", {"id": 2, "v": "b"}, None, "src", None)
    assert _records(out) == [("window", {"id": 2}, {"id": 2, "v": "b"}), "d", "tombstone"]
    assert (m.updates, m.deletes) == (0, 1)


def test_signal_row_before_its_own_record_then_deferred_work():
    d, env, out, _ = _relational(never_skip=True, skipped=frozenset("t"))
    d.change(env, "s.signal", "c", None, {"id": 7, "v": "x"}, "src", None)
    assert _records(out) == [("signal", 7), ("window", {"id": 7}, {"id": 7, "v": "x"}), "c", ("deferred",)]


def test_transaction_block_and_begin_with_the_first_event():
    d, env, out, _ = _relational(never_skip=True, skipped=frozenset("t"), tx=True)
    d.begin("tx1", 1000)
    d.change(env, "s.t", "c", None, {"id": 1, "v": "a"}, "src", "tx1")
    d.change(env, "s.t", "c", None, {"id": 2, "v": "b"}, "src", "tx1")
    d.commit("tx1", 2000)
    recs = [e[1].to_dict()["value"]["payload"] for e in out if e[0] == "record"]
    assert [r.get("status") or r["op"] for r in recs] == ["BEGIN", "c", "c", "END"]
    assert [r["transaction"]["total_order"] for r in recs[1:3]] == [1, 2]
    assert recs[3]["event_count"] == 2
