"""Cost of the snapshot metrics in the per-row loop (`emulator.snapshot.run_snapshot`): the same 1,000,000
rows through the loop without and with a `SnapshotMetrics`, best of 5, printed as a ratio.

    PYTHONPATH=. .venv/bin/python bench/bench_metrics_overhead.py
"""

from __future__ import annotations

import time

from emulator.metrics import SnapshotMetrics
from emulator.snapshot import run_snapshot

ROWS = 1_000_000
TABLES = ["a", "b", "c", "d"]


def once(metrics) -> float:
    def emit(t, r, m) -> None:
        pass

    t0 = time.perf_counter()
    run_snapshot(TABLES, lambda t: range(ROWS // len(TABLES)), emit, metrics=metrics, table_id=str)
    return time.perf_counter() - t0


def main() -> None:
    base = min(once(None) for _ in range(5))
    with_metrics = min(once(SnapshotMetrics()) for _ in range(5))
    print(
        f"rows: {ROWS}; without metrics {base:.3f} s, with metrics {with_metrics:.3f} s, "
        f"ratio {with_metrics / base:.3f}"
    )


if __name__ == "__main__":
    main()
