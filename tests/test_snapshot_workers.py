"""ForkedReaders on its own (no database): pieces come back in plan order whichever worker is ready first,
a worker's error is raised at its piece, and a stop mid-way ends the workers. Expected values are written by
hand: piece i holds the items (i, 0), (i, 1), ... (i, size(i) - 1)."""

from __future__ import annotations

import time

import pytest

from emulator.pipeline.snapshot_workers import ForkedReaders, WorkerError, fork_available

pytestmark = pytest.mark.skipif(not fork_available(), reason="needs the fork start method")


def _sizes(i: int) -> int:
    return [700, 3, 0, 1200, 256, 513, 1, 900][i % 8]


def _open_reader(slow_worker: int | None = None, fail_piece: int | None = None):
    def open_reader(w: int):
        def batches(i: int):
            if w == slow_worker:
                time.sleep(0.05)  # the other workers get ahead: their pieces are held by the parent
            if i == fail_piece:
                raise ValueError(f"piece {i} broke")
            items = [(i, j) for j in range(_sizes(i))]
            for k in range(0, len(items), 256):
                yield items[k : k + 256]

        return batches

    return open_reader


@pytest.mark.parametrize("workers,slow", [(2, None), (3, 0), (3, 2)])
def test_pieces_in_plan_order(workers, slow):
    count = 16
    ahead = ForkedReaders(workers, count, _open_reader(slow))
    try:
        for i in range(count):
            assert list(ahead.rows(i)) == [(i, j) for j in range(_sizes(i))]
        assert ahead.rows_read == sum(_sizes(i) for i in range(count))
    finally:
        ahead.close()


def test_worker_error_raised_at_its_piece():
    ahead = ForkedReaders(2, 6, _open_reader(fail_piece=3))
    try:
        for i in range(3):
            assert len(list(ahead.rows(i))) == _sizes(i)
        with pytest.raises(WorkerError, match="snapshot reader 1: ValueError: piece 3 broke"):
            list(ahead.rows(3))
    finally:
        ahead.close()


def test_stop_midway_ends_the_workers():
    ahead = ForkedReaders(2, 40, _open_reader())
    procs = list(ahead._procs)
    next(iter(ahead.rows(0)))
    ahead.close()
    assert all(not p.is_alive() for p in procs)
