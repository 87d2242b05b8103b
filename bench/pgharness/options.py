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
    latency_rates: tuple[int, ...] = (100,)  # tx/s, one latency test each
    latency_only: bool = False  # the streaming suite without the catch-up backlogs
    trace: bool = False  # the emulator runs under bench/latency_trace.py; print where the time goes
    raw_latency: bool = False  # a bare pgoutput reader measures the same latency test beside the engine
    drains: int = 1  # catch-up rounds (an INSERT and an UPDATE drain each); the table takes the median
    nullable: bool = False  # the catch-up table with nullable columns and ~20 % NULLs (workload.NULLABLE_DDL)
