"""Runs the emulator exactly as users and outside checks do: `python -m emulator run CONFIG --out DIR`."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

from emulator.testing.oracle_capture import BUSY_S
from emulator.testing.procstat import any_task_busy, children_of


def write_properties(props: dict[str, str], path: Path) -> None:
    def esc(s: str, key: bool) -> str:
        out = []
        for i, ch in enumerate(s):
            if ch == "\\":
                out.append("\\\\")
            elif ch == "\n":
                out.append("\\n")
            elif ch == "\t":
                out.append("\\t")
            elif ch in "=:#!" or (ch == " " and (key or i == 0)):
                out.append("\\" + ch)
            elif not " " <= ch <= "~":
                out.append("".join(f"\\u{u:04x}" for u in _utf16(ch)))
            else:
                out.append(ch)
        return "".join(out)

    path.write_text("".join(f"{esc(k, True)}={esc(v, False)}\n" for k, v in props.items()), encoding="ascii")


def _utf16(ch: str) -> list[int]:
    b = ch.encode("utf-16-be")
    return [b[i] << 8 | b[i + 1] for i in range(0, len(b), 2)]


class EmulatorProcess:
    def __init__(self, props: dict[str, str], workdir: Path, out: Path | None = None) -> None:
        self.workdir = workdir
        self.out = out or workdir / "out"
        self.config = workdir / "connector.properties"
        props = dict(props)
        props.setdefault("offset.storage.file.filename", str(workdir / "offsets.json"))
        write_properties(props, self.config)
        self.log_path = workdir / "emulator.log"
        self.proc: subprocess.Popen | None = None
        self.module = ["-m", "emulator"]  # how the CLI is started (a wrapper module may go first)

    def start(self) -> EmulatorProcess:
        log = open(self.log_path, "ab")
        env = dict(os.environ)
        self.proc = subprocess.Popen(
            [sys.executable, *self.module, "run", str(self.config), "--out", str(self.out)],
            stdout=log,
            stderr=subprocess.STDOUT,
            stdin=subprocess.DEVNULL,
            env=env,
            start_new_session=True,
        )
        log.close()
        return self

    def log_tail(self, n: int = 30) -> str:
        try:
            return "\n".join(self.log_path.read_text(errors="replace").splitlines()[-n:])
        except FileNotFoundError:
            return ""

    def records(self) -> list[dict]:
        """Every complete record so far, in file order per topic, as {topic, key, value, headers}."""
        out = []
        if not self.out.exists():
            return out
        for f in sorted(self.out.glob("*.jsonl")):
            topic = f.name[: -len(".jsonl")]
            data = f.read_text()
            for line in data.split("\n")[:-1]:
                if line.strip():
                    out.append(dict(json.loads(line), topic=topic))
        return out

    def counts(self) -> dict[str, int]:
        """Complete records per topic so far, heartbeat topics aside; lines counted, not parsed (the waits
        below poll this, beside an emulator that needs the CPU)."""
        out: dict[str, int] = {}
        if self.out.exists():
            for f in self.out.glob("*.jsonl"):
                topic = f.name[: -len(".jsonl")]
                if not topic.startswith("__debezium-heartbeat"):
                    out[topic] = sum(1 for line in f.read_bytes().split(b"\n")[:-1] if line.strip())
        return out

    def wait_for(self, pred: Callable[[list[dict]], bool], timeout: float, what: str) -> list[dict]:
        deadline = time.monotonic() + timeout
        while True:
            recs = self.records()
            if pred(recs):
                return recs
            if self.proc.poll() is not None:
                raise AssertionError(
                    f"emulator exited ({self.proc.returncode}) waiting for {what}:\n{self.log_tail()}"
                )
            if time.monotonic() > deadline:
                raise AssertionError(f"timeout waiting for {what}; {len(recs)} records:\n{self.log_tail()}")
            time.sleep(0.1)

    def wait_quiet(self, quiet_s: float = 3.0, timeout: float = 120) -> list[dict]:
        """Until the non-heartbeat records stop growing for `quiet_s` while the process is not busy.

        Files alone are not enough on a loaded machine: a starved emulator (runnable, not running) writes
        nothing for seconds while changes wait in its socket, and the wait ended with records still to come
        (the campaigns' recorder had the same fault, diffcamp14; tests/differential/test_quiet_under_load.py).
        Being busy for BUSY_S on end counts as growth, as in oracle_capture.EmulatorCapture."""
        deadline = time.monotonic() + timeout
        last, since = -1, time.monotonic()
        busy = _Busy(self.proc.pid if self.proc is not None else None)
        while time.monotonic() < deadline:
            n = sum(self.counts().values())
            now = time.monotonic()
            if n != last or busy.lasting(now):
                last, since = n, now
            elif now - since >= quiet_s:
                return self.records()
            time.sleep(0.2)
        raise AssertionError(f"records never went quiet\n{self.log_tail()}")

    def wait_counts(
        self,
        expected: dict[str, int],
        settle_s: float = 1.0,
        timeout: float = 90,
        quiet_s: float | None = None,
    ) -> list[dict]:
        """Until every topic of `expected` (heartbeat topics aside) holds at least its count of records, then
        until the records stop growing for `settle_s` (so an extra record still shows). Returns what is there
        at `timeout` too: a comparison then names what is missing; and, with `quiet_s`, once the records have
        not grown for that long short of the counts (a run known to write fewer records)."""
        deadline = time.monotonic() + timeout
        want = {t: n for t, n in expected.items() if not t.startswith("__debezium-heartbeat")}
        last, since = -1, time.monotonic()
        while time.monotonic() < deadline:
            have = self.counts()
            if all(have.get(t, 0) >= n for t, n in want.items()) or self.proc.poll() is not None:
                return self.wait_quiet(settle_s, timeout=max(deadline - time.monotonic(), 2 * settle_s))
            n = sum(have.values())
            if n != last:
                last, since = n, time.monotonic()
            elif quiet_s is not None and time.monotonic() - since >= quiet_s:
                break
            time.sleep(0.1)
        return self.records()

    def stop(self, timeout: float = 30) -> int:
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
            try:
                self.proc.wait(timeout)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
                raise AssertionError(f"emulator ignored SIGTERM\n{self.log_tail()}") from None
        return self.proc.returncode

    def kill(self) -> None:
        if self.proc and self.proc.poll() is None:
            os.killpg(self.proc.pid, signal.SIGKILL)
            self.proc.wait()


def snapshot_done(recs: list[dict]) -> bool:
    return any(
        (r.get("value") or {}).get("payload", {}).get("source", {}).get("snapshot") == "last"
        for r in recs
        if isinstance(r.get("value"), dict)
    )


class _Busy:
    """Whether the emulator has been working for BUSY_S on end: a thread of it (or of a forked snapshot reader)
    running or waiting for a core (R), in disk I/O (D) or stopped (T). Its own short wake-ups (a heartbeat, an
    offset commit) do not last that long; an idle emulator waits for the server in state S. Linux /proc only
    (elsewhere never busy: files only)."""

    def __init__(self, pid: int | None) -> None:
        self.pid = pid
        self.since: float | None = None
        self.children: list[int] = []
        self.children_at = 0.0

    def lasting(self, now: float) -> bool:
        if not self._now(now):
            self.since = None
            return False
        if self.since is None:
            self.since = now
        return now - self.since >= BUSY_S

    def _now(self, now: float) -> bool:
        if self.pid is None:
            return False
        if now - self.children_at >= 1.0:  # children change rarely: a scan of /proc once a second
            self.children_at = now
            self.children = children_of(self.pid)
        return any_task_busy((self.pid, *self.children))
