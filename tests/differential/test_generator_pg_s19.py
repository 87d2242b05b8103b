"""The session-19 PostgreSQL draws (workloads_pg_s19) come from a random stream of their own: a seed keeps every
line it had and gains only `-- @set` lines and the new scenarios' blocks (BC/far dates and times, a table renamed
out of the filters, two-level partitions attached/detached, generated and identity columns, enums altered in use
and arrays of enums/domains). Whether the drawn SQL runs on PostgreSQL and what Debezium makes of it was checked with
`differential diff` (docs/differential.md, session 19)."""

from __future__ import annotations

import re

import pytest
from draw_lines import added_lines_belong_to_the_draw

import emulator.testing.workloads as workloads
from emulator.testing.workload import Workload

KINDS = ("eras", "hidden", "parts", "genid", "enums")
NEW_BLOCK = re.compile(rf"-- @scenario s19_({'|'.join(KINDS)})$")


def _added_lines_belong_to_the_draw(before: list[str], after: list[str]) -> bool:
    return added_lines_belong_to_the_draw(before, after, NEW_BLOCK.match)


def test_the_s19_draw_keeps_old_workloads(monkeypatch: pytest.MonkeyPatch) -> None:
    seeds = range(44719000, 44719150)
    monkeypatch.setattr(workloads, "s20_draws", lambda seed, g, props: {})  # (its own test)
    monkeypatch.setattr(workloads, "s22_draws", lambda seed, g, props: {})  # (sees the s19 draws' properties)
    monkeypatch.setattr(workloads, "s23_draws", lambda seed, g, props: {})  # (session 23: likewise)
    drawn = {s: workloads.generate("pg", s) for s in seeds}
    monkeypatch.setattr(workloads, "s19_draws", lambda seed, g, props: {})
    gained = dict.fromkeys(KINDS, 0)
    for s in seeds:
        before, after = workloads.generate("pg", s), drawn[s]
        assert _added_lines_belong_to_the_draw(before.splitlines(), after.splitlines()), f"seed {s}"
        for k in KINDS:
            gained[k] += f"s19_{k}\n" in after
    assert all(gained.values()), gained
    assert 40 <= sum(gained.values()) <= 130, gained


def test_the_draw_keeps_its_promises(monkeypatch: pytest.MonkeyPatch) -> None:
    """No BC/gap date in the pre section (the snapshot reads dates over JDBC: deliberate `date_bc_jdbc_lost`); the
    hidden table's exclude list is added only where no table filter was drawn; scenario names are unique. (The
    session-20 and -21 draws, which put BC timestamps and dates in the snapshot, have their own tests.)"""
    monkeypatch.setattr(workloads, "s20_draws", lambda seed, g, props: {})
    monkeypatch.setattr(workloads, "s21_draws", lambda seed, g, props: {})  # (BC dates in the snapshot too)
    for s in range(44719000, 44719150):
        text = workloads.generate("pg", s)
        w = Workload.parse(text)
        assert " BC'" not in w.sections["pre"] and "1582-10-" not in w.sections["pre"], s
        sets = [line for line in text.splitlines() if line.startswith("-- @set ")]
        if "s19_hidden\n" in text:
            assert (
                sum(
                    line.startswith(("-- @set table.include.list", "-- @set table.exclude.list"))
                    for line in sets
                )
                == 1
            )
        names = re.findall(r"^-- @scenario (\S+)$", w.sections.get("stream", ""), re.M)
        assert len(names) == len(set(names)), s


def test_the_check_sees_a_changed_line() -> None:
    before = ["-- @set a=1", "-- @section pre", "x"]
    assert _added_lines_belong_to_the_draw(before, [*before, "-- @scenario s19_parts", "y"])
    assert not _added_lines_belong_to_the_draw(before, ["-- @set a=2", "-- @section pre", "x"])
    assert not _added_lines_belong_to_the_draw(before, [*before, "z"])
