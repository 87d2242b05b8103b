"""The differential comparison recognizes the deliberate difference `timestamp_array_bc_jdbc_lost`
(emulator.testing.deliberate_julian; README "Differences from Debezium"): Debezium reads timestamp[] / timestamptz[]
elements before 1582-10-15 in the Julian calendar (and timestamptz[] elements without their era).

Recorded pairs: pg cases timestamp_array_bc_jdbc_lost's and date_bc_jdbc_lost's goldens (Debezium 3.6.3) and the
emulator's outputs of the same workloads (data/timestamp_array_bc, data/date_bc; `differential diff --golden`,
session 21). The tests below change something else and see it reported."""

from __future__ import annotations

import copy
import gzip
import json
from pathlib import Path

from emulator.testing.conformance import compare, load_golden
from emulator.testing.deliberate_julian import ARRAY_TS_BC, DATE_BC, accept_julian_array_elements

CASES = Path(__file__).parents[1] / "data" / "pg" / "cases"
DATA = Path(__file__).parent / "data"
T = "dbserver1.public.dsnap"


def _pair(case: str = "timestamp_array_bc_jdbc_lost", data: str = "timestamp_array_bc"):
    config = json.loads((CASES / case / "golden.meta.json").read_text())["connector_config"]
    ours: dict[str, list[dict]] = {}
    for line in gzip.decompress((DATA / data / "emulator.jsonl.gz").read_bytes()).decode().splitlines():
        rec = json.loads(line)
        ours.setdefault(rec["topic"], []).append(rec)
    return config, load_golden(CASES / case / "golden.jsonl"), ours


def _diff(config, gold, ours, accept: bool = True):
    accepted = accept_julian_array_elements(config, gold, ours) if accept else {}
    compared, problems = compare(gold, ours, mask_positions=True)
    return accepted, compared, problems


def _after(recs: list[dict], row_id: int) -> dict:
    return next(r for r in recs if r["value"] and r["value"]["payload"]["after"]["id"] == row_id)["value"][
        "payload"
    ]["after"]


def test_the_recorded_pair_differs_only_in_those_elements_and_is_accepted():
    config, gold, ours = _pair()
    _, _, problems = _diff(config, copy.deepcopy(gold), copy.deepcopy(ours), accept=False)
    assert problems and all("/after/tsa" in p or "/after/tza" in p for p in problems), problems
    accepted, compared, problems = _diff(config, gold, ours)
    assert accepted == {ARRAY_TS_BC: 6}
    assert compared == 17 and problems == []


def test_an_element_after_the_gregorian_change_is_still_compared():
    config, gold, ours = _pair()
    _after(ours[T], 3)["tsa"][1] -= 1_000_000  # 294276-12-31 (saturated) moved: not a Julian reading
    _, _, problems = _diff(config, gold, ours)
    assert len(problems) == 1 and "/after/tsa" in problems[0], problems


def test_an_element_debezium_puts_far_past_the_change_is_still_compared():
    config, gold, ours = _pair()
    _after(gold[T], 102)["tza"][1] = "1700-01-01T00:00:00.000000Z"  # ours: 44 BC; Debezium's past 1582-10-25
    _, _, problems = _diff(config, gold, ours)
    assert len(problems) == 1 and "/after/tza" in problems[0], problems


def test_other_fields_of_the_record_are_still_compared():
    config, gold, ours = _pair()
    _after(ours[T], 2)["ts6"] += 1
    _, _, problems = _diff(config, gold, ours)
    assert len(problems) == 1 and "/after/ts6" in problems[0], problems


def test_an_array_of_another_length_is_still_compared():
    config, gold, ours = _pair()
    _after(ours[T], 104)["tsa"].append(0)
    _, _, problems = _diff(config, gold, ours)
    assert len(problems) == 1 and "/after/tsa" in problems[0], problems


def test_nothing_is_accepted_on_another_connector():
    config, gold, ours = _pair()
    config = dict(config, **{"connector.class": "io.debezium.connector.mysql.MySqlConnector"})
    accepted, _, problems = _diff(config, gold, ours)
    assert accepted == {} and len(problems) >= 6


def test_the_recorded_date_pair_is_accepted_but_a_dropped_era_past_1582():
    config, gold, ours = _pair("date_bc_jdbc_lost", "date_bc")
    _, _, problems = _diff(config, copy.deepcopy(gold), copy.deepcopy(ours), accept=False)
    assert len(problems) == 7, problems  # (one per record) rows 1-4 (snapshot: d, da), rows 11-13 (da)
    accepted, _, problems = _diff(config, gold, ours)
    assert accepted == {DATE_BC: 6}
    # 4713-01-01 BC: Debezium's 4713-01-01 (AD) is no Julian reading of a date before the change
    assert problems == ["dbserver1.public.bc[3]: /value/payload/after/d: golden 1001860 != ours -2440550"], (
        problems
    )


def test_a_streamed_date_scalar_is_still_compared():
    config, gold, ours = _pair("date_bc_jdbc_lost", "date_bc")
    rec = next(r for r in ours["dbserver1.public.bc"] if r["value"]["payload"]["op"] == "c")
    rec["value"]["payload"]["after"]["d"] = -703383  # what Debezium's snapshot would read: not in the stream
    _, _, problems = _diff(config, gold, ours)
    assert any(p.startswith("dbserver1.public.bc[4]: /value/payload/after/d") for p in problems), problems
