"""Debezium's Kafka signal channel (`signal.enabled.channels=kafka`).

Signals are records on `signal.kafka.topic` (default `<topic.prefix>-signal`, one partition) whose key is
the connector's `topic.prefix` and whose value is `{"type": ..., "data": {...}}`. As in Debezium, the
channel reads partition 0 directly (no consumer-group rebalance); with
`kafka.consumer.offset.commit.enabled=false` (the default) it starts at the end of the topic, so signals
sent while the connector was down are not seen; with `true` it resumes from its committed offset in the
group `signal.kafka.groupId`. `signal.consumer.*` properties pass through to the consumer.
"""

from __future__ import annotations

import json
import logging
from typing import Any

log = logging.getLogger("emulator.signals")


class KafkaSignalChannel:
    def __init__(self, config, prefix: str) -> None:
        from confluent_kafka import OFFSET_END, Consumer, TopicPartition

        get = config.get
        self.prefix = prefix
        self.topic = get("signal.kafka.topic") or f"{prefix}-signal"
        bootstrap = get("signal.kafka.bootstrap.servers")
        if not bootstrap:
            raise ValueError("signal.kafka.bootstrap.servers is required when signal.enabled.channels "
                             "includes kafka")
        self.commit = str(get("kafka.consumer.offset.commit.enabled") or "").lower() == "true"
        conf: dict[str, Any] = {
            "bootstrap.servers": bootstrap,
            "group.id": get("signal.kafka.groupId") or "kafka-signal",
            "enable.auto.commit": False,
            "auto.offset.reset": "earliest" if self.commit else "latest",
        }
        for k, v in (getattr(config, "props", {}) or {}).items():
            if k.startswith("signal.consumer."):
                conf[k[len("signal.consumer."):]] = v
        self.consumer = Consumer(conf)
        tp = TopicPartition(self.topic, 0)
        if self.commit:
            committed = self.consumer.committed([tp], timeout=10)[0]
            if committed.offset >= 0:
                tp = committed
        else:
            tp.offset = OFFSET_END
        self.consumer.assign([tp])

    def poll(self) -> list[tuple[str, str, Any]]:
        """Signals that arrived since the last call: (id, type, data)."""
        out: list[tuple[str, str, Any]] = []
        for msg in self.consumer.consume(num_messages=100, timeout=0):
            if msg.error():
                log.warning("signal topic %s: %s", self.topic, msg.error())
                continue
            key = msg.key().decode(errors="replace") if msg.key() is not None else None
            if key != self.prefix:
                log.info("signal record at %s:%d ignored: key %r is not the topic.prefix %r",
                         self.topic, msg.offset(), key, self.prefix)
            else:
                try:
                    doc = json.loads(msg.value() or b"")
                    if not isinstance(doc, dict) or "type" not in doc:
                        raise ValueError("value is not a JSON object with type and data")
                    sid = str(doc.get("id") or f"{self.topic}:{msg.partition()}:{msg.offset()}")
                    out.append((sid, str(doc["type"]), doc.get("data")))
                except ValueError as e:
                    log.warning("signal record at %s:%d skipped: %s", self.topic, msg.offset(), e)
            if self.commit:
                self.consumer.commit(message=msg, asynchronous=False)
        return out

    def close(self) -> None:
        try:
            self.consumer.close()
        except Exception:  # closing during shutdown must not mask the real error
            pass
