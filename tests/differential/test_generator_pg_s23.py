"""The session-23 PostgreSQL draws (workloads_pg_s23) come from a random stream of their own: a seed keeps every
line it had and gains only the new scenarios' blocks (multi-dimensional arrays of element types Debezium nulls,
tables whose names Debezium quotes wrong, named by signals). What Debezium 3.6.3 makes of them was recorded with
`differential diff` (docs/differential.md, session 23) and the campaigns."""

from __future__ import annotations

import re

import pytest
from draw_lines import added_lines_belong_to_the_draw

import emulator.testing.workloads as workloads
import emulator.testing.workloads_pg_s23 as s23
from emulator.testing.workload import Workload

KINDS = tuple(sorted(s23.SCENARIOS))
SEEDS = range(44780000, 44780150)
NEW_SETS = ("event.processing.failure.handling.mode", "snapshot.isolation.mode", "topic.naming.strategy")
NEW_BLOCK = re.compile(rf"-- @scenario s23_({'|'.join(KINDS)})")


def test_the_s23_draw_keeps_old_workloads(monkeypatch: pytest.MonkeyPatch) -> None:
    drawn = {s: workloads.generate("pg", s) for s in SEEDS}
    monkeypatch.setattr(workloads, "s23_draws", lambda seed, g, props: {})
    gained = dict.fromkeys(KINDS, 0)
    for s in SEEDS:
        before, after = workloads.generate("pg", s).splitlines(), drawn[s].splitlines()
        assert added_lines_belong_to_the_draw(before, after, NEW_BLOCK.fullmatch, NEW_SETS), s
        for k in KINDS:
            gained[k] += f"-- @scenario s23_{k}\n" in drawn[s]
        for k in NEW_SETS:
            gained[k] = gained.get(k, 0) + (
                f"-- @set {k}=" in drawn[s] and f"-- @set {k}=" not in "\n".join(before)
            )
    assert all(gained.values()), gained


def test_isolation_reading_outside_one_snapshot_never_beside_threads() -> None:
    """read_committed/read_uncommitted with snapshot.max.threads > 1 are refused (settings.validate)."""
    for s in SEEDS:
        sets = [x for x in workloads.generate("pg", s).splitlines() if x.startswith("-- @set ")]
        if any(x.startswith("-- @set snapshot.isolation.mode=read_") for x in sets):
            assert not any(
                x.startswith("-- @set snapshot.max.threads=") and not x.endswith("=1") for x in sets
            ), s


def test_names_debezium_quotes_wrong_stay_out_of_the_snapshot_and_the_filters() -> None:
    """A misquoted name never in `pre` (the snapshot's SELECT would stop both), never written where Debezium's
    stream cannot parse it, and only beside the properties its signals need."""
    for s in SEEDS:
        text = workloads.generate("pg", s)
        if "-- @scenario s23_quotednames" not in text:
            continue
        w = Workload.parse(text)
        assert "s23_quotednames" not in w.sections["pre"], s
        sets = [x for x in text.splitlines() if x.startswith("-- @set ")]
        assert not any(x.startswith(tuple(f"-- @set {k}=" for k in s23.NOT_FOR_SIGNALS)) for x in sets), s
        assert "-- @set snapshot.mode=initial_only" not in sets, s
        stream = w.sections["stream"]
        # (session 24) the table read back as another (`..._m''b`) is made while streaming: the snapshot would read
        # it under its own name, which is not what the draw is for
        assert "m''b" not in w.sections["pre"], s
        # the schema `s23 "..."` (TableId.parse fails) is created and named by a signal, never written
        assert not re.search(r'(INSERT INTO|UPDATE|DELETE FROM|TRUNCATE) "s23 ', stream), s


def test_the_misread_name_is_drawn() -> None:
    """(session 24) some quotednames draws, not all, write a table TableId.parse reads back as another (pg cases
    misread_name_*)."""
    texts = [workloads.generate("pg", s) for s in SEEDS]
    quoted = [t for t in texts if "-- @scenario s23_quotednames" in t]
    misread = [t for t in quoted if "_m''b" in t]
    assert quoted and misread and len(misread) < len(quoted)
