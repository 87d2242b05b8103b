"""Java's default `GregorianCalendar` in UTC, for any epoch-millisecond `long`: the Julian calendar before the
instant 1582-10-15T00:00Z, the Gregorian after, years of any size (Python's datetime stops at 1..9999, and
SimpleDateFormat does not: a MicroTimestamp read as milliseconds is a year like 55840 or 968031 BC).

Days are counted from 1970-01-01 with March-based years (Howard Hinnant's `civil_from_days`, and its 4-year
Julian form), so floor division makes every formula exact for negative days too.
"""

from __future__ import annotations

DAY_MS = 86_400_000
# java.util.GregorianCalendar's default cutover, 1582-10-15T00:00Z (proleptic Gregorian epoch milliseconds)
CUTOVER_MS = -12_219_292_800_000
CUTOVER_YEAR = 1582
# days from 0000-03-01 (astronomical year 0) to 1970-01-01: Gregorian, Julian (JDN 2440588 - 1721118)
_GREG_OFFSET = 719_468
_JUL_OFFSET = 719_470


def _from_march(mp: int) -> int:
    return mp + 3 if mp < 10 else mp - 9


def gregorian_from_days(days: int) -> tuple[int, int, int]:
    """(astronomical year, month, day) of the proleptic Gregorian calendar."""
    z = days + _GREG_OFFSET
    era, doe = divmod(z, 146_097)
    yoe = (doe - doe // 1460 + doe // 36_524 - doe // 146_096) // 365
    doy = doe - (365 * yoe + yoe // 4 - yoe // 100)
    mp = (5 * doy + 2) // 153
    m = _from_march(mp)
    return yoe + era * 400 + (m <= 2), m, doy - (153 * mp + 2) // 5 + 1


def julian_from_days(days: int) -> tuple[int, int, int]:
    """(astronomical year, month, day) of the proleptic Julian calendar."""
    era, doe = divmod(days + _JUL_OFFSET, 1461)
    yoe = (doe - doe // 1460) // 365  # the cycle's last day (1460) is the February 29 of its year 3
    doy = doe - 365 * yoe
    mp = (5 * doy + 2) // 153
    m = _from_march(mp)
    return yoe + era * 4 + (m <= 2), m, doy - (153 * mp + 2) // 5 + 1


def days_from_gregorian(y: int, m: int, d: int) -> int:
    y -= m <= 2
    era, yoe = divmod(y, 400)
    doy = (153 * (m - 3 if m > 2 else m + 9) + 2) // 5 + d - 1
    return era * 146_097 + yoe * 365 + yoe // 4 - yoe // 100 + doy - _GREG_OFFSET


def days_from_julian(y: int, m: int, d: int) -> int:
    y -= m <= 2
    era, yoe = divmod(y, 4)
    doy = (153 * (m - 3 if m > 2 else m + 9) + 2) // 5 + d - 1
    return era * 1461 + yoe * 365 + doy - _JUL_OFFSET


def fields(millis: int) -> tuple[int, int, int, int, int, int, int]:
    """(astronomical year, month, day, hour, minute, second, millisecond) as Java's hybrid calendar gives them
    for an instant in UTC (year 0 is 1 BC: `year_of_era` gives the YEAR field SimpleDateFormat prints)."""
    days, rest = divmod(millis, DAY_MS)
    y, m, d = (gregorian_from_days if millis >= CUTOVER_MS else julian_from_days)(days)
    secs, ms = divmod(rest, 1000)
    return y, m, d, secs // 3600, secs // 60 % 60, secs % 60, ms


def year_of_era(year: int) -> int:
    """GregorianCalendar's YEAR field: astronomical year 0 is 1 BC, -1 is 2 BC (the era is a field apart)."""
    return year if year > 0 else 1 - year


def days_in_month(y: int, m: int) -> int:
    """Month length in the calendar Java uses for year y (not 1582, whose October is the cutover's)."""
    if m != 2:
        return 30 if m in (4, 6, 9, 11) else 31
    leap = y % 4 == 0 if y < CUTOVER_YEAR else (y % 4 == 0 and (y % 100 != 0 or y % 400 == 0))
    return 29 if leap else 28


def millis_of(y: int, m: int, d: int, hh: int, mi: int, ss: int, ms: int) -> int:
    """The instant of a valid date and time (month 1-12, day in the month, time in range) of a year other than
    1582, in UTC: the Julian calendar's before 1582, the Gregorian one's after, as GregorianCalendar picks."""
    days = (days_from_julian if y < CUTOVER_YEAR else days_from_gregorian)(y, m, d)
    return days * DAY_MS + ((hh * 60 + mi) * 60 + ss) * 1000 + ms
