"""An older event of a key delivered in a later batch than a TOAST placeholder of that key (sink campaign pg
seed 30, w2.s.t0 key 1005): the placeholder took the value the mirror held when its batch was applied (or an
earlier image's of its batch), then the older event, whose value the placeholder stands for, was dropped as
older than the row, and the value it set was lost. The sink now records where a placeholder's value came from
(`sink/fills.py`) and lets a late event between that source and the placeholder give it.

Real PostgreSQL under the emulator (directory output): a row inserted, its TOAST columns (text and bytea)
updated, then an update of another column (placeholders); the records applied in batches in several orders,
through the driver path (`apply_batch`) and through Spark (`sink run --once` per arrival, the executors'
path). Each order's mirror must equal the table."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest
from emulator_proc import EmulatorProcess

pytest.importorskip("deltalake", reason="deltalake not installed (pip install -e '.[sink]')")
pytest.importorskip("pyspark", reason="pyspark not installed (pip install -e '.[sink]')")

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from sink_checks import spark_fixture  # noqa: E402, F401

from emulator.testing.pgserver import PgServer  # noqa: E402
from sink.apply import apply_batch  # noqa: E402
from sink.read import read_arrow  # noqa: E402

TOPIC = "tl.public.t"
BIG = "(SELECT string_agg(md5(i::text || '{0}'), '') FROM generate_series(1, 1000) i)"
BIN = "(SELECT decode(string_agg(md5(i::text || '{0}'), ''), 'hex') FROM generate_series(1, 1000) i)"

# the events, in source order: 0 the snapshot's read (A), 1 the TOAST columns set (B), 2 `rev` only (placeholders),
# 3 the TOAST columns set again (C), 4 `rev` only; 5 a delete, 6 the key inserted again (D), 7 `rev` only
ORDERS = {
    "late update after a table fill": [[0], [2], [1]],
    "late update after an in-batch fill": [[0, 2], [1]],
    "base image and update both late": [[2], [0], [1]],
    "update late behind two placeholders": [[0], [4], [2], [1], [3]],
    "late update older than the filled value's source": [[0, 1, 2], [3], [4], [1]],
    "re-insert late after a delete": [[0, 1, 2, 3, 4, 5], [7], [6]],
}


@pytest.fixture(scope="module")
def recorded(tmp_path_factory):
    """The records of the workload, the table's rows after events 2, 4 and 7, and the TOAST values of
    `BIG`/`BIN` by letter (a-d)."""
    tmp = tmp_path_factory.mktemp("late")
    with PgServer() as pg:
        pg.psql(
            "CREATE TABLE public.t (id int PRIMARY KEY, rev int, big text, bin bytea);\n"
            f"INSERT INTO public.t VALUES (1, 0, {BIG.format('a')}, {BIN.format('a')});"
        )
        props = pg.connector_properties(**{"topic.prefix": "tl", "table.include.list": "public.t"})
        emu = EmulatorProcess(props, tmp).start()
        n = lambda rs: sum(1 for r in rs if r["topic"] == TOPIC)  # noqa: E731
        wants = {}
        try:
            emu.wait_for(lambda rs: n(rs) >= 1, 120, "snapshot")
            pg.psql(
                f"UPDATE public.t SET rev = 1, big = {BIG.format('b')}, bin = {BIN.format('b')};\n"
                "UPDATE public.t SET rev = 2;"
            )
            with pg.connect() as c:
                wants[2] = c.execute("SELECT id, rev, big, bin FROM public.t").fetchall()
            pg.psql(
                f"UPDATE public.t SET rev = 3, big = {BIG.format('c')}, bin = {BIN.format('c')};\n"
                "UPDATE public.t SET rev = 4;"
            )
            with pg.connect() as c:
                wants[4] = c.execute("SELECT id, rev, big, bin FROM public.t").fetchall()
            pg.psql(
                "DELETE FROM public.t;\n"
                f"INSERT INTO public.t VALUES (1, 5, {BIG.format('d')}, {BIN.format('d')});\n"
                "UPDATE public.t SET rev = 6;"
            )
            with pg.connect() as c:
                wants[7] = c.execute("SELECT id, rev, big, bin FROM public.t").fetchall()
            with pg.connect() as c:
                for x in "abcd":
                    wants[x] = c.execute(f"SELECT {BIG.format(x)}, {BIN.format(x)}").fetchone()
            emu.wait_for(lambda rs: n(rs) >= 9, 120, "stream")  # 4 updates, delete, tombstone, create, update
            emu.stop()
        finally:
            emu.kill()
    evs = [r for r in emu.records() if r["topic"] == TOPIC and r["value"] is not None]
    ops = [r["value"]["payload"]["op"] for r in evs]
    assert ops == ["r", "u", "u", "u", "u", "d", "c", "u"], ops
    assert "__debezium_unavailable_value" in json.dumps(evs[2]["value"]["payload"]["after"])
    return evs, wants


def _want(wants, order):
    last = max(i for part in order for i in part)
    return [
        (i, r, b, bytes(x)) for i, r, b, x in wants[min(x for x in wants if isinstance(x, int) and x >= last)]
    ]


@pytest.mark.parametrize("name", list(ORDERS))
def test_a_late_event_gives_the_value_a_placeholder_stands_for(tmp_path, recorded, name):
    evs, wants = recorded
    for bid, part in enumerate(ORDERS[name]):
        rows = [(TOPIC, evs[i]["key"], evs[i]["value"], ("f", i), evs[i].get("headers")) for i in part]
        apply_batch(str(tmp_path / "m"), rows, "app", bid)
    got = [
        (r["id"], r["rev"], r["big"], r["bin"]) for r in read_arrow(str(tmp_path / "m" / TOPIC)).to_pylist()
    ]
    assert got == _want(wants, ORDERS[name]), json.dumps([g[:3] for g in got], default=str)[:300]


@pytest.mark.parametrize("name", list(ORDERS))
def test_a_late_event_gives_the_value_through_spark(tmp_path, recorded, spark, name):
    """The same orders as arrivals of `sink run --once` (one run per arrival, one checkpoint): the batches
    with placeholders take the executors' path, the late event's batch (no placeholder) the one pass."""
    from sink.batch import Options
    from sink.job import run

    evs, wants = recorded
    src = tmp_path / "src"
    src.mkdir()
    quiet = {"log": lambda *a, **k: None}
    for part in ORDERS[name]:
        with open(src / f"{TOPIC}.jsonl", "a") as fh:
            for i in part:
                fh.write(json.dumps({k: evs[i].get(k) for k in ("key", "value", "headers")}) + "\n")
        rc = run(
            str(src),
            str(tmp_path / "tables"),
            str(tmp_path / "ck"),
            True,
            spark=spark,
            opts=Options(),
            **quiet,
        )
        assert rc == 0
    t = read_arrow(str(tmp_path / "tables" / TOPIC))
    got = [(r["id"], r["rev"], r["big"], r["bin"]) for r in t.to_pylist()]
    assert got == _want(wants, ORDERS[name]), json.dumps([g[:3] for g in got], default=str)[:300]


REV_LETTER = {
    0: "a",
    1: "b",
    2: "b",
    3: "c",
    4: "c",
    5: "d",
    6: "d",
}  # the values each `rev` was written with


@pytest.mark.parametrize("name", list(ORDERS))
def test_scd2_versions_after_a_late_event_hold_its_value(tmp_path, recorded, name):
    """`--scd 2`: every version holds the TOAST values the row had then, whatever order the versions came in
    (a version whose placeholder took an older version's value is written again when the version between
    them arrives)."""
    from sink.batch import Options

    evs, wants = recorded
    for bid, part in enumerate(ORDERS[name]):
        rows = [(TOPIC, evs[i]["key"], evs[i]["value"], ("f", i), evs[i].get("headers")) for i in part]
        apply_batch(str(tmp_path / "h"), rows, "app", bid, Options(scd=2))
    got = sorted((r["rev"], r["big"], r["bin"]) for r in read_arrow(str(tmp_path / "h" / TOPIC)).to_pylist())
    delivered = sorted(
        {evs[i]["value"]["payload"]["after"]["rev"] for p in ORDERS[name] for i in p if i != 5}
    )
    want = [(r, wants[REV_LETTER[r]][0], bytes(wants[REV_LETTER[r]][1])) for r in delivered]
    bad = [(g[0], w[1][:8], (g[1] or "")[:8]) for g, w in zip(got, want) if g != w]
    assert len(got) == len(want) and not bad, bad
