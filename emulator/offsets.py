"""Durable connector offsets (`offset.storage.file.filename`).

One JSON document `{"partition": {...}, "offset": {...}}`, replaced atomically (write, fsync, rename,
fsync the directory) so a crash leaves either the old or the new offset, never a torn one; created
owner-only (emulator/statefiles.py). A file that is not such a document - corrupted, wrongly shaped, or
holding another partition's offsets (another connector, or a changed topic.prefix, which would otherwise
silently snapshot again and overwrite them) - is a StateFileError naming the file (exit 2).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import orjson

from emulator.statefiles import StateFileError, write_atomic

_INT = (int,)
_STR = (str,)
# the JSON types of the offset fields the connectors read back (other fields are kept as they are)
_OFFSET_FIELDS: dict[str, tuple[type, ...]] = {
    # PostgreSQL
    "lsn": _INT,
    "lsn_commit": _INT,
    "lsn_proc": _INT,
    "last_commit_lsn": _INT,
    "ts_usec": _INT,
    "txId": _INT,
    "messageType": _STR,
    "lsn_events_processed": _INT,
    # MySQL / MariaDB
    "file": _STR,
    "pos": _INT,
    "event": _INT,
    "row": _INT,
    "transaction_gtid": _STR,
    "gtids": _STR,
    "server_id": _INT,
    "ts_sec": _INT,
    "snapshot": (bool, str),
    "snapshot_completed": (bool,),
    # MongoDB
    "sec": _INT,
    "ord": _INT,
    "resume_token": _STR,
    "initsync": (bool,),
    # transaction metadata (TransactionContext): also each `transaction_data_collection_order_<name>`, a count
    "transaction_id": _STR,
    # incremental snapshots
    "incremental_snapshot_collections": (list,),
    "incremental_snapshot_primary_key": (list,),
    "incremental_snapshot_maximum_key": (list,),
    "incremental_snapshot_correlation_id": _STR,
}


_TX_ORDER_KEY = "transaction_data_collection_order_"


def offset_shape_problem(offset: dict[str, Any]) -> str | None:
    """What is wrong with a stored offset's shape, or None: a field the connectors read has the wrong JSON
    type (they would fail with an AttributeError or TypeError deep inside, or misread a position)."""
    for key, value in offset.items():
        types = _OFFSET_FIELDS.get(key) or (_INT if key.startswith(_TX_ORDER_KEY) else None)
        if types is None or value is None:
            continue
        if not isinstance(value, types) or (isinstance(value, bool) and bool not in types):
            kind = " or ".join(
                {int: "an integer", str: "a string", bool: "a boolean", list: "an array"}[t] for t in types
            )
            return f"offset field {key!r} must be {kind}, not {orjson.dumps(value).decode()[:80]}"
    for entry in offset.get("incremental_snapshot_collections") or []:
        if not isinstance(entry, str | dict) or (
            isinstance(entry, dict) and not isinstance(entry.get("incremental_snapshot_collections_id"), str)
        ):
            return "offset field 'incremental_snapshot_collections' has an entry that is not a table id"
    return None


class OffsetStore:
    def load(self) -> dict[str, Any] | None:
        raise NotImplementedError

    def save(self, offset: dict[str, Any]) -> bool | None:
        """Store `offset`; False when the write was given up (the next interval retries with a newer one)."""
        raise NotImplementedError


class MemoryOffsetStore(OffsetStore):
    def __init__(self) -> None:
        self.offset: dict[str, Any] | None = None

    def load(self) -> dict[str, Any] | None:
        return self.offset

    def save(self, offset: dict[str, Any]) -> None:
        self.offset = dict(offset)


class FileOffsetStore(OffsetStore):
    def __init__(self, path: str | Path, partition: dict[str, Any]) -> None:
        self.path = Path(path)
        self.partition = partition
        self._last: bytes | None = None

    def load(self) -> dict[str, Any] | None:
        try:
            raw = self.path.read_bytes()
        except FileNotFoundError:
            return None
        except OSError as e:
            raise StateFileError(self.path, f"offset file cannot be read ({e.strerror or e})") from None
        if not raw.strip():
            raise StateFileError(self.path, "offset file is empty")
        try:
            data = orjson.loads(raw)
        except orjson.JSONDecodeError as e:
            raise StateFileError(self.path, f"offset file is not valid JSON ({e})") from None
        if not isinstance(data, dict) or set(data) != {"partition", "offset"}:
            raise StateFileError(
                self.path, 'offset file is not a {"partition": {...}, "offset": {...}} document'
            )
        partition, offset = data["partition"], data["offset"]
        if not isinstance(partition, dict) or not (offset is None or isinstance(offset, dict)):
            raise StateFileError(self.path, "offset file: partition and offset must be JSON objects")
        problem = offset_shape_problem(offset) if offset is not None else None
        if problem:
            raise StateFileError(self.path, problem)
        if partition != self.partition:
            raise StateFileError(
                self.path,
                f"offset file holds the offsets of partition {orjson.dumps(partition).decode()}, not of "
                f"{orjson.dumps(self.partition).decode()} (another connector's file, or topic.prefix changed)",
            )
        self._last = raw
        return offset

    def save(self, offset: dict[str, Any]) -> None:
        blob = orjson.dumps({"partition": self.partition, "offset": offset})
        if blob == self._last:
            return
        write_atomic(self.path, blob)
        self._last = blob
