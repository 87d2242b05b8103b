"""pgoutput messages built by hand for the row parsers' tests (test_pgoutput_rows, test_pgoutput_toast,
test_pgoutput_match)."""

from __future__ import annotations

import struct


def tuple_data(*cols: bytes | None | str) -> bytes:
    """TupleData: None -> 'n', "u" -> unchanged TOAST, bytes -> 't' with its length."""
    out = struct.pack(">h", len(cols))
    for c in cols:
        if c is None:
            out += b"n"
        elif c == "u":
            out += b"u"
        else:
            out += b"t" + struct.pack(">i", len(c)) + c
    return out
