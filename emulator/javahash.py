"""Java's `String.hashCode()` and `java.util.HashMap` iteration order, where Debezium's output shows them.

A HashMap iterates bucket by bucket (bucket = spread hash & (table size - 1)), in insertion order within a
bucket (resizes keep it); the table starts at 16 entries, doubles past 0.75 load, and `clear()` keeps its
size.  Tree bins (more than 8 keys in one bucket of a table of 64 or more) are not modelled.
"""

from __future__ import annotations

from collections.abc import Iterable


def string_hash(s: str) -> int:
    """`String.hashCode()` over UTF-16 code units, as an unsigned 32-bit int."""
    data = s.encode("utf-16-be")
    h = 0
    for i in range(0, len(data), 2):
        h = (31 * h + (data[i] << 8 | data[i + 1])) & 0xFFFFFFFF
    return h


def table_size(n: int, at_least: int = 16) -> int:
    """The table size of a HashMap holding `n` keys put one by one into a table of `at_least` entries."""
    cap = at_least
    while n > cap * 0.75:
        cap <<= 1
    return cap


def hashmap_order(keys: Iterable[str], capacity: int = 16) -> list[str]:
    """Iteration order of a HashMap whose table has `capacity` entries, filled with `keys` in this order."""
    mask = capacity - 1
    ranked = []
    for i, k in enumerate(keys):
        h = string_hash(k)
        ranked.append(((h ^ (h >> 16)) & mask, i, k))
    ranked.sort()
    return [k for _, _, k in ranked]
