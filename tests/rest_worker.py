"""A real `python -m emulator connect` worker for the REST tests, and a small HTTP client."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
import urllib.error
import urllib.request
from pathlib import Path
from typing import Any

from emulator.testing.pgserver import free_port


def http(
    method: str, url: str, body: Any = None, raw: bytes | None = None, headers: dict[str, str] | None = None
) -> tuple[int, Any, dict[str, str]]:
    data = raw if raw is not None else (json.dumps(body).encode() if body is not None else None)
    req = urllib.request.Request(
        url, data=data, method=method, headers={"Content-Type": "application/json", **(headers or {})}
    )
    try:
        with urllib.request.urlopen(req, timeout=60) as r:
            text = r.read()
            return r.status, json.loads(text) if text else None, dict(r.headers)
    except urllib.error.HTTPError as e:
        text = e.read()
        ctype = e.headers.get("Content-Type", "")
        assert "application/json" in ctype, f"{method} {url}: {e.code} with {ctype!r}: {text[:200]!r}"
        return e.code, json.loads(text) if text else None, dict(e.headers)


class WorkerProcess:
    def __init__(self, tmp: Path, *extra: str) -> None:
        self.port = free_port()
        self.base = f"http://127.0.0.1:{self.port}"
        self.state = tmp / "state"
        self.out = tmp / "out"
        self.log = tmp / "worker.log"
        self.args = [
            "connect",
            "--rest-port",
            str(self.port),
            "--out",
            str(self.out),
            "--state",
            str(self.state),
            *extra,
        ]
        self.proc: subprocess.Popen | None = None

    def start(self) -> WorkerProcess:
        with open(self.log, "ab") as f:
            self.proc = subprocess.Popen(
                [sys.executable, "-m", "emulator", *self.args],
                stdout=f,
                stderr=subprocess.STDOUT,
                stdin=subprocess.DEVNULL,
                start_new_session=True,
            )
        self.wait(lambda: self._up(), 30, "REST up")
        return self

    def _up(self) -> bool:
        try:
            return http("GET", self.base + "/")[0] == 200
        except OSError:
            return False

    def alive(self) -> bool:
        return self.proc is not None and self.proc.poll() is None

    def wait(self, pred, timeout: float, what: str):
        deadline = time.monotonic() + timeout
        while True:
            got = pred()
            if got:
                return got
            if self.proc is not None and self.proc.poll() is not None:
                raise AssertionError(
                    f"worker exited ({self.proc.returncode}) waiting for {what}:\n"
                    + self.log.read_text()[-3000:]
                )
            if time.monotonic() > deadline:
                raise AssertionError(f"timed out waiting for {what}:\n" + self.log.read_text()[-3000:])
            time.sleep(0.2)

    def stop(self) -> None:
        p = self.proc
        if p is not None and p.poll() is None:
            p.send_signal(signal.SIGTERM)
            try:
                p.wait(30)
            except subprocess.TimeoutExpired:
                os.killpg(p.pid, signal.SIGKILL)
                p.wait()


def drop_slot(pg, slot: str) -> None:
    with pg.connect() as conn:
        conn.execute(
            "SELECT pg_drop_replication_slot(slot_name) FROM pg_replication_slots "
            "WHERE slot_name = %s AND NOT active",
            (slot,),
        )


def records(out: Path, connector: str, topic: str) -> list[dict]:
    path = out / connector / f"{topic}.jsonl"
    if not path.exists():
        return []
    rows = []
    for line in path.read_bytes().splitlines():
        if line.strip():
            v = json.loads(line)["value"]
            if v is not None:
                rows.append(v["payload"] if "payload" in v else v)
    return rows
