"""The Kafka output's producer settings from Connect's `producer.*` / `producer.override.*` and Debezium
Server's `debezium.sink.kafka.producer.*` (emulator/outputs/kafka_producer.py): honoured, renamed to
librdkafka's names, or refused naming the property. Expected values are written by hand from Kafka's
ProducerConfig / Connect's Worker defaults and librdkafka's CONFIGURATION.md; the last test makes a real
librdkafka producer of them (no broker needed to construct one)."""

from __future__ import annotations

import pytest

from emulator.config import ConfigError, from_dict, load_config_text
from emulator.outputs.kafka_producer import producer_settings

PG = {
    "connector.class": "io.debezium.connector.postgresql.PostgresConnector",
    "topic.prefix": "dbserver1",
    "database.hostname": "127.0.0.1",
    "database.user": "postgres",
    "database.dbname": "postgres",
    "plugin.name": "pgoutput",
}


def settings(**props: str) -> dict[str, str]:
    return producer_settings(from_dict({**PG, **props}))


def refused(prop: str, **props: str) -> str:
    with pytest.raises(ConfigError) as e:
        settings(**props)
    assert e.value.property == prop
    assert str(e.value).startswith(prop + ":")
    assert "\n" not in str(e.value)
    return str(e.value)


def test_defaults_connects_worker_producer_murmur2_and_javas_request_size():
    # Connect's Worker.producerConfigs: acks=all, max.in.flight.requests.per.connection=1, and idempotence
    # off (KAFKA-13759, Kafka 3.2 on)
    conf = settings()
    assert conf == {
        "bootstrap.servers": "localhost:9092",
        "acks": "all",
        "enable.idempotence": "false",
        "max.in.flight.requests.per.connection": "1",
        "partitioner": "murmur2_random",
        "linger.ms": "5",
        "message.max.bytes": "1048576",
        # Connect's delivery.timeout.ms=Integer.MAX_VALUE (retried until delivered), as librdkafka's alias
        "message.timeout.ms": "2147483647",
        # the Java producer's buffer.memory default, 33554432 bytes
        "queue.buffering.max.kbytes": "32768",
    }


def test_connects_task_producer_client_id_and_the_users_timeouts():
    # Worker: client.id "connector-producer-" + ConnectorTaskId ("<name>-<task>"); a user's own settings win
    assert settings(name="inventory")["client.id"] == "connector-producer-inventory-0"
    assert settings(name="inventory", **{"producer.client.id": "mine"})["client.id"] == "mine"
    conf = settings(**{"producer.delivery.timeout.ms": "60000"})
    assert conf["delivery.timeout.ms"] == "60000" and "message.timeout.ms" not in conf
    assert settings(**{"producer.message.timeout.ms": "1500"})["message.timeout.ms"] == "1500"
    # a Java-valid request.timeout.ms over librdkafka's limit (900000) is its longest, not a failed start
    assert settings(**{"producer.request.timeout.ms": "2147483647"})["request.timeout.ms"] == "900000"
    assert settings(**{"producer.request.timeout.ms": "40000"})["request.timeout.ms"] == "40000"


def test_a_transactional_producers_message_timeout_is_its_transaction_timeout():
    # librdkafka refuses message.timeout.ms over transaction.timeout.ms (ProducerConfig default 60000)
    from confluent_kafka import Producer

    config = from_dict({**PG, "exactly.once.source.support": "enabled"})
    conf = producer_settings(config, transactional=True)
    assert conf["message.timeout.ms"] == "60000"
    Producer({**conf, "transactional.id": "t"}).flush(0)
    config = from_dict({**PG, "producer.transaction.timeout.ms": "90000"})
    assert producer_settings(config, transactional=True)["message.timeout.ms"] == "90000"


def test_batching_and_compression_are_passed_and_override_wins_over_worker():
    conf = settings(
        **{
            "producer.linger.ms": "20",
            "producer.batch.size": "262144",
            "producer.compression.type": "zstd",
            "producer.compression.zstd.level": "3",
            "producer.compression.gzip.level": "9",  # not the codec in use: no effect
            "producer.override.linger.ms": "50",
        }
    )
    assert conf["linger.ms"] == "50"
    assert conf["batch.size"] == "262144"
    assert conf["compression.type"] == "zstd"
    assert conf["compression.level"] == "3"
    assert "compression.gzip.level" not in conf and "compression.zstd.level" not in conf


def test_java_names_are_renamed_and_client_machinery_dropped():
    conf = settings(
        **{
            "producer.max.request.size": "2097152",
            "producer.send.buffer.bytes": "131072",
            "producer.receive.buffer.bytes": "65536",
            "producer.buffer.memory": "67108864",
            "producer.max.block.ms": "1000",
            "producer.metric.reporters": "x.Y",
            "producer.client.dns.lookup": "use_all_dns_ips",
            "producer.key.serializer": "org.apache.kafka.common.serialization.ByteArraySerializer",
        }
    )
    assert conf["message.max.bytes"] == "2097152"
    assert conf["socket.send.buffer.bytes"] == "131072"
    assert conf["socket.receive.buffer.bytes"] == "65536"
    assert conf["queue.buffering.max.kbytes"] == "65536"
    for gone in ("max.request.size", "buffer.memory", "max.block.ms", "metric.reporters", "key.serializer"):
        assert gone not in conf


def test_acks_below_all_turns_idempotence_off_with_connects_one_request_in_flight():
    conf = settings(**{"producer.acks": "1"})
    assert (conf["acks"], conf["enable.idempotence"], conf["max.in.flight.requests.per.connection"]) == (
        "1",
        "false",
        "1",
    )
    conf = settings(
        **{"producer.enable.idempotence": "false", "producer.max.in.flight.requests.per.connection": "3"}
    )
    assert (conf["enable.idempotence"], conf["max.in.flight.requests.per.connection"]) == ("false", "3")
    assert settings(**{"producer.acks": "-1"})["acks"] == "all"


def test_what_the_java_client_rejects_is_refused():
    assert "acks=all" in refused(
        "producer.enable.idempotence", **{"producer.enable.idempotence": "true", "producer.acks": "1"}
    )
    refused(
        "producer.override.enable.idempotence",
        **{
            "producer.override.enable.idempotence": "true",
            "producer.max.in.flight.requests.per.connection": "6",
        },
    )


def test_what_would_change_records_or_partitions_is_refused():
    refused(
        "producer.partitioner.class",
        **{"producer.partitioner.class": "org.apache.kafka.clients.producer.RoundRobinPartitioner"},
    )
    refused("producer.override.interceptor.classes", **{"producer.override.interceptor.classes": "a.B"})
    refused("producer.partitioner.ignore.keys", **{"producer.partitioner.ignore.keys": "true"})
    refused(
        "producer.value.serializer",
        **{"producer.value.serializer": "org.apache.kafka.common.serialization.StringSerializer"},
    )
    refused("producer.buffer.memory", **{"producer.buffer.memory": "lots"})


def test_a_transactional_id_needs_connects_exactly_once_mode():
    config = from_dict({**PG, "producer.transactional.id": "tx"})
    with pytest.raises(ConfigError) as e:
        producer_settings(config, transactional=False)
    assert e.value.property == "producer.transactional.id"
    conf = producer_settings(config, transactional=True)
    assert "transactional.id" not in conf
    assert conf["enable.idempotence"] == "true"  # Connect's exactly-once task producer is idempotent


def test_debezium_server_form_and_its_string_serializer():
    config = load_config_text(
        "debezium.sink.type=kafka\n"
        "debezium.sink.kafka.producer.bootstrap.servers=127.0.0.1:9092\n"
        "debezium.sink.kafka.producer.key.serializer=org.apache.kafka.common.serialization.StringSerializer\n"
        "debezium.sink.kafka.producer.value.serializer=org.apache.kafka.common.serialization.StringSerializer\n"
        "debezium.sink.kafka.producer.compression.type=lz4\n"
        "debezium.source.connector.class=io.debezium.connector.postgresql.PostgresConnector\n"
        "debezium.source.topic.prefix=dbserver1\n"
        "debezium.source.database.hostname=127.0.0.1\n"
        "debezium.source.database.user=postgres\n"
        "debezium.source.database.dbname=postgres\n"
        "debezium.source.plugin.name=pgoutput\n"
        "debezium.source.name=srv\n"
    )
    conf = producer_settings(config)
    assert conf["bootstrap.servers"] == "127.0.0.1:9092"
    assert conf["compression.type"] == "lz4"
    assert "key.serializer" not in conf and "value.serializer" not in conf
    # a plain Java producer: its defaults (idempotent, up to 5 requests in flight), not Connect's worker's
    assert (conf["acks"], conf["enable.idempotence"]) == ("all", "true")
    assert "max.in.flight.requests.per.connection" not in conf  # librdkafka sets 5 with idempotence
    assert conf["message.timeout.ms"] == "120000"  # ProducerConfig's delivery.timeout.ms, not Connect's
    assert "client.id" not in conf  # the Java producer's own ("producer-N"), not Connect's task form


def test_librdkafka_accepts_every_name_produced():
    from confluent_kafka import Producer

    conf = settings(
        **{
            "producer.max.request.size": "2097152",
            "producer.send.buffer.bytes": "131072",
            "producer.receive.buffer.bytes": "65536",
            "producer.buffer.memory": "67108864",
            "producer.compression.type": "zstd",
            "producer.compression.zstd.level": "3",
            "producer.batch.size": "262144",
            "producer.acks": "1",
            "producer.retries": "5",
            "producer.retry.backoff.ms": "50",
            "producer.request.timeout.ms": "10000",
            "producer.delivery.timeout.ms": "60000",
            "producer.client.id": "x",
        }
    )
    Producer(conf).flush(0)
    Producer(settings(name="n", **{"producer.request.timeout.ms": "2147483647"})).flush(0)  # the defaults


def test_the_exactly_once_transactional_id_is_connects_task_form():
    # Worker.taskTransactionalId: String.format("%s-%s-%d", groupId, connector, taskId)
    from emulator.outputs.kafka import transactional_id

    eos = {"exactly.once.source.support": "enabled"}
    assert transactional_id(from_dict({**PG, **eos, "group.id": "connect-cluster", "name": "inv"})) == (
        "connect-cluster-inv-0"
    )
    assert (
        transactional_id(from_dict({**PG, **eos, "group.id": "g", "name": "inv", "transactional.id": "t"}))
        == "t"
    )
    assert transactional_id(from_dict({**PG, **eos, "name": "inv"})) == "dbz-emulator-inv"  # no worker group
