"""The MySqlConnector's reselect query for ``post.processors`` (emulator/postprocessors/reselect.py decides when).

Debezium's JdbcConnection.reselectColumns runs ``SELECT <columns> FROM `<db>`.`<table>` WHERE <key>=? AND ...``
with the key names unquoted and the key values bound as the record carries them (a DATETIME key is a long of
milliseconds, which MySQL compares as a number: no row). The same text is sent here with the values escaped
as literals, and the row is read as the snapshot reads it (text protocol, the columns' snapshot converters),
so a value read again prints as a snapshot prints it. Binlog rows are full images (Debezium refuses another
``binlog_row_image``), so what is read again are NULLs, when a later change of the same transaction (or a later
one, by timing) filled them.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pymysql

from emulator.connectors.mysql import textrows
from emulator.connectors.mysql.captured import CapturedTable
from emulator.connectors.mysql.values import identity
from emulator.postprocessors.reselect import ReselectFailed


def quote_id(name: str) -> str:
    return "`" + name.replace("`", "``") + "`"


class MySqlReselect:
    """The reader of one MySqlConnector: `conn()` its autocommit connection (each query reads the latest
    committed row), `captured(table id)` the captured table."""

    def __init__(
        self,
        conn: Callable[[], pymysql.Connection],
        captured: Callable[[str], CapturedTable | None],
    ) -> None:
        self.conn = conn
        self.captured = captured

    @staticmethod
    def parser(ct: CapturedTable) -> Callable[[bytes], dict]:
        """The snapshot's text-row parser (MySqlConnector._text_parser) with each column's own converter:
        Debezium converts a value read again without column.truncate / mask / hash."""
        base = {c.name: c.base_type for c in ct.table.columns}
        unmapped = ct.env.table.extra.get("unmapped") or {}
        cols = []
        for c, field in zip(ct.env.table.columns, ct.env.names):  # field: the name as printed
            c = unmapped.get(c.name, c)
            conv = c.snapshot_convert or c.convert
            cols.append(
                (field, None if conv is identity else conv, base.get(c.name) in textrows.BINARY_TYPES)
            )
        return textrows.compile_text_row_parser(cols)

    def read(
        self, env: Any, wanted: list[str], key_cols: list[str], values: list[Any]
    ) -> dict[str, Any] | None:
        table = env.table
        ct = self.captured(table.id)
        if ct is None:
            return None
        conn = self.conn()
        where = " AND ".join(
            f"{k}={conn.escape(v)}"  # key names unquoted, as Debezium writes them
            for k, v in zip(key_cols, values)
        )
        cols = ", ".join(quote_id(c.name) for c in ct.env.table.columns)
        query = f"SELECT {cols} FROM {quote_id(table.namespace)}.{quote_id(table.name)} WHERE {where}"
        try:
            rows = list(textrows.stream_rows(conn, query, self.parser(ct)))
        except pymysql.err.DatabaseError as exc:
            if exc.args and isinstance(exc.args[0], int) and exc.args[0] >= 2000:
                raise  # a client error (the connection lost): the connector's retry, not a failed query
            raise ReselectFailed(str(exc)) from None  # the server's answer: the SQLException Debezium catches
        if not rows:
            return None
        row = rows[0]  # several rows for one key: the first, as Debezium
        return {name: row[name] for name in wanted}
