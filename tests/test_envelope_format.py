"""emulator.envelope_format: a payload format with any parts fixed prints what orjson prints for the payload
dict (the reference: `orjson.dumps` of the dict `TableEnvelope.change` builds), a `%` in a fixed part stays
literal, and a directory line's cuts give back its key and value (the expected line written by hand)."""

from __future__ import annotations

import itertools

import orjson
import pytest

from emulator.connect.json import Framed, JsonCodec
from emulator.connect.schema import Schema, struct
from emulator.envelope_format import line_format, payload_format, value_format

BEFORE = {"id": 1, "v": "50%"}
AFTER = {"id": 1, "v": "a%sb"}
SOURCE = {"name": "p%d", "snapshot": "first", "lsn": 42}
TX = {"id": "7:%s", "total_order": 1, "data_collection_order": 1}
TS = (1_700_000_000_123, 1_700_000_000_123_456, 1_700_000_000_123_456_789)


@pytest.mark.parametrize("fixed", list(itertools.product([False, True], repeat=4)))
def test_payload_format_is_orjson_of_the_dict(fixed):
    fb, fs, ft, fo = fixed
    want = orjson.dumps(
        {
            "before": BEFORE,
            "after": AFTER,
            "source": SOURCE,
            "transaction": TX,
            "op": "u",
            "ts_ms": TS[0],
            "ts_us": TS[1],
            "ts_ns": TS[2],
        }
    )
    fmt = payload_format(
        before=orjson.dumps(BEFORE) if fb else None,
        source=orjson.dumps(SOURCE) if fs else None,
        transaction=orjson.dumps(TX) if ft else None,
        op="u" if fo else None,
    )
    args = [] if fb else [orjson.dumps(BEFORE)]
    args.append(orjson.dumps(AFTER))
    args += [] if fs else [orjson.dumps(SOURCE)]
    args += [] if ft else [orjson.dumps(TX)]
    args += [] if fo else [b'"u"']
    assert fmt % (*args, *TS) == want


@pytest.mark.parametrize("keyed", [True, False])
def test_line_format_cuts(keyed):
    codec = JsonCodec(True)
    kf = Framed(codec, struct("p%.Key", [("id", Schema("int32"))])) if keyed else None
    vf = Framed(codec, Schema("string"))  # any frame: only its head and tail matter here
    pay = payload_format(before=b"null", source=b'{"s":"%"}', transaction=b"null", op="r")
    headers = b',"headers":[["h","x%"]]}\n'
    fmt, vstart, vtail = line_format(kf, vf, pay, headers)
    key = b'{"id":1}'
    line = (fmt % (key, b'{"id":1}', *TS)) if keyed else (fmt % (b'{"id":1}', *TS))
    payload = (
        b'{"before":null,"after":{"id":1},"source":{"s":"%"},"transaction":null,"op":"r",'
        b'"ts_ms":1700000000123,"ts_us":1700000000123456,"ts_ns":1700000000123456789}'
    )
    value = vf.head + payload + vf.tail
    key_bytes = kf.head + key + kf.tail if keyed else b"null"
    assert line == b'{"key":' + key_bytes + b',"value":' + value + headers
    start = vstart + (len(key) if keyed else 0)
    assert line[start : len(line) - vtail] == value
    assert value_format(vf, pay) % (b'{"id":1}', *TS) == value
    # no headers: the line closes right after the value
    fmt, _, vtail = line_format(kf, vf, pay, None)
    assert vtail == 2 and fmt.endswith(b"}\n")
