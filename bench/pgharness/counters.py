"""Where a drain's CPU goes, per process: user and system time apart, context switches, page faults and the time
spent runnable but waiting for a core (issue 17: one drain in a sitting cost ~1.5x the CPU per event of the
others, and nobody knew whether it was user or system time, the emulator or the database server).

Read from /proc, before and after a drain, for the engine's process (all its threads), the database server's
process tree (PostgreSQL: the postmaster and its live backends, the walsender among them; MariaDB: mariadbd's
threads), the bench's own reading thread (the bare CopyData reader) and the machine (/proc/stat: steal time
is CPU the hypervisor gave to another guest while this one wanted it).
"""

from __future__ import annotations

import os
import resource
import threading
import time
from dataclasses import dataclass, fields

CLK = os.sysconf("SC_CLK_TCK")


@dataclass(frozen=True)
class Usage:
    user: float = 0.0  # CPU seconds
    sys: float = 0.0
    vcsw: int = 0  # voluntary context switches (blocked: a read, a lock, a sleep)
    ivcsw: int = 0  # involuntary (preempted: another task wanted the core)
    minflt: int = 0  # page faults without I/O (a new page, a copy-on-write)
    majflt: int = 0  # page faults that read from disk (a page of an executable or a file not in memory)
    wait: float = (
        0.0  # seconds runnable but not running (run-queue delay, schedstat); threads alive at both ends
    )

    def __add__(self, o: Usage) -> Usage:
        return Usage(*(getattr(self, f.name) + getattr(o, f.name) for f in fields(Usage)))

    def __sub__(self, o: Usage) -> Usage:
        return Usage(*(getattr(self, f.name) - getattr(o, f.name) for f in fields(Usage)))

    def per_event(self, n: int) -> dict:
        """CPU and wait in µs per event; switches and faults per 1,000 events."""
        n = max(n, 1)
        return {
            "user_us": round(self.user * 1e6 / n, 2),
            "sys_us": round(self.sys * 1e6 / n, 2),
            "wait_us": round(self.wait * 1e6 / n, 2),
            "vcsw_per_1k": round(self.vcsw * 1e3 / n, 1),
            "ivcsw_per_1k": round(self.ivcsw * 1e3 / n, 1),
            "minflt_per_1k": round(self.minflt * 1e3 / n, 1),
            "majflt_per_1k": round(self.majflt * 1e3 / n, 2),
        }


def _read(path: str) -> str | None:
    try:
        with open(path) as f:
            return f.read()
    except OSError:
        return None


def _stat(pid: int) -> list[str] | None:
    data = _read(f"/proc/{pid}/stat")
    return None if data is None else data[data.rfind(")") + 2 :].split()  # from field 3 (state) on


def _task_counts(pid: int) -> tuple[int, int, float]:
    """(voluntary, involuntary switches, run-queue wait s) summed over the process's live threads: /proc/PID/status
    counts the main thread's switches only."""
    v = iv = 0
    wait_ns = 0
    try:
        tids = os.listdir(f"/proc/{pid}/task")
    except OSError:
        return 0, 0, 0.0
    for tid in tids:
        st = _read(f"/proc/{pid}/task/{tid}/status")
        if st is not None:
            for line in st.splitlines():
                if line.startswith("voluntary_ctxt_switches:"):
                    v += int(line.split()[1])
                elif line.startswith("nonvoluntary_ctxt_switches:"):
                    iv += int(line.split()[1])
        ss = _read(f"/proc/{pid}/task/{tid}/schedstat")
        if ss:
            wait_ns += int(ss.split()[1])
    return v, iv, wait_ns / 1e9


def proc_usage(pid: int, reaped: bool = False) -> Usage:
    """One live process, all its threads (CPU and faults of exited threads included, switches and wait not);
    reaped: plus its waited-for children's CPU and faults (a postmaster's ended backends)."""
    st = _stat(pid)
    if st is None:
        return Usage()
    minflt, majflt = int(st[7]), int(st[9])
    ut, stt = int(st[11]), int(st[12])
    if reaped:
        minflt, majflt = minflt + int(st[8]), majflt + int(st[10])
        ut, stt = ut + int(st[13]), stt + int(st[14])
    v, iv, wait = _task_counts(pid)
    return Usage(ut / CLK, stt / CLK, v, iv, minflt, majflt, wait)


def children(pid: int) -> list[int]:
    data = _read(f"/proc/{pid}/task/{pid}/children")
    if data is not None:
        return [int(c) for c in data.split()]
    out = []  # no CONFIG_PROC_CHILDREN: scan
    for name in os.listdir("/proc"):
        if name.isdigit():
            st = _stat(int(name))
            if st is not None and st[1] == str(pid):
                out.append(int(name))
    return out


def main_thread_cpu(pid: int) -> tuple[float, float]:
    """(user, system) CPU seconds of a process's main thread."""
    data = _read(f"/proc/{pid}/task/{pid}/stat")
    if data is None:
        return 0.0, 0.0
    st = data[data.rfind(")") + 2 :].split()
    return int(st[11]) / CLK, int(st[12]) / CLK


def tree_usage(pid: int) -> Usage:
    """A server: the process (its reaped children's CPU and faults included) and its live children."""
    return sum(tree_map(pid).values(), Usage())


def tree_map(pid: int) -> dict[int, Usage]:
    """`tree_usage` by process: each live one's own figures, and the reaped children's CPU and faults (-1)."""
    own = proc_usage(pid)
    out: dict[int, Usage] = {pid: own, -1: proc_usage(pid, reaped=True) - own}
    for kid in children(pid):
        out[kid] = proc_usage(kid, reaped=True)
    return out


def tree_delta(first: dict, end: dict) -> Usage:
    """A server tree's usage between two `tree_map`s. A process that ended between them is in the reaped
    figures with its whole life: its part before `first` is taken off (its switches and wait after `first`
    are lost: never negative)."""
    total = Usage()
    for k, u in end.items():
        total = total + (u - first.get(k, Usage()))
    for k, u in first.items():
        if k not in end:
            total = total - Usage(u.user, u.sys, 0, 0, u.minflt, u.majflt, 0.0)
    return total


def thread_usage() -> Usage:
    """The calling thread (the bare reader runs in the bench's main thread)."""
    ru = resource.getrusage(resource.RUSAGE_THREAD)
    ss = _read(f"/proc/self/task/{threading.get_native_id()}/schedstat")
    wait = int(ss.split()[1]) / 1e9 if ss else 0.0
    return Usage(ru.ru_utime, ru.ru_stime, ru.ru_nvcsw, ru.ru_nivcsw, ru.ru_minflt, ru.ru_majflt, wait)


@dataclass(frozen=True)
class Machine:
    """/proc/stat's first line, CPU seconds over all cores."""

    busy: float = 0.0  # user + nice + system + irq + softirq
    sys: float = 0.0
    iowait: float = 0.0
    steal: float = 0.0  # the hypervisor ran another guest while this one had work
    # network receive processing and the like: this kernel has no IRQ_TIME_ACCOUNTING, so a tick that lands in a
    # softirq is charged to the task it interrupted as system time (an engine's sys time can hold the kernel's
    # work on other processes' packets)
    softirq: float = 0.0

    def __sub__(self, o: Machine) -> Machine:
        return Machine(*(getattr(self, f.name) - getattr(o, f.name) for f in fields(Machine)))


def machine() -> Machine:
    data = _read("/proc/stat") or "cpu 0 0 0 0 0 0 0 0"
    v = [int(x) for x in data.splitlines()[0].split()[1:]] + [0] * 8
    user, nice, system, _idle, iowait, irq, softirq, steal = v[:8]
    return Machine(
        (user + nice + system + irq + softirq) / CLK, system / CLK, iowait / CLK, steal / CLK, softirq / CLK
    )


class Split:
    """Counters of an engine, a server and the machine, sampled at a drain's first record and at its last."""

    def __init__(self, engine_pid: int | None, server_pid: int | None, engine_tree: bool = False) -> None:
        self.engine_pid, self.server_pid, self.engine_tree = engine_pid, server_pid, engine_tree
        # not beside the bare reader: it runs in this process, and the probe would take its GIL
        self.probe = SpeedProbe() if engine_pid is not None else None
        self.first = self._sample()

    def _sample(self) -> tuple[Usage, dict, Machine, tuple[float, float]]:
        main = (0.0, 0.0)
        if self.engine_pid is None:
            eng = thread_usage()
        else:
            eng = tree_usage(self.engine_pid) if self.engine_tree else proc_usage(self.engine_pid)
            main = main_thread_cpu(self.engine_pid)
        srv = tree_map(self.server_pid) if self.server_pid is not None else {}
        return eng, srv, machine(), main

    def end(self, n: int, wall_s: float) -> dict:
        """-> {"engine": per event, "server": per event, "machine": {...}} from the first sample to now."""
        e1, s1, m1, t1 = self._sample()
        e0, s0, m0, t0 = self.first
        probe = self.probe.stop() if self.probe is not None else None
        m = m1 - m0
        wall_s = max(wall_s, 1e-3)
        eng = e1 - e0
        n1 = max(n, 1)
        return {
            "engine": eng.per_event(n),
            # the engine's main thread (the stream loop) and the rest (the offset commit's fsync, the output's
            # and the driver's threads: librdkafka's, the JVM's)
            "engine_main": {
                "user_us": round((t1[0] - t0[0]) * 1e6 / n1, 2),
                "sys_us": round((t1[1] - t0[1]) * 1e6 / n1, 2),
            },
            "server": tree_delta(s0, s1).per_event(n),
            "machine": {
                "busy_cores": round(m.busy / wall_s, 2),
                "sys_cores": round(m.sys / wall_s, 2),
                "iowait_cores": round(m.iowait / wall_s, 2),
                "steal_cores": round(m.steal / wall_s, 3),
                "softirq_cores": round(m.softirq / wall_s, 3),
                "probe_ms": probe,
            },
        }


SPLIT_HEAD = (
    f"{'drain':<26} {'process':<14} {'user µs':>8} {'sys µs':>7} {'wait µs':>8} {'vcsw/1k':>8} {'ivcsw/1k':>9} "
    f"{'minflt/1k':>10} {'majflt/1k':>10}"
)


def split_rows(drain: str, split: dict, engine: str) -> list[str]:
    """Two lines (engine, server) of the per-drain table, and the machine's cores in use."""
    out = []
    for who, label in (("engine", engine), ("server", "server")):
        u = split.get(who)
        if not u:
            continue
        out.append(
            f"{drain:<26} {label:<14} {u['user_us']:8.2f} {u['sys_us']:7.2f} {u['wait_us']:8.2f} "
            f"{u['vcsw_per_1k']:8.1f} {u['ivcsw_per_1k']:9.1f} {u['minflt_per_1k']:10.1f} {u['majflt_per_1k']:10.2f}"
        )
        if who == "engine" and split.get("engine_main") and label != "raw reader":
            t = split["engine_main"]
            out.append(
                f"{'':<26} {'  main thread':<14} {t['user_us']:8.2f} {t['sys_us']:7.2f}   (other threads "
                f"{u['user_us'] - t['user_us']:.2f} / {u['sys_us'] - t['sys_us']:.2f})"
            )
    m = split.get("machine")
    if m:
        out.append(
            f"{'':<26} {'machine':<14} busy {m['busy_cores']} cores (sys {m['sys_cores']}, iowait "
            f"{m['iowait_cores']}, softirq {m.get('softirq_cores')}, steal {m['steal_cores']})"
            + (f"; speed probe {m['probe_ms']} ms (SpeedProbe)" if m.get("probe_ms") else "")
        )
    return out


def _probe_work() -> int:
    """A fixed piece of pure-Python work (~0.6 ms on this machine at rest): dict stores, string building, iteration, as the engines do."""
    d = {}
    for i in range(4000):
        d[str(i)] = i * 3
    s = 0
    for k, v in d.items():
        s += len(k) + v
    return s


class SpeedProbe:
    """How fast this machine runs a fixed piece of work while a drain runs: a thread of the bench process times
    `_probe_work` (its own CPU time, so waiting for a core does not count) every 50 ms (~2 % of a core). The
    same work taking longer means the core itself ran slower (caches and memory shared with the other core's
    load, the hypervisor's other guests on the same physical core), not that the engine did more: this
    machine's CPUs have no instruction counters (perf: not supported)."""

    def __init__(self, every_s: float = 0.05) -> None:
        self.every_s = every_s
        self.samples: list[float] = []
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)
        self._thread.start()

    def _run(self) -> None:
        while not self._stop.wait(self.every_s):
            t = time.thread_time()
            _probe_work()
            self.samples.append(time.thread_time() - t)

    def stop(self) -> float | None:
        """-> the median ms of the probe over the drain (None: too short to have a sample)."""
        self._stop.set()
        self._thread.join(1)
        if not self.samples:
            return None
        return round(sorted(self.samples)[len(self.samples) // 2] * 1e3, 3)


def probe_ms(rounds: int = 50) -> float:
    """The probe's median ms now, in the calling thread (a machine at rest: the scale of SpeedProbe's figure)."""
    got = []
    for _ in range(rounds):
        t = time.thread_time()
        _probe_work()
        got.append(time.thread_time() - t)
    return round(sorted(got)[len(got) // 2] * 1e3, 3)


def slow_drains(drains: list[tuple[str, dict]], start_probe_ms: float | None) -> list[str]:
    """One line per drain whose engine CPU per event is over 1.2x the median of the drains given (the same
    engine and kind), saying which counter moved: user time with the speed probe (the machine ran slower),
    system time of the main thread (the kernel's share), switches or faults."""
    got = [(label, s) for label, s in drains if (s or {}).get("engine")]
    if len(got) < 2:
        return []

    def cpu(s: dict) -> float:
        return s["engine"]["user_us"] + s["engine"]["sys_us"]

    def med(vals: list[float]) -> float:
        vals = sorted(vals)
        return vals[(len(vals) - 1) // 2]

    m_cpu = med([cpu(s) for _, s in got])
    m_user = med([s["engine"]["user_us"] for _, s in got])
    m_sys = med([s["engine"]["sys_us"] for _, s in got])
    probes = [s["machine"].get("probe_ms") for _, s in got if s.get("machine", {}).get("probe_ms")]
    m_probe = med(probes) if probes else None
    out = []
    for label, s in got:
        c = cpu(s)
        if c <= 1.2 * m_cpu:
            continue
        e, probe = s["engine"], s.get("machine", {}).get("probe_ms")
        why = [
            f"user {e['user_us']:.2f} (median {m_user:.2f})",
            f"sys {e['sys_us']:.2f} (median {m_sys:.2f})",
        ]
        if probe and m_probe:
            why.append(f"speed probe {probe} ms (median {m_probe}, at the start {start_probe_ms})")
        du, ds = e["user_us"] - m_user, e["sys_us"] - m_sys
        if probe and m_probe and probe > 1.15 * m_probe and e["user_us"] > 1.15 * m_user:
            verdict = "the machine ran slower (user time with the probe)"
        elif ds >= du and e["sys_us"] > 1.5 * max(m_sys, 0.1):
            verdict = "system time (the kernel's share: see the main thread's sys)"
        elif du > ds:
            verdict = "user time with the probe normal (the engine did more: a cold JIT, another path)"
        else:
            verdict = "no one counter"
        out.append(
            f"slow drain: {label} {c:.2f} CPU-µs/event, {c / m_cpu:.2f}x the median: {verdict}; "
            + ", ".join(why)
        )
    return out
