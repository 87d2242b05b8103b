"""Logical values made from the physical columns pyarrow's JSON reader gives (`sink.arrow_json`), vectorized,
with the results of `sink.decode.convert`'s Spark expressions: ZonedTimestamp texts, base64 bytes, and the
JsonConverter's non-numeric doubles.

Each function reads only the texts Debezium writes (JsonConverter's base64 with padding, ZonedTimestamp's
`yyyy-MM-ddTHH:mm:ss[.f{1,9}]Z` and `infinity`/`-infinity`) and raises `NotRead` on any other text, where
Spark's lenient readings (the MIME base64 decoder, `try_cast`'s other timestamp forms) would need repeating:
the caller then takes the expression path, which reads them as before.
"""

from __future__ import annotations

import re

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from sink.arrow_decode import SIX
from sink.decode import MAX_US, MIN_US


class NotRead(Exception):
    """The texts are not read here exactly as `from_json` reads them: the caller takes the expression path."""


def _one(arr: pa.Array | pa.ChunkedArray) -> pa.Array:
    if isinstance(arr, pa.ChunkedArray):
        return arr.combine_chunks() if arr.num_chunks != 1 else arr.chunk(0)
    return arr


# the strings JsonConverter (Jackson) writes for a double's NaN and infinities, as a value of an object (`:`) or
# of an array (`[`, `,`) and followed by `,`, `}` or `]` (not a field name); inside a JSON string a `"` is always
# escaped, so such bytes are tokens, never a string's text
_NON_NUMERIC = re.compile(rb'([:\[,])"(NaN|Infinity|-Infinity)"(?=[,}\]])')


def bare_non_numeric(data: bytes) -> bytes | None:
    """The texts with `"NaN"`, `"Infinity"`, `"-Infinity"` values made bare tokens, which pyarrow's reader
    parses as the double (Spark's `from_json` reads those strings as the double too); None: there are none.
    A string column holding such a text then fails the reading (a number where a string is expected): the
    caller takes the expressions for that group, never a wrong value."""
    if b'"NaN"' not in data and b'Infinity"' not in data:
        return None
    return _NON_NUMERIC.sub(rb"\1\2", data)


_ZONED = r"^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d{1,9})?Z$"


def zoned(arr: pa.Array | pa.ChunkedArray, typ: pa.DataType) -> pa.Array:
    """ZonedTimestamp texts -> `typ` (Spark's timestamp with the session's zone): `decode.convert`'s
    `infinity`/`-infinity` as the ends of Python's range, else Spark's cast of the ISO text (fraction digits
    beyond the microsecond dropped). Other texts (offsets other than `Z`, years beyond 4 digits, other
    spellings of infinity): `NotRead`."""
    arr = _one(arr)
    if pa.types.is_large_string(arr.type):
        arr = arr.cast(pa.string())
    pos, neg = pc.equal(arr, "infinity"), pc.equal(arr, "-infinity")
    inf = pc.or_(pos, neg)
    ok = pc.or_kleene(pc.match_substring_regex(arr, _ZONED), inf)
    if not pc.all(pc.fill_null(ok, True)).as_py():
        raise NotRead("a ZonedTimestamp text of another form")
    text = pc.if_else(inf, "1970-01-01T00:00:00Z", arr)
    try:
        secs = pc.strptime(pc.utf8_slice_codeunits(text, 0, 19), format="%Y-%m-%dT%H:%M:%S", unit="s")
    except pa.ArrowInvalid as e:  # e.g. month 13: Spark's try_cast gives null, not repeated here
        raise NotRead(str(e)) from e
    frac = pc.utf8_rpad(pc.replace_substring(pc.utf8_slice_codeunits(text, 20, 26), "Z", ""), 6, "0")
    us = pc.add(pc.multiply(secs.cast(pa.int64()), 1_000_000), frac.cast(pa.int64()))
    us = pc.if_else(pos, MAX_US, pc.if_else(neg, MIN_US, us))
    return us.cast(pa.timestamp("us")).cast(typ)


def base64_bytes(arr: pa.Array | pa.ChunkedArray, typ: pa.DataType) -> pa.Array:
    """Base64 texts (JsonConverter's bytes) -> binary `typ` (Spark's `unbase64`), all values in one pass: each
    text is a whole number of 4-character groups, so the column's data buffer decodes group by group and a
    value's padding drops the last bytes of its last group. A text that is not padded base64: `NotRead`."""
    arr = _one(arr)
    if pa.types.is_large_string(arr.type) or pa.types.is_large_binary(arr.type):
        width, odt = 8, np.int64
    else:
        width, odt = 4, np.int32
    n = len(arr)
    valid = arr.is_valid().to_numpy(zero_copy_only=False)
    bufs = arr.buffers()
    offs = np.frombuffer(bufs[1], odt, n + 1, arr.offset * width).astype(np.int64)
    start, end = int(offs[0]), int(offs[-1])
    data = np.frombuffer(bufs[2], np.uint8)[start:end] if bufs[2] is not None else np.zeros(0, np.uint8)
    offs = offs - start
    lens = np.where(valid, offs[1:] - offs[:-1], 0)
    if (lens % 4).any() or len(data) % 4:
        raise NotRead("a base64 text whose length is not a multiple of 4")
    six = SIX[data]
    if (six == 255).any():
        raise NotRead("a character outside base64's alphabet")
    eq = data == ord("=")
    last = offs[1:] - 1
    has = lens > 0
    p1 = np.where(has, eq[np.maximum(last, 0)] if len(data) else False, False)
    p2 = np.where(has, eq[np.maximum(last - 1, 0)] if len(data) else False, False)
    if (p2 & ~p1).any():
        raise NotRead("a base64 text with '=' before its end")
    pad = p1.astype(np.int64) + p2
    if int(eq.sum()) != int(pad.sum()):
        raise NotRead("a base64 text with '=' inside")
    g = six.reshape(-1, 4).astype(np.uint32)
    w24 = (g[:, 0] << 18) | (g[:, 1] << 12) | (g[:, 2] << 6) | g[:, 3]
    out = np.empty((len(g), 3), np.uint8)
    out[:, 0], out[:, 1], out[:, 2] = w24 >> 16, (w24 >> 8) & 255, w24 & 255
    out = out.reshape(-1)
    nbytes = lens // 4 * 3 - pad
    keep = np.ones(len(out), bool)
    ends = (offs[1:] // 4 * 3)[has]  # one past the value's last decoded byte, before its padding
    for k in (1, 2):
        cut = (pad[has] >= k).nonzero()[0]
        keep[ends[cut] - k] = False
    body = out[keep]
    new = np.zeros(n + 1, np.int64)
    np.cumsum(nbytes, out=new[1:])
    nulls = int(n - valid.sum())
    bitmap = pa.py_buffer(np.packbits(valid, bitorder="little")) if nulls else None
    large = pa.types.is_large_binary(typ)
    res = pa.Array.from_buffers(
        pa.large_binary() if large else pa.binary(),
        n,
        [bitmap, pa.py_buffer(new if large else new.astype(np.int32)), pa.py_buffer(body.tobytes())],
        null_count=nulls,
    )
    return res.cast(typ)
