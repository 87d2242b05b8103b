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
