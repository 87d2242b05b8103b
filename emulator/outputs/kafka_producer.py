"""The producer's settings: Kafka Connect's (or Debezium Server's) producer properties, as librdkafka ones.

Where they come from (later wins): Kafka Connect's worker `producer.*`, the connector's `producer.override.*`,
Debezium Server's `debezium.sink.kafka.producer.*`, then `--kafka HOST:PORT` for `bootstrap.servers`.

Every Java producer property (Kafka 4.x `ProducerConfig`) is one of:

* the same name and meaning in librdkafka: passed as given (batching, compression, retries, timeouts,
  security);
* renamed: `max.request.size` -> `message.max.bytes` (and its Java default, 1048576, where librdkafka's
  would be 1000000: a record Connect can send must not fail here), `send.buffer.bytes` /
  `receive.buffer.bytes` -> `socket.*`, `buffer.memory` -> `queue.buffering.max.kbytes`, the codec's
  `compression.<codec>.level` -> `compression.level`;
* no effect on what is delivered (the Java client's own metrics, DNS, class loading, blocking): accepted;
* refused (exit 2): what would change the records or their partitions and cannot be run here
  (`partitioner.class`, `interceptor.classes`, `partitioner.ignore.keys=true`, a serializer other than
  the byte array / string one), and settings the Java client itself rejects (idempotence with `acks`
  other than `all` or more than 5 requests in flight).

Delivery: Kafka Connect's worker producer (`Worker.producerConfigs`; idempotence off since KAFKA-13759):
acks=all, `enable.idempotence=false`, one request in flight: records in order, a retry may duplicate one.
Debezium Server's Kafka sink makes a plain Java producer: its defaults, idempotent with up to 5 in flight.
Exactly-once (transactional) is idempotent, as Connect's exactly-once task producer. (librdkafka's
idempotent producer also costs CPU: its broker thread polls its socket ~100 times as often while requests
are in flight, docs/kafka-producer.md.) A user's `enable.idempotence`, `acks` and
`max.in.flight.requests.per.connection` are honoured: `acks` other than `all`, or more than 5 in flight, turn
idempotence off unless it was asked for (the Java client then fails: so do we). Names the Java client does not know are passed to librdkafka (its own settings, e.g.
`message.timeout.ms`); one librdkafka does not know either fails the start (exit 2, librdkafka's message
names it).
"""

from __future__ import annotations

import logging

from emulator.settings import settings_for
from emulator.settings.errors import ConfigError

log = logging.getLogger("emulator.kafka")

BYTE_ARRAY = "org.apache.kafka.common.serialization.ByteArraySerializer"
STRING = "org.apache.kafka.common.serialization.StringSerializer"
JAVA_MAX_REQUEST_SIZE = "1048576"  # ProducerConfig max.request.size default
# delivery.timeout.ms: Connect's worker sets Integer.MAX_VALUE (Worker.baseProducerConfigs: a record is retried
# until delivered, never failed on time); a plain Java producer (Debezium Server) has ProducerConfig's
# 120000. librdkafka's own (message.timeout.ms, of which delivery.timeout.ms is an alias) would be 300000.
CONNECT_DELIVERY_TIMEOUT = "2147483647"
JAVA_DELIVERY_TIMEOUT = "120000"
# buffer.memory: ProducerConfig's 33554432 bytes, as librdkafka's queue.buffering.max.kbytes (its own default,
# 1048576 KiB, would let the stream run up to 1 GiB ahead of the broker)
JAVA_BUFFER_KB = str(33554432 // 1024)
# request.timeout.ms: librdkafka takes at most 900000 (the Java client any int; a timeout for the broker's
# answer either way)
RDKAFKA_MAX_REQUEST_TIMEOUT = 900000

# Java name -> librdkafka name (values in the same unit)
RENAMED = {
    "max.request.size": "message.max.bytes",
    "send.buffer.bytes": "socket.send.buffer.bytes",
    "receive.buffer.bytes": "socket.receive.buffer.bytes",
}

# the Java client's own machinery: cannot change which records are delivered, in which order, or where
NO_EFFECT = frozenset(
    {
        "max.block.ms",
        "metrics.num.samples",
        "metrics.sample.window.ms",
        "metrics.recording.level",
        "metric.reporters",
        "auto.include.jmx.reporter",
        "enable.metrics.push",
        "client.dns.lookup",
        "metadata.max.idle.ms",
        "metadata.recovery.strategy",
        "metadata.recovery.rebootstrap.trigger.ms",
        "socket.connection.setup.timeout.max.ms",
        "partitioner.adaptive.partitioning.enable",  # keyless records: a partition of the client's choice
        "partitioner.availability.timeout.ms",
        "security.providers",
    }
)

CODEC_LEVELS = {
    "compression.gzip.level": "gzip",
    "compression.lz4.level": "lz4",
    "compression.zstd.level": "zstd",
}


def _gathered(config, bootstrap: str | None) -> tuple[dict[str, str], dict[str, str]]:
    """-> (settings by producer name, the property each came from)."""
    conf: dict[str, str] = {}
    origin: dict[str, str] = {}
    props = config.props if config is not None else {}
    for prefix in ("producer.", "producer.override."):
        for k, v in props.items():
            if k.startswith(prefix):
                rest = k[len(prefix) :]
                if prefix == "producer." and rest.startswith("override."):
                    continue
                conf[rest] = v.strip()
                origin[rest] = k
    if config is not None and config.sink_type == "kafka":
        for k, v in config.sink_props.items():
            if k.startswith("producer."):
                conf[k[len("producer.") :]] = v.strip()
                origin[k[len("producer.") :]] = f"debezium.sink.kafka.{k}"
    if bootstrap:
        conf["bootstrap.servers"] = bootstrap
        origin["bootstrap.servers"] = "--kafka"
    if "bootstrap.servers" not in conf and props.get("bootstrap.servers"):
        conf["bootstrap.servers"] = props["bootstrap.servers"]
        origin["bootstrap.servers"] = "bootstrap.servers"
    return conf, origin


def property_origin(config, name: str) -> str:
    """The property a producer setting comes from, as the user wrote it (`producer.max.request.size`,
    `producer.override.…`, Debezium Server's `debezium.sink.kafka.producer.…`); Connect's worker form when it
    was not given."""
    return _gathered(config, None)[1].get(name, f"producer.{name}")


def producer_settings(
    config, bootstrap: str | None = None, transactional: bool | None = None
) -> dict[str, str]:
    """librdkafka settings for the output's producer (module docstring); ConfigError naming the property
    for what is refused. `transactional`: whether the output's producer is Connect's exactly-once one (its
    transactional.id is the emulator's, as Connect sets its own); a user's `transactional.id` without it is
    refused (the Java producer's sends fail without initTransactions)."""
    conf, origin = _gathered(config, bootstrap)
    server_form = config is not None and config.sink_type == "kafka"

    def refuse(name: str, why: str) -> ConfigError:
        return ConfigError(f"{origin.get(name, name)}: {why}", origin.get(name, name))

    def number(name: str) -> int:
        try:
            return int(conf[name])
        except ValueError:
            raise refuse(name, f"{conf[name]!r} is not an integer") from None

    for name, allowed in (("key.serializer", (BYTE_ARRAY,)), ("value.serializer", (BYTE_ARRAY,))):
        if server_form:  # Debezium Server sends the JSON text: a string or byte array serializer
            allowed = (BYTE_ARRAY, STRING)
        value = conf.pop(name, None)
        if value is not None and value not in allowed:
            raise refuse(name, f"{value} is not supported by this emulator; supported: {', '.join(allowed)}")
    if conf.get("partitioner.class"):
        raise refuse(
            "partitioner.class",
            "a Java partitioner cannot run here (the emulator partitions by murmur2 "
            "of the key, Kafka's default); remove it",
        )
    conf.pop("partitioner.class", None)
    if conf.get("interceptor.classes"):
        raise refuse("interceptor.classes", "producer interceptors cannot run here; remove it")
    conf.pop("interceptor.classes", None)
    ignore_keys = conf.pop("partitioner.ignore.keys", "false").lower()
    if ignore_keys != "false":
        raise refuse(
            "partitioner.ignore.keys", f"{ignore_keys} is not supported by this emulator; supported: false"
        )

    if transactional is not None and "transactional.id" in conf:
        if not transactional:
            raise refuse(
                "transactional.id",
                "a transactional producer needs exactly.once.source.support=enabled (Kafka Connect's worker "
                "property); remove it",
            )
        del conf["transactional.id"]  # Connect's exactly-once task sets its own
    for name in [k for k in conf if k in NO_EFFECT]:
        log.info("producer setting %s: no effect on the records here", origin[name])
        del conf[name]
    codec = conf.get("compression.type", "none").lower()
    for name, level_codec in CODEC_LEVELS.items():
        level = conf.pop(name, None)
        if level is not None and level_codec == codec:
            conf["compression.level"] = level
    if "buffer.memory" in conf:
        conf["queue.buffering.max.kbytes"] = str(max(1, number("buffer.memory") // 1024))
        del conf["buffer.memory"]
    elif "queue.buffering.max.kbytes" not in conf:
        conf["queue.buffering.max.kbytes"] = JAVA_BUFFER_KB
    if "request.timeout.ms" in conf and number("request.timeout.ms") > RDKAFKA_MAX_REQUEST_TIMEOUT:
        # a warning, not silence: the broker's answer is awaited 15 min at most where the Java client waits longer
        log.warning(
            "producer setting %s: %d ms, librdkafka's longest (the value given is longer)",
            origin["request.timeout.ms"],
            RDKAFKA_MAX_REQUEST_TIMEOUT,
        )
        conf["request.timeout.ms"] = str(RDKAFKA_MAX_REQUEST_TIMEOUT)
    if "delivery.timeout.ms" not in conf and "message.timeout.ms" not in conf:
        if transactional:  # librdkafka refuses a message timeout over transaction.timeout.ms (Java: 60000)
            conf["message.timeout.ms"] = conf.get("transaction.timeout.ms", "60000")
        else:
            conf["message.timeout.ms"] = JAVA_DELIVERY_TIMEOUT if server_form else CONNECT_DELIVERY_TIMEOUT
    if not server_form and "client.id" not in conf and config is not None:
        name = settings_for(config).common.name
        if name:  # Connect's task producer: "connector-producer-" + its ConnectorTaskId (`name-0`)
            conf["client.id"] = f"connector-producer-{name}-0"
    for java, rd in RENAMED.items():
        if java in conf:
            conf[rd] = conf.pop(java)
    conf.setdefault("message.max.bytes", JAVA_MAX_REQUEST_SIZE)

    # delivery: acks=all and idempotence unless the user's settings say otherwise (module docstring)
    conf.setdefault("bootstrap.servers", "localhost:9092")
    acks = conf.get("acks", "all").lower()
    acks = "all" if acks == "-1" else acks
    conf["acks"] = acks
    idem = conf.get("enable.idempotence")
    in_flight = (
        number("max.in.flight.requests.per.connection")
        if "max.in.flight.requests.per.connection" in conf
        else None
    )
    if idem is None:
        # Connect's worker: false (KAFKA-13759); a plain Java producer (Debezium Server) or Connect's
        # exactly-once task producer: true, when acks and the requests in flight allow it
        java_default = server_form or transactional
        idem = "true" if java_default and acks == "all" and (in_flight is None or in_flight <= 5) else "false"
        if idem == "false" and in_flight is None:
            conf["max.in.flight.requests.per.connection"] = "1"  # Connect's worker default
    elif idem.lower() == "true":
        if acks != "all":
            raise refuse(
                "enable.idempotence",
                f"idempotence needs acks=all (acks={acks}); the Java client refuses it too",
            )
        if in_flight is not None and in_flight > 5:
            raise refuse(
                "enable.idempotence",
                f"idempotence allows at most 5 requests in flight ({in_flight}); the Java client refuses it too",
            )
    elif in_flight is None:
        conf["max.in.flight.requests.per.connection"] = "1"  # Connect's worker default
    conf["enable.idempotence"] = idem.lower()
    conf.setdefault("partitioner", "murmur2_random")
    conf.setdefault("linger.ms", "5")  # the Java producer's default since Kafka 4.0 (librdkafka's too)
    return conf


def transactional_id(config) -> str:
    """The exactly-once producer's transactional.id: Connect's task producer's `<group.id>-<connector>-<task>`
    (`Worker.taskTransactionalId`, task 0) when the worker's `group.id` and the connector's `name` are given
    (exactly-once runs on a distributed worker, which has a group.id), else the emulator's own."""
    s = settings_for(config)
    # transactional.id and group.id: worker options outside the table (pass-through), read raw like producer.*
    group = (config.props.get("group.id") or "").strip()
    if group and s.common.name:
        default = f"{group}-{s.common.name}-0"
    else:
        default = f"dbz-emulator-{s.common.name or s.topics.prefix}"
    return config.props.get("transactional.id") or default
