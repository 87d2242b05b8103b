"""Running the connector for a scenario, through public interfaces only: the in-process `emulator.api.Capture`
(offsets in the backend's offsets file, so a new `Capture` restarts where the last one committed) and the CLI
(`tests/emulator_proc.py`) where the process itself is the point (kill -9).

`Run.records` keeps every record across restarts. Absence is checked with a barrier: a row written after the
change that must produce nothing; its event arriving proves that everything before it was seen, because a
connector emits in commit order.
"""

from __future__ import annotations

import itertools
import time
from collections.abc import Callable
from typing import Any

from emulator.api import Capture

BARRIER = "barrier"
_tokens = itertools.count(1)


def payload(r: dict) -> Any:
    v = r.get("value")
    return v["payload"] if isinstance(v, dict) and "payload" in v else v


def op(r: dict) -> str | None:
    p = payload(r)
    return p.get("op") if isinstance(p, dict) else None


def header(r: dict, name: str) -> Any:
    for n, h in r.get("headers") or []:
        if n == name:
            return h["payload"] if isinstance(h, dict) and "payload" in h else h
    return None


class Run:
    """One connector configuration, started and restarted in-process."""

    def __init__(self, backend: Any, **overrides: Any) -> None:
        self.backend = backend
        self.props = backend.config(**overrides)
        self.records: list[dict] = []
        self.cap: Capture | None = None
        self._barrier = False

    def start(self) -> Run:
        self.cap = Capture(self.props).start()
        return self

    def stop(self) -> None:
        if self.cap is not None:
            self.cap.stop()
            # up to the end marker the output puts at close, not for pump's time budget: pump(0) took one
            # record and the rest went with the Capture: a DELETE lost across a restart (session 16)
            self.records.extend(self.cap.records(timeout=1.0))
            self.cap = None

    def restart(self) -> Run:
        self.stop()
        return self.start()

    def __enter__(self) -> Run:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    # -- reading ------------------------------------------------------------------------------------------
    def pump(self, timeout: float = 0.1) -> None:
        if self.cap is not None:  # at most 10 x timeout: a busy writer's records leave no pause to end at
            end = time.monotonic() + 10 * timeout
            for r in self.cap.records(timeout=timeout):
                self.records.append(r)
                if time.monotonic() > end:
                    return

    def wait(self, pred: Callable[[Run], bool], what: str, timeout: float = 60) -> list[dict]:
        deadline = time.monotonic() + timeout
        while True:
            self.pump(0.1)
            if pred(self):
                return self.records
            if self.cap is not None and self.cap.error is not None:
                raise AssertionError(f"capture failed waiting for {what}: {self.cap.error!r}")
            if time.monotonic() > deadline:
                tail = "\n  ".join(f"{r['topic']}: {payload(r)}"[:200] for r in self.records[-10:])
                raise AssertionError(f"timeout waiting for {what}; {len(self.records)} records:\n  {tail}")

    def on(self, table: str) -> list[dict]:
        topic = self.backend.topic(table)
        return [r for r in self.records if r["topic"] == topic]

    def events(self, table: str, *ops: str) -> list[dict]:
        """Data events (not tombstones) of `table`, optionally of the given ops."""
        return [r for r in self.on(table) if r.get("value") is not None and (not ops or op(r) in ops)]

    def ids(self, table: str, *ops: str) -> list[Any]:
        b = self.backend
        return [b.key(r)["id"] for r in self.events(table, *ops)]

    def wait_ids(self, table: str, o: str, wanted: set, timeout: float = 60) -> list[dict]:
        return self.wait(
            lambda _: wanted <= set(self.ids(table, o)), f"{o} events of {table} {sorted(wanted)}", timeout
        )

    def barrier(self, timeout: float = 60) -> None:
        """Every change committed before this call has been received."""
        b = self.backend
        if not self._barrier and BARRIER not in b.tables:
            b.create_table(BARRIER, {"id": "int"})
        self._barrier = True
        token = next(_tokens)
        b.insert(BARRIER, {"id": token})
        self.wait(lambda _: token in self.ids(BARRIER, "c"), f"barrier {token}", timeout)

    def notifications(self, topic: str) -> list[dict]:
        return [payload(r) for r in self.records if r["topic"] == topic]


def markers(records: list[dict]) -> list[str]:
    """`source.snapshot` of the snapshot reads, in order."""
    return [payload(r)["source"]["snapshot"] for r in records if op(r) == "r"]


class CliRun:
    """The connector as users run it, `python -m emulator run CONFIG --out DIR` (tests/emulator_proc.py):
    every process of a test shares the backend's offsets and appends to the same output directory."""

    def __init__(self, backend: Any, **overrides: Any) -> None:
        self.backend = backend
        self.props = backend.config(**overrides)
        self.proc: Any = None

    def start(self) -> CliRun:
        from emulator_proc import EmulatorProcess

        self.proc = EmulatorProcess(self.props, self.backend.workdir).start()
        self.backend.processes.append(self.proc)  # killed at the test's end whatever happens
        return self

    def stop(self) -> int:
        return self.proc.stop()

    def kill(self) -> None:
        self.proc.kill()

    @property
    def records(self) -> list[dict]:
        return self.proc.records()

    def wait(self, pred: Callable[[list[dict]], bool], what: str, timeout: float = 60) -> list[dict]:
        return self.proc.wait_for(pred, timeout, what)

    def ids(self, records: list[dict], table: str, *ops: str) -> list[Any]:
        topic = self.backend.topic(table)
        return [
            self.backend.key(r)["id"]
            for r in records
            if r["topic"] == topic and r.get("value") is not None and (not ops or op(r) in ops)
        ]

    def barrier(self, timeout: float = 60) -> list[dict]:
        """Every change committed before this call has been written out. The process may not be streaming
        yet (the CLI returns at once): a new token goes in every 0.5 s until one arrives."""
        b = self.backend
        if BARRIER not in b.tables:
            b.create_table(BARRIER, {"id": "int"})
        deadline = time.monotonic() + timeout
        tokens: set[int] = set()
        while True:
            token = next(_tokens)
            tokens.add(token)
            b.insert(BARRIER, {"id": token})
            try:
                return self.wait(
                    lambda recs: bool(tokens & set(self.ids(recs, BARRIER, "c"))), "barrier", 0.5
                )
            except AssertionError:
                if time.monotonic() > deadline or self.proc.proc.poll() is not None:
                    raise
