"""Live MongoDB suite: runs against `MONGODB_URI` (a replica set or mongos), skipped otherwise.

MONGODB_URI='mongodb://localhost:27017/?replicaSet=rs0' .venv/bin/pytest tests/test_mongodb_live.py -rs
"""

from __future__ import annotations

import os
import threading
import time
import uuid

import pytest

URI = os.environ.get("MONGODB_URI")
pytestmark = pytest.mark.skipif(
    not URI,
    reason="MONGODB_URI is not set: the live MongoDB suite needs a replica set or sharded cluster "
    "(e.g. MONGODB_URI='mongodb://localhost:27017/?replicaSet=rs0')",
)

if URI:
    import pymongo

from emulator.engine import Engine  # noqa: E402
from emulator.offsets import MemoryOffsetStore  # noqa: E402
from emulator.outputs.memory import CallbackOutput  # noqa: E402


def Cfg(props):
    """A validated connector Config (the connector reads typed settings from it)."""
    from emulator.config import from_dict

    return from_dict({"connector.class": "io.debezium.connector.mongodb.MongoDbConnector", **props})


class Live:
    def __init__(self, db, offsets=None, **extra):
        from emulator.connectors.mongodb.connector import MongoDbConnector

        self.records = []
        props = {
            "topic.prefix": "live",
            "mongodb.connection.string": URI,
            "database.include.list": db,
            "signal.data.collection": f"{db}.signals",
            "provide.transaction.metadata": "true",
            "capture.mode": "change_streams_update_full",
            "poll.interval.ms": "50",
            "incremental.snapshot.chunk.size": "2",
            **extra,
        }
        self.engine = Engine(CallbackOutput(self.records.append), offsets or MemoryOffsetStore(), 100)
        self.conn = MongoDbConnector(Cfg(props), self.engine)
        self.thread = threading.Thread(target=self.conn.run, daemon=True)

    def __enter__(self):
        self.thread.start()
        return self

    def __exit__(self, *exc):
        self.engine.stop()
        self.thread.join(10)
        self.engine.close()
        self.conn.close()

    def values(self, topic_suffix):
        return [
            r.to_dict()["value"]["payload"]
            for r in list(self.records)
            if r.topic.endswith(topic_suffix) and r.value is not None
        ]

    def wait(self, pred, timeout=20.0):
        end = time.monotonic() + timeout
        while time.monotonic() < end:
            if pred():
                return
            time.sleep(0.05)
        raise AssertionError(f"timed out; records: {[r.to_dict() for r in self.records][-10:]}")


@pytest.fixture
def db():
    client = pymongo.MongoClient(URI)
    name = f"dbzlive_{uuid.uuid4().hex[:8]}"
    client[name].create_collection("customers")
    client[name].create_collection("signals")
    yield client, name
    client.drop_database(name)
    client.close()


def test_snapshot_every_op_and_transaction(db):
    client, name = db
    coll = client[name].customers
    coll.insert_many([{"_id": 1, "n": "a"}, {"_id": 2, "n": "b"}])
    with Live(name) as live:
        live.wait(lambda: len(live.values(".customers")) >= 2)
        snap = live.values(".customers")
        assert [v["op"] for v in snap] == ["r", "r"]
        assert [v["source"]["snapshot"] for v in snap] == ["true", "last"]
        time.sleep(0.5)
        coll.insert_one({"_id": 3, "n": "c"})
        coll.update_one({"_id": 3}, {"$set": {"n": "C"}})
        coll.replace_one({"_id": 3}, {"n": "cc"})
        coll.delete_one({"_id": 3})
        with client.start_session() as s, s.start_transaction():
            coll.insert_one({"_id": 4}, session=s)
            coll.insert_one({"_id": 5}, session=s)
        coll.insert_one({"_id": 6})
        live.wait(lambda: len(live.values(".customers")) >= 9)
        ops = [v["op"] for v in live.values(".customers")][2:]
        assert ops == ["c", "u", "u", "d", "c", "c", "c"]
        upd = live.values(".customers")[3]
        assert upd["updateDescription"]["updatedFields"] == '{"n": "C"}'
        assert upd["after"] == '{"_id": 3,"n": "C"}'
        tx = live.values(".transaction")
        assert [t["status"] for t in tx] == ["BEGIN", "END"] and tx[1]["event_count"] == 2
        assert live.values(".customers")[6]["source"]["txnNumber"] is not None


def test_resume_after_restart(db):
    client, name = db
    coll = client[name].customers
    offsets = MemoryOffsetStore()
    with Live(name, offsets) as live:
        coll.insert_one({"_id": 1})
        live.wait(lambda: any(v["op"] == "c" for v in live.values(".customers")))
        live.engine.commit(force=True)
    coll.insert_one({"_id": 2})  # while stopped
    with Live(name, offsets) as live:
        coll.insert_one({"_id": 3})
        live.wait(lambda: len(live.values(".customers")) >= 2)
        time.sleep(0.3)
        ids = [v["after"] for v in live.values(".customers")]
        assert ids == ['{"_id": 2}', '{"_id": 3}']


def test_incremental_snapshot_with_additional_condition(db):
    client, name = db
    coll = client[name].customers
    coll.insert_many([{"_id": i, "color": "blue" if i % 2 else "red"} for i in range(1, 8)])
    with Live(name, **{"snapshot.mode": "no_data"}) as live:
        time.sleep(0.5)
        client[name].signals.insert_one(
            {
                "type": "execute-snapshot",
                "data": {
                    "data-collections": [f"{name}.customers"],
                    "type": "incremental",
                    "additional-conditions": [
                        {"data-collection": f"{name}.customers", "filter": '{"color": "blue"}'}
                    ],
                },
            }
        )
        live.wait(lambda: len([v for v in live.values(".customers") if v["op"] == "r"]) >= 4)
        reads = [v for v in live.values(".customers") if v["op"] == "r"]
        assert all(v["source"]["snapshot"] == "incremental" for v in reads)
        assert sorted(v["after"] for v in reads) == sorted(
            f'{{"_id": {i},"color": "blue"}}' for i in (1, 3, 5, 7)
        )
