"""The MongoDB connector on a recorded change stream (`mongodb.connection.string=file:...`), end to end
through the public `Capture` API: Debezium's documented customer 1004 example (spec-postgres-mongodb.md §3,
the same values as tests/test_mongodb_events.py) replayed from a file, a restart on the stored resume token,
and a resume token the recording no longer holds.
"""

from __future__ import annotations

import datetime as dt
import json
import uuid
from pathlib import Path

import pytest
from bson import Binary, Int64, Timestamp

from emulator.api import Capture, CaptureError
from emulator.connectors.mongodb.streams import dumps

ANNE = {"_id": Int64(1004), "first_name": "Anne", "last_name": "Kretchmar", "email": "annek@noanswer.org"}
ANNE_JSON = (
    '{"_id": {"$numberLong": "1004"},"first_name": "Anne","last_name": "Kretchmar",'
    '"email": "annek@noanswer.org"}'
)
TOPIC = "fulfillment.inventory.customers"


def _event(n: int, kind: str, **fields) -> dict:
    return {
        "_id": {"_data": f"8263{n:04d}"},
        "operationType": kind,
        "clusterTime": Timestamp(1558965508, n),
        "wallTime": dt.datetime(2019, 5, 27, 13, 58, 28, tzinfo=dt.UTC),
        "ns": {"db": "inventory", "coll": "customers"},
        "documentKey": {"_id": Int64(1004)},
        **fields,
    }


def _write(path: Path, *events: dict) -> None:
    with open(path, "a") as f:
        f.write("".join(dumps(e) + "\n" for e in events))


def _props(tmp_path: Path, stream: Path, **extra: str) -> dict[str, str]:
    return {
        "connector.class": "io.debezium.connector.mongodb.MongoDbConnector",
        "mongodb.connection.string": stream.as_uri(),
        "topic.prefix": "fulfillment",
        "snapshot.mode": "no_data",
        "offset.storage.file.filename": str(tmp_path / "offsets.json"),
        "offset.flush.interval.ms": "0",
        **extra,
    }


def _drain(cap: Capture, n: int) -> list[dict]:
    out: list[dict] = []
    for _ in range(100):
        out += [r for r in cap.records(timeout=0.1) if r["topic"] == TOPIC]
        if len(out) >= n:
            return out
    raise AssertionError(f"{len(out)} of {n} records")


def test_replay_then_restart_on_the_stored_resume_token(tmp_path: Path) -> None:
    stream = tmp_path / "changestream.jsonl"
    _write(stream, _event(0, "create"))  # the collection exists before the connector starts
    with Capture(_props(tmp_path, stream)) as cap:
        _write(
            stream,
            _event(1, "insert", fullDocument=ANNE),
            _event(
                2,
                "update",
                fullDocument={**ANNE, "first_name": "Anne Marie"},
                updateDescription={"updatedFields": {"first_name": "Anne Marie"}, "removedFields": []},
            ),
        )
        c, u = _drain(cap, 2)
    assert c["key"]["payload"] == {"id": "1004"}
    assert c["value"]["payload"]["op"] == "c" and c["value"]["payload"]["after"] == ANNE_JSON
    assert (
        c["value"]["payload"]["source"]["ord"] == 1 and c["value"]["payload"]["source"]["snapshot"] == "false"
    )
    assert u["value"]["payload"]["updateDescription"]["updatedFields"] == '{"first_name": "Anne Marie"}'
    # written while the connector is down: the restart resumes after the stored token, once
    _write(stream, _event(3, "delete"))
    with Capture(_props(tmp_path, stream)) as cap:
        recs = _drain(cap, 2)
    assert [(r["value"] or {}).get("payload", {}).get("op") for r in recs] == ["d", None]
    assert recs[0]["value"]["payload"]["source"]["ord"] == 3


def test_a_resume_token_the_recording_no_longer_holds_fails_the_start(tmp_path: Path) -> None:
    stream = tmp_path / "changestream.jsonl"
    _write(stream, _event(0, "create"), _event(1, "insert", fullDocument=ANNE))
    with Capture(_props(tmp_path, stream, **{"snapshot.mode": "initial"})) as cap:
        assert [r["value"]["payload"]["op"] for r in _drain(cap, 1)] == ["r"]
    stream.write_text("")  # the oplog rolled over: the stored token is gone
    _write(stream, _event(7, "insert", fullDocument=ANNE))
    with pytest.raises(CaptureError, match="no longer be in the oplog"):
        Capture(_props(tmp_path, stream, **{"snapshot.mode": "initial"})).start()


def test_a_user_pipeline_stage_is_refused_at_start(tmp_path: Path) -> None:
    """A recorded stream cannot run aggregation stages: refused in one line naming cursor.pipeline, not
    accepted and ignored."""
    stream = tmp_path / "changestream.jsonl"
    _write(stream, _event(0, "create"))
    props = _props(tmp_path, stream, **{"cursor.pipeline": '[{"$project": {"fullDocument": 0}}]'})
    with pytest.raises(CaptureError, match="cursor.pipeline stage"):
        Capture(props).start()


@pytest.mark.parametrize("name", ["mongodb.user", "mongodb.ssl.enabled", "cursor.max.await.time.ms"])
def test_server_only_properties_are_refused_with_a_recording(tmp_path: Path, name: str) -> None:
    """A recording has no server to log in to, encrypt or wait on: such a property is refused at start
    naming it, never accepted and ignored."""
    from emulator.config import ConfigError, from_dict

    stream = tmp_path / "changestream.jsonl"
    _write(stream, _event(0, "create"))
    with pytest.raises(ConfigError, match=name.replace(".", r"\.")):
        from_dict(_props(tmp_path, stream, **{name: "1"}))


def test_transaction_context_is_stored_but_a_restart_begins_the_transaction_again(tmp_path: Path) -> None:
    """MongoDbOffsetContext.getOffset stores TransactionContext's `transaction_id` and
    `transaction_data_collection_order_<db.coll>`, but its Loader builds a new, empty TransactionContext
    (Debezium 3.6.3's source and class file): a restart inside a transaction writes BEGIN again (same id) and
    counts from 1; END counts only what the restart delivered. No event is lost or repeated."""
    lsid = {
        "id": Binary(uuid.UUID("11111111-2222-3333-4444-555555555555").bytes, 4),
        "uid": Binary(b"\x00" * 32, 0),
    }
    txid = (
        '{"id": {"$binary": "ERERESIiMzNERFVVVVVVVQ==","$type": "04"},'
        '"uid": {"$binary": "AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA=","$type": "00"}}:3'
    )
    t = {"lsid": lsid, "txnNumber": Int64(3)}
    stream = tmp_path / "changestream.jsonl"
    _write(stream, _event(0, "create"))
    props = _props(tmp_path, stream, **{"provide.transaction.metadata": "true"})
    with Capture(props) as cap:
        _write(
            stream,
            _event(1, "insert", fullDocument=ANNE, **t),
            _event(
                2,
                "update",
                fullDocument=ANNE,
                updateDescription={"updatedFields": {}, "removedFields": []},
                **t,
            ),
        )
        _drain(cap, 2)
    first = [r["value"]["payload"] for r in cap.seen if r["topic"] == "fulfillment.transaction"]
    assert [(p["status"], p["id"]) for p in first] == [("BEGIN", txid)]
    stored = json.loads((tmp_path / "offsets.json").read_text())["offset"]
    assert stored["transaction_id"] == txid
    assert stored["transaction_data_collection_order_inventory.customers"] == 2
    assert stored["txnNumber"] == 3
    # the transaction's last change arrives while the connector is down, then a change outside it
    _write(stream, _event(3, "delete", **t), _event(4, "insert", fullDocument=ANNE))
    with Capture(props) as cap:
        _drain(cap, 3)  # the delete, its tombstone, the insert
        cap.wait_for("fulfillment.transaction", lambda r: r["value"]["payload"]["status"] == "END", 10)
    recs = [r for r in cap.seen if r["value"] is not None]
    assert [
        (r["topic"].rsplit(".", 1)[1], r["value"]["payload"].get("status") or r["value"]["payload"]["op"])
        for r in recs
    ] == [
        ("transaction", "BEGIN"),
        ("customers", "d"),
        ("transaction", "END"),
        ("customers", "c"),
    ]
    assert recs[0]["value"]["payload"]["id"] == txid
    assert recs[1]["value"]["payload"]["transaction"] == {
        "id": txid,
        "total_order": 1,
        "data_collection_order": 1,
    }
    assert recs[2]["value"]["payload"]["event_count"] == 1
    assert recs[3]["value"]["payload"]["transaction"] is None
    after = json.loads((tmp_path / "offsets.json").read_text())["offset"]
    assert not any(k.startswith("transaction_") for k in after)
