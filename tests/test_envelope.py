"""The fixed Debezium schemas and record shapes, checked key-order-exactly against the golden recording."""

from __future__ import annotations

import json
from pathlib import Path

import orjson
import pytest

from emulator.connect.schema import Schema, struct
from emulator.connectors.postgres.source import MESSAGE_KEY_SCHEMA, SOURCE_SCHEMA, message_value_schema
from emulator.envelope import EnvelopeSettings, uuid7
from emulator.pipeline.heartbeat import Heartbeat
from emulator.pipeline.transactions import TransactionMonitor
from emulator.records import Record

GOLDEN = [json.loads(x) for x in (Path(__file__).parent / "data/pg/pg_public.jsonl").read_text().splitlines()]


def first(topic_suffix: str) -> dict:
    return next(r for r in GOLDEN if r["topic"].endswith(topic_suffix) and r["value"] is not None)


def exact(a) -> str:
    return json.dumps(a)  # key order matters


def settings(**kw) -> EnvelopeSettings:
    return EnvelopeSettings(
        prefix="dbserver1", connector_name="postgresql", source_schema=SOURCE_SCHEMA, **kw
    )


def test_source_schema_is_debeziums():
    golden = first("inventory.customers")["value"]["schema"]["fields"]
    src = next(f for f in golden if f["field"] == "source")
    assert exact({**SOURCE_SCHEMA.to_json(), "field": "source"}) == exact(src)


def test_transaction_schemas():
    rec = first(".transaction")
    assert exact(TransactionMonitor.KEY_SCHEMA.to_json()) == exact(rec["key"]["schema"])
    assert exact(TransactionMonitor.VALUE_SCHEMA.to_json()) == exact(rec["value"]["schema"])


def test_heartbeat_schemas():
    rec = first("heartbeat.dbserver1")
    assert exact(Heartbeat.KEY_SCHEMA.to_json()) == exact(rec["key"]["schema"])
    assert exact(Heartbeat.VALUE_SCHEMA.to_json()) == exact(rec["value"]["schema"])


def test_message_schemas():
    rec = first("dbserver1.message")
    assert exact(MESSAGE_KEY_SCHEMA.to_json()) == exact(rec["key"]["schema"])
    assert exact(message_value_schema(Schema("bytes", optional=True)).to_json()) == exact(
        rec["value"]["schema"]
    )


def test_context_headers_match_golden_shape():
    golden = first("inventory.customers")["headers"]
    ours = [[n, orjson.loads(v)] for n, v in settings().context_headers]
    assert [h[0] for h in ours] == [h[0] for h in golden]
    for (_, g), (_, o) in zip(golden[:3], ours[:3]):
        assert exact(g) == exact(o)
    assert exact(golden[3][1]["schema"]) == exact(ours[3][1]["schema"])


def test_uuid7_version_and_order():
    a, b = uuid7(), uuid7()
    assert a[14] == "7" and b[14] == "7"
    assert a[:8] <= b[:8]


def test_schemas_disabled_gives_bare_payload():
    s = settings(key_schemas=False, value_schemas=False, header_schemas=False)
    emitted: list[Record] = []
    tx = TransactionMonitor(s, emitted.append, True)
    tx.begin("1:10", 5)
    tx.event_block("1:11", "public.t")
    tx.end("1:12", 6)
    begin = orjson.loads(emitted[0].value)
    assert begin == {
        "status": "BEGIN",
        "id": "1:10",
        "event_count": None,
        "data_collections": None,
        "ts_ms": 5,
    }
    assert orjson.loads(emitted[0].key) == {"id": "1:10"}
    assert orjson.loads(s.context_headers[0][1]) == "dbserver1"


def test_transaction_monitor_is_lazy_and_counts_per_collection():
    emitted: list[Record] = []
    tx = TransactionMonitor(settings(), emitted.append, True)
    tx.begin("7:100", 1)
    tx.end("7:200", 2)
    assert emitted == []  # nothing captured: no BEGIN/END
    tx.begin("8:300", 3)
    b1 = tx.event_block("8:301", "s.a")
    b2 = tx.event_block("8:302", "s.b")
    b3 = tx.event_block("8:303", "s.a")
    tx.end("8:400", 4)
    assert (b1, b2, b3) == (
        {"id": "8:301", "total_order": 1, "data_collection_order": 1},
        {"id": "8:302", "total_order": 2, "data_collection_order": 1},
        {"id": "8:303", "total_order": 3, "data_collection_order": 2},
    )
    end = orjson.loads(emitted[-1].value)["payload"]
    assert end["status"] == "END" and end["event_count"] == 3
    # Debezium counts in a java.util.HashMap: `new HashMap<>()` given s.a then s.b iterates s.b, s.a (checked
    # with Java 17; tests/data/pg/tx_restart/end_order.jsonl is the recording of the same rule)
    assert end["data_collections"] == [
        {"data_collection": "s.b", "event_count": 1},
        {"data_collection": "s.a", "event_count": 2},
    ]


@pytest.mark.parametrize(
    "schema,expected",
    [
        (Schema("int32", optional=False, default=0), {"type": "int32", "optional": False, "default": 0}),
        (
            Schema(
                "bytes",
                optional=True,
                name="org.apache.kafka.connect.data.Decimal",
                version=1,
                parameters={"scale": "3"},
                default="Bdw=",
            ),
            {
                "type": "bytes",
                "optional": True,
                "name": "org.apache.kafka.connect.data.Decimal",
                "version": 1,
                "parameters": {"scale": "3"},
                "default": "Bdw=",
            },
        ),
        (
            Schema("map", optional=True, keys=Schema("string"), values=Schema("string", optional=True)),
            {
                "type": "map",
                "keys": {"type": "string", "optional": False},
                "values": {"type": "string", "optional": True},
                "optional": True,
            },
        ),
        (
            struct("x", [("a", Schema("string"))], doc="d"),
            {
                "type": "struct",
                "fields": [{"type": "string", "optional": False, "field": "a"}],
                "optional": False,
                "name": "x",
                "doc": "d",
            },
        ),
    ],
)
def test_jsonconverter_schema_key_order(schema, expected):
    assert exact(schema.to_json()) == exact(expected)


def test_directory_line_shape():
    r = Record("t", b'{"a":1}', None, [("h", b'"v"')])
    assert r.line() == b'{"key":{"a":1},"value":null,"headers":[["h","v"]]}\n'
    assert Record("t", None, b"1").line() == b'{"key":null,"value":1}\n'
