"""A clean stop that lands between a transaction's BEGIN and its first change, then a restart on the stored
offsets: the transaction must be emitted whole by the next run (found by the behaviour suite: one of 400
single-row inserts lost across a SIGTERM restart).

pgoutput sends a transaction at its commit, so a transaction's first change can lie before the previous
transaction's commit end in the WAL (concurrent writers) or exactly at it (the next record after a commit):
a stored `lsn_proc` of the previous commit must not make the restart skip the stopped transaction's
changes. The stop point is chosen with a hook on the engine's per-message tick (no mock of the database).
"""

from __future__ import annotations

import pytest

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


def _stop_after_records(cap: Capture, n: int) -> None:
    """Stop the capture right after the message that brings the records it wrote from now on to `n`."""
    engine = cap.runner.connector.engine
    tick = engine.tick
    start = engine.records

    def hooked() -> None:
        if engine.records - start >= n:
            engine.stop()
        tick()

    engine.tick = hooked


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
        _stop_after_records(cap, 3)
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
