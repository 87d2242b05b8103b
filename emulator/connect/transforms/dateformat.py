"""Java `SimpleDateFormat` patterns as TimestampRouter and TimestampConverter users write them (UTC): the
letters `yyyy yy MM dd HH mm ss SSS` and quoted text; any other letter raises ValueError naming it.

Dates are those of Java's hybrid calendar (emulator.connect.javacalendar): Julian before 1582-10-15, years of
any size, the year of the era (1 BC prints `0001`). Parsing (`parse_date`) gives Java's result for the texts
whose reading does not depend on SimpleDateFormat's leniency; for the others it raises NotEmulatedText.
"""

from __future__ import annotations

import time

from emulator.connect import javacalendar as jc

# the letters (with their counts) this module formats and parses; all of them numbers
_FIELDS = ("yyyy", "yy", "MM", "dd", "HH", "mm", "ss", "SSS")


class NotEmulatedText(ValueError):
    """A text SimpleDateFormat's lenient parse reads in a way this module does not follow."""


class UnparseableText(ValueError):
    """A text SimpleDateFormat cannot parse (`ParseException`)."""


def compile_pattern(fmt: str) -> list[str]:
    """The pattern as fields (`yyyy`, `MM`, ...) and literal characters (prefixed with a quote)."""
    out, i = [], 0
    while i < len(fmt):
        if fmt[i] == "'":
            j = fmt.find("'", i + 1)
            j = len(fmt) if j < 0 else j
            out.extend("'" + c for c in (fmt[i + 1 : j] if j > i + 1 else "'"))
            i = j + 1
            continue
        for pat in _FIELDS:
            if fmt.startswith(pat, i) and (i + len(pat) >= len(fmt) or fmt[i + len(pat)] != pat[0]):
                out.append(pat)
                i += len(pat)
                break
        else:
            if fmt[i].isalpha():
                raise ValueError(fmt[i])
            out.append("'" + fmt[i])
            i += 1
    return out


def simple_date_format(fmt: str, ts_ms: int) -> str:
    y, mo, d, hh, mi, ss, ms = jc.fields(ts_ms)
    year = jc.year_of_era(y)
    values = {
        "yyyy": f"{year:04d}",
        "yy": f"{year % 100:02d}",  # (SimpleDateFormat: the last two digits)
        "MM": f"{mo:02d}",
        "dd": f"{d:02d}",
        "HH": f"{hh:02d}",
        "mm": f"{mi:02d}",
        "ss": f"{ss:02d}",
        "SSS": f"{ms:03d}",
    }
    return "".join(t[1:] if t[0] == "'" else values[t] for t in compile_pattern(fmt))


def _number(text: str, start: int, count: int, obey_count: bool) -> tuple[int, int, int]:
    """SimpleDateFormat.subParse of a numeric field: spaces and tabs skipped, then DecimalFormat's integer, a
    leading `-` its sign (only `count` characters from the field's start when the next field is a number too).
    Returns (value, where the number starts, where it ends)."""
    i = start
    while i < len(text) and text[i] in " \t":
        i += 1
    if i >= len(text):
        raise UnparseableText(text)
    if obey_count and start + count > len(text):
        raise UnparseableText(text)  # (Java checks the field's width before reading it)
    end = start + count if obey_count else len(text)
    digits = i + 1 if text[i] == "-" else i
    j = digits
    while j < end and "0" <= text[j] <= "9":
        j += 1
    if j < end and (text[j].isdigit() or text[j] in "Ee") or j - digits > 9:
        raise NotEmulatedText(text)  # non-ASCII digits, an exponent, an overflow: DecimalFormat reads them
    if j == digits:
        raise UnparseableText(text)  # no number (a sign alone too): DecimalFormat.parse gives null
    return int(text[i:j]), i, j


def parse_date(fmt: str, text: str, now_year: int | None = None) -> int:
    """`SimpleDateFormat.parse` in UTC (lenient, text after the pattern ignored) -> epoch milliseconds."""
    tokens = compile_pattern(fmt)
    got = {"yyyy": 1970, "MM": 1, "dd": 1, "HH": 0, "mm": 0, "ss": 0, "SSS": 0}
    pos, signed = 0, False
    for n, t in enumerate(tokens):
        if t[0] == "'":
            if pos >= len(text) or text[pos] != t[1]:
                raise UnparseableText(text)
            pos += 1
            continue
        obey = n + 1 < len(tokens) and tokens[n + 1][0] != "'"
        value, digits_at, pos = _number(text, pos, len(t), obey)
        signed = signed or text[digits_at] == "-"
        if t == "yy":
            if pos - digits_at == 2:
                # two digits: the century of the 80 years before now to the 20 after (defaultCenturyStart)
                century_start = (now_year or time.gmtime().tm_year) - 80
                if value == century_start % 100:
                    raise NotEmulatedText(text)  # decided by the instant, not the year
                value += century_start // 100 * 100 + (100 if value < century_start % 100 else 0)
            t = "yyyy"
        got[t] = value
    y, mo, d = got["yyyy"], got["MM"], got["dd"]
    hh, mi, ss, ms = got["HH"], got["mm"], got["ss"], got["SSS"]
    # the lenient calendar's rolls (month 13, day 32, hour 24, negative fields) and the cutover year: not followed
    # (a text that fails later fails in Java too: "2024-02-29T..." under yyyyMMddHHmmss reads MM as "-0", then
    # fails at the "T"; connect seed 103 trial 21)
    if (
        signed
        or y == jc.CUTOVER_YEAR
        or not 1 <= mo <= 12
        or not 1 <= d <= jc.days_in_month(y, mo)
        or hh > 23
        or mi > 59
        or ss > 59
        or ms > 999
    ):
        raise NotEmulatedText(text)
    return jc.millis_of(y, mo, d, hh, mi, ss, ms)
