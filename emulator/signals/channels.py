"""The channels signals arrive through (`signal.enabled.channels`), each giving SignalRecords.

`source`: rows inserted into the table named by `signal.data.collection`, seen in the change stream (the
connector's stream hands them over: SourceChannel.record). `file`: `signal.file`, one JSON document per line;
processed lines are removed from the file, as Debezium's FileSignalChannel does. `kafka`: Debezium's Kafka
signal channel. `in-process`: signals sent from the same process (Debezium's InProcessSignalChannel, for
embedded use: `Capture.signal(...)`).

Kafka: signals are records on `signal.kafka.topic` (default `<topic.prefix>-signal`, one partition) whose key
is the connector's `topic.prefix` and whose value is `{"type": ..., "data": {...}}`. As in Debezium, the
channel reads partition 0 directly (no consumer-group rebalance); with
`kafka.consumer.offset.commit.enabled=false` (the default) it starts at the end of the topic, so signals
sent while the connector was down are not seen; with `true` it resumes from its committed offset in the
group `signal.kafka.groupId`. `signal.consumer.*` properties pass through to the consumer.
"""

from __future__ import annotations

import collections
import json
import logging
import os
import threading
import time
from typing import Any

from emulator.settings.common import Signals
from emulator.signals.record import SignalRecord

log = logging.getLogger("emulator.signals")

SOURCE = "source"
FILE = "file"
KAFKA = "kafka"
IN_PROCESS = "in-process"
KNOWN = (SOURCE, FILE, KAFKA, IN_PROCESS)


class SourceChannel:
    """Rows of the signal table, handed over by the stream as it emits them."""

    name = SOURCE

    @staticmethod
    def record(row: dict) -> SignalRecord:
        return SignalRecord(
            "" if row.get("id") is None else str(row.get("id")),
            "" if row.get("type") is None else str(row.get("type")),
            row.get("data"),
            SOURCE,
        )


class FileChannel:
    """Debezium's FileSignalChannel: every `signal.poll.interval.ms`, read every line and empty the file."""

    name = FILE

    def __init__(self, path: str, poll_interval_s: float) -> None:
        self.path = path
        self.poll_interval_s = poll_interval_s
        self._next = 0.0

    def read(self) -> list[SignalRecord]:
        now = time.monotonic()
        if now < self._next:
            return []
        self._next = now + self.poll_interval_s
        data = self._take()
        out = []
        for line in data.split(b"\n"):
            line = line.strip()
            if not line:
                continue
            try:
                doc = json.loads(line)
                if not isinstance(doc, dict) or "type" not in doc:
                    raise ValueError("not a JSON object with id, type and data")
                out.append(
                    SignalRecord(
                        "" if doc.get("id") is None else str(doc["id"]),
                        str(doc["type"]),
                        doc.get("data"),
                        FILE,
                    )
                )
            except ValueError as e:
                log.warning("Skipped signal due to an error '%s': %s", line[:300].decode(errors="replace"), e)
        return out

    def _take(self) -> bytes:
        try:
            with open(self.path, "r+b") as f:
                data = f.read()
                if not data:
                    return b""
                # keep a last line still being written (no newline and not yet a whole JSON document)
                keep = b""
                if not data.endswith(b"\n"):
                    head, _, tail = data.rpartition(b"\n")
                    try:
                        json.loads(tail)
                    except ValueError:
                        data, keep = head + (b"\n" if head else b""), tail
                f.seek(0)
                f.truncate(0)
                if keep:
                    f.write(keep)
                f.flush()
                os.fsync(f.fileno())
                return data
        except FileNotFoundError:
            return b""
        except OSError as e:
            log.warning("signal file %s cannot be read: %s", self.path, e)
            return b""

    def close(self) -> None:
        pass


class InProcessChannel:
    """Signals sent by the embedding program (any thread), read by the capture at its next poll."""

    name = IN_PROCESS

    def __init__(self) -> None:
        self._queue: collections.deque[SignalRecord] = collections.deque()
        self._lock = threading.Lock()

    def send(self, sid: str, kind: str, data: Any = None) -> None:
        with self._lock:
            self._queue.append(SignalRecord(sid, kind, data, IN_PROCESS))

    def read(self) -> list[SignalRecord]:
        with self._lock:
            out = list(self._queue)
            self._queue.clear()
        return out

    def close(self) -> None:
        pass


class KafkaChannel:
    name = KAFKA

    def __init__(self, signals: Signals, prefix: str, props: dict[str, str]) -> None:
        """`signals`: the typed `signal.*` settings; `props`: the raw properties, for the `signal.consumer.*`
        pass-through to the consumer."""
        from confluent_kafka import OFFSET_END, Consumer, TopicPartition

        self.prefix = prefix
        self.topic = signals.kafka_topic or f"{prefix}-signal"
        bootstrap = signals.kafka_bootstrap_servers
        if not bootstrap:
            raise ValueError(
                "signal.kafka.bootstrap.servers is required when signal.enabled.channels includes kafka"
            )
        self.commit = signals.kafka_consumer_offset_commit
        conf: dict[str, Any] = {
            "bootstrap.servers": bootstrap,
            "group.id": signals.kafka_group_id or "kafka-signal",
            "enable.auto.commit": False,
            "auto.offset.reset": "earliest" if self.commit else "latest",
        }
        for k, v in props.items():
            if k.startswith("signal.consumer."):
                conf[k[len("signal.consumer.") :]] = v
        self.consumer = Consumer(conf)
        tp = TopicPartition(self.topic, 0)
        if self.commit:
            committed = self.consumer.committed([tp], timeout=10)[0]
            if committed.offset >= 0:
                tp = committed
        else:
            tp.offset = OFFSET_END
        self.consumer.assign([tp])

    def read(self) -> list[SignalRecord]:
        """Signals that arrived since the last call."""
        out: list[SignalRecord] = []
        for msg in self.consumer.consume(num_messages=100, timeout=0):
            if msg.error():
                log.warning("signal topic %s: %s", self.topic, msg.error())
                continue
            key = msg.key().decode(errors="replace") if msg.key() is not None else None
            if key != self.prefix:
                log.info(
                    "signal record at %s:%d ignored: key %r is not the topic.prefix %r",
                    self.topic,
                    msg.offset(),
                    key,
                    self.prefix,
                )
            else:
                try:
                    doc = json.loads(msg.value() or b"")
                    if not isinstance(doc, dict) or "type" not in doc:
                        raise ValueError("value is not a JSON object with type and data")
                    sid = str(doc.get("id") or f"{self.topic}:{msg.partition()}:{msg.offset()}")
                    out.append(SignalRecord(sid, str(doc["type"]), doc.get("data"), KAFKA))
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
