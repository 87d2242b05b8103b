"""bit(n)[] columns: PostgresValueConverter.schemaBuilder gives PgOid.BIT_ARRAY the schema of one bit(n) (Bits of
the column's length, or a boolean for bit(1)) while its converter is the array converter. The List it returns
fails Connect's put into a Bits/boolean field: TableSchemaBuilder's event.converting.failure.handling.mode leaves
the field null (`warn`/`skip`), or stops (`fail`); a NOT NULL column's null then fails the required-field check and
Debezium stops. Recorded: pg case bit_array_always_null (snapshot and stream: the field is null, whatever the
array). varbit[] has no schema at all (the column is left out, mappings._UNSUPPORTED_ARRAY_ELEMS)."""

from __future__ import annotations

from typing import Any

from emulator.connectors.postgres.types.model import Converter


def bit_array_converter(fail_mode: str) -> Converter:
    """The field's value: always null. `required` / `strict` (columns.column_def_ex): any array stops."""

    def conv(_s: str) -> Any:
        return None

    def stops(column: str, mode: str = "") -> Converter:
        why = f"under {mode}" if mode else "and the column is NOT NULL (null fails its required field)"

        def check(s: str) -> None:
            raise ValueError(
                f"column {column}: a bit array {s} does not fit the field's Bits/boolean schema, {why}; "
                "Debezium stops here too"
            )

        def strict(s: str) -> Any:
            check(s)

        strict.check = (
            check  # (the snapshot checks a row as it reads it: event.processing.failure.handling.mode)
        )
        return strict

    conv.required = lambda column: stops(column)
    conv.strict = lambda column: stops(column, fail_mode)
    return conv
