"""The words a connect task stops with, against what real Debezium 3.6.3 printed in the connect campaigns.

The recordings in tests/data/connect/failures/ are the oracle's `error` of a both-fail trial (Debezium's
exception, as emulator.testing.oracle_connect saw it) and the emulator's one line of the same trial:
`timestamp_router.*` is session 21's connect seed 123 trial 9 (MariaDB, TimestampRouter on the first record),
`float_header.*` the lead's connect campaign 125 trial 15 (an InsertHeader float literal read as a
CloudEvents `dataSchemaName`; the emulator's line there is the one before 3c94d67).
"""

from __future__ import annotations

from pathlib import Path

import pytest

from emulator.connect.record import ConnectRecord
from emulator.connect.schema import Field, Schema
from emulator.connect.transforms.base import Options, TransformError
from emulator.connect.transforms.fields import ExtractFieldT
from emulator.connect.transforms.routing import TimestampRouter
from emulator.testing.connect_failure import (
    compare_failures,
    debezium_failure,
    emulator_failure,
    normalized,
)

DATA = Path(__file__).parent / "data" / "connect" / "failures"


def _text(name: str) -> str:
    return (DATA / name).read_text().rstrip("\n")


CAST = (
    "class java.lang.Float cannot be cast to class java.lang.String (java.lang.Float and java.lang.String are "
    "in module java.base of loader 'bootstrap')"
)


def test_debezium_failure_is_the_class_and_the_message_without_its_repr() -> None:
    assert debezium_failure(_text("float_header.meta_error.txt")) == ("java.lang.ClassCastException", CAST)
    cls, msg = debezium_failure(_text("timestamp_router.meta_error.txt"))
    assert cls == "org.apache.kafka.connect.errors.DataException"
    assert msg.startswith("Timestamp missing on record: SourceRecord{sourcePartition={server=dbserver1}, ")
    assert msg.endswith("schema=Schema{STRING})])}")  # the repr and the log's name cut off
    assert debezium_failure("CaptureEnded: the engine stopped before streaming") is None


def test_emulator_failure_is_the_message_of_its_line() -> None:
    assert (
        emulator_failure(_text("timestamp_router.emulator.log"))
        == "Timestamp missing on record (topic dbserver1)"
    )
    assert emulator_failure("error: ConfigError: transforms.t0.regex: bad\n") is None


def test_the_normalization_rules() -> None:
    assert normalized("first\nsecond") == "first"
    assert normalized("schema=org.apache.kafka.connect.data.SchemaBuilder@1b2c3d4e, v=[B@7f0a") == (
        "schema=org.apache.kafka.connect.data.SchemaBuilder@<hash>, v=[B@<hash>"
    )
    assert normalized("a@b.c user@example") == "a@b.c user@example"  # no class, no hash
    _cls, msg = debezium_failure(_text("timestamp_router.meta_error.txt"))
    assert normalized(msg) == "Timestamp missing on record (topic dbserver1)"


def test_compare_failures() -> None:
    dbz = _text("float_header.meta_error.txt")
    before = _text("float_header.emulator_before.log")
    assert compare_failures(dbz, before).startswith(
        "messages differ: Debezium java.lang.ClassCastException: "
    )
    now = f"error: DataPlaneError: converter failed on a record of topic all_changes: {CAST} (errors.tolerance=none)"
    assert compare_failures(dbz, now) is None
    assert (
        compare_failures(_text("timestamp_router.meta_error.txt"), _text("timestamp_router.emulator.log"))
        is None
    )
    assert compare_failures(dbz, "error: ConfigError: x\n") == "the emulator's failure message not found"


def test_extract_field_on_an_int32_names_java_lang_integer() -> None:
    """Connect seed 107 trial 34 (PostgreSQL): ExtractField$Key twice on the `id` key; the second meets the int32
    id. Debezium 3.6.3: "Only Struct objects supported for [field extraction], found: java.lang.Integer"; the
    emulator said java.lang.Long (the class of a schemaless JSON number)."""

    class _Key(ExtractFieldT):
        key = True

    t = _Key(Options("transforms.ek18.", {"field": "id"}))
    record = ConnectRecord("t", None, Schema("int32"), 1001, None, None)
    with pytest.raises(TransformError) as e:
        t.apply(record)
    assert str(e.value) == "Only Struct objects supported for [field extraction], found: java.lang.Integer"


@pytest.mark.xfail(
    strict=True,
    reason="deliberate difference (README, Connect data plane): TimestampRouter's message names the record's topic, "
    "not Java's SourceRecord dump (source offsets, run id, clock values the data plane does not hold)",
)
def test_timestamp_router_prints_debezium_s_record_dump() -> None:
    key_schema = Schema(
        "struct",
        name="io.debezium.connector.mysql.SchemaChangeKey",
        fields=[Field("databaseName", Schema("string"))],
    )
    record = ConnectRecord("dbserver1", 0, key_schema, {"databaseName": ""}, None, None)
    opts = {"topic.format": "${topic}-${timestamp}", "timestamp.format": "yyyyMM"}
    with pytest.raises(TransformError) as e:
        TimestampRouter(Options("transforms.t1.", opts)).apply(record)
    _cls, debezium = debezium_failure(_text("timestamp_router.meta_error.txt"))
    assert str(e.value).startswith("Timestamp missing on record: SourceRecord{")
    assert str(e.value) == debezium


def test_a_required_null_inside_a_struct_is_avro_data_s_words() -> None:
    """Connect seed 102 trials 20 and 37: a required field null inside the value (InsertField's `rec_time!` of a
    record without timestamp; an unwrapped schema change's added fields). Debezium 3.6.3: "Found null value for
    non-optional schema"; the emulator said "AvroConverter: null value for a required field without default"."""
    from emulator.connect.converters.avro_binary import AvroWriters
    from emulator.connect.converters.errors import ConversionError
    from emulator.connect.schema import struct

    for wire in (False, True):
        write = AvroWriters(wire=wire).writer(struct("x.Y", [("a", Schema("int64")), ("t", Schema("int64"))]))
        with pytest.raises(ConversionError) as e:
            write(bytearray(), {"a": 1, "t": None})
        assert str(e.value) == "Found null value for non-optional schema"


def test_a_wrapper_message_is_the_start_of_the_emulator_s() -> None:
    """Rule 4, and connect seed 107 trial 9 (MariaDB, key AvroConverter with auto.register.schemas=false on an
    empty mock registry): Debezium 3.6.3 printed `Failed to serialize Avro data from topic dbserver1 :` (cause:
    Subject Not Found); the emulator's line began with its own cause."""
    from emulator.connect.converters.avro_converter import AvroConverter
    from emulator.connect.converters.errors import ConversionError
    from emulator.connect.converters.registry import MockRegistry
    from emulator.connect.schema import struct

    dbz = (
        "CaptureEnded: the engine stopped: data plane: org.apache.kafka.connect.errors.DataException: Failed to "
        "serialize Avro data from topic dbserver1 :; DataException('Failed to serialize Avro data from topic "
        "dbserver1 :') (see /tmp/x/debezium.log)"
    )
    conv = AvroConverter(MockRegistry("failure-text"), True, auto_register=False)
    key_schema = struct("io.debezium.connector.mysql.SchemaChangeKey", [("databaseName", Schema("string"))])
    with pytest.raises(ConversionError) as e:
        conv.from_connect_data("dbserver1", None, key_schema, {"databaseName": ""})
    line = f"error: DataPlaneError: converter failed on a record of topic dbserver1: {e.value} (errors.tolerance=none)"
    assert compare_failures(dbz, line) is None
    assert compare_failures(dbz, line.replace("topic dbserver1 : ", "")) is not None


def test_a_latest_version_lookup_failure_is_wrapped_too() -> None:
    """Connect seed 136 trial 2 (PostgreSQL, key AvroConverter with use.latest.version=true on a mock registry
    without the subject): Debezium 3.6.3 printed `Failed to serialize Avro data from topic dbserver1.public.customers
    :`; the emulator's line began with "Subject ... not found" (the harness's first message mismatch)."""
    from emulator.connect.converters.avro_converter import AvroConverter
    from emulator.connect.converters.errors import ConversionError
    from emulator.connect.converters.registry import MockRegistry
    from emulator.connect.schema import struct

    dbz = (
        "data plane: org.apache.kafka.connect.errors.DataException: Failed to serialize Avro data from topic "
        "dbserver1.public.customers :; DataException('Failed to serialize Avro data from topic "
        "dbserver1.public.customers :')"
    )
    conv = AvroConverter(MockRegistry("failure-latest"), True, auto_register=False, use_latest_version=True)
    key_schema = struct("dbserver1.public.customers.Key", [("id", Schema("int32"))])
    with pytest.raises(ConversionError) as e:
        conv.from_connect_data("dbserver1.public.customers", None, key_schema, {"id": 1001})
    topic = "dbserver1.public.customers"
    line = f"error: DataPlaneError: converter failed on a record of topic {topic}: {e.value} (errors.tolerance=none)"
    assert compare_failures(dbz, line) is None


def test_unwrap_add_fields_without_the_struct_is_the_jvm_text() -> None:
    """Connect seed 112 trial 6 (PostgreSQL): ReplaceField$Value renamed `source` to `x_source`, then
    ExtractNewRecordState's add.fields `source.snapshot` looked the struct up. Debezium 3.6.3 printed the JVM's
    helpful NullPointerException; the emulator said "because the struct field 'source' is missing"."""
    from emulator.connect.transforms.unwrap import FieldReference

    envelope = Schema(
        "struct",
        name="dbserver1.public.mk.Envelope",
        fields=[Field("op", Schema("string")), Field("x_source", Schema("struct", fields=[]))],
    )
    ref = FieldReference("__", "source.snapshot", Options("transforms.t3.", {}), "add.fields")
    with pytest.raises(TransformError) as e:
        ref.schema(envelope)
    assert str(e.value) == (
        'Cannot invoke "org.apache.kafka.connect.data.Field.schema()" because the return value of '
        '"org.apache.kafka.connect.data.Schema.field(String)" is null'
    )


def test_timestamp_converter_on_a_string_key_names_java_lang_string() -> None:
    """Connect seed 146 trial 6 (PostgreSQL): ExtractField$Key `id`, Cast$Key to string, then TimestampConverter$Key
    with `field=id` meets a string key. Debezium 3.6.3: "Only Struct objects supported for [converting timestamp
    formats], found: java.lang.String"; the emulator said `found: str` (Python's type name)."""
    from emulator.connect.transforms.timestamps import TimestampConverterT

    class _Key(TimestampConverterT):
        key = True

    opts = {"field": "id", "target.type": "string", "format": "yyyy-MM-dd"}
    t = _Key(Options("transforms.k22.", opts))
    with pytest.raises(TransformError) as e:
        t.apply(ConnectRecord("t", None, Schema("string"), "1001", None, None))
    assert (
        str(e.value)
        == "Only Struct objects supported for [converting timestamp formats], found: java.lang.String"
    )


def test_require_struct_of_a_null_is_null() -> None:
    """Kafka's Requirements.requireStruct prints nullSafeClassName: `null` for a null, whatever the schema (the
    unwrap's `add.fields` on a record whose value is null: `found: null`)."""
    from emulator.connect.transforms.base import require_struct

    with pytest.raises(TransformError) as e:
        require_struct(None, "source field insertion", Schema("struct", fields=[]))
    assert str(e.value) == "Only Struct objects supported for [source field insertion], found: null"


def test_unwrap_route_by_field_on_a_string_names_java_lang_string() -> None:
    """Session 24 (diffcamp34), by hand on pg_connect.sql: ReplaceField$Value renames `after` away and `op` onto
    `after`, then ExtractNewRecordState with `route.by.field=name` meets the string "r". Debezium 3.6.3
    (route_by_field.meta_error.txt) says "..., found: java.lang.String"; the emulator's message lacked the class
    (route_by_field.emulator_before.log)."""
    from emulator.connect.transforms.unwrap import ExtractNewRecordState

    dbz = _text("route_by_field.meta_error.txt")
    assert compare_failures(dbz, _text("route_by_field.emulator_before.log")) is not None
    envelope = Schema(
        "struct",
        name="dbserver1.public.customers.Envelope",
        fields=[
            Field("before", Schema("struct", optional=True, fields=[Field("name", Schema("string"))])),
            Field("x_after", Schema("struct", optional=True, fields=[Field("name", Schema("string"))])),
            Field("after", Schema("string")),
        ],
    )
    record = ConnectRecord(
        "dbserver1.public.customers",
        None,
        None,
        None,
        envelope,
        {"before": None, "x_after": None, "after": "r"},
    )
    t = ExtractNewRecordState(Options("transforms.u.", {"route.by.field": "name"}))
    with pytest.raises(TransformError) as e:
        t.apply(record)
    line = (
        "error: DataPlaneError: transforms.u (io.debezium.transforms.ExtractNewRecordState) failed on a record of "
        f"topic dbserver1.public.customers: {e.value} (errors.tolerance=none)"
    )
    assert compare_failures(dbz, line) is None


def test_insert_field_offset_fails_a_source_record_as_kafka_does() -> None:
    """Session 24 (diffcamp34): InsertField `offset.field` was refused at start; Debezium 3.6.3 runs it and every
    record with a value fails in Kafka's requireSinkRecord (insert_field_offset.meta_error.txt), a tombstone passes
    (the records: connect case pg_insert_field_offset)."""
    from emulator.connect.transforms import REGISTRY, load_families

    load_families()
    t = REGISTRY["org.apache.kafka.connect.transforms.InsertField$Value"](
        Options("transforms.i.", {"offset.field": "off", "topic.field": "t"})
    )
    schema = Schema("struct", name="dbserver1.public.customers.Value", fields=[Field("id", Schema("int32"))])
    tombstone = ConnectRecord("dbserver1.public.customers", None, None, None, schema, None)
    assert t.apply(tombstone) is tombstone
    for value_schema, value in ((schema, {"id": 1001}), (None, {"id": 1001})):
        with pytest.raises(TransformError) as e:
            t.apply(ConnectRecord("dbserver1.public.customers", None, None, None, value_schema, value))
        line = (
            "error: DataPlaneError: transforms.i (org.apache.kafka.connect.transforms.InsertField$Value) failed on a "
            f"record of topic dbserver1.public.customers: {e.value} (errors.tolerance=none)"
        )
        assert compare_failures(_text("insert_field_offset.meta_error.txt"), line) is None
