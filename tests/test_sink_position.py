"""The source position on executors (`sink.position_expr.position`): the struct of longs the winners stage orders
by, and the text made from it for the winners, are `sink.position.seq`'s (the driver path's, the delete
log's) for every connector, and order events as that text does. Expected texts written by hand."""

from __future__ import annotations

import pytest

pytest.importorskip("pyspark", reason="pyspark not installed (pip install -e '.[sink]')")

from pyspark.sql import functions as F  # noqa: E402

from sink import position as driver  # noqa: E402
from sink.position_expr import position, seq_expr  # noqa: E402
from tests.sink_checks import spark_fixture  # noqa: E402,F401

SOURCE = (
    "op string, source struct<connector string, sequence string, lsn long, file string, pos long, row int, "
    "ord int, ts_ms long, ts_ns long>"
)

# (connector, op, source fields, the position's text)
CASES = [
    (
        "postgresql",
        "u",
        {"sequence": '["24023928","24023992"]', "lsn": 24023992},
        "00000000016e937800000000016e93b81",
    ),
    (
        "postgresql",
        "r",
        {"sequence": '[null,"24023992"]', "lsn": 24023992},
        "000000000000000000000000016e93b80",
    ),
    ("postgresql", "c", {"sequence": None, "lsn": 255}, "000000000000000000000000000000ff1"),
    ("postgresql", "c", {"sequence": "", "lsn": 256}, "000000000000000000000000000001001"),
    ("mysql", "u", {"file": "mysql-bin.000003", "pos": 1234, "row": 2}, "0000000300000000000004d2100000002"),
    ("mariadb", "r", {"file": "m.000010", "pos": 4, "row": 0}, "0000000a0000000000000004000000000"),
    ("mongodb", "c", {"ts_ms": 1700000000, "ord": 7}, "000000006553f100000000071"),
]


def _rows(cases):
    fields = ("connector", "sequence", "lsn", "file", "pos", "row", "ord", "ts_ms", "ts_ns")
    return [
        (op, tuple(conn if f == "connector" else src.get(f) for f in fields)) for conn, op, src, _ in cases
    ]


@pytest.mark.parametrize("connector", ["postgresql", "mysql", "mongodb"])
def test_position_text_is_the_driver_paths(spark, connector):
    cases = [c for c in CASES if c[0] == connector or (connector == "mysql" and c[0] == "mariadb")]
    df = spark.createDataFrame(_rows(cases), SOURCE)
    order, text = position(F.col("source"), F.col("op"), connector)
    got = df.select(
        text(order).alias("t"), seq_expr(F.col("source"), F.col("op")).alias("any"), order.alias("o")
    ).collect()
    for (conn, op, src, want), r in zip(cases, got):
        assert r.t == want and r.any == want, (conn, src)
        assert driver.seq({"connector": conn, **src}, op) == want
    # the struct orders as the text does
    by_struct = [r.t for r in sorted(got, key=lambda r: tuple(r.o))]
    assert by_struct == sorted(r.t for r in got)
