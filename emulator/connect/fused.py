"""Fused data-plane paths: the commonest chains done in one step, from the connector's parts to the bytes.

`plain_avro`: no transform, key and value through AvroConverters: a table record (or transaction / heartbeat
record) goes from its `StructuredRecord` to the Confluent wire bytes through the per-(topic, schema)
generated writers, with no `ConnectRecord` and no converter dispatch.

`plain_unwrap`: the plain unwrap (`ExtractNewRecordState` with no option that changes a record, no predicate,
key and value through wire-mode converters): a create / update / read table record goes from its
`StructuredRecord` straight to a `ConvertedRecord` of the `after` payload under the unwrapped schema — no
`ConnectRecord` made, no stage dispatch. It gives what the general
path (`DataPlane.apply`: from_structured_wire, the stage, the converters) gives for them; everything else
(deletes, tombstones, other record kinds, a converter that raises) takes that path.
Why: the unwrap + schemaless JSON chain is most users' and must cost no more than the raw envelope.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from emulator.connect.converters.avro_converter import AvroConverter
from emulator.connect.converters.json_converter import JsonConverter
from emulator.connect.record import HEADER_LISTS, connect_headers
from emulator.connect.transforms.unwrap import ExtractNewRecordState
from emulator.records import ConvertedRecord, Record, StructuredRecord


def install(plane: Any, wire: Any) -> None:
    """Give `plane` a fused `apply` where its configuration has one; `wire`: its wire-mode converters."""
    fused = plain_unwrap(plane, wire) or plain_avro(plane, wire)
    if fused is not None:
        plane.apply = fused


def bytes_writer(conv: Any, topic: str, schema: Any) -> Callable[[Any], bytes]:
    """`conv.from_connect_data(topic, None, schema, v)` for non-null values, its lookups (and an Avro schema's
    registration) done now: JsonConverter's compiled writer, AvroConverter's wire header + generated writer,
    any other converter through its own method."""
    if conv.__class__ is JsonConverter:
        return conv.writer(schema)
    if conv.__class__ is AvroConverter:
        _, head, write = conv.ready(topic, schema)

        def avro(v: Any) -> bytes:
            out = bytearray(head)
            write(out, v)
            return bytes(out)

        return avro
    data = conv.from_connect_data
    return lambda v: data(topic, None, schema, v)


def plain_unwrap(plane: Any, wire: Any) -> Callable[[Record], Record | None] | None:
    stages = plane.stages
    if wire is None or len(stages) != 1 or stages[0].predicate is not None:
        return None
    unwrap = stages[0].transform
    if unwrap.__class__ is not ExtractNewRecordState or not unwrap.wire_safe:
        return None
    general = plane.apply
    after_schema = unwrap.plain_after_schema
    convert_headers = wire.convert_headers
    verbatim = wire.verbatim
    key_conv, value_conv = wire.key, wire.value
    # id(envelope schema) -> its plan: [envelope schema, key schema, topic, the unwrapped value schema or
    # None (the long way), key writer or None until a key is met, value writer or None until made, the last
    # headers list met and its converted form]. Writers are made when first needed, after the record's
    # headers are converted: Connect's order (headers, key, value) is the order a registry gives ids in.
    plans: dict[int, list[Any]] = {}
    no_headers = (None, None)

    def plan(record: StructuredRecord) -> list[Any]:
        env_schema = record.value_schema
        if len(plans) > 256:
            plans.clear()
        p = plans[id(env_schema)] = [
            env_schema,
            record.key_schema,
            record.topic,
            after_schema(env_schema),
            None,
            None,
            no_headers,
        ]
        return p

    def apply(record: Record) -> Record | None:
        if record.__class__ is StructuredRecord:
            env = record.value_payload
            if env is not None:
                after = env.get("after")
                if after.__class__ is dict:
                    topic = record.topic
                    p = plans.get(id(record.value_schema))
                    if (
                        p is None
                        or p[0] is not record.value_schema
                        or p[1] is not record.key_schema
                        or p[2] != topic
                    ):
                        p = plan(record)
                    schema = p[3]
                    if schema is not None:
                        key = record.key_payload
                        headers = record.headers  # the connector's context headers: one shared list
                        try:
                            if headers:
                                last = p[6]
                                if last[0] is headers:
                                    headers = last[1]
                                else:
                                    hit = HEADER_LISTS.get(id(headers))
                                    converted = convert_headers(
                                        topic,
                                        hit[1]
                                        if hit is not None and hit[0] is headers
                                        else connect_headers(headers),
                                    )
                                    p[6] = (headers, converted)
                                    headers = converted
                            else:
                                headers = None
                            if key is None:
                                k = None
                            else:
                                kw = p[4]
                                if kw is None:
                                    kw = p[4] = bytes_writer(key_conv, topic, p[1])
                                k = kw(key)
                            vw = p[5]
                            if vw is None:
                                vw = p[5] = bytes_writer(value_conv, topic, schema)
                            v = vw(after)
                        except Exception:  # noqa: BLE001 - the general path reports it (errors.tolerance)
                            return general(record)
                        return ConvertedRecord(topic, k, v, headers, None, verbatim)
        return general(record)

    return apply


def _snapshot_default_false(schema: Any) -> bool:
    """Whether the general path's source fix-up (`record._value_plan`: `source.snapshot` "false" -> null) leaves
    the Avro bytes as they are: no such field, or one whose default is "false" (a null is written as it)."""
    if schema is None or schema.type != "struct":  # None: a tombstone's
        return True
    src = next((f for f in schema.fields or () if f.name == "source"), None)
    if src is None or src.schema.type != "struct":
        return True
    snap = next((f for f in src.schema.fields or () if f.name == "snapshot"), None)
    return snap is None or snap.schema.default == "false"


def plain_avro(plane: Any, wire: Any) -> Callable[[Record], Record | None] | None:
    if wire is None or plane.stages:
        return None
    key_conv, value_conv = wire.key, wire.value
    if key_conv.__class__ is not AvroConverter or value_conv.__class__ is not AvroConverter:
        return None
    general = plane.apply
    convert_headers = wire.convert_headers
    verbatim = wire.verbatim
    # id(value schema) -> its plan: [value schema, key schema, topic, key (schema, wire header, writer) or
    # None until a key is met, the same for the value, the last headers list met and its converted form]
    plans: dict[int, list[Any]] = {}
    unsafe: set[int] = set()  # value schemas the general path takes (see _snapshot_default_false)
    no_headers = (None, None)

    def apply(record: Record) -> Record | None:
        if record.__class__ is not StructuredRecord:
            return general(record)
        value_schema = record.value_schema
        topic = record.topic
        p = plans.get(id(value_schema))
        if p is None or p[0] is not value_schema or p[1] is not record.key_schema or p[2] != topic:
            if id(value_schema) in unsafe or not _snapshot_default_false(value_schema):
                unsafe.add(id(value_schema))
                return general(record)
            if len(plans) > 256:
                plans.clear()
            p = plans[id(value_schema)] = [value_schema, record.key_schema, topic, None, None, no_headers]
        headers = record.headers  # the connector's context headers: one shared list
        key = record.key_payload
        value = record.value_payload
        try:
            # Connect's order: headers, key, value (the registry gives ids in the order schemas are met)
            if headers:
                last = p[5]
                if last[0] is headers:
                    headers = last[1]
                else:
                    hit = HEADER_LISTS.get(id(headers))
                    converted = convert_headers(
                        topic, hit[1] if hit is not None and hit[0] is headers else connect_headers(headers)
                    )
                    p[5] = (headers, converted)
                    headers = converted
            else:
                headers = None
            if key is None:
                k = None
            else:
                kw = p[3]
                if kw is None:
                    kw = p[3] = key_conv.ready(topic, p[1])
                out = bytearray(kw[1])
                kw[2](out, key)
                k = bytes(out)
            if value is None:
                v = None
            else:
                vw = p[4]
                if vw is None:
                    vw = p[4] = value_conv.ready(topic, value_schema)
                out = bytearray(vw[1])
                vw[2](out, value)
                v = bytes(out)
        except Exception:  # noqa: BLE001 - the general path reports it (errors.tolerance)
            return general(record)
        return ConvertedRecord(topic, k, v, headers, None, verbatim)

    return apply
