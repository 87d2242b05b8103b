"""Binary binlog values (DECIMAL, DATE, DATETIME2, TIMESTAMP2, TIME2 and the pre-5.6 forms) decoded into the
numbers Debezium's types are built from; the generated row decoders (`row_decoders.py`) call them."""

from __future__ import annotations

import threading
from typing import Any

from emulator import linefill
from emulator.connectors.mysql.values import ZERO, date_days, set_year_adjust
from emulator.settings.errors import ConfigError

# -- value decoding helpers (called from generated code) --------------------------------------------------
DIG2BYTES = (0, 1, 1, 2, 2, 3, 3, 4, 4, 4)


def decimal_size(precision: int, scale: int) -> int:
    intg = precision - scale
    return (intg // 9) * 4 + DIG2BYTES[intg % 9] + (scale // 9) * 4 + DIG2BYTES[scale % 9]


def decode_decimal(b: bytes, precision: int, scale: int) -> int:
    """MySQL's binary DECIMAL -> the unscaled integer."""
    intg = precision - scale
    intg0, intg0x = divmod(intg, 9)
    frac0, frac0x = divmod(scale, 9)
    data = bytearray(b)
    neg = not data[0] & 0x80
    data[0] ^= 0x80
    if neg:
        data = bytearray(x ^ 0xFF for x in data)
    pos = 0
    value = 0
    if intg0x:
        n = DIG2BYTES[intg0x]
        value = int.from_bytes(data[pos : pos + n], "big")
        pos += n
    for _ in range(intg0):
        value = value * 1_000_000_000 + int.from_bytes(data[pos : pos + 4], "big")
        pos += 4
    for _ in range(frac0):
        value = value * 1_000_000_000 + int.from_bytes(data[pos : pos + 4], "big")
        pos += 4
    if frac0x:
        n = DIG2BYTES[frac0x]
        value = value * 10**frac0x + int.from_bytes(data[pos : pos + n], "big")
    return -value if neg else value


_DATE_CACHE: dict[int, Any] = {}


def decode_date(v: int) -> Any:
    r = _DATE_CACHE.get(v)
    if r is None:
        d, m, y = v & 31, (v >> 5) & 15, v >> 9
        r = ZERO if (y == 0 or m == 0 or d == 0) else date_days(y, m, d)
        if len(_DATE_CACHE) < 100_000:
            _DATE_CACHE[v] = r
    return r


def _frac(b: bytes, p: int, fsp: int) -> int:
    if fsp == 0:
        return 0
    if fsp <= 2:
        return b[p] * 10000
    if fsp <= 4:
        return int.from_bytes(b[p : p + 2], "big") * 100
    return int.from_bytes(b[p : p + 3], "big")


def frac_bytes(fsp: int) -> int:
    return (fsp + 1) // 2


# datetime2_base's answers by packed integer part (never None: the generated decoders read it with .get)
DATETIME2_CACHE: dict[int, Any] = {}


def decode_datetime2(b: bytes, p: int, fsp: int) -> Any:
    """DATETIME(fsp) -> microseconds since the epoch, as if UTC (or ZERO). (The generated decoders inline
    this with `datetime2_base`.)"""
    base = datetime2_base(int.from_bytes(b[p : p + 5], "big"))
    if base is ZERO:
        return ZERO
    return base + _frac(b, p + 5, fsp)


def datetime2_base(x: int) -> Any:
    """The packed integer part (5 bytes, big-endian) of a DATETIME2 -> epoch microseconds (or ZERO)."""
    base = DATETIME2_CACHE.get(x)
    if base is None:
        ip = x - 0x8000000000
        ymd = ip >> 17
        ym = ymd >> 5
        y, mo, d = ym // 13, ym % 13, ymd & 31
        hms = ip & 0x1FFFF
        if y == 0 or mo == 0 or d == 0:
            base = ZERO
        else:
            base = (
                date_days(y, mo, d) * 86400 + (hms >> 12) * 3600 + ((hms >> 6) & 63) * 60 + (hms & 63)
            ) * 1_000_000
        if len(DATETIME2_CACHE) < 100_000:
            DATETIME2_CACHE[x] = base
    return base


# enable.time.adjuster is process state (the decoders and their caches are module-level, and the C line path calls
# them): connectors running in one process (the REST worker's threads, the in-process API) must agree on it, so
# a connector with the other value is refused while one holding it runs, never decoded with the wrong one.
_ADJUSTER_LOCK = threading.Lock()
_ADJUSTER_HOLDERS = {True: 0, False: 0}


def hold_time_adjuster(on: bool) -> None:
    """enable.time.adjuster at a connector's start: DATE/DATETIME years 0001-0099 moved (true, Debezium's default)
    or kept; the decoded dates cached with the other setting are dropped. Release with `release_time_adjuster`."""
    with _ADJUSTER_LOCK:
        if _ADJUSTER_HOLDERS[not on]:
            raise ConfigError(
                f"enable.time.adjuster={str(on).lower()}: another MySQL/MariaDB connector in this process runs with "
                f"{str(not on).lower()} (the decoders are shared): run this one in its own process",
                "enable.time.adjuster",
            )
        _ADJUSTER_HOLDERS[on] += 1
        if _ADJUSTER_HOLDERS[on] == 1:
            set_year_adjust(on)
            if linefill.fastline is not None:  # the C row plans' dates (fastcols.c date_days)
                linefill.fastline.set_year_adjust(on)
            _DATE_CACHE.clear()
            DATETIME2_CACHE.clear()


def release_time_adjuster(on: bool) -> None:
    """The connector holding `on` has stopped."""
    with _ADJUSTER_LOCK:
        _ADJUSTER_HOLDERS[on] = max(0, _ADJUSTER_HOLDERS[on] - 1)


def decode_timestamp2(b: bytes, p: int, fsp: int) -> Any:
    sec = int.from_bytes(b[p : p + 4], "big")
    frac = _frac(b, p + 4, fsp)
    if sec == 0 and frac == 0:
        return ZERO
    return sec * 1_000_000 + frac


def decode_time2(b: bytes, p: int, fsp: int) -> int:
    """TIME(fsp) -> signed microseconds (negative and > 24 h allowed)."""
    if fsp == 0:
        packed = (int.from_bytes(b[p : p + 3], "big") - 0x800000) << 24
    elif fsp <= 2:
        ip = int.from_bytes(b[p : p + 3], "big") - 0x800000
        frac = b[p + 3]
        if ip < 0 and frac:
            ip += 1
            frac -= 0x100
        packed = (ip << 24) + frac * 10000
    elif fsp <= 4:
        ip = int.from_bytes(b[p : p + 3], "big") - 0x800000
        frac = int.from_bytes(b[p + 3 : p + 5], "big")
        if ip < 0 and frac:
            ip += 1
            frac -= 0x10000
        packed = (ip << 24) + frac * 100
    else:
        packed = int.from_bytes(b[p : p + 6], "big") - 0x800000000000
    neg = packed < 0
    if neg:
        packed = -packed
    hms = packed >> 24
    frac = packed & 0xFFFFFF
    us = (((hms >> 12) & 0x3FF) * 3600 + ((hms >> 6) & 0x3F) * 60 + (hms & 0x3F)) * 1_000_000 + frac
    return -us if neg else us


def decode_time_old(v: int) -> int:
    neg = v < 0
    v = abs(v)
    us = ((v // 10000) * 3600 + (v // 100 % 100) * 60 + v % 100) * 1_000_000
    return -us if neg else us


def decode_datetime_old(v: int) -> Any:
    d, t = divmod(v, 1_000_000)
    y, mo, dd = d // 10000, d // 100 % 100, d % 100
    if y == 0 or mo == 0 or dd == 0:
        return ZERO
    return (date_days(y, mo, dd) * 86400 + (t // 10000) * 3600 + (t // 100 % 100) * 60 + t % 100) * 1_000_000


def decode_timestamp_old(sec: int) -> Any:
    return ZERO if sec == 0 else sec * 1_000_000
