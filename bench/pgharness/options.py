"""The measurement settings every suite reads (from bench_pg.py's command line)."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass
class Options:
    rows_stream: int
    rows_snapshot: int
    latency_s: float
    stall_s: float
    quiet_wait_s: float
    keep: bool
    raw_reader: bool = True
