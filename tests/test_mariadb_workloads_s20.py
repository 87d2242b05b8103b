"""Session 20's generator draw (emulator.testing.workloads_mariadb_s20): time.precision.mode microseconds /
nanoseconds / isostring over a table of every temporal type, from a random stream of its own, so a seed that
draws it only gains its block and its mode line (older seeds keep every other line; campaigns and recorded cases
name seeds). No server: the generator's text only."""

from __future__ import annotations

import re

from draw_lines import without_blocks

from emulator.testing import workloads_mariadb, workloads_mariadb_s20
from emulator.testing.differential import Workload

SEEDS = range(100, 220)
BLOCK = ("time20x",)
SETS = ("time.precision.mode", "enable.time.adjuster")  # the block's settings


def test_a_seed_only_gains_the_block(monkeypatch):
    drawn = {s: workloads_mariadb.generate(s) for s in SEEDS}
    monkeypatch.setattr(workloads_mariadb_s20, "draws", lambda seed, props, scenarios: None)
    for seed, text in drawn.items():
        before = workloads_mariadb.generate(seed)
        if "time20x" not in text:
            assert text == before, seed
        else:
            assert without_blocks(text, BLOCK, SETS) == without_blocks(before, BLOCK, SETS), seed


def test_every_new_mode_is_drawn_with_its_table():
    modes = {}
    for seed in SEEDS:
        text = workloads_mariadb.generate(seed)
        if "time20x" not in text:
            continue
        mode = re.search(r"^-- @set time\.precision\.mode=(\S+)$", text, re.M).group(1)
        modes.setdefault(mode, []).append(seed)
        w = Workload.parse(text)
        assert "CREATE TABLE time20x" in w.sections["pre"] and "INSERT INTO time20x" in w.sections["stream"]
    assert set(modes) == set(workloads_mariadb_s20.MODES), modes
    assert any(
        "-- @set enable.time.adjuster=false" in workloads_mariadb.generate(s)
        for v in modes.values()
        for s in v
    )
    share = sum(len(v) for v in modes.values()) / len(SEEDS)
    assert 0.2 < share < 0.5, share
