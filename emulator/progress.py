"""Progress of a running connector: snapshot progress (table, rows done of the estimate, rate, ETA) and
streaming rate and lag, logged every `interval` seconds; on a terminal (stderr is a TTY) also a live
`rich` progress bar while a snapshot runs.  Reads `emulator.metrics` only, from its own thread."""

from __future__ import annotations

import logging
import sys
import threading
import time

from emulator.metrics import ConnectorMetrics

log = logging.getLogger("emulator.progress")


def _eta(seconds: float | None) -> str:
    if seconds is None:
        return "unknown"
    seconds = int(seconds)
    if seconds >= 3600:
        return f"{seconds // 3600} h {seconds % 3600 // 60} min"
    if seconds >= 60:
        return f"{seconds // 60} min {seconds % 60} s"
    return f"{seconds} s"


class ProgressReporter:
    def __init__(
        self, metrics: ConnectorMetrics, interval_s: float = 10.0, bar: bool | None = None, label: str = ""
    ) -> None:
        self.metrics = metrics
        self.prefix = f"{label}: " if label else ""  # which connector, when a worker runs several
        self.interval_s = max(float(interval_s), 0.1)
        self.bar = sys.stderr.isatty() if bar is None else bar
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self._last_rows: tuple[float, int] | None = None
        self._last_events: tuple[float, int] | None = None

    def start(self) -> None:
        self._thread = threading.Thread(target=self._loop, name="progress", daemon=True)
        self._thread.start()

    def stop(self) -> None:
        self._stop.set()
        if self._thread is not None:
            self._thread.join(5)

    # -- one line each
    def snapshot_line(self) -> str | None:
        s = self.metrics.snapshot
        if not s.running:
            return None
        now = time.monotonic()
        done = s.total_rows()
        prev = self._last_rows
        self._last_rows = (now, done)
        elapsed = now - (s.started or now)
        rate = (
            (done - prev[1]) / (now - prev[0])
            if prev and now > prev[0]
            else (done / elapsed if elapsed else 0)
        )
        table = s.current
        if table is not None and s.estimates.get(table, 0) <= 0:  # never analyzed: no estimate
            eta = None
            where = f"table {table}: {s.rows.get(table, 0)} rows (no row estimate)"
        elif table is not None:
            n = s.rows.get(table, 0)
            est = max(s.estimates.get(table, 0), n)
            left = sum(max(s.estimates.get(t, 0), 0) for t in s.tables if t not in s.rows) + est - n
            eta = left / rate if rate > 0 else None
            pct = f" ({100 * n // est}%)" if est else ""
            where = f"table {table}: {n} of about {est} rows{pct}"
        else:
            eta = None
            where = "between tables"
        return (
            f"snapshot: {where}; {s.done_tables} of {len(s.tables)} tables done, {done} rows in "
            f"{int(elapsed)} s, {rate:.0f} rows/s, ETA {_eta(eta)}"
        )

    def streaming_line(self) -> str | None:
        st = self.metrics.streaming
        if not st.connected:
            return None
        now = time.monotonic()
        total = st.total()
        prev = self._last_events
        self._last_events = (now, total)
        rate = (total - prev[1]) / (now - prev[0]) if prev and now > prev[0] else 0.0
        lag = f"{st.behind_ms} ms behind source" if st.behind_ms >= 0 else "no event yet"
        return f"streaming: {total} events ({rate:.1f}/s), {st.transactions} transactions, {lag}"

    def _loop(self) -> None:
        bar = _Bar(self.metrics) if self.bar else None
        next_log = time.monotonic() + self.interval_s
        try:
            while not self._stop.wait(0.5 if bar is not None else min(self.interval_s, 1.0)):
                if bar is not None:
                    bar.update()
                if time.monotonic() < next_log:
                    continue
                next_log += self.interval_s
                for line in (self.snapshot_line(), self.streaming_line()):
                    if line:
                        log.info("%s%s", self.prefix, line)
        finally:
            if bar is not None:
                bar.close()


class _Bar:
    """A rich progress bar per snapshot table, shown only while a snapshot runs."""

    def __init__(self, metrics: ConnectorMetrics) -> None:
        from rich.console import Console
        from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeRemainingColumn

        self.metrics = metrics
        self.progress = Progress(
            TextColumn("[bold]{task.description}"),
            BarColumn(),
            MofNCompleteColumn(),
            TextColumn("{task.fields[rate]} rows/s"),
            TimeRemainingColumn(),
            console=Console(stderr=True),
            transient=False,
            redirect_stderr=True,
        )
        self.tasks: dict[str, int] = {}
        self.started = False
        self.moved: list[tuple[logging.StreamHandler, object]] = []

    def update(self) -> None:
        s = self.metrics.snapshot
        if not s.running and not self.started:
            return
        if not self.started:
            self.progress.start()  # sys.stderr is now rich's proxy, which prints above the bar
            self.started = True
            for h in logging.getLogger().handlers:  # log lines go through it too instead of across the bar
                if type(h) is logging.StreamHandler and h.stream is sys.__stderr__:
                    self.moved.append((h, h.setStream(sys.stderr)))
        for table in s.tables:
            n = s.rows.get(table)
            if n is None:
                continue
            est = max(s.estimates.get(table, 0), n)
            tid = self.tasks.get(table)
            if tid is None:
                tid = self.tasks[table] = self.progress.add_task(table, total=est or None, rate="-")
            task = self.progress.tasks[tid]
            rate = f"{task.speed:.0f}" if task.speed else "-"
            self.progress.update(tid, completed=n, total=est or None, rate=rate)
        if not s.running:
            self.close()

    def close(self) -> None:
        if self.started:
            for h, stream in self.moved:
                h.setStream(stream)
            self.moved = []
            self.progress.stop()
            self.started = False
