"""The sink's front door: errors are one line on stderr and a non-zero exit (before Spark starts, so within
seconds), the traceback only with --debug; `python -m sink show` prints a mirror or a key's history."""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
from pathlib import Path

import pytest

pytest.importorskip("deltalake", reason="deltalake not installed (pip install -e '.[sink]')")

from sink.apply import Options, apply_batch  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent
DATA = ROOT / "tests" / "data" / "pg" / "pg_public.jsonl"


def _sink(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "sink", *args], capture_output=True, text=True, timeout=120, cwd=ROOT
    )


def _run(source: str, tmp_path: Path, *extra: str) -> subprocess.CompletedProcess:
    return _sink(
        "run",
        "--source",
        source,
        "--tables",
        str(tmp_path / "t"),
        "--checkpoint",
        str(tmp_path / "c"),
        "--once",
        *extra,
    )


def _one_line(r: subprocess.CompletedProcess) -> str:
    lines = r.stderr.strip().splitlines()
    assert len(lines) == 1, r.stderr
    assert lines[0].startswith("sink: error: ")
    return lines[0]


def test_missing_source_directory(tmp_path):
    r = _run(str(tmp_path / "nope"), tmp_path)
    assert r.returncode == 2
    assert "no such directory" in _one_line(r) and "nope" in r.stderr
    assert not (tmp_path / "c").exists()  # refused before anything started


def test_unreachable_kafka(tmp_path):
    with socket.socket() as s:  # a port nobody listens on
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    r = _run(f"kafka:127.0.0.1:{port}", tmp_path)
    assert r.returncode == 2
    assert f"Kafka at 127.0.0.1:{port} is unreachable" in _one_line(r)


def test_input_that_is_not_debezium(tmp_path):
    src = tmp_path / "in"
    src.mkdir()
    (src / "orders.jsonl").write_text('{"id": 1, "total": 5}\n')
    r = _run(str(src), tmp_path)
    assert r.returncode == 2
    assert "orders.jsonl: line 1 is not a Debezium record" in _one_line(r)
    (src / "orders.jsonl").write_text('{"key": {"id": 1}, "value": {"id": 1, "total": 5}}\n')  # schemaless
    r = _run(str(src), tmp_path)
    assert r.returncode == 2 and "no Connect schema" in _one_line(r)


def test_a_record_that_is_not_debeziums_fails_the_batch_with_one_line(tmp_path):
    """Line 1 passes the start check; a later line that is JSON but not a directory-output record fails the
    micro-batch on the executor that reads it: one line naming the file and the line's byte offset (not the
    PythonException wrapper, nor the JVM launcher's warnings), exit 1, nothing committed."""
    from sink.warm import TOPIC, records

    src = tmp_path / "in"
    src.mkdir()
    lines = records().splitlines(keepends=True)
    lines[3] = b'{"id": 7, "total": 5}\n'
    (src / f"{TOPIC}.jsonl").write_bytes(b"".join(lines))
    r = _run(str(src), tmp_path)
    assert r.returncode == 1, r.stdout + r.stderr
    at = sum(len(x) for x in lines[:3])
    assert f"{TOPIC}.jsonl at byte {at}: not a Debezium record" in _one_line(r)
    assert "batch 0:" not in r.stdout
    assert not list((tmp_path / "c" / "commits").iterdir())  # the batch is not marked done


def test_debug_shows_the_traceback(tmp_path):
    r = _run(str(tmp_path / "nope"), tmp_path, "--debug")
    assert r.returncode != 0 and "Traceback" in r.stderr and "UsageError" in r.stderr


def _customers() -> list:
    out = []
    for i, line in enumerate(DATA.read_text().splitlines()):
        r = json.loads(line)
        if r["topic"] == "dbserver1.inventory.customers":
            out.append((r["topic"], r["key"], r["value"], ("f", i), r.get("headers")))
    return out


def test_show_mirror_and_history(tmp_path):
    recs = _customers()
    apply_batch(str(tmp_path / "m"), recs, "app", 0)
    apply_batch(str(tmp_path / "h"), recs, "app", 0, Options(scd=2))
    r = _sink("show", str(tmp_path / "m" / "dbserver1.inventory.customers"))
    assert r.returncode == 0, r.stderr
    assert "mirror table" in r.stdout and "first_name" in r.stdout and "__seq" not in r.stdout
    # the versions of customer 1004 in the recording: its snapshot row, then each update
    versions = [
        v["payload"]["after"]
        for _, k, v, _, _ in recs
        if v and k["payload"]["id"] == 1004 and v["payload"]["op"] in ("r", "c", "u")
    ]
    r = _sink("show", str(tmp_path / "h" / "dbserver1.inventory.customers"), "--history", "1004")
    assert r.returncode == 0, r.stderr
    lines = r.stdout.strip().splitlines()
    assert "history table" in lines[0] and f"{len(versions)} rows" in lines[0]
    body = lines[2:]
    assert len(body) == len(versions)
    for line, after in zip(body, versions):
        assert after["email"] in line and line.split()[0] == "1004"
    r = _sink("show", str(tmp_path / "m" / "dbserver1.inventory.customers"), "--history", "1004")
    assert r.returncode == 2 and "needs a history table" in _one_line(r)


def test_only_the_planning_workers_daemons_are_ended():
    """`sink run` ends the JVM's idle query-planning daemons (children of the JVM whose arguments name a planning
    worker module); the executors' worker daemon and processes of other parents are left alone."""
    from sink.job import end_planners

    def child(*args: str) -> subprocess.Popen:
        return subprocess.Popen([sys.executable, "-c", "import time; time.sleep(120)", *args])

    planners = [
        child("-m", "pyspark.daemon", m)
        for m in (
            "pyspark.sql.worker.lookup_data_sources",
            "pyspark.sql.worker.create_data_source",
            "pyspark.sql.worker.plan_data_source_read",
        )
    ]
    worker = child("-m", "pyspark.daemon", "pyspark.worker")
    runner = child("-m", "pyspark.sql.streaming.python_streaming_source_runner")
    try:  # Popen returns after the exec: their command lines are in /proc
        assert end_planners(os.getpid() + 10**7) == 0  # another parent's children: none
        assert end_planners(os.getpid()) == 3
        for p in planners:
            assert p.wait(10) == -15  # SIGTERM
        assert worker.poll() is None and runner.poll() is None
    finally:
        for p in [*planners, worker, runner]:
            p.kill()
            p.wait()
