"""Shared pieces of the sink tests: running `python -m sink run`, reading the Delta tables back, comparing
them with `SELECT *` of the source, and replaying the emulator's output shuffled."""

from __future__ import annotations

import datetime as dt
import os
import random
import struct
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from sink.read import read_arrow, read_spark

ROOT = Path(__file__).resolve().parent.parent

Norm = Callable[[Any], Any]


@pytest.fixture(scope="session", name="spark")
def spark_fixture():
    """One local Spark session for the sink test modules (import this fixture into the module)."""
    from sink.job import spark_session

    s = spark_session("test-sink")
    yield s
    s.stop()


def norm(v: Any) -> Any:
    """Timestamps with a zone compare as naive UTC (the sources' sessions run in UTC)."""
    if isinstance(v, dt.datetime) and v.tzinfo is not None:
        return v.astimezone(dt.UTC).replace(tzinfo=None)
    return v


def sort_rows(rows: list[tuple]) -> list[tuple]:
    # repr: rows of keyless tables may tie on every column but one that holds None (None does not order)
    return sorted(rows, key=repr)


def table_rows(path: Path, cols: list[str], norms: dict[str, Norm] | None = None) -> list[tuple]:
    """The Delta table's rows (deltalake reader) as tuples in `cols` order; its columns must be exactly `cols`."""
    t = read_arrow(str(path))
    assert sorted(t.column_names) == sorted(cols), (t.column_names, cols)
    n = norms or {}
    return sort_rows([tuple(n.get(c, norm)(r[c]) for c in cols) for r in t.to_pylist()])


def spark_rows(spark, path: Path, cols: list[str], norms: dict[str, Norm] | None = None) -> list[tuple]:
    """The same through Spark (the Delta log's active files)."""
    n = norms or {}
    return sort_rows(
        [tuple(n.get(c, norm)(r[c]) for c in cols) for r in read_spark(spark, str(path)).collect()]
    )


def run_sink(
    source: Path | str, tables: Path, ck: Path, env: dict | None = None, *extra: str, timeout: float = 300
) -> subprocess.CompletedProcess:
    """`python -m sink run ... --once` exactly as outside checks run it."""
    e = dict(os.environ, **(env or {}))
    cmd = [
        sys.executable,
        "-m",
        "sink",
        "run",
        "--source",
        str(source),
        "--tables",
        str(tables),
        "--checkpoint",
        str(ck),
        "--once",
        *extra,
    ]
    return subprocess.run(cmd, capture_output=True, text=True, timeout=timeout, cwd=ROOT, env=e)


def shuffled_arrivals(out: Path, dest: Path, seed: int, arrivals: int = 3):
    """Yields after each of `arrivals` appends to `dest`: every topic file of `out` shuffled line by line and
    cut in `arrivals` parts, so that late events cross batch boundaries."""
    dest.mkdir(parents=True, exist_ok=True)
    rnd = random.Random(seed)
    parts = {}
    for f in sorted(out.glob("*.jsonl")):
        lines = f.read_text().splitlines(keepends=True)
        rnd.shuffle(lines)
        parts[f.name] = [lines[i::arrivals] for i in range(arrivals)]
    for i in range(arrivals):
        for name, chunks in parts.items():
            with open(dest / name, "a") as fh:
                fh.writelines(chunks[i])
        yield i


def float32(v: Any) -> Any:
    """A FLOAT column's value as the 32-bit float Spark's FloatType holds."""
    return None if v is None else struct.unpack("f", struct.pack("f", v))[0]


class SparkStandalone:
    """A Spark standalone cluster from the pyspark package's own `bin/spark-class`: a master and `workers`
    workers (separate JVMs, 1 core each) on loopback, sharing this machine's paths. `url` is the master."""

    def __init__(self, work: Path, workers: int = 2) -> None:
        import pyspark

        self.home = Path(pyspark.__file__).parent
        self.work = work
        self.workers = workers
        self.procs: list[subprocess.Popen] = []
        self.url = ""

    def env(self) -> dict:
        return dict(
            os.environ,
            SPARK_HOME=str(self.home),
            SPARK_LOCAL_IP="127.0.0.1",
            SPARK_DAEMON_MEMORY="256m",
            # the master and workers only schedule: the optimizing compiler and G1's threads cost seconds of
            # CPU at their start and give nothing back in a short test
            SPARK_DAEMON_JAVA_OPTS="-XX:TieredStopAtLevel=1 -XX:+UseSerialGC",
            PYSPARK_PYTHON=sys.executable,
            PYTHONPATH=os.pathsep.join([str(ROOT), os.environ.get("PYTHONPATH", "")]),
        )

    def _start(self, name: str, *args: str) -> Path:
        log = self.work / f"{name}.log"
        cmd = [str(self.home / "bin" / "spark-class"), *args]
        self.procs.append(
            subprocess.Popen(
                cmd, stdout=open(log, "wb"), stderr=subprocess.STDOUT, env=self.env(), cwd=self.work
            )
        )
        return log

    def _wait(self, log: Path, text: str, timeout: float = 120) -> None:
        import time

        end = time.monotonic() + timeout
        while time.monotonic() < end:
            if log.exists() and text in log.read_text(errors="replace"):
                return
            if any(p.poll() is not None for p in self.procs):
                raise RuntimeError(f"a Spark daemon exited: {log.read_text(errors='replace')[-2000:]}")
            time.sleep(0.5)
        raise TimeoutError(f"{log.name}: no {text!r} within {timeout} s")

    def __enter__(self) -> SparkStandalone:
        import socket

        with socket.socket() as s:
            s.bind(("127.0.0.1", 0))
            port = s.getsockname()[1]
        self.work.mkdir(parents=True, exist_ok=True)
        self.url = f"spark://127.0.0.1:{port}"
        m = self._start(
            "master",
            "org.apache.spark.deploy.master.Master",
            "--host",
            "127.0.0.1",
            "--port",
            str(port),
            "--webui-port",
            "0",
        )
        self._wait(m, "I have been elected leader")
        logs = []
        for i in range(self.workers):  # started together, then waited for
            w = self._start(
                f"worker{i}",
                "org.apache.spark.deploy.worker.Worker",
                self.url,
                "--host",
                "127.0.0.1",
                "--cores",
                "1",
                "--memory",
                "768m",
                "--webui-port",
                "0",
                "--work-dir",
                str(self.work / f"w{i}"),
            )
            logs.append(w)
        for w in logs:
            self._wait(w, "Successfully registered with master")
        return self

    def __exit__(self, *exc) -> None:
        for p in reversed(self.procs):
            p.terminate()
        for p in self.procs:
            try:
                p.wait(20)
            except subprocess.TimeoutExpired:
                p.kill()
