"""Row decoders generated per (table map, captured table): straight-line Python with one `unpack_from` or
slice per column and the column's converter inlined, the row dict built as a literal (see `binlog.py` for
why: mysql-replication decodes value by value through generic code)."""

from __future__ import annotations

import re
import struct
from collections.abc import Callable

from emulator.connectors.mysql.binlog import (
    T_BIT,
    T_BLOB,
    T_DATE,
    T_DATETIME,
    T_DATETIME2,
    T_DOUBLE,
    T_ENUM,
    T_FLOAT,
    T_GEOMETRY,
    T_INT24,
    T_JSON,
    T_LONG,
    T_LONG_BLOB,
    T_LONGLONG,
    T_MEDIUM_BLOB,
    T_NEWDATE,
    T_NEWDECIMAL,
    T_NULL,
    T_SET,
    T_SHORT,
    T_STRING,
    T_TIME,
    T_TIME2,
    T_TIMESTAMP,
    T_TIMESTAMP2,
    T_TINY,
    T_TINY_BLOB,
    T_VAR_STRING,
    T_VARCHAR,
    T_YEAR,
    TableMap,
)
from emulator.connectors.mysql.binlog_values import (
    DATETIME2_CACHE,
    DIG2BYTES,
    datetime2_base,
    decimal_size,
    decode_date,
    decode_datetime2,
    decode_datetime_old,
    decode_decimal,
    decode_time2,
    decode_time_old,
    decode_timestamp2,
    decode_timestamp_old,
    frac_bytes,
)
from emulator.connectors.mysql.row_json_code import UTF8_REPLACE, accel_kind, accel_lines, prefixed
from emulator.connectors.mysql.values import ZERO

_S = {
    "b": struct.Struct("<b"),
    "h": struct.Struct("<h"),
    "i": struct.Struct("<i"),
    "q": struct.Struct("<q"),
    "f": struct.Struct("<f"),
    "d": struct.Struct("<d"),
    "I": struct.Struct(">I"),
}


class UnsupportedColumn(ValueError):
    pass


# struct formats of DECIMAL digit groups, one a byte size: a 3-byte group is read as 2 + 1
_GROUP_CODES = {1: "B", 2: "H", 3: "HB", 4: "I"}


def decimal_code(prec: int, scale: int, g: dict) -> list[str]:
    """Inline decoding of a binary DECIMAL into its unscaled integer. A positive value (its sign bit set):
    the 9-digit groups read by one struct `unpack_from` in place (the first less its sign bit); a negative
    one (every byte inverted): one int.from_bytes, the groups taken out with shifts and masks (struct would
    need an inverted copy first)."""
    size = decimal_size(prec, scale)
    intg = prec - scale
    intg0, intg0x = divmod(intg, 9)
    frac0, frac0x = divmod(scale, 9)
    groups = (
        ([(DIG2BYTES[intg0x], intg0x)] if intg0x else [])
        + [(4, 9)] * (intg0 + frac0)
        + ([(DIG2BYTES[frac0x], frac0x)] if frac0x else [])
    )
    bits = size * 8
    terms = []
    shift = bits
    digits_after = sum(d for _, d in groups)
    for nbytes, digits in groups:
        shift -= nbytes * 8
        digits_after -= digits
        part = f"((x >> {shift}) & {(1 << nbytes * 8) - 1})" if shift else f"(x & {(1 << nbytes * 8) - 1})"
        terms.append(f"{part} * {10**digits_after}" if digits_after else part)
    codes, names, parts = "", [], []
    digits_after = sum(d for _, d in groups)
    for k, (nbytes, digits) in enumerate(groups):
        digits_after -= digits
        codes += _GROUP_CODES[nbytes]
        if nbytes == 3:
            names += [f"x{k}", f"y{k}"]
            part = f"(x{k} << 8 | y{k})"
        else:
            names.append(f"x{k}")
            part = f"x{k}"
        if k == 0:  # less the sign bit
            part = f"({part} - {1 << (nbytes * 8 - 1)})"
        parts.append(f"{part} * {10**digits_after}" if digits_after else part)
    unpack = f"_decgroups_{codes}"
    g[unpack] = struct.Struct(">" + codes).unpack_from
    return [
        "if b[p] & 128:",
        f"    {', '.join(names)}{',' if len(names) == 1 else ''} = {unpack}(b, p)",
        f"    r = {' + '.join(parts)}",
        "else:",
        f"    x = int.from_bytes(b[p:p + {size}], 'big') ^ {(1 << bits) - 1 - (1 << (bits - 1))}",
        f"    r = -({' + '.join(terms) or '0'})",
        f"p += {size}",
    ]


# a column code's first line reading the whole value as one int `x` (an UPDATE keeps and compares that int)
_WHOLE = "x = _QB(b, p)[0]"


def _column_code(t: int, meta: int, i: int, g: dict) -> list[str]:
    """Lines decoding column `i` from `b` at `p` into `r`, advancing `p` (what the lines use put in `g`)."""
    if t == T_TINY:
        return ["r = b[p]", "if r > 127: r -= 256", "p += 1"]
    if t == T_SHORT:
        return ["r = _h(b, p)[0]", "p += 2"]
    if t == T_INT24:
        return ["r = int.from_bytes(b[p:p + 3], 'little', signed=True)", "p += 3"]
    if t == T_LONG:
        return ["r = _i(b, p)[0]", "p += 4"]
    if t == T_LONGLONG:
        return ["r = _q(b, p)[0]", "p += 8"]
    if t == T_FLOAT:
        return ["r = _f(b, p)[0]", "p += 4"]
    if t == T_DOUBLE:
        return ["r = _d(b, p)[0]", "p += 8"]
    if t == T_YEAR:
        return ["r = b[p]", "p += 1"]
    if t == T_NULL:
        return ["r = None"]
    if t in (T_VARCHAR, T_VAR_STRING):
        return prefixed(1 if meta < 256 else 2)
    if t in (T_STRING, T_ENUM, T_SET):
        real, length = meta >> 8, meta & 0xFF
        if real and (real & 0x30) != 0x30:
            length |= ((real & 0x30) ^ 0x30) << 4
            real |= 0x30
        if real == T_ENUM:
            return [f"r = int.from_bytes(b[p:p + {length}], 'little')", f"p += {length}"]
        if real == T_SET:
            return [f"r = int.from_bytes(b[p:p + {length}], 'little')", f"p += {length}"]
        return prefixed(2 if length > 255 else 1)
    if t in (T_BLOB, T_TINY_BLOB, T_MEDIUM_BLOB, T_LONG_BLOB, T_GEOMETRY, T_JSON):
        return prefixed(meta or {T_TINY_BLOB: 1, T_BLOB: 2, T_MEDIUM_BLOB: 3, T_LONG_BLOB: 4}.get(t, 4))
    if t == T_NEWDECIMAL:
        prec, scale = meta >> 8, meta & 0xFF
        return decimal_code(prec, scale, g)
    if t in (T_DATE, T_NEWDATE):
        return ["r = _date(b[p] | b[p + 1] << 8 | b[p + 2] << 16)", "p += 3"]
    if t == T_TIME2:
        return [f"r = _time2(b, p, {meta})", f"p += {3 + frac_bytes(meta)}"]
    if t == T_DATETIME2 and frac_bytes(meta) == 3:  # 8 bytes: one big-endian unpack for both parts
        return [
            _WHOLE,
            "r = _dtcache.get(x >> 24)",  # datetime2_base's cache, without its call when the value is in it
            "if r is None: r = _dtc(x >> 24)",
            "if r is not _ZERO: r += x & 16777215",
            "p += 8",
        ]
    if t == T_DATETIME2:
        fb = frac_bytes(meta)
        frac = {
            0: "0",
            1: "b[p + 5] * 10000",
            2: "int.from_bytes(b[p + 5:p + 7], 'big') * 100",
            3: "int.from_bytes(b[p + 5:p + 8], 'big')",
        }[fb]
        return [
            "x = int.from_bytes(b[p:p + 5], 'big')",
            "r = _dtcache.get(x)",
            "if r is None: r = _dtc(x)",
            f"if r is not _ZERO: r += {frac}",
            f"p += {5 + fb}",
        ]
    if t == T_TIMESTAMP2:
        return [f"r = _ts2(b, p, {meta})", f"p += {4 + frac_bytes(meta)}"]
    if t == T_TIMESTAMP:
        return ["r = _ts_old(int.from_bytes(b[p:p + 4], 'little'))", "p += 4"]
    if t == T_DATETIME:
        return ["r = _dt_old(int.from_bytes(b[p:p + 8], 'little'))", "p += 8"]
    if t == T_TIME:
        return ["r = _time_old(int.from_bytes(b[p:p + 3], 'little', signed=True))", "p += 3"]
    if t == T_BIT:
        bits, nbytes = meta >> 8, meta & 0xFF
        size = nbytes + (1 if bits else 0)
        return [f"r = int.from_bytes(b[p:p + {size}], 'big')", f"p += {size}"]
    raise UnsupportedColumn(f"binlog column type {t} is not supported (column {i + 1})")


_GLOBALS = {
    "_h": _S["h"].unpack_from,
    "_i": _S["i"].unpack_from,
    "_q": _S["q"].unpack_from,
    "_f": _S["f"].unpack_from,
    "_d": _S["d"].unpack_from,
    "_QB": struct.Struct(">Q").unpack_from,
    "_dec": decode_decimal,
    "_date": decode_date,
    "_time2": decode_time2,
    "_dt2": decode_datetime2,
    "_ts2": decode_timestamp2,
    "_ts_old": decode_timestamp_old,
    "_dtc": datetime2_base,
    "_dtcache": DATETIME2_CACHE,
    "_ZERO": ZERO,
    "_dt_old": decode_datetime_old,
    "_time_old": decode_time_old,
}


# little-endian fixed-width columns `struct` reads directly; a run of them that cannot be NULL is read by
# one `unpack_from` (the null bitmap too, when the run starts the row and the bitmap has a struct size)
_RUN_CODES = {
    T_TINY: "b",
    T_SHORT: "h",
    T_LONG: "i",
    T_LONGLONG: "q",
    T_FLOAT: "f",
    T_DOUBLE: "d",
    T_YEAR: "B",
}
_RUN_SIZES = {"b": 1, "B": 1, "h": 2, "i": 4, "q": 8, "f": 4, "d": 8}
_BITMAP_CODES = {1: "B", 2: "H", 4: "I", 8: "Q"}
_LENGTH_PREFIXED = frozenset(
    {T_VARCHAR, T_VAR_STRING, T_BLOB, T_TINY_BLOB, T_MEDIUM_BLOB, T_LONG_BLOB, T_GEOMETRY, T_JSON}
)
_WORD_R = re.compile(r"\br\b")


def fixed_size(t: int, meta: int) -> int | None:
    """Bytes of a column value whose width the table map fixes, else None (length-prefixed)."""
    if t in _RUN_CODES:
        return _RUN_SIZES[_RUN_CODES[t]]
    if t in _LENGTH_PREFIXED:
        return None
    if t in (T_STRING, T_ENUM, T_SET):
        real, length = meta >> 8, meta & 0xFF
        if real and (real & 0x30) != 0x30:  # as _column_code
            length |= ((real & 0x30) ^ 0x30) << 4
            real |= 0x30
        return length if real in (T_ENUM, T_SET) else None
    if t == T_NEWDECIMAL:
        return decimal_size(meta >> 8, meta & 0xFF)
    if t in (T_DATE, T_NEWDATE, T_INT24, T_TIME):
        return 3
    if t == T_TIME2:
        return 3 + frac_bytes(meta)
    if t == T_DATETIME2:
        return 5 + frac_bytes(meta)
    if t == T_TIMESTAMP2:
        return 4 + frac_bytes(meta)
    if t == T_TIMESTAMP:
        return 4
    if t == T_DATETIME:
        return 8
    if t == T_NULL:
        return 0
    if t == T_BIT:
        return (meta & 0xFF) + (1 if meta >> 8 else 0)
    return None


def _conversion(i: int, conv: Callable | None, g: dict, json: bool = False) -> str | None:
    """Column `i`'s converter as an expression of `r` (its inline form, else a call), or None: the value is
    `r` itself. `json`: its `json_quoted_inline` form when it has one (the JSON string's text unquoted)."""
    if conv is None:
        return None
    inline = getattr(conv, "json_quoted_inline", None) if json else None
    if inline is None:
        inline = getattr(conv, "inline", None)
    if inline is None:
        g[f"c{i}"] = conv
        return f"c{i}(r)"
    names = getattr(conv, "inline_globals", None)
    if names:  # the expression's own names, made unique to this column
        g.update({f"_{k}{i}": v for k, v in names.items()})
        inline = inline.format(**{k: f"_{k}{i}" for k in names})
    return inline


# inline conversions cheaper than keeping and comparing the value's bytes (values.nonzero: BOOLEAN)
_CHEAP = frozenset({"r != 0"})


class _Col:
    __slots__ = (
        "i",
        "t",
        "meta",
        "nullable",
        "name",
        "conv",
        "code",
        "size",
        "run",
        "quoted",
        "jtext",
        "jdec",
    )

    def __init__(
        self, i: int, t: int, meta: int, nullable: bool, out, g: dict, json: bool = False, accel: bool = False
    ) -> None:
        self.i, self.t, self.meta, self.nullable = i, t, meta, nullable
        self.name = out[0] if out is not None else None
        self.conv = _conversion(i, out[1], g, json) if out is not None else None
        # the value is a JSON string's text without its quotes (json_quoted_inline)
        self.quoted = json and out is not None and getattr(out[1], "json_quoted_inline", None) is not None
        self.code = _column_code(t, meta, i, g)
        self.size = fixed_size(t, meta)
        # in a struct run: not NULL, and no costly converter call (float's Java printing is compared raw)
        self.run = (
            not nullable and t in _RUN_CODES and not (t in (T_FLOAT, T_DOUBLE) and out and out[1] is not None)
        )
        # `accel` (image_code's C functions): a UTF-8 text value's JSON made from the row's bytes by one call, no
        # slice or str (the value's local holds that JSON, or None): `jtext` the length prefix's width, else 0;
        # a DECIMAL of at most JDEC_PREC digits as its base64 text (values.unscaled_b64's json_quoted_inline):
        # `jdec` (prec, scale), else None
        self.jtext, self.jdec = accel_kind(self, t, meta, out[1]) if accel and out is not None else (0, None)


def _image(cols: list[_Col], nb: int, v: str, g: dict, reuse: set[int] | None, keep: set[int]) -> list[str]:
    """Lines decoding one row image at `p` into the locals `{v}{i}`, advancing `p`.

    `keep`: columns whose raw bytes are kept as `s{i}` (the before image of an UPDATE); `reuse`: columns
    whose value is taken from the before image (`v{i}`) when their raw bytes are the same (the after
    image): an UPDATE rewrites both images whole, most columns unchanged."""
    lines: list[str] = []
    bits = "nulls" if v == "v" else "nulls2"
    k = 0
    if cols and cols[0].run and nb in _BITMAP_CODES:  # the bitmap joins the first run
        k = _run(cols, 0, lines, g, v, bits, _BITMAP_CODES[nb], nb)
    elif any(c.nullable for c in cols):
        if nb == 1:
            lines.append(f"{bits} = b[p]")
        elif nb == 2:
            lines.append(f"{bits} = b[p] | b[p + 1] << 8")
        else:
            lines.append(f"{bits} = int.from_bytes(b[p:p + {nb}], 'little')")
        lines.append(f"p += {nb}")
    else:
        lines.append(f"p += {nb}")
    while k < len(cols):
        c = cols[k]
        if c.run:
            k = _run(cols, k, lines, g, v, "", "", 0)
            continue
        k += 1
        body = _column(c, v, reuse, keep)
        if c.nullable:
            lines.append(f"if {bits} & {1 << c.i}:")
            lines.append(f"    {v}{c.i} = None")
            if c.i in keep:
                # (a JTEXT column's span of the before's bytes: none, the after's compared with nothing)
                lines.append(
                    f"    s{c.i} = e{c.i} = -1" if c.jtext else f"    s{c.i} = {-1 if c.jdec else None}"
                )
            lines.append("else:")
            lines.extend("    " + x for x in body)
        else:
            lines.extend(body)
    return lines


def _single_runs(cols: list[_Col], nb: int) -> None:
    """A run of one column reads faster on its own (unless the null bitmap joins it, at the start)."""
    for k, c in enumerate(cols):
        alone = not ((k and cols[k - 1].run) or (k + 1 < len(cols) and cols[k + 1].run))
        if c.run and alone and not (k == 0 and nb in _BITMAP_CODES):
            c.run = False


def _run(cols: list[_Col], k: int, lines: list[str], g: dict, v: str, bits: str, fmt: str, size: int) -> int:
    """One `unpack_from` for the run of struct columns starting at `cols[k]` (after the null bitmap `bits`
    of `size` bytes, when given) -> the index after the run."""
    targets = [bits] if bits else []
    convs = []
    while k < len(cols) and cols[k].run:
        c = cols[k]
        code = _RUN_CODES[c.t]
        size += _RUN_SIZES[code]
        if c.name is None:
            fmt += f"{_RUN_SIZES[code]}x"
        else:
            fmt += code
            targets.append(f"{v}{c.i}")
            if c.conv is not None:
                convs.append(f"{v}{c.i} = " + _WORD_R.sub(f"{v}{c.i}", c.conv))
        k += 1
    name = f"_run{sum(1 for x in g if x.startswith('_run'))}"
    g[name] = struct.Struct("<" + fmt).unpack_from
    if targets:
        lines.append(f"{', '.join(targets)}{',' if len(targets) == 1 else ''} = {name}(b, p)")
    lines.append(f"p += {size}")
    lines.extend(convs)
    return k


def _assign(var: str, conv: str) -> list[str]:
    """`var = conv`; a UTF-8 text converter's decode strict first, its own form only for invalid bytes."""
    if conv != UTF8_REPLACE:
        return [f"{var} = {conv}"]
    return ["try:", f"    {var} = r.decode()", "except UnicodeDecodeError:", f"    {var} = {conv}"]


def _column(c: _Col, v: str, reuse: set[int] | None, keep: set[int]) -> list[str]:
    """Lines decoding one column (not in a run) at `p` into `{v}{i}`."""
    var = f"{v}{c.i}"
    if c.name is None:  # not captured: only skipped
        return [f"p += {c.size}"] if c.size is not None else c.code
    accel = accel_lines(c, var, reuse is not None and c.i in reuse, c.i in keep)
    if accel is not None:  # a text's JSON or a DECIMAL's base64 by the C functions (row_json_code.py)
        return accel
    if reuse is not None and c.i in reuse:
        if c.code[0] == _WHOLE:  # the value's 8 bytes as one int (DATETIME2(4-6)): compared as it is
            return [
                _WHOLE,
                f"if x == s{c.i}:",
                f"    {var} = v{c.i}",
                f"    p += {c.size}",
                "else:",
                *("    " + x for x in c.code[1:]),
                *("    " + x for x in _assign(var, c.conv)),
            ]
        if c.size is None:  # length-prefixed: the code's slice is the raw value
            if c.conv != UTF8_REPLACE:
                return c.code + [f"{var} = v{c.i} if r == s{c.i} else {c.conv}"]
            return [*c.code, f"if r == s{c.i}:", f"    {var} = v{c.i}", "else:"] + [
                "    " + x for x in _assign(var, c.conv)
            ]
        return [
            f"r = b[p:p + {c.size}]",
            f"if r == s{c.i}:",
            f"    {var} = v{c.i}",
            f"    p += {c.size}",
            "else:",
            *("    " + x for x in c.code),
            *("    " + x for x in _assign(var, c.conv)),
        ]
    if c.conv is None:
        return [_WORD_R.sub(var, x) for x in c.code]
    if c.conv in _CHEAP and c.t == T_TINY:  # BOOLEAN: the byte's sign does not change `r != 0`
        return [f"{var} = b[p] != 0", "p += 1"]
    out = list(c.code)
    if c.i in keep:
        if c.size is None:
            out.append(f"s{c.i} = r")
        elif out[0] == _WHOLE:  # the int the code reads anyway, not a slice of its bytes (~600 instructions)
            out.insert(1, f"s{c.i} = x")
        else:
            out.insert(0, f"s{c.i} = b[p:p + {c.size}]")
    out += _assign(var, c.conv)
    return out


class ImageCode:
    """The generated lines that decode a table map's row images into locals (`v{i}`: the value of binlog
    column i, converted; an UPDATE's after image `w{i}`), shared by the dict decoders here and the line
    decoders (`row_lines.py`). `fields`: the captured columns in binlog order (`.i`, `.name`, `.t`, `.conv`,
    `.nullable`); `g`: the globals the lines use."""

    __slots__ = ("g", "fields", "one", "two")

    def __init__(self, g: dict, fields: list, one: list[str], two: list[str]) -> None:
        self.g, self.fields, self.one, self.two = g, fields, one, two


def image_code(
    tm: TableMap,
    outputs: list[tuple[str, Callable | None] | None],
    json: bool = False,
    accel: dict[str, Callable] | None = None,
) -> ImageCode:
    """`one`: one row image into `v{i}`; `two`: an UPDATE's before image into `v{i}` and its after image into
    `w{i}`, where an after value whose bytes equal the before's is the before's object (`w{i} is v{i}`).
    `json` (the line decoders): a converter with a `json_quoted_inline` form makes its JSON string's text
    (the field's `.quoted`). `accel` (with `json`; linefill.ACCEL, the C functions `_jt`, `_jts`, `_jd`, `_jds`):
    a UTF-8 text column's local is its value's JSON (the field's `.jtext`), a DECIMAL's its base64 text (`.jdec`),
    made by those from the row's bytes."""
    n = len(tm.types)
    nb = (n + 7) // 8
    g = dict(_GLOBALS)
    if accel is not None:
        g.update(accel)
    cols = [
        _Col(
            i,
            t,
            meta,
            bool(tm.nullable >> i & 1),
            outputs[i] if i < len(outputs) else None,
            g,
            json,
            bool(accel),
        )
        for i, (t, meta) in enumerate(zip(tm.types, tm.metas))
    ]
    _single_runs(cols, nb)
    fields = [c for c in cols if c.name is not None]
    # columns whose after value is taken from the before image when their bytes are unchanged: those with
    # a conversion that costs more than comparing the bytes (not geometries: their values are dicts)
    costly = {
        c.i for c in fields if not c.run and c.conv is not None and c.t != T_GEOMETRY and c.conv not in _CHEAP
    }
    one = _image(cols, nb, "v", g, None, set())
    two = _image(cols, nb, "v", g, None, costly) + _image(cols, nb, "w", g, costly, set())
    return ImageCode(g, fields, one, two)


def compile_row_decoders(
    tm: TableMap, outputs: list[tuple[str, Callable | None] | None]
) -> tuple[Callable, Callable]:
    """-> (decode(b, p) -> (row dict, new p), decode_update(b, p) -> (before, after, new p)) for row images
    with every column present. The UPDATE decoder reads both images in one pass and takes an after value
    from the before image when the column's bytes are unchanged (no second conversion).

    `outputs[i]`: None to decode and drop binlog column i, else (field name, converter or None)."""
    code = image_code(tm, outputs)
    g, fields = code.g, code.fields
    one = ["def decode(b, p):", *("    " + x for x in code.one)]
    one.append("    return {" + ", ".join(f"{c.name!r}: v{c.i}" for c in fields) + "}, p")
    two = ["def decode_update(b, p):", *("    " + x for x in code.two)]
    two.append(
        "    return {"
        + ", ".join(f"{c.name!r}: v{c.i}" for c in fields)
        + "}, {"
        + ", ".join(f"{c.name!r}: w{c.i}" for c in fields)
        + "}, p"
    )
    src = "\n".join(one) + "\n\n\n" + "\n".join(two) + "\n"
    exec(compile(src, f"<row decoder {tm.schema}.{tm.table}>", "exec"), g)  # noqa: S102
    return g["decode"], g["decode_update"]


def compile_row_decoder(tm: TableMap, outputs: list[tuple[str, Callable | None] | None]) -> Callable:
    """-> decode(b, p) -> (row dict, new p) for one row image with every column present (see
    `compile_row_decoders`)."""
    return compile_row_decoders(tm, outputs)[0]
