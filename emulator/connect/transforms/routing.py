"""Topic and partition routing: Kafka's RegexRouter and TimestampRouter, Debezium's ByLogicalTableRouter and
PartitionRouting."""

from __future__ import annotations

import re
from decimal import Decimal
from typing import Any

from emulator.connect.record import ConnectRecord
from emulator.connect.schema import Field, Schema
from emulator.connect.transforms.base import (
    Options,
    Transform,
    TransformError,
    fget,
    field_of,
    is_envelope,
    java_replacement,
    register,
    replace_first,
    require_struct,
)
from emulator.connect.transforms.dateformat import simple_date_format
from emulator.connect.transforms.murmur import hash_int, hash_string
from emulator.javahash import string_hash
from emulator.naming import schema_name_adjuster

K = "org.apache.kafka.connect.transforms."
D = "io.debezium.transforms."


def _retopic(r: ConnectRecord, topic: str) -> ConnectRecord:
    return ConnectRecord(
        topic, r.partition, r.key_schema, r.key, r.value_schema, r.value, r.headers, r.timestamp
    )


@register(K + "RegexRouter")
class RegexRouter(Transform):
    wire_safe = True  # the topic / the whole record / header names only

    def __init__(self, opts: Options) -> None:
        super().__init__(opts)
        self.regex = opts.regex("regex", required=True)
        self.replacement = java_replacement(opts.str("replacement", required=True))
        self.cache: dict[str, str | None] = {}

    def apply(self, r: ConnectRecord) -> ConnectRecord | None:
        topic = r.topic
        new = self.cache.get(topic, "")
        if new == "":
            new = replace_first(self.regex, self.replacement, topic)
            if len(self.cache) < 4096:
                self.cache[topic] = new
        return r if new is None else _retopic(r, new)


@register(K + "TimestampRouter")
class TimestampRouter(Transform):
    def __init__(self, opts: Options) -> None:
        super().__init__(opts)
        self.topic_format = opts.str("topic.format", "${topic}-${timestamp}")
        self.ts_format = opts.str("timestamp.format", "yyyyMMdd")
        try:
            simple_date_format(self.ts_format, 0)
        except ValueError as e:
            raise opts.fail(
                "timestamp.format",
                f"pattern letter '{e}' is not supported by this emulator "
                "(supported: yyyy yy MM dd HH mm ss SSS, quoted text)",
            ) from None

    def apply(self, r: ConnectRecord) -> ConnectRecord | None:
        if r.timestamp is None:
            raise TransformError(f"Timestamp missing on record (topic {r.topic})")
        ts = simple_date_format(self.ts_format, r.timestamp)
        return _retopic(r, self.topic_format.replace("${topic}", r.topic).replace("${timestamp}", ts))


def _as_is(name: str) -> str:
    return name


@register(D + "ByLogicalTableRouter")
class ByLogicalTableRouter(Transform):
    def __init__(self, opts: Options) -> None:
        super().__init__(opts)
        self.topic_regex = opts.regex("topic.regex", required=True)
        self.topic_replacement = java_replacement(opts.str("topic.replacement", required=True))
        self.enforce = opts.bool("key.enforce.uniqueness", True)
        key_regex = (opts.str("key.field.regex") or "").strip()
        self.key_regex = opts.regex("key.field.regex") if key_regex else None
        self.key_replacement = None
        if self.key_regex is not None:
            rep = (opts.str("key.field.replacement") or "").strip()
            if not rep:
                raise opts.fail(
                    "key.field.replacement",
                    "key.field.replacement must be non-empty if key.field.regex is set.",
                )
            self.key_replacement = java_replacement(opts.str("key.field.replacement"))
        self.key_field = opts.str("key.field.name", "__dbz__physicalTableIdentifier")
        mode = opts.enum("schema.name.adjustment.mode", ("none", "avro", "avro_unicode"), "none")
        # the new Key / Value / Envelope schema names go through the connectors' SchemaNameAdjuster (Debezium's
        # updateKeySchema / updateEnvelopeSchema: `schemaNameAdjuster.adjust(newTopicName + ".Key")`, ...)
        self.adjust = schema_name_adjuster(mode) or _as_is
        opts.int("logical.table.cache.size", 16)
        self.topics: dict[str, str | None] = {}
        self.key_ids: dict[str, str] = {}
        self.key_schemas: dict[int, tuple[Schema, Schema]] = {}
        self.env_schemas: dict[int, tuple[Schema, Schema]] = {}

    def apply(self, r: ConnectRecord) -> ConnectRecord | None:
        old = r.topic
        new = self.topics.get(old, "")
        if new == "":
            new = replace_first(self.topic_regex, self.topic_replacement, old)
            self.topics[old] = new
        if new is None:
            return r
        if not new:
            return r  # Debezium logs a warning and keeps the record
        key_schema, key = None, None
        if r.key is not None:
            if not isinstance(r.key, dict):
                require_struct(r.key, "Updating schema", r.key_schema)  # Java's class name
            key_schema = self._key_schema(r.key_schema, new)
            key = dict(r.key)
            if self.enforce:
                key[self.key_field] = self._physical_id(old)
        if r.value is None or not is_envelope(r):
            return ConnectRecord(
                new, r.partition, key_schema, key, r.value_schema, r.value, r.headers, r.timestamp
            )
        env_schema = self._envelope_schema(r.value_schema, new)
        value = {}
        for f in r.value_schema.fields:
            v = fget(f, r.value)
            if f.name in ("before", "after") and v is not None:
                v = dict(v)
            value[f.name] = v
        return ConnectRecord(new, r.partition, key_schema, key, env_schema, value, r.headers, r.timestamp)

    def _physical_id(self, topic: str) -> str:
        if self.key_regex is None:
            return topic
        hit = self.key_ids.get(topic)
        if hit is None:
            hit = replace_first(self.key_regex, self.key_replacement, topic)
            if hit is None:
                return topic  # not cached, as Debezium
            self.key_ids[topic] = hit
        return hit

    def _key_schema(self, old: Schema, topic: str) -> Schema:
        hit = self.key_schemas.get(id(old))
        if hit is None or hit[0] is not old:
            fields = list(old.fields)
            if self.enforce:
                fields.append(Field(self.key_field, Schema("string")))
            new = Schema(
                "struct",
                optional=old.optional,
                name=self.adjust(topic + ".Key"),
                version=old.version,
                doc=old.doc,
                parameters=old.parameters,
                fields=fields,
            )
            hit = (old, new)
            self.key_schemas[id(old)] = hit
        return hit[1]

    def _envelope_schema(self, old: Schema, topic: str) -> Schema:
        hit = self.env_schemas.get(id(old))
        if hit is None or hit[0] is not old:
            ov = field_of(old, "before").schema
            value = Schema(
                "struct",
                optional=ov.optional,
                name=self.adjust(topic + ".Value"),
                version=ov.version,
                doc=ov.doc,
                parameters=ov.parameters,
                fields=list(ov.fields),
            )
            fields = [Field(f.name, value if f.name in ("before", "after") else f.schema) for f in old.fields]
            new = Schema(
                "struct",
                optional=old.optional,
                name=self.adjust(topic + ".Envelope"),
                version=old.version,
                doc=old.doc,
                parameters=old.parameters,
                fields=fields,
            )
            hit = (old, new)
            self.env_schemas[id(old)] = hit
        return hit[1]


# ------------------------------------------------------------------------------------ PartitionRouting


def _int32(x: int) -> int:
    x &= 0xFFFFFFFF
    return x - (1 << 32) if x >= 1 << 31 else x


def java_hash_code(schema: Schema | None, value: Any) -> int:
    """`Object.hashCode()` of a Connect value of this schema (PartitionRouting's `java` hash)."""
    t = schema.type if schema is not None else None
    if isinstance(value, bool):
        return 1231 if value else 1237
    if isinstance(value, str):
        return _int32(string_hash(value))
    if isinstance(value, int) and t in ("int8", "int16", "int32"):
        return _int32(value)
    if isinstance(value, int) and t == "int64":
        v = value & 0xFFFFFFFFFFFFFFFF
        return _int32(v ^ (v >> 32))
    if isinstance(value, float) and t == "double":
        import struct

        bits = struct.unpack(">Q", struct.pack(">d", value))[0]
        return _int32(bits ^ (bits >> 32))
    if isinstance(value, float) and t == "float":
        import struct

        return _int32(struct.unpack(">i", struct.pack(">f", value))[0])
    kind = "a decimal" if isinstance(value, Decimal) else f"a {t or type(value).__name__}"
    raise TransformError(
        f"PartitionRouting: hashing {kind} value the way Java's hashCode does is not supported "
        "by this emulator"
    )


@register(D + "partitions.PartitionRouting")
class PartitionRouting(Transform):
    in_place_headers = "a new record, the same headers object"  # emulator.connect.shared_headers

    def __init__(self, opts: Options) -> None:
        super().__init__(opts)
        if opts.raw("partition.payload.fields") is None:
            raise opts.fail("partition.payload.fields", "a value is required")
        self.fields = opts.list("partition.payload.fields")
        if not self.fields or any(not f for f in self.fields):
            raise opts.fail("partition.payload.fields", "must not contain empty elements")
        self.num = opts.int("partition.topic.num", required=True)
        if self.num <= 0:
            raise opts.fail("partition.topic.num", "must be a positive integer")
        # HashFunction.parse: anything but "murmur" (case-insensitive) is the java hash, as in Debezium
        self.murmur = (opts.str("partition.hash.function") or "java").strip().lower() == "murmur"

    def _value(self, path: str, envelope: dict, schema: Schema) -> tuple[Schema | None, Any]:
        parts = [p.strip() for p in re.split(r"\.", path)]
        cur, cur_schema = envelope, schema
        for i, name in enumerate(parts):
            if name == "change" and i < len(parts) - 1:
                name = "before" if envelope.get("op") == "d" else "after"
            f = field_of(cur_schema, name) if cur_schema is not None else None
            if f is None:
                return None, None  # DataException: the field is simply not used
            v = fget(f, cur)
            if i == len(parts) - 1:
                return f.schema, v
            if v is None:
                raise TransformError(f"Unprocessable message {envelope}")
            cur, cur_schema = v, f.schema
        return None, None

    def apply(self, r: ConnectRecord) -> ConnectRecord | None:
        if r.value is None or not is_envelope(r):
            return r
        envelope = r.value
        if envelope.get("op") in (None, "m", "t"):  # generic logical-decoding messages and truncates
            return r
        total = 0
        found = False
        for path in self.fields:
            s, v = self._value(path, envelope, r.value_schema)
            if v is not None:
                found = True
                if self.murmur:
                    h = hash_string(v) if isinstance(v, str) else hash_int(java_hash_code(s, v))
                else:
                    h = java_hash_code(s, v)
                total = _int32(total + h)
        if not found:
            return r
        h = total & 0x7FFFFFFF
        if h == 0x7FFFFFFF:
            h = 0
        return ConnectRecord(
            r.topic, h % self.num, r.key_schema, r.key, r.value_schema, r.value, r.headers, r.timestamp
        )
