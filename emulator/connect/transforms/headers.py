"""Kafka's header transforms: InsertHeader, DropHeaders, HeaderFrom ($Key / $Value)."""

from __future__ import annotations

import math
import re
import struct
from fractions import Fraction

from emulator.connect.record import ConnectRecord
from emulator.connect.schema import FLOAT32, Schema
from emulator.connect.transforms.base import (
    Options,
    Transform,
    TransformError,
    copy_basics,
    fget,
    field_of,
    put_raw,
    register,
    require_map,
    require_struct,
)
from emulator.connect.transforms.keyvalue import K, KeyOrValue, SchemaCache, register_both

_INT = re.compile(r"[+-]?\d+")
_INT_TYPES = (("int8", 7), ("int16", 15), ("int32", 31), ("int64", 63))
# a plain decimal Values.parseAsNumber reads as a BigDecimal: a whole one (`1.0`) is typed as its integer, any
# other as a float32 (`1.5`: scale > 0, finite). 18 integer digits keep it below Long.MAX_VALUE (bigger ones skip
# the integer typing) and far from float32's infinity.
_DECIMAL = re.compile(r"[+-]?\d{1,18}\.\d{1,30}")
_F32 = struct.Struct("<f")
_U32 = struct.Struct("<I")


def _f32_bits(bits: int) -> float:
    return _F32.unpack(_U32.pack(bits))[0]


def nearest_float32(exact: Fraction) -> float:
    """`BigDecimal.floatValue()`: the float32 nearest the decimal, ties to even (JDK 17 divides two exact floats
    or calls Float.parseFloat, each correctly rounded); Python's float() then a float32 cast could round twice."""
    guess = _F32.unpack(_F32.pack(float(exact)))[0]
    bits = _U32.unpack(_F32.pack(abs(guess)))[0]
    sign = -1.0 if exact < 0 else 1.0
    candidates = [_f32_bits(b) for b in (bits - 1, bits, bits + 1) if b >= 0]
    target = abs(exact)
    best = min(candidates, key=lambda c: (abs(Fraction(c) - target), _U32.unpack(_F32.pack(c))[0] & 1))
    return math.copysign(best, sign)


def parse_literal(opts: Options, key: str, text: str) -> tuple[Schema, object]:
    """`Values.parseString` for the literals this emulator can type exactly: `true` / `false`, integers (the
    smallest of int8..int64), plain decimals (float32, or the integer of a whole one) and plain strings.
    Anything Connect's tokenizer or its number / temporal inference might read otherwise (other text with a
    leading digit or sign, delimiters, `null`) is refused."""
    if text == "":
        return Schema("string"), ""
    if text in ("true", "false"):
        return Schema("boolean"), text == "true"
    if _INT.fullmatch(text):
        n = int(text)
        for type_, bits in _INT_TYPES:
            if -(1 << bits) <= n < (1 << bits):
                return Schema(type_), n
    if _DECIMAL.fullmatch(text):
        exact = Fraction(text)
        if exact.denominator == 1:  # isWholeNumber: typed as the integer
            return parse_literal(opts, key, str(exact.numerator))
        return Schema(FLOAT32), nearest_float32(exact)
    t = text.strip()
    if (
        not t
        or t[0].isdigit()
        or t[0] in "+-"
        or any(c in text for c in '[]{},:"\\')
        or t.lower()
        in (
            "null",
            "true",
            "false",
        )
    ):
        raise opts.fail(
            key,
            f"literal {text!r} would be typed by Connect's Values.parseString in a way this emulator does not "
            'reproduce (only true/false, integers, plain decimals like 1.5 and plain strings without [ ] { } , : " \\)',
        )
    return Schema("string"), text


@register(K + "InsertHeader")
class InsertHeader(Transform):
    def __init__(self, opts: Options) -> None:
        super().__init__(opts)
        self.header = opts.str("header", required=True)
        literal = opts.str("value.literal", required=True)
        self.schema, self.value = parse_literal(opts, "value.literal", literal)

    def apply(self, r: ConnectRecord) -> ConnectRecord | None:
        return ConnectRecord(
            r.topic,
            r.partition,
            r.key_schema,
            r.key,
            r.value_schema,
            r.value,
            [*r.headers, (self.header, self.schema, self.value)],
            r.timestamp,
        )


@register(K + "DropHeaders")
class DropHeaders(Transform):
    wire_safe = True  # the topic / the whole record / header names only

    def __init__(self, opts: Options) -> None:
        super().__init__(opts)
        if opts.raw("headers") is None:
            raise opts.fail("headers", 'Missing required configuration "headers" which has no default value.')
        self.names = set(opts.list("headers"))
        if not self.names:
            raise opts.fail("headers", "Empty list")

    def apply(self, r: ConnectRecord) -> ConnectRecord | None:
        return ConnectRecord(
            r.topic,
            r.partition,
            r.key_schema,
            r.key,
            r.value_schema,
            r.value,
            [h for h in r.headers if h[0] not in self.names],
            r.timestamp,
        )


class HeaderFromT(KeyOrValue):
    def __init__(self, opts: Options) -> None:
        super().__init__(opts)
        for k in ("fields", "headers", "operation"):
            if opts.raw(k) is None:
                raise opts.fail(k, f'Missing required configuration "{k}" which has no default value.')
        self.fields = opts.list("fields")
        self.headers = opts.list("headers")
        if len(self.fields) != len(self.headers):
            raise opts.fail(
                "headers", "'fields' config must have the same number of elements as 'headers' config."
            )
        op = opts.str("operation")
        if op not in ("move", "copy"):
            raise opts.fail(
                "operation",
                f"Invalid value {op} for configuration operation: String must be one of: move, copy",
            )
        self.move = op == "move"
        self.replace_null = opts.bool("replace.null.with.default", True)
        self.cache = SchemaCache()

    def apply(self, r: ConnectRecord) -> ConnectRecord | None:
        value = self.value_of(r)
        schema = self.schema_of(r)
        headers = list(r.headers)
        if schema is None:
            v = require_map(value, "header " + ("move" if self.move else "copy"))
            out = dict(v)
            for f, h in zip(self.fields, self.headers):
                if self.move:
                    out.pop(f, None)
                headers.append((h, None, v.get(f)))
            return self._new(r, None, out, headers)
        v = require_struct(value, "header " + ("move" if self.move else "copy"), schema)
        if self.move:
            updated = self.cache.get(
                schema, lambda s: copy_basics(s, fields=[f for f in s.fields if f.name not in self.fields])
            )
            if not self.replace_null:
                put_raw(schema, v, lambda n: field_of(updated, n))
            out = {f.name: (fget(f, v) if self.replace_null else v.get(f.name)) for f in updated.fields}
        else:
            updated, out = schema, v
        for f, h in zip(self.fields, self.headers):
            sf = field_of(schema, f)
            if sf is None:
                # schema.field(name).schema(): the JVM's helpful NullPointerException text (seed 117 trial 7)
                raise TransformError(
                    'Cannot invoke "org.apache.kafka.connect.data.Field.schema()" because the return value of '
                    '"org.apache.kafka.connect.data.Schema.field(String)" is null'
                )
            x = fget(sf, v) if self.replace_null else v.get(f)
            if x is None and not sf.schema.optional:
                # ConnectHeaders.add checks the pair: a field the connector left unset (connect/unset.py), read
                # without its default, is such a null (recorded: session 24, failures/unset_raw.json)
                shown = (
                    f"{sf.schema.name}:{sf.schema.type_name()}" if sf.schema.name else sf.schema.type_name()
                )
                raise TransformError(f"A null value requires an optional schema but was Schema{{{shown}}}")
            headers.append((h, sf.schema, x))
        return self._new(r, updated, out, headers)

    def _new(self, r, schema, value, headers) -> ConnectRecord:
        n = self.new(r, schema, value)
        n.headers = headers
        return n


register_both(HeaderFromT, K + "HeaderFrom")
