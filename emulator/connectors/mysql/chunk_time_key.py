"""Debezium's chunked snapshot (snapshot.max.threads > 1, or a multiplier) reads each keyed table's maximum key
with Connector/J's `ResultSet.getObject` (ChunkBoundaryCalculator.calculateMaxKey): a TIME key value outside a
wall-clock day (negative, or 24:00:00 and above) throws DataReadException ("an invalid TIME value"), a retriable
error: the snapshot is abandoned after its schema changes (the held-back last one lost) and before any row, and
restarts without end (recorded: mariadb case snapshot_threads_time_key_stops; campaign seed 166006). The emulator
stops there too, at the same point.

Only the maximum key is checked (exact: one row whatever the statistics); the chunk bounds Debezium reads at
`i * (row estimate / chunks)` depend on InnoDB's row estimate at its own moment, not modelled (a negative TIME
in a bound but not in the maximum key: Debezium stops, the emulator goes on; docs/differential-mariadb.md)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from emulator.connectors.mysql.captured import quote_id

STOP_MARK = "Connector/J cannot read the maximum key"


def _outside_day(text: Any) -> bool:
    s = str(text)
    return s.startswith("-") or int(s.split(":", 1)[0]) >= 24


def time_key_stop(
    query: Callable[[str], list[tuple]], tables: list[tuple[str, str, list[str], set[str]]]
) -> str | None:
    """`tables`: (database, table, key columns in key order, the TIME ones among them) of each table the chunked
    snapshot reads with its key (no override, no message.key.columns); the stop line for the first whose maximum
    key holds a TIME outside a day, else None."""
    for db, name, keys, times in tables:
        if not times:
            continue
        cols = ", ".join(f"CAST({quote_id(k)} AS CHAR)" for k in keys)
        order = ", ".join(f"{quote_id(k)} DESC" for k in keys)
        rows = query(f"SELECT {cols} FROM {quote_id(db)}.{quote_id(name)} ORDER BY {order} LIMIT 1")
        if not rows:
            continue
        for k, v in zip(keys, rows[0]):
            if k in times and v is not None and _outside_day(v):
                return (
                    f"snapshot.max.threads: {STOP_MARK} of {db}.{name} (TIME {k} = '{v}': \"an invalid TIME "
                    "value\"), so Debezium's chunked snapshot fails and restarts without end; the emulator stops "
                    "here (nothing written or committed)"
                )
    return None


def check(conn: Any, snap: Any) -> None:
    """Raise where Debezium's chunked snapshot fails on a TIME maximum key: before the snapshot's first record.
    `conn`: the MySQL connector (its filters and settings), `snap`: the snapshot's connection."""
    from emulator.pipeline.snapshot_chunks import chunked_path, max_threads
    from emulator.settings import settings_for

    threads, legacy = max_threads(conn.cfg, 1 << 30)
    if legacy or not chunked_path(conn.cfg, threads, legacy):
        return
    typed = settings_for(conn.cfg)
    overrides = set(typed.relational.snapshot_select_overrides)
    only = typed.snapshot.include_collection_list
    keyed = conn.filters.key_patterns
    by_table: dict[tuple[str, str], tuple[list[str], set[str]]] = {}
    # a table with message.key.columns entries is chunked by those columns: not checked
    custom_keys = (
        {
            f"{db}.{name}"
            for db, name, col in conn._q(
                "SELECT TABLE_SCHEMA, TABLE_NAME, COLUMN_NAME FROM information_schema.COLUMNS", conn=snap
            )
            if any(p.fullmatch(f"{db}.{name}.{col}") for p in keyed)
        }
        if keyed
        else set()
    )
    for db, name, col, dtype in conn._q(
        "SELECT k.TABLE_SCHEMA, k.TABLE_NAME, k.COLUMN_NAME, c.DATA_TYPE FROM information_schema.KEY_COLUMN_USAGE k "
        "JOIN information_schema.COLUMNS c ON c.TABLE_SCHEMA = k.TABLE_SCHEMA AND c.TABLE_NAME = k.TABLE_NAME AND "
        "c.COLUMN_NAME = k.COLUMN_NAME WHERE k.CONSTRAINT_NAME = 'PRIMARY' "
        "ORDER BY k.TABLE_SCHEMA, k.TABLE_NAME, k.ORDINAL_POSITION",
        conn=snap,
    ):
        tid = f"{db}.{name}"
        if (
            not conn._db_included(db)
            or not conn.filters.table_included(db, name)
            or tid == conn.signal_table
            or tid in overrides
            or (only and not any(p.fullmatch(tid) for p in only))
            or tid in custom_keys
        ):
            continue
        keys, times = by_table.setdefault((db, name), ([], set()))
        keys.append(col)
        if str(dtype).lower() == "time":
            times.add(col)
    tables = [(db, name, keys, times) for (db, name), (keys, times) in by_table.items()]
    stop = time_key_stop(lambda q: conn._q(q, conn=snap), tables)
    if stop is not None:
        raise RuntimeError(stop)
