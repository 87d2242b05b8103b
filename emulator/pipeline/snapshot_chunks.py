"""`snapshot.max.threads` > 1: Debezium 3.6's chunked parallel snapshot, as a plan and a read-ahead.

Debezium (RelationalSnapshotChangeEventSource.createChunkedDataEvents, ChunkBoundaryCalculator,
SnapshotChunkQueryBuilder): a pool of N connections on one consistent snapshot; every captured table is cut
into chunks by its key - `SELECT COUNT(1)`, then N chunks of count/N rows, the boundaries read with
`ORDER BY key OFFSET i*count/N`, the last chunk closed by the maximum key - and each chunk is read with
`WHERE key >= lower AND key < upper ORDER BY key` (`<= max` for the last). A table without a key, with a
snapshot.select.statement.overrides entry, or with fewer rows than chunks is one chunk read by the plain
snapshot query. The N threads emit as they read: records of different tables and of different chunks of
one table interleave, but the markers are those of the single-threaded snapshot over the rows in chunk
order (the first record of the first table waits for nobody, every table's last record waits for its other
chunks, the snapshot's last for every other table).

The emulator emits one schedule of those threads: table after table, chunk after chunk, each chunk's rows
in key order - so every record (markers included) is one Debezium emits, and the order is one it can emit.
That sequence is a chunked table in key order whatever the cut, so the emulator cuts such tables into
small pieces (`Piece`) that its N connections read ahead (`ChunkReadAhead`) while the caller emits.

`legacy.snapshot.max.threads=true` is Debezium's older table-per-thread path: no chunks; with more than one
connection (min(N, tables)) no table is "first" or "last", so the snapshot has no `first` record and only
its final record is `last`."""

from __future__ import annotations

import queue
import threading
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from typing import Any

from emulator.snapshot import marker


def chunk_count(rows: int, threads: int, multiplier: int = 1) -> int:
    """RelationalSnapshotChangeEventSource.calculateChunkCount."""
    if rows <= 0:
        return 1
    desired = threads * multiplier
    per_chunk = max(1, rows // desired)
    return min(desired, max(1, rows // per_chunk))


def boundary_positions(rows: int, chunks: int) -> list[int]:
    """ChunkBoundaryCalculator.calculateBoundaries: the OFFSETs of the chunks' lower bounds (none: one
    chunk)."""
    if chunks <= 1 or rows <= 0:
        return []
    size = rows // chunks
    if size == 0:
        return []
    return [i * size for i in range(1, chunks)]


def chunked(rows: int, threads: int, multiplier: int = 1) -> bool:
    """Whether Debezium cuts a keyed table of `rows` rows into chunks (then its records come in key order:
    each chunk is read ORDER BY the key, and the chunks follow each other in key order)."""
    return bool(boundary_positions(rows, chunk_count(rows, threads, multiplier)))


@dataclass(frozen=True)
class Piece:
    """One read of the emulator's plan: `table` (the caller's) and, for a chunked table, the key range
    [lower, upper) (None: unbounded) read in key order; a table Debezium does not chunk is one piece with
    both None, read by its plain snapshot query. Any cut of a chunked table gives the same sequence of
    records (key order), so the pieces are cut small for the readers to share (not Debezium's chunks)."""

    table: Any
    lower: tuple | None = None
    upper: tuple | None = None
    ordered: bool = False


def batched(rows: Iterable[Any], size: int = 256) -> Iterator[list]:
    batch: list = []
    for row in rows:
        batch.append(row)
        if len(batch) >= size:
            yield batch
            batch = []
    if batch:
        yield batch


def legacy_markers(first_table: bool, last_table: bool, first_row: bool, last_row: bool) -> str:
    """Debezium's table-per-thread snapshot with more than one thread: no table is first or last."""
    return marker(False, False, first_row, last_row)


_DONE = object()


class ChunkReadAhead:
    """Reads chunks on N connections ahead of the caller, who takes them in plan order.

    `read(worker, i)` yields chunk i's rows in batches (lists) on worker `worker`'s connection (0..N-1; each worker is one
    thread, so one connection is never used by two threads). Chunks are handed to the workers in plan order
    and each chunk's rows go through its own bounded queue, so the caller, always draining the oldest
    unfinished chunk, can never wait on a worker that waits on it. A worker's error is raised to the caller
    at that chunk; `close()` stops the workers (they end at their next batch)."""

    DEPTH = 32  # batches per chunk queue (a few thousand rows read ahead per worker)

    def __init__(self, chunks: list[Piece], read: Callable[[int, int], Iterable[Any]], workers: int):
        self.chunks = chunks
        self._read = read
        self._queues: list[queue.Queue] = [queue.Queue(self.DEPTH) for _ in chunks]
        self._next = 0
        self._lock = threading.Lock()
        self._stop = threading.Event()
        self._threads = [
            threading.Thread(target=self._work, args=(w,), name=f"snapshot-reader-{w}", daemon=True)
            for w in range(max(1, min(workers, len(chunks))))
        ]
        for t in self._threads:
            t.start()

    def _put(self, q: queue.Queue, item: Any) -> bool:
        while not self._stop.is_set():
            try:
                q.put(item, timeout=0.2)
                return True
            except queue.Full:
                continue
        return False

    def _work(self, worker: int) -> None:
        while not self._stop.is_set():
            with self._lock:
                i = self._next
                if i >= len(self.chunks):
                    return
                self._next = i + 1
            q = self._queues[i]
            try:
                for batch in self._read(worker, i):
                    if not self._put(q, batch):
                        return
                self._put(q, _DONE)
            except BaseException as e:  # handed to the caller, which raises it
                self._put(q, e)
                return

    def rows(self, i: int) -> Iterator[Any]:
        """Chunk i's rows (items), in order."""
        q = self._queues[i]
        while True:
            item = q.get()
            if item is _DONE:
                self._queues[i] = None  # type: ignore[call-overload]
                return
            if isinstance(item, BaseException):
                raise item
            yield from item

    def close(self) -> None:
        self._stop.set()
        for t in self._threads:
            t.join(timeout=5)
