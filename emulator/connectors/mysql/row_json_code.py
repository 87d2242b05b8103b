"""The row decoders' lines for the columns whose JSON the C accelerator makes straight from the row's bytes
(linefill.ACCEL: `_jt`/`_jts` a UTF-8 text value, `_jd`/`_jds` a DECIMAL's base64 text), apart from the generic
column code (row_decoders.py) so that each stays small: which column takes that way (`accel_kind`) and its lines
(`accel_lines`)."""

from __future__ import annotations

from emulator.connectors.mysql.binlog import T_NEWDECIMAL
from emulator.connectors.mysql.values import unscaled_b64

# text_decoder("utf-8")'s inline form: valid UTF-8 (nearly every value) decodes the same strictly, and
# `decode()` without arguments skips the codec and error handler lookups (~190 instructions a value)
UTF8_REPLACE = "r.decode('utf-8', 'replace')"
# the DECIMAL precision fastline.jdec takes (its DEC_MAX_PREC)
JDEC_PREC = 30


def prefixed(k: int) -> list[str]:
    """A value after its `k`-byte little-endian length: `n` is where it ends (fewer additions per value)."""
    if k == 1:
        length = "b[p]"
    elif k == 2:
        length = "(b[p] | b[p + 1] << 8)"
    else:
        length = f"int.from_bytes(b[p:p + {k}], 'little')"
    return [f"n = p + {k} + {length}", f"r = b[p + {k}:n]", "p = n"]


def accel_kind(c, t: int, meta: int, conv_fn) -> tuple[int, tuple[int, int] | None]:
    """-> (jtext, jdec) of column `c` (a row_decoders._Col with `.name`, `.conv`, `.quoted`, `.code` set) with the
    C functions: `jtext` the length prefix's width of a UTF-8 text value whose JSON one call makes (its local then
    holds that JSON, or None), else 0; `jdec` (prec, scale) of a DECIMAL of at most JDEC_PREC digits made as its
    base64 text (values.unscaled_b64's json_quoted_inline), else None. `conv_fn`: the column's converter."""
    jtext, jdec = 0, None
    if c.name is not None and c.conv == UTF8_REPLACE and not c.quoted:
        jtext = next((k for k in (1, 2, 3, 4) if c.code == prefixed(k)), 0)
    if c.quoted and t == T_NEWDECIMAL and conv_fn is unscaled_b64 and meta >> 8 <= JDEC_PREC:
        jdec = (meta >> 8, meta & 0xFF)
    return jtext, jdec


def accel_lines(c, var: str, reuse: bool, keep: bool) -> list[str] | None:
    """Lines decoding column `c` (captured) into `var` by the C functions, or None (not such a column). `keep`:
    the before image of an UPDATE (the value's place kept, `s{i}`/`e{i}`); `reuse`: the after image (compared with
    the before's there, its JSON reused when the bytes are the same)."""
    if c.jtext:  # the JSON of the bytes after the prefix, the before's span kept (s, e), the after's compared
        k = c.jtext
        out = [c.code[0]]  # n = the value's end
        if reuse:
            out.append(f"{var} = _jts(b, p + {k}, n, s{c.i}, e{c.i}, v{c.i})")
        else:
            out.append(f"{var} = _jt(b, p + {k}, n)")
            if keep:
                out += [f"s{c.i} = p + {k}", f"e{c.i} = n"]
        return [*out, "p = n"]
    if c.jdec:  # the base64 text from the bytes at p, the before's place kept (s), the after's compared there
        prec, scale = c.jdec
        if reuse:
            out = [f"{var} = _jds(b, p, {prec}, {scale}, s{c.i}, v{c.i})"]
        else:
            out = [f"{var} = _jd(b, p, {prec}, {scale})"] + ([f"s{c.i} = p"] if keep else [])
        return [*out, f"p += {c.size}"]
    return None
