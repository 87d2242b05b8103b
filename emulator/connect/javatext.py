"""Java's `toString` of the values converters print as text: Double/Float, BigDecimal, java.util.Date.

Kafka's converters print numbers through Jackson or `String.valueOf`, i.e. Java's `Double.toString` /
`Float.toString` (JDK 17's digits, `jdk17_dtoa`: the shortest round-trip digits inside [1e-3, 1e7), not
always outside, where the form is scientific; `NaN`, `Infinity`) and
`BigDecimal.toString` (Python's `Decimal.__str__` follows the same rule: scientific once the adjusted
exponent is below -6 or the scale is negative).
"""

from __future__ import annotations

import struct
from decimal import MAX_EMAX, MAX_PREC, MIN_EMIN, Context, Decimal

from emulator.connect import javacalendar
from emulator.connect.jdk17_dtoa import double_bits_text, float_bits_text

_INF = float("inf")
# Decimal arithmetic without rounding: the default context keeps 28 digits, and PostgreSQL's numeric(38, s)
# (or wider) values must come through exactly
EXACT = Context(prec=MAX_PREC, Emax=MAX_EMAX, Emin=MIN_EMIN)
MILLIS_PER_DAY = 86_400_000


def double_text(f: float) -> str:
    """`Double.toString(f)` as JDK 17 prints it.

    Inside [1e-3, 1e7) JDK 17's digits are the shortest round-trip digits (`repr`): a shortest candidate
    never sits exactly on a half-ULP boundary there, and the loop finds it (checked against the JVM, see
    scripts/javatext/); outside, its E-form digits are sometimes longer, so the port runs."""
    a = abs(f)
    if 1e-3 <= a < 1e7:
        return repr(f)
    return double_bits_text(_U64.unpack(_D64.pack(f))[0])


_D64 = struct.Struct("<d")
_U64 = struct.Struct("<Q")
_F32 = struct.Struct("<f")
_U32 = struct.Struct("<I")


def _f32(x: float) -> float:
    return _F32.unpack(_F32.pack(x))[0]


def shortest_float_text(f: float) -> str:
    """The shortest digits that round-trip as a float32 (Python's repr of the matching double)."""
    target = _f32(f)
    for p in range(0, 9):
        cand = float(f"{target:.{p}e}")
        if _f32(cand) == target:
            return repr(cand)
    return repr(target)


def float_text(f: float) -> str:
    """`Float.toString(f)` as JDK 17 prints it, for a float32 value held in a Python float: the shortest
    float32 digits inside [1e-3, 1e7) (as for doubles), the JDK 17 port outside."""
    if f != f:
        return "NaN"
    if f in (_INF, -_INF):
        return "Infinity" if f > 0 else "-Infinity"
    a = abs(f)
    if 1e-3 <= a < 1e7:
        return shortest_float_text(f)
    return float_bits_text(_U32.unpack(_F32.pack(f))[0])


def decimal_text(d: Decimal) -> str:
    """`BigDecimal.toString()`."""
    return str(d)


def _java_fields(millis: int) -> tuple[int, int, int, int, int, int, int]:
    """(year of the era, month, day, hour, minute, second, millisecond) in UTC as Java's hybrid Julian/Gregorian
    calendar gives them (javacalendar: before 1582-10-15 the Julian calendar's date, as Date.toString and Values'
    SimpleDateFormat print it — connect seed 99 trial 15: DATETIME '1000-01-01 00:00:00' prints as
    "Wed Dec 27 00:00:00 UTC 999"). Any year: both print the year of the era, without the era, and past 9999
    (connect seed 104 trial 4, a MicroTimestamp read as milliseconds: "Tue Oct 14 00:00:00 UTC 56132"; JDK 17 gives
    "Fri Jul 02 00:00:00 UTC 968011" for 968011 BC)."""
    y, *rest = javacalendar.fields(millis)
    return (javacalendar.year_of_era(y), *rest)


def date_text(millis: int) -> str:
    """`Values.dateFormatFor`: time of day below one day, a date on a day boundary, else a timestamp (UTC)."""
    year, month, day, hh, mi, ss, ms = _java_fields(millis)
    if millis < MILLIS_PER_DAY and millis >= 0:
        return f"{hh:02d}:{mi:02d}:{ss:02d}.{ms:03d}Z"
    if millis % MILLIS_PER_DAY == 0:
        return f"{year:04d}-{month:02d}-{day:02d}"
    return f"{year:04d}-{month:02d}-{day:02d}T{hh:02d}:{mi:02d}:{ss:02d}.{ms:03d}Z"


_DAYS = ("Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun")
_MONTHS = ("Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec")


def util_date_text(millis: int) -> str:
    """`java.util.Date.toString()` in UTC: `Thu Jan 01 00:00:00 UTC 1970`."""
    year, month, day, hh, mi, ss, _ = _java_fields(millis)
    weekday = (millis // MILLIS_PER_DAY + 3) % 7  # Monday 0; 1970-01-01 was a Thursday, in either calendar
    return f"{_DAYS[weekday]} {_MONTHS[month - 1]} {day:02d} {hh:02d}:{mi:02d}:{ss:02d} UTC {year}"


class MisscaledDecimal(Decimal):
    """A BigDecimal whose scale is not its Decimal schema's: MaskField's `replacement` is `new BigDecimal(text)`,
    so `0` has scale 0 whatever the column's. Connect's `Decimal.fromLogical` (JsonConverter's BASE64 format,
    Confluent's AvroData) fails it; printing it (NUMERIC JSON, StringConverter, header text) does not (connect
    seed 97 trial 18: MaskField$Value `replacement=0` on a NUMERIC(20,6) column)."""


def unscaled_bytes(value: Decimal, scale: int) -> bytes:
    """Connect `Decimal.fromLogical`: the unscaled value's big-endian two's complement, minimal length
    (`BigInteger.toByteArray`); a value of another scale fails, as there."""
    if value.__class__ is MisscaledDecimal:
        raise ValueError(
            "Decimal value has mismatching scale for given Decimal schema. "
            f"Schema has scale {scale}, value has scale {-value.as_tuple().exponent}."
        )
    n = int(value.scaleb(scale, EXACT))
    length = ((n if n >= 0 else ~n).bit_length() // 8) + 1
    return n.to_bytes(length, "big", signed=True)
