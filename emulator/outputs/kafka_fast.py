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
VERSION = 2
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
    """KafkaOutput's producer, batches and hot paths on `fastkafka.Producer` (mixed in before KafkaOutput).

    The dispatcher's line gates (`Engine.line_producer`: `produce_line`, then its `__self__.produce_kv`) call
    the C `fastkafka.Router` straight: the route checks `produce_line` / `produce_kv` made in Python (the
    output's `_routes`, the headers list's identity, no pending failure), the count and the poll every 1,024
    records are in C (fastkafka_route.c), ~1,900 of ~7,955 main-thread instructions a record in Python before
    (docs/kafka-producer.md, "Session 21"). The router reads the output's own `_routes` dict; `written` and
    whether `failure` is set live in the router (properties here), so they hold across `reset()` — the
    dispatcher keeps the bound method it was given at start. What the router does not produce (a topic's first
    record, other headers, a failure pending, a refusal) comes back to `_line_fallback` / `_kv_fallback`,
    which take the general path exactly as the Python route did."""

    def __init__(self, conf: dict[str, str], **kw) -> None:
        ref = weakref.ref(self)  # the router holds these: no cycle through a C object

        def fallback_line(topic, line, klen, vstart, vtail, headers, exc) -> None:
            return ref()._fallback(LineRecord(topic, line, klen, vstart, vtail, headers), exc)

        def fallback_kv(topic, key, value, headers, exc) -> None:
            return ref()._fallback(Record(topic, key, value, headers), exc)

        def poll() -> None:
            ref()._poll_if_free()

        # the routes dict is KafkaOutput's, made by its __init__: bound after it (nothing is produced before)
        self._router = fast_producer().Router({}, fallback_line, fallback_kv, poll)
        super().__init__(conf, **kw)
        self._router.routes = self._routes
        # instance attributes: the dispatcher takes the router's bound methods (`produce_line.__self__` is the
        # router, whose produce_kv the delete gate takes)
        self.produce_line = self._router.produce_line
        self.produce_kv = self._router.produce_kv

    @property
    def written(self) -> int:
        return self._router.written

    @written.setter
    def written(self, n: int) -> None:
        self._router.written = n

    @property
    def failure(self) -> str | None:
        return self._failure

    @failure.setter
    def failure(self, why: str | None) -> None:
        self._failure = why
        self._router.failed = why is not None  # the router produces nothing while a failure is pending

    def _fallback(self, record: Record, exc: BaseException | None) -> None:
        # the Python route's own fallbacks: no route (or a failure pending) or a full queue -> the general path;
        # a refusal -> `_refused` (raises, unless errors.tolerance skips it)
        if exc is None or isinstance(exc, BufferError):
            return self._write(record)
        if not isinstance(exc, Exception):
            raise exc
        return self._refused(record, exc)

    def _new_producer(self, conf: dict[str, str]):
        gen = self.gen + 1  # the generation `_make_producer` gives this producer
        ref = weakref.ref(self)  # the producer holds the callback: no cycle through a C object

        def failed(topic: str, why: str) -> None:
            out = ref()
            if out is not None:
                out.delivery_failed(gen, topic, why)

        self._router.producer = None  # until the new one is made (reset(): the old one is purged)
        try:
            p = fast_producer().Producer(_as_confluent_kafka(conf), failed)
        except ValueError as e:  # librdkafka refused a setting: as confluent-kafka reports it
            from confluent_kafka import KafkaError, KafkaException

            raise KafkaException(KafkaError(KafkaError._INVALID_ARG, str(e))) from None
        self._cproduce = p.produce
        self._cline = p.produce_line
        self._router.producer = p
        return p

    def _new_batch(self, start: int) -> None:
        self._batch = self.producer.new_batch(self.gen, start)

    def _send(self, p, topic: str, value, key, part: int | None, headers) -> None:
        p.produce(topic, value, key, -1 if part is None else part, headers)

    def write(self, record: Record) -> None:
        # KafkaOutput.write's routes and fallbacks (the emitted records: the record itself to the general path);
        # the producer's own produce / produce_line
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
        router = self._router
        router.written += 1
        if router.written & 0x3FF == 0:
            self._poll_if_free()
