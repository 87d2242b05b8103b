"""Java ``.properties`` text parsed with ``java.util.Properties.load`` semantics."""

from __future__ import annotations

import re
from collections.abc import Iterable

from emulator.settings.errors import ConfigError

_NATURAL_LINES = re.compile(r"\r\n|\r|\n")
_WS = " \t\f"


def _trailing_backslashes(text: str) -> int:
    count = 0
    for ch in reversed(text):
        if ch != "\\":
            break
        count += 1
    return count


def _logical_lines(text: str) -> Iterable[tuple[int, str]]:
    """``java.util.Properties.LineReader``: comment and blank lines dropped, continuations joined."""
    lines = _NATURAL_LINES.split(text)
    i = 0
    while i < len(lines):
        lineno = i + 1
        line = lines[i].lstrip(_WS)
        i += 1
        if not line or line[0] in "#!":
            continue
        logical = line
        while _trailing_backslashes(logical) % 2 == 1:
            logical = logical[:-1]
            if i >= len(lines):
                break
            logical += lines[i].lstrip(_WS)
            i += 1
        yield lineno, logical


def _unescape(text: str, lineno: int, key: str | None) -> str:
    """``Properties.loadConvert``: ``\\uXXXX``, ``\\t \\n \\r \\f``, and ``\\x`` -> ``x``."""
    if "\\" not in text:
        return text
    out: list[str] = []
    i = 0
    n = len(text)
    while i < n:
        c = text[i]
        i += 1
        if c != "\\":
            out.append(c)
            continue
        if i >= n:
            break  # a lone trailing backslash (only possible at end of input) is dropped, as in Java
        c = text[i]
        i += 1
        if c == "u":
            digits = text[i : i + 4]
            if len(digits) != 4 or any(d not in "0123456789abcdefABCDEF" for d in digits):
                where = f" in the value of {key}" if key is not None else ""
                raise ConfigError(f"malformed \\uxxxx encoding{where} at line {lineno}: \\u{digits}", key)
            out.append(chr(int(digits, 16)))
            i += 4
        elif c == "t":
            out.append("\t")
        elif c == "n":
            out.append("\n")
        elif c == "r":
            out.append("\r")
        elif c == "f":
            out.append("\f")
        else:
            out.append(c)
    result = "".join(out)
    if any("\ud800" <= ch <= "\udfff" for ch in result):
        # Java strings are UTF-16: a \\uD83D\\uDE00 pair is one character
        result = result.encode("utf-16-le", "surrogatepass").decode("utf-16-le", "surrogatepass")
    return result


def _split_key_value(line: str) -> tuple[str, str]:
    """``Properties.load0``: the key ends at the first unescaped ``=``, ``:`` or whitespace."""
    limit = len(line)
    key_len = 0
    value_start = limit
    has_sep = False
    preceding_backslash = False
    while key_len < limit:
        c = line[key_len]
        if c in "=:" and not preceding_backslash:
            value_start = key_len + 1
            has_sep = True
            break
        if c in _WS and not preceding_backslash:
            value_start = key_len + 1
            break
        preceding_backslash = (not preceding_backslash) if c == "\\" else False
        key_len += 1
    while value_start < limit:
        c = line[value_start]
        if c not in _WS:
            if not has_sep and c in "=:":
                has_sep = True
            else:
                break
        value_start += 1
    return line[:key_len], line[value_start:]


def parse_properties(text: str) -> dict[str, str]:
    """Parse Java ``.properties`` text exactly like ``java.util.Properties.load``; later keys win.

    A leading byte-order mark is ignored.  Raises :class:`ConfigError` on a malformed ``\\uXXXX`` escape.
    """
    if text.startswith("\ufeff"):
        text = text[1:]
    result: dict[str, str] = {}
    for lineno, line in _logical_lines(text):
        raw_key, raw_value = _split_key_value(line)
        key = _unescape(raw_key, lineno, None)
        result[key] = _unescape(raw_value, lineno, key)
    return result


def decode_properties_text(data: bytes) -> str:
    if data.startswith(b"\xef\xbb\xbf"):
        data = data[3:]
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        return data.decode("iso-8859-1")
