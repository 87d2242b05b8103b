"""Names Debezium's snapshot query cannot quote (PostgreSQL).

Debezium 3.6.3 names a table in its snapshot's SELECT with TableId.toDoubleQuotedString, whose quote() leaves a
part that starts or ends with `"` as it is (taken for quoted already) and doubles the `"` of any other: a schema or
table named `s "q"` (or `"x`) is written bare, `SELECT ... FROM s "q"."t"`, and PostgreSQL refuses it ("syntax error
at or near"). The error is retriable: the snapshot is abandoned, nothing of it is committed, and the task restarts
every 10 s, forever by default (recorded: pg case snapshot_quoted_name_stops, campaign seed 44770003). A name with a
`"` inside only (`a"b`) is quoted correctly. The emulator stops before its snapshot's first record, as for the keys
Debezium's chunk query cannot bind (chunk_bind.py): the part of Debezium's failed attempts that precedes the table
is not compared (emulator.testing.lost_batch)."""

from __future__ import annotations

# what the emulator's error line says (the differential harness knows the stop by it)
STOP_MARK = "Debezium's snapshot query"


def misquoted(part: str) -> bool:
    """TableId.quote leaves this part unquoted and unescaped."""
    return bool(part) and (part[0] == '"' or part[-1] == '"')


def stop_if_misquoted(table_ids: list[tuple[str, str]]) -> None:
    """(schema, table) of each table the snapshot reads with Debezium's own SELECT (no override): the first one
    Debezium cannot name stops the emulator."""
    for schema, name in table_ids:
        bad = next((p for p in (schema, name) if misquoted(p)), None)
        if bad is not None:
            raise RuntimeError(
                f"{STOP_MARK} over {schema}.{name} fails: TableId.toDoubleQuotedString leaves the name part {bad!r} "
                'unquoted (it starts or ends with a double quote), PostgreSQL answers "ERROR: syntax error at or near" and the snapshot '
                "restarts every 10 s without end; the emulator stops here (nothing written or committed)"
            )
