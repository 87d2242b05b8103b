"""sink.jvm_cache: which JVM options a start gets (no JVM started here; the archive's effect is measured by
bench/bench_sink.py)."""

from __future__ import annotations

import os
import subprocess
import sys
import time

from sink import jvm_cache


def _opts(tmp_path, monkeypatch) -> str:
    monkeypatch.setenv("DBZ_SINK_JVM_CACHE", str(tmp_path))
    return jvm_cache.java_options()


def test_first_start_writes_a_dump_named_after_its_process(tmp_path, monkeypatch):
    o = _opts(tmp_path, monkeypatch)
    assert o.startswith(f"-XX:ArchiveClassesAtExit={tmp_path}/spark-")
    assert o.split()[0].endswith(f".jsa.{os.getpid()}.part")
    assert "-Xlog:cds=off" in o  # the dump's warnings must not reach the sink's stdout


def test_a_finished_dump_becomes_the_archive_and_is_used(tmp_path, monkeypatch):
    part = _opts(tmp_path, monkeypatch).split()[0].split("=", 1)[1]
    dead = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"], capture_output=True)
    part = part.replace(f".{os.getpid()}.part", f".{int(dead.stdout)}.part")
    with open(part, "wb") as f:
        f.write(b"x" * 10)
    old = time.time() - 120
    os.utime(part, (old, old))
    o = _opts(tmp_path, monkeypatch)
    final = part.rsplit(".", 2)[0]
    assert o.split()[0] == f"-XX:SharedArchiveFile={final}"
    assert os.path.exists(final) and not os.path.exists(part)


def test_a_dump_being_written_is_left_alone(tmp_path, monkeypatch):
    part = _opts(tmp_path, monkeypatch).split()[0].split("=", 1)[1]
    with open(part, "wb") as f:  # this process is alive: its JVM may still be writing
        f.write(b"x")
    assert _opts(tmp_path, monkeypatch) == ""
    assert os.path.exists(part)


def test_off(monkeypatch):
    monkeypatch.setenv("DBZ_SINK_JVM_CACHE", "off")
    assert jvm_cache.java_options() == ""
