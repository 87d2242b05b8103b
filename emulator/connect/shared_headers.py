"""A delete and its tombstone share one headers object in Debezium: what a transform adds to it in place
while processing the delete is on the tombstone when the tombstone's turn comes.

Debezium's connectors create the tombstone `SourceRecord` with the delete's `ConnectHeaders` instance.
`ExtractChangedRecordState` adds its headers to the record's own headers and returns the record itself;
`ExtractNewRecordState` adds `add.headers` to the record's own headers, then makes its new record (Kafka's
`newRecord` duplicates the headers). Kafka's transforms make new records with duplicated headers, so after
any of them nothing more reaches the shared object. Debezium's `PartitionRouting`, `TimezoneConverter` and
`HeaderToValue` (`operation=copy`) make their new record with `newRecord(..., record.headers())`: the same
object, still shared (bytecode of 3.6.3; `PartitionRouting` before `ExtractNewRecordState add.headers` in
the data-plane campaign, seed 7: tests/data/connect/pg_partition_shared_headers). Measured with real Debezium: `ExtractChangedRecordState`
+ `ExtractNewRecordState` (`add.headers=db,op,table`, `rewrite-with-tombstone`) gives the tombstone
`Changed, Unchanged, __db, __op=d, __table` from the delete and its own `__op=d`
(tests/data/connect/pg_tombstone_shared_headers).

The emulator's records never share a mutable headers list (the connectors reuse one list for every
record), so the data plane replays the effect: `track` collects the headers added to the shared object
while a record runs through the chain; the next record, if it is a tombstone of the same topic, starts with
them.
"""

from __future__ import annotations

from typing import Any

# transform class name -> how it treats the record's own headers object
ADDS_THEN_COPIES = "adds, then a new record"  # ExtractNewRecordState
ADDS_KEEPS_RECORD = "adds, same record"  # ExtractChangedRecordState
KEEPS_OBJECT = "a new record, the same headers object"  # PartitionRouting, TimezoneConverter, HeaderToValue


def track(transform: Any, before: Any, after: Any, added: list) -> bool:
    """After one stage changed the record: append to `added` what it put into the shared headers object;
    -> whether the record still holds that object."""
    kind = getattr(transform, "in_place_headers", None)
    if kind is None or after is None:
        return False
    if kind == KEEPS_OBJECT:
        return True
    n = len(before.headers)
    if after.headers[:n] == before.headers:
        added.extend(after.headers[n:])
    return kind == ADDS_KEEPS_RECORD
