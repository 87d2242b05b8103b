"""Doubles printed the way Jackson (Java's Double.toString) prints them inside JsonConverter output.

Java switches to scientific notation outside [1e-3, 1e7) and writes `1.0E7`, `1.5E-4`, `-2.5E300`, where
orjson would write `10000000.0` or `1e16`. Inside the range both print the shortest round-trip digits with
at least one fractional digit (JDK 17's digits are the shortest there too, see `javatext.double_text`), so
only the outliers need help: they are pre-rendered (`javatext.double_text` / `float_text`, JDK 17's digits,
which are not always the shortest in E-form) as an `orjson.Fragment` that orjson copies verbatim. NaN and
the infinities become strings, as Debezium's records show.
"""

from __future__ import annotations

from typing import Any

import orjson

from emulator.connect.javatext import double_text, float_text

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


def java_float_outlier(f: float) -> Any:
    """A float32 value (in a Python float) outside [1e-3, 1e7) or zero, as Jackson prints the Java float:
    JDK 17's Float.toString text (e.g. `1.17549435E-38`, one digit longer than the shortest)."""
    if f != f:
        return "NaN"
    if f == _INF:
        return "Infinity"
    if f == -_INF:
        return "-Infinity"
    if f == 0.0:
        return f
    return orjson.Fragment(float_text(f).encode())
