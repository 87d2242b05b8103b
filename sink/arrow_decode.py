"""What the winners' rows get decoded from Arrow on the driver, vectorized with numpy, instead of by a Spark expression
per value on executors: Connect Decimals and the source position's text.

Decimals (base64 big-endian two's complement) → Arrow decimal128. The winners' Decimal columns of up to 18 digits come to the driver as their payload text and are decoded here,
after `toArrow`: the same Spark expression per value (unbase64 → hex → conv → decimal arithmetic → text →
cast, `sink.decode`) was ~7 % of the executors' samples of the winners job (docs/sink.md, session 19); here it
is a few numpy passes over the column's bytes (~0.1 µs a value). Values as `sink.types.decoder` reads them:
`int.from_bytes(b64decode(v), "big", signed=True)` scaled by the schema's scale (no bytes: 0). A value of
more than 8 bytes or more digits than the precision fails loudly, as Spark's cast (ANSI) does.

The position's text (`seq_texts`): `sink.position_expr.text_of`'s text of the winner's position parts (longs),
byte for byte: per part Spark's `hex` (two's complement, no leading zeros, "0" for zero), lower case, `lpad` to
the part's width with '0' (which keeps the first `width` characters of a longer text). That expression
(`translate`, `lpad`, `concat` per winner) was ~6 % of the winners job's executor samples.
"""

from __future__ import annotations

import numpy as np
import pyarrow as pa

_ALPHABET = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/"
SIX = np.full(256, 255, np.uint8)
SIX[np.frombuffer(_ALPHABET, np.uint8)] = np.arange(64, dtype=np.uint8)
SIX[ord("=")] = 0
_WIDTH = 12  # base64 characters of up to 9 bytes; a Decimal of <= 18 digits takes <= 8


class DecimalError(ValueError):
    pass


def decimals(arr: pa.Array | pa.ChunkedArray, precision: int, scale: int) -> pa.Array:
    """`arr` (base64 texts, nulls) as decimal128(precision, scale); precision <= 18."""
    if isinstance(arr, pa.ChunkedArray):
        arr = arr.combine_chunks() if arr.num_chunks != 1 else arr.chunk(0)
    arr = arr.cast(pa.string())
    n = len(arr)
    typ = pa.decimal128(precision, scale)
    if n == 0:
        return pa.array([], typ)
    valid = arr.is_valid().to_numpy(zero_copy_only=False)
    bufs = arr.buffers()
    offs = np.frombuffer(bufs[1], np.int32, n + 1, arr.offset * 4).astype(np.int64)
    data = np.frombuffer(bufs[2], np.uint8) if bufs[2] is not None and bufs[2].size else np.zeros(1, np.uint8)
    lens = np.where(valid, offs[1:] - offs[:-1], 0)
    if (lens % 4).any() or (lens > _WIDTH).any():
        raise DecimalError("a Decimal value is not the base64 text of at most 8 bytes")
    col = np.arange(_WIDTH)
    at = np.minimum(offs[:-1, None] + col, len(data) - 1)
    ch = np.where(col < lens[:, None], data[at], ord("="))
    six = SIX[ch]
    if (six == 255).any():
        raise DecimalError("a Decimal value is not base64 text")
    pad = (ch == ord("=")).sum(axis=1) - (_WIDTH - lens)  # the text's own '='
    nbytes = lens // 4 * 3 - pad
    if (nbytes > 8).any():
        raise DecimalError("a Decimal value of more than 8 bytes does not fit 18 digits")
    # 4 characters → 3 bytes; big-endian, the value's bytes are the first `nbytes`: read the first 8 as a
    # signed big-endian long, then an arithmetic shift right by the bytes not the value's sign-extends it
    s6 = six.reshape(n, _WIDTH // 4, 4).astype(np.uint32)
    w24 = (s6[:, :, 0] << 18) | (s6[:, :, 1] << 12) | (s6[:, :, 2] << 6) | s6[:, :, 3]
    b = np.empty((n, 3, 3), np.uint8)
    b[:, :, 0], b[:, :, 1], b[:, :, 2] = w24 >> 16, (w24 >> 8) & 255, w24 & 255
    head = np.ascontiguousarray(b.reshape(n, 9)[:, :8]).view(">i8").reshape(n).astype(np.int64)
    v = np.where(nbytes > 0, head >> np.minimum(64 - 8 * nbytes, 63), 0)
    v[~valid] = 0
    if (np.abs(v) >= 10**precision).any() or (v == np.iinfo(np.int64).min).any():
        raise DecimalError(f"a Decimal value has more than {precision} digits")
    pairs = np.empty((n, 2), np.int64)
    pairs[:, 0] = v
    pairs[:, 1] = v >> 63  # the high 64 bits of the 128-bit little-endian value: the sign
    nulls = int(n - valid.sum())
    bitmap = pa.py_buffer(np.packbits(valid, bitorder="little")) if nulls else None
    return pa.Array.from_buffers(typ, n, [bitmap, pa.py_buffer(pairs.tobytes())], null_count=nulls)


_HEX2 = np.array([[ord(c) for c in f"{b:02x}"] for b in range(256)], np.uint8)  # a byte -> its 2 hex digits
_ZERO = ord("0")


def position_field(i: int, width: int) -> str:
    """The name of part `i` (hex width `width`) in the struct of parts the winners carry to the driver."""
    return f"o{i}_{width}"


def seq_texts(arr: pa.Array | pa.ChunkedArray) -> pa.Array:
    """A struct of position parts named by `position_field` (nulls kept) → `sink.position.seq`'s text."""
    if isinstance(arr, pa.ChunkedArray):
        arr = arr.combine_chunks() if arr.num_chunks != 1 else arr.chunk(0)
    n = len(arr)
    widths = [int(f.name.rsplit("_", 1)[1]) for f in arr.type]
    cols = []
    for child, wd in zip(arr.flatten(), widths, strict=True):
        x = child.fill_null(0).to_numpy(zero_copy_only=False).astype(">i8")
        digits = _HEX2[x.view(np.uint8).reshape(n, 8)].reshape(n, 16)  # most significant first
        if wd == 16 or ((x >= 0) & (x < 16**wd)).all():  # the last `wd` digits are the text
            cols.append(digits[:, 16 - wd :])
            continue
        nz = digits != _ZERO
        first = np.where(nz.any(axis=1), nz.argmax(axis=1), 15)  # hex() starts at the first non-zero digit
        start = np.minimum(first, 16 - wd)  # lpad: zeros before a shorter text, a longer one's first digits
        cols.append(np.take_along_axis(digits, start[:, None] + np.arange(wd), axis=1))
    chars = np.ascontiguousarray(np.concatenate(cols, axis=1))
    offsets = np.arange(n + 1, dtype=np.int32) * chars.shape[1]
    nulls = arr.null_count
    bitmap = None
    if nulls:
        bitmap = pa.py_buffer(np.packbits(arr.is_valid().to_numpy(zero_copy_only=False), bitorder="little"))
    return pa.Array.from_buffers(
        pa.string(), n, [bitmap, pa.py_buffer(offsets), pa.py_buffer(chars.tobytes())], null_count=nulls
    )
