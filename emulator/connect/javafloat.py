"""Doubles printed the way Jackson (Java's Double.toString) prints them inside JsonConverter output.

Java switches to scientific notation outside [1e-3, 1e7) and writes `1.0E7`, `1.5E-4`, `-2.5E300`, where
orjson would write `10000000.0` or `1e16`. Inside the range both print the shortest round-trip digits with
at least one fractional digit, so only the outliers need help: they are pre-rendered (`javatext.double_text`)
as an `orjson.Fragment` that orjson copies verbatim. NaN and the infinities become strings, as Debezium's
records show.
"""

from __future__ import annotations

from typing import Any

import orjson

from emulator.connect.javatext import double_text

_INF = float("inf")


def java_double(f: float) -> Any:
    if f != f:
        return "NaN"
    if f == _INF:
        return "Infinity"
    if f == -_INF:
        return "-Infinity"
    a = abs(f)
    if a == 0.0 or 1e-3 <= a < 1e7:
        return f
    return orjson.Fragment(double_text(f).encode())
