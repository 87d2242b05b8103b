"""What an incremental snapshot keeps in the connector offsets, in Debezium's field names.

The tables still to do (current first, each with its filter and surrogate key), the key of the last emitted
chunk (a restart resumes after it: rows of a window that had not closed are read again), the table's maximum
key and the execute-snapshot signal's id (the notifications' id).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

COLLECTIONS = "incremental_snapshot_collections"
PRIMARY_KEY = "incremental_snapshot_primary_key"
MAXIMUM_KEY = "incremental_snapshot_maximum_key"
CORRELATION_ID = "incremental_snapshot_correlation_id"
COLLECTION_ID = "incremental_snapshot_collections_id"
COLLECTION_CONDITION = "incremental_snapshot_collections_additional_condition"
COLLECTION_SURROGATE = "incremental_snapshot_collections_surrogate_key"
# older offsets: ids only in COLLECTIONS, filters and surrogate keys beside them
_OLD_CONDITIONS = "incremental_snapshot_conditions"
_OLD_SURROGATES = "incremental_snapshot_surrogate_keys"


def entry(table_id: str, condition: str | None, surrogate: str | None) -> dict[str, Any]:
    """One table of the queue, as the offsets store it."""
    return {
        COLLECTION_ID: table_id,
        COLLECTION_CONDITION: condition or None,
        COLLECTION_SURROGATE: surrogate or None,
    }


@dataclass
class Progress:
    queue: list[dict[str, Any]] = field(default_factory=list)
    done_key: list | None = None
    max_key: list | None = None
    correlation_id: str | None = None


def to_offset(p: Progress) -> dict | None:
    if not p.queue:
        return None
    return {
        COLLECTIONS: [dict(e) for e in p.queue],
        PRIMARY_KEY: p.done_key,
        MAXIMUM_KEY: p.max_key,
        CORRELATION_ID: p.correlation_id,
    }


def from_offset(stored: dict) -> Progress | None:
    """The progress kept in `stored` (a connector offset), or None when no snapshot was running."""
    cols = stored.get(COLLECTIONS)
    if not cols:
        return None
    conds = stored.get(_OLD_CONDITIONS) or {}
    surr = stored.get(_OLD_SURROGATES) or {}
    queue = []
    for c in cols:
        if isinstance(c, str):
            queue.append(entry(c, conds.get(c), surr.get(c)))
        elif isinstance(c, dict) and c.get(COLLECTION_ID):
            queue.append(entry(c[COLLECTION_ID], c.get(COLLECTION_CONDITION), c.get(COLLECTION_SURROGATE)))
    if not queue:
        return None
    return Progress(queue, stored.get(PRIMARY_KEY), stored.get(MAXIMUM_KEY), stored.get(CORRELATION_ID))


def key_text(key: list | None) -> str:
    """A key as Debezium's notifications print it: values joined by ',' (Objects.toString)."""
    if key is None:
        return '"<null>"'
    return ",".join("<null>" if v is None else str(v) for v in key)
