"""One `<topic>.jsonl` file per topic, a line per record, appended and flushed as records come."""

from __future__ import annotations

import os
from pathlib import Path
from typing import BinaryIO

import orjson

from emulator.connect.converters.registry import mock_scopes
from emulator.outputs.base import Output
from emulator.records import Record
from emulator.statefiles import open_private, private_dir, shared_read_mode

# Lines are flushed when the source goes idle, at least every 5 ms while it stays busy (the engine's
# MAX_LINGER_S), at each offset commit and when this buffer fills: its size sets how much a write syscall
# hands the kernel in a catch-up, not how long a line waits. The kernel's share of a 4.7 KB line (the page
# cache copy and its per-write work, the fsync of the commit) falls with bigger writes until the buffer no
# longer fits the core's L2 cache: bench/bench_line_write.py, CPU-µs per line with the commit's fsync, 64 KiB
# 2.45, 256 KiB 1.81, 512 KiB 1.69, 1 MiB 1.54, 2 MiB 1.55, 4 MiB 2.10 (2 MiB L2 here). A file's buffer is
# allocated whole but its pages are only touched as far as lines fill it: a quiet topic costs a few pages.
BUFFER_BYTES = 1 << 20


class DirectoryOutput(Output):
    def __init__(self, directory: str | Path) -> None:
        self.dir = private_dir(directory)  # created owner-only (an existing directory keeps its mode)
        self.file_mode = shared_read_mode(self.dir)  # readers the directory's mode admits may read the files
        self.files: dict[str, BinaryIO] = {}
        self.unflushed: set[BinaryIO] = set()
        self.unsynced: set[BinaryIO] = set()
        self._last: tuple[str, BinaryIO] | None = None  # the previous record's topic and file

    def _file(self, topic: str) -> BinaryIO:
        f = self.files.get(topic)
        if f is None:
            if "/" in topic or topic in (".", ".."):
                raise ValueError(f"topic name {topic!r} cannot be a file name")
            path = self.dir / f"{topic}.jsonl"
            _drop_partial_line(path)
            f = open_private(path, "ab", buffering=BUFFER_BYTES, mode=self.file_mode)
            self.files[topic] = f
        return f

    def write(self, record: Record) -> None:
        last = self._last
        if last is not None and last[0] == record.topic:
            f = last[1]
        else:
            f = self._file(record.topic)
            self._last = (record.topic, f)
        f.write(record.line())
        self.unflushed.add(f)

    def write_line(self, topic: str, line: bytes) -> None:
        """`write` of a record made as its line alone (Engine.line_writer): no record object per event."""
        last = self._last
        if last is not None and last[0] == topic:
            f = last[1]
        else:
            f = self._file(topic)
            self._last = (topic, f)
        f.write(line)
        self.unflushed.add(f)

    def line_sink(self, write, topic: str) -> tuple | None:
        """What `write_line(topic, line)` does, for a caller in C (postgres/fast_rows.py): (the topic's file's
        `write`, `unflushed`, the file), to call `write(line)` and add the file; None unless `write` is this
        output's own `write_line` (not a hook put on the instance or a subclass's)."""
        if getattr(write, "__func__", None) is not DirectoryOutput.write_line or write.__self__ is not self:
            return None
        f = self._file(topic)
        return f.write, self.unflushed, f

    def flush(self) -> None:
        if self.unflushed:
            for f in self.unflushed:
                f.flush()
            self.unsynced |= self.unflushed
            self.unflushed.clear()

    def commit(self) -> None:
        self.make_durable(self.commit_point())

    def commit_point(self) -> list[int]:
        """The first half of `commit`, on the writing thread: everything written so far flushed, the
        registry written; the file descriptors `make_durable` must fsync (the engine may call that on
        another thread while more is written: fsync covers at least what was flushed before it)."""
        self.flush()
        fds = [f.fileno() for f in self.unsynced]
        self.unsynced.clear()
        self._write_registry()
        return fds

    @staticmethod
    def make_durable(fds: list[int]) -> None:
        for fd in fds:
            os.fsync(fd)

    def _write_registry(self) -> None:
        """`registry.json`: the in-process (mock://) schema registry, `{subject: [{version, id, schema}]}`,
        rewritten whenever an AvroConverter registered something new."""
        regs = [r for r in mock_scopes() if r.changed]
        if not regs:
            return
        dump: dict = {}
        for r in mock_scopes():
            r.changed = False
            dump.update(r.dump())
        tmp = self.dir / "registry.json.tmp"
        tmp.write_bytes(orjson.dumps(dump, option=orjson.OPT_INDENT_2))
        os.replace(tmp, self.dir / "registry.json")

    def close(self) -> None:
        self.commit()
        for f in self.files.values():
            f.close()
        self.files.clear()
        self._last = None


def _drop_partial_line(path: Path) -> None:
    """A crash (kill -9) can cut a write in the middle of a line. Everything covered by a committed offset
    was fsynced as whole lines, so a trailing fragment is from records that will be produced again: cut
    it off before appending, or the next record would be glued to it."""
    try:
        f = open(path, "r+b")
    except FileNotFoundError:
        return
    with f:
        size = f.seek(0, os.SEEK_END)
        if size == 0:
            return
        f.seek(size - 1)
        if f.read(1) == b"\n":
            return
        pos = size
        while pos > 0:
            step = min(1 << 16, pos)
            f.seek(pos - step)
            chunk = f.read(step)
            nl = chunk.rfind(b"\n")
            if nl >= 0:
                pos = pos - step + nl + 1
                break
            pos -= step
        f.truncate(pos)
        f.flush()
        os.fsync(f.fileno())
