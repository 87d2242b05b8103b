"""A clean stop that lands between a transaction's BEGIN and its first change, then a restart on the stored
offsets: the transaction must be emitted whole by the next run (found by the behaviour suite: one of 400
single-row inserts lost across a SIGTERM restart).

pgoutput sends a transaction at its commit, so a transaction's first change can lie before the previous
transaction's commit end in the WAL (concurrent writers) or exactly at it (the next record after a commit):
a stored `lsn_proc` of the previous commit must not make the restart skip the stopped transaction's
changes. The stop point is chosen with a hook on the engine's per-message tick (no mock of the database).
"""

from __future__ import annotations

import time
from pathlib import Path

import orjson
import pytest
from stop_hooks import stop_after_records

from emulator.api import Capture, Change
from emulator.offsets import MemoryOffsetStore
from emulator.testing.pgserver import PgServer


@pytest.fixture(scope="module")
def pg():
    with PgServer() as server:
        yield server


def _props(pg: PgServer, name: str) -> dict[str, str]:
    return pg.connector_properties(
        **{
            "topic.prefix": name,
            "slot.name": name,
            "publication.name": f"{name}_pub",
            "schema.include.list": name,
            "snapshot.mode": "no_data",
            "offset.flush.interval.ms": "60000",  # only the final commit at the stop saves an offset
        }
    )


def _stop_after_begin(cap: Capture, nth: int) -> None:
    """Stop the capture right after the `nth` BEGIN it processes from now on (before any change of it)."""
    adapter = cap.runner.connector
    engine = adapter.engine
    tick = engine.tick
    state = {"in_tx": adapter.in_tx, "begins": 0}

    def hooked() -> None:
        if adapter.in_tx and not state["in_tx"]:
            state["begins"] += 1
            if state["begins"] == nth:
                engine.stop()
        state["in_tx"] = adapter.in_tx
        tick()

    engine.tick = hooked


def _ids(cap: Capture, topic: str) -> list[int]:
    return [c.after["id"] for c in cap.changes() if c.topic == topic and c.op == "c"]


@pytest.mark.parametrize("concurrent", [True, False], ids=["change-before-previous-commit", "sequential"])
def test_stop_after_begin_then_restart_emits_the_transaction(pg, concurrent):
    name = "after_begin_" + ("conc" if concurrent else "seq")
    pg.psql(f"CREATE SCHEMA {name}; CREATE TABLE {name}.t (id int PRIMARY KEY);")
    topic = f"{name}.{name}.t"
    store = MemoryOffsetStore()
    cap = Capture(_props(pg, name), offsets=store).start()
    try:
        pg.psql(f"INSERT INTO {name}.t VALUES (0);")
        cap.wait_for(topic, lambda r: True, 30)
        _stop_after_begin(cap, 2)
        with pg.connect() as a, pg.connect() as b:
            if concurrent:  # id 2's change is written before id 1's commit, and streamed after it
                a.execute("BEGIN")
                a.execute(f"INSERT INTO {name}.t VALUES (2)")
                b.execute(f"INSERT INTO {name}.t VALUES (1)")
                a.execute("COMMIT")
            else:  # id 2's change is the WAL record right after id 1's commit
                a.execute(f"INSERT INTO {name}.t VALUES (1)")
                a.execute(f"INSERT INTO {name}.t VALUES (2)")
        cap.thread.join(60)
        assert not cap.thread.is_alive(), "the hook never stopped the capture"
    finally:
        cap.stop()
    first = _ids(cap, topic)
    assert first == [0, 1], first  # stopped after the BEGIN of id 2's transaction
    again = Capture(_props(pg, name), offsets=store).start()
    try:
        pg.psql(f"INSERT INTO {name}.t VALUES (3);")
        again.wait_for(topic, lambda r: (Change.of(r).after or {}).get("id") == 3, 30)
        assert _ids(again, topic) == [2, 3]
    finally:
        again.stop()


def test_stop_inside_a_multi_insert_then_restart_emits_the_rest(pg):
    """COPY writes one WAL record for many rows: their changes share one LSN, so lsn_proc alone cannot say
    how many of them were emitted before the stop."""
    name = "multi_insert"
    pg.psql(f"CREATE SCHEMA {name}; CREATE TABLE {name}.t (id int PRIMARY KEY);")
    topic = f"{name}.{name}.t"
    store = MemoryOffsetStore()
    cap = Capture(_props(pg, name), offsets=store).start()
    try:
        pg.psql(f"INSERT INTO {name}.t VALUES (0);")
        cap.wait_for(topic, lambda r: True, 30)
        stop_after_records(cap, 3)
        with pg.connect() as a, a.cursor().copy(f"COPY {name}.t (id) FROM STDIN") as copy:
            for i in range(1, 11):
                copy.write_row((i,))
        cap.thread.join(60)
        assert not cap.thread.is_alive(), "the hook never stopped the capture"
    finally:
        cap.stop()
    assert _ids(cap, topic) == [0, 1, 2, 3]
    again = Capture(_props(pg, name), offsets=store).start()
    try:
        pg.psql(f"INSERT INTO {name}.t VALUES (11);")
        again.wait_for(topic, lambda r: (Change.of(r).after or {}).get("id") == 11, 30)
        assert _ids(again, topic) == list(range(4, 12))
    finally:
        again.stop()


# -- transaction metadata across a restart inside a transaction ------------------------------------------------
TX_DATA = Path(__file__).parent / "data" / "pg" / "tx_restart"  # real Debezium 3.6.3 (record_restart.py)


def _tx_summary(d: dict) -> dict:
    """The fields the recording keeps (its recorder wrote the same summary of Debezium's records)."""
    v = d["value"]["payload"] if "payload" in d["value"] else d["value"]
    if d["topic"].endswith(".transaction"):
        return {
            "topic": d["topic"],
            "status": v["status"],
            "event_count": v.get("event_count"),
            "data_collections": v.get("data_collections"),
        }
    tx = v.get("transaction") or {}
    return {
        "topic": d["topic"],
        "op": v["op"],
        "id": (v["after"] or v["before"])["id"],
        "txId": v["source"]["txId"],
        "total_order": tx.get("total_order"),
        "data_collection_order": tx.get("data_collection_order"),
    }


def _recorded(name: str) -> list[dict]:
    return [orjson.loads(line) for line in (TX_DATA / name).read_text().splitlines()]


def _without_tx_ids(recs: list[dict]) -> list[dict]:
    return [{k: v for k, v in r.items() if k != "txId"} for r in recs]


def test_stop_inside_a_transaction_then_restart_goes_on_counting(pg):
    """Debezium stopped after 599 of a 3,000-change transaction (two tables) and restarted from its offset:
    no second BEGIN, `total_order` / `data_collection_order` go on, END counts the whole transaction.  The
    offset it stored inside the transaction carries `transaction_id` and
    `transaction_data_collection_order_<table>` (TransactionContext.store).  Whatever the stop point, both
    runs together must give the recording's two runs together."""
    pg.psql(
        "CREATE TABLE public.a (id int PRIMARY KEY, v text); CREATE TABLE public.b (id int PRIMARY KEY, v text);"
        "INSERT INTO public.a VALUES (0, 'pre');"
    )
    props = pg.connector_properties(
        **{
            "topic.prefix": "dbserver1",
            "slot.name": "tx_restart",
            "publication.name": "tx_restart_pub",
            "table.include.list": "public.a,public.b",
            "provide.transaction.metadata": "true",
            "offset.flush.interval.ms": "60000",
        }
    )
    store = MemoryOffsetStore()
    cap = Capture(props, offsets=store).start()
    try:
        cap.wait_for("dbserver1.public.a", lambda r: True, 30)
        stop_after_records(cap, 700)
        pg.psql(
            "BEGIN; INSERT INTO public.a SELECT g, 'x' FROM generate_series(1, 1500) g;"
            "INSERT INTO public.b SELECT g, 'y' FROM generate_series(1, 1500) g; COMMIT;"
            "INSERT INTO public.a VALUES (5000, 'after');"
        )
        cap.thread.join(60)
        assert not cap.thread.is_alive(), "the hook never stopped the capture"
    finally:
        cap.stop()
    stored = store.load()
    counts = {k: v for k, v in stored.items() if k.startswith("transaction_")}
    assert set(counts) == {"transaction_id", "transaction_data_collection_order_public.a"}, stored
    assert counts["transaction_id"] == str(stored["txId"])
    again = Capture(props, offsets=store).start()
    try:
        again.wait_for("dbserver1.public.a", lambda r: (Change.of(r).after or {}).get("id") == 5000, 60)
        again.wait_for("dbserver1.transaction", lambda r: r["value"]["payload"]["event_count"] == 1, 30)
    finally:
        again.stop()
    cap.changes(), again.changes()  # read everything each delivered
    ours = [_tx_summary(d) for d in cap.seen[1:] + again.seen]  # [0]: the snapshot's read of id 0
    theirs = _recorded("restart_run1.jsonl")[1:] + _recorded("restart_run2.jsonl")
    assert _without_tx_ids(ours) == _without_tx_ids(theirs)


def test_end_lists_the_collections_in_debeziums_hashmap_order(pg):
    """TransactionContext counts per collection in a java.util.HashMap: END lists zeta, alpha, mid (touched
    in that order) as mid, zeta, alpha (recorded from real Debezium 3.6.3 by record_order.py)."""
    pg.psql(
        "CREATE TABLE public.zeta (id int PRIMARY KEY);"
        "CREATE TABLE public.alpha (id int PRIMARY KEY); CREATE TABLE public.mid (id int PRIMARY KEY);"
    )
    props = pg.connector_properties(
        **{
            "topic.prefix": "dbserver1",
            "slot.name": "end_order",
            "publication.name": "end_order_pub",
            "table.include.list": "public.zeta,public.alpha,public.mid",
            "provide.transaction.metadata": "true",
            "snapshot.mode": "no_data",
        }
    )
    with Capture(props) as cap:
        pg.psql(
            "BEGIN; INSERT INTO public.zeta VALUES (1); INSERT INTO public.alpha VALUES (1);"
            "INSERT INTO public.mid VALUES (1); INSERT INTO public.zeta VALUES (2); COMMIT;"
        )
        end = cap.wait_for("dbserver1.transaction", lambda r: r["value"]["payload"]["status"] == "END", 30)
    recorded_end = _recorded("end_order.jsonl")[1]
    assert end["value"]["payload"]["data_collections"] == recorded_end["data_collections"]
    assert end["value"]["payload"]["event_count"] == recorded_end["event_count"]


def test_end_record_offset_keeps_the_transaction_context(pg):
    """Debezium takes the END record's offset before it clears the transaction context: stopped while END is
    the last record, the stored offset keeps `txId`, `transaction_id` and the per-table counts (recorded from
    real Debezium 3.6.3 by record.py end_offset, heartbeats off). A restart from it streams on normally."""
    pg.psql("CREATE TABLE public.ea (id int PRIMARY KEY); CREATE TABLE public.eb (id int PRIMARY KEY);")
    props = pg.connector_properties(
        **{
            "topic.prefix": "dbserver1",
            "slot.name": "end_offset",
            "publication.name": "end_offset_pub",
            "table.include.list": "public.ea,public.eb",
            "provide.transaction.metadata": "true",
            "snapshot.mode": "no_data",
            "heartbeat.interval.ms": "0",
        }
    )
    store = MemoryOffsetStore()
    with Capture(props, offsets=store) as cap:
        pg.psql(
            "BEGIN; INSERT INTO public.ea VALUES (1); INSERT INTO public.eb VALUES (1);"
            "INSERT INTO public.ea VALUES (2); COMMIT;"
        )
        cap.wait_for("dbserver1.transaction", lambda r: r["value"]["payload"]["status"] == "END", 30)
    stored = store.load()
    recorded = orjson.loads((TX_DATA / "end_offset.txt").read_text().splitlines()[1])

    def shape(off: dict) -> dict:  # run-dependent values out; the tables are ea/eb here, a/b recorded
        return {
            "keys": sorted(k.replace("public.e", "public.") for k in off),
            "messageType": off["messageType"],
            "counts": {
                k[-1]: v for k, v in off.items() if k.startswith("transaction_data_collection_order_")
            },
            "transaction_id is txId": off.get("transaction_id") == str(off.get("txId")),
            "lsn = lsn_commit = lsn_proc": off["lsn"] == off["lsn_commit"] == off["lsn_proc"],
        }

    assert shape(stored) == shape(recorded), stored
    with Capture(props, offsets=store) as again:
        pg.psql("INSERT INTO public.eb VALUES (2);")
        end = again.wait_for("dbserver1.transaction", lambda r: r["value"]["payload"]["status"] == "END", 30)
        changes = again.changes()
    assert [c.after for c in changes] == [{"id": 2}]
    assert end["value"]["payload"]["event_count"] == 1


def test_offset_after_a_commit_keeps_its_txid(pg):
    """After a commit Debezium's SourceInfo keeps the transaction's `txId` until the next message: a heartbeat
    written after END stores it, without the transaction context (recorded from real Debezium 3.6.3 with
    heartbeats every second: tests/data/pg/tx_restart/hb_offset.txt)."""
    pg.psql("CREATE TABLE public.ha (id int PRIMARY KEY);")
    props = pg.connector_properties(
        **{
            "topic.prefix": "dbserver1",
            "slot.name": "hb_offset",
            "publication.name": "hb_offset_pub",
            "table.include.list": "public.ha",
            "provide.transaction.metadata": "true",
            "snapshot.mode": "no_data",
            "heartbeat.interval.ms": "200",
        }
    )
    store = MemoryOffsetStore()
    with Capture(props, offsets=store) as cap:
        pg.psql("INSERT INTO public.ha VALUES (1);")
        cap.wait_for("dbserver1.transaction", lambda r: r["value"]["payload"]["status"] == "END", 30)
        before = {id(r) for r in cap.seen}
        cap.wait_for("__debezium-heartbeat.dbserver1", lambda r: id(r) not in before, 30)
    stored = store.load()
    recorded = orjson.loads((TX_DATA / "hb_offset.txt").read_text().splitlines()[1])
    assert sorted(stored) == sorted(recorded), stored
    assert stored["messageType"] == recorded["messageType"] == "COMMIT"


def test_filtered_non_transactional_message_moves_the_offset(pg):
    """A non-transactional logical message whose prefix message.prefix.exclude.list drops still moves
    Debezium's offset (updateWalPosition and commitMessage run before the prefix filter): the stored offset
    is the message's position, messageType MESSAGE, and the previous commit's txId is gone (recorded from
    real Debezium 3.6.3: tests/data/pg/tx_restart/msg_offset.txt, `record.py msg_offset`)."""
    pg.psql("CREATE TABLE public.hm (id int PRIMARY KEY);")
    props = pg.connector_properties(
        **{
            "topic.prefix": "dbserver1",
            "slot.name": "msg_offset",
            "publication.name": "msg_offset_pub",
            "table.include.list": "public.hm",
            "provide.transaction.metadata": "true",
            "snapshot.mode": "no_data",
            "message.prefix.exclude.list": "drop.*",
        }
    )
    lines = (TX_DATA / "msg_offset.txt").read_text().splitlines()
    recorded = orjson.loads(lines[1])
    assert lines[2].startswith("message lsn ") and recorded["lsn"] == _lsn(lines[2].split()[-1])
    store = MemoryOffsetStore()
    with Capture(props, offsets=store) as cap:
        pg.psql("INSERT INTO public.hm VALUES (1);")
        cap.wait_for("dbserver1.transaction", lambda r: r["value"]["payload"]["status"] == "END", 30)
        with pg.connect() as conn:
            row = conn.execute("SELECT pg_logical_emit_message(false, 'dropped', 'x')::text").fetchone()
        msg_lsn = _lsn(row[0])
        # nothing is emitted for the message: wait until the change stream has read past it (or give up)
        deadline = time.monotonic() + 20
        while (cap.runner.connector.lsn_proc or 0) < msg_lsn and time.monotonic() < deadline:
            time.sleep(0.05)
    stored = store.load()
    assert sorted(stored) == sorted(recorded), stored
    assert stored["messageType"] == recorded["messageType"] == "MESSAGE"
    assert stored["lsn"] == stored["lsn_proc"] == stored["lsn_commit"] == msg_lsn, stored


def _lsn(text: str) -> int:
    hi, lo = text.split("/")
    return (int(hi, 16) << 32) | int(lo, 16)
