"""Kafka output on librdkafka (confluent-kafka's producer, or `FastKafkaOutput` on emulator.fastkafka where it is
built, kafka_fast.py): the records Kafka Connect's worker would produce.

* key / value are the JsonConverter bytes as built (tombstones and keyless records stay ``None``);
* headers are Kafka headers.  With ``header.converter=JsonConverter`` their bytes are the JsonConverter
  bytes already in the record; with Connect's default ``SimpleHeaderConverter`` they are what that converter
  writes (``Values.convertToString``: strings raw, structs as ``{"id":1}``-like text, see
  :func:`simple_header_bytes`);
* the producer's settings are the user's Connect / Debezium Server producer properties, honoured or refused
  (:mod:`emulator.outputs.kafka_producer`): by default an idempotent producer with ``acks=all`` and
  ``partitioner=murmur2_random``, the partitioning of the Java client that Kafka Connect uses;
* topics are created on first use with Debezium's ``topic.creation.*`` settings (``default`` group and
  ``topic.creation.groups``) when they are given; otherwise the broker's auto-creation decides, as in Connect;
* ``commit()`` returns True once every record written so far has a successful delivery report, so the offsets
  may be saved.  The engine's periodic commit splits it (as the directory output's): ``commit_point()`` on the
  streaming thread closes the batch of records written since the last one, ``make_durable(batch)`` on the
  offset-commit thread waits for the delivery reports of that batch and of every batch before it, and only
  then is the offset saved; the stream goes on producing meanwhile.  If that takes longer than ``offset.flush.timeout.ms`` (Connect's default 5000) it returns
  False, as Kafka Connect's ``WorkerSourceTask.commitOffsets`` cancels that offset commit ("will try again on
  next flush interval with latest offsets"): the records stay in flight, nothing fails, the offsets wait.
  A failed delivery never gets skipped: the output raises :class:`KafkaDeliveryError` (a
  ``ConnectionError``, so the runner restarts the connector from its last saved offset after
  ``retriable.restart.connector.wait.ms``) and keeps raising until :meth:`reset` is called by that restart.

Exactly-once mode (``exactly.once.source.support=enabled``, Kafka Connect's worker property): the producer is
transactional; records and the offset record (see :class:`emulator.offsets_kafka.KafkaOffsetStore`) are
committed in one Kafka transaction, so a ``read_committed`` consumer never sees records whose offset was not
saved with them.  ``offset.flush.timeout.ms`` has no effect there (as in Connect): the transaction commit waits
up to the Java producer's ``max.block.ms`` default, and a timeout fails it.
"""

from __future__ import annotations

import logging
import threading
import time
from collections import deque

from emulator.envelope import LineRecord
from emulator.outputs.base import Output
from emulator.outputs.kafka_fast import CONFLUENT_ONLY, FastPath, fast_producer
from emulator.outputs.kafka_headers import simple_header_bytes
from emulator.outputs.kafka_producer import producer_settings, property_origin, transactional_id
from emulator.outputs.kafka_topics import TopicCreation
from emulator.records import Record
from emulator.settings import settings_for
from emulator.settings.errors import ConfigError

log = logging.getLogger("emulator.kafka")

# the record types `write` may send through a topic's route (a data plane's records carry converter bytes and
# their own header forms: never)
_ROUTED = frozenset({LineRecord, Record})

SIMPLE_HEADER_CONVERTER = "org.apache.kafka.connect.storage.SimpleHeaderConverter"

# The Java clients' defaults for what is not an offset commit: producer max.block.ms (transactions) and admin
# default.api.timeout.ms (topic creation), both 60000 ms; Connect closes a task's producer with 30 s.
CLIENT_TIMEOUT_S = 60.0
CLOSE_TIMEOUT_S = 30.0
FLUSH_TIMEOUT_MS = 5000  # offset.flush.timeout.ms without a configuration (the table's default with one)


class KafkaDeliveryError(ConnectionError):
    """A record could not be delivered: progress stops here (retriable, like a lost connection)."""

    output_failure = True  # the runner must not save offsets after it


class KafkaRecordTooLarge(ConfigError):
    """A record larger than the producer's `max.request.size`: the Java producer fails its send with
    RecordTooLargeException and Kafka Connect fails the task; sending it again cannot cure it (exit 2)."""

    output_failure = True


# ------------------------------------------------------------------------------------- configuration


def exactly_once(config) -> bool:
    """``exactly.once.source.support=enabled`` (Kafka Connect's worker property)."""
    return config is not None and settings_for(config).offsets.exactly_once


# ------------------------------------------------------------------------------------------- output


class _Batch:
    """The records written between two commit points (`commit_point`) and how many have a delivery report.
    Delivery reports are served by whichever thread polls the producer (the streaming thread between records,
    the offset-commit thread while it waits), one thread at a time: every poll, flush and transaction call
    holds the output's `poll_lock`, so a report's count needs no lock of its own (a lock per report cost
    ~0.3 µs of the ~0.8 µs a report costs; bench/README.md, Kafka)."""

    __slots__ = ("output", "gen", "start", "written", "acked")

    def __init__(self, output: KafkaOutput, start: int) -> None:
        self.output = output
        self.gen = output.gen  # the producer it was written to (reset() starts a new one)
        self.start = start  # the output's `written` when the batch began
        self.written = -1  # set when the batch is closed
        self.acked = 0

    def on_delivery(self, err, msg) -> None:
        self.acked += 1
        if err is not None:
            self.output.delivery_failed(self.gen, msg.topic(), err.str())

    @property
    def done(self) -> bool:
        return 0 <= self.written <= self.acked


class KafkaOutput(Output):
    def __init__(
        self,
        conf: dict[str, str],
        *,
        config=None,
        transactional_id: str | None = None,
        simple_headers: bool | None = None,
        topic_creation: TopicCreation | None = None,
    ) -> None:
        self.conf = dict(conf)
        self.config = config
        s = settings_for(config) if config is not None else None
        if simple_headers is None:
            simple_headers = s is not None and s.converters.header == SIMPLE_HEADER_CONVERTER
        self.simple_headers = simple_headers
        # the MySQL/MariaDB connectors send their schema-change events (topic = topic.prefix) to partition 0
        # (Debezium's SourceRecord partition), not through the partitioner
        self.schema_topic = s.topics.prefix if s is not None and s.connector in ("mysql", "mariadb") else None
        # topic.creation.* is a family of worker options outside the table (read with the rest of it)
        self.creation = (
            topic_creation if topic_creation is not None else TopicCreation(config.props if config else {})
        )
        self.transactional_id = transactional_id
        self.timeout_s = CLIENT_TIMEOUT_S  # transactions and topic creation
        self.flush_timeout_s = (s.offsets.flush_timeout_ms if s is not None else FLUSH_TIMEOUT_MS) / 1000.0
        self.known_topics: set[str] = set()
        self.failure: str | None = None
        self.failure_type: type[Exception] = KafkaDeliveryError  # what `failure` is raised as
        # errors.tolerance=all: Connect's WorkerSourceTask skips a record whose send failed (logged) and goes
        # on; its exactly-once task fails the transaction instead, and Debezium Server's Kafka sink (which
        # waits for each batch's sends) fails whatever errors.tolerance says
        self.tolerate = (
            s is not None
            and s.errors.tolerance == "all"
            and not transactional_id
            and config.sink_type != "kafka"
        )
        # whoever calls the producer's poll/flush/transaction methods (which serve delivery reports) holds it
        self.poll_lock = threading.Lock()
        self.gen = 0  # which producer: reports of a producer dropped by reset() count no more
        self.written = 0  # records produced (streaming thread only)
        # topic -> (the record headers list, its producer form): LineRecords of one table share one list
        self._routes: dict[str, tuple[list, list | None]] = {}
        self._closed: deque[_Batch] = deque()  # batches closed by commit_point, oldest first
        self._batch = _Batch(self, 0)
        self._dr = self._batch.on_delivery
        self.in_txn = False
        self._header_cache: dict[bytes, bytes | None] = {}
        self._header_lists: dict[int, tuple[list, list]] = {}
        self._admin = None
        self.producer = None
        self._make_producer()

    # -- producer lifecycle
    def _make_producer(self) -> None:
        conf = dict(self.conf)
        if self.transactional_id:
            conf["transactional.id"] = self.transactional_id
        self.producer = self._new_producer(conf)
        self.gen += 1
        self.written = 0
        self._routes.clear()
        self._closed.clear()
        self._new_batch(0)
        self.in_txn = False
        if self.transactional_id:
            try:
                with self.poll_lock:
                    self.producer.init_transactions(self.timeout_s)
            except Exception as e:
                self.producer = None
                raise KafkaDeliveryError(f"cannot initialise transactions: {e}") from None

    def _new_producer(self, conf: dict[str, str]):
        from confluent_kafka import Producer

        return Producer(conf)

    def _new_batch(self, start: int) -> None:
        """The batch the records written from now on count their delivery reports in."""
        self._batch = _Batch(self, start)
        self._dr = self._batch.on_delivery

    def reset(self) -> None:
        """Called when the connector restarts after a failure: drop what was not delivered (the connector
        sends it again from its saved offset) and start a fresh producer."""
        old = self.producer
        self.producer = None
        self._routes.clear()
        if old is not None:
            with self.poll_lock:
                try:
                    if self.in_txn:
                        old.abort_transaction(5)
                except Exception as e:  # noqa: BLE001
                    log.debug("abort on reset: %s", e)
                try:
                    old.purge()
                    old.flush(1)
                except Exception as e:  # noqa: BLE001
                    log.debug("purge on reset: %s", e)
        self.failure = None
        self.failure_type = KafkaDeliveryError
        self.known_topics.clear()  # a broker that lost its data needs them created again
        self._make_producer()

    @property
    def pending(self) -> int:
        """Records produced without a delivery report yet."""
        b = self._batch
        return sum(c.written - c.acked for c in list(self._closed)) + self.written - b.start - b.acked

    def _check(self) -> None:
        if self.failure is not None:
            raise self.failure_type(self.failure)

    def delivery_failed(self, gen: int, topic: str, why: str) -> None:
        """A delivery report with an error (a producer dropped by reset() no longer counts)."""
        if gen != self.gen:
            return
        if self.tolerate:
            log.error("failed to send a record to %s, skipped (errors.tolerance=all): %s", topic, why)
        elif self.failure is None:
            self.failure = f"delivery to {topic} failed: {why}"
            log.error("%s", self.failure)

    def _poll(self, timeout: float) -> None:
        with self.poll_lock:
            self.producer.poll(timeout)

    def _poll_if_free(self) -> None:
        """Serve the reports that arrived, unless the offset-commit thread is polling (it serves them)."""
        if self.poll_lock.acquire(False):
            try:
                self.producer.poll(0)
            finally:
                self.poll_lock.release()

    # -- topics
    def _ensure_topic(self, topic: str) -> None:
        settings = self.creation.settings_for(topic)
        if settings is None:
            return  # broker auto-creation, as Connect without topic.creation.* settings
        from confluent_kafka import KafkaError, KafkaException
        from confluent_kafka.admin import AdminClient, NewTopic

        if self._admin is None:
            self._admin = AdminClient(
                {
                    k: v
                    for k, v in self.conf.items()
                    if k in ("bootstrap.servers", "client.id") or k.startswith(("security.", "sasl.", "ssl."))
                }
            )
        # no metadata request for the topic first: brokers that auto-create topics would create it then
        settings = dict(settings)
        partitions = int(settings.pop("partitions", -1))
        rf = int(settings.pop("replication.factor", -1))
        fut = self._admin.create_topics(
            [NewTopic(topic, num_partitions=partitions, replication_factor=rf, config=settings)],
            request_timeout=self.timeout_s,
        )[topic]
        try:
            fut.result(self.timeout_s)
            log.info(
                "created topic %s (partitions=%s, replication.factor=%s, %s)", topic, partitions, rf, settings
            )
        except KafkaException as e:
            if e.args[0].code() != KafkaError.TOPIC_ALREADY_EXISTS:
                raise KafkaDeliveryError(f"cannot create topic {topic}: {e.args[0].str()}") from None
        except TimeoutError:
            raise KafkaDeliveryError(f"cannot create topic {topic}: timed out") from None

    # -- Output
    def _headers(self, headers: list[tuple[str, bytes]]) -> list[tuple[str, bytes | None]]:
        if not self.simple_headers:
            return headers
        # most records share one list (Debezium's context headers): its converted form once
        hit = self._header_lists.get(id(headers))
        if hit is not None and hit[0] is headers:
            return hit[1]
        out = []
        cache = self._header_cache
        for n, h in headers:
            b = cache.get(h, cache)
            if b is cache:
                b = simple_header_bytes(h)
                if len(cache) < 4096:
                    cache[h] = b
            out.append((n, b))
        if len(self._header_lists) < 64:
            self._header_lists[id(headers)] = (headers, out)  # holds the list: its id is not reused
        return out

    def write(self, record: Record) -> None:
        # the stream's and the snapshot's records (a LineRecord or a plain Record, the partitioner's, of a
        # topic whose headers list was seen): topic, headers and producer settled at the topic's first record;
        # everything else (data-plane records, chosen partitions, transactions, failures) goes through `_write`
        route = self._routes.get(record.topic)
        if route is None or route[0] is not record.headers or self.failure:
            return self._write(record)
        kind = type(record)
        if kind is LineRecord:
            # LineRecord.value / .key inline: two Python calls fewer a record (~1,250 instructions of ~4,350,
            # callgrind); the two slices are the only copies before librdkafka's own
            line = record._line
            vstart = record._vstart
            value = line[vstart : len(line) - record._vtail]
            key = line[7 : vstart - 9] if record._klen else None
        elif kind is Record and record.partition is None:
            value, key = record.value, record.key
        else:
            return self._write(record)
        try:
            # positional (no keyword matching, ~0.2 us): topic, value, key, partition (-1: the partitioner's),
            # callback, its alias on_delivery, timestamp (0: now), headers - the order of confluent-kafka's
            # Producer.produce (tests/test_kafka_offset_commit.py fails without the callback, test_kafka's byte
            # comparison without the headers)
            self._produce(record.topic, value, key, -1, self._dr, None, 0, route[1])
        except BufferError:
            return self._write(record)
        except Exception as e:  # noqa: BLE001 - KafkaException: refused at once
            return self._refused(record, e)  # raises, unless the record is skipped (errors.tolerance)
        self.written += 1
        if self.written & 0x3FF == 0:
            self._poll_if_free()

    def produce_line(self, topic: str, line: bytes, klen: int, vstart: int, vtail: int, headers) -> None:
        """`write(LineRecord(topic, line, klen, vstart, vtail, headers))` without the record object (the
        stream's INSERTs, UPDATEs and DELETEs, `Engine.line_producer`): ~0.5 us a record fewer. A topic's first record,
        other headers or a pending failure go through `write`'s own path with the record made."""
        route = self._routes.get(topic)
        if route is None or route[0] is not headers or self.failure:
            return self._write(LineRecord(topic, line, klen, vstart, vtail, headers))
        try:
            # as `write`: the key and value cut from the line, the same positional produce
            self._produce(
                topic,
                line[vstart : len(line) - vtail],
                line[7 : vstart - 9] if klen else None,
                -1,
                self._dr,
                None,
                0,
                route[1],
            )
        except BufferError:
            return self._write(LineRecord(topic, line, klen, vstart, vtail, headers))
        except Exception as e:  # noqa: BLE001 - KafkaException: refused at once
            return self._refused(LineRecord(topic, line, klen, vstart, vtail, headers), e)
        self.written += 1
        if self.written & 0x3FF == 0:
            self._poll_if_free()

    def produce_kv(self, topic: str, key: bytes | None, value: bytes | None, headers) -> None:
        """`write(Record(topic, key, value, headers))` without the record object (the tombstone after a DELETE
        of the stream's line path, `Dispatcher.table_line_delete`), as `produce_line`."""
        route = self._routes.get(topic)
        if route is None or route[0] is not headers or self.failure:
            return self._write(Record(topic, key, value, headers))
        try:
            self._produce(topic, value, key, -1, self._dr, None, 0, route[1])  # as `write`
        except BufferError:
            return self._write(Record(topic, key, value, headers))
        except Exception as e:  # noqa: BLE001 - KafkaException: refused at once
            return self._refused(Record(topic, key, value, headers), e)
        self.written += 1
        if self.written & 0x3FF == 0:
            self._poll_if_free()

    def _write(self, record: Record) -> None:
        self._check()
        p = self.producer
        if p is None:
            self._make_producer()
            p = self.producer
        topic = record.topic
        if topic not in self.known_topics:
            self._ensure_topic(topic)
            self.known_topics.add(topic)
        if self.transactional_id and not self.in_txn:
            with self.poll_lock:
                p.begin_transaction()
            self.in_txn = True
        headers = record.headers
        if not headers:
            headers = None
        elif not record.binary or getattr(record, "verbatim", 0) & 8:
            # JsonConverter bytes; data-plane records carry their header converter's bytes already (but the
            # default JSON form, 8)
            headers = self._headers(headers)
        part = record.partition
        if part is None and topic == self.schema_topic:
            part = 0
        while True:
            try:
                self._send(p, topic, record.value, record.key, part, headers)
                break
            except BufferError:  # librdkafka's queue is full: wait for reports to make room
                self._poll(0.05)
                self._check()
            except Exception as e:  # noqa: BLE001 - KafkaException: refused at once
                return self._refused(record, e)  # raises, unless the record is skipped (errors.tolerance)
        self.written += 1
        if type(record) in _ROUTED and part is None and not record.binary and not self.transactional_id:
            self._routes[topic] = (record.headers, headers)  # (holds the list: its id is not reused)
            self._produce = p.produce
        if self.written & 0x3FF == 0:
            self._poll_if_free()

    def _send(self, p, topic: str, value, key, part: int | None, headers) -> None:
        # part None: the partitioner, murmur2 of the key bytes as Connect's producer; else a transform's
        # (PartitionRouting, ...); -1 is librdkafka's "unassigned"
        p.produce(topic, value, key, -1 if part is None else part, self._dr, None, 0, headers)

    def _refused(self, record: Record, e: Exception) -> None:
        """librdkafka refused a record at once (`produce` raised): the same failure as a failed delivery —
        nothing after it may be committed — or, for a record over the size limit, a configuration error. The
        Java producer reports a too large record through the send's callback, so with errors.tolerance=all
        Connect skips it: so does this (returns, nothing sent)."""
        from confluent_kafka import KafkaError

        err = e.args[0] if e.args and isinstance(e.args[0], KafkaError) else None
        if err is not None and err.code() == KafkaError.MSG_SIZE_TOO_LARGE:
            name = property_origin(self.config, "max.request.size")
            limit = self.conf.get("message.max.bytes")
            size = len(record.value or b"") + len(record.key or b"")
            if self.tolerate:
                log.error(
                    "failed to send a record to %s, skipped (errors.tolerance=all): key and value %d bytes, "
                    "larger than %s (%s)",
                    record.topic,
                    size,
                    name,
                    limit,
                )
                return
            self.failure_type = KafkaRecordTooLarge
            self.failure = (
                f"{name}: a record of {record.topic} is larger than {limit} bytes (key and value "
                f"{size} bytes); Kafka Connect fails the task with RecordTooLargeException: raise {name} "
                "(and the topic's max.message.bytes)"
            )
            log.error("%s", self.failure)
            raise KafkaRecordTooLarge(self.failure, name) from None
        self.failure_type = KafkaDeliveryError
        self.failure = f"producing to {record.topic} failed: {err.str() if err is not None else e}"
        log.error("%s", self.failure)
        raise KafkaDeliveryError(self.failure) from None

    def flush(self) -> None:
        if self.producer is not None:
            self._poll_if_free()
        self._check()

    def commit(self) -> bool:
        """True once every record written so far is delivered (acks=all): the offsets may be saved.  False
        when ``offset.flush.timeout.ms`` passed first: Kafka Connect then cancels this offset commit and tries
        again at the next flush interval; the records stay in flight and nothing fails.  A failed delivery
        raises :class:`KafkaDeliveryError`.  Exactly-once (a transaction): up to the producer's
        ``max.block.ms``, and a timeout fails, as the transaction commit does in Connect."""
        txn = bool(self.transactional_id)
        timeout = self.timeout_s if txn else self.flush_timeout_s
        deadline = time.monotonic() + timeout
        while self.pending > 0 and (left := deadline - time.monotonic()) > 0:
            with self.poll_lock:
                self.producer.flush(min(left, 0.5))
            self._check()
        self._check()
        if self.pending == 0:
            self._closed.clear()  # every batch has its reports
            return True
        if txn:
            self.failure = f"{self.pending} records not delivered within {timeout:g} s"
            self._check()
        self._timed_out(self.pending, timeout)
        return False

    @staticmethod
    def _timed_out(pending: int, timeout: float) -> None:
        log.warning(
            "%d records not delivered within offset.flush.timeout.ms (%d ms): offsets not committed; "
            "will try again on next flush interval with latest offsets",
            pending,
            round(timeout * 1000),
        )

    def commit_point(self) -> _Batch | None:
        """Streaming thread, at a periodic commit: close the batch of records written since the last commit
        point; the token for `make_durable` (None: nothing written since the last commit)."""
        b = self._batch
        if self.written == b.start:
            return self._closed[-1] if self._closed else None  # nothing new: the last one still waited for
        b.written = self.written - b.start
        self._closed.append(b)
        self._new_batch(self.written)
        return b

    def make_durable(self, token: _Batch) -> bool:
        """Offset-commit thread: True once `token` and every batch before it have all their delivery reports
        (polling the producer for them meanwhile); False when ``offset.flush.timeout.ms`` passed first (the
        offsets of this commit are not saved; a later commit waits for these records again) or the producer
        was replaced by reset(). A failed delivery raises :class:`KafkaDeliveryError`."""
        deadline = time.monotonic() + self.flush_timeout_s
        closed = self._closed
        while True:
            if token.gen != self.gen:
                return False  # reset(): these records are sent again from the saved offset
            self._check()
            while closed and closed[0].done:
                if closed.popleft() is token:
                    return True
            if token not in closed:  # popped by an earlier commit (or a synchronous one)
                return True
            left = deadline - time.monotonic()
            if left <= 0:
                waiting = list(closed)
                waiting = waiting[: waiting.index(token) + 1] if token in waiting else waiting
                self._timed_out(sum(b.written - b.acked for b in waiting), self.flush_timeout_s)
                return False
            if self.producer is not None:
                self._poll(min(left, 0.05))

    def produce_offset(self, topic: str, key: bytes, value: bytes | None) -> None:
        """Exactly-once: the offset record joins the open transaction (opened if needed)."""
        if not self.in_txn:
            with self.poll_lock:
                self.producer.begin_transaction()
            self.in_txn = True
        self.producer.produce(topic, value, key, on_delivery=self._dr)
        self.written += 1

    def commit_transaction(self) -> None:
        if not self.in_txn:
            return
        self.commit()
        try:
            with self.poll_lock:
                self.producer.commit_transaction(self.timeout_s)
        except Exception as e:
            self.failure = f"transaction commit failed: {e}"
            raise KafkaDeliveryError(self.failure) from None
        self.in_txn = False

    def close(self) -> None:
        if self.producer is None:
            return
        try:
            if self.failure is None:
                if not self.commit():  # as Connect closes a task's producer: a last wait for the records
                    with self.poll_lock:
                        self.producer.flush(CLOSE_TIMEOUT_S)
                if self.in_txn:
                    self.commit_transaction()
        finally:
            if self.failure is not None and self.in_txn:
                try:
                    with self.poll_lock:
                        self.producer.abort_transaction(5)
                except Exception:  # noqa: BLE001
                    pass
            self.producer = None


def kafka_output(config, bootstrap: str | None = None, fast: bool | None = None) -> KafkaOutput:
    """The output for `config`: through emulator.fastkafka (kafka_fast.py) where it is built and loaded and no
    transaction is needed (exactly-once stays on confluent-kafka's transactional producer); `fast=False` keeps
    confluent-kafka's producer (the benchmarks' A/B)."""
    conf = producer_settings(config, bootstrap, transactional=exactly_once(config))
    txn_id = transactional_id(config) if exactly_once(config) else None
    fast = fast is not False and fast_producer() is not None
    cls = (
        FastKafkaOutput if fast and txn_id is None and not CONFLUENT_ONLY.intersection(conf) else KafkaOutput
    )
    return cls(conf, config=config, transactional_id=txn_id)


class FastKafkaOutput(FastPath, KafkaOutput):
    """KafkaOutput with its producer and hot path in C (kafka_fast.FastPath): the same records and commits."""
