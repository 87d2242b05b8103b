"""Progress lines with the time since the benchmark started, and the error a measurement reports."""

from __future__ import annotations

import time


class BenchError(RuntimeError):
    """A measurement could not be made (reported as one line; the run goes on where it can)."""


T_BENCH = time.monotonic()


def say(msg: str) -> None:
    print(f"[bench {time.monotonic() - T_BENCH:6.1f}s] {msg}", flush=True)
