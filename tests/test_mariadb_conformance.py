"""Conformance with real Debezium 3.6.3 on MariaDB 10.11: the golden workload replayed against a fresh
throwaway server exactly as the recording harness did, captured by `python -m emulator run CONFIG --out DIR`,
compared with the recordings after masking only what varies between runs (tests/conformance.py):

* `mariadb_public.jsonl`: io.debezium.connector.mariadb.MariaDbConnector;
* `mariadb_via_mysql_connector.jsonl`: io.debezium.connector.mysql.MySqlConnector against the same server
  with its version string overridden (`5.7.19-10.11-MariaDB`), as it was recorded.

GTIDs, binlog file names and row numbers are compared exactly (the server setup issues the same
statements as the recording's); binlog byte offsets are masked."""

from __future__ import annotations

import json

import pytest
from conformance import compare, load_dir, load_golden
from mariadb_workload import DATA, golden_props, run_golden_workload

from emulator.testing import mariadbserver

pytestmark = pytest.mark.skipif(
    not mariadbserver.available(),
    reason="MariaDB server binaries not installed (scripts/setup.sh installs them)",
)

CASES = {
    "mariadb": ("mariadb_public", None),
    "mysql": ("mariadb_via_mysql_connector", "5.7.19-10.11-MariaDB"),
}


@pytest.fixture(scope="module", params=sorted(CASES))
def golden_run(request, tmp_path_factory):
    name, version = CASES[request.param]
    work = tmp_path_factory.mktemp(f"mariadb_{request.param}")
    with mariadbserver.MariaDbServer(version=version) as db:
        props = golden_props(db, work, f"{name}.meta.json")
        golden = load_golden(DATA / f"{name}.jsonl")
        expected = {topic: len(recs) for topic, recs in golden.items()}
        emu, code = run_golden_workload(db, work, props, expected=expected)
        log = emu.log_tail(60)
    return {"name": name, "dir": emu.out, "code": code, "log": log}


def test_exit_zero_after_sigterm(golden_run):
    assert golden_run["code"] == 0, golden_run["log"]


def test_no_topics_beyond_golden(golden_run):
    golden = load_golden(DATA / f"{golden_run['name']}.jsonl")
    ours = load_dir(golden_run["dir"])
    assert sorted(set(ours) - set(golden)) == []


def test_whole_recording_zero_mismatches(golden_run):
    golden = load_golden(DATA / f"{golden_run['name']}.jsonl")
    compared, problems = compare(golden, load_dir(golden_run["dir"]), mask_positions=False)
    print(f"{golden_run['name']}: {compared} records compared, {len(problems)} mismatches")
    assert compared > 100
    assert not problems, f"{len(problems)} mismatches:\n" + "\n".join(problems[:20])


def test_schema_history_file_written(golden_run):
    hist = golden_run["dir"].parent / "schemahistory.dat"
    records = [json.loads(x) for x in hist.read_text().splitlines() if x.strip()]
    ddls = [r["ddl"] for r in records]
    assert ddls[0].startswith("SET character_set_server=")
    assert any(d.startswith("ALTER TABLE customers ADD COLUMN phone") for d in ddls)
    assert all(r["source"] == {"server": "dbserver1"} for r in records)
