"""The CloudEventsConverter reads metadata headers where Debezium casts them to String: a header of another type
fails the record with the JDK's ClassCastException text, which Debezium 3.6.3 printed in connect campaign seed
117 trial 2 (an InsertHeader literal, an int8 through the JsonConverter header converter: java.lang.Byte). A
Struct keeps the emulator's own words (its class loader's name is the runtime's)."""

from __future__ import annotations

import json

import pytest

from emulator.connect.converters.cloudevents_meta import header_string
from emulator.connect.converters.errors import ConversionError


def _json(schema: dict | None, payload) -> bytes:
    return json.dumps({"schema": schema, "payload": payload}).encode()


@pytest.mark.parametrize(
    "raw,cls",
    [
        (_json({"type": "int8", "optional": False}, 3), "java.lang.Byte"),  # seed 117 trial 2
        (_json({"type": "int32", "optional": False}, 3), "java.lang.Integer"),
        (_json({"type": "boolean", "optional": False}, True), "java.lang.Boolean"),
        (_json(None, 7), "java.lang.Long"),  # schemaless JSON: an integral number is a Long
        # the lead's connect campaign 125 trial 15 (InsertHeader literal 0.1 -> float32; Debezium 3.6.3 printed
        # java.lang.Float): JsonConverter spells float32 / float64 `float` / `double`
        (_json({"type": "float", "optional": False}, 0.1), "java.lang.Float"),
        (_json({"type": "double", "optional": False}, -2.5), "java.lang.Double"),
        (_json(None, -2.5), "java.lang.Double"),
        (
            _json({"type": "int32", "optional": False, "name": "org.apache.kafka.connect.data.Date"}, 1),
            "java.util.Date",
        ),
    ],
)
def test_a_header_that_is_no_string_fails_with_the_jdk_text(raw: bytes, cls: str) -> None:
    with pytest.raises(ConversionError) as e:
        header_string([("type", raw)], "type", False)
    assert str(e.value) == (
        f"class {cls} cannot be cast to class java.lang.String ({cls} and java.lang.String are in module "
        "java.base of loader 'bootstrap')"
    )


def test_a_struct_header_keeps_its_own_words() -> None:
    schema = {
        "type": "struct",
        "optional": False,
        "fields": [{"field": "a", "type": "int32", "optional": False}],
    }
    with pytest.raises(
        ConversionError, match="class of header `type` cannot be cast to class java.lang.String"
    ):
        header_string([("type", _json(schema, {"a": 1}))], "type", False)
