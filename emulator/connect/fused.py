"""Fused data-plane paths: the commonest chains done in one step, from the connector's parts to the bytes.

`plain_avro`: no transform, key and value through AvroConverters: a table record (or transaction / heartbeat
record) goes from its `StructuredRecord` to the Confluent wire bytes through the per-(topic, schema)
generated writers, with no `ConnectRecord` and no converter dispatch.

`plain_unwrap`: the plain unwrap (`ExtractNewRecordState` with no option that changes a record, no predicate,
key and value through wire-mode converters: JsonConverters with BASE64 decimals, AvroConverters, or one of
each): a create / update / read table record goes from its `StructuredRecord` straight to a
`ConvertedRecord` of the `after` payload under the unwrapped schema — no `ConnectRecord` made, no stage
dispatch. `unwrap_fields`: the same with `add.fields` and the rewrite modes (`__deleted`), the value built
from the parts in the field order of the schema the transform itself makes.

Each gives what the general path (`DataPlane.apply`: the record model, the stage, the converters) gives for
the records it takes; everything else (deletes, tombstones, other record kinds, a converter that raises)
goes to `plane.general`. tests/test_fused_paths.py replays captured records through both.
Why: unwrap + JSON / Avro is most users' chain and must cost no more than the raw envelope.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

from emulator.connect.converters.avro_converter import AvroConverter
from emulator.connect.converters.json_converter import JsonConverter
from emulator.connect.record import connect_headers, from_structured_wire
from emulator.connect.transforms.base import field_of
from emulator.connect.transforms.unwrap import ExtractNewRecordState
from emulator.connect.unset import unset_fields
from emulator.envelope import StructuredTableEnvelope
from emulator.records import ConvertedRecord, Record, StructuredRecord, b64encode

_new = object.__new__
_time_ns = time.time_ns  # what StructuredTableEnvelope.change stamps records with (tests fix it)
# a table change event's envelope fields, in the order the envelope schema has them
_ENVELOPE_FIELDS = ["before", "after", "source", "transaction", "op", "ts_ms", "ts_us", "ts_ns"]

_LINE_HEAD = len(b'{"key":null,"value":null')
_AVRO_LINE = b'{"key":{"b64":"%b"},"value":{"b64":"%b"}%b}\n'


class AvroRecord(ConvertedRecord):
    """A fused path's record whose key and value are both AvroConverter bytes (Confluent wire format, never
    JSON text), no partition: its directory line in one format operation with the headers' part of the line
    made once per converted header list (`tail`) — the bytes of `ConvertedRecord.line`; a null key or value
    takes `ConvertedRecord.line`."""

    __slots__ = ("tail",)

    # class attributes in front of Record's slots: two stores fewer per record (nothing sets them later)
    partition = None
    binary = True

    def __init__(
        self, topic: str, key: bytes | None, value: bytes | None, headers: Any, verbatim: int, tail: bytes
    ) -> None:
        self.topic = topic
        self.key = key
        self.value = value
        self.headers = headers
        self.verbatim = verbatim
        self.tail = tail

    def line(self) -> bytes:
        k, v = self.key, self.value
        if k is None or v is None:
            return ConvertedRecord.line(self)
        return _AVRO_LINE % (b64encode(k), b64encode(v), self.tail)


def headers_tail(topic: str, headers: Any, verbatim: int) -> bytes:
    """The headers' part of `ConvertedRecord.line` for a converted header list (b"" for none)."""
    if not headers:
        return b""
    return ConvertedRecord(topic, None, None, headers, None, verbatim).line()[_LINE_HEAD:-2]


def install(plane: Any, wire: Any) -> None:
    """Give `plane` a fused `apply` where its configuration has one (`plane.fused`: which, for benches and
    tests); `wire`: its wire-mode converters, or None."""
    plane.fused = None
    plane.table_change = None  # plain_avro's hook for the dispatcher (`Dispatcher.table`)
    plane.general = plane.apply  # what a fused path hands a record it does not take (tests count them)
    for path in (plain_unwrap, unwrap_fields, plain_avro):
        fused = path(plane, wire)
        if fused is not None:
            plane.apply = fused
            plane.fused = path.__name__
            return


def bytes_writer(conv: Any, topic: str, schema: Any) -> Callable[[Any], bytes]:
    """`conv.from_connect_data(topic, None, schema, v)` for non-null values, its lookups (and an Avro schema's
    registration) done now: JsonConverter's compiled writer, AvroConverter's wire header + generated writer,
    any other converter through its own method."""
    if conv.__class__ is JsonConverter:
        return conv.writer(schema)
    if conv.__class__ is AvroConverter:
        _, head, encode = conv.ready(topic, schema)
        return lambda v: encode(head, v)
    data = conv.from_connect_data
    return lambda v: data(topic, None, schema, v)


def plain_unwrap(plane: Any, wire: Any) -> Callable[[Record], Record | None] | None:
    stages = plane.stages
    if wire is None or len(stages) != 1 or stages[0].predicate is not None:
        return None
    unwrap = stages[0].transform
    if unwrap.__class__ is not ExtractNewRecordState or not unwrap.wire_safe:
        return None
    after_schema = unwrap.plain_after_schema

    def shape(record: StructuredRecord) -> tuple[Any, None] | None:
        schema = after_schema(record.value_schema)
        return None if schema is None else (schema, None)

    return _unwrapping(plane, wire, shape, after_schema)


_WIRE_TYPES = frozenset(
    ("int8", "int16", "int32", "int64", "string", "boolean")
)  # JSON-ready = Connect value


def unwrap_fields(plane: Any, _wire: Any = None) -> Callable[[Record], Record | None] | None:
    """`ExtractNewRecordState` with `add.fields` and / or a rewrite mode (`__deleted`), alone, no predicate,
    JsonConverters (BASE64 decimals) or AvroConverters for key and value: a create / update / read writes the
    `after` payload (a null with a default filled in, as `replace.null.with.default` does) plus `__deleted`
    and the added fields, in the field order of the schema the transform itself builds (asked once per
    envelope schema). Only added fields whose values are the same in the JSON-ready and the Connect form
    (ints, strings, booleans: source / transaction / top-level fields) are fused; others take the general
    path, as do deletes, tombstones and everything else."""
    stages = plane.stages
    if len(stages) != 1 or stages[0].predicate is not None:
        return None
    unwrap = stages[0].transform
    if unwrap.__class__ is not ExtractNewRecordState or unwrap.wire_safe:
        return None
    if unwrap.add_headers or unwrap.route_by_field is not None or unwrap.drop_header:
        return None
    wire = plane.converters.wire_twin()
    if wire is None:
        return None
    rewrite = unwrap.rewrite
    fill = rewrite and unwrap.replace_null  # InsertField's copy reads each field with Struct.get
    refs = unwrap.add_fields
    transform = unwrap.apply

    def shape(record: StructuredRecord) -> tuple[Any, Callable[[dict, dict], dict]] | None:
        env_schema = record.value_schema
        if env_schema is None or not (env_schema.name or "").endswith(".Envelope"):
            return None
        after_field = field_of(env_schema, "after")
        if (
            after_field is None
            or after_field.schema.type != "struct"
            or after_field.schema.default is not None
            or unset_fields(after_field.schema)  # the general path checks them (unwrap._add_fields)
        ):
            return None
        try:  # the schema the transform gives a create / update / read of this envelope
            out = transform(from_structured_wire(record))
        except Exception:  # noqa: BLE001 - the general path reports it
            return None
        if out is None or out.topic != record.topic or out.value_schema is None:
            return None
        schema = out.value_schema
        after_fields = after_field.schema.fields or ()
        names = [f.name for f in after_fields]
        defaults = (
            [(f.name, f.schema.default) for f in after_fields if f.schema.default is not None] if fill else []
        )
        getters = []
        for ref in refs:
            try:
                s = ref.schema(env_schema)
            except Exception:  # noqa: BLE001 - a missing struct: the general path reports it
                return None
            if s is None:
                continue  # no such field in this envelope: not added
            if s.type not in _WIRE_TYPES:
                return None
            parent = env_schema if ref.struct is None else field_of(env_schema, ref.struct).schema
            in_parent = ref.struct is not None and field_of(parent, ref.field) is not None
            # the general path's source fix-up: Debezium's source struct holds no snapshot "false"
            fix = in_parent and ref.struct == "source" and ref.field == "snapshot"
            getters.append((ref.new_field, ref.struct, ref.field, in_parent, fix))
        expected = [*names, *(["__deleted"] if rewrite else []), *(g[0] for g in getters)]
        if [f.name for f in schema.fields or ()] != expected:  # the dict order JsonConverter prints
            return None
        return schema, _builder(names, defaults, rewrite, getters)

    return _unwrapping(plane, wire, shape)


def _builder(
    names: list[str], defaults: list[tuple[str, Any]], rewrite: bool, getters: list[tuple]
) -> Callable[[dict, dict], dict]:
    """`unwrap_fields`' value of a create / update / read, generated as one function per envelope schema (a
    dict display and straight-line reads instead of loops over the fields; names as literals)."""
    env: dict[str, Any] = {}
    lines = ["def build(env, after):", "    g = after.get"]
    lines.append("    out = {" + ", ".join(f"{n!r}: g({n!r})" for n in names) + "}")
    for i, (n, d) in enumerate(defaults):  # Schema.default is JSON-ready: what the wire-mode converters take
        env[f"_d{i}"] = d
        lines.append(f"    if out[{n!r}] is None: out[{n!r}] = _d{i}")
    if rewrite:
        lines.append("    out['__deleted'] = 'false'")
    for new, struct, name, in_parent, fix in getters:  # FieldReference.value
        if struct is None:
            lines.append(f"    out[{new!r}] = env.get({name!r})")
            continue
        lines.append(f"    p = env.get({struct!r})")
        read = f"p.get({name!r})" if in_parent else f"env.get({name!r})"
        lines.append(f"    x = None if p is None else {read}")
        if fix:  # the general path's source fix-up: Debezium's source struct holds no snapshot "false"
            lines.append("    if x == 'false': x = None")
        lines.append(f"    out[{new!r}] = x")
    lines.append("    return out")
    exec(compile("\n".join(lines), "<unwrap_fields value>", "exec"), env)  # noqa: S102
    return env["build"]


def _unwrapping(
    plane: Any,
    wire: Any,
    shape: Callable[[StructuredRecord], tuple[Any, Callable[[dict, dict], dict] | None] | None],
    value_schema: Callable[[Any], Any] | None = None,
) -> Callable[[Record], Record | None]:
    """The fused apply of an unwrapping chain: a create / update / read (a table record whose `after` is a
    struct) written as the value `shape` gives for its envelope schema — (the value schema, a function
    (envelope, after) -> value, or None for `after` itself), or None: the general path — with the key, under
    the same topic; everything else through `plane.general`. `value_schema` (plain_unwrap's): the unwrapped
    value schema of an envelope schema, or None — with AvroConverters for key and value, the dispatcher's
    hook (`plane.table_change`, `_avro_change`) then writes creates / updates from the change's parts."""
    convert_headers = wire.convert_headers
    verbatim = wire.verbatim
    key_conv, value_conv = wire.key, wire.value
    both_avro = key_conv.__class__ is AvroConverter and value_conv.__class__ is AvroConverter
    # id(envelope schema) -> its plan: [envelope schema, key schema, topic, the value schema or None (the
    # general path), the value builder or None, key writer or None until a key is met, value writer or None
    # until made, the last headers list met, its converted form and its part of an Avro line]. Writers are made when first needed,
    # after the record's headers are converted: Connect's order (headers, key, value) is the order a
    # registry gives ids in.
    plans: dict[int, list[Any]] = {}
    no_headers = (None, None, b"")

    def plan(record: StructuredRecord) -> list[Any]:
        env_schema = record.value_schema
        shaped = shape(record) or (None, None)
        if len(plans) > 256:
            plans.clear()
        p = plans[id(env_schema)] = [
            env_schema,
            record.key_schema,
            record.topic,
            shaped[0],
            shaped[1],
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
                                last = p[7]
                                if last[0] is not headers:
                                    converted = convert_headers(topic, connect_headers(headers))
                                    last = p[7] = (
                                        headers,
                                        converted,
                                        headers_tail(topic, converted, verbatim) if both_avro else b"",
                                    )
                            else:
                                last = no_headers
                            if key is None:
                                k = None
                            else:
                                kw = p[5]
                                if kw is None:
                                    kw = p[5] = bytes_writer(key_conv, topic, p[1])
                                k = kw(key)
                            vw = p[6]
                            if vw is None:
                                vw = p[6] = bytes_writer(value_conv, topic, schema)
                            build = p[4]
                            v = vw(after if build is None else build(env, after))
                        except Exception:  # noqa: BLE001 - the general path reports it (errors.tolerance)
                            return plane.general(record)
                        if both_avro:
                            return AvroRecord(topic, k, v, last[1], verbatim, last[2])
                        return ConvertedRecord(topic, k, v, last[1], None, verbatim)
        elif hooked and record.__class__ is AvroRecord:  # made by the dispatcher's hook: converted already
            return record
        return plane.general(record)

    hooked = both_avro and value_schema is not None
    if hooked:  # plain unwrap into AvroConverters: the dispatcher's hook (see _avro_change)

        def table_change(env: Any) -> Callable[..., Record] | None:
            if env.__class__ is not StructuredTableEnvelope:
                return None
            schema = value_schema(env.envelope_schema)
            return None if schema is None else _avro_change(env, wire, schema, True)

        plane.table_change = table_change
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
    convert_headers = wire.convert_headers
    verbatim = wire.verbatim
    # id(value schema) -> its plan: [value schema, key schema, topic, key (schema, wire header, writer) or
    # None until a key is met, the same for the value, the last headers list met, its converted form and its
    # part of the directory line]
    plans: dict[int, list[Any]] = {}
    unsafe: set[int] = set()  # value schemas the general path takes (see _snapshot_default_false)
    no_headers = (None, None, b"")

    def apply(record: Record) -> Record | None:
        if record.__class__ is not StructuredRecord:
            if record.__class__ is AvroRecord:  # made by `table_change`'s function: converted already
                return record
            return plane.general(record)
        value_schema = record.value_schema
        topic = record.topic
        p = plans.get(id(value_schema))
        if p is None or p[0] is not value_schema or p[1] is not record.key_schema or p[2] != topic:
            if id(value_schema) in unsafe or not _snapshot_default_false(value_schema):
                unsafe.add(id(value_schema))
                return plane.general(record)
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
                if last[0] is not headers:
                    converted = convert_headers(topic, connect_headers(headers))
                    last = p[5] = (headers, converted, headers_tail(topic, converted, verbatim))
            else:
                last = no_headers
            if key is None:
                k = None
            else:
                kw = p[3]
                if kw is None:
                    kw = p[3] = key_conv.ready(topic, p[1])
                k = kw[2](kw[1], key)
            if value is None:
                v = None
            else:
                vw = p[4]
                if vw is None:
                    vw = p[4] = value_conv.ready(topic, value_schema)
                v = vw[2](vw[1], value)
        except Exception:  # noqa: BLE001 - the general path reports it (errors.tolerance)
            return plane.general(record)
        return AvroRecord(topic, k, v, last[1], verbatim, last[2])

    def table_change(env: Any) -> Callable[..., Record] | None:
        """The dispatcher's hook (`Dispatcher.table`, see `_avro_change`): the envelope's fields straight
        into the value's spread encoder. None: this envelope takes `env.change`."""
        if env.__class__ is not StructuredTableEnvelope:
            return None
        schema = env.envelope_schema
        if [f.name for f in schema.fields or ()] != _ENVELOPE_FIELDS or not _snapshot_default_false(schema):
            return None
        return _avro_change(env, wire, schema, False)

    plane.table_change = table_change
    return apply


def _avro_change(env: Any, wire: Any, schema: Any, unwrapped: bool) -> Callable[..., Record]:
    """A function with `env.change`'s signature (the dispatcher's hook, `plane.table_change`) that gives the
    record the fused `apply` gives for `env.change(...)`'s record, with both converters AvroConverters:
    `unwrapped` False (plain_avro) — the envelope's fields go straight into the value's spread encoder
    (`schema`: the envelope's); True (plain_unwrap) — a change with an `after` row writes that row under
    `schema` (the unwrapped one). No payload dict, no `StructuredRecord`. Anything else (extra headers, a
    delete under unwrap, a value the encoder refuses) is `env.change`'s record, which the fused `apply` then
    takes as any other (and the general path reports a failure, errors.tolerance)."""
    key_conv, value_conv = wire.key, wire.value
    convert_headers = wire.convert_headers
    verbatim = wire.verbatim
    make = env.change
    topic = env.topic
    key_schema = env.key_schema
    key_only = env.key_only
    value_part = env.value_part
    null_defaults = env.null_defaults
    fill = env._null_defaults
    settings = env.settings
    # the key's wire header and encoder (None until a key is met), the value's, the last headers list met,
    # its converted form and its part of the line
    khead = vhead = b""
    kenc = venc = None
    hsrc = hconv = None
    htail = b""

    def change(
        op: str,
        before: dict | None,
        after: dict | None,
        source: dict,
        transaction: dict | None,
        key: dict | None,
        extra_headers: list | None = None,
    ) -> Record:
        nonlocal khead, vhead, kenc, venc, hsrc, hconv, htail
        if extra_headers:
            return make(op, before, after, source, transaction, key, extra_headers)
        b, a = before, after
        if key_only:
            b = value_part(b)
            a = value_part(a)
        if null_defaults:
            b = fill(b)
            a = fill(a)
        if unwrapped and a.__class__ is not dict:  # a delete: the fused apply's general path
            return make(op, before, after, source, transaction, key)
        headers = settings.context_headers
        try:
            # Connect's order: headers, key, value (the registry gives ids in the order schemas are met)
            if headers is not hsrc:
                if headers:
                    converted = convert_headers(topic, connect_headers(headers))
                    hconv, htail = converted, headers_tail(topic, converted, verbatim)
                else:
                    hconv, htail = None, b""
                hsrc = headers
            if key is None:
                k = None
            else:
                if kenc is None:
                    _, khead, kenc = key_conv.ready(topic, key_schema)
                k = kenc(khead, key)
            if venc is None:
                _, vhead, enc = value_conv.ready(topic, schema)
                if not unwrapped:  # (raises for a record written with the latest schema: kept None)
                    enc = value_conv.spread_encoder(topic, schema)
                venc = enc
            if unwrapped:
                v = venc(vhead, a)
            else:
                ns = _time_ns()
                v = venc(vhead, b, a, source, transaction, op, ns // 1_000_000, ns // 1_000, ns)
        except Exception:  # noqa: BLE001 - the fused apply takes env.change's record: the general path reports it
            return make(op, before, after, source, transaction, key)
        r = _new(AvroRecord)  # AvroRecord(...) without its __init__'s frame
        r.topic = topic
        r.key = k
        r.value = v
        r.headers = hconv
        r.verbatim = verbatim
        r.tail = htail
        return r

    return change
