"""Kafka's HeaderFrom on a struct without the named field: `schema.field(name).schema()` throws the JVM's helpful
NullPointerException, whose text Debezium 3.6.3 printed in connect campaign seeds 117-122 (HeaderFrom$Key on a key
without `id`, both sides failing on the same record); the emulator had written its own words."""

from __future__ import annotations

import pytest

from emulator.connect.record import ConnectRecord
from emulator.connect.schema import Field, Schema
from emulator.connect.transforms.base import Options, TransformError
from emulator.connect.transforms.headers import HeaderFromT


class _HeaderFromValue(HeaderFromT):
    key = False


def test_a_missing_field_fails_with_the_jvm_text() -> None:
    t = _HeaderFromValue(Options("transforms.h.", {"fields": "id", "headers": "h", "operation": "copy"}))
    schema = Schema("struct", name="K", fields=[Field("op", Schema("string"))])
    record = ConnectRecord("t", None, None, None, schema, {"op": "c"})
    debezium = (
        'Cannot invoke "org.apache.kafka.connect.data.Field.schema()" because the return value of '
        '"org.apache.kafka.connect.data.Schema.field(String)" is null'
    )
    with pytest.raises(TransformError) as e:
        t.apply(record)
    assert str(e.value) == debezium
