"""Types Debezium's TypeRegistry cannot prime: its PostgreSQL task then fails at start, and so does the emulator.

Debezium 3.6.3's `PostgresConnectorTask.start` builds a `TypeRegistry` before anything else (no publication, no
slot, no snapshot). `TypeRegistry.prime` reads every type outside pg_toast with its enum labels
(`array_agg(enumlabel)` from pg_enum, LEFT JOINed) and, for a type of category `E`, calls
`rs.getArray("enum_values").getArray()`. A type of category E without labels of its own - a domain over an enum
(a domain takes its base type's category), or an enum with no labels - has a null `enum_values`: the task fails
with `NullPointerException: Cannot invoke "java.sql.Array.getArray()" because the return value of
"java.sql.ResultSet.getArray(String)" is null`, not retried. The whole database counts, captured or not.
Recorded: pg cases `enum_domain_type_registry_stops`, `empty_enum_type_registry_stops`.

Such a type created while streaming stops Debezium at the first Relation message with a column of it (or an array of
it), any table's (the decoder reads the columns before the filters): `TypeRegistry.get` looks the unknown type up
with the same query (`resolveUnknownType`) and fails the same way, "Producer failure"; the transaction's BEGIN
record comes first. Recorded: pg case `enum_domain_created_streaming_stops`.
"""

from __future__ import annotations

from typing import Any

from emulator.connectors.postgres.catalog import registry_for

_LABELLESS_ENUM_CATEGORY = """
SELECT format('%I.%I', n.nspname, t.typname), t.typtype
FROM pg_catalog.pg_type t
JOIN pg_catalog.pg_namespace n ON n.oid = t.typnamespace
WHERE n.nspname <> 'pg_toast' AND t.typcategory = 'E'
  AND NOT EXISTS (SELECT 1 FROM pg_catalog.pg_enum e WHERE e.enumtypid = t.oid)
ORDER BY t.oid
LIMIT 1
"""

# what the emulator's error line says
STOP_MARK = "Debezium's TypeRegistry"

# the same, among types (and their array element types) a Relation message names that the emulator has not read yet
_LABELLESS_AMONG = """
SELECT format('%%I.%%I', n.nspname, t.typname), t.typtype
FROM pg_catalog.pg_type t
JOIN pg_catalog.pg_namespace n ON n.oid = t.typnamespace
WHERE (t.oid = ANY(%s::oid[]) OR t.oid IN (SELECT typelem FROM pg_catalog.pg_type WHERE oid = ANY(%s::oid[])))
  AND t.typcategory = 'E' AND NOT EXISTS (SELECT 1 FROM pg_catalog.pg_enum e WHERE e.enumtypid = t.oid)
LIMIT 1
"""


def stop_where_debezium_cannot_prime(conn: Any) -> None:
    """Raise (one line) where the database holds a type Debezium's task fails to start on."""
    row = conn.execute(_LABELLESS_ENUM_CATEGORY).fetchone()
    if row is not None:
        raise RuntimeError(_line(row, "fails at start"))


def unresolvable(conn: Any, type_oids: list[int]) -> str | None:
    """The stop line where a Relation message names such a type (one created after the start: those before stopped
    it), else None. Oids the emulator's registry of `conn` holds were read before (and passed)."""
    known = registry_for(conn).types
    new = sorted({o for o in type_oids if o not in known})
    if not new:
        return None
    arr = "{" + ",".join(map(str, new)) + "}"
    row = conn.execute(_LABELLESS_AMONG, (arr, arr)).fetchone()
    return (
        _line(row, "fails on the Relation message naming it") + "; Debezium stops here too" if row else None
    )


def _line(row: tuple, where: str) -> str:
    name, typtype = row
    what = "a domain over an enum" if typtype == "d" else "an enum without labels"
    return (
        f"{STOP_MARK} cannot read type {name} ({what}: category E, no enum labels): Debezium's task {where} "
        '(NullPointerException: the return value of "java.sql.ResultSet.getArray(String)" is null); the emulator '
        "stops here too (nothing created, written or committed past it)"
    )
