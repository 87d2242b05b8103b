"""Keys Debezium's chunked snapshot cannot bind (PostgreSQL, snapshot.max.threads > 1 or a multiplier > 1).

Debezium 3.6.3 reads a keyed table's chunk bounds (and its maximum key, which bounds the last chunk, the only
one of a small table) with pgjdbc's `ResultSet.getObject` (`ChunkBoundaryCalculator`) and binds them back with
`setObject` (`CascadingOrBoundaryConditions.bindTriangularParams` -> `PostgresConnection.setQueryColumnValue`;
only an enum is bound as `Types.OTHER`). pgjdbc 42.7 reads a `money` value as a Java Double (bound as
double precision) and a `bit` value of one bit as a Boolean (bound as boolean); PostgreSQL has no comparison
of money with double precision nor of bit with boolean, so the chunk query fails ("operator does not exist:
money < double precision", "bit <= boolean"), with domains over them too (a domain's column is described
with its base type). The error is retriable: the snapshot is abandoned, nothing of it is committed and the
task restarts every 10 s, forever by default. Recorded: pg cases `snapshot_threads_money_key_stops`,
`snapshot_threads_bit1_key_stops`, `snapshot_threads_domain_money_key_stops`.

Every other key type binds as a type PostgreSQL compares with the column (int2 as int4, oid as int8,
`"char"`/char(n)/name as varchar, dates and times unspecified, the rest as their own type).

A table Debezium never bounds is safe: an empty table (no maximum key), a keyless one, one with a
`snapshot.select.statement.overrides` entry, and the legacy table-per-thread path.
"""

from __future__ import annotations

import psycopg

_MONEY, _BIT = 790, 1560

# the key columns' base types (domains followed) and effective typmods (a domain's own where the column has
# none); `shown` is the type as PostgreSQL names it in its error (the domain's name)
_KEY_TYPES = """
WITH RECURSIVE d(attname, typ, typmod, shown) AS (
  SELECT a.attname, a.atttypid, a.atttypmod, format_type(a.atttypid, NULL)
  FROM pg_attribute a
  JOIN pg_class c ON c.oid = a.attrelid
  JOIN pg_namespace n ON n.oid = c.relnamespace
  WHERE n.nspname = %s AND c.relname = %s AND a.attname = ANY(%s) AND a.attnum > 0 AND NOT a.attisdropped
  UNION ALL
  SELECT d.attname, t.typbasetype, CASE WHEN d.typmod < 0 THEN t.typtypmod ELSE d.typmod END, d.shown
  FROM d JOIN pg_type t ON t.oid = d.typ
  WHERE t.typtype = 'd'
)
SELECT d.attname, d.typ::int, d.typmod, d.shown FROM d JOIN pg_type t ON t.oid = d.typ WHERE t.typtype <> 'd'
"""


def bound_as(type_oid: int, typmod: int) -> str | None:
    """The type pgjdbc binds a key value of this base type as, where PostgreSQL cannot compare the two."""
    if type_oid == _MONEY:
        return "double precision"
    if type_oid == _BIT and typmod == 1:  # bit(1): every value is one bit (a longer bit(n) is a PGobject)
        return "boolean"
    return None


def unbindable_key(
    conn: psycopg.Connection, namespace: str, name: str, keys: list[str]
) -> tuple[str, str] | None:
    """(the key column's type as PostgreSQL names it, the type its bound value is bound as) of the first key
    column Debezium's chunk query cannot compare with its bound, or None."""
    by_name = {r[0]: r for r in conn.execute(_KEY_TYPES, (namespace, name, keys)).fetchall()}
    for k in keys:  # the first key column is bound first
        r = by_name.get(k)
        target = r and bound_as(r[1], r[2])
        if target:
            return r[3], target
    return None


# what the emulator's error line says (the differential harness knows the stop by it)
STOP_MARK = "Debezium's chunk query"


def stop_message(prop: str, table: str, shown: str, target: str, single_chunk: bool) -> str:
    """The one line the emulator stops with; `prop` the setting that chunks the snapshot. A table cut into one chunk (fewer rows than chunks) is bounded
    by `key <= maximum key` only; else the first chunk's `key < bound` fails first."""
    op = "<=" if single_chunk else "<"
    return (
        f'{prop}: {STOP_MARK} over {table} fails ("ERROR: operator does not exist: '
        f'{shown} {op} {target}") and its snapshot restarts every 10 s without end; the emulator stops here '
        "(nothing written or committed)"
    )
