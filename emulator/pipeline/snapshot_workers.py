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

import logging
import os
import pickle
import queue
import signal
import threading
import traceback
from collections.abc import Callable, Iterable, Iterator
from typing import Any

log = logging.getLogger("emulator.snapshot")

_END = b""


class WorkerError(RuntimeError):
    """A worker failed: its exception's text, raised in the parent at the chunk it was reading."""


def fork_available() -> bool:
    import multiprocessing  # here: a snapshot with snapshot.max.threads 1 forks no reader (~5 ms a start)

    return "fork" in multiprocessing.get_all_start_methods()


class ForkedReaders:
    """N worker processes over a plan of `count` pieces: worker w takes pieces w, w+N, w+2N, ... in order
    (the pieces of a large table are of equal size, so a fixed share balances). `open_reader(w)` runs in
    worker w once (open or adopt its connection) and returns `batches(i)`: piece i as lists of items.

    The parent reads `rows(i)` in plan order straight from the worker's pipe, in its own thread: reader
    threads in the parent would take the GIL from it whenever its writes release it. The worker renders
    ahead into a bounded queue that its sender thread writes to the pipe (up to `DEPTH` batches, more than
    one piece), so while the parent drains one worker the others keep working."""

    DEPTH = 48  # batches of 256: a whole piece (8192 rows) and a half

    def __init__(
        self, workers: int, count: int, open_reader: Callable[[int], Callable[[int], Iterable[list]]]
    ):
        import multiprocessing

        ctx = multiprocessing.get_context("fork")
        self.workers = workers
        self.rows_read = 0  # items handed to the caller so far
        self._pipes = []
        self._procs = []
        try:
            for w in range(workers):
                parent_end, child_end = ctx.Pipe(duplex=False)
                # the child closes every parent end it inherits (its own and the earlier workers'): a parent
                # that dies then leaves no reader on its pipe, and the worker's next write ends it (EPIPE)
                p = ctx.Process(
                    target=_serve,
                    args=(w, workers, count, child_end, [*self._pipes, parent_end], open_reader, self.DEPTH),
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

    def rows(self, i: int) -> Iterator[Any]:
        """Piece i's items, in order (pieces must be asked in plan order)."""
        recv = self._pipes[i % self.workers].recv_bytes
        loads = pickle.loads
        while True:
            msg = recv()
            if msg == _END:
                return
            batch = loads(msg)
            if isinstance(batch, WorkerError):
                raise batch
            self.rows_read += len(batch)
            yield from batch

    def close(self) -> None:
        for pipe in self._pipes:  # a worker still writing gets EPIPE and ends
            pipe.close()
        for p in self._procs:
            p.join(timeout=2)
            if p.is_alive():
                p.kill()
                p.join(timeout=5)
        self._pipes, self._procs = [], []


def _serve(w: int, workers: int, count: int, pipe: Any, parent_ends: list, open_reader, depth: int) -> None:
    for end in parent_ends:
        end.close()
    # the parent decides when a worker ends (it closes the pipe: EPIPE here), also on Ctrl-C or SIGTERM to the
    # process group; the parent's own handlers must not run on the copies of its state
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    signal.signal(signal.SIGTERM, signal.SIG_IGN)
    out: queue.Queue = queue.Queue(depth)
    failed = threading.Event()

    def sender() -> None:
        send = pipe.send_bytes
        try:
            while True:
                msg = out.get()
                if msg is None:
                    return
                send(msg)
        except OSError:  # the parent closed its end (stopped, or failed elsewhere)
            failed.set()
            while out.get() is not None:  # unblock the renderer
                pass

    t = threading.Thread(target=sender, daemon=True)
    t.start()
    code = 0
    try:
        batches = open_reader(w)
        dumps = pickle.dumps
        for i in range(w, count, workers):
            for batch in batches(i):
                if failed.is_set():
                    raise EOFError
                out.put(dumps(batch, protocol=pickle.HIGHEST_PROTOCOL))
            out.put(_END)
    except EOFError:
        code = 1
    except BaseException as e:  # noqa: BLE001 - everything goes to the parent, which raises it
        code = 1
        text = "".join(traceback.format_exception_only(type(e), e)).strip()
        out.put(pickle.dumps(WorkerError(f"snapshot reader {w}: {text}")))
    finally:
        out.put(None)
        t.join(timeout=30)
        os._exit(code)
