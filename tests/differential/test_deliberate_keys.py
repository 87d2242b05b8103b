"""The differential comparison recognizes the deliberate difference of key columns the column filters leave out
(emulator.testing.deliberate; README "Differences from Debezium"): Debezium's snapshot keys hold one value for
every row of the table in such a field, the emulator's the rows' values.

Recorded pairs (Debezium 3.6.3's recording and the emulator's output of the same run):
- data/key_columns_excluded_threads: pg case key_columns_excluded_snapshot_lost's workload with
  `snapshot.max.threads=2` (session 18's last campaign, seed 44718, reported 4 mismatches of this kind);
- data/key_column_excluded_pk: the emulator's output for pg case key_column_excluded_snapshot (its golden there).
Only the snapshot reads' key fields of such columns are taken from Debezium's side: the tests below change
something else in each and see it reported."""

from __future__ import annotations

import copy
import gzip
import json
from pathlib import Path

from emulator.testing.conformance import compare, load_golden
from emulator.testing.deliberate import KEY_COLUMNS_EXCLUDED, KEY_EXCLUDED, accept_excluded_key_columns
from emulator.testing.parallel_order import parallel_snapshot, sort_snapshot_reads

DATA = Path(__file__).parent / "data"
CASES = Path(__file__).parents[1] / "data" / "pg" / "cases"
NK, PK = "dbserver1.public.kc_nk", "dbserver1.public.kc_pk"


def _gz(path: Path) -> dict[str, list[dict]]:
    by_topic: dict[str, list[dict]] = {}
    for line in gzip.decompress(path.read_bytes()).decode().splitlines():
        if line.strip():
            rec = json.loads(line)
            by_topic.setdefault(rec["topic"], []).append(rec)
    return by_topic


def _threads_pair():
    d = DATA / "key_columns_excluded_threads"
    config = json.loads((d / "golden.meta.json").read_text())["connector_config"]
    assert parallel_snapshot(config)
    return config, _gz(d / "golden.jsonl.gz"), _gz(d / "emulator.jsonl.gz")


def _diff(config, gold, ours, accept: bool = True):
    """As emulator.testing.differential.diff compares: accepted first, then the threads' sort, then compare."""
    accepted = accept_excluded_key_columns(config, gold, ours) if accept else {}
    if parallel_snapshot(config):
        sort_snapshot_reads(gold)
        sort_snapshot_reads(ours)
    compared, problems = compare(gold, ours, mask_positions=True)
    return accepted, compared, problems


def _reads(recs: list[dict]) -> list[dict]:
    return [r for r in recs if (r.get("value") or {}).get("payload", {}).get("op") == "r"]


def test_the_recorded_threads_pair_mismatches_only_in_those_keys_and_is_accepted():
    config, gold, ours = _threads_pair()
    _, _, problems = _diff(config, copy.deepcopy(gold), copy.deepcopy(ours), accept=False)
    assert len(problems) == 4 and all("/key/payload/" in p for p in problems), problems
    accepted, compared, problems = _diff(config, gold, ours)
    assert accepted == {KEY_COLUMNS_EXCLUDED: 4}
    assert compared == 22 and problems == []


def test_the_recorded_primary_key_pair_is_accepted():
    case = CASES / "key_column_excluded_snapshot"
    config = json.loads((case / "golden.meta.json").read_text())["connector_config"]
    gold = load_golden(case / "golden.jsonl")
    ours = _gz(DATA / "key_column_excluded_pk" / "emulator.jsonl.gz")
    _, _, problems = _diff(config, copy.deepcopy(gold), copy.deepcopy(ours), accept=False)
    assert len(problems) == 4 and all("/key/payload/k" in p for p in problems), problems
    accepted, _, problems = _diff(config, gold, ours)
    assert accepted == {KEY_EXCLUDED: 4} and problems == []


def test_a_streamed_key_is_still_compared():
    config, gold, ours = _threads_pair()
    streamed = next(r for r in ours[NK] if r["value"] and r["value"]["payload"]["op"] == "c")
    streamed["key"]["payload"]["code"] = None  # as Debezium's snapshot keys: not accepted in the stream
    _, _, problems = _diff(config, gold, ours)
    assert len(problems) == 1 and problems[0].startswith(f"{NK}[") and "/key/payload/code" in problems[0]


def test_the_rest_of_a_snapshot_read_is_still_compared():
    config, gold, ours = _threads_pair()
    _reads(ours[PK])[0]["value"]["payload"]["after"]["v"] = "changed"
    _, _, problems = _diff(config, gold, ours)
    assert len(problems) == 1 and "/value/payload/after/v" in problems[0], problems


def test_an_included_key_field_of_a_snapshot_read_is_still_compared():
    config, gold, ours = _threads_pair()
    _reads(ours[PK])[0]["key"]["payload"]["k2"] = 99  # k2 is in column.include.list
    _, _, problems = _diff(config, gold, ours)
    # (the sorted reads shift: row 1 now sorts last)
    assert problems and all("/key/payload/k2" in p for p in problems), problems


def test_nothing_is_accepted_without_the_column_filter():
    config, gold, ours = _threads_pair()
    config = {k: v for k, v in config.items() if k != "column.include.list"}
    accepted, _, problems = _diff(config, gold, ours)
    assert accepted == {} and len(problems) == 4


def test_snapshot_keys_that_differ_among_debezium_reads_are_not_taken():
    # Debezium's reads of one table with two values in the field: not "the column has no value"
    config, gold, ours = _threads_pair()
    _reads(gold[PK])[0]["key"]["payload"]["code"] = "x"
    accepted, _, problems = _diff(config, gold, ours)
    assert accepted == {KEY_COLUMNS_EXCLUDED: 2}  # kc_nk only
    assert len(problems) == 2 and all(p.startswith(f"{PK}[") for p in problems), problems
