"""`snapshot.mode` × what the connector finds at start: no offsets, offsets of a finished snapshot (rows
written while it was down), or offsets whose position the server no longer has. The expectations are the
documented mode table (spec-postgres-mongodb.md §2.12/§2.13.1, spec-mysql-mariadb.md §9.1 and §14), written
out by hand below; plus the snapshot markers (golden/pg/FINDINGS.md) and `snapshot.include.collection.list`.

Every case: table `t` holds ids 1 and 2 when the first connector starts; id 3 is written while it is down;
id 10 is written after the connector under test started (seen as `c` when it streams).
"""

from __future__ import annotations

from dataclasses import dataclass

import pytest
from harness import Run, markers, op, payload

from emulator.api import CaptureError


@dataclass(frozen=True)
class Expect:
    reads: set[int] | None  # ids read by the snapshot of this start; None: the start fails
    streams: bool = True  # a change made after the start arrives as `c`
    catches_up: bool | None = None  # id 3 (written while down) arrives as `c`; None: not asserted


FAILS = Expect(reads=None, streams=False)

# (mode, state) -> expectation. "lost": the stored position is gone; "lost-streams" is the same start on a
# server where Debezium only warns and streams from what the server still has (PostgreSQL, spec §2.12).
TABLE: dict[tuple[str, str], Expect] = {
    ("initial", "none"): Expect({1, 2}),
    ("initial", "offsets"): Expect(set(), catches_up=True),
    ("initial", "lost"): FAILS,
    ("initial", "lost-streams"): Expect(set(), catches_up=False),
    ("always", "none"): Expect({1, 2}),
    ("always", "offsets"): Expect({1, 2, 3}),
    ("initial_only", "none"): Expect({1, 2}, streams=False),
    ("initial_only", "offsets"): Expect(set(), streams=False),
    ("no_data", "none"): Expect(set()),
    ("no_data", "offsets"): Expect(set(), catches_up=True),
    ("no_data", "lost"): FAILS,
    ("no_data", "lost-streams"): Expect(set(), catches_up=False),
    ("when_needed", "none"): Expect({1, 2}),
    ("when_needed", "offsets"): Expect(set(), catches_up=True),
    ("when_needed", "lost"): Expect({1, 2, 3}),
    ("when_needed", "lost-streams"): Expect({1, 2, 3}),
}

CASES = sorted({(m, s.removesuffix("-streams")) for m, s in TABLE})

CONFIG_BASED = {
    "snapshot.mode": "configuration_based",
    "snapshot.mode.configuration.based.snapshot.data": "true",
    "snapshot.mode.configuration.based.snapshot.schema": "true",
    "snapshot.mode.configuration.based.start.stream": "true",
}


def _prime(backend, state: str) -> None:
    """Leave the offsets (and server) in `state` for the connector under test."""
    if state == "none":
        return
    with Run(backend) as first:  # initial: snapshot, stream, clean stop commits the offsets
        first.barrier()
    backend.insert("t", {"id": 3})
    if state == "lost":
        backend.lose_position()


@pytest.mark.parametrize("mode,state", CASES, ids=[f"{m}-{s}" for m, s in CASES])
def test_snapshot_mode(backend, mode, state):
    if state == "lost" and not backend.supports("lose_position"):
        pytest.skip(f"{backend.name} does not support lose_position")
    key = (mode, state if state != "lost" or backend.supports("lost_position_fails") else "lost-streams")
    expect = TABLE[key]
    backend.create_table("t", {"id": "int"})
    backend.insert("t", {"id": 1}, {"id": 2})
    _prime(backend, state)
    run = Run(backend, **{"snapshot.mode": mode})
    if expect.reads is None:
        with pytest.raises(CaptureError, match=backend.lost_position_error):
            run.start()
        return
    with run:
        if expect.streams:
            backend.insert("t", {"id": 10})
            run.wait_ids("t", "c", {10})
            run.barrier()
        else:
            run.cap.thread.join(60)
            assert not run.cap.thread.is_alive(), f"{mode} kept running after its snapshot"
            run.pump(0.2)
    assert sorted(run.ids("t", "r")) == sorted(expect.reads)
    if expect.reads:
        assert markers(run.records)[-1] == "last"
    created = run.ids("t", "c")
    if expect.catches_up is not None:
        assert (3 in created) == expect.catches_up, created
    assert created.count(3) <= 1 and created.count(10) == (1 if expect.streams else 0)
    assert [op(r) for r in run.events("t") if op(r) not in ("r", "c")] == []


@pytest.mark.needs("configuration_based")
def test_configuration_based_snapshot_then_stream(backend):
    backend.create_table("t", {"id": "int"})
    backend.insert("t", {"id": 1}, {"id": 2})
    with Run(backend, **CONFIG_BASED) as run:
        backend.insert("t", {"id": 10})
        run.wait_ids("t", "c", {10})
    assert sorted(run.ids("t", "r")) == [1, 2]


@pytest.mark.needs("configuration_based")
def test_configuration_based_without_stream_stops_after_the_snapshot(backend):
    backend.create_table("t", {"id": "int"})
    backend.insert("t", {"id": 1})
    with Run(backend, **{**CONFIG_BASED, "snapshot.mode.configuration.based.start.stream": "false"}) as run:
        run.cap.thread.join(60)
        assert not run.cap.thread.is_alive()
        run.pump(0.2)
    assert run.ids("t", "r") == [1]


@pytest.mark.needs("relational_markers")
def test_snapshot_markers(backend):
    """FINDINGS: the very first read is `first`, each further table starts `first_in_data_collection`, each
    table ends `last_in_data_collection`, the very last read is `last`, `true` in between; reads carry
    `op=r`, `before=null` and no transaction block."""
    for name in ("a", "b"):
        backend.create_table(name, {"id": "int"})
        backend.insert(name, {"id": 1}, {"id": 2}, {"id": 3})
    with Run(backend, **{"snapshot.mode": "initial"}) as run:
        run.pump(0.2)
    reads = [r for r in run.records if op(r) == "r"]
    assert markers(reads) == [
        "first",
        "true",
        "last_in_data_collection",
        "first_in_data_collection",
        "true",
        "last",
    ]
    tables = [r["topic"] for r in reads]
    assert tables[:3] == [tables[0]] * 3 and tables[3:] == [tables[3]] * 3 and tables[0] != tables[3]
    assert all(payload(r)["before"] is None and payload(r)["transaction"] is None for r in reads)


def test_snapshot_include_collection_list_limits_the_snapshot_not_the_stream(backend):
    for name in ("a", "b"):
        backend.create_table(name, {"id": "int"})
        backend.insert(name, {"id": 1}, {"id": 2})
    include = backend.table_id("a").replace(".", r"\.")
    with Run(backend, **{"snapshot.include.collection.list": include}) as run:
        backend.insert("b", {"id": 3})
        backend.insert("a", {"id": 3})
        run.wait_ids("a", "c", {3})
        run.wait_ids("b", "c", {3})
    assert sorted(run.ids("a", "r")) == [1, 2]
    assert run.ids("b", "r") == []


@pytest.mark.needs("schema_change_topic")
def test_no_data_records_the_schema_but_reads_no_rows(backend):
    """spec-mysql-mariadb.md §9.1: `no_data` captures the schema of the captured tables (DDL on the schema
    change topic, named after `topic.prefix`) and emits no READ events; then it streams."""
    backend.create_table("t", {"id": "int"})
    backend.insert("t", {"id": 1})
    with Run(backend, **{"snapshot.mode": "no_data"}) as run:
        backend.insert("t", {"id": 2})
        run.wait_ids("t", "c", {2})
    ddl = [payload(r)["ddl"] for r in run.records if r["topic"] == backend.prefix]
    assert any("CREATE TABLE" in d and "`t`" in d for d in ddl), ddl
    assert run.ids("t", "r") == [] and run.ids("t", "c") == [2]


def test_parallel_snapshot_reads_keyed_tables_in_key_order(backend):
    """snapshot.max.threads=2 (Debezium 3.6's chunked snapshot, docs/parallel-snapshot.md): a keyed table of
    two or more rows comes in key order, whatever order the rows were written in, with the single-threaded
    markers; through the in-process API (the forked readers). MongoDB: no effect (collections in order)."""
    if backend.name.startswith("mongodb"):  # live and recorded
        pytest.skip("snapshot.max.threads changes no MongoDB record")
    for name in ("a", "b"):
        backend.create_table(name, {"id": "int"})
        backend.insert(name, {"id": 3}, {"id": 1}, {"id": 2})
    with Run(backend, **{"snapshot.mode": "initial", "snapshot.max.threads": "2"}) as run:
        run.pump(0.2)
    assert run.ids("a", "r") == [1, 2, 3] and run.ids("b", "r") == [1, 2, 3]
    assert markers([r for r in run.records if op(r) == "r"]) == [
        "first",
        "true",
        "last_in_data_collection",
        "first_in_data_collection",
        "true",
        "last",
    ]
