"""Pieces every connector shares: the common head of Debezium's source block."""

from __future__ import annotations

from emulator.connect.schema import OPT_INT64, OPT_STRING, REQ_STRING, Schema

SNAPSHOT_ENUM = Schema(
    "string",
    optional=True,
    name="io.debezium.data.Enum",
    version=1,
    parameters={
        "allowed": "true,first,first_in_data_collection,last_in_data_collection,last,false,incremental"
    },
    default="false",
)

# The fields every Debezium source block starts with (AbstractSourceInfo), in order.
SOURCE_HEAD = [
    ("version", REQ_STRING),
    ("connector", REQ_STRING),
    ("name", REQ_STRING),
    ("ts_ms", Schema("int64")),
    ("snapshot", SNAPSHOT_ENUM),
    ("db", REQ_STRING),
    ("sequence", OPT_STRING),
    ("ts_us", OPT_INT64),
    ("ts_ns", OPT_INT64),
]
