"""The periodic offset commit of the directory output with a file offset store runs its fsyncs and the offset
file's replace off the streaming thread (docs/latency.md): the stream keeps writing meanwhile, the order of
durability stays output -> offset file -> source told, and the source is told on the streaming thread."""

from __future__ import annotations

import json
import threading
import time

import pytest

from emulator.engine import MAX_LINGER_S, Engine
from emulator.offsets import FileOffsetStore
from emulator.outputs.directory import DirectoryOutput
from emulator.records import Record

PARTITION = {"server": "t"}


class Source:
    def __init__(self) -> None:
        self.pos = 0
        self.told: list[tuple[int, str]] = []  # (pos, thread name) per committed()

    def offset(self) -> dict:
        return {"pos": self.pos}

    def committed(self, offset: dict) -> None:
        self.told.append((offset["pos"], threading.current_thread().name))


class HeldOutput(DirectoryOutput):
    """make_durable waits until the test lets it go, and notes what the offset file held at that moment."""

    def __init__(self, directory, offsets_path) -> None:
        super().__init__(directory)
        self.offsets_path = offsets_path
        self.entered = threading.Event()
        self.release = threading.Event()
        self.offset_file_then: list[str | None] = []
        self.fail: BaseException | None = None

    def make_durable(self, fds):
        self.offset_file_then.append(self.offsets_path.read_text() if self.offsets_path.exists() else None)
        self.entered.set()
        assert self.release.wait(30)
        if self.fail is not None:
            raise self.fail
        return super().make_durable(fds)


def _engine(tmp_path):
    offsets_path = tmp_path / "offsets.json"
    out = HeldOutput(tmp_path / "out", offsets_path)
    engine = Engine(out, FileOffsetStore(offsets_path, PARTITION), flush_interval_ms=0)
    src = Source()
    engine.source = src
    return engine, out, src, offsets_path


def _lines(tmp_path) -> list[dict]:
    return [json.loads(x) for x in (tmp_path / "out" / "t.jsonl").read_bytes().splitlines()]


def test_stream_goes_on_while_the_commit_is_made_durable(tmp_path):
    engine, out, src, offsets_path = _engine(tmp_path)
    try:
        src.pos = 1
        engine.emit(Record("t", b"1", b"1"))
        engine.tick()  # the interval (0 ms) is due: a background commit of pos 1 starts
        assert out.entered.wait(30)
        assert out.offset_file_then == [None]  # output made durable before the offset is saved

        # the commit is held in make_durable: the streaming thread is not
        src.pos = 2
        engine.emit(Record("t", b"2", b"2"))
        engine.idle()  # flushes, ticks: no second commit while one is in flight, nothing told yet
        assert [r["key"] for r in _lines(tmp_path)] == [1, 2]
        assert src.told == []
        assert not offsets_path.exists()

        out.release.set()
        engine._committer.wait()
        assert json.loads(offsets_path.read_text())["offset"] == {"pos": 1}
        assert src.told == []  # the source hears it on the streaming thread, at its next tick
        engine.tick()
        assert src.told == [(1, threading.current_thread().name)]
    finally:
        out.release.set()
        engine.close()
    # close: a forced, synchronous commit of the latest position
    assert json.loads(offsets_path.read_text())["offset"] == {"pos": 2}
    assert src.told[-1][0] == 2


def test_forced_commit_waits_for_the_one_in_flight(tmp_path):
    engine, out, src, offsets_path = _engine(tmp_path)
    src.pos = 1
    engine.emit(Record("t", b"1", b"1"))
    engine.tick()
    assert out.entered.wait(30)
    src.pos = 2
    engine.emit(Record("t", b"2", b"2"))
    done = threading.Event()

    def forced() -> None:
        engine.commit(force=True)
        done.set()

    t = threading.Thread(target=forced)
    t.start()
    assert not done.wait(0.2)  # still held behind the background commit
    out.release.set()
    t.join(30)
    assert done.is_set()
    assert [p for p, _ in src.told] == [1, 2]  # in order: the background one first
    assert json.loads(offsets_path.read_text())["offset"] == {"pos": 2}
    engine.close()


def test_a_failure_in_the_background_reaches_the_stream(tmp_path):
    engine, out, src, offsets_path = _engine(tmp_path)
    out.fail = OSError(28, "No space left on device")
    src.pos = 1
    engine.emit(Record("t", b"1", b"1"))
    engine.tick()
    out.release.set()
    engine._committer.wait()
    with pytest.raises(OSError, match="No space left"):
        engine.tick()
    assert not offsets_path.exists() and src.told == []
    out.fail = None
    engine.close()


def test_busy_stream_flushes_within_the_linger_bound(tmp_path):
    """A source that never runs dry (no idle()) still has its lines flushed by tick()."""
    out = DirectoryOutput(tmp_path / "out")
    engine = Engine(out, FileOffsetStore(tmp_path / "offsets.json", PARTITION), flush_interval_ms=60000)
    engine.source = Source()
    engine.emit(Record("t", b"1", b"1"))
    engine.emit(Record("t", b"2", b"2"))
    assert (tmp_path / "out" / "t.jsonl").read_bytes() == b""  # in the 1 MiB buffer
    time.sleep(MAX_LINGER_S * 2)  # not a timed assertion: only lets the linger deadline pass
    engine.tick()
    assert [r["key"] for r in _lines(tmp_path)] == [1, 2]
    engine.close()


def test_first_record_after_a_quiet_spell_is_flushed_by_the_next_tick(tmp_path):
    """A source that blocks without flushing (the binlog reader waits for the server's next heartbeat)."""
    out = DirectoryOutput(tmp_path / "out")
    engine = Engine(out, FileOffsetStore(tmp_path / "offsets.json", PARTITION), flush_interval_ms=60000)
    engine.source = Source()
    time.sleep(MAX_LINGER_S * 2)  # quiet: no record for longer than the linger bound
    engine.tick()  # a message without a record (a GTID event, a BEGIN) must not use up the flush
    engine.emit(Record("t", b"1", b"1"))
    engine.tick()
    assert [r["key"] for r in _lines(tmp_path)] == [1]
    engine.close()
