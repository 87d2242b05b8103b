"""Forked snapshot readers: snapshot.max.threads > 1 with the per-row work on more than one core.

Threads do not help a snapshot here: reading a row, converting it and serializing its record are Python
and hold the GIL (bench/bench_snapshot.py: the same CPU per row with 1 or 2 threads). So each of the N
connections of the parallel snapshot lives in a forked worker process that reads its chunks and turns
each row into the record's bytes; the parent only writes them, in plan order, through the output (which
stays the only writer: offsets, flushing and the snapshot markers' hand-off are unchanged).

The child inherits the parent's precomputed per-table envelopes by `fork` (nothing is pickled but rows
and bytes) and never touches the parent's connections, output or threads: it opens its own connection,
and ends with `os._exit` (no atexit handlers, no flushing of inherited buffers).

Protocol over one pipe per worker (`os.pipe`, framed here: an 8-byte header, kind and length): for each of its
pieces, in order, its batches and an empty message at the piece's end; or a pickled `WorkerError`, and the
worker exits. A batch is a pickled list of items, or - a worker's `LineList` - directory lines sent as they
are (one `writev`) and handed to the caller as one `Lines` item: the parent then writes them without a
Python step per row (docs/snapshot-speed.md).
"""

from __future__ import annotations

import copyreg
import fcntl
import gc
import io
import logging
import os
import pickle
import select
import signal
import struct
import sys
import traceback
from collections import deque
from collections.abc import Callable, Iterable, Iterator
from typing import Any

import orjson

log = logging.getLogger("emulator.snapshot")

PIPE_BYTES = 1 << 20  # Linux's default /proc/sys/fs/pipe-max-size
_HEADER = struct.Struct("<iI")  # kind (rows of a lines batch, or one of the two below), body length
_PICKLED = -1
_END = -2
_END_MSG = _HEADER.pack(_END, 0)
_IOV_MAX = 1000  # writev's limit is 1024 buffers (header included)


def _fragment(f: orjson.Fragment) -> tuple:
    return orjson.Fragment, (orjson.dumps(f),)  # orjson.dumps gives a Fragment's bytes back as they are


# a table's last row goes to the parent as the parsed row, whose values may be orjson.Fragments (a double outside
# [1e-3, 1e7) in Java's text, connect.javafloat), which pickle cannot take by itself (campaign seed 69002)
_DISPATCH = {**copyreg.dispatch_table, orjson.Fragment: _fragment}


def _pickled(obj: Any) -> bytes:
    buf = io.BytesIO()
    pickler = pickle.Pickler(buf, protocol=pickle.HIGHEST_PROTOCOL)
    pickler.dispatch_table = _DISPATCH
    pickler.dump(obj)
    return buf.getvalue()


class WorkerError(RuntimeError):
    """A worker failed: its exception's text, raised in the parent at the chunk it was reading."""


class _ParentGone(Exception):
    """A worker's write found the parent's end closed."""


class LineList(list):
    """A worker's batch of directory lines (bytes, each ending in a newline): sent as they are."""

    __slots__ = ()


class Lines:
    """What the parent gets for a `LineList`: the lines as one buffer, and how many there are. The buffer is
    used again for a later message once nothing refers to it: write it, do not keep it."""

    __slots__ = ("data", "rows")

    def __init__(self, data: memoryview, rows: int) -> None:
        self.data = data
        self.rows = rows


def fork_available() -> bool:
    import multiprocessing  # here: a snapshot with snapshot.max.threads 1 forks no reader (~5 ms a start)

    return "fork" in multiprocessing.get_all_start_methods()


class ForkedReaders:
    """N worker processes over a plan of `count` pieces: worker w takes pieces w, w+N, w+2N, ... in order
    (the pieces of a large table are of equal size, so a fixed share balances). `open_reader(w)` runs in
    worker w once (open or adopt its connection) and returns `batches(i)`: piece i as lists of items (or
    `LineList`s, which come back as `Lines` items).

    The parent reads `rows(i)` in plan order from the pipes, in its own thread (reader threads in the
    parent would take the GIL from it whenever its writes release it): while it waits on the worker of
    piece i it takes whatever the others have sent, up to `HOLD_BYTES` held per worker (more than a piece),
    so a worker whose piece comes later keeps working instead of waiting on its full pipe. A worker
    is one thread that writes each batch to its pipe as it is made: a sender thread beside it (an earlier
    version) had to win the GIL back from the rendering thread for every write (docs/snapshot-speed.md)."""

    HOLD_BYTES = 16 << 20  # received, not yet emitted, per worker: ~1.7 pieces of compact lines (~1.1 KB)

    def __init__(
        self, workers: int, count: int, open_reader: Callable[[int], Callable[[int], Iterable[list]]]
    ):
        import multiprocessing

        ctx = multiprocessing.get_context("fork")
        self.workers = workers
        self.rows_read = 0  # items (lines batches: their rows) handed to the caller so far
        self._fds: list[int] = []
        self._procs = []
        self._held: list[deque[tuple[int, memoryview]]] = [deque() for _ in range(workers)]
        self._held_bytes = [0] * workers
        self._buffers = [_Buffers() for _ in range(workers)]
        self._live = list(range(workers))  # workers whose pipe has not ended
        # The children must never collect the parent's garbage: an unreferenced librdkafka producer (a
        # Kafka output's, or a test's) freed in a child calls into threads that do not exist there and
        # crashes it (seen: a segfault in a reader's first collection). Collected here, the rest frozen for
        # the fork (the children keep it frozen; the parent unfreezes it below).
        gc.collect()
        gc.freeze()
        try:
            for w in range(workers):
                parent_end, child_end = os.pipe()
                _widen(child_end)
                # the child closes every parent end it inherits (its own and the earlier workers'): a parent
                # that dies then leaves no reader on its pipe, and the worker's next write ends it (EPIPE)
                self._fds.append(parent_end)
                p = ctx.Process(
                    target=_serve,
                    args=(w, workers, count, child_end, list(self._fds), open_reader),
                    name=f"snapshot-reader-{w}",
                    daemon=True,
                )
                try:
                    p.start()
                finally:
                    os.close(child_end)
                self._procs.append(p)
        except BaseException:
            self.close()
            raise
        finally:
            gc.unfreeze()
        self._worker_of = {fd: w for w, fd in enumerate(self._fds)}

    def rows(self, i: int) -> Iterator[Any]:
        """Piece i's items, in order (pieces must be asked in plan order)."""
        w = i % self.workers
        held = self._held[w]
        loads = pickle.loads
        while True:
            while not held:
                self._pump(w)
            kind, body = held.popleft()
            self._held_bytes[w] -= len(body)
            if kind >= 0:
                self.rows_read += kind
                yield Lines(body, kind)
                continue
            if kind == _END:
                return
            batch = loads(body)
            if isinstance(batch, WorkerError):
                raise batch
            self.rows_read += len(batch)
            yield from batch

    def _pump(self, w: int) -> None:
        """Wait for worker w's next message, meanwhile taking every other worker's that is ready (up to
        HOLD_BYTES held each): a worker whose piece is not the one being emitted keeps working instead of
        waiting on a full pipe. Messages are held as received, unpickled when their piece is emitted."""
        held, held_bytes = self._held, self._held_bytes
        live = self._live
        if w not in live:
            raise EOFError(f"snapshot reader {w} ended early")
        poller = select.poll()  # not select.select: the process may hold descriptors past FD_SETSIZE
        for v in live:
            if v == w or held_bytes[v] < self.HOLD_BYTES:
                poller.register(self._fds[v], select.POLLIN)
        for fd, _ in poller.poll():
            v = self._worker_of[fd]
            msg = _recv(fd, self._buffers[v])
            if msg is None:  # it exited: after its last message, or without one (then raised when needed)
                live.remove(v)
                continue
            held[v].append(msg)
            held_bytes[v] += len(msg[1])

    def close(self) -> None:
        for fd in self._fds:  # a worker still writing gets EPIPE and ends
            os.close(fd)
        self._fds = []
        for p in self._procs:
            p.join(timeout=2)
            if p.is_alive():
                p.kill()
                p.join(timeout=5)
        self._procs = []


def _read_into(fd: int, view: memoryview) -> bool:
    """Fill `view` from the pipe; False at end of file before it is full."""
    got, n = 0, len(view)
    while got < n:
        k = os.readv(fd, (view[got:],))
        if not k:
            return False
        got += k
    return True


class _Buffers:
    """One worker's receive buffers, used again once nothing refers to them: the kernel's page faults and
    zeroing of fresh memory for every message cost the parent more than the copy out of the pipe (perf). A
    worker's messages are emitted in the order they came, so its oldest buffer is the next to be free."""

    SIZE = 384 << 10  # a lines batch (snapshot_chunks.LINE_BATCH_BYTES) and its last line; larger: one-off

    def __init__(self) -> None:
        self._ring: deque[bytearray] = deque()

    def get(self, n: int) -> memoryview:
        if n > self.SIZE:
            return memoryview(bytearray(n))
        ring = self._ring
        # free: referred to by the ring and getrefcount's argument only (a view of it holds one more)
        if ring and sys.getrefcount(ring[0]) == 2:
            buf = ring.popleft()
        else:
            buf = bytearray(self.SIZE)
        ring.append(buf)
        return memoryview(buf)[:n]


def _recv(fd: int, buffers: _Buffers) -> tuple[int, memoryview] | None:
    """The next message (kind, body), or None when the worker's end is closed (between messages or in one)."""
    head = bytearray(_HEADER.size)
    if not _read_into(fd, memoryview(head)):
        return None
    kind, n = _HEADER.unpack(head)
    body = buffers.get(n)
    if n and not _read_into(fd, body):
        return None
    return kind, body


def _widen(fd: int) -> None:
    """A pipe buffer of PIPE_BYTES where Linux allows it (else the 64 KB default stays): a worker's batch
    then goes in one write that does not wait on the parent."""
    try:
        fcntl.fcntl(fd, fcntl.F_SETPIPE_SZ, PIPE_BYTES)
    except (OSError, AttributeError):
        pass


def _writev(fd: int, parts: list) -> None:
    """All of `parts` written (a write to a full pipe blocks; one interrupted or cut short goes on)."""
    left = sum(map(len, parts))
    while True:
        n = os.writev(fd, parts)
        left -= n
        if not left:
            return
        while n >= len(parts[0]):  # drop what was written, keep the rest of a part cut in the middle
            n -= len(parts[0])
            parts = parts[1:]
        parts = [memoryview(parts[0])[n:], *parts[1:]]


def _serve(w: int, workers: int, count: int, fd: int, parent_ends: list[int], open_reader) -> None:
    for end in parent_ends:
        os.close(end)
    # the parent decides when a worker ends (it closes the pipe: EPIPE here), also on Ctrl-C or SIGTERM to the
    # process group; the parent's own handlers must not run on the copies of its state
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    signal.signal(signal.SIGTERM, signal.SIG_IGN)
    pack = _HEADER.pack

    def send(parts: list) -> None:
        try:
            _writev(fd, parts)
        except OSError as e:  # the parent closed its end (stopped, or failed elsewhere)
            raise _ParentGone from e

    def send_pickled(obj: Any) -> None:
        body = _pickled(obj)
        send([pack(_PICKLED, len(body)), body])

    code = 0
    try:
        batches = open_reader(w)
        for i in range(w, count, workers):
            for batch in batches(i):
                if type(batch) is LineList:
                    for k in range(0, len(batch), _IOV_MAX):
                        lines = batch[k : k + _IOV_MAX]
                        send([pack(len(lines), sum(map(len, lines))), *lines])
                else:
                    send_pickled(batch)
            send([_END_MSG])
    except _ParentGone:
        code = 1
    except BaseException as e:  # noqa: BLE001 - everything goes to the parent, which raises it
        code = 1
        text = "".join(traceback.format_exception_only(type(e), e)).strip()
        try:
            send_pickled(WorkerError(f"snapshot reader {w}: {text}"))
        except _ParentGone:
            pass
    finally:
        os._exit(code)
