"""MongoDB records into Kafka Connect's data plane in their parts (`StructuredRecord`, no JSON text parsed
back) give the same bytes as the JsonConverter text they replaced (`from_json_record`), for each chain below.

The JSON-text hand-off is the one checked against real Debezium (tests/test_mongo_recorded.py,
tests/test_mongodb_events.py); this test replays one change stream (inserts of varied BSON types, updates
with update descriptions and pre-images, a replace, deletes and their tombstones, a transaction with
`provide.transaction.metadata`) through both hand-offs and compares every output record byte for byte.
No server: the connector is fed change-stream documents as the MongoDB driver returns them.
"""

from __future__ import annotations

import datetime as dt
import uuid

import pytest
from bson import Binary, Decimal128, Int64, ObjectId, Timestamp

from emulator.config import from_dict
from emulator.connect import dataplane
from emulator.connectors.mongodb import events as ev
from emulator.connectors.mongodb.connector import MongoDbConnector
from emulator.engine import Engine
from emulator.offsets import MemoryOffsetStore
from emulator.outputs.memory import CallbackOutput
from emulator.records import StructuredRecord

LSID = {
    "id": Binary(uuid.UUID("11111111-2222-3333-4444-555555555555").bytes, 4),
    "uid": Binary(b"\x00" * 32, 0),
}
WALL = dt.datetime(2019, 5, 27, 13, 58, 28, 456000, tzinfo=dt.UTC)


def _change(n: int, op: str, doc_id, coll: str = "customers", **extra) -> dict:
    return {
        "_id": {"_data": f"8262{n:04d}"},
        "operationType": op,
        "clusterTime": Timestamp(1558965508 + n // 3, n + 1),
        "wallTime": WALL,
        "ns": {"db": "inventory", "coll": coll},
        "documentKey": {"_id": doc_id},
        **extra,
    }


def _stream() -> list[dict]:
    anne = {"_id": Int64(1004), "first_name": "Anne", "tags": ["a", "b"], "n": 1.5}
    typed = {
        "_id": ObjectId("5d1e4f2a9c8b7a6f5e4d3c2b"),
        "price": Decimal128("12.50"),
        "blob": Binary(b"\x00\x01\xfe"),
        "at": dt.datetime(2020, 1, 2, 3, 4, 5, 678000, tzinfo=dt.UTC),
        "nan": float("nan"),
        "nested": {"a": [1, {"b": None}], "c": True},
    }
    tx = {"lsid": LSID, "txnNumber": Int64(7)}
    ud = {
        "updatedFields": {"first_name": "Anne Marie"},
        "removedFields": ["n"],
        "truncatedArrays": [{"field": "tags", "newSize": 1}],
    }
    return [
        _change(0, "insert", Int64(1004), fullDocument=anne),
        _change(1, "insert", typed["_id"], coll="typed", fullDocument=typed),
        _change(
            2,
            "update",
            Int64(1004),
            fullDocument={**anne, "first_name": "Anne Marie"},
            fullDocumentBeforeChange=anne,
            updateDescription=ud,
        ),
        _change(
            3,
            "update",
            Int64(1004),
            fullDocument=None,
            updateDescription={"updatedFields": {"x": Int64(2)}, "removedFields": []},
        ),
        _change(4, "replace", Int64(1004), fullDocument={"_id": Int64(1004), "first_name": "A"}),
        _change(5, "insert", "text-id", fullDocument={"_id": "text-id", "v": None}, **tx),
        _change(6, "insert", Int64(1), coll="typed", fullDocument={"_id": Int64(1)}, **tx),
        _change(7, "delete", Int64(1004), fullDocumentBeforeChange={"_id": Int64(1004)}, **tx),
        _change(8, "delete", typed["_id"], coll="typed"),
        _change(9, "insert", Int64(5), fullDocument={"_id": Int64(5), "q": Int64(2**40)}),
    ]


AVRO = {
    "key.converter": "io.confluent.connect.avro.AvroConverter",
    "key.converter.schema.registry.url": "mock://mongo-dp-{mode}",
    "value.converter": "io.confluent.connect.avro.AvroConverter",
    "value.converter.schema.registry.url": "mock://mongo-dp-{mode}",
}
CHAINS = {
    # not Connect's defaults, so the data plane runs (no transform): wire mode, and the decoding path
    "schemaless_json_nulls_kept": {
        "value.converter.schemas.enable": "false",
        "value.converter.replace.null.with.default": "false",
    },
    "json_numeric": {"value.converter.decimal.format": "NUMERIC", "key.converter.schemas.enable": "false"},
    "route": {
        "transforms": "route",
        "transforms.route.type": "org.apache.kafka.connect.transforms.RegexRouter",
        "transforms.route.regex": "fulfillment\\.(.*)",
        "transforms.route.replacement": "out.$1",
    },
    "avro": AVRO,
    "avro_insert_field_string_headers": {
        **AVRO,
        "transforms": "ins",
        "transforms.ins.type": "org.apache.kafka.connect.transforms.InsertField$Value",
        "transforms.ins.static.field": "origin",
        "transforms.ins.static.value": "mongo",
        "header.converter": "org.apache.kafka.connect.storage.SimpleHeaderConverter",
    },
    "extract_after_string": {
        "transforms": "after",
        "transforms.after.type": "org.apache.kafka.connect.transforms.ExtractField$Value",
        "transforms.after.field": "after",
        "value.converter": "org.apache.kafka.connect.storage.StringConverter",
        "key.converter.schemas.enable": "false",
        "errors.tolerance": "all",  # the transaction markers have no `after`: skipped, as Connect does
    },
}


def _run(chain: str, structured: bool, monkeypatch: pytest.MonkeyPatch) -> list[tuple]:
    props = {
        "connector.class": "io.debezium.connector.mongodb.MongoDbConnector",
        "topic.prefix": "fulfillment",
        "mongodb.connection.string": "mongodb://x/?replicaSet=rs0",
        "provide.transaction.metadata": "true",
        "capture.mode": "change_streams_update_full_with_pre_image",
        **{k: v.format(mode=f"{chain}-{structured}") for k, v in CHAINS[chain].items()},
    }
    config = from_dict(props)
    plane = dataplane.build(config)
    assert plane is not None
    config = dataplane.internal_config(config)
    seen: list = []
    plane_apply = plane.apply

    def apply(record):  # which hand-off reached the plane
        seen.append(record.__class__ is StructuredRecord)
        return plane_apply(record)

    plane.apply = apply
    out: list = []
    engine = Engine(CallbackOutput(out.append), MemoryOffsetStore(), dataplane=plane)
    connector = MongoDbConnector(config, engine)
    connector.settings.structured = structured
    # the same runId header in both runs (a new one per start, as in Debezium); the list keeps its identity
    headers = connector.settings.context_headers
    run_id = connector.settings.run_id.encode()
    headers[:] = [(n, h.replace(run_id, b"run-id")) for n, h in headers]
    # the envelope's ts_ms is the wall clock when the record is made: the same in both runs
    monkeypatch.setattr(ev.time, "time_ns", lambda: 1_700_000_000_123_456_789)
    for e in _stream():
        connector.on_change(e)
    monkeypatch.undo()
    if structured:  # the data records came in their parts (transaction markers always do)
        assert any(seen)
    else:
        assert not all(seen)
    return [(r.topic, r.key, r.value, r.headers, r.partition) for r in out]


@pytest.mark.parametrize("chain", sorted(CHAINS))
def test_parts_and_json_text_give_the_same_bytes(chain: str, monkeypatch: pytest.MonkeyPatch) -> None:
    text = _run(chain, False, monkeypatch)
    parts = _run(chain, True, monkeypatch)
    assert len(text) >= 12  # 10 events, 2 tombstones (BEGIN and END, but where ExtractField skips them)
    assert parts == text


def test_a_recorded_stream_through_a_transform_end_to_end(tmp_path) -> None:
    """The runner, the data plane and the in-process output with MongoDB records in their parts: a
    RegexRouter renames the topic, and the record is Debezium's documented customer 1004 example (the
    values of tests/test_mongo_recorded.py) under the new name, its tombstone too."""
    from emulator.api import Capture
    from emulator.connectors.mongodb.streams import dumps

    anne = {"_id": Int64(1004), "first_name": "Anne", "last_name": "Kretchmar", "email": "annek@noanswer.org"}
    anne_json = (
        '{"_id": {"$numberLong": "1004"},"first_name": "Anne","last_name": "Kretchmar",'
        '"email": "annek@noanswer.org"}'
    )
    stream = tmp_path / "changestream.jsonl"

    def event(n: int, kind: str, **fields) -> dict:
        e = _change(n, kind, Int64(1004), **fields)
        e["clusterTime"] = Timestamp(1558965508, n)
        return e

    create = event(0, "create")
    del create["documentKey"]
    stream.write_text(dumps(create) + "\n")
    props = {
        "connector.class": "io.debezium.connector.mongodb.MongoDbConnector",
        "mongodb.connection.string": stream.as_uri(),
        "topic.prefix": "fulfillment",
        "snapshot.mode": "no_data",
        "offset.storage.file.filename": str(tmp_path / "offsets.json"),
        "offset.flush.interval.ms": "0",
        "transforms": "route",
        "transforms.route.type": "org.apache.kafka.connect.transforms.RegexRouter",
        "transforms.route.regex": "fulfillment\\.(.*)",
        "transforms.route.replacement": "renamed.$1",
    }
    with Capture(props) as cap:
        with open(stream, "a") as f:
            f.write(dumps(event(1, "insert", fullDocument=anne)) + "\n" + dumps(event(2, "delete")) + "\n")
        out: list[dict] = []
        for _ in range(100):
            out += [r for r in cap.records(timeout=0.1) if r["topic"].startswith("renamed.")]
            if len(out) >= 3:
                break
    assert [r["topic"] for r in out] == ["renamed.inventory.customers"] * 3
    c, d, tombstone = out
    assert c["key"]["payload"] == {"id": "1004"}
    assert c["value"]["payload"]["after"] == anne_json and c["value"]["payload"]["op"] == "c"
    assert (
        c["value"]["payload"]["source"]["ord"] == 1 and c["value"]["payload"]["source"]["snapshot"] == "false"
    )
    assert d["value"]["payload"]["op"] == "d" and d["value"]["payload"]["after"] is None
    assert tombstone["key"]["payload"] == {"id": "1004"} and tombstone["value"] is None
