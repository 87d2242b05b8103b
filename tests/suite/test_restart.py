"""Restarts of the CLI process on its offsets file: a clean stop (SIGTERM) commits everything, so the next
process neither loses nor repeats a change; after kill -9 the next process restarts from the last committed
offset: nothing is lost, and only a tail of what the killed process emitted is emitted again (at-least-once,
spec §2.12 / §14); a snapshot interrupted by kill -9 is redone. Then estuary's StressCorrectness idea: random
writes while the process is killed at random points; replaying every event gives the table."""

from __future__ import annotations

import random
import threading
import time
from collections import Counter

import pytest
from emulator_proc import snapshot_done
from harness import CliRun
from incremental_checks import Writer, assert_replay_equals


class Inserter(threading.Thread):
    """Inserts ids 1..n into `t`, one transaction each, on one connection. Before its last quarter it waits
    until `stopped` is set (the test's stop or kill has happened), so that the stop lands before the last
    insert however far ahead of the connector the writer got on a loaded machine."""

    def __init__(self, backend, n: int) -> None:
        super().__init__(daemon=True)
        self.backend, self.n = backend, n
        self.done = 0
        self.stopped = threading.Event()
        self.error: BaseException | None = None

    def run(self) -> None:
        try:
            self.backend.insert_each("t", self._rows())
        except BaseException as e:  # reported by the test
            self.error = e

    def _rows(self):
        for i in range(1, self.n + 1):
            if i == self.n * 3 // 4 and not self.stopped.wait(120):
                raise AssertionError("the test never stopped the connector")
            yield {"id": i}
            self.done = i
            time.sleep(0.004)  # a steady stream the stop lands in the middle of


def _stream_then_restart(backend, n: int, stop) -> tuple[list[int], list[int]]:
    """Ids emitted as `c` by a first process stopped by `stop(run)` mid-stream, and by the whole output
    once a second process has caught up."""
    backend.create_table("t", {"id": "int"})
    run = CliRun(backend, **{"snapshot.mode": "no_data"}).start()
    run.barrier()
    w = Inserter(backend, n)
    w.start()
    run.wait(lambda recs: len(run.ids(recs, "t", "c")) >= n // 5, "a fifth of the inserts")
    stop(run)
    w.stopped.set()
    assert w.done < n, "the writer finished before the stop; nothing was tested"
    first = run.ids(run.records, "t", "c")
    run2 = CliRun(backend, **{"snapshot.mode": "no_data"}).start()
    w.join(120)
    assert w.error is None
    run2.wait(lambda recs: set(range(1, n + 1)) <= set(run2.ids(recs, "t", "c")), "every insert", 120)
    recs = run2.barrier()
    assert run2.stop() == 0
    return first, run2.ids(recs, "t", "c")


@pytest.mark.needs("cli_restart")
def test_sigterm_mid_stream_then_restart_exactly_once(backend):
    _, ids = _stream_then_restart(backend, 400, lambda run: run.stop() == 0 or pytest.fail("exit != 0"))
    counts = Counter(ids)
    assert set(counts) == set(range(1, 401))
    assert [i for i, k in counts.items() if k > 1] == []


@pytest.mark.needs("cli_restart")
def test_kill9_mid_stream_then_restart_at_least_once(backend):
    first, ids = _stream_then_restart(backend, 600, lambda run: run.kill())
    assert set(ids) == set(range(1, 601))  # nothing lost
    assert ids[: len(first)] == first
    again = [i for i in ids[len(first) :] if i in set(first)]
    assert again == first[len(first) - len(again) :], "re-emitted records are not a tail of the first run"


QUIET = {"key.converter.schemas.enable": "false", "value.converter.schemas.enable": "false"}


@pytest.mark.needs("cli_restart", "held_reads")
def test_kill9_during_snapshot_then_restart_redoes_it(backend):
    """The middle of the snapshot is held, not hoped for: another session locks `u`, which the snapshot reads
    after `t`, and the kill comes once the connector waits on that lock. (Polling for a share of `t`'s rows
    failed on CI once the snapshot got fast enough to end between two polls.) The next process redoes the
    whole snapshot: every row of `t` again, after what the killed process wrote, then `u`, then the end."""
    n = 3000
    backend.create_table("t", {"id": "int"})
    backend.create_table("u", {"id": "int"})
    with backend.transaction():
        backend.insert("t", *({"id": i} for i in range(1, n + 1)))
        backend.insert("u", {"id": 1})
    with backend.reads_held("u") as (props, waiting):
        run = CliRun(backend, **QUIET, **props).start()
        deadline = time.monotonic() + 120
        while not waiting():
            assert run.proc.proc.poll() is None and time.monotonic() < deadline, run.proc.log_tail()
            time.sleep(0.05)
        run.kill()
    first = run.records
    assert run.ids(first, "u") == [] and not snapshot_done(first)
    before = len(run.ids(first, "t"))
    print("BEFORE", before)  # what the killed process wrote of `t` (buffered rows are lost)
    run2 = CliRun(backend, **QUIET, **props).start()
    u_out = backend.workdir / "out" / f"{backend.topic('u')}.jsonl"
    deadline = time.monotonic() + 180
    while not _ends_snapshot(u_out):  # `u` is the last table: its one row is the snapshot's `last`
        assert run2.proc.proc.poll() is None and time.monotonic() < deadline, run2.proc.log_tail()
        time.sleep(0.1)
    assert run2.stop() == 0
    recs = run2.records
    assert sorted(run2.ids(recs, "t", "r")[before:]) == list(range(1, n + 1))
    assert run2.ids(recs, "u", "r") == [1]


def _ends_snapshot(path) -> bool:
    """The last line written is the snapshot's `last` record."""
    try:
        with open(path, "rb") as f:
            f.seek(0, 2)
            f.seek(max(0, f.tell() - 2048))
            tail = f.read()
    except FileNotFoundError:
        return False
    return b'"snapshot":"last"' in tail


@pytest.mark.needs("cli_restart", "sql_writer")
def test_random_writes_and_kills_replay_to_the_table(backend):
    """Random updates, deletes, upserts and key moves while the process is killed twice at random moments."""
    backend.create_table("items", {"id": "int", "v": "bigint", "note": "text"})
    with backend.transaction():
        backend.insert("items", *({"id": i, "v": i, "note": "n"} for i in range(1, 201)))
    rnd = random.Random(13)
    run = CliRun(backend).start()
    run.barrier()
    writer = Writer(backend.session, backend.writer_sql("items"), keys=220, delay=0.003, seed=3)
    writer.start()
    try:
        for _ in range(2):
            time.sleep(rnd.uniform(0.3, 1.5))
            _writes_since(writer, 20)
            run.kill()
            run = CliRun(backend).start()
        time.sleep(0.5)
        _writes_since(writer, 20)
    finally:
        writer.stop()
    recs = run.barrier(120)
    assert run.stop() == 0
    assert_replay_equals(recs, backend.topic("items"), backend.rows("items"), ("id",))


def _writes_since(writer: Writer, n: int) -> None:
    """Until the writer has made `n` more writes: each stretch between kills has writes in it however slow the
    machine (the test asserted `writer.ops > 50` over about 2.2 s of sleeps, a bound from the machine's speed)."""
    want, deadline = writer.ops + n, time.monotonic() + 60
    while writer.ops < want:
        assert writer.error is None and time.monotonic() < deadline, f"the writer made {writer.ops} writes"
        time.sleep(0.02)
