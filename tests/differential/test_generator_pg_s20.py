"""The session-20 PostgreSQL draws (workloads_pg_s20) come from a random stream of their own: a seed keeps every
line it had and gains only `-- @set` lines and the new scenarios' blocks (a key column the column filters leave
out, a column dropped under a name the table filter leaves out, far-future/infinite/BC timestamps in the
snapshot). What PostgreSQL and Debezium make of the drawn SQL was checked with `differential diff`
(docs/differential.md, session 20)."""

from __future__ import annotations

import re

import pytest
from draw_lines import added_lines_belong_to_the_draw

import emulator.testing.workloads as workloads
from emulator.testing.workload import Workload

KINDS = ("colkeys", "gonedrop", "snaperas")
NEW_BLOCK = re.compile(rf"-- @scenario s20_({'|'.join(KINDS)})$")
SEEDS = range(44727000, 44727150)


def _added_lines_belong_to_the_draw(before: list[str], after: list[str]) -> bool:
    return added_lines_belong_to_the_draw(before, after, NEW_BLOCK.match)


def test_the_s20_draw_keeps_old_workloads(monkeypatch: pytest.MonkeyPatch) -> None:
    # (the session-21 draws, later, see the s20 draws' properties: switched off on both sides)
    monkeypatch.setattr(workloads, "s21_draws", lambda seed, g, props: {})
    monkeypatch.setattr(workloads, "s22_draws", lambda seed, g, props: {})  # (likewise the session-22 draws)
    monkeypatch.setattr(workloads, "s23_draws", lambda seed, g, props: {})  # (session 23: likewise)
    drawn = {s: workloads.generate("pg", s) for s in SEEDS}
    monkeypatch.setattr(workloads, "s20_draws", lambda seed, g, props: {})
    gained = dict.fromkeys(KINDS, 0)
    for s in SEEDS:
        before, after = workloads.generate("pg", s), drawn[s]
        assert _added_lines_belong_to_the_draw(before.splitlines(), after.splitlines()), f"seed {s}"
        for k in KINDS:
            gained[k] += f"s20_{k}\n" in after
    assert all(gained.values()), gained
    assert 40 <= sum(gained.values()) <= 130, gained


def test_the_draw_keeps_its_promises() -> None:
    """No BC/gap date and no date[] in the snapshot's tables of the draw (deliberate `date_bc_jdbc_lost`); a column
    filter or table filter is added only where none was drawn before (one of each kind at most); scenario names
    are unique; the include list keeps the other tables' columns (a negative lookahead)."""
    for s in SEEDS:
        text = workloads.generate("pg", s)
        w = Workload.parse(text)
        for line in w.sections["pre"].splitlines():
            if line.startswith("INSERT INTO public.s20_snaperas"):
                dates = re.findall(r"'([^']*)'", line)
                assert not any(d.endswith("BC") and ":" not in d for d in dates), s
        sets = [line for line in text.splitlines() if line.startswith("-- @set ")]
        for kind in (
            "table.include.list",
            "table.exclude.list",
            "column.include.list",
            "column.exclude.list",
        ):
            assert sum(line.startswith(f"-- @set {kind}=") for line in sets) <= 1, (s, kind)
        if "s20_gonedrop\n" in text:
            assert "-- @set table.exclude.list=public\\..*_gone" in sets
        names = re.findall(r"^-- @scenario (\S+)$", w.sections.get("stream", ""), re.M)
        assert len(names) == len(set(names)), s
        for line in sets:
            if line.startswith("-- @set column.include.list=") and "s20_colkeys" in line:
                assert line.split("=", 1)[1].startswith("(?!public\\.s20_colkeys(_nk)?\\.).*,"), s


def test_the_check_sees_a_changed_line() -> None:
    before = ["-- @set a=1", "-- @section pre", "x"]
    assert _added_lines_belong_to_the_draw(before, [*before, "-- @scenario s20_colkeys", "y"])
    assert not _added_lines_belong_to_the_draw(before, ["-- @set a=2", "-- @section pre", "x"])
    assert not _added_lines_belong_to_the_draw(before, [*before, "z"])
