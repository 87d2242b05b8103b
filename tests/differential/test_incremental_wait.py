"""The harness's wait for an incremental snapshot ends at its first record or at a chunk's closed window: a
scenario the minimizer runs alone may keep a signal naming another scenario's table, whose chunk has no rows
(campaign seed 69002: both engines waited 120 s and the emulator's wait counted as its failure)."""

from __future__ import annotations

from emulator.testing.oracle_capture import RecordLog


def _rec(topic: str, after: dict, snapshot: str = "false") -> dict:
    return {
        "topic": topic,
        "key": None,
        "value": {"payload": {"after": after, "source": {"snapshot": snapshot}}},
    }


def test_window_close_and_incremental_rows_are_marked():
    log = RecordLog()
    log.add(_rec("dbserver1.inventory.debezium_signal", {"id": "x-open", "type": "snapshot-window-open"}))
    assert "incremental_window_closed" not in log.marks
    log.add(_rec("dbserver1.inventory.debezium_signal", {"id": "x-close", "type": "snapshot-window-close"}))
    assert "incremental_window_closed" in log.marks and "first_incremental_record" not in log.marks
    log.add(_rec("dbserver1.inventory.t", {"id": 1}, "incremental"))
    assert "first_incremental_record" in log.marks
