"""The sink campaign's own check (`python -m emulator.testing.sink_campaign`): one fixed-seed workload on a real
PostgreSQL under the emulator, written by the sink's driver path (`sink.apply.apply_batch`, no Spark start-up:
the campaign itself runs `python -m sink run`), must compare equal to the source; and the comparison must
fail when the sink loses an event or when a normalization is wrong."""

from __future__ import annotations

import json

import pytest

pytest.importorskip("deltalake", reason="deltalake not installed (pip install -e '.[sink]')")
pytest.importorskip("pyspark", reason="pyspark not installed (pip install -e '.[sink]')")

from emulator.testing import sink_campaign as sc  # noqa: E402
from sink.apply import Options, apply_batch  # noqa: E402

SEED = (
    4  # three keyed tables (int, composite, text; TOAST text), updates, a key change, deletes (checked below)
)


@pytest.fixture(scope="module")
def captured(tmp_path_factory):
    return sc.capture("pg", SEED, 0, tmp_path_factory.mktemp("campaign") / "w0", statements=14)


def _records(c: sc.Captured, drop=lambda topic, rec: False) -> list:
    out = []
    for f in sorted(c.out.glob("*.jsonl")):
        topic = f.name[: -len(".jsonl")]
        for i, line in enumerate(f.read_text().splitlines()):
            r = json.loads(line)
            if not drop(topic, r):
                out.append((topic, r["key"], r["value"], (f.name, i), r.get("headers")))
    return out


def test_the_workload_is_what_the_check_needs(captured):
    sql = "\n".join(captured.w.statements)
    assert captured.w.db == "pg" and not captured.w.unwrap
    assert any(t.key != "none" for t in captured.w.tables)
    for what in ("INSERT INTO", "UPDATE", "DELETE FROM"):
        assert what in sql, what


def test_mirror_and_history_equal_the_source(captured, tmp_path):
    apply_batch(str(tmp_path / "m"), _records(captured), "app", 0)
    assert sc.compare_mirror(captured, tmp_path / "m") == []
    apply_batch(str(tmp_path / "h"), _records(captured), "app", 0, Options(scd=2))
    assert sc.compare_history(captured, tmp_path / "h") == []


def _last_update(c: sc.Captured) -> tuple[str, int]:
    """The last update event of a keyed table (topic, line number): the row's final state comes from it."""
    keyed = {c.topic(t) for t in c.w.tables if t.key != "none"}
    last = None
    for f in sorted(c.out.glob("*.jsonl")):
        topic = f.name[: -len(".jsonl")]
        if topic in keyed:
            for i, line in enumerate(f.read_text().splitlines()):
                v = json.loads(line)["value"]
                if v and v["payload"]["op"] == "u":
                    last = (topic, i)
    assert last is not None
    return last


def test_a_lost_event_is_found(captured, tmp_path):
    topic, line = _last_update(captured)
    n = {"i": -1}

    def drop(t, r):
        if t != topic:
            return False
        n["i"] += 1
        return n["i"] == line

    apply_batch(str(tmp_path / "m"), _records(captured, drop), "app", 0)
    assert [p["table"] for p in sc.compare_mirror(captured, tmp_path / "m")] == [topic]
    n["i"] = -1
    apply_batch(str(tmp_path / "h"), _records(captured, drop), "app", 0, Options(scd=2))
    assert {p["table"] for p in sc.compare_history(captured, tmp_path / "h")} == {topic}


def test_a_wrong_normalization_is_found(captured, tmp_path, monkeypatch):
    """An expected value off by one for every integer column (the `rev` counter is in every table)."""
    apply_batch(str(tmp_path / "m"), _records(captured), "app", 0)
    right = sc.expected

    def wrong(c, v, m, db):
        e = right(c, v, m, db)
        return e + 1 if c.kind == "int" and e is not None else e

    monkeypatch.setattr(sc, "expected", wrong)
    found = {p["table"] for p in sc.compare_mirror(captured, tmp_path / "m")}
    assert found == {captured.topic(t) for t in captured.w.tables if captured.final[t.name]}


def test_year_one_is_not_minus_infinity_under_nanoseconds():
    """pg seed 14 (Kafka input): under time.precision.mode=nanoseconds a real `0001-01-01 00:00:00` is outside
    NanoTimestamp's int64, null in Debezium's records (case time_nanoseconds, row 12), while '-infinity' is
    Long.MIN, the start of Spark's range; the campaign compared the instant against that start and expected
    the year-1 timestamp as if it were -infinity (an SCD2 version reported as a mismatch)."""
    from emulator.testing.sink_campaign_more import expected
    from emulator.testing.sink_campaign_types import MIN_TS, ColType, Modes

    ts, m = ColType("timestamp", (), "ts"), Modes(time="nanoseconds")
    assert expected(ts, "0001-01-01 00:00:00", m, "pg") is None
    assert expected(ts, "-infinity", m, "pg") == MIN_TS
