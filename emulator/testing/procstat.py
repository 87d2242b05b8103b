"""Reading /proc for whether a process tree is still working: the campaigns' recorder (oracle_capture) and the
tests' quiet waits (tests/emulator_proc.py) count an emulator busy in R/D/T as activity, not only growing files."""

from __future__ import annotations

import os


def stat_fields(path: str) -> list[bytes] | None:
    """A /proc `stat` file's fields after the command name (state first, then the parent pid), None when the
    process or thread is gone."""
    try:
        with open(path, "rb") as f:
            stat = f.read()
    except OSError:
        return None
    return stat[stat.rfind(b")") + 2 :].split()


def proc_parents() -> list[tuple[int, int]]:
    """(pid, parent pid) of every process /proc lists."""
    try:
        names = os.listdir("/proc")
    except OSError:
        return []
    out = []
    for d in names:
        if d.isdigit() and (fields := stat_fields(f"/proc/{d}/stat")) is not None:
            out.append((int(d), int(fields[1])))
    return out


BUSY_STATES = (b"R", b"D", b"T", b"t")  # running, in an uninterruptible wait, stopped: still working


def children_of(pid: int) -> list[int]:
    """The pids whose parent is `pid`."""
    return [c for c, ppid in proc_parents() if ppid == pid]


def any_task_busy(pids) -> bool:
    """Whether a thread of one of `pids` is in one of BUSY_STATES."""
    for p in pids:
        try:
            tasks = os.listdir(f"/proc/{p}/task")
        except OSError:
            continue
        for tid in tasks:
            fields = stat_fields(f"/proc/{p}/task/{tid}/stat")
            if fields and fields[0] in BUSY_STATES:
                return True
    return False
