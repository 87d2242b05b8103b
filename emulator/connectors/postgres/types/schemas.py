"""The Kafka Connect schemas of the PostgreSQL types (Debezium's semantic type names)."""

from __future__ import annotations

from emulator.connect.schema import (
    BOOLEAN,
    BYTES,
    FLOAT32,
    FLOAT64,
    INT16,
    INT32,
    INT64,
    MAP,
    OPT_BYTES,
    OPT_INT32,
    OPT_STRING,
    REQ_INT32,
    REQ_STRING,
    STRING,
    Schema,
    struct,
)
from emulator.connectors.postgres.types.model import TypeConfig


def named(type_: str, name: str, params: dict[str, str] | None = None) -> Schema:
    return Schema(type_, name=name, version=1, parameters=params)


S_INT16 = Schema(INT16)
S_INT32 = Schema(INT32)
S_INT64 = Schema(INT64)
S_FLOAT32 = Schema(FLOAT32)
S_FLOAT64 = Schema(FLOAT64)
S_BOOL = Schema(BOOLEAN)
S_STRING = Schema(STRING)
S_BYTES = Schema(BYTES)
S_JSON = named(STRING, "io.debezium.data.Json")
S_UUID = named(STRING, "io.debezium.data.Uuid")
S_XML = named(STRING, "io.debezium.data.Xml")
S_LTREE = named(STRING, "io.debezium.data.Ltree")
S_TSVECTOR = named(STRING, "io.debezium.data.Tsvector")
S_DATE = named(INT32, "io.debezium.time.Date")
S_TIME = named(INT32, "io.debezium.time.Time")
S_MICROTIME = named(INT64, "io.debezium.time.MicroTime")
S_TIMESTAMP = named(INT64, "io.debezium.time.Timestamp")
S_MICROTIMESTAMP = named(INT64, "io.debezium.time.MicroTimestamp")
S_NANOTIME = named(INT64, "io.debezium.time.NanoTime")
S_NANOTIMESTAMP = named(INT64, "io.debezium.time.NanoTimestamp")
S_ZONEDTIME = named(STRING, "io.debezium.time.ZonedTime")
S_ZONEDTIMESTAMP = named(STRING, "io.debezium.time.ZonedTimestamp")
S_MICRODURATION = named(INT64, "io.debezium.time.MicroDuration")
S_INTERVAL = named(STRING, "io.debezium.time.Interval")
S_CONNECT_DATE = named(INT32, "org.apache.kafka.connect.data.Date")
S_CONNECT_TIME = named(INT32, "org.apache.kafka.connect.data.Time")
S_CONNECT_TIMESTAMP = named(INT64, "org.apache.kafka.connect.data.Timestamp")
S_VARIABLE_SCALE_DECIMAL = struct(
    "io.debezium.data.VariableScaleDecimal",
    [("scale", REQ_INT32), ("value", S_BYTES)],
    version=1,
    doc="Variable scaled decimal",
)
S_POINT = struct(
    "io.debezium.data.geometry.Point",
    [("x", S_FLOAT64), ("y", S_FLOAT64), ("wkb", OPT_BYTES), ("srid", OPT_INT32)],
    version=1,
    doc="Geometry (POINT)",
)
S_GEOMETRY = struct(
    "io.debezium.data.geometry.Geometry", [("wkb", S_BYTES), ("srid", OPT_INT32)], version=1, doc="Geometry"
)
S_GEOGRAPHY = struct(
    "io.debezium.data.geometry.Geography", [("wkb", S_BYTES), ("srid", OPT_INT32)], version=1, doc="Geography"
)
S_HSTORE_MAP = Schema(MAP, keys=REQ_STRING, values=OPT_STRING)


def decimal_schema(scale: int, precision: int | None = None) -> Schema:
    params = {"scale": str(scale)}
    if precision is not None:
        params["connect.decimal.precision"] = str(precision)
    return named(BYTES, "org.apache.kafka.connect.data.Decimal", params)


def bits_schema(length: int) -> Schema:
    return named(BYTES, "io.debezium.data.Bits", {"length": str(length)})


def enum_schema(labels: tuple[str, ...]) -> Schema:
    return named(STRING, "io.debezium.data.Enum", {"allowed": ",".join(labels)})


def binary_schema(cfg: TypeConfig) -> Schema:
    return S_BYTES if cfg.binary_handling_mode == "bytes" else S_STRING
