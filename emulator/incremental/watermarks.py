"""How an incremental snapshot window is opened and closed (`incremental.snapshot.watermarking.strategy`,
`read.only`), and what each strategy needs from the connector.

`insert_insert` (default): `<chunk>-open` and `<chunk>-close` rows are inserted into the signal table around
the chunk read; the window is open between the two rows' arrival in the stream, and the close row's arrival
emits it. `insert_delete`: as Debezium's DeleteWindowCloser, the open row is inserted, the chunk read and the
open row deleted again; the window closes at once, without waiting for the stream. Read-only (`read.only=true`,
nothing written): the connector reads the chunk inside one consistent read and returns a high watermark (a
position) with it; the window closes when the stream has passed that position.
"""

from __future__ import annotations

import json
from datetime import UTC, datetime
from typing import Any, Protocol, runtime_checkable

OPEN = "snapshot-window-open"
CLOSE = "snapshot-window-close"


class WatermarkWriter(Protocol):
    """A connector that can write to its signal table (`insert_insert`, `insert_delete`)."""

    def write_watermark(self, row_id: str, kind: str, data: str) -> None: ...  # INSERT into the signal table

    def delete_watermark(self, row_id: str) -> None: ...


@runtime_checkable
class ConsistentChunkReader(Protocol):
    """A connector with read-only incremental snapshots: chunk and high watermark in one consistent read."""

    def read_chunk_with_watermark(
        self, ct: Any, key_cols: list[str], after: list | None, upto: list, limit: int, condition: Any
    ) -> tuple[list[list], Any]: ...

    def watermark_passed(self, mark: Any) -> bool: ...  # the stream has passed `mark`


def iso_now() -> str:
    now = datetime.now(UTC)
    return now.strftime("%Y-%m-%dT%H:%M:%S.") + f"{now.microsecond:06d}000Z"


class InsertInsert:
    name = "insert_insert"
    closes_in_stream = True  # the close row's arrival closes the window

    def __init__(self, writer: WatermarkWriter) -> None:
        self.writer = writer
        self._opened = ""

    def open(self, chunk_id: str) -> None:
        self._opened = iso_now()
        self.writer.write_watermark(
            f"{chunk_id}-open", OPEN, json.dumps({"openWindowTimestamp": self._opened})
        )

    def close(self, chunk_id: str) -> None:
        self.writer.write_watermark(
            f"{chunk_id}-close",
            CLOSE,
            json.dumps({"openWindowTimestamp": self._opened, "closeWindowTimestamp": iso_now()}),
        )


class InsertDelete:
    name = "insert_delete"
    closes_in_stream = False  # closed by the snapshot itself right after the chunk read

    def __init__(self, writer: WatermarkWriter) -> None:
        self.writer = writer

    def open(self, chunk_id: str) -> None:
        self.writer.write_watermark(f"{chunk_id}-open", OPEN, json.dumps({"openWindowTimestamp": iso_now()}))

    def close(self, chunk_id: str) -> None:
        self.writer.delete_watermark(f"{chunk_id}-open")


class ReadOnly:
    name = "read_only"
    closes_in_stream = False  # closed once the stream has passed the chunk's watermark

    def __init__(self, reader: ConsistentChunkReader) -> None:
        self.read = reader.read_chunk_with_watermark
        self.passed = reader.watermark_passed


def strategy_for(source: Any, name: str, read_only: bool) -> InsertInsert | InsertDelete | ReadOnly | None:
    """The strategy the settings ask for; None for read-only on a connector without consistent chunk reads
    (an execute-snapshot signal is then refused)."""
    if read_only:
        return ReadOnly(source) if isinstance(source, ConsistentChunkReader) else None
    return InsertDelete(source) if name == "insert_delete" else InsertInsert(source)
