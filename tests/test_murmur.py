"""PartitionRouting's hashes against Debezium's own classes: the values below were printed by
`io.debezium.util.MurmurHash3.getInstance().hash(v)` and `v.hashCode()` (debezium-util 3.6.3.Final on Java 17)
for each value; the emulator must give the same numbers."""

from __future__ import annotations

import pytest

from emulator.connect.schema import Schema
from emulator.connect.transforms.murmur import hash_int, hash_string
from emulator.connect.transforms.routing import java_hash_code

# (Java class, value as text, MurmurHash3.hash(value), value.hashCode())
CASES = [
    ("String", "", 89125410, 0),
    ("String", "a", -1119243492, 97),
    ("String", "orders_2024", -1614091865, -1769614822),
    ("String", "customers", 275871734, 1611562069),
    ("String", "dbserver1.public.orders_2025", -2121843650, 1549121972),
    ("String", "héllo wörld ✓ 𝄞 and more text!!", 206525595, 37591757),
    ("String", "0123456789abcdef", 26898387, 285443752),
    ("String", "0123456789abcdefg", -1536414354, 258821823),
    ("Integer", "1001", 337462060, 1001),
    ("Integer", "-7", -1990014637, -7),
    ("Integer", "0", 1805505889, 0),
    ("Integer", "2147483647", 925940511, 2147483647),
    ("Long", "1003", 771511022, 1003),
    ("Long", "-1", 1805505889, 0),
    ("Long", "123456789012", -1471995676, -1097262584),
    ("Boolean", "true", -1891831265, 1231),
    ("Boolean", "false", -682375457, 1237),
    ("Double", "3.14", -242475614, 300063655),
    ("Double", "-0.5", 1912063555, -1075838976),
]
SCHEMAS = {
    "Integer": Schema("int32"),
    "Long": Schema("int64"),
    "Boolean": Schema("boolean"),
    "Double": Schema("double"),
}
PARSE = {"Integer": int, "Long": int, "Boolean": lambda x: x == "true", "Double": float}


@pytest.mark.parametrize(("cls", "text", "murmur", "java"), CASES)
def test_hashes_match_debezium(cls: str, text: str, murmur: int, java: int) -> None:
    if cls == "String":
        assert java_hash_code(None, text) == java
        assert hash_string(text) == murmur
    else:
        code = java_hash_code(SCHEMAS[cls], PARSE[cls](text))
        assert code == java
        assert hash_int(code) == murmur
