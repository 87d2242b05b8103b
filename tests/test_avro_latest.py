"""AvroConverter `use.latest.version` with a latest schema other than the record's (emulator/connect/converters/
avro_latest.py): Avro 1.11's reader/writer compatibility check, and Avro's GenericDatumWriter of the latest schema
over the record's datum, which reads fields by position. Expected bytes from the Avro binary encoding (zigzag
varints, length-prefixed strings, union index first); expected verdicts from Avro's SchemaCompatibility rules.
The recorded cases: tests/data/connect/pg_avro_latest_merged*.jsonl (real Debezium 3.6.3)."""

from __future__ import annotations

import json

import pytest

from emulator.connect.converters import avro_latest as L
from emulator.connect.converters.avro_converter import AvroConverter
from emulator.connect.converters.errors import ConversionError, NotEmulated
from emulator.connect.converters.registry import MockRegistry
from emulator.connect.schema import Field, Schema


def rec(name: str, *fields, ns: str | None = None) -> dict:
    out = {
        "type": "record",
        "name": name,
        "fields": [{"name": f[0], "type": f[1], **(f[2] if len(f) > 2 else {})} for f in fields],
    }
    if ns:
        out["namespace"] = ns
    return out


def parse(j: dict) -> object:
    return L.parse(json.dumps(j))


def compatible(reader: dict, writer: dict) -> bool:
    return not L.incompatibilities(parse(reader), parse(writer))


def test_compatibility_rules() -> None:
    row = rec("Value", ("id", "int"), ("v", ["null", "string"], {"default": None}), ns="a.t1")
    # the same simple name in another namespace: Avro compares names without their namespace
    assert compatible(rec("Value", ("id", "int"), ns="b.t2"), row)
    assert not compatible(rec("Other", ("id", "int")), row)
    # a reader field the writer lacks needs a default
    assert compatible(rec("Value", ("id", "int"), ("x", "string", {"default": "d"})), row)
    assert not compatible(rec("Value", ("id", "int"), ("x", "string")), row)
    # promotions: int -> long / float / double, string <-> bytes; never narrowing
    assert compatible(rec("Value", ("id", "long")), row)
    assert compatible(rec("Value", ("id", "double")), row)
    assert not compatible(rec("Value", ("id", "int")), rec("Value", ("id", "long")))
    assert compatible(rec("Value", ("id", "int"), ("v", ["null", "bytes"], {"default": None})), row)
    # a writer union needs every branch readable; a reader union needs one branch for the writer's type
    assert not compatible(rec("Value", ("id", "int"), ("v", "string")), row)
    assert compatible(rec("Value", ("id", ["null", "int"], {"default": None})), row)
    # a named type met again is a reference
    twice = rec(
        "E",
        ("before", ["null", row], {"default": None}),
        ("after", ["null", "a.t1.Value"], {"default": None}),
    )
    assert compatible(twice, twice)


def write(latest: dict, own: dict, data: bytes) -> bytes:
    out = bytearray()
    L.write_top(parse(latest), L.datum(parse(own), data), out)
    return bytes(out)


def test_the_latest_schema_writes_by_position() -> None:
    own = rec("Value", ("id", "int"), ("v", ["null", "string"], {"default": None}), ns="a.t1")
    data = b"\x06\x02\x02x"  # id 3, v = "x" (union branch 1)
    # same layout, other names of the records: the same bytes
    assert write(rec("Value", ("id", "int"), ("v", ["null", "string"]), ns="b.t2"), own, data) == data
    # int written as long: the same varint; branch order of the latest's union decides the index
    assert write(rec("Value", ("id", "long"), ("v", ["string", "null"])), own, data) == b"\x06\x00\x02x"
    # fewer fields in the latest: the datum's last ones are not written
    assert write(rec("Value", ("id", "int")), own, data) == b"\x06"
    # more fields than the datum: ArrayIndexOutOfBounds, the record fails
    with pytest.raises(L.WriteFailed):
        write(rec("Value", ("id", "int"), ("v", ["null", "string"]), ("w", "int", {"default": 0})), own, data)
    # a string where the latest has an int: ClassCastException
    with pytest.raises(L.WriteFailed):
        write(rec("Value", ("id", "int"), ("v", ["null", "int"])), own, data)
    # other names at the same places: Debezium writes `v` as `w`: not copied (data in the wrong field)
    with pytest.raises(L.Misplaced):
        write(rec("Value", ("id", "int"), ("w", ["null", "string"])), own, data)
    # a long that does not fit an int: Java's intValue() would change it
    big = rec("Value", ("id", "long"))
    with pytest.raises(L.Misplaced):
        write(rec("Value", ("id", "int")), big, b"\x80\x80\x80\x80\x20")  # 2**32


def test_a_union_takes_the_branch_of_the_datums_full_name() -> None:
    own = rec("E", ("after", ["null", rec("Value", ("id", "int"), ns="a.t1")]))
    other = rec("E", ("after", ["null", rec("Value", ("id", "int"), ns="a.t2")]))
    assert L.datum(parse(own), b"\x02\x06") == (
        "record",
        "E",
        [("after", ("record", "a.t1.Value", [("id", ("int", 3))]))],
    )
    with pytest.raises(L.WriteFailed):  # GenericData.resolveUnion: no branch named a.t1.Value
        write(other, own, b"\x02\x06")
    assert write(other, own, b"\x00") == b"\x00"  # a null `after` resolves


def test_the_converter_with_a_latest_schema() -> None:
    reg = MockRegistry("latest-unit")
    s = Schema(
        "struct",
        name="ns.Row",
        fields=[Field("id", Schema("int32")), Field("v", Schema("string", optional=True))],
    )
    latest = {"type": "record", "name": "Row", "namespace": "ns2", "fields": [{"name": "id", "type": "long"}]}
    sid = reg.register("t-value", json.dumps(latest))
    conv = AvroConverter(reg, False, auto_register=False, use_latest_version=True)
    assert (
        conv.from_connect_data("t", None, s, {"id": 3, "v": "x"})
        == b"\x00" + sid.to_bytes(4, "big") + b"\x06"
    )
    reg.register(
        "u-value", json.dumps({"type": "record", "name": "Other", "fields": [{"name": "id", "type": "int"}]})
    )
    with pytest.raises(ConversionError, match="Incompatible schema") as err:  # the record's name is Row
        conv.from_connect_data("u", None, s, {"id": 3, "v": "x"})
    assert not isinstance(err.value, NotEmulated)
    loose = AvroConverter(
        reg, False, auto_register=False, use_latest_version=True, latest_compatibility_strict=False
    )
    with pytest.raises(NotEmulated):  # no check: Debezium would write `id` as `x`
        reg.register(
            "w-value", json.dumps({"type": "record", "name": "W", "fields": [{"name": "x", "type": "int"}]})
        )
        loose.from_connect_data("w", None, s, {"id": 3, "v": None})
