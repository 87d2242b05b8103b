"""Signal channels without a database: the front door's refusal of channels the emulator cannot provide,
the file channel's reading of a real file, the in-process queue. The channels driving real connectors are
in tests/test_incremental.py (source, file, in-process) and tests/test_kafka_signals.py (Kafka)."""

from __future__ import annotations

import json
import subprocess
import sys

from emulator.signals.channels import FileChannel, InProcessChannel
from emulator.signals.record import SignalRecord

PROPS = {
    "connector.class": "io.debezium.connector.postgresql.PostgresConnector",
    "plugin.name": "pgoutput",
    "topic.prefix": "p",
    "database.hostname": "127.0.0.1",
    "database.user": "postgres",
    "database.dbname": "postgres",
}


def test_an_unavailable_channel_is_refused_at_start_with_one_line(tmp_path):
    config = tmp_path / "c.properties"
    props = {**PROPS, "signal.enabled.channels": "source,jmx"}
    config.write_text("".join(f"{k}={v}\n" for k, v in props.items()))
    r = subprocess.run(
        [sys.executable, "-m", "emulator", "run", str(config), "--out", str(tmp_path / "out")],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert r.returncode == 2
    errors = [line for line in r.stderr.splitlines() if line.startswith("error:")]
    assert errors == [
        "error: signal.enabled.channels: channel 'jmx' is not available in this emulator; "
        "available: source, file, kafka, in-process"
    ], r.stderr


def test_file_channel_takes_whole_lines_and_keeps_one_still_being_written(tmp_path):
    path = tmp_path / "signals.jsonl"
    sig = {"id": "f1", "type": "execute-snapshot", "data": {"data-collections": ["public.t"]}}
    path.write_text(json.dumps(sig) + "\nnot json\n" + '{"id": "f2", "type": "log", "da')
    ch = FileChannel(str(path), poll_interval_s=0.0)
    assert ch.read() == [SignalRecord("f1", "execute-snapshot", {"data-collections": ["public.t"]}, "file")]
    assert path.read_text() == '{"id": "f2", "type": "log", "da'  # the unfinished line waits
    with open(path, "a") as f:
        f.write('ta": {"message": "m"}}\n')
    assert ch.read() == [SignalRecord("f2", "log", {"message": "m"}, "file")]
    assert path.read_text() == ""
    assert FileChannel(str(tmp_path / "absent"), 0.0).read() == []


def test_file_channel_reads_on_its_poll_interval(tmp_path):
    path = tmp_path / "signals.jsonl"
    ch = FileChannel(str(path), poll_interval_s=3600.0)
    assert ch.read() == []  # the first poll reads at once (the file is not there yet)
    path.write_text(json.dumps({"id": "x", "type": "log"}) + "\n")
    assert ch.read() == []  # not due for an hour
    assert path.read_text() != ""


def test_in_process_channel_hands_over_every_queued_signal_once():
    ch = InProcessChannel()
    ch.send("a", "log", {"message": "1"})
    ch.send("b", "pause-snapshot")
    assert ch.read() == [
        SignalRecord("a", "log", {"message": "1"}, "in-process"),
        SignalRecord("b", "pause-snapshot", None, "in-process"),
    ]
    assert ch.read() == []
