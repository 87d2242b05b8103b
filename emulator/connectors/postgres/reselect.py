"""PostgreSQL's reselect query for ``post.processors`` (emulator/postprocessors/reselect.py decides when).

Debezium's PostgresConnection.reselectColumns runs ``SELECT <columns> FROM "<schema>"."<table>" WHERE
<key>=?::<type> AND ...`` with the key values bound as the record carries them (``bound_value``). The key
names are written unquoted (a key column whose name needs quotes fails the query: the values stay as they
were), and a value whose Connect form the type does not take fails too (a timestamp key is a bigint of
microseconds). The same
text is sent here with the values as literals, so PostgreSQL answers as it answers Debezium. The row is read
as the snapshot reads it (COPY text, the columns' snapshot converters), so a value read again prints as a
snapshot prints it.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import psycopg
from psycopg import sql

from emulator.connectors.postgres.copy_text import copy_rows
from emulator.postprocessors.reselect import ReselectFailed

_QUERY_ERRORS = (
    psycopg.ProgrammingError,
    psycopg.DataError,
    psycopg.IntegrityError,
    psycopg.InternalError,
    psycopg.NotSupportedError,
)

_TYPES_SQL = """
SELECT a.attname, t.typname FROM pg_catalog.pg_attribute a JOIN pg_catalog.pg_type t ON t.oid = a.atttypid
WHERE a.attrelid = %s::regclass AND a.attnum > 0 AND NOT a.attisdropped
"""


class PgReselect:
    """The reader of one PostgreSQL connector: `conn()` gives its autocommit connection (each query reads the
    latest committed row, as Debezium's JDBC connection in READ COMMITTED)."""

    def __init__(self, conn: Callable[[], psycopg.Connection]) -> None:
        self.conn = conn
        # per table definition (a new one after DDL, as Debezium's refreshed Table): (the definition, kept so
        # that its id is not reused, column -> type name as TypeRegistry names it)
        self.types: dict[int, tuple[Any, dict[str, str]]] = {}

    def _type_names(self, conn: psycopg.Connection, table: Any) -> dict[str, str]:
        got = self.types.get(id(table))
        if got is None:
            rel = sql.Identifier(table.namespace, table.name).as_string(conn)
            got = self.types[id(table)] = (table, dict(conn.execute(_TYPES_SQL, (rel,)).fetchall()))
        return got[1]

    def read(
        self, env: Any, wanted: list[str], key_cols: list[str], values: list[Any]
    ) -> dict[str, Any] | None:
        conn = self.conn()
        table = env.table
        try:
            types = self._type_names(conn, table)
            where = sql.SQL(" AND ").join(
                sql.SQL("{}={}::{}").format(
                    sql.SQL(k),  # unquoted, as Debezium writes it
                    sql.Literal(v),
                    sql.SQL(types.get(k, "unknown")),
                )
                for k, v in zip(key_cols, values)
            )
            query = sql.SQL("COPY (SELECT {} FROM {} WHERE {}) TO STDOUT").format(
                sql.SQL(", ").join(sql.Identifier(c.name) for c in table.columns),
                sql.Identifier(table.namespace, table.name),
                where,
            )
            rows = list(copy_rows(conn, query))
        except _QUERY_ERRORS as exc:  # the SQLException Debezium catches; a lost connection still propagates
            raise ReselectFailed(str(exc).strip()) from None
        if not rows:
            return None
        raw = rows[0]  # several rows for one key: the first, as Debezium
        row = env.snapshot_row(raw)
        out = {name: row[name] for name in wanted}
        # Debezium converts a value read again with the column's own converter, without column.truncate /
        # mask / hash (tests/data/pg/cases/reselect_options, table t_map)
        unmapped = table.extra.get("unmapped") or {}
        for name in wanted:
            i = env.names.index(name)
            col = table.columns[i]
            orig = unmapped.get(col.name, col)
            if orig is not col and raw[i] is not None:
                out[name] = (orig.snapshot_convert or orig.convert)(raw[i])
        return out
