"""`guardrail.collections.max` / `guardrail.collections.limit.action` (Debezium 3.6's GuardrailValidator, read at
v3.6.1.Final): at every task start, before the snapshot or the stream, the tables the connector would keep
schemas of are counted; above the maximum, `warn` logs and goes on (the records are the same), `fail` stops the
task before any record (DebeziumException "Guardrail limit exceeded"). 0 (the default) skips the check.

What is counted (each connector passes the names):
- PostgreSQL: the ordinary and partitioned tables of every schema (pgjdbc's types TABLE and PARTITIONED TABLE:
  partitions count, views and system schemas do not) that the table filters capture, the signal table too;
- MySQL / MariaDB: the BASE TABLEs of every non-system database (SHOW FULL TABLES), narrowed to the captured
  databases under `schema.history.internal.store.only.captured.databases.ddl` and to the captured tables under
  `store.only.captured.tables.ddl`: the tables whose schemas the history keeps, which is what the snapshot's
  schema read selects too.
Recorded: pg and mariadb cases guardrail_fail_stops (one table above the maximum: no record) and
guardrail_at_max_passes (the same count at the maximum: captured as without it).
"""

from __future__ import annotations

import logging

log = logging.getLogger("emulator.guardrail")


def check(typed, names: list[str], validating_all: bool = False) -> None:
    """`typed`: the connector's settings (settings_for); `names`: the tables counted."""
    common = typed.common
    limit = common.guardrail_collections_max
    if limit <= 0:
        return
    if len(names) <= limit:
        log.info(
            "Guardrail validation passed: %d tables/collections configured for capture (limit: %d)",
            len(names),
            limit,
        )
        return
    message = (
        f"Guardrail limit exceeded: {len(names)} tables/collections configured for capture, but maximum allowed is "
        f"{limit}."
    )
    if validating_all:
        message += (
            " Since 'schema.history.internal.store.only.captured.tables.ddl' is set to 'false', schemas of all the "
            "tables in the database are being captured."
        )
    if common.guardrail_collections_limit_action == "fail":
        raise RuntimeError(
            message + " (guardrail.collections.limit.action=fail: Debezium's task stops at start)"
        )
    log.warning(message)
