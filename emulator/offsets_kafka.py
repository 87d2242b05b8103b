"""Connector offsets in a Kafka topic (`offset.storage.topic`), like Kafka Connect's KafkaOffsetBackingStore.

Records are Connect's: key `["<connector name>",{<source partition>}]` and value `{<source offset>}`, both
JSON without schemas (the worker's internal JsonConverter), a null value deleting the offset.  The topic is
created when missing with `cleanup.policy=compact`, `offset.storage.partitions` (Connect's default 25) and
`offset.storage.replication.factor` (default -1: the broker's default; Connect's is 3).

`load()` reads the topic from the beginning up to the end of every partition (end-of-partition events come
from fetch responses, so brokers whose ListOffsets is wrong are read correctly too) and keeps the last value
for this connector's key.  `save()` produces and waits for the acknowledgement at most
`offset.flush.timeout.ms`; in exactly-once mode it adds the offset record to the output's open transaction
and commits that transaction.

An offset write that is not acknowledged in time, or fails, does not stop the connector: as Connect's
`WorkerSourceTask.commitOffsets` does ("Timed out waiting to flush offsets to storage; will try again on next
flush interval with latest offsets"), `save()` logs it and returns False, the connector is not told the
offset is committed (PostgreSQL's slot stays where it was), and the next interval writes the latest offset.
A record still in flight may land later; it is keyed like the next one, so compaction keeps the newer.
"""

from __future__ import annotations

import logging
import time
import uuid
from typing import Any

import orjson

from emulator.offsets import OffsetStore

log = logging.getLogger("emulator.offsets")


def _client_conf(conf: dict[str, str]) -> dict[str, str]:
    return {
        k: v
        for k, v in conf.items()
        if k in ("bootstrap.servers", "client.id") or k.startswith(("security.", "sasl.", "ssl."))
    }


class KafkaOffsetStore(OffsetStore):
    def __init__(
        self,
        conf: dict[str, str],
        topic: str,
        name: str,
        partition: dict[str, Any],
        *,
        partitions: int = 25,
        replication_factor: int = -1,
        output=None,
        timeout_s: float = 30.0,
        flush_timeout_s: float = 5.0,
    ) -> None:
        self.conf = _client_conf(conf)
        self.topic = topic
        self.name = name
        self.partition = partition
        self.key = orjson.dumps([name, partition])
        self.partitions = partitions
        self.replication_factor = replication_factor
        self.output = output  # a transactional KafkaOutput in exactly-once mode
        self.timeout_s = timeout_s  # reading and creating the topic at start
        self.flush_timeout_s = flush_timeout_s  # one offset write: offset.flush.timeout.ms (Connect's 5000)
        self._producer = None
        self._last: bytes | None = None
        self._failure: str | None = None

    def _ensure_topic(self) -> int:
        from confluent_kafka import KafkaError, KafkaException
        from confluent_kafka.admin import AdminClient, NewTopic

        admin = AdminClient(self.conf)
        md = admin.list_topics(timeout=self.timeout_s)  # all topics: asking for one may auto-create it
        t = md.topics.get(self.topic)
        if t is not None and t.error is None and t.partitions:
            return len(t.partitions)
        fut = admin.create_topics(
            [
                NewTopic(
                    self.topic,
                    num_partitions=self.partitions,
                    replication_factor=self.replication_factor,
                    config={"cleanup.policy": "compact"},
                )
            ],
            request_timeout=self.timeout_s,
        )[self.topic]
        try:
            fut.result(self.timeout_s)
        except KafkaException as e:
            if e.args[0].code() != KafkaError.TOPIC_ALREADY_EXISTS:
                raise
        md = admin.list_topics(self.topic, timeout=self.timeout_s)
        return len(md.topics[self.topic].partitions)

    def read_all(self) -> dict[bytes, bytes | None]:
        """Every key's last value in the offsets topic."""
        from confluent_kafka import OFFSET_BEGINNING, Consumer, KafkaError, TopicPartition

        n = self._ensure_topic()
        c = Consumer(
            {
                **self.conf,
                "group.id": f"dbz-emulator-offsets-{uuid.uuid4()}",
                "enable.auto.commit": False,
                "enable.partition.eof": True,
                "isolation.level": "read_committed",
            }
        )
        try:
            c.assign([TopicPartition(self.topic, p, OFFSET_BEGINNING) for p in range(n)])
            done: set[int] = set()
            latest: dict[bytes, bytes | None] = {}
            deadline = time.monotonic() + self.timeout_s
            while len(done) < n:
                if time.monotonic() > deadline:
                    raise ConnectionError(f"offsets topic {self.topic}: timed out reading to its end")
                msg = c.poll(0.2)
                if msg is None:
                    continue
                if msg.error() is not None:
                    if msg.error().code() == KafkaError._PARTITION_EOF:
                        done.add(msg.partition())
                        continue
                    raise ConnectionError(f"offsets topic {self.topic}: {msg.error().str()}")
                done.discard(msg.partition())
                if msg.key() is not None:
                    latest[msg.key()] = msg.value()
            return latest
        finally:
            c.close()

    def load(self) -> dict[str, Any] | None:
        latest = self.read_all()
        value = None
        for key, v in latest.items():
            try:
                if orjson.loads(key) == [self.name, self.partition]:
                    value = v
            except orjson.JSONDecodeError:
                continue
        if value is None:
            return None
        self._last = value
        return orjson.loads(value)

    @property
    def saves_off_thread(self) -> bool:
        """`save` may run on the engine's offset-commit thread (its own producer); not in exactly-once mode,
        where the offset joins the output's transaction on the streaming thread."""
        return self.output is None

    def _on_delivery(self, err, msg) -> None:  # noqa: ARG002
        if err is not None:
            self._failure = f"offset record to {self.topic} failed: {err.str()}"

    def save(self, offset: dict[str, Any]) -> bool:
        blob = orjson.dumps(offset)
        out = self.output
        if out is not None and out.transactional_id:
            if blob != self._last or out.in_txn:
                out.produce_offset(self.topic, self.key, blob)
                out.commit_transaction()
            self._last = blob
            return True
        if blob == self._last:
            return True
        if self._producer is None:
            from confluent_kafka import Producer

            self._producer = Producer(
                {
                    **self.conf,
                    "enable.idempotence": True,
                    "acks": "all",
                    "partitioner": "murmur2_random",
                    "linger.ms": 0,
                }
            )
        self._failure = None
        self._producer.produce(self.topic, blob, self.key, on_delivery=self._on_delivery)
        left = self._producer.flush(self.flush_timeout_s)
        if self._failure is not None:
            log.error("%s; will try again on the next flush interval with the latest offset", self._failure)
            self._producer = None  # a failed delivery can leave an idempotent producer fenced: a fresh one
            return False
        if left:
            log.error(
                "Timed out waiting to flush offsets to %s (offset.flush.timeout.ms %d ms); will try again on "
                "the next flush interval with the latest offset",
                self.topic,
                self.flush_timeout_s * 1000,
            )
            return False
        self._last = blob
        return True
