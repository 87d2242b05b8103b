"""The differential comparison of a parallel snapshot (emulator.testing.parallel_order): Debezium 3.6.3's threads
interleave two chunks of one table (RelationalSnapshotChangeEventSource: a record waits only for its table's
first one), so a 4-row table's reads can come as 1, 3, 2, 4 with the markers of chunk order (first_in_data_collection
on 1, last_in_data_collection on 4). The records are written here by hand from that rule."""

from __future__ import annotations

import copy

from emulator.testing.conformance import compare
from emulator.testing.parallel_order import parallel_snapshot, sort_snapshot_reads

T = "dbserver1.inventory.t"


def rec(id_: int, op: str = "r", mark: str = "true") -> dict:
    after = {"id": id_, "v": f"v{id_}"}
    src = {"ts_ms": 1, "snapshot": mark, "db": "inventory", "table": "t", "file": "binlog.000001", "pos": 4}
    return {
        "topic": T,
        "key": {"schema": {"type": "struct"}, "payload": {"id": id_}},
        "value": {
            "schema": {"type": "struct"},
            "payload": {"before": None, "after": after, "source": src, "op": op},
        },
    }


def topic(*records: dict) -> dict[str, list[dict]]:
    return {T: list(records)}


def debezium_and_ours():
    marks = {1: "first_in_data_collection", 2: "true", 3: "true", 4: "last_in_data_collection"}
    dbz = topic(*(rec(i, mark=marks[i]) for i in (1, 3, 2, 4)), rec(5, op="c", mark="false"))
    ours = topic(*(rec(i, mark=marks[i]) for i in (1, 2, 3, 4)), rec(5, op="c", mark="false"))
    return dbz, ours


def test_interleaved_chunks_compare_equal_once_sorted():
    dbz, ours = debezium_and_ours()
    assert compare(copy.deepcopy(dbz), copy.deepcopy(ours))[1]  # the raw order differs
    sort_snapshot_reads(dbz)
    sort_snapshot_reads(ours)
    n, problems = compare(dbz, ours)
    assert n == 5 and not problems, problems


def test_a_missing_row_or_a_moved_marker_still_differs():
    dbz, ours = debezium_and_ours()
    del dbz[T][2]  # Debezium without row 2
    sort_snapshot_reads(dbz)
    sort_snapshot_reads(ours)
    assert compare(dbz, ours)[1]
    dbz, ours = debezium_and_ours()
    dbz[T][1]["value"]["payload"]["source"]["snapshot"] = "last_in_data_collection"  # row 3
    dbz[T][3]["value"]["payload"]["source"]["snapshot"] = "true"  # row 4
    sort_snapshot_reads(dbz)
    sort_snapshot_reads(ours)
    assert compare(dbz, ours)[1]


def test_the_stream_keeps_its_order():
    dbz, _ = debezium_and_ours()
    dbz[T] += [rec(7, op="c", mark="false"), rec(6, op="c", mark="false")]
    sort_snapshot_reads(dbz)
    assert [r["key"]["payload"]["id"] for r in dbz[T]] == [1, 2, 3, 4, 5, 7, 6]


def test_only_the_chunked_parallel_path():
    assert parallel_snapshot({"snapshot.max.threads": "2"})
    assert not parallel_snapshot({"snapshot.max.threads": "1", "snapshot.max.threads.multiplier": "4"})
    assert not parallel_snapshot({"snapshot.max.threads": "2", "legacy.snapshot.max.threads": "true"})
    assert not parallel_snapshot({})
