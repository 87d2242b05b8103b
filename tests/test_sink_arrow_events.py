"""SCD type 2 and keyless events' images parsed on the driver (`sink.arrow_json.images`, through
`sink.executors.events`) against the Spark expressions they replace (`from_json` with the physical schema,
then `sink.decode.convert`, per event): the same rows, before images and metadata for keyed and keyless
tables, on the records of `test_sink_arrow_json` (every type the driver reads, nulls, escapes, unicode,
NaN/infinities, PostgreSQL's infinities, deletes) and TOAST placeholders; a text it does not read exactly
(a ZonedTimestamp with an offset, a placeholder in a Decimal column) takes the expressions."""

from __future__ import annotations

import base64

import orjson
import pytest
from sink_checks import spark_fixture  # noqa: F401
from test_sink_arrow_json import AFTERS, AFTERS2, KEY, KEY2, VALUE, VALUE2

from sink import executors as X
from sink.plan import Fp, TopicPlan

PH = "__debezium_unavailable_value"
SOURCE = {
    "type": "struct",
    "name": "io.debezium.connector.postgresql.Source",
    "fields": [],
    "field": "source",
}


def _value(v: dict) -> dict:
    return {**v, "fields": [SOURCE if f["field"] == "source" else f for f in v["fields"]]}


def _df(spark, events: list[tuple[str, str | None, str | None]]):
    """One topic, one schema group: (op, before, after) payload texts in delivery order."""
    rows = []
    for i, (op, before, after) in enumerate(events):
        img = after or before
        key = orjson.loads(img)["id"]
        n = 100 + i
        src = f'{{"connector":"postgresql","lsn":{n},"sequence":"[null,\\"{n}\\"]"}}'
        vp = f'{{"before":{before or "null"},"after":{after or "null"},"source":{src},"op":"{op}","ts_ms":{1000 + i}}}'
        rows.append(("t", 0, i, orjson.dumps({"id": key}).decode(), 7, vp, None))
    return spark.createDataFrame(
        rows, "topic string, part int, pos long, kp string, vfp long, vp string, hdr string"
    )


def _compare(spark, key, value, events, keyless):
    g = Fp(
        None if keyless else 1, 7, None if keyless else key, _value(value), len(events), False, False, (0, 0)
    )
    tp = TopicPlan("t", [g], events=True)
    df = _df(spark, events)
    got = X.events(df, tp, g, keyless)
    read = X.events_read
    X.events_read = lambda *a, **k: None
    try:
        want = X.events(df, tp, g, keyless)
    finally:
        X.events_read = read
    assert got.column_names == want.column_names
    assert repr(got.to_pylist()) == repr(want.to_pylist())  # repr: NaN equals NaN, -0.0 is not 0.0
    assert got.schema == want.schema
    return got


def events(afters: list[str]) -> list[tuple[str, str | None, str | None]]:
    """Each text inserted; every other row then updated to the next text's values under its own key; the
    last one deleted."""
    out = [("c" if i % 2 else "r", None, a) for i, a in enumerate(afters)]
    for i in range(0, len(afters) - 1, 2):
        nxt = afters[i + 1]
        old, new = orjson.loads(nxt)["id"], orjson.loads(afters[i])["id"]
        out.append(("u", afters[i], nxt.replace(f'"id":{old}', f'"id":{new}', 1)))
    out.append(("d", afters[-1], None))
    return out


@pytest.mark.parametrize("keyless", [False, True])
def test_events_read_on_the_driver_are_the_expressions(spark, keyless):
    _compare(spark, KEY, VALUE, events(AFTERS), keyless)
    _compare(spark, KEY2, VALUE2, events(AFTERS2), keyless)


def test_toast_placeholders_in_events_are_kept(spark):
    raw = base64.b64encode(PH.encode()).decode()
    ph = f'{{"id":1,"f32":1.5,"d":2.5,"z":"2024-01-15T10:00:00Z","raw":"{raw}","as":["{PH}"],"ai":[1]}}'
    t = _compare(spark, KEY2, VALUE2, [("r", None, AFTERS2[0]), ("u", AFTERS2[0], ph)], False)
    row = t.column("row").to_pylist()[1]
    assert (row["raw"], row["as"]) == (PH.encode(), [PH])


@pytest.mark.parametrize(
    "bad,value,key,base",
    [
        ('{"id":9,"z":"2024-01-15T10:00:00+02:00"}', VALUE2, KEY2, AFTERS2[3]),
        ('{"id":9,"s":12}', VALUE, KEY, AFTERS[0]),
    ],
)
def test_events_not_read_exactly_take_the_expressions(spark, bad, value, key, base):
    g = Fp(1, 7, key, _value(value), 2, False, False, (0, 0))
    events = [("c", None, base), ("u", None, bad)]
    assert X.events_read(*_read_args(spark, events, g, False)) is None
    assert len(_compare(spark, key, value, events, False)) == 2


def _read_args(spark, events, g, keyless):
    """`events_read`'s arguments as `events` makes them."""
    from pyspark.sql import functions as F

    from sink.position_expr import connector_of, seq_expr

    tp = TopicPlan("t", [g], events=True)
    p = F.from_json("vp", X.STAGE_EV)
    ev = _df(spark, events).select("part", "pos", "kp", "hdr", p.alias("p"))
    op, src = F.col("p.op"), F.col("p.source")
    cols = [
        F.col("part"),
        F.col("pos"),
        op.alias("op"),
        seq_expr(src, op, connector_of([tp])).alias("seq"),
        F.coalesce(F.col("p.ts_ms"), src.getField("ts_ms"), F.lit(0)).alias("ts"),
    ]
    return ev, cols, F.when(op != "d", F.col("p.after")), X.after_fields(g.vschema), keyless, tp
