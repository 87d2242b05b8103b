"""A NaN in a NOT NULL numeric under decimal.handling.mode=precise stops Debezium in the snapshot; with
snapshot.max.threads=2 which records precede the stop depends on its threads. data/../pg/nan_threads holds two
recordings of one workload by real Debezium 3.6.3: run 1 delivered a1's two rows and b2's first, run 2 only
a1's first row. The emulator must stop too (exit 1, naming the column), with records that are a prefix of
the longer run per topic and hold at least the shorter one's (docs/differential.md)."""

from __future__ import annotations

import shutil
from pathlib import Path

from emulator.testing.conformance import compare, load_dir, load_golden
from emulator.testing.differential import Workload, diff

DATA = Path(__file__).resolve().parents[1] / "data" / "pg" / "nan_threads"


def test_the_emulator_stops_between_debeziums_two_runs(tmp_path):
    rec = tmp_path / "rec"
    rec.mkdir()
    shutil.copy(DATA / "debezium_run2.jsonl", rec / "golden.jsonl")
    shutil.copy(DATA / "debezium_run2.meta.json", rec / "golden.meta.json")
    res = diff("pg", Workload.load(DATA / "workload.sql"), tmp_path / "run", golden=rec / "golden.jsonl")
    # against the shorter run: the same records, the emulator's extra ones only as Debezium's lost tail
    assert not res.mismatch, res.summary() + "\n" + "\n".join(res.problems[:10])
    ours = load_dir(tmp_path / "run" / "emulator")
    longer = load_golden(DATA / "debezium_run1.jsonl")
    assert set(ours) <= set(longer)
    prefix = {t: longer[t][: len(recs)] for t, recs in ours.items()}
    assert all(len(prefix[t]) == len(ours[t]) for t in ours), "more records than Debezium's longer run"
    assert compare(prefix, ours)[1] == []
    log = next((tmp_path / "run").glob("emulator*.log")).read_text()
    assert "column n: numeric NaN" in log
