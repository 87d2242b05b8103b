"""The schema events a snapshot source keeps between snapshots: Debezium's `BinlogSnapshotChangeEventSource.schemaEvents`.

Debezium's binlog snapshot source holds its schema events in one `LinkedHashSet<SchemaChangeEvent>` field for the
life of the task: the initial snapshot fills it (SET, DROP TABLE, DROP/CREATE DATABASE, USE, SHOW CREATE TABLE), and
a blocking snapshot (the same source, on demand) adds its DROP TABLE and SHOW CREATE TABLE events to the same set,
then dispatches **every** event of the set whose first table is one the signal names, in the set's order. A
SchemaChangeEvent is equal to another of the same database, schema, DDL text and type (its source block, timestamp
and tables are not compared), so an event whose text the set already holds is not added: the earlier one stays, and
is dispatched again as it was built, with its own source block (the initial snapshot's position, `server_id` 0,
`snapshot` "true", its timestamps) and its own table definition. Recorded (mariadb cases
blocking_snapshot_schema_events, blocking_snapshot_kept_events):

* a table unchanged since the initial snapshot: its DROP TABLE and CREATE TABLE records are the initial snapshot's,
  source and timestamps included;
* a table altered since: the initial snapshot's CREATE TABLE (the old columns) comes again, and the new SHOW CREATE
  TABLE text after every kept event, with the blocking snapshot's source (the stream's position and server id,
  `snapshot` "false", the time it was read); a later blocking snapshot repeats both;
* a table created since: its DROP TABLE and CREATE TABLE are new events, appended in the order they were read
  (DROP TABLEs first).

A connector started on a stored offset runs no initial snapshot: its set starts empty (`SnapshotEvents()`).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any


@dataclass
class SnapshotEvent:
    db: str
    table: str | None  # the event's first table (None: SET, database statements)
    ddl: str
    src: dict[str, Any]  # the source block as emitted (the same dict: a later `last` marker is seen again)
    ts_ms: int  # the event's timestamp (the record's ts_ms)
    position: dict[str, Any]  # its schema-history position
    # its tableChanges as emitted and as written to the history (the table as it was when the event was built);
    # None until a blocking snapshot first dispatches an event it added
    table_changes: list[dict] | None = None
    history_changes: list[dict] | None = None


class SnapshotEvents:
    """The set, keyed as SchemaChangeEvent.equals compares (database and DDL text; the text fixes the type)."""

    def __init__(self) -> None:
        self._events: dict[tuple[str, str], SnapshotEvent] = {}

    def clear(self) -> None:
        self._events.clear()

    def __contains__(self, key: tuple[str, str]) -> bool:
        return key in self._events

    def add(self, event: SnapshotEvent) -> None:
        """An equal event already held stays where it is, as it was built (LinkedHashSet.add)."""
        self._events.setdefault((event.db, event.ddl), event)

    def of_tables(self, tables: set[tuple[str, str]]) -> list[SnapshotEvent]:
        """The events a blocking snapshot of `tables` dispatches, in the set's order: those whose first table is one
        of them (createSchemaChangeEventsForTables skips the others, and every event without a table)."""
        return [e for e in self._events.values() if e.table is not None and (e.db, e.table) in tables]
