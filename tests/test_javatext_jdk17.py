"""Float/Double.toString as the JDK 17 JVM prints them (the Debezium recordings run on Java 17).

Expected texts come from the JVM: tests/data/javatext/*.tsv were printed by
scripts/javatext/JavaNumberText.java on OpenJDK 17.0.15 (bit pattern -> toString): edge cases (powers of
two and ten with neighbours, subnormals, small integers and halves, min/max), values whose JDK 17 digits
differ from the shortest round-trip digits, and plain random values.
"""

from __future__ import annotations

import struct
from pathlib import Path

import pytest

from emulator.connect.javafloat import java_double, java_float_outlier
from emulator.connect.javatext import double_text, float_text
from emulator.connect.jdk17_dtoa import double_bits_text, float_bits_text

DATA = Path(__file__).parent / "data" / "javatext"


def _rows(name: str) -> list[tuple[int, str]]:
    return [(int(h, 16), t) for h, t in (line.split("\t") for line in (DATA / name).read_text().splitlines())]


def _mismatches(rows, fn):
    return [(hex(b), want, got) for b, want in rows if (got := fn(b)) != want]


def test_float_bits_match_jdk17():
    rows = _rows("jdk17_float.tsv")
    assert len(rows) == 5000
    assert _mismatches(rows, float_bits_text) == []


def test_double_bits_match_jdk17():
    rows = _rows("jdk17_double.tsv")
    assert len(rows) == 5000
    assert _mismatches(rows, double_bits_text) == []


def test_float_text_matches_jdk17():
    """The public entry point: shortest digits inside [1e-3, 1e7), the port outside."""

    def via_value(b: int) -> str:
        return float_text(struct.unpack("<f", struct.pack("<I", b))[0])

    assert _mismatches(_rows("jdk17_float.tsv"), via_value) == []


def test_double_text_matches_jdk17():
    def via_value(b: int) -> str:
        return double_text(struct.unpack("<d", struct.pack("<Q", b))[0])

    assert _mismatches(_rows("jdk17_double.tsv"), via_value) == []


@pytest.mark.parametrize(
    ("value", "text"),
    [  # printed by `java` 17.0.15 (Float.toString / Double.toString)
        (-1.17549435e-38, "-1.17549435E-38"),  # the shortest is -1.1754944E-38
        (3.4028234663852886e38, "3.4028235E38"),
        (1.401298464324817e-45, "1.4E-45"),
        (1.0e10, "1.0E10"),
    ],
)
def test_float_examples(value, text):
    assert float_text(value) == text


@pytest.mark.parametrize(
    ("value", "text"),
    [
        (2.0e23, "1.9999999999999998E23"),  # the shortest is 2.0E23
        (5e-324, "4.9E-324"),
        (1.0e-5, "1.0E-5"),
        (9007199254740993.0, "9.007199254740992E15"),
        (1.0e7, "1.0E7"),
        (-0.0, "-0.0"),
        (float("nan"), "NaN"),
        (float("-inf"), "-Infinity"),
    ],
)
def test_double_examples(value, text):
    assert double_text(value) == text


def test_json_values_carry_jdk17_text():
    import orjson

    assert orjson.dumps(java_float_outlier(-1.1754943508222875e-38)) == b"-1.17549435E-38"
    assert orjson.dumps(java_double(2.0e23)) == b"1.9999999999999998E23"
    assert java_float_outlier(float("nan")) == "NaN"
