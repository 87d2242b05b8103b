"""The session-18 PostgreSQL draws (workloads_pg_s18) come from a random stream of their own: a seed keeps every
line it had and gains only `-- @set` lines and the new scenarios' blocks (inheritance, multiranges, MERGE, moved
tables). Whether the drawn SQL runs on PostgreSQL (and what Debezium makes of it) was checked with
`differential diff` (docs/differential.md, session 18)."""

from __future__ import annotations

import re

import pytest
from draw_lines import added_lines_belong_to_the_draw

import emulator.testing.workloads as workloads

NEW_BLOCK = re.compile(r"-- @scenario s\d+_(inherit|multirange|merge|moves)$")


def _added_lines_belong_to_the_draw(before: list[str], after: list[str]) -> bool:
    return added_lines_belong_to_the_draw(before, after, NEW_BLOCK.match)


def test_the_s18_draw_keeps_old_workloads(monkeypatch: pytest.MonkeyPatch) -> None:
    seeds = range(44100000, 44100150)
    drawn = {s: workloads.generate("pg", s) for s in seeds}
    monkeypatch.setattr(workloads, "s18_draws", lambda seed, g, props: {})
    gained = {k: 0 for k in ("inherit", "multirange", "merge", "moves", "propagate")}
    for s in seeds:
        before, after = workloads.generate("pg", s), drawn[s]
        assert _added_lines_belong_to_the_draw(before.splitlines(), after.splitlines()), f"seed {s}"
        for k in ("inherit", "multirange", "merge", "moves"):
            gained[k] += f"_{k}\n" in after and f"_{k}\n" not in before
        gained["propagate"] += after.count("column.propagate.source.type=") > before.count(
            "column.propagate.source.type="
        )
    assert all(gained.values()), gained
    assert 40 <= sum(gained[k] for k in ("inherit", "multirange", "merge", "moves")) <= 120, gained


def test_the_check_sees_a_changed_line() -> None:
    before = ["-- @set a=1", "-- @section pre", "x"]
    assert _added_lines_belong_to_the_draw(before, [*before, "-- @scenario s3_merge", "y"])
    assert not _added_lines_belong_to_the_draw(before, ["-- @set a=2", "-- @section pre", "x"])
    assert not _added_lines_belong_to_the_draw(before, [*before, "z"])
