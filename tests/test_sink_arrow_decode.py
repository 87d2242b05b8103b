"""The winners' Decimal columns decoded from Arrow on the driver (`sink.arrow_decode`) against Python's reading of
the same base64 big-endian two's complement bytes (`int.from_bytes(..., signed=True)`, as `sink.types.decoder`
reads them): every byte width 1-8 with both signs, zero, null, sliced and chunked arrays, and values that do
not fit failing loudly."""

from __future__ import annotations

import base64
import random
from decimal import Decimal

import pyarrow as pa
import pytest
from sink_checks import spark_fixture  # noqa: F401

from sink.arrow_decode import DecimalError, decimals


def b64(v: int) -> str:
    return base64.b64encode(v.to_bytes((v + (v < 0)).bit_length() // 8 + 1, "big", signed=True)).decode()


def python_reading(texts: list, scale: int) -> list:
    return [
        None if t is None else Decimal(int.from_bytes(base64.b64decode(t), "big", signed=True)).scaleb(-scale)
        for t in texts
    ]


def _values() -> list[int]:
    rng = random.Random(7)
    edges = [0, 1, -1, 127, 128, -128, -129, 255, 256, -32768, 32767, 32768]
    edges += [s * (2**k + d) for k in range(8, 60, 8) for d in (-1, 0, 1) for s in (1, -1)]
    edges += [10**18 - 1, -(10**18 - 1)]
    return edges + [rng.randint(-(10**18 - 1), 10**18 - 1) for _ in range(2000)] + list(range(-400, 400, 3))


@pytest.mark.parametrize("prec,scale", [(18, 0), (18, 4), (12, 2), (3, 3), (1, 0)])
def test_decimals_read_as_python_reads_them(prec, scale):
    texts = [b64(v) for v in _values() if abs(v) < 10**prec] + [None, ""]
    want = python_reading(texts, scale)
    got = decimals(pa.array(texts), prec, scale)
    assert got.type == pa.decimal128(prec, scale)
    assert got.to_pylist() == want
    assert got.null_count == 1
    # a slice (non-zero offset) and a chunked column, as `toArrow` may give
    assert decimals(pa.array(texts)[7:], prec, scale).to_pylist() == want[7:]
    half = len(texts) // 2
    chunked = pa.chunked_array([pa.array(texts[:half], pa.string()), pa.array(texts[half:], pa.string())])
    assert decimals(chunked, prec, scale).to_pylist() == want


def test_every_byte_width_has_both_signs():
    top = 10**18 - 1  # 8 bytes hold more than 18 digits: the widest values that fit
    texts = [
        b64(v) for w in range(1, 9) for v in (min(2 ** (8 * w - 1) - 1, top), max(-(2 ** (8 * w - 1)), -top))
    ]
    assert {len(base64.b64decode(t)) for t in texts} == set(range(1, 9))
    assert decimals(pa.array(texts), 18, 0).to_pylist() == python_reading(texts, 0)


@pytest.mark.parametrize(
    "text,prec",
    [
        (b64(10**18), 18),  # 19 digits
        (b64(1000), 3),  # 4 digits for a precision of 3
        (b64(2**70), 18),  # 9 bytes
        ("abc", 18),  # not base64 of whole bytes
        ("a$==", 18),  # not the base64 alphabet
    ],
)
def test_values_that_do_not_fit_fail_loudly(text, prec):
    with pytest.raises(DecimalError):
        decimals(pa.array(["AQ==", text]), prec, 0)


def test_position_texts_are_the_executors_expression(spark):
    """`seq_texts` (the winners' position text made on the driver) against the expression that made it on
    executors (`sink.position_expr.text_of`, Spark's hex/translate/lpad), per connector's part widths: zero,
    in-range values, values wider than their part (lpad keeps the first characters), negatives (two's
    complement), and a null struct (a key without a delete)."""
    from pyspark.sql import functions as F

    from sink.arrow_decode import position_field, seq_texts
    from sink.position_expr import WIDTHS, text_of

    rng = random.Random(11)
    special = [0, 1, 9, 10, 15, 16, 255, 2**31, 2**32 - 1, 2**32, 2**40 + 5, 2**63 - 1, -1, -(2**63), -42]
    for conn, widths in WIDTHS.items():
        rows = [tuple(rng.choice(special) for _ in widths) for _ in range(60)]
        rows += [tuple(rng.randint(0, min(16**w, 2**63) - 1) for w in widths) for _ in range(200)]
        rows += [tuple(rng.randint(-(2**63), 2**63 - 1) for _ in widths) for _ in range(100)]
        cols = ", ".join(f"o{i} long" for i in range(len(widths)))
        df = spark.createDataFrame(rows + [tuple(None for _ in widths)], cols)
        o = F.struct(*(F.col(f"o{i}") for i in range(len(widths))))
        null = F.col("o0").isNull()
        parts = F.struct(*(F.col(f"o{i}").alias(position_field(i, w)) for i, w in enumerate(widths)))
        got = df.select(
            F.when(null, F.lit(None)).otherwise(text_of(widths)(o)).alias("want"),
            F.when(null, F.lit(None)).otherwise(parts).alias("parts"),
        ).toArrow()
        want = got["want"].to_pylist()
        assert want[-1] is None and all(len(x) == sum(widths) for x in want[:-1]), conn
        assert seq_texts(got["parts"]).to_pylist() == want, conn
        assert seq_texts(got["parts"].combine_chunks()[5:]).to_pylist() == want[5:], conn
