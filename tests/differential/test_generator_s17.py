"""The session-17 PostgreSQL draws (workloads_pg_s17) come from a random stream of their own: a seed keeps every
line it had and gains only `-- @set` lines, the `bulk` scenario's blocks and (where it had none) an incremental
section. Whether the drawn SQL runs on PostgreSQL is test_differential_harness's (its seeds 1 and 2 draw `bulk`)."""

from __future__ import annotations

import re

import pytest
from draw_lines import added_lines_belong_to_the_draw

import emulator.testing.workloads as workloads


def _new_block(owner: str) -> bool:  # a bulk scenario or the incremental section
    return bool(re.match(r"-- @scenario s\d+_bulk$", owner)) or owner == "-- @section incremental"


def _added_lines_belong_to_the_draw(before: list[str], after: list[str]) -> bool:
    return added_lines_belong_to_the_draw(before, after, _new_block)


def test_the_s17_draw_keeps_old_workloads(monkeypatch: pytest.MonkeyPatch) -> None:
    seeds = range(44100000, 44100150)
    monkeypatch.setattr(workloads, "s18_draws", lambda seed, g, props: {})  # (test_generator_s18's)
    drawn = {s: workloads.generate("pg", s) for s in seeds}
    monkeypatch.setattr(workloads, "s17_draws", lambda seed, g, props, can_signal: {})
    gained = {"bulk": 0, "signals": 0, "overrides": 0, "other": 0}
    for s in seeds:
        before, after = workloads.generate("pg", s), drawn[s]
        assert _added_lines_belong_to_the_draw(before.splitlines(), after.splitlines()), f"seed {s}"
        if before != after:
            gained["bulk"] += "_bulk" in after
            gained["signals"] += "'log-1'" in after or "'incr-2'" in after
            gained["overrides"] += after.count("-- @set snapshot.select.statement.overrides.") > 1
            gained["other"] += "slot.drop.on.stop" in after
    assert 25 <= gained["bulk"] <= 70, gained  # ~30 %
    assert all(gained.values()), gained


def test_the_check_sees_a_changed_line() -> None:
    before = ["-- @set a=1", "-- @section pre", "x"]
    assert _added_lines_belong_to_the_draw(before, before + ["-- @scenario s3_bulk", "y"])
    assert not _added_lines_belong_to_the_draw(before, ["-- @set a=2", "-- @section pre", "x"])
    assert not _added_lines_belong_to_the_draw(before, [*before, "z"])
