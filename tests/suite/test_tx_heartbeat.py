"""Transaction metadata (`provide.transaction.metadata=true`) and heartbeats, as golden/pg/FINDINGS.md and the
spec describe them: BEGIN before the transaction's first event and END after its last, END counting events
per data collection, each event's `transaction` block numbering it in the transaction and in its table;
snapshot reads get no transaction; heartbeats keyed `{"serverName": prefix}` with `{"ts_ms"}` while idle;
both topic names configurable."""

from __future__ import annotations

import time

import pytest
from harness import Run, payload

TX_KEY = "io.debezium.connector.common.TransactionMetadataKey"
TX_VALUE = "io.debezium.connector.common.TransactionMetadataValue"


@pytest.mark.needs("tx_metadata")
def test_transaction_metadata_order_and_counts(backend):
    backend.create_table("t1", {"id": "int"})
    backend.create_table("t2", {"id": "int"})
    backend.insert("t1", {"id": 100})  # read by the snapshot: no transaction block, no BEGIN/END
    with Run(backend, **{"provide.transaction.metadata": "true"}) as run:
        with backend.transaction():
            backend.insert("t1", {"id": 1})
            backend.insert("t2", {"id": 1})
            backend.insert("t1", {"id": 2})
        tx_topic = f"{backend.prefix}.transaction"
        # MongoDB ends a transaction when the next event has another (or no) transaction id: the barrier's
        run.barrier()
        run.wait(lambda r: any(p["status"] == "END" for p in r.notifications(tx_topic)), "END")
    data = {backend.topic("t1"): "t1", backend.topic("t2"): "t2"}
    seq = [r for r in run.records if r["topic"] in data or r["topic"] == tx_topic]
    seq = seq[
        : next(i for i, r in enumerate(seq) if r["topic"] == tx_topic and payload(r)["status"] == "END") + 1
    ]
    shape = [
        payload(r)["status"] if r["topic"] == tx_topic else (data[r["topic"]], payload(r)["op"]) for r in seq
    ]
    assert shape == [("t1", "r"), "BEGIN", ("t1", "c"), ("t2", "c"), ("t1", "c"), "END"]
    read, begin, *events, end = seq
    assert payload(read)["transaction"] is None
    b, e = payload(begin), payload(end)
    assert b["event_count"] is None and b["data_collections"] is None
    assert backend.key(begin) == {"id": b["id"]} and backend.key(end) == {"id": e["id"]}
    assert begin["key"]["schema"]["name"] == TX_KEY and begin["value"]["schema"]["name"] == TX_VALUE
    assert e["event_count"] == 3
    assert sorted((c["data_collection"], c["event_count"]) for c in e["data_collections"]) == [
        (backend.table_id("t1"), 2),
        (backend.table_id("t2"), 1),
    ]
    blocks = [payload(r)["transaction"] for r in events]
    assert [(x["total_order"], x["data_collection_order"]) for x in blocks] == [(1, 1), (2, 1), (3, 2)]
    assert len({x["id"] for x in blocks}) <= 3  # one transaction (the id may carry each event's position)


@pytest.mark.needs("tx_metadata", "lazy_tx_begin")
def test_skipped_operations_open_no_transaction(backend):
    """A transaction whose changes are all dropped by skipped.operations emits no BEGIN/END (real Debezium,
    tests/data/pg/cases/filters_shaping). Binlog connectors emit BEGIN at the transaction's GTID event,
    before knowing whether anything is captured (tests/data/mariadb/mariadb_public.jsonl: a BEGIN for each
    DDL), so they do not declare `lazy_tx_begin`."""
    backend.create_table("t", {"id": "int", "v": "int"})
    backend.insert("t", {"id": 1, "v": 0})
    with Run(backend, **{"provide.transaction.metadata": "true", "skipped.operations": "u"}) as run:
        with backend.transaction():
            backend.update("t", {"id": 1}, {"v": 1})
            backend.update("t", {"id": 1}, {"v": 2})
        run.barrier()
        run.wait(lambda r: len(r.notifications(f"{backend.prefix}.transaction")) >= 2, "the barrier's END")
    statuses = [p["status"] for p in run.notifications(f"{backend.prefix}.transaction")]
    assert statuses == ["BEGIN", "END"]  # the barrier's transaction only


@pytest.mark.needs("heartbeat")
def test_heartbeats_while_idle(backend):
    topic = f"__debezium-heartbeat.{backend.prefix}"
    with Run(backend, **{"heartbeat.interval.ms": "200", "snapshot.mode": "no_data"}) as run:
        run.barrier()
        run.wait(lambda r: sum(1 for x in r.records if x["topic"] == topic) >= 3, "three heartbeats", 30)
    beats = [r for r in run.records if r["topic"] == topic]
    for r in beats:
        assert backend.key(r) == {"serverName": backend.prefix}
        assert set(payload(r)) == {"ts_ms"} and isinstance(payload(r)["ts_ms"], int)
        assert r["key"]["schema"]["name"] == "io.debezium.connector.common.ServerNameKey"
        assert r["value"]["schema"]["name"] == "io.debezium.connector.common.Heartbeat"
    ts = [payload(r)["ts_ms"] for r in beats]
    assert ts == sorted(ts) and abs(ts[-1] / 1000 - time.time()) < 60


@pytest.mark.needs("heartbeat", "tx_metadata")
def test_transaction_and_heartbeat_topic_names_configurable(backend):
    props = {
        "snapshot.mode": "no_data",
        "provide.transaction.metadata": "true",
        "topic.transaction": "txmeta",
        "heartbeat.interval.ms": "200",
        "topic.heartbeat.prefix": "beats",
    }
    backend.create_table("t", {"id": "int"})
    with Run(backend, **props) as run:
        with backend.transaction():  # MongoDB: only a multi-document transaction has transaction metadata
            backend.insert("t", {"id": 1})
        run.barrier()
        run.wait(lambda r: any(x["topic"] == f"{backend.prefix}.txmeta" for x in r.records), "txmeta")
        run.wait(lambda r: any(x["topic"] == f"beats.{backend.prefix}" for x in r.records), "beats")
    defaults = (f"{backend.prefix}.transaction", f"__debezium-heartbeat.{backend.prefix}")
    assert [r for r in run.records if r["topic"] in defaults] == []
