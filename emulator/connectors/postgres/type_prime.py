"""Types Debezium's TypeRegistry cannot prime: its PostgreSQL task then fails at start, and so does the emulator.

Debezium 3.6.3's `PostgresConnectorTask.start` builds a `TypeRegistry` before anything else (no publication, no
slot, no snapshot). `TypeRegistry.prime` reads every type outside pg_toast with its enum labels
(`array_agg(enumlabel)` from pg_enum, LEFT JOINed) and, for a type of category `E`, calls
`rs.getArray("enum_values").getArray()`. A type of category E without labels of its own - a domain over an enum
(a domain takes its base type's category), or an enum with no labels - has a null `enum_values`: the task fails
with `NullPointerException: Cannot invoke "java.sql.Array.getArray()" because the return value of
"java.sql.ResultSet.getArray(String)" is null`, not retried. The whole database counts, captured or not.
Recorded: pg case `enum_domain_type_registry_stops`.
"""

from __future__ import annotations

from typing import Any

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


def stop_where_debezium_cannot_prime(conn: Any) -> None:
    """Raise (one line) where the database holds a type Debezium's task fails to start on."""
    row = conn.execute(_LABELLESS_ENUM_CATEGORY).fetchone()
    if row is None:
        return
    name, typtype = row
    what = "a domain over an enum" if typtype == "d" else "an enum without labels"
    raise RuntimeError(
        f"{STOP_MARK} cannot read type {name} ({what}: category E, no enum labels): Debezium's task fails at start "
        '(NullPointerException: the return value of "java.sql.ResultSet.getArray(String)" is null); the emulator '
        "stops here too (nothing created, written or committed)"
    )
