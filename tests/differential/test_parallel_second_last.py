"""Debezium's second `last` under a parallel snapshot (emulator.testing.parallel_order.accept_remarked_last).

Recorded in pg campaign seed 44604007 (`snapshot.max.threads=2`; data/threads_second_last: Debezium 3.6.3's
recording and the emulator's output of that run): Debezium marks `last` both the plan's last table's last row
(public.s1_names-dash, in its schema) and public.s3_ddl's last row, which its buffering receiver re-marked
because that table's thread delivered last; the emulator marks the latter `last_in_data_collection`. Each
scenario alone matched. The comparison accepts exactly that second mark, nothing else."""

from __future__ import annotations

import copy
import gzip
import json
from pathlib import Path

from emulator.testing.conformance import compare
from emulator.testing.parallel_order import accept_remarked_last, parallel_snapshot, sort_snapshot_reads

DATA = Path(__file__).parent / "data" / "threads_second_last"
S3 = "dbserver1.public.s3_ddl"


def _load(name: str) -> dict[str, list[dict]]:
    by_topic: dict[str, list[dict]] = {}
    for line in gzip.decompress((DATA / name).read_bytes()).decode().splitlines():
        if line.strip():
            rec = json.loads(line)
            by_topic.setdefault(rec["topic"], []).append(rec)
    return by_topic


def _sorted_pair():
    meta = json.loads((DATA / "golden.meta.json").read_text())
    assert parallel_snapshot(meta["connector_config"])
    gold, ours = _load("golden.jsonl.gz"), _load("emulator.jsonl.gz")
    sort_snapshot_reads(gold)
    sort_snapshot_reads(ours)
    return gold, ours


def _snapshot(rec: dict) -> str | None:
    value = rec.get("value")
    payload = value.get("payload") if isinstance(value, dict) else None
    return ((payload or {}).get("source") or {}).get("snapshot") if isinstance(payload, dict) else None


def test_the_recorded_second_last_is_the_only_difference_and_is_accepted():
    gold, ours = _sorted_pair()
    _, problems = compare(copy.deepcopy(gold), copy.deepcopy(ours), mask_positions=True)
    assert len(problems) == 1 and S3 in problems[0] and '"last"' in problems[0], problems
    note = accept_remarked_last(gold, ours)
    assert note is not None and note.startswith(S3)
    compared, problems = compare(gold, ours, mask_positions=True)
    assert compared == 98 and problems == []


def test_a_second_last_on_another_row_is_not_accepted():
    gold, ours = _sorted_pair()
    # ours marks the table's last row `true` instead: not the re-marked record Debezium's receiver explains
    s3 = ours[S3]
    i = next(n for n, r in enumerate(s3) if _snapshot(r) == "last_in_data_collection")
    s3[i]["value"]["payload"]["source"]["snapshot"] = "true"
    assert accept_remarked_last(gold, ours) is None
    assert compare(gold, ours, mask_positions=True)[1]


def test_ours_must_have_the_other_last():
    gold, ours = _sorted_pair()
    for recs in ours.values():  # no `last` at all on our side: a real difference
        for r in recs:
            if _snapshot(r) == "last":
                r["value"]["payload"]["source"]["snapshot"] = "last_in_data_collection"
    assert accept_remarked_last(gold, ours) is None


def test_a_single_last_is_left_alone():
    gold, ours = _sorted_pair()
    gold[S3][[_snapshot(r) for r in gold[S3]].index("last")]["value"]["payload"]["source"]["snapshot"] = (
        "last_in_data_collection"
    )
    assert accept_remarked_last(gold, ours) is None
    assert compare(gold, ours, mask_positions=True)[1] == []
