"""Confluent's AvroConverter with `use.latest.version=true` (and `auto.register.schemas=false`) when the subject's
latest schema is not the record's own: what Debezium 3.6.3's converter (schema-registry client 7.0.16, Avro
1.11.3) does with it.

1. `latest.compatibility.strict` (default true): Avro's `SchemaCompatibility.checkReaderWriterCompatibility(
   latest, record's schema)` must find nothing, else the record fails ("Incompatible schema ...").
2. The record's datum — a `GenericData.Record` of the record's own schema — is written by a `GenericDatumWriter`
   of the *latest* schema. That writer reads a record's fields by position (`IndexedRecord.get(pos)`), not by
   name; a union branch is chosen by the datum's own type (a record by its full name); ints, longs, floats and
   doubles take `Number.intValue()` / `longValue()` / ... of whatever number is there.

Step 2 misplaces values whenever the two schemas' fields differ at a position (connect seed 75 trial 11: after
`DROP COLUMN ratio` a new `extra` of `'five'` was written as `ratio`'s null). Where the positional write puts a
value under another field's name, or changes a number, this module reports it (`Misplaced`) and the converter
stops the task (NotEmulated): copying it would lose data (the lead's rule on Debezium bugs). Where the write
fails (a field past the datum's end, a union with no branch for the datum's type, a string where a number is
expected) the record fails as in Debezium; where it is faithful (the same names in the same places, e.g. tables
with the same columns merged into one topic behind ExtractNewRecordState) the bytes are Debezium's.

Schemas are parsed from their JSON text into small dicts (named types resolved, so a record met again is the
same dict); the record's datum is recovered by decoding the bytes the record's own generated writer made.
"""

from __future__ import annotations

import math
import struct
from typing import Any

import orjson

from emulator.connect.converters.errors import ConversionError

PRIMITIVES = ("null", "boolean", "int", "long", "float", "double", "bytes", "string")
_NUMBERS = ("int", "long", "float", "double")


class Misplaced(Exception):
    """The positional write would put a value where the record does not have it (Debezium loses it)."""


class WriteFailed(Exception):
    """What the Java writer throws (ClassCastException, ArrayIndexOutOfBounds, UnresolvedUnionException...)."""


# ---------------------------------------------------------------------------------------------------
# schemas
# ---------------------------------------------------------------------------------------------------
def parse(text: str) -> Any:
    """An Avro schema's JSON text -> nodes: a primitive's name, or a dict with "t" (record / enum / fixed /
    array / map / union)."""
    names: dict[str, dict] = {}
    return _node(orjson.loads(text), "", names)


def _fullname(j: dict, ns: str) -> str:
    name = j["name"]
    if "." in name:
        return name
    space = j.get("namespace", ns) or ""
    return f"{space}.{name}" if space else name


def _node(j: Any, ns: str, names: dict[str, dict]) -> Any:
    if isinstance(j, list):
        return {"t": "union", "branches": [_node(b, ns, names) for b in j]}
    if isinstance(j, str):
        if j in PRIMITIVES:
            return j
        for cand in ((f"{ns}.{j}" if ns and "." not in j else j), j):
            if cand in names:
                return names[cand]
        raise ConversionError(f"Avro schema: unknown type {j!r}")
    t = j["type"]
    if t in PRIMITIVES:
        return t  # logical types and connect.* properties do not change the binary form
    if t in ("record", "error", "enum", "fixed"):
        full = _fullname(j, ns)
        inner = full.rsplit(".", 1)[0] if "." in full else ""
        n: dict[str, Any] = {
            "t": "record" if t == "error" else t,
            "full": full,
            "name": full.rsplit(".", 1)[-1],
        }
        n["aliases"] = {a if "." in a or not inner else f"{inner}.{a}" for a in j.get("aliases", ())}
        names[full] = n
        if t == "enum":
            n["symbols"] = list(j["symbols"])
            n["default"] = j.get("default")
        elif t == "fixed":
            n["size"] = j["size"]
        else:
            n["fields"] = [
                (f["name"], _node(f["type"], inner, names), "default" in f, set(f.get("aliases", ())))
                for f in j["fields"]
            ]
        return n
    if t == "array":
        return {"t": "array", "items": _node(j["items"], ns, names)}
    if t == "map":
        return {"t": "map", "values": _node(j["values"], ns, names)}
    return _node(t, ns, names)  # {"type": "some.Named"} or {"type": [...]}


def _kind(n: Any) -> str:
    return n if isinstance(n, str) else n["t"]


# ---------------------------------------------------------------------------------------------------
# Avro's SchemaCompatibility (1.11): can `reader` read what `writer` wrote?
# ---------------------------------------------------------------------------------------------------
_PROMOTIONS = {
    "long": ("int",),
    "float": ("int", "long"),
    "double": ("int", "long", "float"),
    "bytes": ("string",),
    "string": ("bytes",),
}


def incompatibilities(reader: Any, writer: Any) -> list[str]:
    out: list[str] = []
    _compat(reader, writer, "", out, {})
    return out


def _compat(r: Any, w: Any, where: str, out: list[str], memo: dict) -> bool:
    key = (id(r), id(w))
    if key in memo:
        return memo[key]
    memo[key] = True  # a recursion in progress counts as compatible (as Avro's checker)
    n = len(out)
    _compat_of(r, w, where, out, memo)
    memo[key] = len(out) == n
    return memo[key]


def _compat_of(r: Any, w: Any, where: str, out: list[str], memo: dict) -> None:
    rk, wk = _kind(r), _kind(w)
    if rk == wk:
        if rk in PRIMITIVES:
            return
        if rk == "array":
            _compat(r["items"], w["items"], where + "/items", out, memo)
        elif rk == "map":
            _compat(r["values"], w["values"], where + "/values", out, memo)
        elif rk == "union":
            for i, wb in enumerate(w["branches"]):
                if not _compat(r, wb, f"{where}/{i}", [], memo):
                    out.append(f"{where}: reader union lacking writer type: {_kind(wb).upper()}")
        else:
            if not (r["name"] == w["name"] or w["full"] in r["aliases"]):
                out.append(f"{where}: expected: {w['full']}")
            if rk == "fixed" and r["size"] != w["size"]:
                out.append(f"{where}/size: expected: {w['size']}, found: {r['size']}")
            elif rk == "enum" and r["default"] is None:
                missing = [s for s in w["symbols"] if s not in r["symbols"]]
                if missing:
                    out.append(f"{where}/symbols: {missing}")
            elif rk == "record":
                wf = {f[0]: f for f in w["fields"]}
                for name, rtype, has_default, aliases in r["fields"]:
                    f = wf.get(name) or next((wf[a] for a in aliases if a in wf), None)
                    if f is None:
                        if not has_default:
                            out.append(f"{where}/fields/{name}: missing required field {name}")
                    else:
                        _compat(rtype, f[1], f"{where}/fields/{name}/type", out, memo)
        return
    if wk == "union":
        for i, wb in enumerate(w["branches"]):
            _compat(r, wb, f"{where}/{i}", out, memo)
        return
    if rk == "union":
        if not any(_compat(rb, w, where, [], memo) for rb in r["branches"]):
            out.append(f"{where}: reader union lacking writer type: {wk.upper()}")
        return
    if wk not in _PROMOTIONS.get(rk, ()):
        out.append(f"{where}: reader type: {rk.upper()} not compatible with writer type: {wk.upper()}")


# ---------------------------------------------------------------------------------------------------
# the record's datum, from the bytes its own schema's writer made
# ---------------------------------------------------------------------------------------------------
_F = struct.Struct("<f")
_D = struct.Struct("<d")


class _Reader:
    __slots__ = ("b", "i")

    def __init__(self, b: bytes) -> None:
        self.b, self.i = b, 0

    def long(self) -> int:
        n = shift = 0
        while True:
            c = self.b[self.i]
            self.i += 1
            n |= (c & 0x7F) << shift
            if c < 0x80:
                return (n >> 1) ^ -(n & 1)
            shift += 7

    def take(self, n: int) -> bytes:
        s = self.b[self.i : self.i + n]
        self.i += n
        return s


def datum(schema: Any, data: bytes) -> tuple:
    """Decode `data` (the Avro binary of `schema`) into a typed datum: (kind, value), a record as
    ("record", full name, [(field name, datum), ...])."""
    return _read(schema, _Reader(data))


def _read(n: Any, r: _Reader) -> tuple:
    k = _kind(n)
    if k == "null":
        return ("null", None)
    if k == "boolean":
        return ("boolean", r.take(1) == b"\x01")
    if k in ("int", "long"):
        return (k, r.long())
    if k == "float":
        return ("float", _F.unpack(r.take(4))[0])
    if k == "double":
        return ("double", _D.unpack(r.take(8))[0])
    if k in ("bytes", "string"):
        return (k, r.take(r.long()))
    if k == "record":
        return ("record", n["full"], [(f[0], _read(f[1], r)) for f in n["fields"]])
    if k == "union":
        return _read(n["branches"][r.long()], r)
    if k == "enum":
        return ("enum", n["full"], n["symbols"][r.long()])
    if k == "fixed":
        return ("fixed", n["full"], r.take(n["size"]))
    items: list = []
    while True:
        count = r.long()
        if count == 0:
            break
        if count < 0:
            count = -count
            r.long()  # the block's size in bytes
        for _ in range(count):
            if k == "array":
                items.append(_read(n["items"], r))
            else:
                items.append((r.take(r.long()), _read(n["values"], r)))
    return (k, items)


# ---------------------------------------------------------------------------------------------------
# GenericDatumWriter of the latest schema over that datum
# ---------------------------------------------------------------------------------------------------
def _zz(out: bytearray, v: int) -> None:
    z = (v << 1) ^ (v >> 63)
    while z > 0x7F:
        out.append((z & 0x7F) | 0x80)
        z >>= 7
    out.append(z)


def _java_int(v: Any, bits: int) -> int:
    """Java's `Number.intValue()` / `longValue()` of an Integer, Long, Float or Double."""
    if isinstance(v, float):
        if math.isnan(v):
            return 0
        lim = 1 << (bits - 1)
        return -lim if v <= -lim else lim - 1 if v >= lim else int(v)
    v &= (1 << bits) - 1
    return v - (1 << bits) if v >> (bits - 1) else v


def _java_float(v: Any) -> float:
    try:
        return _F.unpack(_F.pack(v))[0]
    except OverflowError:
        return math.copysign(math.inf, v)


def _type_name(d: tuple) -> str:
    """GenericData.getSchemaName of the datum: a named type's full name, else its kind."""
    return d[1] if d[0] in ("record", "enum", "fixed") else d[0]


def write_top(schema: Any, d: tuple, out: bytearray) -> None:
    """AbstractKafkaAvroSerializer.serializeImpl's datum part (a BYTES schema takes a byte array as it is).
    Raises WriteFailed where Java's writer throws, else Misplaced where it wrote a value under another
    field's name or changed a number."""
    if _kind(schema) == "bytes":
        if d[0] != "bytes":
            raise WriteFailed(f"Unrecognized bytes object of type: {d[0]}")
        out += d[1]
        return
    lost: list[str] = []
    write(schema, d, out, "", lost)
    if lost:
        raise Misplaced("; ".join(lost[:3]))


def write(n: Any, d: tuple, out: bytearray, where: str, lost: list[str]) -> None:
    k, dk = _kind(n), d[0]
    if k == "union":
        name = _type_name(d)
        for i, b in enumerate(n["branches"]):
            if (b["full"] if isinstance(b, dict) and "full" in b else _kind(b)) == name:
                _zz(out, i)
                write(b, d, out, where, lost)
                return
        raise WriteFailed(f"Not in union {where}: {name}")
    if k == "null":
        return  # Avro writes nothing for a null schema, whatever the datum
    if dk == "null":
        raise WriteFailed(f"null of {k} in field {where}")
    if k == "record":
        if dk != "record":
            raise WriteFailed(f"class cast: {dk} is not a record (field {where})")
        fields = d[2]
        for i, (name, ftype, _default, _aliases) in enumerate(n["fields"]):
            if i >= len(fields):
                raise WriteFailed(f"Index {i} out of bounds for length {len(fields)}")
            have, value = fields[i]
            if have != name:
                lost.append(f"{where}/{have} written as {name}")
            write(ftype, value, out, f"{where}/{name}", lost)
        return
    if k in _NUMBERS:
        if dk not in _NUMBERS:
            raise WriteFailed(f"class cast: {dk} is not a number (field {where})")
        v = d[1]
        if k in ("int", "long"):
            w = _java_int(v, 32 if k == "int" else 64)
            if w != v:
                lost.append(f"{where}: {dk} {v} written as {k} {w}")
            _zz(out, w)
        elif k == "float":
            w = _java_float(v)
            if w != v and not (math.isnan(w) and math.isnan(v)):
                lost.append(f"{where}: {dk} {v} written as float {w}")
            out += _F.pack(w)
        else:
            out += _D.pack(float(v))
            if dk == "long" and float(v) != v:
                lost.append(f"{where}: long {v} written as double")
        return
    if k in ("string", "bytes", "boolean"):
        if dk != k:  # CharSequence, ByteBuffer, Boolean casts
            raise WriteFailed(f"class cast: {dk} is not {k} (field {where})")
        if k == "boolean":
            out.append(1 if d[1] else 0)
        else:
            _zz(out, len(d[1]))
            out += d[1]
        return
    if k in ("array", "map"):
        if dk != k:
            raise WriteFailed(f"class cast: {dk} is not {k} (field {where})")
        if d[1]:
            _zz(out, len(d[1]))
            for item in d[1]:
                if k == "array":
                    write(n["items"], item, out, where + "[]", lost)
                else:
                    _zz(out, len(item[0]))
                    out += item[0]
                    write(n["values"], item[1], out, where + "{}", lost)
        out.append(0)
        return
    if k == "enum":
        symbol = d[2] if dk == "enum" else d[1].decode() if dk == "string" else None
        if symbol is None or symbol not in n["symbols"]:
            raise WriteFailed(f"Not an enum: {symbol} for schema: {n['full']} in field {where}")
        _zz(out, n["symbols"].index(symbol))
        return
    raise WriteFailed(f"class cast: {dk} is not {k} (field {where})")  # fixed: never a Connect datum
