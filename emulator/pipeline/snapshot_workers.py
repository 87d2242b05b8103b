"""Forked snapshot readers: snapshot.max.threads > 1 with the per-row work on more than one core.

Threads do not help a snapshot here: reading a row, converting it and serializing its record are Python
and hold the GIL (bench/bench_snapshot.py: the same CPU per row with 1 or 2 threads). So each of the N
connections of the parallel snapshot lives in a forked worker process that reads its chunks and turns
each row into the record's bytes; the parent only writes them, in plan order, through the output (which
stays the only writer: offsets, flushing and the snapshot markers' hand-off are unchanged).

The child inherits the parent's precomputed per-table envelopes by `fork` (nothing is pickled but rows
and bytes) and never touches the parent's connections, output or threads: it opens its own connection,
and ends with `os._exit` (no atexit handlers, no flushing of inherited buffers).

Protocol over one pipe per worker: for each of its pieces, in order, pickled batches (lists of items) and an
empty message at the piece's end; or a pickled `WorkerError`, and the worker exits.
"""

from __future__ import annotations

import fcntl
import logging
import os
import pickle
import select
import signal
import traceback
from collections import deque
from collections.abc import Callable, Iterable, Iterator
from typing import Any

log = logging.getLogger("emulator.snapshot")

_END = b""
PIPE_BYTES = 1 << 20  # Linux's default /proc/sys/fs/pipe-max-size


class WorkerError(RuntimeError):
    """A worker failed: its exception's text, raised in the parent at the chunk it was reading."""


class _ParentGone(Exception):
    """A worker's write found the parent's end closed."""


def fork_available() -> bool:
    import multiprocessing  # here: a snapshot with snapshot.max.threads 1 forks no reader (~5 ms a start)

    return "fork" in multiprocessing.get_all_start_methods()


class ForkedReaders:
    """N worker processes over a plan of `count` pieces: worker w takes pieces w, w+N, w+2N, ... in order
    (the pieces of a large table are of equal size, so a fixed share balances). `open_reader(w)` runs in
    worker w once (open or adopt its connection) and returns `batches(i)`: piece i as lists of items.

    The parent reads `rows(i)` in plan order from the pipes, in its own thread (reader threads in the
    parent would take the GIL from it whenever its writes release it): while it waits on the worker of
    piece i it takes whatever the others have sent, up to `DEPTH` messages held per worker (more than one
    piece), so a worker whose piece comes later keeps working instead of waiting on its full pipe. A worker
    is one thread that writes each batch to its pipe as it is made: a sender thread beside it (an earlier
    version) had to win the GIL back from the rendering thread for every write (docs/snapshot-speed.md)."""

    DEPTH = 48  # batches of 256 held per worker: a whole piece (8192 rows) and a half

    def __init__(
        self, workers: int, count: int, open_reader: Callable[[int], Callable[[int], Iterable[list]]]
    ):
        import multiprocessing

        ctx = multiprocessing.get_context("fork")
        self.workers = workers
        self.rows_read = 0  # items handed to the caller so far
        self._pipes = []
        self._procs = []
        self._held: list[deque[bytes]] = [deque() for _ in range(workers)]  # received, not yet emitted
        self._live = list(range(workers))  # workers whose pipe has not ended
        try:
            for w in range(workers):
                parent_end, child_end = ctx.Pipe(duplex=False)
                _widen(child_end)
                # the child closes every parent end it inherits (its own and the earlier workers'): a parent
                # that dies then leaves no reader on its pipe, and the worker's next write ends it (EPIPE)
                p = ctx.Process(
                    target=_serve,
                    args=(w, workers, count, child_end, [*self._pipes, parent_end], open_reader),
                    name=f"snapshot-reader-{w}",
                    daemon=True,
                )
                p.start()
                child_end.close()
                self._pipes.append(parent_end)
                self._procs.append(p)
        except BaseException:
            self.close()
            raise
        self._fds = [p.fileno() for p in self._pipes]
        self._worker_of = {fd: w for w, fd in enumerate(self._fds)}

    def rows(self, i: int) -> Iterator[Any]:
        """Piece i's items, in order (pieces must be asked in plan order)."""
        w = i % self.workers
        held = self._held[w]
        loads = pickle.loads
        while True:
            while not held:
                self._pump(w)
            msg = held.popleft()
            if msg == _END:
                return
            batch = loads(msg)
            if isinstance(batch, WorkerError):
                raise batch
            self.rows_read += len(batch)
            yield from batch

    def _pump(self, w: int) -> None:
        """Wait for worker w's next message, meanwhile taking every other worker's that is ready (up to
        DEPTH held each): a worker whose piece is not the one being emitted keeps working instead of
        waiting on a full pipe. Messages are held as bytes, unpickled when their piece is emitted."""
        held = self._held
        live = self._live
        if w not in live:
            raise EOFError(f"snapshot reader {w} ended early")
        poller = select.poll()  # not select.select: the process may hold descriptors past FD_SETSIZE
        for v in live:
            if v == w or len(held[v]) < self.DEPTH:
                poller.register(self._fds[v], select.POLLIN)
        for fd, _ in poller.poll():
            v = self._worker_of[fd]
            try:
                held[v].append(self._pipes[v].recv_bytes())
            except EOFError:  # it exited: after its last message, or without one (then raised when needed)
                live.remove(v)

    def close(self) -> None:
        for pipe in self._pipes:  # a worker still writing gets EPIPE and ends
            pipe.close()
        for p in self._procs:
            p.join(timeout=2)
            if p.is_alive():
                p.kill()
                p.join(timeout=5)
        self._pipes, self._procs = [], []


def _widen(end: Any) -> None:
    """A pipe buffer of PIPE_BYTES where Linux allows it (else the 64 KB default stays): a worker's batch
    (~180 KB pickled for bench_pg.py's rows) then goes in one write that does not wait on the parent."""
    try:
        fcntl.fcntl(end.fileno(), fcntl.F_SETPIPE_SZ, PIPE_BYTES)
    except (OSError, AttributeError):
        pass


def _serve(w: int, workers: int, count: int, pipe: Any, parent_ends: list, open_reader) -> None:
    for end in parent_ends:
        end.close()
    # the parent decides when a worker ends (it closes the pipe: EPIPE here), also on Ctrl-C or SIGTERM to the
    # process group; the parent's own handlers must not run on the copies of its state
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    signal.signal(signal.SIGTERM, signal.SIG_IGN)
    send_bytes = pipe.send_bytes

    def send(msg: bytes) -> None:
        try:
            send_bytes(msg)
        except OSError as e:  # the parent closed its end (stopped, or failed elsewhere)
            raise _ParentGone from e

    code = 0
    try:
        batches = open_reader(w)
        dumps = pickle.dumps
        for i in range(w, count, workers):
            for batch in batches(i):
                send(dumps(batch, protocol=pickle.HIGHEST_PROTOCOL))
            send(_END)
    except _ParentGone:
        code = 1
    except BaseException as e:  # noqa: BLE001 - everything goes to the parent, which raises it
        code = 1
        text = "".join(traceback.format_exception_only(type(e), e)).strip()
        try:
            send(pickle.dumps(WorkerError(f"snapshot reader {w}: {text}")))
        except _ParentGone:
            pass
    finally:
        os._exit(code)
