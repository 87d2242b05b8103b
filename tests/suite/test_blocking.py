"""Blocking snapshots (`execute-snapshot` with `"type": "blocking"`): streaming pauses, the tables are read
with the initial snapshot's markers, then streaming resumes at the same position, so a change committed after
the signal arrives once, after the snapshot's reads, also when it committed with the signal (Debezium's blocking-snapshot documentation; the placement
of the reads follows tests/test_incremental.py's PostgreSQL expectations)."""

from __future__ import annotations

import pytest
from harness import Run, markers, op, payload


@pytest.mark.needs("blocking_snapshot")
def test_blocking_snapshot_while_streaming(backend):
    backend.create_table("t", {"id": "int", "note": "text"})
    backend.insert("t", *({"id": i, "note": "old"} for i in range(1, 21)))
    signals = backend.signal_table()
    with Run(backend, **{"snapshot.mode": "no_data", "signal.data.collection": signals}) as run:
        backend.insert("t", {"id": 100, "note": "before the signal"})
        run.wait_ids("t", "c", {100})
        with (
            backend.transaction()
        ):  # 101 commits with the signal: read by the snapshot, and streamed after it
            backend.signal(
                "execute-snapshot", {"type": "blocking", "data-collections": [backend.table_id("t")]}
            )
            backend.insert("t", {"id": 101, "note": "in the signal's transaction"})
        run.wait_ids("t", "c", {101})
        run.barrier()
    events = run.events("t")
    kinds = [(op(r), backend.key(r)["id"]) for r in events]
    reads = [r for r in events if op(r) == "r"]
    assert sorted(backend.key(r)["id"] for r in reads) == [*range(1, 21), 100, 101]
    if backend.supports("relational_markers"):
        assert markers(reads) == ["first"] + ["true"] * 20 + ["last"]
    else:  # MongoDB: the initial snapshot's markers are `true` but the very last (spec §1.3)
        assert markers(reads) == ["true"] * 21 + ["last"]
    assert all(payload(r)["transaction"] is None for r in reads)
    # streaming went on where it paused: 100 streamed before the reads, 101 after them, each once
    assert kinds[0] == ("c", 100) and kinds[-1] == ("c", 101)
    assert [k for k in kinds if k[0] != "r"] == [("c", 100), ("c", 101)]


@pytest.mark.needs("signal_table")
def test_blocking_snapshot_with_additional_conditions(backend):
    backend.create_table("t", {"id": "int"})
    backend.insert("t", *({"id": i} for i in range(1, 11)))
    signals = backend.signal_table()
    with Run(backend, **{"snapshot.mode": "no_data", "signal.data.collection": signals}) as run:
        backend.signal(
            "execute-snapshot",
            {
                "type": "blocking",
                "data-collections": [backend.table_id("t")],
                "additional-conditions": [{"data-collection": backend.table_id("t"), "filter": "id <= 2"}],
            },
        )
        run.barrier()
    assert run.ids("t", "r") == [1, 2]
    assert markers(run.events("t", "r")) == ["first", "last"]
