"""The Kafka output's producer and hot path in C: `emulator.fastkafka` (emulator/fastkafka.c), optional.

Why: per streamed record confluent-kafka's `produce` converts the headers tuple by tuple and every delivery
report builds a `Message` and calls a Python callback; the output also slices the key and value out of the
line (two copies) before librdkafka copies them again (docs/kafka-producer.md, "Session 20"). fastkafka's
`Producer` owns its own `rd_kafka_t`, made from the same librdkafka settings, on the librdkafka confluent-kafka
loaded (found in /proc/self/maps after importing confluent_kafka.cimpl: the same library, not a second copy):
`produce_line` cuts the key and value out of the line in C, adds the headers in C, and a delivery report only
counts in its batch (`new_batch`), with no Python call unless it failed (then `delivery_failed` is called by
the poll or flush that served it, before the batch may count the record).

`FastPath` is mixed into `KafkaOutput` (kafka.py's `FastKafkaOutput`): the same routes, batches, commits and
failures; only the producer object, the batch object and the three hot paths differ. Not for exactly-once
(transactions stay on confluent-kafka's producer). `DBZ_EMULATOR_PURE_PYTHON=1`, a build without a compiler or
a librdkafka older than 1.6 (no `rd_kafka_produceva`) leave every output on confluent-kafka.
"""

from __future__ import annotations

import os
import weakref

from emulator.envelope import LineRecord
from emulator.records import Record

# fastkafka.c's FASTKAFKA_VERSION: a build of an older source is not used
VERSION = 1
PURE = os.environ.get("DBZ_EMULATOR_PURE_PYTHON", "") in ("1", "true")

# settings confluent-kafka's Producer handles itself (callbacks, its report filter), which librdkafka does not
# know: an output given one stays on confluent-kafka, which refuses them as before (from a properties file they
# are strings where it wants a bool or a callable)
CONFLUENT_ONLY = frozenset(
    {"delivery.report.only.error", "on_delivery", "error_cb", "throttle_cb", "stats_cb", "logger", "oauth_cb"}
)

_state: dict[str, object] = {}  # "module": the loaded fastkafka, or None once it is known to be unavailable


def _librdkafka_path() -> str | None:
    """The file of the librdkafka confluent-kafka's extension is linked to (Linux: the process's maps)."""
    import confluent_kafka.cimpl  # noqa: F401 - maps the library into the process

    try:
        with open("/proc/self/maps", encoding="utf-8", errors="replace") as f:
            for line in f:
                path = line.split(None, 5)[-1].strip() if line.count(" ") >= 5 else ""
                if path.startswith("/") and "/librdkafka" in path:
                    return path
    except OSError:
        return None
    return None


def fast_producer():
    """The loaded `emulator.fastkafka` module, or None (not built, an older build, PURE, no librdkafka found)."""
    if "module" in _state:
        return _state["module"]
    mod = None
    if not PURE:
        try:
            from emulator import fastkafka
        except ImportError:
            fastkafka = None
        path = _librdkafka_path() if getattr(fastkafka, "VERSION", None) == VERSION else None
        if path is not None:
            from confluent_kafka import KafkaError, KafkaException

            try:
                # make_error: what confluent-kafka's produce raises for a refused record, so KafkaOutput's
                # `_refused` reads the same error code
                fastkafka.load(path, lambda code: KafkaException(KafkaError(code)))
                mod = fastkafka
            except ImportError:
                mod = None
    _state["module"] = mod
    return mod


def _as_confluent_kafka(conf: dict[str, str]) -> dict[str, str]:
    """`conf` with the client software name and version confluent-kafka's Producer sets before the user's settings
    (its cimpl: "confluent-kafka-python", "<its version>-rdkafka-<librdkafka's>"), so the broker sees the same
    client in ApiVersions whichever producer runs."""
    import confluent_kafka

    return {
        "client.software.name": "confluent-kafka-python",
        "client.software.version": f"{confluent_kafka.version()[0]}-rdkafka-{confluent_kafka.libversion()[0]}",
        **conf,
    }


class FastPath:
    """KafkaOutput's producer, batches and hot paths on `fastkafka.Producer` (mixed in before KafkaOutput)."""

    def _new_producer(self, conf: dict[str, str]):
        gen = self.gen + 1  # the generation `_make_producer` gives this producer
        ref = weakref.ref(self)  # the producer holds the callback: no cycle through a C object

        def failed(topic: str, why: str) -> None:
            out = ref()
            if out is not None:
                out.delivery_failed(gen, topic, why)

        try:
            p = fast_producer().Producer(_as_confluent_kafka(conf), failed)
        except ValueError as e:  # librdkafka refused a setting: as confluent-kafka reports it
            from confluent_kafka import KafkaError, KafkaException

            raise KafkaException(KafkaError(KafkaError._INVALID_ARG, str(e))) from None
        self._cproduce = p.produce
        self._cline = p.produce_line
        return p

    def _new_batch(self, start: int) -> None:
        self._batch = self.producer.new_batch(self.gen, start)

    def _send(self, p, topic: str, value, key, part: int | None, headers) -> None:
        p.produce(topic, value, key, -1 if part is None else part, headers)

    def write(self, record: Record) -> None:
        # KafkaOutput.write's routes and fallbacks; the producer's own produce / produce_line
        route = self._routes.get(record.topic)
        if route is None or route[0] is not record.headers or self.failure:
            return self._write(record)
        kind = type(record)
        try:
            if kind is LineRecord:
                r = record
                self._cline(r.topic, r._line, r._klen, r._vstart, r._vtail, route[1])
            elif kind is Record and record.partition is None:
                self._cproduce(record.topic, record.value, record.key, -1, route[1])
            else:
                return self._write(record)
        except BufferError:
            return self._write(record)
        except Exception as e:  # noqa: BLE001 - KafkaException: refused at once
            return self._refused(record, e)
        self.written += 1
        if self.written & 0x3FF == 0:
            self._poll_if_free()

    def produce_line(self, topic: str, line: bytes, klen: int, vstart: int, vtail: int, headers) -> None:
        route = self._routes.get(topic)
        if route is None or route[0] is not headers or self.failure:
            return self._write(LineRecord(topic, line, klen, vstart, vtail, headers))
        try:
            self._cline(topic, line, klen, vstart, vtail, route[1])  # key and value cut in C
        except BufferError:
            return self._write(LineRecord(topic, line, klen, vstart, vtail, headers))
        except Exception as e:  # noqa: BLE001 - KafkaException: refused at once
            return self._refused(LineRecord(topic, line, klen, vstart, vtail, headers), e)
        self.written += 1
        if self.written & 0x3FF == 0:
            self._poll_if_free()

    def produce_kv(self, topic: str, key: bytes | None, value: bytes | None, headers) -> None:
        route = self._routes.get(topic)
        if route is None or route[0] is not headers or self.failure:
            return self._write(Record(topic, key, value, headers))
        try:
            self._cproduce(topic, value, key, -1, route[1])
        except BufferError:
            return self._write(Record(topic, key, value, headers))
        except Exception as e:  # noqa: BLE001 - KafkaException: refused at once
            return self._refused(Record(topic, key, value, headers), e)
        self.written += 1
        if self.written & 0x3FF == 0:
            self._poll_if_free()
