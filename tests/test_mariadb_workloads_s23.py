"""Session 23's generator draws (emulator.testing.workloads_mariadb_s23): YEAR / BIT / ZEROFILL / DECIMAL(65,30) /
TEXT-BLOB-JSON defaults, ON UPDATE CURRENT_TIMESTAMP(n), zero dates and charset / index forms, from a random stream
of their own, so a seed that draws them only gains their blocks (older seeds keep every other line; campaigns and
recorded cases name seeds). No server: the generator's text only (every drawn block of seeds 190-319 was run on a
MariaDB 10.11 while writing it: no SQL error)."""

from __future__ import annotations

from draw_lines import without_blocks

from emulator.testing import workloads_mariadb, workloads_mariadb_s23
from emulator.testing.differential import Workload

SEEDS = range(190, 310)
BLOCKS = ("types23x", "forms23x")
SETS = ("event.converting.failure.handling.mode",)  # drawn with the blocks


def test_a_seed_only_gains_the_blocks(monkeypatch):
    drawn = {s: workloads_mariadb.generate(s) for s in SEEDS}
    monkeypatch.setattr(workloads_mariadb_s23, "draws", lambda seed, props, scenarios: None)
    for seed, text in drawn.items():
        before = workloads_mariadb.generate(seed)
        assert without_blocks(text, BLOCKS, SETS) == without_blocks(before, BLOCKS, SETS), seed


def test_the_blocks_draw_the_forms():
    seen = dict.fromkeys(BLOCKS, 0)
    pre_all = stream_all = ""
    for seed in SEEDS:
        text = workloads_mariadb.generate(seed)
        w = Workload.parse(text)
        pre_all += w.sections["pre"]
        stream_all += w.sections["stream"]
        for b in BLOCKS:
            seen[b] += f"-- @scenario {b}" in text
    modes = [
        t.split("event.converting.failure.handling.mode=")[1].split("\n")[0]
        for t in map(workloads_mariadb.generate, SEEDS)
        if "event.converting.failure.handling.mode=" in t
    ]
    assert 10 < len(modes) < 40 and "fail" in modes, modes
    for b, share in zip(BLOCKS, (0.5, 0.45), strict=True):
        assert abs(seen[b] / len(SEEDS) - share) < 0.15, (b, seen)
    both = pre_all + stream_all
    for form in (
        "YEAR",
        "BIT(5) DEFAULT b'101'",
        "DECIMAL(65,30)",
        "ZEROFILL",
        "BLOB DEFAULT 'ab'",
        "JSON DEFAULT",
    ):
        assert f"{form}" in pre_all, form
    assert "ON UPDATE CURRENT_TIMESTAMP(" in pre_all and "'0000-00-00'" in both and "'2020-00-15" in both
    for form in (
        "CONVERT TO CHARACTER SET",
        "RENAME KEY",
        "RENAME INDEX",
        "CHARACTER SET latin1 DEFAULT 'z'",
    ):
        assert "ALTER TABLE forms23x" in stream_all and form in stream_all, form
    # zero dates need sql_mode relaxed, restored after; the fixed session time is given back
    for seed in SEEDS:  # each relaxing of the block's own followed by its restore
        text = workloads_mariadb.generate(seed)
        block = text[text.find("-- @scenario types23x") :] if "-- @scenario types23x" in text else ""
        for part in block.split("-- @scenario ")[:3]:
            if part.startswith("types23x"):
                own = part.split("\n-- @")[0]
                assert own.count("SET SESSION sql_mode = '';") == own.count(workloads_mariadb_s23.RESTORE), (
                    seed
                )
    assert both.count("SET timestamp = DEFAULT;") >= seen["types23x"] * 2
    # only MySQL-grammar forms, no double-quoted strings (the MySqlConnector rewrites them in its ddl text)
    assert '"' not in "".join(ln for ln in stream_all.splitlines() if "forms23x" in ln and "JSON" not in ln)
