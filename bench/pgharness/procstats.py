"""What /proc says about a process and the machine: CPU seconds, peak RSS, other load."""

from __future__ import annotations

import os
import resource
import time

from .log import say

CLK = os.sysconf("SC_CLK_TCK")


def _proc_stat(pid: int) -> list[str] | None:
    try:
        with open(f"/proc/{pid}/stat") as f:
            data = f.read()
    except OSError:
        return None
    return data[data.rfind(")") + 2 :].split()  # fields from 3 (state) on


def proc_cpu_s(pid: int, children: bool = False) -> float | None:
    """utime+stime of one process (its threads included), + its reaped children's with children."""
    st = _proc_stat(pid)
    if st is None:
        return None
    ticks = int(st[11]) + int(st[12])  # utime, stime (fields 14, 15)
    if children:
        ticks += int(st[13]) + int(st[14])  # cutime, cstime
    return ticks / CLK


def tree_cpu_s(pid: int) -> float:
    """A postmaster's CPU: itself and its reaped backends, plus its live children."""
    total = proc_cpu_s(pid, children=True) or 0.0
    for name in os.listdir("/proc"):
        if not name.isdigit():
            continue
        st = _proc_stat(int(name))
        if st is not None and st[1] == str(pid):
            total += proc_cpu_s(int(name), children=True) or 0.0
    return total


def vm_hwm_mb(pid: int) -> float | None:
    try:
        with open(f"/proc/{pid}/status") as f:
            for line in f:
                if line.startswith("VmHWM:"):
                    return int(line.split()[1]) / 1024
    except OSError:
        pass
    return None


def system_busy_s() -> float:
    """CPU-seconds all cores spent not idle since boot."""
    with open("/proc/stat") as f:
        vals = [int(x) for x in f.readline().split()[1:]]
    idle = vals[3] + (vals[4] if len(vals) > 4 else 0)  # idle + iowait
    steal = vals[7] if len(vals) > 7 else 0
    return (sum(vals[:8]) - idle - steal) / CLK


def self_cpu_s() -> float:
    ru = resource.getrusage(resource.RUSAGE_SELF)
    rc = resource.getrusage(resource.RUSAGE_CHILDREN)  # psql runs
    return ru.ru_utime + ru.ru_stime + rc.ru_utime + rc.ru_stime


def wait_quiet(max_wait: float, threshold: float = 0.3) -> None:
    """Wait (at most max_wait s) until the machine's other load is below threshold busy cores."""
    if max_wait <= 0:
        return
    end = time.monotonic() + max_wait
    busy = 0.0
    while True:
        b0, t0 = system_busy_s(), time.monotonic()
        time.sleep(1.0)
        busy = (system_busy_s() - b0) / (time.monotonic() - t0)
        if busy < threshold:
            return
        if time.monotonic() > end:
            say(
                f"machine still busy ({busy:.2f} cores in use by others) after {max_wait:g} s; "
                "measuring anyway (see 'other CPU' in the JSON)"
            )
            return


class Noise:
    """CPU used by everything except the engine, the PostgreSQL server and this script."""

    def __init__(self, pg_pid: int, engine_pid: int) -> None:
        self.pg_pid, self.engine_pid = pg_pid, engine_pid
        self.start = self._sample()

    def _sample(self) -> tuple[float, float, float, float]:
        return (system_busy_s(), tree_cpu_s(self.pg_pid), proc_cpu_s(self.engine_pid) or 0.0, self_cpu_s())

    def other_cpu_s(self) -> float:
        end = self._sample()
        d = [b - a for a, b in zip(self.start, end)]
        return round(d[0] - d[1] - d[2] - d[3], 2)
