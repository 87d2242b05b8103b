"""The periodic offset commit's slow half (fsync of the output, the offset file's atomic replace) on its own
thread, so the stream does not stop for it.

Measured on these machines (bench/bench_pg.py --latency-trace): an offset commit of the directory output
with a file offset store is three fsyncs, 13-32 ms at p50 and up to 76 ms under other load; on the
streaming thread every change that arrived meanwhile waited for it (at 100 tx/s 1-2 % of the events,
enough to set the p99).

The order of durability is unchanged: the streaming thread flushes the output and takes the source's
offset at the commit point; this thread makes what was flushed durable, then saves that offset; only then
is the source told (`Source.committed`), back on the streaming thread (PostgreSQL's replication
connection is not shared between threads). One commit is in flight at a time.
"""

from __future__ import annotations

import threading
from typing import Any


class BackgroundCommitter:
    """`make_durable(token)` and `save(offset)` run here, in that order; `on_done()` is called from this
    thread when a commit finished (the engine then looks at `take()` from its own thread)."""

    def __init__(self, make_durable, save, on_done) -> None:
        self._make_durable = make_durable
        self._save = save
        self._on_done = on_done
        self._cv = threading.Condition()
        self._job: tuple[Any, dict, int] | None = None
        self._busy = False
        self._done: tuple[dict, int] | None = None  # offset saved, records it covers: for take()
        self._error: BaseException | None = None
        self._closed = False
        self._thread = threading.Thread(target=self._run, name="offset-commit", daemon=True)
        self._thread.start()

    @property
    def busy(self) -> bool:
        return self._busy

    def submit(self, token: Any, offset: dict, records: int) -> None:
        """Start a commit (the caller checked `busy` is False): `token` from the output's `commit_point()`
        (None: nothing new to make durable), `records` the engine's count it covers."""
        with self._cv:
            self._busy = True
            self._job = (token, offset, records)
            self._cv.notify_all()

    @property
    def finished(self) -> bool:
        """A result waits for `take()` (read without the lock: a stale False only defers it a tick)."""
        return self._done is not None or self._error is not None

    def take(self) -> tuple[dict, int] | None:
        """The last finished commit's (offset, records), once; re-raises what failed in the thread."""
        with self._cv:
            if self._error is not None:
                err, self._error = self._error, None
                raise err
            done, self._done = self._done, None
            return done

    def wait(self) -> None:
        """Until no commit is in flight."""
        with self._cv:
            while self._busy:
                self._cv.wait()

    def close(self) -> None:
        with self._cv:
            while self._busy:
                self._cv.wait()
            self._closed = True
            self._cv.notify_all()
        self._thread.join()

    def _run(self) -> None:
        while True:
            with self._cv:
                while self._job is None and not self._closed:
                    self._cv.wait()
                if self._job is None:
                    return
                token, offset, records = self._job
                self._job = None
            done = None
            error = None
            try:
                if (token is None or self._make_durable(token) is not False) and self._save(
                    offset
                ) is not False:
                    done = (offset, records)
            except BaseException as e:  # noqa: BLE001 - handed to the streaming thread by take()
                error = e
            with self._cv:
                if done is not None:
                    self._done = done
                if error is not None:
                    self._error = error
                self._busy = False
                self._cv.notify_all()
            self._on_done()
