"""Capture backends shared by pg/record.py and mariadb/record.py.

A record script replays its workload's phases against a throwaway server (load,
start the capture, wait for the snapshot, stream, wait for quiet, ...) through
one of two backends with the same interface:

  DebeziumCapture  real Debezium: pydbzengine's embedded engine on a thread of
                   this process (--engine debezium, the default; needs the
                   oracle venv with pydbzengine and Java 17)
  EmulatorCapture  a candidate CLI `CMD run CONFIG --out DIR` in a subprocess,
                   observed only through the <topic>.jsonl files it writes into
                   DIR (--engine emulator; stdlib only)

Both feed every record into a RecordLog, which keeps the timing marks the phase
runner waits on: a record with source.snapshot == "last", the first incremental
read, the time of the last non-heartbeat data.

Contract for a candidate (EmulatorCapture): it reads the .properties file
CONFIG (Debezium connector property names), writes one `<topic>.jsonl` per topic
into DIR with lines {"key": K, "value": V, "headers": [...]}, appends (and
flushes) records as it emits them, and on SIGTERM flushes and exits 0 within 30 s.

Adapted from the oracle recorders of the project's golden recordings (shared/golden/capture.py), for
emulator.testing.differential; the Kafka-output candidate mode is left out. Stdlib only at import time:
the debezium backend imports pydbzengine (the `[oracle]` extra, in its own venv) when it starts.
"""

from __future__ import annotations

import json
import os
import shlex
import signal
import subprocess
import threading
import time
from collections.abc import Callable
from pathlib import Path

from emulator.testing.procstat import any_task_busy, children_of

HEARTBEAT_PREFIX = "__debezium-heartbeat"
STOP_GRACE_S = 30.0


class CaptureError(RuntimeError):
    """A capture failed in a way that makes the run unusable (reported without traceback)."""


class CaptureEnded(CaptureError):
    """The capture stopped on its own while the phase runner was waiting for it."""


class WorkloadError(CaptureError):
    """The workload's SQL failed: the run says nothing about the capture. Defined here, not in
    emulator.testing.differential: run as `python -m`, that module is `__main__`, and the backends' import
    of it would make a second class the `except` in `record` does not catch."""


def _source(value) -> dict:
    payload = value.get("payload") if isinstance(value, dict) else None
    src = payload.get("source") if isinstance(payload, dict) else None
    return src if isinstance(src, dict) else {}


def _after_type(value) -> str | None:
    payload = value.get("payload") if isinstance(value, dict) else None
    after = payload.get("after") if isinstance(payload, dict) else None
    return after.get("type") if isinstance(after, dict) else None


class RecordLog:
    """Records in arrival order ({"topic", "key", "value"[, "headers"]}) plus timing marks."""

    def __init__(self):
        self.t0 = time.monotonic()
        self.lock = threading.Lock()
        self.records: list[dict] = []
        self.marks: dict[str, float] = {}  # name -> seconds since t0, first occurrence
        self.last_data: float | None = None  # monotonic time of the last non-heartbeat data

    def mark(self, name: str) -> None:
        self.marks.setdefault(name, round(time.monotonic() - self.t0, 3))

    def data_seen(self) -> None:
        with self.lock:
            self.last_data = time.monotonic()

    def add(self, rec: dict) -> None:
        with self.lock:
            self.records.append(rec)
            self.mark("first_record")
            if not rec["topic"].startswith(HEARTBEAT_PREFIX):
                self.last_data = time.monotonic()
            snap = _source(rec.get("value")).get("snapshot")
            if snap == "last":
                self.mark("snapshot_last_record")
            elif snap == "incremental":
                self.mark("first_incremental_record")
                self.marks["last_incremental_record"] = round(time.monotonic() - self.t0, 3)
            elif _after_type(rec.get("value")) == "snapshot-window-close":
                # a chunk's window closed: its rows follow at once, and a chunk of a table that is not there
                # (a scenario the minimizer runs alone, the signal naming another's table) has none
                self.mark("incremental_window_closed")


class Capture:
    name = "capture"
    exit_is_quiet = False  # does the capture stopping on its own count as "events stopped"?

    def __init__(self, log: RecordLog):
        self.log = log

    def start(self, props: dict) -> None:
        raise NotImplementedError

    def ended(self) -> str | None:
        """Why the capture stopped on its own, or None while it runs."""
        raise NotImplementedError

    def stop(self) -> dict:
        """Stop the capture; -> facts for the .meta.json."""
        raise NotImplementedError

    def problem(self) -> str | None:
        """After stop(): what makes the run a failure although the phases completed."""
        return None

    def wait_for(self, pred, timeout: float, what: str) -> None:
        end = time.monotonic() + timeout
        while True:
            with self.log.lock:
                if pred():
                    return
            why = self.ended()
            if why:
                time.sleep(0.5)  # the tail of its output (an initial_only snapshot's last record) lands
                with self.log.lock:
                    if pred():
                        return
                raise CaptureEnded(f"{self.name} stopped while waiting for {what}: {why}")
            if time.monotonic() > end:
                raise CaptureError(f"timed out after {timeout:g} s waiting for {what} ({self.name})")
            time.sleep(0.1)

    def wait_snapshot(self, timeout: float, streaming: Callable[[], bool] | None = None) -> None:
        """Until the snapshot's record marked "last" came. With `streaming` (the backend's sign that the capture
        streams, which it does only once its snapshot is over) also until it streams and then no data record came
        for 2 s: a snapshot that selects no row has no "last" record (pg seed 44707009 waited 180 s for one on
        both sides), while one with rows may still be on its way (a queue; files the harness reads)."""
        what = 'the end of the snapshot (a record with source.snapshot "last")'
        last = lambda: "snapshot_last_record" in self.log.marks  # noqa: E731
        if streaming is None:
            self.wait_for(last, timeout, what)
            return
        end = time.monotonic() + timeout
        while not streaming():  # a query: polled outside the log's lock, about once a second
            try:
                self.wait_for(last, min(1.0, max(end - time.monotonic(), 0.0)), what)
                return
            except CaptureEnded:
                raise
            except CaptureError:
                if time.monotonic() > end:
                    raise CaptureError(
                        f"timed out after {timeout:g} s waiting for {what} ({self.name})"
                    ) from None
        since = time.monotonic()
        self.wait_for(
            lambda: last() or time.monotonic() - max(since, self.log.last_data or 0) > 2.0,
            max(end - since, 10.0),
            f"{what} or 2 s without data records once streaming",
        )
        if not last():
            self.log.mark("snapshot_ended_streaming")

    def wait_quiet(self, quiet_s: float, timeout: float = 180) -> None:
        """Wait until no non-heartbeat data arrived for quiet_s, counted from now at the earliest."""
        since = time.monotonic()
        try:
            self.wait_for(
                lambda: time.monotonic() - max(since, self.log.last_data or 0) > quiet_s,
                timeout,
                f"{quiet_s:g} s without data records",
            )
        except CaptureEnded:
            if not self.exit_is_quiet:
                raise


# ---------------------------------------------------------------------------
# real Debezium (embedded engine)
# ---------------------------------------------------------------------------
LOG4J = """rootLogger.level=INFO
rootLogger.appenderRef.f.ref=f
appender.f.type=File
appender.f.name=f
appender.f.fileName={file}
appender.f.layout.type=PatternLayout
appender.f.layout.pattern=%date [%level] [%threadName] %c{{6}} (%F:%L) - %m%n
"""


class DebeziumCapture(Capture):
    """pydbzengine's embedded engine; also the engine's handler (handleJsonBatch)."""

    name = "Debezium"
    # A connector that dies mid-stream is recorded as is, its error kept in the
    # .meta.json.
    exit_is_quiet = True

    def __init__(self, log: RecordLog, workdir: Path, classpath=()):
        super().__init__(log)
        self.workdir, self.classpath = workdir, [str(p) for p in classpath]
        self.log_file = workdir / "debezium.log"
        self.engine = self.thread = None
        self.errors: list[str] = []
        self._log_pos = 0  # how far `_snapshot_retried` has read Debezium's log
        self._cause = ""  # the last "Caused by:" line seen there
        self._failed_snapshot = False
        self._retried: str | None = None

    def start(self, props: dict) -> None:
        import jpype
        from pydbzengine import DebeziumEngine
        from pydbzengine.engine.jvm import ensure_jvm_started

        # our own log4j config: pydbzengine's writes logs/ under the cwd and to stdout
        log4j = self.workdir / "log4j2.properties"
        log4j.write_text(LOG4J.format(file=self.log_file))
        self.log.mark("capture_start")
        ensure_jvm_started(
            jvm_opts=[f"-Dlog4j2.configurationFile=file:{log4j}"], extra_classpaths=self.classpath or None
        )
        self.log.mark("jvm_started")
        json_fmt = jpype.JClass("io.debezium.engine.format.Json").class_
        # key, value AND headers as JSON (the plain Json format drops the headers,
        # e.g. __debezium.oldkey/newkey on primary-key changes)
        fmt = jpype.JClass("io.debezium.engine.format.KeyValueHeaderChangeEventFormat").of(
            json_fmt, json_fmt, json_fmt
        )
        self.engine = DebeziumEngine(
            properties=props, handler=self, format=fmt, extra_classpaths=self.classpath or None
        )
        self.thread = threading.Thread(target=self._run, daemon=True)
        self.thread.start()
        self.log.mark("engine_started")

    def _run(self):
        try:
            self.engine.run()
        except Exception as e:  # noqa: BLE001 - kept for the .meta.json
            self.errors.append(repr(e))

    def handleJsonBatch(self, records):  # noqa: N802 - pydbzengine's handler interface
        for r in records:
            key, value = r.key(), r.value()
            rec = {
                "topic": str(r.destination()),
                "key": None if key is None else json.loads(str(key)),
                "value": None if value is None else json.loads(str(value)),
            }
            hdrs = [
                [str(h.getKey()), None if h.getValue() is None else json.loads(str(h.getValue()))]
                for h in r.headers()
            ]
            if hdrs:
                rec["headers"] = hdrs
            self.log.add(rec)

    def ended(self):
        if self.thread is not None and not self.thread.is_alive():
            err = f": {'; '.join(self.errors)}" if self.errors else ""
            return f"the engine stopped{err} (see {self.log_file})"
        return self._snapshot_retried()

    def _snapshot_retried(self) -> str | None:
        """A snapshot that failed with a retriable error (e.g. PostgreSQL refusing a chunk query's bound) is not
        the end of Debezium's engine: its task restarts after 10 s and snapshots again, forever by default, so
        no record marks the end. That restart is where Debezium stops for the comparison (the emulator stops
        there once); its first attempt's records are kept (`lost_batch.cut_retried_snapshot` cuts later
        runs). Read incrementally: `ended` is polled."""
        if self._retried is None and self.log_file.exists():
            with self.log_file.open("rb") as f:
                f.seek(self._log_pos)
                data = f.read()
            end = data.rfind(b"\n") + 1  # whole lines only
            self._log_pos += end
            for line in data[:end].decode(errors="replace").splitlines():
                if line.startswith("Caused by: "):
                    self._cause = line.removeprefix("Caused by: ")
                elif "Snapshot was not completed successfully" in line:
                    self._failed_snapshot = True
                elif self._failed_snapshot and "Going to restart connector" in line:
                    self._retried = (
                        f"the snapshot failed and the connector restarts (retriable): {self._cause}"
                    )
                    break
        return self._retried

    def stop(self) -> dict:
        if self.engine is not None:
            self.engine.close()
            self.thread.join(60)
        return {"engine_error": self.errors}


# ---------------------------------------------------------------------------
# candidate CLI (emulator)
# ---------------------------------------------------------------------------
def wait_until_streaming(cap: Capture, ready: Callable[[], bool], what: str, timeout: float) -> None:
    """Poll `ready` until the engine streams (its slot active, its binlog dump connected); fail at once if
    the engine stopped, or after `timeout`. Then a second for its snapshot's last record to land."""
    end = time.monotonic() + timeout
    while not ready():
        why = cap.ended()
        if why:
            raise CaptureEnded(f"{cap.name} stopped while waiting for {what}: {why}")
        if time.monotonic() > end:
            raise CaptureError(f"timed out after {timeout:g} s waiting for {what}")
        time.sleep(0.1)
    time.sleep(1.0)
    cap.log.mark("snapshot_last_record")


def emulator_argv(cmd: str | None) -> list[str]:
    """--emulator-cmd, default `python -m emulator` with $EMULATOR_PYTHON as the python."""
    if cmd:
        return shlex.split(cmd)
    return [os.environ.get("EMULATOR_PYTHON") or "python", "-m", "emulator"]


PROP_ESCAPES = {"\\": "\\\\", "\t": "\\t", "\n": "\\n", "\r": "\\r", "\f": "\\f"}


def _escape(s: str, key: bool) -> str:
    out = []
    for i, ch in enumerate(s):
        if ch in PROP_ESCAPES:
            out.append(PROP_ESCAPES[ch])
        elif ch in "=:#!" or (ch == " " and (key or i == 0)):
            out.append("\\" + ch)
        elif not " " <= ch <= "~":  # \uXXXX of each UTF-16 unit
            b = ch.encode("utf-16-be")
            out.append("".join(f"\\u{b[j] << 8 | b[j + 1]:04x}" for j in range(0, len(b), 2)))
        else:
            out.append(ch)
    return "".join(out)


def write_properties(props: dict, path: Path) -> None:
    """Java .properties (ISO-8859-1 safe: non-ASCII as \\uXXXX)."""
    lines = ["# connector properties written by the oracle's record.py --engine emulator"]
    lines += [f"{_escape(str(k), True)}={_escape(str(v), False)}" for k, v in props.items()]
    path.write_text("\n".join(lines) + "\n", encoding="ascii")


BUSY_S = 0.5  # how long the emulator must stay busy (EmulatorCapture._busy) to count as still working


class EmulatorCapture(Capture):
    """`CMD run CONFIG --out DIR` in a subprocess; DIR's <topic>.jsonl files are tailed."""

    name = "emulator"

    def __init__(
        self, log: RecordLog, cmd: list[str], out_dir: Path, log_path: Path, workdir: Path, extra_args=()
    ):
        super().__init__(log)
        self.cmd, self.out_dir, self.log_path, self.workdir = cmd, out_dir, log_path, workdir
        self.extra_args = list(extra_args)
        self.proc = None
        self.offsets: dict[str, list] = {}  # file name -> [bytes read, unfinished line]
        self.bad_lines = 0
        self.stopped = threading.Event()
        self.poller = None
        self.exit: dict = {}
        self._children: list[int] = []  # the emulator's child processes (forked snapshot readers)
        self._children_at = 0.0

    def start(self, props: dict) -> None:
        config = self.workdir / "connector.properties"
        write_properties(props, config)
        self.argv = self.cmd + ["run", str(config), "--out", str(self.out_dir)] + self.extra_args
        self.log.mark("capture_start")
        logf = open(self.log_path, "wb")
        try:
            # own session: terminal signals reach only us; SIGKILL can take its whole group
            self.proc = subprocess.Popen(
                self.argv,
                stdin=subprocess.DEVNULL,
                stdout=logf,
                stderr=subprocess.STDOUT,
                start_new_session=True,
            )
        except OSError as e:
            raise CaptureError(f"cannot start the emulator command {shlex.join(self.cmd)!r}: {e}") from None
        finally:
            logf.close()
        self.log.mark("engine_started")
        self.poller = threading.Thread(target=self._poll_loop, daemon=True)
        self.poller.start()

    # -- watching DIR ----------------------------------------------------------
    def _poll_loop(self):
        busy_since = None
        while not self.stopped.is_set():
            self._poll()
            # work that lasts: the emulator's own short wake-ups (a heartbeat every 2 s, an offset commit)
            # must not hold the quiet off, where a starved or stopped one stays busy
            if not self._busy():
                busy_since = None
            elif busy_since is None:
                busy_since = time.monotonic()
            elif time.monotonic() - busy_since >= BUSY_S:
                self.log.data_seen()
            self.stopped.wait(0.1)

    def _busy(self) -> bool:
        """Whether the emulator still works: a thread of it (or of a forked reader) running or waiting for a
        core (R), in disk I/O (D) or stopped (T). Quiet means its files stopped growing; on a loaded machine
        a starved emulator (runnable, not running) writes nothing for seconds while changes wait in its
        socket, and `wait_quiet` passed with records still to come (diffcamp14: ~150k records written over
        100 s); an idle emulator waits for the server in state S. Linux /proc only (elsewhere: files only)."""
        pid = self.proc.pid if self.proc is not None else None
        if pid is None or self.proc.poll() is not None:
            return False
        now = time.monotonic()
        if now - self._children_at >= 1.0:  # children change rarely: a scan of /proc once a second
            self._children_at = now
            self._children = children_of(pid)
        return any_task_busy((pid, *self._children))

    def _poll(self):
        try:
            names = sorted(n for n in os.listdir(self.out_dir) if n.endswith(".jsonl"))
        except FileNotFoundError:
            return
        for name in names:
            path = self.out_dir / name
            try:
                size = path.stat().st_size
            except FileNotFoundError:
                continue
            st = self.offsets.setdefault(name, [0, b""])
            if size < st[0]:  # rewritten from scratch: read it again
                st[0], st[1] = 0, b""
            if size == st[0]:
                continue
            with path.open("rb") as f:
                f.seek(st[0])
                data = f.read(size - st[0])
            st[0] += len(data)
            topic = name[: -len(".jsonl")]
            if not topic.startswith(HEARTBEAT_PREFIX):
                self.log.data_seen()  # quiet = non-heartbeat files stopped growing
            *lines, st[1] = (st[1] + data).split(b"\n")
            for line in lines:
                if not line.strip():
                    continue
                try:
                    rec = json.loads(line)
                except ValueError:
                    self.bad_lines += 1
                    continue
                if isinstance(rec, dict):
                    self.log.add({**rec, "topic": topic})
                else:
                    self.bad_lines += 1

    # -- lifecycle ---------------------------------------------------------------
    def _log_tail(self, n=8) -> str:
        try:
            lines = self.log_path.read_text(errors="replace").splitlines()[-n:]
        except OSError:
            lines = []
        return f"; log {self.log_path}" + ("".join(f"\n    | {ln}" for ln in lines) if lines else " is empty")

    def ended(self):
        rc = self.proc.poll() if self.proc is not None else None
        if rc is None:
            return None
        return f"it exited with code {rc} before it was stopped{self._log_tail()}"

    def stop(self) -> dict:
        if self.proc is None:
            return {}
        info = {"argv": [a.replace(str(self.workdir), "<tmp>") for a in self.argv]}
        rc = self.proc.poll()
        if rc is not None:
            info["exited_before_stop"] = True
        else:
            t = time.monotonic()
            self.proc.send_signal(signal.SIGTERM)
            try:
                rc = self.proc.wait(STOP_GRACE_S)
            except subprocess.TimeoutExpired:
                info["killed_after_s"] = STOP_GRACE_S
            finally:  # also when we are interrupted while waiting: leave nothing running
                if self.proc.poll() is None:
                    os.killpg(self.proc.pid, signal.SIGKILL)
                    rc = self.proc.wait()
            info["sigterm_to_exit_s"] = round(time.monotonic() - t, 2)
        info["returncode"] = rc
        self.stopped.set()
        if self.poller is not None:
            self.poller.join(10)
        self._poll()  # what was flushed on the way out
        if self.bad_lines:
            info["unparsable_lines"] = self.bad_lines
        self.exit = info
        return info

    def problem(self):
        e = self.exit
        if not e:
            return None
        if e.get("exited_before_stop") and self.exit_is_quiet and e.get("returncode") == 0:
            return None  # snapshot.mode=initial_only: done after the snapshot (Debezium's task idles)
        if e.get("exited_before_stop"):
            return f"the emulator exited with code {e['returncode']} before it was stopped{self._log_tail()}"
        if "killed_after_s" in e:
            return (
                f"the emulator did not exit within {STOP_GRACE_S:g} s of SIGTERM; killed with SIGKILL "
                f"(its output may be incomplete){self._log_tail()}"
            )
        if e["returncode"] != 0:
            return f"the emulator exited with code {e['returncode']} after SIGTERM (expected 0){self._log_tail()}"
        if self.bad_lines:
            return f"{self.bad_lines} lines in {self.out_dir} are not JSON objects"
        return None


# ---------------------------------------------------------------------------
# configuration
# ---------------------------------------------------------------------------
def scrub(props: dict, workdir: Path) -> dict:
    """Properties for a .meta.json: this run's temp dir written as <tmp>."""
    return {k: str(v).replace(str(workdir), "<tmp>") for k, v in props.items()}


def raise_on_sigterm() -> None:
    """SIGTERM -> KeyboardInterrupt, so the phase runner's finally stops servers and captures."""

    def handler(signum, frame):
        raise KeyboardInterrupt(f"signal {signum}")

    signal.signal(signal.SIGTERM, handler)
