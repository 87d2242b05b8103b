"""interval text -> MicroDuration (pgjdbc `PGInterval` parsing, Debezium's double arithmetic) or ISO text."""

from __future__ import annotations

import math
import re
import struct as _struct
from decimal import ROUND_DOWN, Decimal

from emulator.connectors.postgres.types.encoders import INF

_DAYS_PER_MONTH_AVG = 365.25 / 12.0
INT_RE = re.compile(r"[+-]?\d+\Z")


def _java_int(s: str | None) -> int:
    if s is None:
        return 0  # nullSafeIntGet
    if not INT_RE.match(s):
        raise ValueError(f"not an int: {s!r}")
    return int(s)


_JAVA_DOUBLE_RE = re.compile(r"[+-]?(?:NaN|Infinity|(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?)[fFdD]?\Z")


def parse_java_double(s: str | None) -> float:
    """Double.parseDouble (decimal forms; hex floats are not supported)."""
    if s is None:
        return 0.0
    s = s.strip()
    if not _JAVA_DOUBLE_RE.match(s):
        raise ValueError(f"not a double: {s!r}")
    if s[-1] in "fFdD":
        s = s[:-1]
    return float(s)


def parse_java_float(s: str) -> float:
    """Float.parseFloat, returned as the double whose shortest repr is Float.toString's digits."""
    x = parse_java_double(s)
    if x != x or x in (INF, -INF):
        return x
    try:
        f = _F32.unpack(_F32.pack(x))[0]
    except OverflowError:
        return INF if x > 0 else -INF
    for p in range(1, 10):
        c = float(f"{f:.{p}g}")
        try:  # (near Float.MAX_VALUE a shorter candidate rounds up past it: 3.403e38 for 3.4028235e38)
            if _F32.unpack(_F32.pack(c))[0] == f:
                return c
        except OverflowError:
            continue
    return f


_F32 = _struct.Struct("<f")


# IntervalStyle "postgres" output, e.g. "-1 years -2 mons +3 days -04:05:06.789"
_PG_INTERVAL = re.compile(
    r"(?:([+-]?\d+) years? ?)?(?:([+-]?\d+) mons? ?)?(?:([+-]?\d+) days? ?)?"
    r"(?:([+-]?)(\d+):(\d\d):(\d\d(?:\.\d+)?))?\Z"
)


def _interval_fields(t: str) -> tuple[int, int, int, int, int, float]:
    """(years, months, days, hours, minutes, seconds) as PGInterval.getXxx() return them."""
    m = _PG_INTERVAL.match(t)
    if m is not None:
        y, mo, d, sign, hh, mi, ss = m.groups()
        if hh is None:
            return int(y or 0), int(mo or 0), int(d or 0), 0, 0, 0.0
        if sign == "-":
            return int(y or 0), int(mo or 0), int(d or 0), -int(hh), -int(mi), _pginterval_seconds(-float(ss))
        return int(y or 0), int(mo or 0), int(d or 0), int(hh), int(mi), _pginterval_seconds(float(ss))
    return _interval_fields_tokenized(t)


def _interval_fields_tokenized(t: str) -> tuple[int, int, int, int, int, float]:
    """PGInterval.setValue's tokenizer (postgres and postgres_verbose styles, ISO 8601)."""
    years = months = days = hours = minutes = 0
    seconds = 0.0
    if t.startswith("P"):
        return _iso_interval_fields(t)
    verbose = t.startswith("@")
    value_token = None
    tokens = t.replace("+", " ").replace("@", " ").lower().split()
    for i, token in enumerate(tokens, 1):
        if i & 1:
            end_hours = token.find(":")
            if end_hours == -1:
                value_token = token
                continue
            offset = 1 if token[0] == "-" else 0
            hours = _java_int(token[offset:end_hours])
            minutes = _java_int(token[end_hours + 1 : end_hours + 3])
            end_minutes = token.find(":", end_hours + 1)
            if end_minutes != -1:
                seconds = parse_java_double(token[end_minutes + 1 :])
            if offset == 1:
                hours, minutes, seconds = -hours, -minutes, -seconds
            value_token = None
        else:
            if token.startswith("year"):
                years = _java_int(value_token)
            elif token.startswith("mon"):
                months = _java_int(value_token)
            elif token.startswith("day"):
                days = _java_int(value_token)
            elif token.startswith("hour"):
                hours = _java_int(value_token)
            elif token.startswith("min"):
                minutes = _java_int(value_token)
            elif token.startswith("sec"):
                seconds = parse_java_double(value_token)
    if verbose and t.endswith("ago"):
        years, months, days, hours, minutes, seconds = -years, -months, -days, -hours, -minutes, -seconds
    return years, months, days, hours, minutes, _pginterval_seconds(seconds)


_ISO_PART = re.compile(r"(-?[\d.]+)([YMDHS])")


def _iso_interval_fields(t: str) -> tuple[int, int, int, int, int, float]:
    years = months = days = hours = minutes = 0
    seconds = 0.0
    date_part, _, time_part = t[1:].partition("T")
    for num, unit in _ISO_PART.findall(date_part):
        if unit == "Y":
            years = int(num)
        elif unit == "M":
            months = int(num)
        elif unit == "D":
            days = int(num)
    for num, unit in _ISO_PART.findall(time_part):
        if unit == "H":
            hours = int(num)
        elif unit == "M":
            minutes = int(num)
        elif unit == "S":
            seconds = float(num)
    return years, months, days, hours, minutes, _pginterval_seconds(seconds)


def _pginterval_seconds(seconds: float) -> float:
    """PGInterval.setSeconds then getSeconds: Math.round to micros, whole + micros / 1e6 in double."""
    total = math.floor(seconds * 1_000_000 + 0.5)  # Math.round
    q = abs(total) // 1_000_000
    whole = q if total >= 0 else -q  # long division truncates toward zero
    micros = total - whole * 1_000_000
    return whole + micros / 1_000_000


def interval_micros(t: str) -> int:
    y, mo, d, h, mi, s = _interval_fields(t)
    ym = ((y * 12 + mo + 0x80000000) & 0xFFFFFFFF) - 0x80000000  # Java int arithmetic
    number_of_days = ym * _DAYS_PER_MONTH_AVG + d
    number_of_seconds = (((number_of_days * 24 + h) * 60) + mi) * 60 + s
    x = number_of_seconds * 1e6
    if x != x:
        return 0
    if x >= 9.223372036854775807e18:  # Java (long) of a double saturates
        return 9223372036854775807
    if x <= -9.223372036854775808e18:
        return -9223372036854775808
    return int(x)


def interval_iso(t: str) -> str:
    y, mo, d, h, mi, s = _interval_fields(t)
    return f"P{y}Y{mo}M{d}DT{h}H{mi}M{_java_seconds_str(s)}S"


def _java_seconds_str(s: float) -> str:
    """BigDecimal.valueOf(s), truncated to 6 decimals, stripTrailingZeros().toPlainString()."""
    if s == 0:
        return "0"
    d = Decimal(repr(s))
    if d.as_tuple().exponent < -6:
        d = d.quantize(Decimal("0.000001"), rounding=ROUND_DOWN)
    if d == 0:
        return "0"
    return format(d.normalize(), "f")
