"""The differential harness's own parts (no JVM): workload format, scenario selection, generator."""

from __future__ import annotations

import pytest

from emulator.testing.differential import Workload, stream_steps
from emulator.testing.pgserver import PgServer
from emulator.testing.workloads import generate

TEXT = """-- @set decimal.handling.mode=string
-- @set column.propagate.source.type=.*
-- @section pre
CREATE TABLE shared (id int);
-- @scenario a
CREATE TABLE a (id int);
-- @scenario b
CREATE TABLE b (id int);
-- @section stream
-- @scenario a
INSERT INTO a VALUES (1);
-- @quiet
INSERT INTO a VALUES (2);
-- @scenario b
INSERT INTO b VALUES (1);
"""


def test_parse_sets_and_sections():
    w = Workload.parse(TEXT)
    assert w.props == {"decimal.handling.mode": "string", "column.propagate.source.type": ".*"}
    assert list(w.sections) == ["pre", "stream"]
    assert w.scenarios() == ["a", "b"]


def test_only_keeps_shared_statements_and_the_chosen_scenario():
    w = Workload.parse(TEXT).only({"b"})
    assert "CREATE TABLE shared" in w.sections["pre"]
    assert "CREATE TABLE b" in w.sections["pre"]
    assert "CREATE TABLE a" not in w.sections["pre"]
    assert "INSERT INTO a" not in w.sections["stream"]
    assert w.props["decimal.handling.mode"] == "string"


def test_stream_steps_split_at_quiet():
    steps = stream_steps(Workload.parse(TEXT).sections["stream"])
    assert len(steps) == 2
    assert "VALUES (1)" in steps[0] and "INTO b" not in steps[0]
    assert "VALUES (2)" in steps[1] and "INTO b" in steps[1]


def test_generator_is_deterministic_and_varies():
    assert generate("pg", 5) == generate("pg", 5)
    assert len({generate("pg", s) for s in range(10)}) == 10


@pytest.mark.parametrize("seed", range(8))
def test_generated_pg_workloads_run_on_postgres(seed):
    """Every section of a generated workload is valid SQL for PostgreSQL 15 (roles are per cluster: a
    fresh server each)."""
    w = Workload.parse(generate("pg", seed))
    with PgServer() as pg:
        pg.psql("CREATE PUBLICATION dbz_publication FOR ALL TABLES;")  # as the capture has it
        for part in [
            w.sections["pre"],
            *stream_steps(w.sections.get("stream", "")),
            w.sections.get("incremental", ""),
        ]:
            r = pg.psql(part, check=False)
            assert r.returncode == 0, f"seed {seed}: {r.stderr}"


def test_stream_units_and_with_stream():
    w = Workload.parse(TEXT + "INSERT INTO b\n  VALUES (2);\nINSERT INTO a VALUES (1);\n")
    units = w.stream_units()
    assert units == [
        "INSERT INTO a VALUES (1);\n",
        "INSERT INTO a VALUES (2);\n",
        "INSERT INTO b VALUES (1);\n",
        "INSERT INTO b\n  VALUES (2);\n",
        "INSERT INTO a VALUES (1);\n",
    ]
    smaller = w.with_stream([units[1], units[3]])
    assert smaller.stream_units() == [units[1], units[3]]
    # directives stay: the scenario markers and the quiet step
    assert smaller.scenarios() == ["a", "b"]
    assert len(stream_steps(smaller.sections["stream"])) == 2
    assert smaller.sections["pre"] == w.sections["pre"] and smaller.props == w.props
    # duplicates: the last copy dropped
    assert w.with_stream(units[:4]).stream_units() == units[:4]
    assert w.with_stream([]).stream_units() == []
