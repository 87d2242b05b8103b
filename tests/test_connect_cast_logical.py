"""Kafka's Cast of a whole value keeps the schema's name (SchemaUtil.copySchemaBasics). On a Connect logical type
(Decimal, Date, Time, Timestamp) with a default, SchemaBuilder.defaultValue validates the cast default against the
logical type's Java class and fails the record ("Invalid default value"; connect seed 112 trial 14, recorded as
the connect case pg_cast_whole_logical_default). Without a default, the converters decide (JsonConverter fails the
value, StringConverter prints it): not followed, the task stops (NotEmulated)."""

from __future__ import annotations

from decimal import Decimal

import pytest

from emulator.connect.converters.errors import NotEmulated
from emulator.connect.record import DECIMAL, ConnectRecord
from emulator.connect.schema import Schema
from emulator.connect.transforms.base import Options, TransformError
from emulator.connect.transforms.cast import CastT


class _CastValue(CastT):
    key = False


def _cast(spec: str) -> CastT:
    return _CastValue(Options("transforms.w.", {"spec": spec}))


def _record(schema: Schema, value) -> ConnectRecord:
    return ConnectRecord("t", None, None, None, schema, value)


def test_whole_cast_of_a_decimal_with_a_default_fails_the_record() -> None:
    schema = Schema(
        "bytes", optional=True, name=DECIMAL, version=1, parameters={"scale": "2"}, default="AJY="
    )
    with pytest.raises(TransformError, match="Invalid default value"):
        _cast("string").apply(_record(schema, Decimal("1.50")))


def test_whole_cast_of_a_decimal_without_a_default_stops() -> None:
    schema = Schema("bytes", optional=True, name=DECIMAL, version=1, parameters={"scale": "2"})
    with pytest.raises(NotEmulated):
        _cast("float64").apply(_record(schema, Decimal("1.50")))


def test_whole_cast_of_a_plain_int_is_a_cast() -> None:
    out = _cast("string").apply(_record(Schema("int32", optional=True, default=7), 5))
    assert out is not None and out.value == "5" and out.value_schema.type == "string"
