"""Date, time and timestamp text -> epoch days / micros / zoned strings (proleptic Gregorian, any year)."""

from __future__ import annotations

import datetime as _dt
import re

import orjson

from emulator.connectors.postgres.types.model import Converter

_EPOCH_ORD = 719163  # date(1970, 1, 1).toordinal()
_date = _dt.date
_US_PER_DAY = 86_400_000_000
_dumps = orjson.dumps


def _days(y: int, m: int, d: int) -> int:
    if 1 <= y <= 9999:
        return _date(y, m, d).toordinal() - _EPOCH_ORD
    y -= m <= 2
    era = y // 400
    yoe = y - era * 400
    doy = (153 * (m + (-3 if m > 2 else 9)) + 2) // 5 + d - 1
    doe = yoe * 365 + yoe // 4 - yoe // 100 + doy
    return era * 146097 + doe - 719468


def civil(days: int) -> tuple[int, int, int]:
    if -719162 <= days <= 2932896:
        dd = _date.fromordinal(days + _EPOCH_ORD)
        return dd.year, dd.month, dd.day
    z = days + 719468
    era = z // 146097
    doe = z - era * 146097
    yoe = (doe - doe // 1460 + doe // 36524 - doe // 146096) // 365
    doy = doe - (365 * yoe + yoe // 4 - yoe // 100)
    mp = (5 * doy + 2) // 153
    d = doy - (153 * mp + 2) // 5 + 1
    m = mp + 3 if mp < 10 else mp - 9
    return yoe + era * 400 + (m <= 2), m, d


def iso_year(y: int) -> str:
    """DateTimeFormatter.ISO_LOCAL_DATE year: 4 digits, '+' above 9999, '-' for BC (proleptic)."""
    if 0 <= y <= 9999:
        return f"{y:04d}"
    return f"+{y}" if y > 9999 else f"-{-y:04d}"


_DATE_RE = re.compile(r"(\d{4,})-(\d\d)-(\d\d)( BC)?\Z")
_TS_RE = re.compile(
    r"(\d{4,})-(\d\d)-(\d\d)(?:[ T](\d\d):(\d\d)(?::(\d\d)(?:\.(\d+))?)?)?"
    r"\s*(Z|[+-]\d\d(?::?\d\d(?::?\d\d)?)?)?( BC)?\Z"
)
_TIME_RE = re.compile(r"(\d\d?):(\d\d)(?::(\d\d)(?:\.(\d+))?)?\s*(Z|[+-]\d\d(?::?\d\d(?::?\d\d)?)?)?\Z")

# pgjdbc PGStatement.DATE_POSITIVE_INFINITY / DATE_NEGATIVE_INFINITY, read by Debezium as micros
_TS_POS_INF_US = 9223372036825200000
_TS_NEG_INF_US = -9223372036832400000
TS_INF_US = {"infinity": _TS_POS_INF_US, "-infinity": _TS_NEG_INF_US}
TS_INF_MS = {"infinity": _TS_POS_INF_US // 1000, "-infinity": _TS_NEG_INF_US // 1000}
# Debezium's POSITIVE/NEGATIVE_INFINITY_LOCAL_DATE: LocalDate.parse("-5877611-06-21"/"-5877611-06-22")
_DATE_INF = {"infinity": _days(-5877611, 6, 21), "-infinity": _days(-5877611, 6, 22)}


def _offset_seconds(o: str | None) -> int:
    if not o or o == "Z":
        return 0
    sign = -1 if o[0] == "-" else 1
    digits = o[1:].replace(":", "")
    secs = int(digits[0:2]) * 3600
    if len(digits) >= 4:
        secs += int(digits[2:4]) * 60
    if len(digits) >= 6:
        secs += int(digits[4:6])
    return sign * secs


def _frac_us(f: str | None) -> int:
    if not f:
        return 0
    return int(f[:6].ljust(6, "0"))


_date_fromiso = _dt.date.fromisoformat
_datetime_fromiso = _dt.datetime.fromisoformat
_time_fromiso = _dt.time.fromisoformat
_EPOCH_NAIVE = _dt.datetime(1970, 1, 1)
_ONE_US = _dt.timedelta(microseconds=1)


def date_days(t: str) -> int:
    if len(t) == 10:
        try:
            return _date_fromiso(t).toordinal() - _EPOCH_ORD
        except ValueError:
            pass
    inf = _DATE_INF.get(t)
    if inf is not None:
        return inf
    m = _DATE_RE.match(t)
    if m is None:
        m2 = _TS_RE.match(t)  # date defaults may arrive as a timestamp literal
        if m2 is None:
            raise ValueError(f"bad date {t!r}")
        y = int(m2.group(1))
        return _days(1 - y if m2.group(9) else y, int(m2.group(2)), int(m2.group(3)))
    y = int(m.group(1))
    return _days(1 - y if m.group(4) else y, int(m.group(2)), int(m.group(3)))


def _ts_parse(t: str) -> tuple[int, int | None]:
    """Timestamp text -> (local epoch micros, offset seconds or None when the text has no offset)."""
    m = _TS_RE.match(t)
    if m is None:
        raise ValueError(f"bad timestamp {t!r}")
    y, mo, d, hh, mi, ss, frac, off, bc = m.groups()
    yi = int(y)
    if bc:
        yi = 1 - yi
    secs = int(hh or 0) * 3600 + int(mi or 0) * 60 + int(ss or 0)
    us = (_days(yi, int(mo), int(d)) * 86400 + secs) * 1_000_000 + _frac_us(frac)
    return us, (None if off is None else _offset_seconds(off))


def ts_micros(t: str) -> int:
    """timestamp (without time zone) text -> micros since epoch, read as UTC."""
    if t[-1] != "C":  # not BC
        try:
            return (_datetime_fromiso(t) - _EPOCH_NAIVE) // _ONE_US
        except (ValueError, TypeError):  # year > 9999, an offset (defaults), ...
            pass
    us, off = _ts_parse(t)
    return us - (off or 0) * 1_000_000


_LONG_MAX = (1 << 63) - 1


def micro_timestamp(us: int) -> int:
    """A MicroTimestamp as Debezium computes it (Conversions.toEpochMicros: TimeUnit.SECONDS.toMicros(epochSecond)
    + nano / 1000): past Long.MAX microseconds (PostgreSQL's timestamps from 294247-01-10 04:00:54.775808 to
    294276-12-31) the seconds saturate at Long.MAX and the addition wraps around: 294276-12-31 23:59:59.999999 is
    -9223372036853775810 (pg case timestamp_micros_saturated). Exact below that."""
    if us <= _LONG_MAX:
        return us
    s, m = divmod(us, 1_000_000)
    total = (s * 1_000_000 if s <= _LONG_MAX // 1_000_000 else _LONG_MAX) + m
    return total - (1 << 64) if total > _LONG_MAX else total


def time_micros(t: str) -> int:
    """time text ("13:45:30.123456", "24:00:00", "00:00") -> micros of day."""
    try:
        x = _time_fromiso(t)
        return ((x.hour * 60 + x.minute) * 60 + x.second) * 1_000_000 + x.microsecond
    except ValueError:  # 24:00:00
        pass
    m = _TIME_RE.match(t)
    if m is None:
        raise ValueError(f"bad time {t!r}")
    hh, mi, ss, frac, _off = m.groups()
    return (int(hh) * 3600 + int(mi) * 60 + int(ss or 0)) * 1_000_000 + _frac_us(frac)


def _fmt_time_of_day(us: int, width: int | None) -> str:
    """HH:mm:ss + fraction: `width` digits exactly, or (None) ISO_LOCAL_TIME's minimal digits."""
    secs, frac = divmod(us, 1_000_000)
    hh, rem = divmod(secs, 3600)
    mi, ss = divmod(rem, 60)
    out = f"{hh:02d}:{mi:02d}:{ss:02d}"
    if width is None:
        if frac:
            out += "." + f"{frac:06d}".rstrip("0")
    else:
        out += "." + f"{frac:06d}000"[:width]
    return out


def zoned_timestamp(width: int | None) -> Converter:
    """timestamptz text -> ZonedTimestamp (ISO-8601 in UTC); `width` = fraction digits (None: minimal)."""
    w = width if width is not None and 0 < width <= 9 else None

    def slow(t: str) -> str:
        if t == "infinity" or t == "-infinity":
            return t
        local, off = _ts_parse(t)  # no offset in the text (defaults): UTC, as pgjdbc in a UTC JVM
        days, tod = divmod(local - (off or 0) * 1_000_000, _US_PER_DAY)
        y, mo, d = civil(days)
        return f"{iso_year(y)}-{mo:02d}-{d:02d}T{_fmt_time_of_day(tod, w)}Z"

    if w is None:

        def conv(t: str) -> str:
            if t[-3:] == "+00" and len(t) >= 22 and t[4] == "-" and t[10] == " ":
                if t[19] == ".":
                    frac = t[20:-3].rstrip("0")
                    return t[:10] + "T" + t[11:19] + ("." + frac if frac else "") + "Z"
                return t[:10] + "T" + t[11:19] + "Z"
            return slow(t)

        # in a whole-tuple match (pgoutput_match): a UTC text without a fraction, as `conv` prints it
        conv.rx = (rb"([0-9-]{10}) ([0-9:]{8})\+00", "{n}f % ({0}, {1})", {"f": b'"%bT%bZ"'})

    else:
        zeros = "0" * w

        def conv(t: str) -> str:
            if t[-3:] == "+00" and len(t) >= 22 and t[4] == "-" and t[10] == " ":
                if t[19] == ".":
                    return t[:10] + "T" + t[11:19] + "." + (t[20:-3] + zeros)[:w] + "Z"
                return t[:10] + "T" + t[11:19] + "." + zeros + "Z"
            return slow(t)

        # the value's JSON straight from the text's bytes (pgoutput.row_json_parser): `orjson.dumps(conv(t))`
        # for a UTC text, in one format instead of a decode, five slices and concatenations and a dumps
        pad = [b'"%b.' + b"0" * w + b'Z"'] + [b'"%b' + b"0" * (w - k) + b'Z"' for k in range(1, w + 1)]

        def json(b: bytes) -> bytes:
            n = len(b)
            if b[-3:] == b"+00" and n >= 22 and b[4] == 45 and b[10] == 32:
                if n == 22:  # no fraction
                    return pad[0] % b[:19].replace(b" ", b"T", 1)
                if b[19] == 46:  # "." and 1-6 digits
                    k = n - 23
                    return (
                        pad[k] % b[: n - 3].replace(b" ", b"T", 1)
                        if k < w
                        else b'"%bZ"' % b[: 20 + w].replace(b" ", b"T", 1)
                    )
            return _dumps(conv(b.decode()))

        conv.json = json
        # in a whole-tuple match (pgoutput_match): a UTC text, the fraction (1-6 digits) padded or cut to `w`
        conv.rx = (
            rb"([0-9-]{10}) ([0-9:]{8})(?:\.([0-9]{1,6}))?\+00",
            "{n}f % ({0}, {1}, {n}z if {2} is None else ({2} + {n}z)[:" + str(w) + "])",
            {"f": b'"%bT%b.%bZ"', "z": zeros.encode()},
        )

    conv.c_kind = ("tstz", w or 0)  # the C line path reads UTC texts itself (fastpg.c P_TSTZ; 0: minimal)
    return conv


def zoned_timestamp_element(width: int | None) -> Converter:
    """timestamptz[] element (pgjdbc's PgArray, a java.sql.Timestamp): `-infinity` is pgjdbc's
    DATE_NEGATIVE_INFINITY (-9223372036832400000 ms), which Debezium prints through a calendar that drops the
    era: year +292269055 (recorded: pg case timestamptz_array_negative_infinity). `infinity` and the rest as the
    scalar. (Elements before 1582-10-15 go through the Julian calendar and lose their era in Debezium: a
    deliberate difference, pg case timestamp_array_bc_jdbc_lost.)"""
    scalar = zoned_timestamp(width)
    w = width if width is not None and 0 < width <= 9 else None
    neg = "+292269055-12-02T23:00:00" + ("." + "0" * w if w else "") + "Z"

    def conv(t: str) -> str:
        return neg if t == "-infinity" else scalar(t)

    return conv


def zoned_time_element(t: str) -> str:
    """timetz as an array element: pgjdbc's PgArray gives a java.sql.Time, whose toLocalTime() (in
    ZonedTime.toIsoString) keeps whole seconds only (tests/data/pg/cases/fallback_time_old_key)."""
    return zoned_time(t)[:8] + "Z"


def zoned_time(t: str) -> str:
    """timetz text -> ZonedTime: ISO_OFFSET_TIME of the value shifted to UTC."""
    try:
        x = _time_fromiso(t)
        off = x.utcoffset()
        us = ((x.hour * 60 + x.minute) * 60 + x.second) * 1_000_000 + x.microsecond
        if off:
            us = (us - off // _ONE_US) % _US_PER_DAY
        return _fmt_time_of_day(us, None) + "Z"
    except ValueError:
        pass
    i = max(t.rfind("+"), t.rfind("-"))
    if i > 0:
        off = _offset_seconds(t[i:])
        t = t[:i]
    else:
        off = 0
    us = (time_micros(t) - off * 1_000_000) % _US_PER_DAY
    return _fmt_time_of_day(us, None) + "Z"
