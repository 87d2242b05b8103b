"""Per-event cost of MongoDbConnector.on_change (change-stream document -> dispatcher -> engine emit -> the
data plane when one is configured), no server: the best CPU time (not wall: the machine is shared) of 5
passes over 20,000 inserts. Compare two trees by
running it with each on PYTHONPATH.

    python bench/bench_mongo_events.py [--chains none,json,route,avro]

`none`: Connect's default JsonConverter (no data plane); `json`: schemaless JsonConverter values;
`route`: a RegexRouter with the default JsonConverter; `avro`: AvroConverter key and value
(mock:// registry). The data-plane chains are what the MongoDB -> data-plane hand-off costs."""

import argparse
import time

from bson import Int64, Timestamp

from emulator.config import from_dict
from emulator.connect import dataplane
from emulator.connectors.mongodb.connector import MongoDbConnector
from emulator.engine import Engine
from emulator.offsets import MemoryOffsetStore
from emulator.outputs.memory import CallbackOutput

BASE = {
    "connector.class": "io.debezium.connector.mongodb.MongoDbConnector",
    "topic.prefix": "f",
    "mongodb.connection.string": "mongodb://x/?replicaSet=rs0",
}
CHAINS = {
    "none": {},
    "json": {"value.converter.schemas.enable": "false"},
    "route": {
        "transforms": "route",
        "transforms.route.type": "org.apache.kafka.connect.transforms.RegexRouter",
        "transforms.route.regex": "f\\.(.*)",
        "transforms.route.replacement": "g.$1",
    },
    "avro": {
        "key.converter": "io.confluent.connect.avro.AvroConverter",
        "key.converter.schema.registry.url": "mock://bench",
        "value.converter": "io.confluent.connect.avro.AvroConverter",
        "value.converter.schema.registry.url": "mock://bench",
    },
}
N = 20000


def events() -> list[dict]:
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
    return evs


def run(chain: str, evs: list[dict]) -> float:
    cfg = from_dict({**BASE, **CHAINS[chain]})
    plane = dataplane.build(cfg)
    if plane is not None:  # the connector writes the internal form the data plane takes (as runner.Runner)
        cfg = dataplane.internal_config(cfg)
    out: list = []
    eng = Engine(CallbackOutput(out.append), MemoryOffsetStore(), dataplane=plane)
    c = MongoDbConnector(cfg, eng)
    best = 1e9
    for _ in range(5):
        out.clear()
        t = time.process_time()
        for e in evs:
            c.on_change(e)
        best = min(best, time.process_time() - t)
    assert len(out) == N, (chain, len(out))
    return best


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--chains", default="none,json,route,avro")
    ap.add_argument("--rounds", type=int, default=1, help="repeat the chains, interleaved (noisy machines)")
    args = ap.parse_args()
    evs = events()
    for _ in range(args.rounds):
        for chain in args.chains.split(","):
            best = run(chain, evs)
            print(
                f"{chain:7s} {N / best:,.0f} events/s of CPU ({best * 1e6 / N:.1f} CPU-us/event)", flush=True
            )


if __name__ == "__main__":
    main()
