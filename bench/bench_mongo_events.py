"""Per-event cost of MongoDbConnector.on_change (change-stream document -> dispatcher -> engine emit), no
server: best of 5 passes over 20,000 inserts. Compare two trees by running it with each on PYTHONPATH."""

import time

from bson import Int64, Timestamp

from emulator.config import from_dict
from emulator.connectors.mongodb.connector import MongoDbConnector
from emulator.engine import Engine
from emulator.offsets import MemoryOffsetStore
from emulator.outputs.memory import CallbackOutput

cfg = from_dict(
    {
        "connector.class": "io.debezium.connector.mongodb.MongoDbConnector",
        "topic.prefix": "f",
        "mongodb.connection.string": "mongodb://x/?replicaSet=rs0",
    }
)

eng = Engine(CallbackOutput(lambda r: None), MemoryOffsetStore())
c = MongoDbConnector(cfg, eng)
N = 20000
evs = []
for i in range(N):
    doc = {"_id": Int64(i), "name": f"n{i}", "qty": i, "tags": ["a", "b"]}
    evs.append(
        {
            "_id": {"_data": f"82{i:06d}"},
            "operationType": "insert",
            "clusterTime": Timestamp(1700000000, i + 1),
            "ns": {"db": "inv", "coll": "c"},
            "documentKey": {"_id": Int64(i)},
            "fullDocument": doc,
        }
    )
best = 1e9
for _ in range(5):
    t = time.perf_counter()
    for e in evs:
        c.on_change(e)
    best = min(best, time.perf_counter() - t)
print(f"{N / best:,.0f} events/s ({best * 1e6 / N:.1f} us/event)")
