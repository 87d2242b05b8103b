"""Durable connector offsets (`offset.storage.file.filename`).

One JSON document `{"partition": {...}, "offset": {...}}`, replaced atomically (write, fsync, rename,
fsync the directory) so a crash leaves either the old or the new offset, never a torn one.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import orjson


class OffsetStore:
    def load(self) -> dict[str, Any] | None:
        raise NotImplementedError

    def save(self, offset: dict[str, Any]) -> None:
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
            data = orjson.loads(self.path.read_bytes())
        except FileNotFoundError:
            return None
        except orjson.JSONDecodeError as e:
            raise ValueError(f"offset file {self.path} is not valid JSON: {e}") from None
        if data.get("partition") != self.partition:
            return None  # another connector's (or another topic.prefix's) offsets
        return data.get("offset")

    def save(self, offset: dict[str, Any]) -> None:
        blob = orjson.dumps({"partition": self.partition, "offset": offset})
        if blob == self._last:
            return
        self.path.parent.mkdir(parents=True, exist_ok=True)
        tmp = self.path.with_name(self.path.name + ".tmp")
        with open(tmp, "wb") as f:
            f.write(blob)
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, self.path)
        dfd = os.open(self.path.parent, os.O_RDONLY)
        try:
            os.fsync(dfd)
        finally:
            os.close(dfd)
        self._last = blob
