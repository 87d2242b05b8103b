"""The statement a snapshot reads a table with when `snapshot.select.statement.overrides` names it."""

from __future__ import annotations

from collections.abc import Callable

import pymysql

from emulator.connectors.mysql.captured import quote_id


def override_select(conn: pymysql.Connection, table, stmt: str) -> tuple[str, list[int] | None]:
    """-> (the statement to run, the positions of the captured columns in its result, or None when they are its
    columns in order).

    Debezium runs an override as written and reads its result's columns by name, so the statement's own ORDER BY
    is the records' order. It is run as written whenever the result has every captured column: with other
    columns beside them or in another order (a `SELECT *` under column.exclude.list, a reordered column list),
    the captured ones are picked from each row by position (`projected`). Wrapped as a derived table, MariaDB
    drops an ORDER BY without LIMIT (mariadb cases snapshot_override_order, snapshot_override_excluded_order).
    A result that lacks a captured column is read as a derived table, as before. A result column the table does
    not have stops the snapshot, as Debezium's ColumnUtils.toArray does ("Column 'x' not found in result set").
    """
    with conn.cursor() as cur:
        cur.execute(f"SELECT * FROM ({stmt}) AS q LIMIT 0")
        shown = [d[0] for d in cur.description or ()]
        cur.execute(f"SELECT * FROM {quote_id(table.namespace)}.{quote_id(table.name)} LIMIT 0")
        known = {d[0].lower() for d in cur.description or ()}  # excluded columns too
    names = [n.lower() for n in shown]
    for name in shown:
        if name.lower() not in known:
            raise ValueError(
                f"snapshot.select.statement.overrides.{table.id}: Column '{name}' not found in result set "
                f"'{', '.join(shown)}' for table '{table.id}' (Debezium stops the snapshot on it too)"
            )
    wanted = [c.name.lower() for c in table.columns]
    if names == wanted:
        return stmt, None
    if all(n in names for n in wanted):
        return stmt, [names.index(n) for n in wanted]
    return f"SELECT {', '.join('q.' + quote_id(c.name) for c in table.columns)} FROM ({stmt}) AS q", None


def projected(parse: Callable[[bytes], dict], positions: list[int] | None) -> Callable[[bytes], dict]:
    """`parse` (a text-protocol row packet -> row) over the fields at `positions` of each packet."""
    if positions is None:
        return parse

    def parse_projected(data: bytes) -> dict:
        fields = []
        i, end = 0, len(data)
        while i < end:  # length-encoded strings; 0xFB is NULL
            b = data[i]
            if b == 0xFB:
                fields.append(b"\xfb")
                i += 1
                continue
            if b < 0xFB:
                size, start = b, i + 1
            elif b == 0xFC:
                size, start = int.from_bytes(data[i + 1 : i + 3], "little"), i + 3
            elif b == 0xFD:
                size, start = int.from_bytes(data[i + 1 : i + 4], "little"), i + 4
            else:
                size, start = int.from_bytes(data[i + 1 : i + 9], "little"), i + 9
            fields.append(data[i : start + size])
            i = start + size
        return parse(b"".join([fields[p] for p in positions]))

    if getattr(parse, "drops_rows", False):
        parse_projected.drops_rows = True  # type: ignore[attr-defined]
    return parse_projected
