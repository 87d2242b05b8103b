"""The Avro binary writers' fast paths (14-bit varint tables, values kept encoded while they repeat, null
checks left to the `.get` twin) against a reference encoder written by hand from the Avro 1.11 spec
(zigzag varint longs, length-prefixed UTF-8 strings, a union's branch index first). Pure Python, < 1 s."""

from __future__ import annotations

import random

import pytest

from emulator.connect.converters.avro_binary import AvroWriters, write_long
from emulator.connect.converters.errors import ConversionError
from emulator.connect.schema import Schema, struct


def spec_long(v: int) -> bytes:
    n = (v << 1) ^ (v >> 63)  # zigzag (spec: "Binary Encoding", int and long)
    out = bytearray()
    while n > 0x7F:
        out.append((n & 0x7F) | 0x80)
        n >>= 7
    out.append(n)
    return bytes(out)


def spec_string(s: str) -> bytes:
    b = s.encode()
    return spec_long(len(b)) + b


EDGES = [0, 1, -1, 63, 64, -64, -65, 8191, 8192, -8193, 2**27 - 1, 2**27, 2**28, 2**41, 2**62]
EDGES += [2**63 - 1, -(2**63)]
rng = random.Random(15)
LONGS = EDGES + [rng.randint(-(2**63), 2**63 - 1) >> rng.randint(0, 63) for _ in range(3000)]


def test_longs():
    for v in LONGS:
        out = bytearray()
        write_long(out, v)
        assert bytes(out) == spec_long(v), v


def test_generated_record():
    schema = struct(
        "x.Row",
        [
            ("a", Schema("int64")),
            ("b", Schema("int64", optional=True)),
            ("s", Schema("string")),
            ("i", Schema("int32", optional=True, default=5)),
        ],
    )
    write = AvroWriters(wire=True).writer(schema)
    for v in LONGS[:1500]:
        row = {"a": v, "b": None if v % 3 == 0 else -v >> 1, "s": "é" * (abs(v) % 9000), "i": None}
        expected = (
            spec_long(v)
            + (b"\x00" if row["b"] is None else b"\x02" + spec_long(row["b"]))
            + spec_string(row["s"])
            + b"\x00"
            + spec_long(5)  # [int, "null"] with default 5: branch 0, the default
        )
        out = bytearray()
        write(out, row)
        assert bytes(out) == expected, v


def test_repeating_source_values():
    """Source strings / ints and the event ts_ms are kept encoded between events: a change must show."""
    source = struct(
        "p.Source",
        [
            ("name", Schema("string")),
            ("db", Schema("string", optional=True)),
            ("snapshot", Schema("string", optional=True, default="false")),
            ("ts_ms", Schema("int64")),
            ("txId", Schema("int64", optional=True)),
        ],
    )
    envelope = struct(
        "p.Envelope", [("source", source), ("op", Schema("string")), ("ts_ms", Schema("int64"))]
    )
    write = AvroWriters(wire=True).writer(envelope)
    names = ["a", "a", "bé" * 9000, "bé" * 9000, "a"]
    stamps = [1, 1, 2**40, 2**40, -5, -5, 2**40, 0]
    for i in range(40):
        name, ts = names[i % len(names)], stamps[i % len(stamps)]
        db = None if i % 2 else name
        snap = None if i % 3 == 0 else ("true" if i % 2 else "false")
        tx = None if ts == 1 else ts
        value = {
            "source": {"name": name, "db": db, "snapshot": snap, "ts_ms": ts, "txId": tx},
            "op": "cu"[i % 2],
            "ts_ms": ts,
        }
        expected = (
            spec_string(name)
            + (b"\x00" if db is None else b"\x02" + spec_string(db))
            + b"\x00"
            + spec_string(snap or "false")
            + spec_long(ts)
            + (b"\x00" if tx is None else b"\x02" + spec_long(tx))
            + spec_string(value["op"])
            + spec_long(ts)
        )
        out = bytearray()
        write(out, value)
        assert bytes(out) == expected, i


def test_source_template():
    """A source block with per-event fields (PostgreSQL's sequence and lsn) is written from a template of the
    other fields' bytes, kept while their values repeat: every change of one of them, a null in an optional
    one, a per-event value of any size must show; a null in a required one is still the ConversionError."""
    source = struct(
        "p.Source",
        [
            ("name", Schema("string")),
            ("ts_ms", Schema("int64")),
            ("snapshot", Schema("string", optional=True, default="false")),
            ("sequence", Schema("string", optional=True)),
            ("txId", Schema("int64", optional=True)),
            ("flag", Schema("boolean", optional=True)),
            ("lsn", Schema("int64", optional=True)),
            ("xmin", Schema("int64", optional=True)),
        ],
    )
    envelope = struct("p.Envelope", [("source", source), ("op", Schema("string"))])
    write = AvroWriters(wire=True).writer(envelope)
    names = ["a", "a", "a", "bé" * 9000, "bé" * 9000, "a"]
    stamps = [1, 1, 2**40, 2**40, 2**40, -5, 0]
    for i in range(60):
        name, ts = names[i % len(names)], stamps[i % len(stamps)]
        snap = None if i % 4 == 0 else ("true" if i % 4 == 1 else "false")
        seq = None if i % 5 == 0 else f'[null,"{i * 2**33}"]' * (1 + 3000 * (i % 7 == 0))
        tx = None if ts == 1 else ts
        flag = None if i % 9 == 0 else i % 2 == 1
        lsn = None if i % 6 == 0 else LONGS[i]
        xmin = 1 if i % 8 == 0 else None
        src = {"name": name, "ts_ms": ts, "snapshot": snap, "sequence": seq, "txId": tx, "flag": flag}
        value = {"source": {**src, "lsn": lsn, "xmin": xmin}, "op": "c"}
        expected = (
            spec_string(name)
            + spec_long(ts)
            + b"\x00"
            + spec_string(snap or "false")
            + (b"\x00" if seq is None else b"\x02" + spec_string(seq))
            + (b"\x00" if tx is None else b"\x02" + spec_long(tx))
            + (b"\x00" if flag is None else b"\x02" + bytes((flag,)))
            + (b"\x00" if lsn is None else b"\x02" + spec_long(lsn))
            + (b"\x00" if xmin is None else b"\x02" + spec_long(xmin))
            + spec_string("c")
        )
        out = bytearray()
        write(out, value)
        assert bytes(out) == expected, i
        if i % 10 == 3:  # right after a hit: a null in a required field of the template
            with pytest.raises(ConversionError, match="^Found null value for non-optional schema$"):
                write(bytearray(), {"source": {**value["source"], "name": None}, "op": "c"})


@pytest.mark.parametrize("bad", [{"a": None, "s": "x"}, {"a": 1, "s": None}, {"a": 1}])
def test_required_null_is_a_conversion_error(bad):
    write = AvroWriters(wire=True).writer(struct("x.Y", [("a", Schema("int64")), ("s", Schema("string"))]))
    with pytest.raises(ConversionError, match="^Found null value for non-optional schema$"):
        write(bytearray(), bad)
