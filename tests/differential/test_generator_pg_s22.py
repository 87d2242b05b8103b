"""The session-22 PostgreSQL draws (workloads_pg_s22) come from a random stream of their own: a seed keeps every
line it had and gains only `-- @set` lines and the new scenarios' blocks (schemas no earlier draw wrote: arrays of the
remaining element types, composites, columns added/retyped while streaming, unlogged tables, wide rows, TOAST in a
key, hash partitions of list partitions, non-ASCII names). What PostgreSQL and Debezium make of the drawn SQL was
checked with `differential diff` and the campaigns of docs/differential.md, session 22."""

from __future__ import annotations

import re

import pytest
from draw_lines import added_lines_belong_to_the_draw

import emulator.testing.workloads as workloads
import emulator.testing.workloads_pg_s22 as s22
from emulator.testing.workload import Workload

KINDS = tuple(sorted(s22.SCENARIOS))
NEW_BLOCK = re.compile(rf"-- @scenario s22_({'|'.join(KINDS)})$")
SEEDS = range(44770000, 44770150)


def _added_lines_belong_to_the_draw(before: list[str], after: list[str]) -> bool:
    return added_lines_belong_to_the_draw(before, after, NEW_BLOCK.match)


def test_the_s22_draw_keeps_old_workloads(monkeypatch: pytest.MonkeyPatch) -> None:
    drawn = {s: workloads.generate("pg", s) for s in SEEDS}
    monkeypatch.setattr(workloads, "s22_draws", lambda seed, g, props: {})
    gained = dict.fromkeys(KINDS, 0)
    for s in SEEDS:
        before, after = workloads.generate("pg", s), drawn[s]
        assert _added_lines_belong_to_the_draw(before.splitlines(), after.splitlines()), f"seed {s}"
        for k in KINDS:
            gained[k] += f"-- @scenario s22_{k}\n" in after
    assert all(gained.values()), gained
    # 70 % of the seeds draw 1-3 kinds: about 210 blocks in 150 seeds
    assert 120 <= sum(gained.values()) <= 300, gained


def test_the_draw_keeps_its_promises() -> None:
    """No unlogged table, no schema name Debezium cannot quote, where the publication names tables; one
    `publish.via.partition.root` at most; scenario names unique."""
    for s in SEEDS:
        text = workloads.generate("pg", s)
        w = Workload.parse(text)
        sets = [line for line in text.splitlines() if line.startswith("-- @set ")]
        if "s22_logged" in text:
            assert not any(x.startswith(tuple(f"-- @set {k}=" for k in s22.FILTERED)) for x in sets), s
            assert not any(
                x.startswith("-- @set publication.autocreate.mode=") and not x.endswith("=all_tables")
                for x in sets
            ), s
        assert sum(x.startswith("-- @set publish.via.partition.root=") for x in sets) <= 1, s
        if s22.MISQUOTED in text:  # (Debezium's CREATE PUBLICATION ... FOR TABLE could not name it either)
            assert not any(x.startswith("-- @set publication.autocreate.mode=filtered") for x in sets), s
        names = re.findall(r"^-- @scenario (\S+)$", w.sections.get("stream", ""), re.M)
        assert len(names) == len(set(names)), s


def test_every_array_element_type_is_new() -> None:
    """The element types are those no earlier draw put in an array (workloads_pg_tables.PG_TYPES holds the others)."""
    from emulator.testing.workloads_pg_tables import PG_TYPES

    older = {t[:-2] for t, _ in PG_TYPES if t.endswith("[]")}
    assert not older & set(s22.ELEMENTS), older & set(s22.ELEMENTS)


def test_the_check_sees_a_changed_line() -> None:
    before = ["-- @set a=1", "-- @section pre", "x"]
    assert _added_lines_belong_to_the_draw(before, [*before, "-- @scenario s22_wide", "y"])
    assert not _added_lines_belong_to_the_draw(before, ["-- @set a=2", "-- @section pre", "x"])
    assert not _added_lines_belong_to_the_draw(before, [*before, "z"])
    assert not _added_lines_belong_to_the_draw(before, [*before, "-- @scenario s21_julian", "y"])
