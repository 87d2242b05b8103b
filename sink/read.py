"""Reading the mirror tables back: with Spark (active files of the Delta log) or with deltalake."""

from __future__ import annotations

import os

import pyarrow as pa
from deltalake import DeltaTable

from sink.apply import SEQ, TOMBSTONES


def topics(tables: str) -> list[str]:
    return sorted(d for d in os.listdir(tables) if d != TOMBSTONES and DeltaTable.is_deltatable(os.path.join(tables, d)))


def read_arrow(path: str, meta: bool = False) -> pa.Table:
    t = DeltaTable(path).to_pyarrow_table()
    return t if meta else t.drop_columns([c for c in t.column_names if c == SEQ])


def read_spark(spark, path: str, meta: bool = False):
    """A Spark DataFrame of the table's current version (only the files in the Delta log: reading the
    directory would include files a MERGE removed)."""
    from sink.types import spark_schema_from_arrow
    dt = DeltaTable(path)
    schema = spark_schema_from_arrow(pa.schema(dt.schema().to_arrow()))
    files = dt.file_uris()
    if files:
        df = spark.read.schema(schema).parquet(*files)
    else:
        df = spark.createDataFrame([], schema)
    return df if meta else df.drop(SEQ)
