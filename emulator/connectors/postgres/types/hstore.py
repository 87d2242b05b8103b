"""hstore text -> JSON text or a map, keys in Java `HashMap` iteration order as pgjdbc builds them."""

from __future__ import annotations

import re
import struct as _struct
from typing import Any

from emulator.connectors.postgres.types.encoders import jq

_HSTORE_PAIR = re.compile(r'"((?:[^"\\]|\\.)*)"=>(?:"((?:[^"\\]|\\.)*)"|(NULL))')
_BACKSLASH_ESCAPE = re.compile(r"\\(.)", re.S)


def _hstore_parse(s: str) -> list[tuple[str, str | None]]:
    """hstore_out text `"k"=>"v", "k2"=>NULL` -> pairs in text order (as HStoreConverter.fromString)."""
    pairs = _HSTORE_PAIR.findall(s)
    if "\\" in s:
        unesc = _BACKSLASH_ESCAPE.sub
        return [(unesc(r"\1", k), None if n else unesc(r"\1", v)) for k, v, n in pairs]
    return [(k, None if n else v) for k, v, n in pairs]


def _hstore_parse_java(s: str) -> list[tuple[str, str | None]]:
    """pgjdbc HStoreConverter.fromString, step by step (reference for `_hstore_parse`)."""
    pairs: list[tuple[str, str | None]] = []
    pos = 0
    n = len(s)
    while pos < n:
        start = s.find('"', pos)
        if start < 0:
            break
        key, end = _hstore_until_quote(s, start)
        pos = end + 3
        if s[pos] == "N":
            val = None
            pos += 4
        else:
            val, end = _hstore_until_quote(s, pos)
            pos = end
        pos += 1
        pairs.append((key, val))
    return pairs


def _hstore_until_quote(s: str, pos: int) -> tuple[str, int]:
    buf = []
    pos += 1
    n = len(s)
    while pos < n:
        ch = s[pos]
        if ch == '"':
            break
        if ch == "\\":
            pos += 1
            ch = s[pos]
        buf.append(ch)
        pos += 1
    return "".join(buf), pos


_HASH_CACHE: dict[str, int] = {}


def _java_string_hash(s: str) -> int:
    """String.hashCode() spread as HashMap.hash() does: h ^ (h >>> 16), as an unsigned 32-bit int."""
    h = _HASH_CACHE.get(s)
    if h is None:
        h = 0
        for cu in _utf16_units(s):
            h = (31 * h + cu) & 0xFFFFFFFF
        h ^= h >> 16
        if len(_HASH_CACHE) > 100_000:
            _HASH_CACHE.clear()
        _HASH_CACHE[s] = h
    return h


def _utf16_units(s: str):
    if s.isascii():
        return s.encode("ascii")
    b = s.encode("utf-16-le", "surrogatepass")
    return _struct.unpack(f"<{len(b) // 2}H", b)


def _java_hashmap_order(pairs: list[tuple[str, Any]]) -> list[tuple[str, Any]]:
    """Iteration order of a java.util.HashMap filled with `pairs` in order (no treeified bins)."""
    n = len(pairs)
    if n <= 1:
        return pairs
    if n <= 8:  # cannot resize nor treeify: a stable sort by bucket of a 16-slot table
        keys = [k for k, _ in pairs]
        if len(set(keys)) == n:
            return sorted(pairs, key=lambda kv: _java_string_hash(kv[0]) & 15)
    cap, thr = 16, 12
    bins: dict[int, list[int]] = {}
    entries: list[list] = []  # [key, value, spread hash]
    index: dict[str, int] = {}
    for k, v in pairs:
        pos = index.get(k)
        if pos is not None:
            entries[pos][1] = v
            continue
        h = _java_string_hash(k)
        index[k] = len(entries)
        entries.append([k, v, h])
        b = bins.setdefault(h & (cap - 1), [])
        b.append(len(entries) - 1)
        grow = len(b) > 8 and cap < 64  # treeifyBin resizes small tables instead
        if grow:
            cap, thr, bins = _rehash(bins, entries, cap * 2)
        if len(entries) > thr:
            cap, thr, bins = _rehash(bins, entries, cap * 2)
    out = []
    for i in sorted(bins):
        out.extend((entries[e][0], entries[e][1]) for e in bins[i])
    return out


def _rehash(
    bins: dict[int, list[int]], entries: list[list], cap: int
) -> tuple[int, int, dict[int, list[int]]]:
    nb: dict[int, list[int]] = {}
    for i in sorted(bins):
        for e in bins[i]:
            nb.setdefault(entries[e][2] & (cap - 1), []).append(e)
    return cap, cap * 3 // 4, nb


def _hstore_json_from_pairs(pairs: list[tuple[str, str | None]]) -> str:
    return (
        "{"
        + ",".join(jq(k) + ":" + ("null" if v is None else jq(v)) for k, v in _java_hashmap_order(pairs))
        + "}"
    )


def hstore_json(t: str) -> str:
    return _hstore_json_from_pairs(_hstore_parse(t))


def hstore_map(t: str) -> dict:
    return dict(_java_hashmap_order(_hstore_parse(t)))
