"""Forked snapshot readers: snapshot.max.threads > 1 with the per-row work on more than one core.

Threads do not help a snapshot here: reading a row, converting it and serializing its record are Python
and hold the GIL (bench/bench_snapshot.py: the same CPU per row with 1 or 2 threads). So each of the N
connections of the parallel snapshot lives in a forked worker process that reads its chunks and turns
each row into the record's bytes; the parent only writes them, in plan order, through the output (which
stays the only writer: offsets, flushing and the snapshot markers' hand-off are unchanged).

The child inherits the parent's precomputed per-table envelopes by `fork` (nothing is pickled but rows
and bytes) and never touches the parent's connections, output or threads: it opens its own connection,
and ends with `os._exit` (no atexit handlers, no flushing of inherited buffers).

Protocol over one duplex pipe per worker: the parent sends a chunk index; the worker answers with batches
(pickled lists of items) and an empty message at the chunk's end, or a pickled `WorkerError` and exits.
"""

from __future__ import annotations

import logging
import multiprocessing
import os
import pickle
import traceback
from collections.abc import Callable, Iterable, Iterator
from typing import Any

log = logging.getLogger("emulator.snapshot")

_END = b""


class WorkerError(RuntimeError):
    """A worker failed: its exception's text, raised in the parent at the chunk it was reading."""


def fork_available() -> bool:
    return "fork" in multiprocessing.get_all_start_methods()


class ForkedReaders:
    """N worker processes. `open_reader(w)` runs in worker w once (open and prepare its connection) and
    returns `batches(i)`: chunk i as an iterable of lists of items (rows or rendered records)."""

    def __init__(self, workers: int, open_reader: Callable[[int], Callable[[int], Iterable[list]]]):
        ctx = multiprocessing.get_context("fork")
        self._pipes = []
        self._procs = []
        try:
            for w in range(workers):
                parent_end, child_end = ctx.Pipe(duplex=True)
                p = ctx.Process(
                    target=_serve,
                    args=(w, child_end, open_reader),
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

    def read(self, worker: int, i: int) -> Iterator[list]:
        """Chunk i's batches from worker `worker` (call from one thread per worker)."""
        pipe = self._pipes[worker]
        pipe.send_bytes(i.to_bytes(8, "little", signed=True))
        loads = pickle.loads
        while True:
            msg = pipe.recv_bytes()
            if msg == _END:
                return
            batch = loads(msg)
            if isinstance(batch, WorkerError):
                raise batch
            yield batch

    def close(self) -> None:
        for pipe in self._pipes:
            try:
                pipe.send_bytes((-1).to_bytes(8, "little", signed=True))
            except OSError:
                pass
        for p in self._procs:
            p.join(timeout=5)
            if p.is_alive():
                p.kill()
                p.join(timeout=5)
        for pipe in self._pipes:
            pipe.close()
        self._pipes, self._procs = [], []


def _serve(w: int, pipe: Any, open_reader: Callable[[int], Callable[[int], Iterable[list]]]) -> None:
    code = 0
    try:
        batches = open_reader(w)
        dumps = pickle.dumps
        send = pipe.send_bytes
        while True:
            i = int.from_bytes(pipe.recv_bytes(), "little", signed=True)
            if i < 0:
                break
            for batch in batches(i):
                send(dumps(batch, protocol=pickle.HIGHEST_PROTOCOL))
            send(_END)
    except EOFError:  # the parent went away
        code = 1
    except BaseException as e:  # noqa: BLE001 - everything goes to the parent, which raises it
        code = 1
        text = "".join(traceback.format_exception_only(type(e), e)).strip()
        try:
            pipe.send_bytes(pickle.dumps(WorkerError(f"snapshot reader {w}: {text}")))
        except OSError:
            pass
    finally:
        os._exit(code)
