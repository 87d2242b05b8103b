"""Java's `toString` of the values converters print as text: Double/Float, BigDecimal, java.util.Date.

Kafka's converters print numbers through Jackson or `String.valueOf`, i.e. Java's `Double.toString` /
`Float.toString` (shortest round-trip digits, scientific outside [1e-3, 1e7), `NaN`, `Infinity`) and
`BigDecimal.toString` (Python's `Decimal.__str__` follows the same rule: scientific once the adjusted
exponent is below -6 or the scale is negative).
"""

from __future__ import annotations

import datetime as dt
import struct
from decimal import MAX_EMAX, MAX_PREC, MIN_EMIN, Context, Decimal

_INF = float("inf")
# Decimal arithmetic without rounding: the default context keeps 28 digits, and PostgreSQL's numeric(38, s)
# (or wider) values must come through exactly
EXACT = Context(prec=MAX_PREC, Emax=MAX_EMAX, Emin=MIN_EMIN)
_EPOCH = dt.datetime(1970, 1, 1, tzinfo=dt.UTC)
MILLIS_PER_DAY = 86_400_000


def _java_text(sign: bool, digits: str, exp10: int) -> str:
    """digits d1d2...dn (no leading zeros) times 10^(exp10 - n + 1): Java's rendering."""
    digits = digits.rstrip("0") or "0"
    if -3 <= exp10 < 7:
        if exp10 >= 0:
            intpart = digits[: exp10 + 1].ljust(exp10 + 1, "0")
            frac = digits[exp10 + 1 :] or "0"
        else:
            intpart = "0"
            frac = "0" * (-exp10 - 1) + digits
        text = f"{intpart}.{frac}"
    else:
        text = f"{digits[0]}.{digits[1:] or '0'}E{exp10}"
    return "-" + text if sign else text


def _from_repr(r: str) -> str:
    sign, digits, exp = Decimal(r).as_tuple()
    ds = "".join(map(str, digits))
    stripped = ds.lstrip("0")
    if not stripped:
        return "-0.0" if sign else "0.0"
    return _java_text(bool(sign), stripped, exp + len(ds) - 1)


def double_text(f: float) -> str:
    """`Double.toString(f)`."""
    if f != f:
        return "NaN"
    if f == _INF:
        return "Infinity"
    if f == -_INF:
        return "-Infinity"
    if f == 0.0:
        return "-0.0" if str(f).startswith("-") else "0.0"
    return _from_repr(repr(f))


def _f32(x: float) -> float:
    return struct.unpack("<f", struct.pack("<f", x))[0]


def float_text(f: float) -> str:
    """`Float.toString(f)` for a float32 value held in a Python float (shortest float32 digits)."""
    if f != f:
        return "NaN"
    if f in (_INF, -_INF):
        return "Infinity" if f > 0 else "-Infinity"
    if f == 0.0:
        return "-0.0" if str(f).startswith("-") else "0.0"
    target = _f32(f)
    r = repr(target)
    for p in range(0, 9):
        cand = f"{target:.{p}e}"
        try:
            if _f32(float(cand)) == target:
                r = cand
                break
        except OverflowError:
            continue
    return _from_repr(r)


def decimal_text(d: Decimal) -> str:
    """`BigDecimal.toString()`."""
    return str(d)


def date_text(millis: int) -> str:
    """`Values.dateFormatFor`: time of day below one day, a date on a day boundary, else a timestamp (UTC)."""
    when = _EPOCH + dt.timedelta(milliseconds=millis)
    ms = f"{when.microsecond // 1000:03d}"
    if millis < MILLIS_PER_DAY and millis >= 0:
        return when.strftime("%H:%M:%S.") + ms + "Z"
    if millis % MILLIS_PER_DAY == 0:
        return _year(when) + when.strftime("-%m-%d")
    return _year(when) + when.strftime("-%m-%dT%H:%M:%S.") + ms + "Z"


def _year(when: dt.datetime) -> str:
    return f"{when.year:04d}"


_DAYS = ("Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun")
_MONTHS = ("Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec")


def util_date_text(millis: int) -> str:
    """`java.util.Date.toString()` in UTC: `Thu Jan 01 00:00:00 UTC 1970`."""
    when = _EPOCH + dt.timedelta(milliseconds=millis)
    return (
        f"{_DAYS[when.weekday()]} {_MONTHS[when.month - 1]} {when.day:02d} "
        f"{when.strftime('%H:%M:%S')} UTC {when.year}"
    )


def unscaled_bytes(value: Decimal, scale: int) -> bytes:
    """Connect `Decimal.fromLogical`: the unscaled value's big-endian two's complement, minimal length
    (`BigInteger.toByteArray`)."""
    n = int(value.scaleb(scale, EXACT))
    length = ((n if n >= 0 else ~n).bit_length() // 8) + 1
    return n.to_bytes(length, "big", signed=True)
