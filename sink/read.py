"""Reading the mirror tables back: with Spark (active files of the Delta log) or with deltalake."""

from __future__ import annotations

import os

import pyarrow as pa
from deltalake import DeltaTable

from sink.delta import AUX_PREFIX, META


def topics(tables: str) -> list[str]:
    """The mirror tables under `tables` (not the sink's own `_sink_*` tables)."""
    return sorted(
        d
        for d in os.listdir(tables)
        if not d.startswith(AUX_PREFIX) and DeltaTable.is_deltatable(os.path.join(tables, d))
    )


def read_arrow(path: str, meta: bool = False) -> pa.Table:
    """The table's current rows; without `meta` the sink's own columns (`__seq`, keyless `__rid`...) are dropped."""
    t = DeltaTable(path).to_pyarrow_table()
    return t if meta else t.drop_columns([c for c in t.column_names if c in META])


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
    return df if meta else df.drop(*[c for c in df.columns if c in META])
