"""Parsing property values the way Debezium does: integers, booleans, regex lists (RegExSplitter,
anchored, case-insensitive)."""

from __future__ import annotations

import re

from emulator.settings.errors import ConfigError, show_value
from emulator.settings.spec import INT_RANGES, LONG

_INT_TEXT = re.compile(r"[+-]?[0-9]+")
DOUBLE_TEXT = re.compile(
    r"[+-]?(?:[0-9]+\.?[0-9]*|\.[0-9]+)(?:[eE][+-]?[0-9]+)?[dDfF]?|[+-]?(?:NaN|Infinity)"
)


def parse_int(name: str, value: str, type_: str = LONG) -> int:
    text = value.strip()
    if not _INT_TEXT.fullmatch(text):
        raise ConfigError(f"{name}: {show_value(value)} is not an integer", name)
    number = int(text)
    low, high = INT_RANGES.get(type_, INT_RANGES[LONG])
    if not low <= number <= high:
        raise ConfigError(f"{name}: {number} is out of range for a {type_} ({low}..{high})", name)
    return number


def parse_bool(name: str, value: str) -> bool:
    text = value.strip().lower()
    if text == "true":
        return True
    if text == "false":
        return False
    raise ConfigError(f"{name}: {show_value(value)} is not a boolean; allowed values: true, false", name)


def split_regex_list(name: str, value: str) -> list[str]:
    """Debezium's ``Strings.RegExSplitter``: split on commas not escaped by a backslash, trim, ``\\,`` -> ``,``."""
    parts: list[str] = []
    start = 0
    i = 0
    n = len(value)
    while i < n:
        c = value[i]
        if c == "\\":
            if i + 1 >= n:
                raise ConfigError(
                    f"{name}: unterminated escape sequence at the end of {show_value(value)}", name
                )
            i += 2
            continue
        if c == ",":
            parts.append(value[start:i])
            start = i + 1
        i += 1
    parts.append(value[start:])
    result = []
    for part in parts:
        part = part.strip().replace("\\,", ",")
        if part:
            result.append(part)
    return result


_LEADING_FLAGS = re.compile(r"\A((?:\(\?[aiLmsux]+\))*)")


def compile_anchored(name: str, expression: str, flags: int = re.IGNORECASE) -> re.Pattern[str]:
    lead = _LEADING_FLAGS.match(expression)
    head = lead.group(1) if lead else ""
    body = expression[len(head) :]
    try:
        re.compile(expression, flags)  # errors then point into the user's own text
        return re.compile(rf"{head}\A(?:{body})\Z", flags)
    except re.error as exc:
        raise ConfigError(
            f"{name}: invalid regular expression {show_value(expression)}: {exc}", name
        ) from None


def regex_items(name: str, value: str) -> list[str]:
    return split_regex_list(name, value)
