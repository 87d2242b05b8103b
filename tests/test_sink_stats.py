"""The readers' survey counts (`sink.stats`): the substring tests answered from one search of a column's data
buffer give what a test of each value gives, including values outside a sliced array (whose bytes are still
in the buffer) and nulls. Expected values from Python's `in` on each value."""

from __future__ import annotations

import pyarrow as pa
import pytest

from sink.stats import PH_B64, TRUNCATE, haystack, matches
from sink.types import PLACEHOLDER

VALUES = [
    '{"before":null,"after":{"id":1,"v":"x"},"op":"c"}',
    None,
    '{"before":null,"after":{"id":2,"v":"' + PLACEHOLDER + '"},"op":"u"}',
    '{"source":{},"op":"t"}',
    '{"after":{"b":"' + PH_B64 + '=="},"op":"u"}',
    "",
]


@pytest.mark.parametrize("needle", [PLACEHOLDER, PH_B64, TRUNCATE, "absent"])
@pytest.mark.parametrize("lo,hi", [(0, 6), (0, 2), (4, 6), (1, 2), (5, 6), (0, 0)])
def test_matches_is_a_test_of_each_value(needle, lo, hi):
    col = pa.array(VALUES, pa.string()).slice(lo, hi - lo)
    want = [v is not None and needle in v for v in VALUES[lo:hi]]
    got = [bool(x) for x in matches(col, needle).to_pylist()]  # null (a null value) counts as no match
    assert got == want
    # the survey's form: one haystack per column, shared by its needles
    shared = [bool(x) for x in matches(col, needle, haystack(col)).to_pylist()]
    assert shared == want


def test_matches_on_a_column_of_nulls():
    col = pa.nulls(3, pa.string())
    assert [bool(x) for x in matches(col, TRUNCATE).to_pylist()] == [False] * 3
    assert [bool(x) for x in matches(col, TRUNCATE, haystack(col)).to_pylist()] == [False] * 3
