"""Small encoders shared by the type families: base64 / hex of bytes, Jackson's string escaping, floats."""

from __future__ import annotations

import binascii
import struct as _struct
from collections.abc import Callable
from typing import Any

from emulator.connect.javafloat import java_double, java_float_outlier

b2a = binascii.b2a_base64


def b64(b: bytes) -> str:
    return b2a(b, newline=False).decode("ascii")


def _b64url(b: bytes) -> str:
    return b2a(b, newline=False).decode("ascii").replace("+", "-").replace("/", "_")


def _hex(b: bytes) -> str:
    return b.hex()


BIN_ENCODERS: dict[str, Callable[[bytes], str]] = {
    "bytes": b64,  # JsonConverter prints BYTES as standard base64
    "base64": b64,
    "base64-url-safe": _b64url,
    "hex": _hex,
}


def bigint_b64(u: int) -> str:
    """Java BigInteger.toByteArray() (minimal big-endian two's complement), base64."""
    n = (u.bit_length() if u >= 0 else (~u).bit_length()) // 8 + 1
    return b2a(u.to_bytes(n, "big", signed=True), newline=False).decode("ascii")


# `bigint_json(u)` = `orjson.dumps(bigint_b64(u))` without the bytes object and the encoder for the values of
# up to 3 bytes (|u| < 2^23: a numeric(p,2) up to 83,886.07), from tables of the base64 text of 12 bits (2
# characters): 3 bytes are 4 characters, 2 bytes 3 and "=", 1 byte 2 and "==". ~80 KB of tables.
_B64 = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/"
_PAIRS = [bytes((_B64[i >> 6], _B64[i & 63])) for i in range(4096)]
_QPAIR = [b'"' + p for p in _PAIRS]  # the opening quote and 12 bits
_PAIRQ = [p + b'"' for p in _PAIRS]  # 12 bits and the closing quote
_TAIL2 = [bytes((_B64[i << 2],)) + b'="' for i in range(16)]  # the last 4 bits of 2 bytes
_ONE = [b'"%b=="' % bytes((_B64[i >> 2], _B64[(i & 3) << 4])) for i in range(256)]


def bigint_json(u: int) -> bytes:
    """Java BigInteger.toByteArray() of `u` in base64, as a JSON string."""
    if -8388608 <= u < 8388608:
        if -32768 <= u < 32768:
            if -128 <= u < 128:
                return _ONE[u & 255]
            u &= 65535
            return _QPAIR[u >> 4] + _TAIL2[u & 15]
        u &= 16777215
        return _QPAIR[u >> 12] + _PAIRQ[u & 4095]
    n = (u.bit_length() if u >= 0 else (~u).bit_length()) // 8 + 1
    return b'"%b"' % b2a(u.to_bytes(n, "big", signed=True), newline=False)


# Jackson's default string escaping (JsonGenerator.writeString): short escapes for \b \t \n \f \r,
# \" and \\, \u00XX (upper-case hex) for the other control characters, everything else verbatim.
_JACKSON_ESC = {i: f"\\u{i:04X}" for i in range(32)}
_JACKSON_ESC.update({8: "\\b", 9: "\\t", 10: "\\n", 12: "\\f", 13: "\\r", 34: '\\"', 92: "\\\\"})


def jq(s: str) -> str:
    return '"' + s.translate(_JACKSON_ESC) + '"'


FLOAT_SPECIAL = {"NaN": "NaN", "Infinity": "Infinity", "-Infinity": "-Infinity"}
INF = float("inf")


def conv_float(t: str) -> Any:
    s = FLOAT_SPECIAL.get(t)
    if s is not None:
        return s
    f = float(t)
    # Jackson prints doubles outside [1e-3, 1e7) in Java's scientific form (1.0E7)
    return f if 1e-3 <= abs(f) < 1e7 or f == 0.0 else java_double(f)


_F32 = _struct.Struct("<f")


def float4_outlier(f: float) -> Any:
    """A real outside [1e-3, 1e7) as JDK 17's Float.toString prints it (often longer than the shortest digits,
    1.17549435E-38): the JDK 17 port renders it."""
    return java_float_outlier(_F32.unpack(_F32.pack(f))[0])


def conv_float4(t: str) -> Any:
    s = FLOAT_SPECIAL.get(t)
    if s is not None:
        return s
    f = float(t)
    # PG prints a real's shortest digits, which JDK 17's Float.toString prints too inside [1e-3, 1e7)
    return f if 1e-3 <= abs(f) < 1e7 or f == 0.0 else float4_outlier(f)


def float_json(f: float) -> Any:
    return java_double(f)
