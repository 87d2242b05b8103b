"""bytea and bit / varbit text -> bytes, base64 and booleans."""

from __future__ import annotations

import re

from emulator.connectors.postgres.types.encoders import b2a

_BYTEA_ESCAPE = re.compile(r"\\(\\|[0-7]{3})")


def bytea_bytes(t: str) -> bytes:
    if t[:2] == "\\x":
        return bytes.fromhex(t[2:])
    # bytea_output = escape: printable ASCII verbatim, \\ and \ooo octal escapes
    out = bytearray()
    pos = 0
    for m in _BYTEA_ESCAPE.finditer(t):
        out += t[pos : m.start()].encode("latin-1")
        g = m.group(1)
        out.append(92 if g == "\\" else int(g, 8))
        pos = m.end()
    out += t[pos:].encode("latin-1")
    return bytes(out)


def bits_b64(t: str) -> str:
    """Bit string -> BitSet.toByteArray(): the integer value, little-endian, minimal ("" when zero)."""
    if not t:
        return ""
    n = int(t, 2)
    if n == 0:
        return ""
    return b2a(n.to_bytes((n.bit_length() + 7) // 8, "little"), newline=False).decode("ascii")


def bit_bool(t: str) -> bool:
    return "1" in t
