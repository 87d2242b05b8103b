"""The connector properties and the three-column table the column-rule tests shape (test_mapped_key_column,
test_column_mapper_same_kind): `Filters.shape` needs no server, so these tests build the table by hand."""

from __future__ import annotations

from emulator.connect.schema import Schema
from emulator.model import ColumnDef, TableDef

PG = {
    "connector.class": "io.debezium.connector.postgresql.PostgresConnector",
    "topic.prefix": "fd",
    "database.hostname": "127.0.0.1",
    "database.user": "postgres",
    "database.dbname": "postgres",
    "plugin.name": "pgoutput",
}


def three_column_table() -> TableDef:
    """public.t: id int32 (the key), a and b optional strings."""
    text = Schema("string", optional=True)
    cols = [ColumnDef("id", Schema("int32"), int), ColumnDef("a", text, str), ColumnDef("b", text, str)]
    return TableDef("public", "t", cols, ["id"])
