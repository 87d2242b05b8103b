"""A captured table renamed or moved out of the filters, then widened: Debezium stops on its next change.

Debezium 3.6.3 skips a Relation message whose table the filters leave out without forgetting the table its relation
id maps to (`PostgresSchema.applySchemaChangesForTable`; pg case `table_moved_out_of_filters`): the table's changes
go on under its old name with its old columns. When a column is then added, the new Relation message is skipped
too, and the next INSERT/UPDATE/DELETE's tuple has more columns than that table:
`PgOutputMessageDecoder.resolveColumnsFromStreamTupleData` reads column i of the old table for each tuple column
and fails with `IndexOutOfBoundsException: Index N out of bounds for length N` ("Producer failure", not retried).
The connector stops there; its offsets stay before the change (the slot keeps it). The emulator stops on that change
too (a skipped operation counts: Debezium decodes before it skips). Recorded: pg case
`table_renamed_out_of_filters_widened_stops`.
"""

from __future__ import annotations

from typing import Any


def stale_message(table_id: str, rel: Any, old_columns: int) -> str:
    """The emulator's one line; "Debezium stops here too" marks a stop on a change for the differential harness
    (Debezium's last poll batch before it is lost as well, emulator.testing.lost_batch)."""
    return (
        f"table {table_id}, now {rel.namespace}.{rel.name} which the filters leave out, gained columns "
        f"({old_columns} -> {len(rel.columns)}): Debezium still decodes its changes with the old columns and fails "
        f"on the next one (IndexOutOfBoundsException: Index {old_columns} out of bounds for length {old_columns}); "
        "Debezium stops here too"
    )
