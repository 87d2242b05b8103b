"""The order of a parallel snapshot's records within a topic, for the differential comparison.

With `snapshot.max.threads` > 1 Debezium 3.6.3 cuts each keyed table into chunks read by its threads at once
(RelationalSnapshotChangeEventSource.createChunkedDataEvents): a record waits only for its table's first
record (and a table's last one for its other chunks), so the records of two chunks of one table interleave as
the threads run. A table of up to 3 rows has one row in its first chunk and comes in key order; from 4 rows on
the order within the topic depends on timing. Each record's `source.snapshot` marker belongs to its row
(chunk order), not to the moment it was emitted, and the emulator emits one order Debezium's threads can
produce (docs/parallel-snapshot.md). So the comparison sorts the snapshot reads that open each topic, on
both sides, by their key and row: every record must still be there, with its marker, exactly once.
"""

from __future__ import annotations

import json
from typing import Any

# the source.snapshot values of an initial snapshot's reads (an incremental snapshot's are "incremental")
_READ_MARKERS = frozenset(("true", "first", "first_in_data_collection", "last_in_data_collection", "last"))


def parallel_snapshot(config: dict[str, Any]) -> bool:
    """Debezium's chunked path with more than one thread (legacy.snapshot.max.threads keeps each table on
    one thread: its order within a topic is the plain query's)."""
    try:
        threads = int(str(config.get("snapshot.max.threads", "1")).strip())
    except ValueError:
        return False
    return threads > 1 and str(config.get("legacy.snapshot.max.threads", "false")).lower() != "true"


def payload(part: Any) -> Any:
    return part.get("payload") if isinstance(part, dict) and "schema" in part else part


def is_read(rec: dict) -> bool:
    p = payload(rec.get("value"))
    if not isinstance(p, dict) or p.get("op") != "r":
        return False
    src = p.get("source")
    return isinstance(src, dict) and src.get("snapshot") in _READ_MARKERS


def _row_key(rec: dict) -> str:
    p = payload(rec.get("value"))
    return json.dumps([payload(rec.get("key")), p.get("after")], sort_keys=True, default=str)


def sort_snapshot_reads(by_topic: dict[str, list[dict]]) -> None:
    """In place: each topic's leading run of initial-snapshot reads sorted by (key, after)."""
    for records in by_topic.values():
        n = 0
        while n < len(records) and is_read(records[n]):
            n += 1
        if n > 1:
            records[:n] = sorted(records[:n], key=_row_key)


def _mark(rec: dict) -> Any:
    p = payload(rec.get("value"))
    return p["source"].get("snapshot") if is_read(rec) else None


def accept_remarked_last(gold: dict[str, list[dict]], ours: dict[str, list[dict]]) -> str | None:
    """With threads Debezium may mark a second record `last` (pg campaign seed 44604007): its buffering receiver
    (EventDispatcher.BufferingSnapshotChangeRecordReceiver.completeSnapshot) re-marks the record delivered last,
    and when the thread of an earlier table finishes after the plan's last table's, that is the earlier table's
    last row (`last_in_data_collection` in its own right). Which row, if any, depends on the threads' timing; the
    emulator writes the output in which the plan's last table finishes last (one `last`). So where the recording
    has exactly two `last` reads, ours has one of them and `last_in_data_collection` on the other (the same row,
    after sort_snapshot_reads), the recording's extra mark is read as `last_in_data_collection`. In place on
    `gold`; returns a note of what was accepted, or None."""
    lasts = [(t, i) for t, recs in gold.items() for i, r in enumerate(recs) if _mark(r) == "last"]
    ours_lasts = [(t, i) for t, recs in ours.items() for i, r in enumerate(recs) if _mark(r) == "last"]
    if len(lasts) != 2 or len(ours_lasts) != 1 or ours_lasts[0] not in lasts:
        return None
    t, i = next(x for x in lasts if x != ours_lasts[0])
    mine = ours.get(t, [])
    if (
        i >= len(mine)
        or _mark(mine[i]) != "last_in_data_collection"
        or _row_key(mine[i]) != _row_key(gold[t][i])
    ):
        return None
    payload(gold[t][i]["value"])["source"]["snapshot"] = "last_in_data_collection"
    return (
        f"{t}[{i}]: Debezium's second `last` (its receiver re-marked the record its threads delivered last)"
    )
