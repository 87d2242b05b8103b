"""Debezium's name adjusters: `schema.name.adjustment.mode` and `field.name.adjustment.mode`.

`none` keeps names as they are; `avro` replaces every character Avro does not allow with `_` (a
leading digit keeps the digit after the `_`); `avro_unicode` replaces it with `_uXXXX` (hex of the
UTF-16 unit, padded to 4 only when it has at most 2 digits) and treats `_` itself as invalid. Schema
names may contain `.` (namespaces); field names may not. As SchemaNameAdjuster and its replacement
functions in Debezium 3.6.
"""

from __future__ import annotations

from collections.abc import Callable

Adjuster = Callable[[str], str]
_ALPHA = frozenset("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ")
_DIGITS = frozenset("0123456789")


def _units(name: str) -> list[str]:
    """The string as Java sees it: UTF-16 code units (a character outside the BMP is two)."""
    out = []
    for ch in name:
        if ord(ch) > 0xFFFF:
            b = ch.encode("utf-16-be")
            out += [chr(b[0] << 8 | b[1]), chr(b[2] << 8 | b[3])]
        else:
            out.append(ch)
    return out


def _unicode(c: str) -> str:
    h = format(ord(c), "x")
    return "_u" + ("00" + h if len(h) <= 2 else h)


def _make(unicode: bool, dots: bool) -> Adjuster:
    first_ok = _ALPHA if unicode else _ALPHA | {"_"}
    rest_ok = first_ok | _DIGITS | ({"."} if dots else set())
    cache: dict[str, str] = {}

    def adjust(name: str) -> str:
        got = cache.get(name)
        if got is not None:
            return got
        if not name or (name[0] in first_ok and all(c in rest_ok for c in name[1:])):
            cache[name] = name
            return name
        units = _units(name)
        c = units[0]
        out = []
        if c in first_ok:
            out.append(c)
        elif unicode:
            out.append(_unicode(c))
        else:
            out.append("_" + c if c in _DIGITS else "_")
        for c in units[1:]:
            out.append(c if c in rest_ok else (_unicode(c) if unicode else "_"))
        cache[name] = res = "".join(out)
        return res

    return adjust


def schema_name_adjuster(mode: str | None) -> Adjuster | None:
    """None for `none` (the default): names are used as they are."""
    mode = (mode or "none").lower()
    if mode == "none":
        return None
    if mode in ("avro", "avro_unicode"):
        return _make(mode == "avro_unicode", dots=True)
    raise ValueError(f"schema.name.adjustment.mode {mode!r} is not one of none, avro, avro_unicode")


def field_name_adjuster(mode: str | None) -> Adjuster | None:
    mode = (mode or "none").lower()
    if mode == "none":
        return None
    if mode in ("avro", "avro_unicode"):
        return _make(mode == "avro_unicode", dots=False)
    raise ValueError(f"field.name.adjustment.mode {mode!r} is not one of none, avro, avro_unicode")
