"""Watching an engine's topic file grow: line counts, the last record, waiting for N records."""

from __future__ import annotations

import json
import time
from pathlib import Path

from .engines import EngineRun
from .log import BenchError, say

POLL_S = 0.01  # tailing interval while counting throughput


class Tail:
    """Counts the complete lines of a growing file; keeps the last one; optionally hands out new lines."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self.pos = self.start_pos = 0
        self.lines = 0
        self.partial = b""
        self.last_line = b""
        self.first_t: float | None = None  # monotonic time of the poll that saw the first line

    def skip_existing(self) -> None:
        """Start counting at the current end of the file (all of it is complete lines)."""
        try:
            self.pos = self.start_pos = self.path.stat().st_size
        except FileNotFoundError:
            self.pos = self.start_pos = 0

    def poll(self, keep: bool = False) -> list[bytes]:
        try:
            size = self.path.stat().st_size
        except FileNotFoundError:
            return []
        if size <= self.pos:
            return []
        got: list[bytes] = []
        with self.path.open("rb") as f:
            f.seek(self.pos)
            while self.pos < size:
                chunk = f.read(min(size - self.pos, 8 << 20))
                if not chunk:
                    break
                self.pos += len(chunk)
                data = self.partial + chunk
                cut = data.rfind(b"\n")
                if cut < 0:
                    self.partial = data
                    continue
                complete, self.partial = data[:cut], data[cut + 1 :]
                n = complete.count(b"\n") + 1
                self.last_line = complete[complete.rfind(b"\n") + 1 :]
                if keep:
                    got.extend(complete.split(b"\n"))
                if self.lines == 0 and n:
                    self.first_t = time.monotonic()
                self.lines += n
        return got


def last_record(tail: Tail) -> dict:
    try:
        rec = json.loads(tail.last_line)
        return rec.get("value", {}).get("payload", {}) or {}
    except (ValueError, AttributeError):
        return {}


def wait_lines(
    run: EngineRun,
    tail: Tail,
    target: int,
    what: str,
    stall_s: float,
    timeout_s: float,
    expect_op: str | None = None,
) -> float:
    """Tail until `target` lines are there (and, with expect_op, the last one has that op).
    -> monotonic time of the poll that saw the target reached."""
    deadline = time.monotonic() + timeout_s
    progress = time.monotonic()
    grace_from = None
    while True:
        before = tail.lines
        tail.poll()
        now = time.monotonic()
        if tail.lines != before:
            progress = now
        if tail.lines >= target:
            if expect_op is None or last_record(tail).get("op") == expect_op:
                return now
            grace_from = grace_from or now
            if now - grace_from > 5:  # more lines than expected and the last is something else
                say(
                    f"{run.kind.label}: {what}: {tail.lines} lines, last op "
                    f"{last_record(tail).get('op')!r} (expected {expect_op!r}); taking it as done"
                )
                return grace_from
        run.check_alive(f"{what} ({tail.lines} of {target} records so far)")
        if now - progress > stall_s:
            raise BenchError(
                f"{run.kind.label}: {what}: no new record for {stall_s:g} s "
                f"({tail.lines} of {target} so far){run.log_tail()}"
            )
        if now > deadline:
            raise BenchError(
                f"{run.kind.label}: {what}: timed out after {timeout_s:g} s "
                f"({tail.lines} of {target} records){run.log_tail()}"
            )
        time.sleep(POLL_S)
