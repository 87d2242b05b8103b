"""Debezium's `io.debezium.util.MurmurHash3` (x64, 64-bit result, seed 9001), the `murmur` hash of
PartitionRouting: strings through its own UTF-8 walk, other values through their Java `hashCode()`.
Java's signed bytes are sign-extended where Debezium's code shifts them (kept here on purpose)."""

from __future__ import annotations

M64 = (1 << 64) - 1
SEED = 9001


def _signed_byte(b: int) -> int:
    b &= 0xFF
    return b - 256 if b >= 128 else b


class _State:
    __slots__ = ("h1", "h2", "k1", "k2", "c1", "c2")

    def __init__(self, seed: int) -> None:
        self.h1 = (0x9368E53C2F6AF274 ^ seed) & M64
        self.h2 = (0x586DCD208F7CD3FD ^ seed) & M64
        self.c1 = 0x87C37B91114253D5
        self.c2 = 0x4CF5AD432745937F
        self.k1 = 0
        self.k2 = 0


def _rotl(x: int, r: int) -> int:
    return ((x << r) | (x >> (64 - r))) & M64


def _bmix(s: _State) -> None:
    s.k1 = (s.k1 * s.c1) & M64
    s.k1 = _rotl(s.k1, 23)
    s.k1 = (s.k1 * s.c2) & M64
    s.h1 ^= s.k1
    s.h1 = (s.h1 + s.h2) & M64
    s.h2 = _rotl(s.h2, 41)
    s.k2 = (s.k2 * s.c2) & M64
    s.k2 = _rotl(s.k2, 23)
    s.k2 = (s.k2 * s.c1) & M64
    s.h2 ^= s.k2
    s.h2 = (s.h2 + s.h1) & M64
    s.h1 = (s.h1 * 3 + 0x52DCE729) & M64
    s.h2 = (s.h2 * 3 + 0x38495AB5) & M64
    s.c1 = (s.c1 * 5 + 0x7B7D159C) & M64
    s.c2 = (s.c2 * 5 + 0x6BCE6396) & M64


def _fmix(k: int) -> int:
    k ^= k >> 33
    k = (k * 0xFF51AFD7ED558CCD) & M64
    k ^= k >> 33
    k = (k * 0xC4CEB9FE1A85EC53) & M64
    k ^= k >> 33
    return k


def _finish(s: _State, length: int) -> int:
    s.h2 ^= length & M64
    s.h1 = (s.h1 + s.h2) & M64
    s.h2 = (s.h2 + s.h1) & M64
    s.h1 = _fmix(s.h1)
    s.h2 = _fmix(s.h2)
    s.h1 = (s.h1 + s.h2) & M64
    return s.h1


def _int32(x: int) -> int:
    x &= 0xFFFFFFFF
    return x - (1 << 32) if x >= 1 << 31 else x


def hash_int(hashcode: int) -> int:
    """`hash(int)`: the four bytes of a hashCode, sign-extended as Debezium shifts them."""
    s = _State(SEED)
    k = 0
    for i in (3, 2, 1):
        k ^= (_signed_byte(hashcode >> (8 * i)) << (8 * i)) & M64
    k ^= _signed_byte(hashcode) & M64
    s.k1 = k & M64
    _bmix(s)
    return _int32(_finish(s, 4) >> 32)


def hash_string(text: str) -> int:
    """`hashString`: UTF-8 bytes of the code points (unpaired surrogates as '?'), 64-bit murmur, top half."""
    s = _State(SEED)
    n = 0
    data = text.encode("utf-16-le", "surrogatepass")
    units = [data[i] | data[i + 1] << 8 for i in range(0, len(data), 2)]
    out = bytearray()
    i = 0
    while i < len(units):
        c = units[i]
        if 0xD800 <= c <= 0xDBFF and i + 1 < len(units) and 0xDC00 <= units[i + 1] <= 0xDFFF:
            cp = 0x10000 + ((c - 0xD800) << 10) + (units[i + 1] - 0xDC00)
            i += 1
        elif 0xD800 <= c <= 0xDFFF:
            cp = ord("?")
        else:
            cp = c
        out += chr(cp).encode("utf-8")
        i += 1
    for b in out:
        shift = (n & 7) * 8
        bb = (b & 0xFF) << shift
        if n & 8 == 0:
            s.k1 |= bb
        else:
            s.k2 |= bb
            if n & 0xF == 0xF:
                _bmix(s)
                s.k1 = 0
                s.k2 = 0
        n += 1
    k1, k2 = s.k1, s.k2
    s.k1 = s.k2 = 0
    rem = n & 15
    if rem:
        for j in range(min(rem, 15) - 1, 7, -1):  # bytes 8..14 into k2
            s.k2 ^= (_signed_byte(k2 >> (8 * (j - 8))) << (8 * (j - 8))) & M64
        for j in range(min(rem, 8) - 1, -1, -1):  # bytes 0..7 into k1
            s.k1 ^= (_signed_byte(k1 >> (8 * j)) << (8 * j)) & M64
        _bmix(s)
    return _int32(_finish(s, n) >> 32)
