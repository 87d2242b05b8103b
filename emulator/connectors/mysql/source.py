"""The binlog connectors' fixed schemas: the `source` block and the schema-change topic's key and value.

MySQL and MariaDB differ only in names (`io.debezium.connector.mysql.*` vs `...mariadb.*`) and in
`source.connector`; the fields are the same.
"""

from __future__ import annotations

from emulator import DEBEZIUM_VERSION
from emulator.connect.schema import OPT_INT64, OPT_STRING, REQ_STRING, Schema, struct
from emulator.connectors.common import SOURCE_HEAD

_OPT_INT32 = Schema("int32", optional=True)
_OPT_BOOL = Schema("boolean", optional=True)
_STR_ARRAY = Schema("array", optional=True, items=Schema("string"))

COLUMN_SCHEMA = struct(
    "io.debezium.connector.schema.Column",
    [
        ("name", REQ_STRING),
        ("jdbcType", Schema("int32")),
        ("nativeType", _OPT_INT32),
        ("typeName", REQ_STRING),
        ("typeExpression", OPT_STRING),
        ("charsetName", OPT_STRING),
        ("length", _OPT_INT32),
        ("scale", _OPT_INT32),
        ("position", Schema("int32")),
        ("optional", _OPT_BOOL),
        ("autoIncremented", _OPT_BOOL),
        ("generated", _OPT_BOOL),
        ("comment", OPT_STRING),
        ("defaultValueExpression", OPT_STRING),
        ("enumValues", _STR_ARRAY),
    ],
    version=1,
)

TABLE_SCHEMA = struct(
    "io.debezium.connector.schema.Table",
    [
        ("defaultCharsetName", OPT_STRING),
        ("primaryKeyColumnNames", _STR_ARRAY),
        ("columns", Schema("array", items=COLUMN_SCHEMA)),
        ("comment", OPT_STRING),
    ],
    optional=True,
    version=1,
)

CHANGE_SCHEMA = struct(
    "io.debezium.connector.schema.Change",
    [
        ("type", REQ_STRING),
        ("id", REQ_STRING),
        ("table", TABLE_SCHEMA),
    ],
    version=1,
)


class Flavor:
    """What differs between io.debezium.connector.mysql and io.debezium.connector.mariadb."""

    def __init__(self, name: str) -> None:
        assert name in ("mysql", "mariadb")
        self.name = name
        self.mariadb = name == "mariadb"
        pkg = f"io.debezium.connector.{name}"
        self.source_schema = struct(
            f"{pkg}.Source",
            [
                *SOURCE_HEAD,
                ("table", OPT_STRING),
                ("server_id", Schema("int64")),
                ("gtid", OPT_STRING),
                ("file", REQ_STRING),
                ("pos", Schema("int64")),
                ("row", Schema("int32")),
                ("thread", OPT_INT64),
                ("query", OPT_STRING),
            ],
            version=1,
        )
        self.schema_change_key = struct(f"{pkg}.SchemaChangeKey", [("databaseName", REQ_STRING)], version=1)
        self.schema_change_value = struct(
            f"{pkg}.SchemaChangeValue",
            [
                ("source", self.source_schema),
                ("ts_ms", Schema("int64")),
                ("databaseName", OPT_STRING),
                ("schemaName", OPT_STRING),
                ("ddl", OPT_STRING),
                ("tableChanges", Schema("array", items=CHANGE_SCHEMA)),
            ],
            version=1,
        )


def source_block(
    prefix: str,
    connector: str,
    ts_us: int,
    snapshot: str,
    db: str,
    table: str | None,
    server_id: int,
    gtid: str | None,
    file: str,
    pos: int,
    row: int,
    thread: int | None = None,
    query: str | None = None,
) -> dict:
    return {
        "version": DEBEZIUM_VERSION,
        "connector": connector,
        "name": prefix,
        "ts_ms": ts_us // 1000,
        "snapshot": snapshot,
        "db": db,
        "sequence": None,
        "ts_us": ts_us,
        "ts_ns": ts_us * 1000,
        "table": table,
        "server_id": server_id,
        "gtid": gtid,
        "file": file,
        "pos": pos,
        "row": row,
        "thread": thread,
        "query": query,
    }
