"""MongoDB Extended JSON exactly as the Java driver's `JsonWriter` prints it for Debezium.

Debezium writes documents with `JsonWriterSettings` {indent: true, indentCharacters: "", newLineCharacters: ""}:
`STRICT` (the legacy extended mode) for `after`/`before`/`updatedFields`/`lsid`, `RELAXED` for the key.
With indentation on but empty indent/newline strings, a document is `{"a": 1,"b": 2}` (`": "` after a
name, a bare `,` between fields) while arrays keep `", "` between elements (`[1, 2]`).

Values (legacy STRICT / RELAXED):

| BSON          | STRICT                                   | RELAXED                                           |
|---------------|------------------------------------------|---------------------------------------------------|
| int32         | `1`                                      | `1`                                               |
| int64         | `{"$numberLong": "1"}`                   | `1`                                               |
| double        | Java `Double.toString` (`1.0E7`, `NaN`)  | same; NaN/±Infinity as `{"$numberDouble": "NaN"}` |
| decimal128    | `{"$numberDecimal": "1.5"}`              | same                                              |
| date          | `{"$date": 1558965508000}`               | `{"$date": "2019-05-27T13:58:28Z"}` (years 1970-9999, else `{"$numberLong"}`) |
| ObjectId      | `{"$oid": "..."}`                        | same                                              |
| binary        | `{"$binary": "b64","$type": "04"}`       | `{"$binary": {"base64": "b64","subType": "04"}}`  |
| timestamp     | `{"$timestamp": {"t": 1,"i": 2}}`        | same                                              |
| regex         | `{"$regex": "p","$options": "i"}`        | `{"$regularExpression": {"pattern": "p","options": "i"}}` |
| min/max key   | `{"$minKey": 1}` / `{"$maxKey": 1}`      | same                                              |
| code          | `{"$code": "..."}` (`,"$scope": {...}`)  | same                                              |
| symbol        | `{"$symbol": "s"}`                       | same                                              |
| DBRef         | `{"$ref": "c","$id": ...}` (a document)  | same                                              |

Strings are escaped as the driver does: `"` `\\` `\b` `\f` `\n` `\r` `\t` by name, and every UTF-16 unit whose
Java character type is not a letter, digit, number, space separator, punctuation or symbol (controls,
format characters, marks, surrogate halves of non-BMP characters, ...) as a lowercase `\\uXXXX`.
"""

from __future__ import annotations

import base64
import datetime as _dt
import unicodedata
import uuid
from typing import Any

from bson import (
    Binary,
    Code,
    DBRef,
    Decimal128,
    Int64,
    MaxKey,
    MinKey,
    ObjectId,
    Regex,
    Timestamp,
)
from bson.datetime_ms import DatetimeMS
from bson.son import SON

from emulator.connect.javatext import double_text

STRICT = "strict"
RELAXED = "relaxed"

_RAW_CATEGORIES = frozenset(
    {
        "Lu",
        "Ll",
        "Lt",
        "Lo",
        "Nd",
        "Nl",
        "No",
        "Zs",
        "Pc",
        "Pd",
        "Ps",
        "Pe",
        "Pi",
        "Pf",
        "Po",
        "Sm",
        "Sc",
        "Sk",
        "So",
    }
)
_NAMED = {'"': '\\"', "\\": "\\\\", "\b": "\\b", "\f": "\\f", "\n": "\\n", "\r": "\\r", "\t": "\\t"}
_ESC_CACHE: dict[str, str] = {}
_EPOCH = _dt.datetime(1970, 1, 1, tzinfo=_dt.UTC)
_MAX_MS = 253402300799999  # 9999-12-31T23:59:59.999Z


def _char(c: str) -> str:
    out = _ESC_CACHE.get(c)
    if out is not None:
        return out
    named = _NAMED.get(c)
    if named is not None:
        out = named
    elif ord(c) > 0xFFFF:  # Java sees two surrogate halves: both escaped
        units = c.encode("utf-16-be")
        out = "".join(f"\\u{int.from_bytes(units[i : i + 2], 'big'):04x}" for i in (0, 2))
    elif unicodedata.category(c) in _RAW_CATEGORIES:
        out = c
    else:
        out = f"\\u{ord(c):04x}"
    if len(_ESC_CACHE) < 4096:
        _ESC_CACHE[c] = out
    return out


def quote(s: str) -> str:
    if s.isascii() and s.isprintable() and '"' not in s and "\\" not in s:
        return '"' + s + '"'
    return '"' + "".join(_char(c) for c in s) + '"'


def java_double_text(f: float) -> str:
    if f != f:
        return "NaN"
    if f in (float("inf"), float("-inf")):
        return "Infinity" if f > 0 else "-Infinity"
    a = abs(f)
    if a == 0.0:
        return "-0.0" if str(f).startswith("-") else "0.0"
    if 1e-3 <= a < 1e7:
        r = repr(f)
        return r if ("." in r or "e" in r) else r + ".0"
    return double_text(f)


def date_ms(v: Any) -> int:
    if isinstance(v, DatetimeMS):
        return int(v)
    if v.tzinfo is None:
        v = v.replace(tzinfo=_dt.UTC)
    delta = v - _EPOCH
    return (delta.days * 86400 + delta.seconds) * 1000 + delta.microseconds // 1000


def _iso(ms: int) -> str:
    d = _EPOCH + _dt.timedelta(milliseconds=ms)
    base = d.strftime("%Y-%m-%dT%H:%M:%S")
    frac = ms % 1000
    return base + (f".{frac:03d}" if frac else "") + "Z"


def _doc(items, mode: str) -> str:
    parts = [quote(str(k)) + ": " + value(v, mode) for k, v in items]
    return "{" + ",".join(parts) + "}"


def _obj(*pairs: tuple[str, str]) -> str:
    return "{" + ",".join(quote(k) + ": " + v for k, v in pairs) + "}"


def dumps(doc: Any, mode: str = STRICT) -> str:
    """A whole document (a mapping) as Debezium prints it."""
    return _doc(doc.items(), mode)


def value(v: Any, mode: str = STRICT) -> str:
    """One BSON value (a `bson` Python object as pymongo decodes it)."""
    if v is None:
        return "null"
    if v is True:
        return "true"
    if v is False:
        return "false"
    if isinstance(v, Int64):
        return _obj(("$numberLong", f'"{int(v)}"')) if mode == STRICT else str(int(v))
    if isinstance(v, int):
        if -(1 << 31) <= v < (1 << 31):
            return str(v)
        return _obj(("$numberLong", f'"{v}"')) if mode == STRICT else str(v)
    if isinstance(v, float):
        if mode == RELAXED and (v != v or v in (float("inf"), float("-inf"))):
            return _obj(("$numberDouble", quote(java_double_text(v))))
        return java_double_text(v)
    if isinstance(v, str):
        return quote(v)
    if isinstance(v, dict | SON):
        return _doc(v.items(), mode)
    if isinstance(v, list | tuple):
        return "[" + ", ".join(value(x, mode) for x in v) + "]"
    if isinstance(v, ObjectId):
        return _obj(("$oid", f'"{v}"'))
    if isinstance(v, _dt.datetime | DatetimeMS):
        ms = date_ms(v)
        if mode == STRICT:
            return _obj(("$date", str(ms)))
        if 0 <= ms <= _MAX_MS:
            return _obj(("$date", quote(_iso(ms))))
        return _obj(("$date", _obj(("$numberLong", f'"{ms}"'))))
    if isinstance(v, Decimal128):
        return _obj(("$numberDecimal", quote(str(v))))
    if isinstance(v, Binary | bytes | uuid.UUID):
        if isinstance(v, uuid.UUID):
            data, sub = v.bytes, 4
        elif isinstance(v, Binary):
            data, sub = bytes(v), v.subtype
        else:
            data, sub = bytes(v), 0
        b64 = base64.b64encode(data).decode()
        st = f"{sub:02X}"
        if mode == STRICT:
            return _obj(("$binary", f'"{b64}"'), ("$type", f'"{st}"'))
        return _obj(("$binary", _obj(("base64", f'"{b64}"'), ("subType", f'"{st}"'))))
    if isinstance(v, Timestamp):
        return _obj(("$timestamp", _obj(("t", str(v.time)), ("i", str(v.inc)))))
    if isinstance(v, Regex):
        flags = v.flags if isinstance(v.flags, str) else _re_flags(v.flags)
        if mode == STRICT:
            return _obj(("$regex", quote(v.pattern)), ("$options", quote(flags)))
        return _obj(("$regularExpression", _obj(("pattern", quote(v.pattern)), ("options", quote(flags)))))
    if hasattr(v, "pattern") and hasattr(v, "flags"):  # a compiled re.Pattern
        return value(Regex.from_native(v), mode)
    if isinstance(v, MinKey):
        return _obj(("$minKey", "1"))
    if isinstance(v, MaxKey):
        return _obj(("$maxKey", "1"))
    if isinstance(v, Code):
        if v.scope is not None:
            return _obj(("$code", quote(str(v))), ("$scope", _doc(v.scope.items(), mode)))
        return _obj(("$code", quote(str(v))))
    if isinstance(v, DBRef):
        return _doc(v.as_doc().items(), mode)
    raise TypeError(f"cannot write {type(v).__name__} as extended JSON")


def _re_flags(flags: int) -> str:
    import re

    out = ""
    for f, ch in (
        (re.IGNORECASE, "i"),
        (re.LOCALE, "l"),
        (re.MULTILINE, "m"),
        (re.DOTALL, "s"),
        (re.UNICODE, "u"),
        (re.VERBOSE, "x"),
    ):
        if flags & f:
            out += ch
    return out


def key_string(id_value: Any) -> str:
    """The key's `id`: the `_id` in RELAXED mode, as `{"_id": X}` printed and then unwrapped."""
    return value(id_value, RELAXED)
