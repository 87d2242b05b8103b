"""Session 22's generator draws (emulator.testing.workloads_mariadb_s22): composed ALTERs, partition maintenance and
table-level DDL forms, from a random stream of their own, so a seed that draws them only gains their blocks (older
seeds keep every other line; campaigns and recorded cases name seeds). No server: the generator's text only (every
drawn block of seeds 190-259 was run on a MariaDB 10.11 while writing it: no SQL error)."""

from __future__ import annotations

import re

from draw_lines import without_blocks

from emulator.testing import workloads_mariadb, workloads_mariadb_s22
from emulator.testing.differential import Workload

SEEDS = range(190, 310)
BLOCKS = ("alter22x", "part22x", "misc22x")


def test_a_seed_only_gains_the_blocks(monkeypatch):
    drawn = {s: workloads_mariadb.generate(s) for s in SEEDS}
    monkeypatch.setattr(workloads_mariadb_s22, "draws", lambda seed, props, scenarios: None)
    for seed, text in drawn.items():
        before = workloads_mariadb.generate(seed)
        assert without_blocks(text, BLOCKS) == without_blocks(before, BLOCKS), seed


def test_the_blocks_draw_the_forms():
    seen: dict[str, int] = {b: 0 for b in BLOCKS}
    alters = []
    stream_all = ""
    for seed in SEEDS:
        text = workloads_mariadb.generate(seed)
        w = Workload.parse(text)
        stream_all += w.sections["stream"]
        for b in BLOCKS:
            seen[b] += f"-- @scenario {b}" in text
        alters += re.findall(r"^ALTER TABLE alter22x (.*);$", w.sections["stream"], re.M)
    for b, share in zip(BLOCKS, (0.55, 0.35, 0.4), strict=True):
        assert abs(seen[b] / len(SEEDS) - share) < 0.15, (b, seen)
    # several clauses in one statement, and each clause form, with FIRST / AFTER
    assert sum(", " in a and a.count(" COLUMN ") > 1 for a in alters) > 20
    for form in (
        "ADD COLUMN",
        "DROP COLUMN",
        "MODIFY COLUMN",
        "CHANGE COLUMN",
        "RENAME COLUMN",
        "SET DEFAULT",
    ):
        assert any(form in a for a in alters), form
    assert any(" FIRST" in a for a in alters) and any(" AFTER " in a for a in alters)
    assert any("INVISIBLE" in a for a in alters) and any(" AS (" in a for a in alters)
    for form in ("REORGANIZE PARTITION", "EXCHANGE PARTITION", "TRUNCATE PARTITION", "COALESCE PARTITION"):
        assert f"ALTER TABLE part22x {form}" in stream_all, form
    assert (
        "/*!50100 ALTER TABLE misc22x" in stream_all and "RENAME TABLE misc22x TO misc22x_tmp" in stream_all
    )
    # only MySQL-grammar forms: the MySqlConnector (the oracle) stops on these (recorded cases instead)
    assert "SEQUENCE" not in stream_all and "/*M!" not in stream_all and "COLUMN IF " not in stream_all
