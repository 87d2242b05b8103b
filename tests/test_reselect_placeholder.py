"""Which field values ReselectColumnsPostProcessor takes for the unavailable-value placeholder: its
isUnavailableValueHolder by schema type (Debezium 3.6.3, read from the source), on the emulator's JSON-ready
values. The records themselves are checked against Debezium by the pg cases reselect_*."""

from __future__ import annotations

import base64

from emulator.connect.schema import ARRAY, BYTES, INT16, INT32, INT64, MAP, STRING, Schema
from emulator.postprocessors.reselect import Placeholder

P = Placeholder(b"__debezium_unavailable_value")
TEXT = "__debezium_unavailable_value"
SIGNED = list(b"__debezium_unavailable_value")  # ASCII: no byte above 127


def _is(schema: Schema, value) -> bool:
    test = P.detector(schema)
    return test is not None and test(value)


def test_strings_json_and_hstore_json() -> None:
    assert _is(Schema(STRING), TEXT)
    assert not _is(Schema(STRING), TEXT + "x")
    json = Schema(STRING, name="io.debezium.data.Json")
    assert _is(json, '{"' + TEXT + '":"' + TEXT + '"}') and _is(json, TEXT)
    assert not _is(Schema(STRING), '{"' + TEXT + '":"' + TEXT + '"}')  # only a Json-named field


def test_bytes_and_map() -> None:
    assert _is(Schema(BYTES), base64.b64encode(TEXT.encode()).decode())
    # a Decimal is a BigDecimal in Debezium's Struct, never the placeholder's byte[]
    assert P.detector(Schema(BYTES, name="org.apache.kafka.connect.data.Decimal")) is None
    assert _is(Schema(MAP), {TEXT: TEXT})


def test_arrays() -> None:
    assert _is(Schema(ARRAY, items=Schema(STRING)), ["a", TEXT])
    assert _is(Schema(ARRAY, items=Schema(INT32)), SIGNED)
    assert _is(Schema(ARRAY, items=Schema(INT64)), SIGNED)
    assert not _is(Schema(ARRAY, items=Schema(INT32)), SIGNED[:-1])
    assert P.detector(Schema(ARRAY, items=Schema(INT16))) is None  # only int32/int64 arrays compare whole
    assert not _is(Schema(ARRAY, items=Schema(STRING)), None)


def test_other_types_never_hold_it() -> None:
    assert P.detector(Schema(INT32)) is None
    assert P.detector(Schema(INT64, name="io.debezium.time.MicroTimestamp")) is None


def test_signed_bytes() -> None:
    assert Placeholder(bytes([0xFF, 0x01])).ints == [-1, 1]
