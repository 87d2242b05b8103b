"""Doubles printed the way Jackson (Java's Double.toString) prints them inside JsonConverter output.

Java switches to scientific notation outside [1e-3, 1e7) and writes `1.0E7`, `1.5E-4`, `-2.5E300`, where
orjson would write `10000000.0` or `1e16`. Inside the range both print the shortest round-trip digits with
at least one fractional digit, so only the outliers need help: they are pre-rendered as an
`orjson.Fragment` that orjson copies verbatim. NaN and the infinities become strings, as Debezium's
records show.
"""

from __future__ import annotations

from decimal import Decimal
from typing import Any

import orjson

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
    return orjson.Fragment(_scientific(f).encode())


def _scientific(f: float) -> str:
    sign, digits, exp = Decimal(repr(f)).as_tuple()
    ds = "".join(map(str, digits)).rstrip("0") or "0"
    # value = 0.d1d2... * 10^(exp + len(digits)); Java: d1.d2... E (position - 1)
    e10 = exp + len(digits) - 1
    mantissa = ds[0] + "." + (ds[1:] or "0")
    return ("-" if sign else "") + f"{mantissa}E{e10}"
