"""ForkedReaders on its own (no database): pieces come back in plan order whichever worker is ready first,
a worker's error is raised at its piece, and a stop mid-way ends the workers. Expected values are written by
hand: piece i holds the items (i, 0), (i, 1), ... (i, size(i) - 1)."""

from __future__ import annotations

import time

import pytest

from emulator.pipeline.snapshot_workers import ForkedReaders, LineList, Lines, WorkerError, fork_available

pytestmark = pytest.mark.skipif(not fork_available(), reason="needs the fork start method")


def _sizes(i: int) -> int:
    return [700, 3, 0, 1200, 256, 513, 1, 2500][i % 8]


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


def _line(i: int, j: int, width: int) -> bytes:
    return b'{"piece":%d,"row":%d,"pad":"%s"}\n' % (i, j, b"x" * width)


def _open_line_reader(w: int):
    """Piece i: its rows as LineLists of 100 lines (piece 7: one of all its rows, more than one writev takes),
    widths so that some messages are larger than the 1 MB pipe (written and read in parts), then its last
    row alone as a pickled item; piece 2 is empty."""

    def batches(i: int):
        n = _sizes(i) if i != 2 else 0
        width = 40_000 if i == 3 else 10 + i
        step = n if i == 7 else 100
        for k in range(0, max(n - 1, 0), step):
            yield LineList(_line(i, j, width) for j in range(k, min(k + step, n - 1)))
        if n:
            yield [("last", i, n - 1)]

    return batches


def test_line_batches_come_back_whole():
    count = 8
    ahead = ForkedReaders(2, count, _open_line_reader)
    try:
        for i in range(count):
            n = _sizes(i) if i != 2 else 0
            items = list(ahead.rows(i))
            lines = [it for it in items if isinstance(it, Lines)]
            assert all(it.rows == bytes(it.data).count(b"\n") for it in lines)
            width = 40_000 if i == 3 else 10 + i
            assert b"".join(it.data for it in lines) == b"".join(_line(i, j, width) for j in range(n - 1))
            assert items[len(lines) :] == ([("last", i, n - 1)] if n else [])
        assert ahead.rows_read == sum(_sizes(i) for i in range(count) if i != 2)
    finally:
        ahead.close()


def test_children_do_not_collect_the_parents_garbage():
    """A librdkafka producer left in a reference cycle (a Kafka output's or an earlier test's) and collected in
    a forked reader crashed it (segfault: the producer's threads do not exist in the child). The readers must
    come back whole however the parent's garbage looks at the fork."""
    import gc

    from confluent_kafka import Producer

    class Holder:
        pass

    def open_reader(w: int):
        def batches(i: int):
            gc.collect()  # the child's own collection: it must not reach the parent's garbage
            yield [(i, 0)]

        return batches

    enabled = gc.isenabled()
    gc.disable()  # the cycles stay garbage until the fork (an automatic collection would free them first)
    try:
        for _ in range(3):
            h = Holder()
            h.producer = Producer({"bootstrap.servers": "127.0.0.1:1", "message.timeout.ms": 60000})
            h.producer.produce("t", b"x")
            h.cycle = h
        del h
        ahead = ForkedReaders(2, 4, open_reader)
        try:
            assert [list(ahead.rows(i)) for i in range(4)] == [[(i, 0)] for i in range(4)]
        finally:
            ahead.close()
    finally:
        if enabled:
            gc.enable()


def test_rows_holding_java_double_fragments_cross_the_pipe():
    """A table's last row is sent as the parsed row: a double outside [1e-3, 1e7) in it is an orjson.Fragment
    (Java's text), which plain pickle refuses (campaign seed 69002: TypeError, the snapshot stopped)."""
    import orjson

    def open_reader(w: int):
        def batches(i: int):
            yield [{"piece": i, "d": orjson.Fragment(b"1.2345678901234567E19")}]

        return batches

    ahead = ForkedReaders(2, 2, open_reader)
    try:
        for i in range(2):
            assert [orjson.dumps(r) for r in ahead.rows(i)] == [b'{"piece":%d,"d":1.2345678901234567E19}' % i]
    finally:
        ahead.close()
