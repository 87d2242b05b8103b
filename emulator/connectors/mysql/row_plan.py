"""A table's row plan for the C accelerator's whole-image line decoders (emulator/fastrow.c): each binlog column's
kind (how its bytes become its JSON), the value's and the key's fields. Built once per table map; None when a
column is of a kind the C code does not make, or its converter is not one it knows (a converter says what it
computes by its `c_kind`, types.py), or a field prints something else than its value or its NULL's JSON (a mask;
a key field whose NULL prints its column's default): that table keeps the generated line decoders (row_lines.py)."""

from __future__ import annotations

from collections.abc import Callable

import orjson

from emulator import linefill
from emulator.connectors.mysql.binlog import (
    T_BIT,
    T_BLOB,
    T_DATE,
    T_DATETIME2,
    T_ENUM,
    T_INT24,
    T_LONG,
    T_LONG_BLOB,
    T_LONGLONG,
    T_MEDIUM_BLOB,
    T_NEWDATE,
    T_NEWDECIMAL,
    T_SET,
    T_SHORT,
    T_STRING,
    T_TIME2,
    T_TIMESTAMP2,
    T_TINY,
    T_TINY_BLOB,
    T_VAR_STRING,
    T_VARCHAR,
    T_YEAR,
    TableMap,
)
from emulator.connectors.mysql.row_decoders import fixed_size
from emulator.connectors.mysql.row_json_code import JDEC_PREC
from emulator.connectors.mysql.values import unscaled_b64

# fastrow.c's column kinds (its enum, in order)
(
    K_FIX,
    K_PREF,
    K_INT,
    K_UINT,
    K_YEAR,
    K_BOOL,
    K_DEC,
    K_DT2,
    K_DATE,
    K_TIME2,
    K_TEXT,
    K_ENUM,
    K_SET,
    K_BITS,
) = range(14)
K_BLOB, K_TS2 = 14, 15
# fastrow.c's own numbers (the module's KINDS): a build whose enum has moved cannot be given these plans
if linefill.ROW is not None and getattr(linefill.fastline, "KINDS", None) != {
    k: v for k, v in globals().items() if k.startswith("K_") and isinstance(v, int)
}:
    raise ImportError(
        f"row_plan.py's column kinds are not fastrow.h's: {getattr(linefill.fastline, 'KINDS', None)}"
    )

_INT_WIDTHS = {T_TINY: 1, T_SHORT: 2, T_INT24: 3, T_LONG: 4, T_LONGLONG: 8}
_BLOBS = {T_TINY_BLOB: 1, T_BLOB: 2, T_MEDIUM_BLOB: 3, T_LONG_BLOB: 4}
# ASCII bytes as every ASCII-compatible codec decodes them (a text of such bytes without escapes is its JSON)
_ASCII = bytes(range(128))


def _real(t: int, meta: int) -> tuple[int, int]:
    """A T_STRING column's real type and length (ENUM and SET are T_STRING in a table map), as row_decoders."""
    if t != T_STRING:
        return t, 0
    real, length = meta >> 8, meta & 0xFF
    if real and (real & 0x30) != 0x30:
        length |= ((real & 0x30) ^ 0x30) << 4
        real |= 0x30
    return real, length


def _prefix(t: int, meta: int) -> int:
    """The length prefix's bytes of a length-prefixed column (as row_decoders' column code), else 0."""
    real, length = _real(t, meta)
    if t in (T_VARCHAR, T_VAR_STRING):
        return 1 if meta < 256 else 2
    if t == T_STRING and real not in (T_ENUM, T_SET):
        return 2 if length > 255 else 1
    if t in _BLOBS:
        return meta or _BLOBS[t]
    return 0


def _kind(t: int, meta: int, conv: Callable | None) -> tuple | None:
    """(kind, a, b, div, obj) of a captured column of type `t` converted by `conv` (None: as decoded), or None."""
    if conv is None:
        if t in _INT_WIDTHS:
            return K_INT, _INT_WIDTHS[t], 0, 0, None
        if t == T_TIME2:
            return K_TIME2, meta, 0, 0, None
        return None
    if conv is unscaled_b64:
        if t == T_NEWDECIMAL and 0 < meta >> 8 <= JDEC_PREC:
            return K_DEC, meta >> 8, meta & 0xFF, 0, None
        return None
    kind = getattr(conv, "c_kind", None)
    if not kind:
        return None
    name, args = kind[0], kind[1:]
    real, length = _real(t, meta)
    if name == "uint" and t in _INT_WIDTHS and _INT_WIDTHS[t] <= 4:
        return K_UINT, _INT_WIDTHS[t], 0, 0, None
    if name == "year" and t == T_YEAR:
        return K_YEAR, 1, 0, 0, None
    if name == "bool" and t in (T_TINY, T_BIT):
        return K_BOOL, fixed_size(t, meta), 0, 0, None
    if name == "temporal" and t == T_DATETIME2:
        return K_DT2, meta, 0, args[0], orjson.dumps(args[1])
    if name == "temporal" and t in (T_DATE, T_NEWDATE) and args[0] == 1:
        return K_DATE, 0, 0, 0, orjson.dumps(args[1])
    if name == "zoned" and t == T_TIMESTAMP2:
        return K_TS2, meta, args[0], 0, orjson.dumps(args[1])
    if name == "text" and _prefix(t, meta):
        codec = args[0]
        ascii_same = _ASCII.decode(codec, "replace") == _ASCII.decode("ascii")
        return K_TEXT, _prefix(t, meta), int(ascii_same), 0, None if codec == "utf-8" else codec
    if name == "enum" and real == T_ENUM:
        return K_ENUM, length, 0, 0, tuple(orjson.dumps(m) for m in args[0])
    if name == "set" and real == T_SET and length <= 8:
        return K_SET, length, 0, 0, tuple(orjson.dumps(m)[1:-1] for m in args[0])
    if name == "bits" and t == T_BIT and fixed_size(t, meta) == args[0]:
        return K_BITS, args[0], 0, 0, None
    if name == "base64" and _prefix(t, meta):
        return K_BLOB, _prefix(t, meta), 0, 0, None
    return None


def row_plan(
    tm: TableMap,
    outputs: list[tuple[str, Callable | None] | None],
    value: list[tuple[str, int, bytes, bytes | None]],
    key: list[tuple[str, int, bytes, bytes | None]] | None,
) -> tuple | None:
    """fastline.plan's spec for `tm` (`outputs`, `value` and `key` as row_lines.compile_line_decoders takes them):
    (null bitmap bytes, per column (kind, nullable, a, b, div, captured, obj), the value's fields (column,
    b'"name":') in binlog order, the key's in its own order or None), or None (see the module)."""
    if any(fixed is not None for _n, _j, _null, fixed in [*value, *(key or ())]):
        return None  # a masked column (its constant text)
    cols = []
    for i, (t, meta) in enumerate(zip(tm.types, tm.metas)):
        out = outputs[i] if i < len(outputs) else None
        nullable = int(bool(tm.nullable >> i & 1))
        if out is None:  # not captured: skipped by its size or its length prefix
            size, prefix = fixed_size(t, meta), _prefix(t, meta)
            if size is not None:
                cols.append((K_FIX, nullable, size, 0, 0, 0, None))
            elif prefix:
                cols.append((K_PREF, nullable, prefix, 0, 0, 0, None))
            else:
                return None
            continue
        kind = _kind(t, meta, out[1])
        if kind is None:
            return None
        k, a, b, div, obj = kind
        cols.append((k, nullable, a, b, div, 1, obj))
    by_name = {out[0]: i for i, out in enumerate(outputs[: len(cols)]) if out is not None}
    nulls = {name: null for name, _j, null, _f in value}
    if any(name not in by_name for name in nulls) or any(k[0] not in by_name for k in key or ()):
        return None
    # the value's fields in the decoder's (binlog) column order, as the generated decoders print them; each with
    # its NULL's JSON (null, or the column's default: replace.null.with.default)
    vfields = tuple(
        (i, orjson.dumps(out[0]) + b":", nulls[out[0]])
        for i, out in enumerate(outputs[: len(cols)])
        if out and out[0] in nulls
    )
    kfields = None if key is None else tuple((by_name[k[0]], orjson.dumps(k[0]) + b":", k[2]) for k in key)
    for i, _head, null in [*vfields, *(kfields or ())]:
        if null != b"null" and cols[i][6] == b"null":
            return None  # a zero date the converter makes None prints the default: the C code prints its zero
    if any(null != b"null" and cols[i][1] for i, _head, null in kfields or ()):
        return None  # a key field's NULL printing its default: compared NULL-aware by the generated UPDATE decoder
    return (len(cols) + 7) // 8, tuple(cols), vfields, kfields
