"""MariaDB XA transactions: a prepared transaction's rows are held until its XA COMMIT and dropped at its XA
ROLLBACK (emulator/connectors/mysql/xa_hold.py; a deliberate difference from Debezium 3.6.3, which emits them at
XA PREPARE: docs/differential-mariadb.md "XA"), on a real MariaDB, through restarts.

The expected rows are the workload's (written here by hand); the byte-for-byte comparison of the committed
records with Debezium's is the recorded cases `xa_commit*` (tests/test_mariadb_conformance_cases.py).
"""

from __future__ import annotations

import glob
import os
import tempfile
import time

import pytest
from stop_hooks import stop_after_records

from emulator.api import Capture
from emulator.connectors.mysql import xa_hold
from emulator.offsets import MemoryOffsetStore
from emulator.testing import mariadbserver

pytestmark = pytest.mark.skipif(
    not mariadbserver.available(),
    reason="MariaDB server binaries not installed (scripts/setup.sh installs them)",
)


@pytest.fixture(scope="module")
def db():
    with mariadbserver.MariaDbServer() as server:
        yield server


def _setup(db, tmp_path, name: str, connector: str = "mariadb", tx: bool = True) -> dict[str, str]:
    db.sql(f"CREATE DATABASE {name}")
    db.sql(
        "CREATE TABLE a (id INT PRIMARY KEY, v VARCHAR(20)); INSERT INTO a VALUES (1, 'one'), (2, 'two')",
        name,
    )
    return db.connector_properties(
        connector,
        **{
            "database.include.list": name,
            "topic.prefix": "p",
            "schema.history.internal.file.filename": str(tmp_path / "history.dat"),
            "provide.transaction.metadata": str(tx).lower(),
            "offset.flush.interval.ms": "60000",  # only the final commit at the stop saves an offset
        },
    )


def _rows(cap: Capture, name: str) -> list[tuple]:
    """(op, id) of the table's change records in delivery order (snapshot reads left out)."""
    out = []
    for r in cap.seen:
        if r["topic"] != f"p.{name}.a" or r["value"] is None:
            continue
        p = r["value"]["payload"]
        if p["op"] != "r":
            out.append((p["op"], (p["after"] or p["before"])["id"]))
    return out


def _xa(name: str, xid: str, body: str, end: str) -> str:
    return f"XA START {xid}; {body} XA END {xid}; XA PREPARE {xid}; {end}"


def _wait_row(cap: Capture, name: str, row_id: int) -> None:
    cap.wait_for(
        f"p.{name}.a", lambda r: r["value"] and (r["value"]["payload"]["after"] or {}).get("id") == row_id, 60
    )


@pytest.mark.parametrize("connector", ["mariadb", "mysql"])
def test_commit_emits_at_commit_rollback_never(db, tmp_path, connector):
    name = f"xa_{connector}"
    props = _setup(db, tmp_path, name, connector)
    cap = Capture(props).start()
    try:
        cap.wait_for(f"p.{name}.a", lambda r: True, 60)  # the snapshot
        db.sql(_xa(name, "'c1'", "INSERT INTO a VALUES (10, 'x'); DELETE FROM a WHERE id = 2;", ""), name)
        db.sql(
            _xa(name, "'r1'", "INSERT INTO a VALUES (20, 'never'); UPDATE a SET v = 'no' WHERE id = 1;", ""),
            name,
        )
        db.sql("INSERT INTO a VALUES (100, 'between')", name)
        _wait_row(cap, name, 100)
        db.sql("XA ROLLBACK 'r1'; XA COMMIT 'c1'; INSERT INTO a VALUES (101, 'after')", name)
        _wait_row(cap, name, 101)
    finally:
        cap.stop()
    cap.changes()
    # the committed XA's rows at its COMMIT (after the row inserted between), the rolled-back XA's never
    assert _rows(cap, name) == [("c", 100), ("c", 10), ("d", 2), ("c", 101)]
    rows = {(p["op"], (p["after"] or p["before"])["id"]): p for p in _payloads(cap, name)}
    # the held rows' source is their XA PREPARE group's: positions before the row inserted between
    assert rows[("c", 10)]["source"]["pos"] < rows[("c", 100)]["source"]["pos"]
    if connector == "mariadb":  # the prepared group's own transaction (BEGIN, its id in the rows' blocks)
        tx_ids = [r["value"]["payload"]["id"] for r in cap.seen if r["topic"] == "p.transaction"]
        assert rows[("c", 10)]["transaction"]["id"] in tx_ids
        assert rows[("c", 10)]["transaction"]["total_order"] == 1
        assert rows[("d", 2)]["transaction"]["total_order"] == 2
        assert rows[("c", 10)]["source"]["gtid"] == rows[("c", 10)]["transaction"]["id"]


def _payloads(cap: Capture, name: str) -> list[dict]:
    return [
        r["value"]["payload"]
        for r in cap.seen
        if r["topic"] == f"p.{name}.a" and r["value"] is not None and r["value"]["payload"]["op"] != "r"
    ]


@pytest.mark.parametrize("end", ["COMMIT", "ROLLBACK"])
def test_restart_while_prepared(db, tmp_path, end):
    """Stopped while an XA transaction is prepared (its rows held, other transactions and a DDL emitted after
    it), restarted: the transactions emitted before the stop are not emitted again, the schema change is not
    applied twice, and the XA's rows come once at its COMMIT (never at a ROLLBACK)."""
    name = f"xa_restart_{end.lower()}"
    props = _setup(db, tmp_path, name)
    store = MemoryOffsetStore()
    cap = Capture(props, offsets=store).start()
    try:
        cap.wait_for(f"p.{name}.a", lambda r: True, 60)
        db.sql(_xa(name, "'k1'", "INSERT INTO a VALUES (10, 'held'); DELETE FROM a WHERE id = 2;", ""), name)
        db.sql(
            "INSERT INTO a VALUES (100, 'between'); CREATE TABLE b (id INT PRIMARY KEY); "
            "ALTER TABLE b ADD COLUMN w INT; INSERT INTO b VALUES (1, 7); INSERT INTO a VALUES (102, 'after ddl')",
            name,
        )
        _wait_row(cap, name, 102)
    finally:
        cap.stop()
    cap.changes()
    assert _rows(cap, name) == [("c", 100), ("c", 102)]
    stored = store.load()
    assert "xa_reached_gtids" in stored  # the dump restarts before the held group

    again = Capture(props, offsets=store).start()
    try:
        db.sql(f"XA {end} 'k1'; INSERT INTO b VALUES (2, 8); INSERT INTO a VALUES (103, 'last')", name)
        _wait_row(again, name, 103)
    finally:
        again.stop()
    again.changes()
    held = [("c", 10), ("d", 2)] if end == "COMMIT" else []
    assert _rows(again, name) == held + [("c", 103)]
    # no schema change emitted twice
    ddl = [
        r
        for r in again.seen
        if r["topic"] == "p" and "ADD COLUMN" in (r["value"]["payload"].get("ddl") or "")
    ]
    assert ddl == []
    # a DDL on a held table waits for the XA (its metadata lock): the held rows' schema cannot change; the
    # other table's rows after the restart have its ALTERed columns (the history up to the stop recovered)
    b = [r["value"]["payload"]["after"] for r in again.seen if r["topic"] == f"p.{name}.b"]
    assert b == [{"id": 2, "w": 8}]
    assert "xa_reached_gtids" not in store.load()


def test_restart_twice_inside_the_passed_stretch(db, tmp_path):
    """A second restart before the stream is back where it had been: still nothing twice, nothing lost; an XA
    committed before the first stop (its rows emitted) and prepared after the held one is not emitted again."""
    name = "xa_restart_twice"
    props = _setup(db, tmp_path, name)
    props["snapshot.mode"] = "no_data"
    store = MemoryOffsetStore()
    cap = Capture(props, offsets=store).start()
    try:
        db.sql("INSERT INTO a VALUES (99, 'streaming')", name)
        _wait_row(cap, name, 99)
        db.sql(_xa(name, "'h1'", "INSERT INTO a VALUES (10, 'held');", ""), name)
        db.sql(_xa(name, "'h2'", "INSERT INTO a VALUES (20, 'second');", "XA COMMIT 'h2';"), name)
        db.sql("INSERT INTO a VALUES (100, 'between')", name)
        _wait_row(cap, name, 100)
    finally:
        cap.stop()
    cap.changes()
    assert _rows(cap, name) == [("c", 99), ("c", 20), ("c", 100)]
    for _ in range(2):  # restarted, nothing new: nothing emitted; stopped again
        quiet = Capture(props, offsets=store).start()
        try:
            time.sleep(3)  # the stretch read again (a few events): nothing of it is emitted
        finally:
            quiet.stop()
        quiet.changes()
        assert _rows(quiet, name) == []
    last = Capture(props, offsets=store).start()
    try:
        db.sql("XA COMMIT 'h1'; INSERT INTO a VALUES (101, 'after')", name)
        _wait_row(last, name, 101)
    finally:
        last.stop()
    last.changes()
    assert _rows(last, name) == [("c", 10), ("c", 101)]


def test_held_groups_beyond_the_memory_bound_spill_to_a_file(db, tmp_path, monkeypatch):
    name = "xa_spill"
    props = _setup(db, tmp_path, name)
    props["snapshot.mode"] = "no_data"
    monkeypatch.setattr(xa_hold, "HOLD_MEMORY", 1)  # every held group goes to its file
    before = set(glob.glob(os.path.join(tempfile.gettempdir(), "dbzemu-xa-*.held")))
    cap = Capture(props).start()
    try:
        db.sql("INSERT INTO a VALUES (99, 'streaming')", name)
        _wait_row(cap, name, 99)
        db.sql(_xa(name, "'s1'", "INSERT INTO a SELECT seq, 'x' FROM seq_1000_to_1999;", ""), name)
        db.sql("INSERT INTO a VALUES (100, 'between')", name)
        _wait_row(cap, name, 100)
        spilled = set(glob.glob(os.path.join(tempfile.gettempdir(), "dbzemu-xa-*.held"))) - before
        assert len(spilled) == 1
        db.sql("XA COMMIT 's1'; INSERT INTO a VALUES (101, 'after')", name)
        _wait_row(cap, name, 101)
    finally:
        cap.stop()
    cap.changes()
    assert _rows(cap, name) == [("c", 99), ("c", 100)] + [("c", i) for i in range(1000, 2000)] + [("c", 101)]
    assert not any(os.path.exists(p) for p in spilled)  # removed once emitted


def test_restart_inside_a_transaction_after_a_held_group(db, tmp_path):
    """Stopped inside a big transaction while an XA transaction is held: the restart passes the held stretch
    again, resumes the big transaction where it stopped (its rows once, its transaction orders going on) and
    emits the XA's rows once at its COMMIT."""
    name = "xa_restart_inside"
    props = _setup(db, tmp_path, name)
    props["snapshot.mode"] = "no_data"
    store = MemoryOffsetStore()
    cap = Capture(props, offsets=store).start()
    try:
        db.sql("INSERT INTO a VALUES (99, 'streaming')", name)
        _wait_row(cap, name, 99)
        db.sql(_xa(name, "'t1'", "INSERT INTO a VALUES (10, 'held');", ""), name)
        db.sql("INSERT INTO a VALUES (100, 'between')", name)
        _wait_row(cap, name, 100)
        stop_after_records(cap, 300)  # BEGIN and 299 rows or more of the 3,000 (rows events of ~8 KB)
        db.sql("BEGIN; INSERT INTO a SELECT seq, REPEAT('x', 15) FROM seq_1000_to_3999; COMMIT", name)
        cap.thread.join(60)
        assert not cap.thread.is_alive(), "the hook never stopped the capture"
    finally:
        cap.stop()
    cap.changes()
    first = _rows(cap, name)
    assert first[:2] == [("c", 99), ("c", 100)] and 299 <= len(first) - 2 < 3000
    again = Capture(props, offsets=store).start()
    try:
        db.sql("XA COMMIT 't1'; INSERT INTO a VALUES (101, 'after')", name)
        _wait_row(again, name, 101)
    finally:
        again.stop()
    again.changes()
    rows = first + _rows(again, name)
    assert rows == [("c", 99), ("c", 100)] + [("c", i) for i in range(1000, 4000)] + [("c", 10), ("c", 101)]
    big = [p for p in _payloads(cap, name) + _payloads(again, name) if 1000 <= p["after"]["id"] < 4000]
    assert [p["transaction"]["total_order"] for p in big] == list(range(1, 3001))
