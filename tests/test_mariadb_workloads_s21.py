"""Session 21's generator draws (emulator.testing.workloads_mariadb_s21): inconsistent.schema.handling.mode over a
table renamed out of table.exclude.list, and the deprecated / no-op binlog properties, from random streams of
their own, so a seed that draws them only gains the block and its property lines (older seeds keep every other
line; campaigns and recorded cases name seeds). No server: the generator's text only."""

from __future__ import annotations

import re

from draw_lines import without_blocks

from emulator.testing import workloads_mariadb, workloads_mariadb_s21
from emulator.testing.differential import Workload

SEEDS = range(161, 281)
PROPS = (
    "inconsistent.schema.handling.mode",
    "schema.history.internal.store.only.captured.tables.ddl",
    "event.deserialization.failure.handling.mode",
    "gtid.source.filter.dml.events",
    "event.processing.failure.handling.mode",
)


def _without_block(text: str) -> str:
    """The workload without the incons21x blocks and the draw's property lines (table.exclude.list without the
    hidden table's pattern)."""
    lines = []
    for line in text.splitlines():
        if line.startswith("-- @set table.exclude.list="):
            line = line.replace(",inventory\\.incons21x_h", "")
            if line == "-- @set table.exclude.list=inventory\\.incons21x_h":
                continue
        lines.append(line)
    return without_blocks("\n".join(lines), ("incons21x",), PROPS)


def test_a_seed_only_gains_the_block(monkeypatch):
    drawn = {s: workloads_mariadb.generate(s) for s in SEEDS}
    monkeypatch.setattr(workloads_mariadb_s21, "draws", lambda seed, props, scenarios: None)
    for seed, text in drawn.items():
        before = workloads_mariadb.generate(seed)
        assert _without_block(text) == _without_block(before), seed
        if "incons21x" not in text and not any(f"-- @set {p}=" in text for p in PROPS[2:]):
            assert text == before, seed


def test_the_block_hides_its_table_and_renames_it_into_capture():
    modes, props_seen = {}, set()
    for seed in SEEDS:
        text = workloads_mariadb.generate(seed)
        props_seen |= {p for p in PROPS[2:] if f"-- @set {p}=" in text}
        if "incons21x" not in text:
            continue
        mode = re.search(r"^-- @set inconsistent\.schema\.handling\.mode=(\S+)$", text, re.M).group(1)
        modes.setdefault(mode, []).append(seed)
        assert "-- @set schema.history.internal.store.only.captured.tables.ddl=true" in text
        excl = re.search(r"^-- @set table\.exclude\.list=(\S+)$", text, re.M).group(1)
        assert "inventory\\.incons21x_h" in excl.split(",")
        assert "-- @set table.include.list=" not in text
        w = Workload.parse(text)
        assert "CREATE TABLE incons21x_h" in w.sections["pre"]
        assert "RENAME TABLE incons21x_h TO incons21x_t;" in w.sections["stream"]
    assert set(modes) == set(workloads_mariadb_s21.INCONSISTENT_MODES), modes
    assert props_seen == set(PROPS[2:])
    share = sum(len(v) for v in modes.values()) / len(SEEDS)
    assert 0.1 < share < 0.4, share
