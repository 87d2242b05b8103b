"""MongoDB change-stream events -> Debezium records, without a server.

Expected values are written from the requirements digest (§1, §3 of spec-postgres-mongodb.md) and Debezium's
documented examples (customer 1004 "Anne Kretchmar"), with the Java driver's JsonWriter layout Debezium uses
(indent on, empty indent and newline: `": "` after names, a bare `,` between fields, `", "` in arrays).
"""

from __future__ import annotations

import base64
import datetime as dt
import uuid
from types import SimpleNamespace

import bson
import orjson
import pytest
from bson import Binary, Decimal128, Int64, MaxKey, MinKey, ObjectId, Regex, Timestamp

from emulator import DEBEZIUM_VERSION
from emulator.connectors.mongodb import events as ev
from emulator.connectors.mongodb import extjson
from emulator.connectors.mongodb.connector import (
    Filters,
    MongoConnectorError,
    MongoDbConnector,
    check_topology,
)
from emulator.envelope import EnvelopeSettings
from emulator.pipeline.dispatcher import Dispatcher
from emulator.pipeline.transactions import TransactionMonitor

PREFIX = "fulfillment"
LSID = {
    "id": Binary(uuid.UUID("11111111-2222-3333-4444-555555555555").bytes, 4),
    "uid": Binary(b"\x00" * 32, 0),
}
LSID_JSON = (
    '{"id": {"$binary": "ERERESIiMzNERFVVVVVVVQ==","$type": "04"},'
    '"uid": {"$binary": "AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA=","$type": "00"}}'
)
ANNE = {"_id": Int64(1004), "first_name": "Anne", "last_name": "Kretchmar", "email": "annek@noanswer.org"}
ANNE_JSON = (
    '{"_id": {"$numberLong": "1004"},"first_name": "Anne","last_name": "Kretchmar",'
    '"email": "annek@noanswer.org"}'
)


class Harness:
    def __init__(self, tx_meta=False, tombstones=True, exclude=None, renames=None):
        self.records = []
        self.settings = EnvelopeSettings(
            prefix=PREFIX, connector_name="mongodb", source_schema=ev.SOURCE_SCHEMA
        )
        self.tx = TransactionMonitor(self.settings, self.records.append, tx_meta)
        engine = SimpleNamespace(emit=self.records.append, metrics=None)
        dispatcher = Dispatcher(
            engine, self.tx, skipped=frozenset(), tombstones=tombstones, skip_unchanged=False, never_skip=True
        )
        self.tr = ev.Translator(self.settings, dispatcher, envelope_for=self.env)
        self.exclude, self.renames = exclude, renames

    def env(self, db, coll):
        if db != "inventory":
            return None
        return ev.CollectionEnvelope(
            self.settings, db, coll, ev.field_filter_for(self.exclude, self.renames, db, coll)
        )

    def feed(self, *events):
        for e in events:
            self.tr.event(e)
        return [r.to_dict() for r in self.records]


ANNE_ID = Int64(1004)


def change(op, doc_id=ANNE_ID, sec=1558965508, inc=1, **extra):
    e = {
        "_id": {"_data": "8262"},
        "operationType": op,
        "clusterTime": Timestamp(sec, inc),
        "ns": {"db": "inventory", "coll": "customers"},
        "documentKey": {"_id": doc_id},
    }
    e.update(extra)
    return e


def src(sec=1558965508, inc=1, lsid=None, txn=None, wall=None, snapshot="false"):
    # streaming: Debezium's MongoDB SourceInfo.snapshot() is SnapshotRecord.FALSE outside the initial snapshot
    # (debezium-connector-mongodb SourceInfo.java), printed "false"
    return {
        "version": DEBEZIUM_VERSION,
        "connector": "mongodb",
        "name": PREFIX,
        "ts_ms": sec * 1000,
        "snapshot": snapshot,
        "db": "inventory",
        "sequence": None,
        "ts_us": sec * 1_000_000,
        "ts_ns": sec * 1_000_000_000,
        "collection": "customers",
        "ord": inc,
        "lsid": lsid,
        "txnNumber": txn,
        "wallTime": wall,
    }


# -- schemas ------------------------------------------------------------------------------------------------


def test_key_and_envelope_schemas():
    rec = Harness().feed(change("insert", fullDocument=ANNE))[0]
    assert rec["topic"] == "fulfillment.inventory.customers"
    assert rec["key"] == {
        "schema": {
            "type": "struct",
            "fields": [{"type": "string", "optional": False, "field": "id"}],
            "optional": False,
            "name": "fulfillment.inventory.customers.Key",
        },
        "payload": {"id": "1004"},
    }
    schema = rec["value"]["schema"]
    assert schema["name"] == "fulfillment.inventory.customers.Envelope"
    assert [f["field"] for f in schema["fields"]] == [
        "before",
        "after",
        "updateDescription",
        "source",
        "op",
        "ts_ms",
        "transaction",
    ]
    before = schema["fields"][0]
    assert before == {
        "type": "string",
        "optional": True,
        "name": "io.debezium.data.Json",
        "version": 1,
        "field": "before",
    }
    ud = schema["fields"][2]
    assert ud["name"] == "io.debezium.connector.mongodb.changestream.updatedescription"
    assert [f["field"] for f in ud["fields"]] == ["removedFields", "updatedFields", "truncatedArrays"]
    assert ud["fields"][2]["items"]["name"] == "io.debezium.connector.mongodb.changestream.truncatedarray"
    assert [f["field"] for f in ud["fields"][2]["items"]["fields"]] == ["field", "size"]
    source = schema["fields"][3]
    assert source["name"] == "io.debezium.connector.mongo.Source"
    assert [f["field"] for f in source["fields"]] == [
        "version",
        "connector",
        "name",
        "ts_ms",
        "snapshot",
        "db",
        "sequence",
        "ts_us",
        "ts_ns",
        "collection",
        "ord",
        "lsid",
        "txnNumber",
        "wallTime",
    ]
    assert source["fields"][4]["name"] == "io.debezium.data.Enum"
    assert source["fields"][4]["default"] == "false"
    assert source["fields"][10] == {"type": "int32", "optional": False, "field": "ord"}
    assert schema["fields"][4] == {"type": "string", "optional": True, "field": "op"}
    assert schema["fields"][6]["name"] == "event.block"


# -- keys (digest §3.5) ----------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "id_value,expected",
    [
        (1234, "1234"),
        (Int64(1234), "1234"),
        (12.34, "12.34"),
        ("1234", '"1234"'),
        ({"hi": "kafka", "nums": [10.0, 100.0, 1000.0]}, '{"hi": "kafka","nums": [10.0, 100.0, 1000.0]}'),
        (ObjectId("596e275826f08b2730779e1f"), '{"$oid": "596e275826f08b2730779e1f"}'),
        (Binary(b"kafka", 0), '{"$binary": {"base64": "a2Fma2E=","subType": "00"}}'),
    ],
)
def test_key_payload(id_value, expected):
    rec = Harness().feed(change("insert", doc_id=id_value, fullDocument={"_id": id_value}))[0]
    assert rec["key"]["payload"] == {"id": expected}


# -- extended JSON (STRICT for documents) -------------------------------------------------------------------


def test_strict_values():
    doc = {
        "i": 1,
        "l": Int64(5),
        "big": 2**40,
        "d": 1.5,
        "e": 1.0e7,
        "s": 1.0e-4,
        "nan": float("nan"),
        "dec": Decimal128("1.50"),
        "dt": dt.datetime(2019, 5, 27, 13, 58, 28, tzinfo=dt.UTC),
        "oid": ObjectId("596e275826f08b2730779e1f"),
        "uuid": Binary(uuid.UUID(int=0).bytes, 4),
        "ts": Timestamp(1, 2),
        "re": Regex("^a", "i"),
        "min": MinKey(),
        "max": MaxKey(),
        "t": True,
        "n": None,
        "arr": [1, "x", {"a": 1}],
        "empty": {},
        "none": [],
    }
    assert extjson.dumps(doc) == (
        '{"i": 1,"l": {"$numberLong": "5"},"big": {"$numberLong": "1099511627776"},"d": 1.5,"e": 1.0E7,'
        '"s": 1.0E-4,"nan": NaN,"dec": {"$numberDecimal": "1.50"},"dt": {"$date": 1558965508000},'
        '"oid": {"$oid": "596e275826f08b2730779e1f"},'
        '"uuid": {"$binary": "AAAAAAAAAAAAAAAAAAAAAA==","$type": "04"},"ts": {"$timestamp": {"t": 1,"i": 2}},'
        '"re": {"$regex": "^a","$options": "i"},"min": {"$minKey": 1},"max": {"$maxKey": 1},"t": true,'
        '"n": null,"arr": [1, "x", {"a": 1}],"empty": {},"none": []}'
    )


def test_relaxed_values():
    assert (
        extjson.value(dt.datetime(2019, 5, 27, 13, 58, 28, 123000, tzinfo=dt.UTC), extjson.RELAXED)
        == '{"$date": "2019-05-27T13:58:28.123Z"}'
    )
    assert extjson.value(float("inf"), extjson.RELAXED) == '{"$numberDouble": "Infinity"}'
    assert extjson.value(Int64(7), extjson.RELAXED) == "7"


def test_string_escapes_like_the_java_writer():
    assert extjson.quote('a"b\\c\n\t') == '"a\\"b\\\\c\\n\\t"'
    assert extjson.quote("é€") == '"é€"'  # letters and symbols as they are
    assert extjson.quote("\x01\u200b") == '"\\u0001\\u200b"'  # control, format: escaped, lowercase hex
    assert extjson.quote("😀") == '"\\ud83d\\ude00"'  # surrogate halves


# -- ops and capture modes (digest §3.3, §3.6) --------------------------------------------------------------


def test_insert_matches_documented_example():
    rec = Harness().feed(change("insert", fullDocument=ANNE))[0]
    p = rec["value"]["payload"]
    assert p["after"] == ANNE_JSON
    assert p["before"] is None and p["updateDescription"] is None and p["transaction"] is None
    assert p["op"] == "c"
    assert p["source"] == src()
    assert isinstance(p["ts_ms"], int)


UPDATE_DESC = {
    "updatedFields": {"first_name": "Anne Marie"},
    "removedFields": ["email"],
    "truncatedArrays": [{"field": "tags", "newSize": 1}],
}
ANNE_MARIE = {**ANNE, "first_name": "Anne Marie"}
ANNE_MARIE_JSON = ANNE_JSON.replace('"Anne"', '"Anne Marie"')
EXPECTED_UD = {
    "removedFields": ["email"],
    "updatedFields": '{"first_name": "Anne Marie"}',
    "truncatedArrays": [{"field": "tags", "size": 1}],
}


@pytest.mark.parametrize(
    "mode,has_after,has_before",
    [
        ("change_streams", False, False),
        ("change_streams_update_full", True, False),
        ("change_streams_with_pre_image", False, True),
        ("change_streams_update_full_with_pre_image", True, True),
    ],
)
def test_update_per_capture_mode(mode, has_after, has_before):
    # what the server sends for each mode (fullDocument: updateLookup; fullDocumentBeforeChange: whenAvailable)
    extra = {"updateDescription": UPDATE_DESC}
    if has_after:
        extra["fullDocument"] = ANNE_MARIE
    if has_before:
        extra["fullDocumentBeforeChange"] = ANNE
    p = Harness().feed(change("update", **extra))[0]["value"]["payload"]
    assert p["op"] == "u"
    assert p["updateDescription"] == EXPECTED_UD
    assert p["after"] == (ANNE_MARIE_JSON if has_after else None)
    assert p["before"] == (ANNE_JSON if has_before else None)


def test_update_lookup_of_deleted_document_gives_null_after():
    p = Harness().feed(
        change(
            "update",
            fullDocument=None,
            updateDescription={"updatedFields": {"n": Int64(2)}, "removedFields": []},
        )
    )[0]["value"]["payload"]
    assert p["after"] is None
    assert p["updateDescription"] == {
        "removedFields": None,
        "updatedFields": '{"n": {"$numberLong": "2"}}',
        "truncatedArrays": None,
    }


def test_replace_is_an_update_without_update_description():
    p = Harness().feed(change("replace", fullDocument=ANNE_MARIE))[0]["value"]["payload"]
    assert p["op"] == "u" and p["after"] == ANNE_MARIE_JSON and p["updateDescription"] is None


@pytest.mark.parametrize("pre_image", [False, True])
def test_delete_and_tombstone(pre_image):
    extra = {"fullDocumentBeforeChange": ANNE} if pre_image else {}
    recs = Harness().feed(change("delete", **extra))
    assert len(recs) == 2
    p = recs[0]["value"]["payload"]
    assert p["op"] == "d" and p["after"] is None and p["updateDescription"] is None
    assert p["before"] == (ANNE_JSON if pre_image else None)
    assert recs[1]["key"]["payload"] == {"id": "1004"} and recs[1]["value"] is None


def test_delete_without_tombstone():
    recs = Harness(tombstones=False).feed(change("delete"))
    assert [r["value"]["payload"]["op"] for r in recs] == ["d"]


@pytest.mark.parametrize("op", ["drop", "rename", "dropDatabase", "invalidate", "create", "createIndexes"])
def test_other_operation_types_emit_nothing(op):
    e = change(op)
    e.pop("documentKey")
    assert Harness().feed(e) == []


def test_uncaptured_collection_emits_nothing():
    e = change("insert", fullDocument=ANNE)
    e["ns"] = {"db": "other", "coll": "x"}
    assert Harness().feed(e) == []


def test_wall_time_in_source():
    wall = dt.datetime(2019, 5, 27, 13, 58, 28, 456000, tzinfo=dt.UTC)
    p = Harness().feed(change("insert", fullDocument=ANNE, wallTime=wall))[0]["value"]["payload"]
    assert p["source"]["wallTime"] == 1558965508456
    assert p["source"]["ts_ms"] == 1558965508000


# -- transactions (digest §1.5, §3.9) ------------------------------------------------------------------------


def test_transaction_metadata():
    h = Harness(tx_meta=True)
    t = {"lsid": LSID, "txnNumber": Int64(3)}
    recs = h.feed(
        change("insert", inc=1, fullDocument=ANNE, **t),
        change("update", inc=2, fullDocument=ANNE_MARIE, updateDescription=UPDATE_DESC, **t),
        change("insert", doc_id=Int64(1005), inc=3, sec=1558965509, fullDocument={"_id": Int64(1005)}),
    )
    txid = LSID_JSON + ":3"
    topics = [r["topic"] for r in recs]
    assert topics == [
        "fulfillment.transaction",
        "fulfillment.inventory.customers",
        "fulfillment.inventory.customers",
        "fulfillment.transaction",
        "fulfillment.inventory.customers",
    ]
    begin = recs[0]
    assert begin["key"]["payload"] == {"id": txid}
    assert begin["value"]["payload"] == {
        "status": "BEGIN",
        "id": txid,
        "event_count": None,
        "data_collections": None,
        "ts_ms": 1558965508000,
    }
    p1, p2 = recs[1]["value"]["payload"], recs[2]["value"]["payload"]
    assert p1["transaction"] == {"id": txid, "total_order": 1, "data_collection_order": 1}
    assert p2["transaction"] == {"id": txid, "total_order": 2, "data_collection_order": 2}
    assert p1["source"] == src(lsid=LSID_JSON, txn=3)
    end = recs[3]["value"]["payload"]
    assert end == {
        "status": "END",
        "id": txid,
        "event_count": 2,
        "data_collections": [{"data_collection": "inventory.customers", "event_count": 2}],
        "ts_ms": 1558965509000,
    }
    assert recs[4]["value"]["payload"]["transaction"] is None


def test_consecutive_transactions_close_each_other():
    h = Harness(tx_meta=True)
    recs = h.feed(
        change("insert", fullDocument=ANNE, lsid=LSID, txnNumber=Int64(1)),
        change("insert", fullDocument=ANNE, lsid=LSID, txnNumber=Int64(2)),
    )
    statuses = [
        (r["value"]["payload"].get("status"), r["value"]["payload"].get("id"))
        for r in recs
        if r["topic"] == "fulfillment.transaction"
    ]
    assert statuses == [("BEGIN", LSID_JSON + ":1"), ("END", LSID_JSON + ":1"), ("BEGIN", LSID_JSON + ":2")]


def test_transaction_fields_without_metadata_topic():
    recs = Harness().feed(change("insert", fullDocument=ANNE, lsid=LSID, txnNumber=Int64(9)))
    assert len(recs) == 1
    p = recs[0]["value"]["payload"]
    assert p["transaction"] is None
    assert p["source"]["lsid"] == LSID_JSON and p["source"]["txnNumber"] == 9


# -- field.exclude.list / field.renames ------------------------------------------------------------------------


def test_field_exclude_and_rename():
    h = Harness(
        exclude="inventory.customers.email,*.*.address.zip", renames="inventory.customers.last_name:surname"
    )
    doc = {**ANNE, "address": {"zip": "1", "city": "X"}}
    recs = h.feed(
        change("insert", fullDocument=doc),
        change(
            "update",
            updateDescription={
                "updatedFields": {"email": "a", "address.zip": "2", "last_name": "K"},
                "removedFields": ["email", "last_name"],
            },
        ),
    )
    assert recs[0]["value"]["payload"]["after"] == (
        '{"_id": {"$numberLong": "1004"},"first_name": "Anne","surname": "Kretchmar","address": {"city": "X"}}'
    )
    assert recs[1]["value"]["payload"]["updateDescription"] == {
        "removedFields": ["surname"],
        "updatedFields": '{"surname": "K"}',
        "truncatedArrays": None,
    }


# -- connection, filters, snapshot decisions ---------------------------------------------------------------


def test_standalone_server_is_refused():
    with pytest.raises(MongoConnectorError, match="standalone server"):
        check_topology({"isWritablePrimary": True}, "mongodb://localhost:27017")
    assert check_topology({"setName": "rs0"}) == "replica_set"
    assert check_topology({"msg": "isdbgrid"}) == "sharded"


def test_filters():
    from emulator.settings import settings_for

    f = Filters(
        settings_for(
            _Cfg(**{"database.include.list": "inventory", "collection.exclude.list": "inventory\\.secret.*"})
        )
    )
    assert f.collection_included("inventory", "customers")
    assert not f.collection_included("inventory", "secrets")
    assert not f.collection_included("other", "customers")
    assert not f.collection_included("admin", "x") and not f.collection_included("inventory", "system.views")
    lit = Filters(settings_for(_Cfg(**{"filters.match.mode": "literal", "collection.include.list": "a.b.c"})))
    assert lit.collection_included("a", "b.c") and not lit.collection_included("a", "bxc")


def _Cfg(**props):
    """A validated connector Config (the connector reads typed settings from it)."""
    from emulator.config import from_dict

    return from_dict(
        {
            "connector.class": "io.debezium.connector.mongodb.MongoDbConnector",
            "topic.prefix": PREFIX,
            "mongodb.connection.string": "mongodb://x/?replicaSet=rs0",
            **{k.replace("_", "."): v for k, v in props.items()},
        }
    )


class _Engine:
    def __init__(self):
        import threading

        from emulator.metrics import ConnectorMetrics

        self.heartbeat = None
        self.source = None
        self.metrics = ConnectorMetrics()
        self.stop_event = threading.Event()
        self.stopping = False

    def emit(self, r):
        pass


@pytest.mark.parametrize(
    "mode,stored,expected",
    [
        ("initial", None, True),
        ("initial", {"sec": 1, "ord": 1}, False),
        ("initial", {"sec": 1, "ord": 1, "initsync": True}, True),  # interrupted snapshot restarts
        ("initial_only", None, True),
        ("when_needed", None, True),
        ("when_needed", {"sec": 1, "ord": 1}, False),
        ("always", {"sec": 1, "ord": 1}, True),
        ("no_data", None, False),  # 'never' is refused by the front door (removed in Debezium 3.0)
    ],
)
def test_snapshot_decision(mode, stored, expected):
    from emulator.pipeline.snapshotter import decide, mode_of

    c = MongoDbConnector(_Cfg(**{"snapshot_mode": mode}), _Engine())
    assert decide(mode_of(mode), *c.offset_state(stored)).data is expected


def _lost_connector(mode):
    from contextlib import contextmanager

    from emulator.connectors.mongodb.connector import HistoryLost
    from emulator.pipeline.coordinator import SnapshotSession

    c = MongoDbConnector(_Cfg(**{"snapshot_mode": mode}), _Engine())
    calls = []

    class Offsets:
        def load(self):
            return {"sec": 1, "ord": 1, "resume_token": None}

    c.engine.offsets = Offsets()
    c.engine.commit = lambda force=False: None
    c.connect = lambda: None

    def stream():
        calls.append("stream")
        if calls.count("stream") == 1:
            raise HistoryLost(286, mode)

    @contextmanager
    def snapshot_session(data):
        calls.append("snapshot")
        yield SnapshotSession([], iter, lambda *a: None, str)

    c.stream_changes = stream
    c.snapshot_session = snapshot_session
    return c, calls


def _run(c):
    from types import SimpleNamespace

    from emulator.pipeline.coordinator import Coordinator

    snapshot = SimpleNamespace(
        mode=c.snapshot_mode, configuration_based=None, delay_ms=0, streaming_delay_ms=0
    )
    Coordinator(c, snapshot, c.engine).run()


def test_history_lost_fails_with_initial():
    c, calls = _lost_connector("initial")
    with pytest.raises(MongoConnectorError, match="error 286"):
        _run(c)
    assert calls == ["stream"]


def test_history_lost_snapshots_with_when_needed():
    c, calls = _lost_connector("when_needed")
    _run(c)
    assert calls == ["stream", "snapshot", "stream"]


def test_offsets_carry_resume_token_and_session():
    c = MongoDbConnector(_Cfg(), _Engine())
    assert c.offset() is None
    c.token = {"_data": "826"}
    c.on_change = MongoDbConnector.on_change.__get__(c)
    c.translator.envelope_for = lambda db, coll: None
    c.on_change(change("insert", inc=7, lsid=LSID, txnNumber=Int64(4)))
    off = c.offset()
    assert off["sec"] == 1558965508 and off["ord"] == 7
    assert off["lsid"] == LSID_JSON and off["txnNumber"] == 4
    # the offset's resume token: base64 of the token's BSON document (as MongoDbOffsetContext stores it)
    assert bson.decode(base64.b64decode(off["resume_token"])) == {"_data": "826"}
    assert orjson.loads(orjson.dumps(off)) == off


def test_runner_registers_the_connector():
    from emulator.connectors.registry import connector_class, partition_of

    cls = "io.debezium.connector.mongodb.MongoDbConnector"
    assert connector_class(cls) is MongoDbConnector
    assert partition_of(cls, PREFIX) == {"server_id": PREFIX}
