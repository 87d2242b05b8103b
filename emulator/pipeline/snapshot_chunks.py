"""Debezium 3.6's chunked snapshot (`snapshot.max.threads` > 1, or a `snapshot.max.threads.multiplier` > 1
even on one thread), as a plan and a read-ahead.

Debezium (RelationalSnapshotChangeEventSource.createChunkedDataEvents, ChunkBoundaryCalculator,
SnapshotChunkQueryBuilder): a pool of N connections on one consistent snapshot; every captured table is cut
into chunks by its key - `SELECT COUNT(1)`, then N x multiplier chunks of count/chunks rows, the boundaries
read with `ORDER BY key OFFSET i*count/chunks`, the last chunk closed by the maximum key - and each chunk is
read with `WHERE key >= lower AND key < upper ORDER BY key` (`<= max` for the last; a table cut into one
chunk is still bounded by its maximum key, so in key order too). A table without a key or with a
snapshot.select.statement.overrides entry is one chunk read by the plain snapshot query. The N threads emit
as they read: records of different tables and of different chunks of one table interleave, but the markers
are those of the single-threaded snapshot over the rows in chunk order (the first record of the first table
waits for nobody, every table's last record waits for its other chunks, the snapshot's last for every other
table).

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

from emulator.pipeline.snapshot_workers import LineList
from emulator.snapshot import marker


def chunked(rows: int, threads: int, multiplier: int = 1) -> bool:
    """Whether, on Debezium's chunked path, a keyed table of `rows` rows comes in key order: always when its
    order can matter. Every chunk of a keyed table without an override is read ORDER BY the key - the one
    chunk of a table cut into a single chunk too (ChunkBoundaryCalculator.createChunks bounds it by the
    table's maximum key, SnapshotChunkQueryBuilder then adds the WHERE and the ORDER BY), which happens
    with threads x multiplier = 1 for that table (a per-table multiplier elsewhere) or a single row."""
    return rows > 1


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
        self.rows_read = 0  # rows handed to the caller so far
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
            self.rows_read += len(item)
            yield from item

    def close(self) -> None:
        self._stop.set()
        for t in self._threads:
            t.join(timeout=5)


PIECE_ROWS = 8192  # rows per read of a chunked table (<= a read-ahead queue, so no reader waits long)


def not_null_key(t) -> bool:
    """A key Debezium's chunks cut by; a nullable key column (a unique index as the key) makes the emulator
    read the table as one chunk (docs/parallel-snapshot.md)."""
    by_name = {c.name: c for c in t.columns}
    return bool(t.key_columns) and all(k in by_name and not by_name[k].schema.optional for k in t.key_columns)


def chunked_path(cfg, threads: int, legacy: bool) -> bool:
    """Whether Debezium plans the snapshot (RelationalSnapshotChangeEventSource.isUseNonChunkedSnapshots
    false, or the legacy table-per-thread pool with more than one thread): with more than one thread, or -
    unless legacy.snapshot.max.threads - a snapshot.max.threads.multiplier above 1, the global one or any
    table's (`snapshot.max.threads.multiplier.<table id>`), even with one thread."""
    if threads > 1:
        return True
    if legacy:
        return False
    from emulator.settings import settings_for

    snap = settings_for(cfg).snapshot
    return max((snap.max_threads_multiplier or 1, *snap.table_multipliers.values())) > 1


def max_threads(cfg, tables: int) -> tuple[int, bool]:
    """(readers, legacy): snapshot.max.threads, at most one per table with legacy.snapshot.max.threads."""
    from emulator.settings import settings_for

    typed = settings_for(cfg)
    threads = max(1, typed.snapshot.max_threads or 1)
    legacy = bool(typed.tuning.legacy_snapshot_max_threads)
    if legacy:  # Debezium's table-per-thread pool: no more connections than tables
        threads = max(1, min(threads, tables))
    return threads, legacy


LINE_BATCH_BYTES = 256 << 10  # compact directory lines per message of a forked reader (~230 of bench_pg.py)


def renderer(captured: list, markers, item_of, held_as, lines: bool = False):
    """For forked readers: piece i's rows -> batches of items the parent turns into records (less to send
    than the records: the schemas around them are the parent's precomputed frames), each made with the mark
    run_snapshot gives its row (the same table position, first row of the table's first piece), except each
    table's last row, sent as `held_as(row)` for the parent to build: whether it is the snapshot's `last`
    depends on the tables after it. `item_of(env)`: a table's `(row, mark) -> item`. With `lines` the items
    are the records' directory lines (bytes), batched as `LineList`s of up to LINE_BATCH_BYTES that the parent
    writes as they are, and a table's last row comes alone in a batch of its own."""
    position = {ct.env.table.id: i for i, ct in enumerate(captured)}
    n = len(captured)

    def render(pieces: list[Piece], by_table: dict[str, list[int]], i: int, rows):
        env = pieces[i].table.env
        t = env.table
        ti = position[t.id]
        own = by_table[t.id]
        first_table, last_table = ti == 0, ti == n - 1
        last_piece = i == own[-1]
        item = item_of(env)
        middle = markers(first_table, last_table, False, False)  # every row but a table's first and last
        mark = markers(first_table, last_table, True, False) if i == own[0] else middle
        batch: list = []
        held = None
        for row in rows:
            if held is not None:
                batch.append(item(held, mark))
                mark = middle
                if len(batch) >= 256:
                    yield batch
                    batch = []
            held = row
        if held is not None:
            batch.append(held_as(held) if last_piece else item(held, mark))
        if batch:
            yield batch

    def render_lines(pieces: list[Piece], by_table: dict[str, list[int]], i: int, rows):
        env = pieces[i].table.env
        t = env.table
        ti = position[t.id]
        own = by_table[t.id]
        first_table, last_table = ti == 0, ti == n - 1
        line = item_of(env)
        middle = markers(first_table, last_table, False, False)
        mark = markers(first_table, last_table, True, False) if i == own[0] else middle
        batch = LineList()
        size = 0
        held = None
        for row in rows:
            if held is not None:
                b = line(held, mark)
                batch.append(b)
                mark = middle
                size += len(b)
                if size >= LINE_BATCH_BYTES:
                    yield batch
                    batch = LineList()
                    size = 0
            held = row
        if held is not None and i != own[-1]:
            batch.append(line(held, mark))
            held = None
        if batch:
            yield batch
        if held is not None:
            yield [held_as(held)]

    return render_lines if lines else render


class CountedItems:
    """A table's items when some stand for many rows (`Lines`): run_snapshot counts `snapshot_rows`, the
    rows handed over so far, instead of the items (a Python step per item; items are batches here)."""

    __slots__ = ("_next", "_ahead", "_start")

    def __init__(self, items: Iterator[Any], ahead) -> None:
        self._next = items.__next__
        self._ahead = ahead
        self._start = ahead.rows_read

    def __iter__(self) -> CountedItems:
        return self

    def __next__(self) -> Any:
        return self._next()

    @property
    def snapshot_rows(self) -> int:
        return self._ahead.rows_read - self._start


def table_rows(ahead, by_table: dict[str, list[int]], log, batches: bool = False):
    """`rows_of(captured table)`: its pieces' rows from the read-ahead, in piece order, logged as a table.
    `batches`: the read-ahead hands over items that stand for many rows (`Lines`): counted as rows."""

    def counted(ct):
        return CountedItems(rows_of(ct), ahead)

    def rows_of(ct):
        t = ct.env.table
        n = ahead.rows_read  # counted per batch by the read-ahead: no step of this generator per row
        log.info("snapshot of %s: starting", t.id)
        for i in by_table[t.id]:
            yield from ahead.rows(i)
        log.info("snapshot of %s: %d rows", t.id, ahead.rows_read - n)

    return counted if batches else rows_of
