"""MySQL/MariaDB value conversions shared by the type table (`types.py`) and the binlog row decoder: the text
protocol's dates, times and decimals, Java's float and BigInteger forms, binary encodings, and the `inline`
expressions the generated row decoder uses instead of a Python call per value."""

from __future__ import annotations

import base64
import binascii
import datetime as _dt
import struct
from collections.abc import Callable
from typing import Any

from emulator.connect.javafloat import java_double, java_float_outlier

Converter = Callable[[Any], Any]


class _Zero:
    """A zero date/datetime/timestamp ('0000-00-00 ...') read from the binlog."""

    __slots__ = ()

    def __repr__(self) -> str:
        return "ZERO"


ZERO = _Zero()


def connect_time_ms(us: int | None) -> int | None:
    """Connect's Time is a time of day: a TIME outside 00:00:00..24:00:00 (negative, or beyond 24 h as
    MariaDB allows) comes out null; 24:00:00 itself is 86400000 (recorded with time.precision.mode=connect,
    tests/data/mariadb/cases/time_connect_out_of_day)."""
    if us is None or not 0 <= us <= 86_400_000_000:
        return None
    return us // 1000


_b64 = base64.b64encode
_b2a = binascii.b2a_base64


def bytes_encoder(mode: str) -> Converter:
    if mode == "hex":
        return lambda b: b.hex()
    if mode == "base64-url-safe":
        return lambda b: base64.urlsafe_b64encode(b).decode()
    enc = lambda b: _b64(b).decode()  # noqa: E731
    enc.c_kind = ("base64",)  # row_plan.py: computed in C from the row's bytes
    return enc


def unscaled_b64(u: int) -> str:
    """Java BigInteger.toByteArray (minimal two's complement, big-endian), base64."""
    n = (u + (u < 0)).bit_length() // 8 + 1
    return _b64(u.to_bytes(n, "big", signed=True)).decode()


# The binlog row decoder inlines a converter's `inline` expression of the value `r` (no Python call per
# value); `inline_globals` names what it uses, `{name}` in the expression (the decoder makes them unique).
# (a value >= 0: its unsigned bytes with a byte to spare are the same, without the signed conversion)
_UNSCALED_BYTES = (
    "(r.to_bytes(r.bit_length() // 8 + 1, 'big') if r >= 0 else "
    "r.to_bytes((r + 1).bit_length() // 8 + 1, 'big', signed=True))"
)
unscaled_b64.inline = "{b2a}(" + _UNSCALED_BYTES + ", newline=False).decode()"
unscaled_b64.inline_globals = {"b2a": binascii.b2a_base64}
# the line decoders' form (row_lines.py): the JSON string's text without its quotes (base64 needs no escape),
# not the str orjson.dumps would print again
unscaled_b64.json_quoted_inline = "{b2a}(" + _UNSCALED_BYTES + ", newline=False)"


_F32 = struct.Struct("<f")
_INF = float("inf")


def float32_json(f: float) -> Any:
    """A float32 printed as JDK 17's Float.toString: the shortest digits that round-trip as a float inside
    [1e-3, 1e7), JDK 17's own (often longer) E-form digits outside."""
    if not 1e-3 <= abs(f) < 1e7:
        return java_float_outlier(f)
    packed = _F32.pack(f)
    for p in (6, 7, 8, 9):
        s = f"{f:.{p}g}"
        v = float(s)
        if _F32.pack(v) == packed:
            return java_double(v)
    return java_double(f)


def f32_text(s: str) -> Any:
    return float32_json(_F32.unpack(_F32.pack(float(s)))[0])


def dec_unscaled(text: str, scale: int) -> int:
    t = text.strip()
    neg = t.startswith("-")
    if neg or t.startswith("+"):
        t = t[1:]
    whole, _, frac = t.partition(".")
    frac = (frac + "0" * scale)[:scale] if scale else ""
    u = int((whole or "0") + frac)
    return -u if neg else u


def text_decimal_b64(text: str, scale: int) -> str:
    """A DECIMAL's text (the snapshot's text protocol) -> `unscaled_b64` of its unscaled value. The server
    prints a DECIMAL(M,D) with exactly D fraction digits: then the unscaled value is the text without its
    point (one int() instead of dec_unscaled's steps; any other text, e.g. with trailing blanks, takes them)."""
    i = text.find(".")
    if ((len(text) - i - 1 == scale) if i >= 0 else scale == 0) and text[-1:].isdigit():
        u = int(text.replace(".", "", 1)) if i >= 0 else int(text)
    else:
        u = dec_unscaled(text, scale)
    return _b2a(u.to_bytes((u + (u < 0)).bit_length() // 8 + 1, "big", signed=True), newline=False).decode()


def dec_plain(u: int, scale: int) -> str:
    if scale <= 0:
        return str(u)
    s = str(abs(u)).rjust(scale + 1, "0")
    return ("-" if u < 0 else "") + s[:-scale] + "." + s[-scale:]


_EPOCH_ORD = _dt.date(1970, 1, 1).toordinal()


# enable.time.adjuster (default true): the connector sets it at start (binlog_values.hold_time_adjuster, which
# also empties the caches filled with the other setting; a connector with the other value in the same process is
# refused)
_ADJUST_YEARS = [True]


def date_days(y: int, m: int, d: int) -> int:
    """Days since the epoch of a DATE / DATETIME's date, years 0001-0099 moved as Debezium's binlog connectors'
    temporal adjuster does (BinlogValueConverters.adjustTemporal: 00-69 -> 2000-2069, 70-99 -> 1970-1999;
    binlog, snapshot and defaults; recorded: tests/data/mariadb/cases/year_adjust_two_digit), unless
    enable.time.adjuster=false (case year_adjust_disabled: kept as stored)."""
    if y < 100 and _ADJUST_YEARS[0]:
        y += 2000 if y < 70 else 1900
    return _dt.date(y, m, d).toordinal() - _EPOCH_ORD


def set_year_adjust(on: bool) -> None:
    """enable.time.adjuster for date_days; empties the text dates read with the other setting."""
    if _ADJUST_YEARS[0] != on:
        _ADJUST_YEARS[0] = on
        _TEXT_DATES.clear()


def text_date(s: str, zero: Any = ZERO) -> Any:
    """A DATE's text -> days since the epoch; a zero date gives `zero`."""
    y, m, d = s[:10].split("-")
    y, m, d = int(y), int(m), int(d)
    if y == 0 or m == 0 or d == 0:
        return zero
    return date_days(y, m, d)


def text_frac_us(frac: str) -> int:
    return int((frac + "000000")[:6]) if frac else 0


_TEXT_DATES: dict[str, Any] = {}
# "HH:MM:SS" -> seconds of the day: a snapshot's DATETIME/TIMESTAMP texts share their dates and times of day
# (at most 86,400 of these), and a lookup costs less than three int() of slices (callgrind, bench/README.md)
_TEXT_TIMES: dict[str, int] = {}


def text_datetime_us(s: str, zero: Any = ZERO, scale: int = 1) -> Any:
    """A DATETIME's text (as JDBC reads it: a day of the 1582 gap 10 days on) -> microseconds since the epoch
    (divided by `scale`: 1000, milliseconds, rounded down as Debezium's); a zero date gives `zero`. The snapshot's parser calls it with the column's `zero` and
    `scale` (`text_call`): one call a value, no converter after it."""
    days = _TEXT_DATES.get(s[:10])
    if days is None:
        days = text_date(s[:10])
        if days is not ZERO and s[:8] == "1582-10-" and "05" <= s[8:10] <= "14":
            days += 10  # JDBC's lenient java.sql.Timestamp: a day of the Julian/Gregorian gap, 10 days on
        if len(_TEXT_DATES) < 100_000:
            _TEXT_DATES[s[:10]] = days
    if days is ZERO:
        return zero
    n = len(s)
    if n >= 19 and s[13] == ":" and s[16] == ":":
        hms = s[11:19]
        sec = _TEXT_TIMES.get(hms)
        if sec is None:
            sec = int(s[11:13]) * 3600 + int(s[14:16]) * 60 + int(s[17:19])
            if len(_TEXT_TIMES) < 100_000:  # (hours above 23 in a TIME-like text)
                _TEXT_TIMES[hms] = sec
        us = (days * 86400 + sec) * 1_000_000
        if n == 26:  # six fraction digits (DATETIME(6))
            us += int(s[20:])
        elif n > 20:
            us += int((s[20:] + "000000")[:6])
    else:
        rest = s[11:].strip()
        hms, _, frac = rest.partition(".")
        h, mi, se = (hms.split(":") + ["0", "0", "0"])[:3] if hms else ("0", "0", "0")
        us = ((days * 86400 + int(h) * 3600 + int(mi) * 60 + int(se)) * 1_000_000) + text_frac_us(frac)
    return us if scale == 1 else us // scale


_GAP_US = 10 * 86_400_000_000


def text_datetime_us_written(s: str, zero: Any = ZERO, scale: int = 1) -> Any:
    """`text_datetime_us` of a DATETIME's text as written: a column DEFAULT, which Debezium parses itself, not
    through JDBC, so a day of the Julian/Gregorian gap (1582-10-05..14) stays (recorded: case
    datetime_calendar_gap, the snapshot's rows 10 days on, the binlog's and the defaults as written)."""
    v = text_datetime_us(s, zero, scale)
    if v is not zero and s[:8] == "1582-10-" and "05" <= s[8:10] <= "14":
        v -= _GAP_US // scale
    return v


def text_call(fn: Callable[..., Any], *args: Any) -> Converter:
    """`fn(text, *args)` as a snapshot converter (`fn` gives the value as printed, zero dates included): the
    snapshot's text parser calls `fn` itself with `args` (textrows, `text_call`: one Python call a value);
    anything else calls this."""

    def f(s: str) -> Any:
        return fn(s, *args)

    f.text_call = (fn, args)
    return f


def text_time_us(s: str) -> int:
    t = s.strip()
    neg = t.startswith("-")
    if neg:
        t = t[1:]
    hms, _, frac = t.partition(".")
    parts = hms.split(":")
    h = int(parts[0])
    mi = int(parts[1]) if len(parts) > 1 else 0
    se = int(parts[2]) if len(parts) > 2 else 0
    us = (h * 3600 + mi * 60 + se) * 1_000_000 + text_frac_us(frac)
    return -us if neg else us


def zoned_iso(us: int, fsp: int) -> str:
    """UTC epoch microseconds -> Debezium's ZonedTimestamp text, `fsp` fractional digits."""
    sec, frac = divmod(us, 1_000_000)
    days, rem = divmod(sec, 86400)
    d = _dt.date.fromordinal(days + _EPOCH_ORD)
    h, rem = divmod(rem, 3600)
    mi, se = divmod(rem, 60)
    y = d.year
    ys = f"{y:04d}" if y <= 9999 else f"+{y}"
    base = f"{ys}-{d.month:02d}-{d.day:02d}T{h:02d}:{mi:02d}:{se:02d}"
    if fsp > 0:
        base += "." + f"{frac:06d}"[:fsp]
    return base + "Z"


def zoned_iso_trimmed(us: int) -> str:
    """`ZonedTimestamp.toIsoString(java.sql.Timestamp)`: ISO_OFFSET_DATE_TIME, trailing fraction zeros cut."""
    text = zoned_iso(us, 6)
    if us % 1_000_000 == 0:
        return text[:-8] + "Z"
    return text[:-1].rstrip("0") + "Z"


def with_zero(conv: Converter, zero_value: Any, inline: str | None = None, ints: bool = False) -> Converter:
    """`conv`, except a zero date (ZERO) gives `zero_value`; `inline`: `conv` as an expression of `r`.
    `ints`: `conv` makes an int of every value but ZERO (the line decoders print it as `%d` when
    `zero_value` is an int too: `int_result`)."""

    def f(v):
        if v is ZERO:
            return zero_value
        return conv(v)

    f.inline = "({zero} if r is {ZERO} else " + (inline or "{conv}(r)") + ")"
    f.inline_globals = {"zero": zero_value, "ZERO": ZERO, "conv": conv}
    f.int_result = ints and isinstance(zero_value, int) and not isinstance(zero_value, bool)
    return f


def identity(v):
    return v


def nonzero(v) -> bool:
    return v != 0


nonzero.inline = "r != 0"
nonzero.c_kind = ("bool",)  # row_plan.py


def text_decoder(codec: str) -> Converter:
    def conv(b, c=codec):
        return b.decode(c, "replace")

    conv.inline = f"r.decode({codec!r}, 'replace')"  # the binlog row decoder inlines this expression
    conv.c_kind = ("text", codec)  # row_plan.py
    return conv
