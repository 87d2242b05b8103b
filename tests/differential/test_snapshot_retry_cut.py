"""Debezium's retried snapshot (emulator/testing/lost_batch.cut_retried_snapshot): after a snapshot failed on a value,
Debezium's task may restart and snapshot again (campaign seeds 88002, 89005: a retriable SQLException in the
failure's cleanup), delivering records again under a new runId header. The comparison keeps the first attempt."""

from __future__ import annotations

from emulator.testing.lost_batch import cut_retried_snapshot, drop_lost_batch


def _rec(topic: str, key: int, run: str) -> dict:
    return {
        "topic": topic,
        "key": {"payload": {"id": key}},
        "value": {"payload": {"op": "r", "after": {"id": key}, "source": {"snapshot": "true"}}},
        "headers": [["__debezium.context.taskId", "0"], ["__debezium.context.runId", run]],
    }


def test_records_of_a_later_run_are_cut():
    golden = {
        "s.db.a": [
            _rec("s.db.a", 1, "A"),
            _rec("s.db.a", 2, "A"),
            _rec("s.db.a", 1, "B"),
            _rec("s.db.a", 2, "B"),
        ],
        "s.db.b": [_rec("s.db.b", 1, "B")],  # only the second attempt reached it
        "__debezium-heartbeat.s": [],
    }
    assert cut_retried_snapshot(golden) == 3
    assert [r["key"]["payload"]["id"] for r in golden["s.db.a"]] == [1, 2]
    assert golden["s.db.b"] == []


def test_one_run_is_left_alone_and_the_lost_batch_still_cut():
    golden = {"s.db.a": [_rec("s.db.a", 1, "A")]}
    ours = {"s.db.a": [_rec("s.db.a", 1, "X"), _rec("s.db.a", 2, "X")]}
    assert cut_retried_snapshot({"s.db.a": list(golden["s.db.a"])}) == 0
    assert drop_lost_batch(golden, ours) == 1 and len(ours["s.db.a"]) == 1
    assert (
        cut_retried_snapshot({"s.db.a": [{"topic": "s.db.a", "key": None, "value": None}]}) == 0
    )  # no header
