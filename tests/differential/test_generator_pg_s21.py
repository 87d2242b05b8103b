"""The session-21 PostgreSQL draws (workloads_pg_s21) come from a random stream of their own: a seed keeps every
line it had and gains only `-- @set` lines and the new scenarios' blocks (a key column the column filters leave out;
timestamp/date array elements and snapshot dates before 1582-10-15, the deliberate Julian readings the harness now
recognizes). What PostgreSQL and Debezium make of the drawn SQL was checked with the campaigns of
docs/differential.md, session 21."""

from __future__ import annotations

import re

import pytest
from draw_lines import added_lines_belong_to_the_draw

import emulator.testing.workloads as workloads
import emulator.testing.workloads_pg_s21 as s21
from emulator.testing.workload import Workload

KINDS = ("colkeys", "julian")
NEW_BLOCK = re.compile(rf"-- @scenario s21_({'|'.join(KINDS)})$")
SEEDS = range(44741000, 44741150)
NEW_SETS = (
    "snapshot.locking.mode",
    "snapshot.tables.order.by.row.count",
    "event.converting.failure.handling.mode",
    "event.processing.failure.handling.mode",
)


def _added_lines_belong_to_the_draw(before: list[str], after: list[str]) -> bool:
    return added_lines_belong_to_the_draw(before, after, NEW_BLOCK.match)


def test_the_s21_draw_keeps_old_workloads(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(workloads, "s22_draws", lambda seed, g, props: {})  # (sees the s21 draws' properties)
    monkeypatch.setattr(workloads, "s23_draws", lambda seed, g, props: {})  # (session 23: likewise)
    drawn = {s: workloads.generate("pg", s) for s in SEEDS}
    monkeypatch.setattr(workloads, "s21_draws", lambda seed, g, props: {})
    gained = dict.fromkeys(KINDS + NEW_SETS, 0)
    for s in SEEDS:
        before, after = workloads.generate("pg", s), drawn[s]
        assert _added_lines_belong_to_the_draw(before.splitlines(), after.splitlines()), f"seed {s}"
        for k in KINDS:
            gained[k] += f"s21_{k}\n" in after
        for k in NEW_SETS:
            gained[k] += f"-- @set {k}=" in after and f"-- @set {k}=" not in before
    assert all(gained.values()), gained
    assert 40 <= gained["colkeys"] + gained["julian"] <= 130, gained


def test_the_draw_keeps_its_promises() -> None:
    """No BC year past 1581 where Debezium drops the era (timestamptz[] elements, dates); converting `fail` never
    beside snapshot threads (processing warn/skip may be, from the session-23 draws); one column filter of each kind at
    most; scenario names unique."""
    for s in SEEDS:
        text = workloads.generate("pg", s)
        w = Workload.parse(text)
        for section in w.sections.values():
            for line in section.splitlines():
                if "s21_julian" in line:
                    for v in re.findall(r"'[^']*'", line):
                        assert v in s21.TS + s21.TZ + s21.DATES, (s, v)
        sets = [line for line in text.splitlines() if line.startswith("-- @set ")]
        if "-- @set event.converting.failure.handling.mode=fail" in sets:
            assert not any(x.startswith("-- @set snapshot.max.threads") for x in sets), s
        for kind in ("column.include.list", "column.exclude.list", "message.key.columns"):
            assert sum(line.startswith(f"-- @set {kind}=") for line in sets) <= 1, (s, kind)
        names = re.findall(r"^-- @scenario (\S+)$", w.sections.get("stream", ""), re.M)
        assert len(names) == len(set(names)), s


def test_no_bc_year_past_1581_where_debezium_drops_the_era() -> None:
    for v in s21.TZ + s21.DATES:
        m = re.match(r"'(\d+)-", v)
        assert not (v.endswith(" BC'") and m and int(m.group(1)) > 1581), v
    assert any(v.endswith(" BC'") for v in s21.TZ) and any(v.endswith(" BC'") for v in s21.DATES)


def test_every_drawn_value_is_accepted_by_the_emulator() -> None:
    from emulator.config import from_dict

    base = {
        "connector.class": "io.debezium.connector.postgresql.PostgresConnector",
        "database.hostname": "127.0.0.1",
        "database.user": "u",
        "database.dbname": "d",
        "topic.prefix": "p",
        "plugin.name": "pgoutput",
    }
    for k, v in (
        ("snapshot.locking.mode", "shared"),
        ("snapshot.tables.order.by.row.count", "ascending"),
        ("snapshot.tables.order.by.row.count", "descending"),
        ("event.converting.failure.handling.mode", "skip"),
        ("event.converting.failure.handling.mode", "fail"),
    ):
        from_dict({**base, k: v})  # refused: raises


def test_the_check_sees_a_changed_line() -> None:
    before = ["-- @set a=1", "-- @section pre", "x"]
    assert _added_lines_belong_to_the_draw(before, [*before, "-- @scenario s21_julian", "y"])
    assert not _added_lines_belong_to_the_draw(before, ["-- @set a=2", "-- @section pre", "x"])
    assert not _added_lines_belong_to_the_draw(before, [*before, "z"])
