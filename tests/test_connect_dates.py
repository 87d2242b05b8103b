"""TimestampConverter's SimpleDateFormat (format and parse), on the values real Debezium 3.6.3 (Kafka Connect 4.3,
JDK 17) printed in the session 19 recordings: tests/data/connect cases mariadb_timestamp_converter_julian_string,
_julian_parse and _micros_as_millis, which check the same through the whole data plane."""

from __future__ import annotations

import pytest

from emulator.connect.record import ConnectRecord
from emulator.connect.schema import Field, Schema
from emulator.connect.transforms.base import Options, TransformError
from emulator.connect.transforms.dateformat import (
    NotEmulatedText,
    UnparseableText,
    parse_date,
    simple_date_format,
)
from emulator.connect.transforms.timestamps import TimestampConverterT, saturating_mul

# DATETIME '1000-01-01 00:00:00' as Connect's Timestamp (proleptic Gregorian epoch milliseconds)
GREGORIAN_1000 = -30_610_224_000_000


def test_format_before_the_cutover_is_julian_and_zero_padded() -> None:
    # recorded: mariadb_timestamp_converter_julian_string
    assert simple_date_format("yyyy-MM-dd HH:mm:ss.SSS 'y'yy MM/dd", GREGORIAN_1000) == (
        "0999-12-27 00:00:00.000 y99 12/27"
    )


@pytest.mark.parametrize(
    ("millis", "text"),
    [
        # recorded: mariadb_timestamp_converter_micros_as_millis (MicroTimestamps read as milliseconds)
        (1_709_212_455_123_456, "56132-10-14 13:32:03.456"),
        (2_147_483_647_000_000, "70021-01-17 19:16:40.000"),
        (GREGORIAN_1000 * 1000, "968011-07-02 00:00:00.000"),  # 968011 BC: the year of the era
    ],
)
def test_format_years_outside_1_to_9999(millis: int, text: str) -> None:
    assert simple_date_format("yyyy-MM-dd HH:mm:ss.SSS", millis) == text


def test_parse_before_the_cutover_is_julian() -> None:
    # recorded: mariadb_timestamp_converter_julian_parse (the text above, parsed back)
    assert parse_date("yyyy-MM-dd HH:mm:ss.SSS", "0999-12-27 00:00:00.000") == GREGORIAN_1000


@pytest.mark.parametrize(
    ("pattern", "text"),
    [
        ("yyyy-MM-dd", "2024-13-01"),  # a lenient month roll
        ("yyyy-MM-dd", "2023-02-29"),  # a lenient day roll
        ("yyyy-MM-dd", "1582-10-10"),  # the cutover's own year
        ("yyyy-MM-dd", "-2024-01-01"),  # DecimalFormat reads a sign
        ("dd.MM.yy", "01.01.46"),  # the two-digit year of the century start: decided by the instant
    ],
)
def test_parse_refuses_what_it_does_not_follow(pattern: str, text: str) -> None:
    with pytest.raises(NotEmulatedText):
        parse_date(pattern, text, now_year=2026)


def test_parse_fails_where_simple_date_format_fails() -> None:
    with pytest.raises(UnparseableText):
        parse_date("yyyy/MM/dd", "2024-01-01")
    with pytest.raises(UnparseableText):
        parse_date("yyyy-MM-dd", "")
    # connect seed 103 trial 21: Debezium failed the record ("Could not parse timestamp"); MM reads "-0", dd "2",
    # HH "-2", mm "9" and ss finds the "T"
    with pytest.raises(UnparseableText):
        parse_date("yyyyMMddHHmmss", "2024-02-29T13:14:15.123Z")


# JDK 17's TimeUnit, printed in the oracle's JVM: MILLISECONDS.toMicros / toNanos and SECONDS.toMillis saturate
@pytest.mark.parametrize(
    ("value", "factor", "java"),
    [
        (9_223_372_036_854_775, 1000, 9_223_372_036_854_775_000),
        (9_223_372_036_854_776, 1000, 9_223_372_036_854_775_807),
        (-9_223_372_036_854_775, 1000, -9_223_372_036_854_775_000),
        (-9_223_372_036_854_776, 1000, -9_223_372_036_854_775_808),
        (30_485_325_196_800_000, 1000, 9_223_372_036_854_775_807),  # seed 109 trial 15: year 968011 in ms
        (9_223_372_036_854, 1_000_000, 9_223_372_036_854_000_000),
        (9_223_372_036_855, 1_000_000, 9_223_372_036_854_775_807),
        (-9_223_372_036_855, 1_000_000, -9_223_372_036_854_775_808),
    ],
)
def test_unix_precision_saturates_as_time_unit(value: int, factor: int, java: int) -> None:
    assert saturating_mul(value, factor) == java


@pytest.mark.parametrize(
    "schema,text",
    [
        # Debezium 3.6.3's text in connect campaign seed 117 trial 14 (a DATE under time.precision.mode=adaptive)
        (Schema("int32", name="io.debezium.time.Date"), "Schema{io.debezium.time.Date:INT32}"),
        (Schema("float64"), "Schema{FLOAT64}"),  # ConnectSchema.toString without a name
    ],
)
def test_an_unknown_timestamp_schema_fails_with_connect_schema_text(schema: Schema, text: str) -> None:
    class Value(TimestampConverterT):
        key = False

    t = Value(Options("transforms.t.", {"field": "d", "target.type": "string", "format": "yyyy-MM-dd"}))
    value = Schema("struct", name="V", fields=[Field("d", schema)])
    with pytest.raises(TransformError) as e:
        t.apply(ConnectRecord("t", None, None, None, value, {"d": 1}))
    assert str(e.value) == f"Schema {text} does not correspond to a known timestamp type format"


def test_a_date_past_int32_days_wraps_as_java_s_int_cast() -> None:
    """Connect seed 134 trial 0 (PostgreSQL, time.precision.mode=nanoseconds, ExtractNewRecordState then
    TimestampConverter$Value field ts target.type Date): the NanoTimestamp 1709212455123456000 is read as unix
    milliseconds; Date.fromLogical's `(int)` cast made Debezium 3.6.3 write -1692284917 (the emulator wrote the
    day count, 19782551563)."""
    from emulator.connect.record import ConnectRecord
    from emulator.connect.schema import Field, Schema
    from emulator.connect.transforms.base import Options
    from emulator.connect.transforms.timestamps import TimestampConverterT

    class _Value(TimestampConverterT):
        key = False

    opts = {"field": "ts", "format": "yyyy-MM-dd HH:mm:ss.SSS", "target.type": "Date"}
    t = _Value(Options("transforms.tc19.", opts))
    nano = Schema("int64", optional=True, name="io.debezium.time.NanoTimestamp", version=1)
    schema = Schema("struct", name="dbserver1.public.typed.Value", fields=[Field("ts", nano)])
    out = t.apply(ConnectRecord("t", None, None, None, schema, {"ts": 1709212455123456000}))
    assert out.value["ts"] == -1692284917
