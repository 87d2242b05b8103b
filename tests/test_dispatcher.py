"""The dispatcher (emulator/pipeline/dispatcher.py) without a database: MongoDB change-stream events (as in
tests/test_mongodb_events.py) pushed through a real MongoDbConnector and Engine into a memory output.

Expected values are Debezium's documented behaviour: `skipped.operations` ("c" inserts/creates, "u"
updates/replaces, "d" deletes) removes those events from the stream (MongoDB filters them in the change
stream's pipeline, ChangeStreamPipelineFactory); a delete is followed by a tombstone unless
`tombstones.on.delete=false`; the streaming metrics count each emitted change once (TotalNumberOfCreate/
Update/DeleteEventsSeen) and nothing for a skipped one.
"""

from __future__ import annotations

from bson import Int64, Timestamp

from emulator.connectors.mongodb.connector import MongoDbConnector
from emulator.engine import Engine
from emulator.offsets import MemoryOffsetStore
from emulator.outputs.memory import CallbackOutput
from emulator.pipeline.dispatcher import skipped_operations

TOPIC = "fulfillment.inventory.customers"


class _Cfg:
    def __init__(self, **props: str) -> None:
        self.props = {
            "topic.prefix": "fulfillment",
            "mongodb.connection.string": "mongodb://x/?replicaSet=rs0",
            **props,
        }

    def get(self, name: str):
        return self.props.get(name)


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
    c = MongoDbConnector(_Cfg(**props), engine)
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


def test_skipped_operations_property():
    assert skipped_operations(None) == {"t"}  # Debezium's default
    assert skipped_operations("none") == frozenset()
    assert skipped_operations(" c, U ,d") == {"c", "u", "d"}
