"""Kafka's predicates (TopicNameMatches, HasHeaderKey, RecordIsTombstone) and the `Filter` transform."""

from __future__ import annotations

from emulator.connect.record import ConnectRecord
from emulator.connect.transforms.base import Options, Predicate, Transform, register, register_predicate

P = "org.apache.kafka.connect.transforms.predicates."


@register_predicate(P + "TopicNameMatches")
class TopicNameMatches(Predicate):
    def __init__(self, opts: Options) -> None:
        super().__init__(opts)
        opts.nonempty("pattern")
        self.pattern = opts.regex("pattern", required=True)

    def test(self, r: ConnectRecord) -> bool:
        return r.topic is not None and self.pattern.fullmatch(r.topic) is not None


@register_predicate(P + "HasHeaderKey")
class HasHeaderKey(Predicate):
    def __init__(self, opts: Options) -> None:
        super().__init__(opts)
        self.name = opts.nonempty("name")

    def test(self, r: ConnectRecord) -> bool:
        return any(h[0] == self.name for h in r.headers)


@register_predicate(P + "RecordIsTombstone")
class RecordIsTombstone(Predicate):
    def test(self, r: ConnectRecord) -> bool:
        return r.value is None


@register("org.apache.kafka.connect.transforms.Filter")
class Filter(Transform):
    wire_safe = True  # the topic / the whole record / header names only

    def apply(self, r: ConnectRecord) -> ConnectRecord | None:
        return None
