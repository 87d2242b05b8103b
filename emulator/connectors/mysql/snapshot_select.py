"""The statement a snapshot reads a table with when `snapshot.select.statement.overrides` names it."""

from __future__ import annotations

import pymysql

from emulator.connectors.mysql.captured import quote_id


def override_select(conn: pymysql.Connection, table, stmt: str) -> str:
    """Debezium runs an override as written and reads its result's columns by name, so the statement's own
    ORDER BY is the records' order. Run as written when its columns are the captured table's, in order (the
    usual `SELECT * FROM t WHERE ... ORDER BY ...`): wrapped as a derived table, MariaDB drops an ORDER BY
    without LIMIT (mariadb case snapshot_override_order). Otherwise the captured columns are picked from it
    by name as a derived table, in the order the server returns them."""
    with conn.cursor() as cur:
        cur.execute(f"SELECT * FROM ({stmt}) AS q LIMIT 0")
        names = [d[0].lower() for d in cur.description or ()]
    if names == [c.name.lower() for c in table.columns]:
        return stmt
    return f"SELECT {', '.join('q.' + quote_id(c.name) for c in table.columns)} FROM ({stmt}) AS q"
