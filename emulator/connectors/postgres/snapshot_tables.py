"""Three snapshot settings on the tables a PostgreSQL snapshot reads, as Debezium 3.6 applies them:

- `snapshot.locking.mode=shared`: SharedSnapshotLock's `LOCK TABLE <table> IN ACCESS SHARE MODE` on each table, in
  the snapshot's transaction after `SET lock_timeout = snapshot.lock.timeout.ms`
  (PostgresSnapshotChangeEventSource.lockTablesForSchemaSnapshot), held until the transaction ends: DDL on them
  waits for the snapshot; writes do not. `none` (the default) takes no lock. The records are the same (pg case
  snapshot_locking_shared).
- `snapshot.tables.order.by.row.count=ascending|descending`: RelationalSnapshotChangeEventSource.sortByRowCount, a
  stable sort of the tables by the row count its planner gives. Only the chunked path (snapshot.max.threads or a
  multiplier above 1, not legacy) counts rows (rowCountForTableChunked: `SELECT COUNT(1)`); elsewhere the
  PostgreSQL connector gives no count (rowCountForTable: OptionalLong.empty(), all 0) and the order stays (pg cases
  snapshot_order_by_row_count_*).
- `snapshot.isolation.mode`: the transaction of a snapshot without the new slot's exported snapshot (a blocking
  snapshot, or an initial one where the slot already existed) begins with the statement
  PostgresSnapshotChangeEventSource.snapshotTransactionIsolationLevelStatement writes for it; the initial snapshot of
  a new slot is always REPEATABLE READ in the exported snapshot, whatever the mode (pg cases
  snapshot_isolation_repeatable_read, _read_committed). `read_committed`/`read_uncommitted` read each table at its
  own statement's time, as Debezium does; with snapshot.max.threads > 1 they are refused (settings.validate: the
  readers share one exported snapshot here, how Debezium's threads read is not recorded)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, TypeVar

import psycopg
from psycopg import sql

from emulator.model import TableDef

T = TypeVar("T")


BEGIN_BY_ISOLATION = {
    "serializable": "BEGIN ISOLATION LEVEL SERIALIZABLE, READ ONLY, DEFERRABLE",
    "repeatable_read": "BEGIN ISOLATION LEVEL REPEATABLE READ, READ ONLY",
    "read_committed": "BEGIN ISOLATION LEVEL READ COMMITTED, READ ONLY",
    "read_uncommitted": "BEGIN ISOLATION LEVEL READ UNCOMMITTED, READ ONLY",
}


def isolation_begin(postgres: Any) -> str:
    """The BEGIN of a snapshot transaction without an exported snapshot (`postgres`: the typed Postgres settings)."""
    return BEGIN_BY_ISOLATION[postgres.snapshot_isolation_mode.strip().lower()]


def lock_shared(snap: psycopg.Connection, relational: Any, tables: list[TableDef]) -> None:
    """In `snap`'s open transaction: Debezium's shared table locks when snapshot.locking.mode is `shared`."""
    if relational.snapshot_locking_mode.strip().lower() != "shared" or not tables:
        return
    snap.execute(
        sql.SQL("SET lock_timeout = {}").format(sql.Literal(int(relational.snapshot_lock_timeout_ms)))
    )
    for t in tables:
        snap.execute(
            sql.SQL("LOCK TABLE {} IN ACCESS SHARE MODE").format(sql.Identifier(t.namespace, t.name))
        )


def by_row_count(relational: Any, items: list[T], count: Callable[[T], int]) -> list[T]:
    """`items` (in Debezium's order) on its chunked path, sorted stably by row count when
    snapshot.tables.order.by.row.count asks for it (descending: larger first, ties keep their order)."""
    order = relational.snapshot_tables_order_by_row_count.strip().lower()
    if order not in ("ascending", "descending") or len(items) < 2:
        return items
    counts = [count(i) for i in items]
    sign = 1 if order == "ascending" else -1
    ranked = sorted(range(len(items)), key=lambda i: sign * counts[i])
    return [items[i] for i in ranked]
