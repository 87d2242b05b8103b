"""Binlog row images straight into a record's directory line: the row decoders' image code (`row_decoders.py`)
with each value's JSON put into one `%` format of the whole line, no row dict, key dict or record object.

What the dict path prints for a row is `orjson.dumps` of its dict: the members' JSON joined, each value its own
`orjson.dumps`. So a value here is `orjson.dumps` of the same converted value (any type: floats' Java text,
decimals, JSON columns and column transforms are the converters' business, unchanged), except an integer
column without a converter, which is the `%d` text `orjson.dumps` prints for an int. The envelope's own
changes to a row are taken from `TableEnvelope.json_fields`: masks (constant text), NULL defaults
(replace.null.with.default), key-only columns (left out of the value).

The line's format (`line_format`) is the envelope's directory line with the source template of the event
(`%d` at `pos` and `row`) in place; its arguments: the key's JSON, the before image's fields (UPDATE), the
after image's fields, pos, row, then ts_ms, ts_us, ts_ns as decimal text. With transaction metadata (`tx`) the
line's `transaction` block is in the format too, its id put in per transaction (`TX_ID`) and its two orders
`%d`s: the decoders then take them after `ns` and put them after pos and row."""

from __future__ import annotations

from collections.abc import Callable
from functools import partial

import orjson

from emulator import linefill
from emulator.connectors.mysql.binlog import T_INT24, T_LONG, T_LONGLONG, T_SHORT, T_TINY, T_YEAR, TableMap
from emulator.connectors.mysql.row_decoders import image_code
from emulator.connectors.mysql.row_plan import row_plan
from emulator.connectors.mysql.values import nonzero
from emulator.envelope_format import line_format, payload_format
from emulator.records import headers_json

# integer columns whose decoded value is a Python int (no converter: printed as `%d`)
_INTS = frozenset({T_TINY, T_SHORT, T_INT24, T_LONG, T_LONGLONG, T_YEAR})
# stand-ins for the parts put into the envelope's line format afterwards: never in JSON text (control
# characters are escaped there), so each occurs once
_BEFORE, _AFTER, _SOURCE = b"\x02B\x02", b"\x02A\x02", b"\x02S\x02"
# the transaction id's JSON in a line format's text after the source (`line_formats(..., tx=True)`): the stream
# puts the transaction's in (`%` escaped), as it puts the source template in
TX_ID = b"\x02T\x02"
# the transaction block (its stand-in `_TX`) as `TransactionMonitor.event_block`'s dict prints: the orders are
# the decoders' arguments
_TX = b"\x02X\x02"
_TX_BLOCK = b'{"id":' + TX_ID + b',"total_order":%d,"data_collection_order":%d}'
_KEY_SLOT = len(b'{"key":')  # where the key's frame starts in a line (envelope_format.line_format)
# ts_ms and ts_us are the first 13 and 16 digits of ts_ns's 19: the one text cut by the format's precision
# (no slices: ~1,000 instructions a row), for a clock in NS_RANGE (2001-09-09 to 2286; stream_lines checks)
_TIMES = (b'"ts_ms":%d,"ts_us":%d,"ts_ns":%d', b'"ts_ms":%.13b,"ts_us":%.16b,"ts_ns":%b')
NS_RANGE = (10**18, 10**19)


def _esc(b: bytes) -> bytes:
    return b.replace(b"%", b"%%")


class LineDecoders:
    """A table map's line decoders for one envelope: `insert(b, p, fmt, pos, row, ns)` -> ((line, key
    length), p) and `update(...)` -> the same, or (None, p) when the UPDATE changes the key (the dict path
    then makes its delete and create); a DELETE is `insert` with the DELETE's format (one image, printed in
    the before place). `value_format`: the after (and before) image's fields as a format; `formats`: the
    envelope's line formats around it (`line_formats`)."""

    __slots__ = ("insert", "update", "value_format", "formats", "insert_k", "update_k", "key_format")

    def __init__(self, insert: Callable, update: Callable, value_format: bytes) -> None:
        self.insert, self.update, self.value_format = insert, update, value_format
        self.formats: dict[str, tuple[bytes, bytes]] = {}  # line_formats() for the envelope
        # a keyed table's `insert` and `update` with the key's fields in the line's own format (`formats["ck"]`,
        # `["uk"]`), not a key made apart by its own `%` (~1,000 instructions a row): for the directory output,
        # which takes the line alone (the key's length, 0 here, is for a LineRecord's cuts and a DELETE's
        # tombstone); `key_format` the key's fields as a format
        self.insert_k: Callable | None = None
        self.update_k: Callable | None = None
        self.key_format: bytes | None = None


def compile_line_decoders(
    tm: TableMap,
    outputs: list[tuple[str, Callable | None] | None],
    value: list[tuple[str, int, bytes, bytes | None]],
    key: list[tuple[str, int, bytes, bytes | None]] | None,
    tx: bool = False,
) -> LineDecoders | None:
    """The line decoders of `tm` (`outputs` as `compile_row_decoders`'s), `value` and `key` the envelope's
    `json_fields()`; None when a field of the envelope has no column in the row (nothing to print it from).
    `tx`: each decoder also takes the event's two transaction orders (`total_order`, `data_collection_order`,
    after `ns`) for the formats of `line_formats(..., tx=True)`. Where the C accelerator is built
    (linefill.py), the decoders call it for `fmt % args` and a value's `orjson.dumps`: the same bytes, fewer
    instructions; and where every column is of a kind its row plans take (row_plan.py), the decoders are its
    whole-image functions (`_whole`)."""
    if linefill.ROW is not None:
        spec = row_plan(tm, outputs, value, key)
        if spec is not None:
            return _whole(linefill.ROW, spec, key is not None)
    code = image_code(tm, outputs, json=True, accel=linefill.ACCEL)
    g = code.g
    # the C accelerator's when built (read per compile: a test sets them None for the pure-Python path)
    g["_dumps"] = linefill.DUMPS or orjson.dumps
    fill = linefill.FILL
    g["_fill"] = fill
    by_name = {c.name: c for c in code.fields}
    booleans = frozenset(c.i for c in code.fields if _boolean(c, outputs))
    value_of = {name: (null, fixed) for name, _j, null, fixed in value}
    if any(name not in by_name for name in value_of) or any(k[0] not in by_name for k in key or ()):
        return None

    def pieces(v: str) -> tuple[list[str], bytes, list[str], bytes, list[str], list[str]]:
        """-> (lines setting `J{v}{i}`, value format, its arguments, key format, its arguments, the locals of
        the key fields whose NULL prints their column's default) for the image in the locals `{v}{i}`."""
        lines: list[str] = []
        vfmt, vargs = [], []
        for c in code.fields:  # the dict's order: the decoder's (binlog) column order
            if c.name not in value_of:
                continue  # a key-only column
            null, fixed = value_of[c.name]
            head = orjson.dumps(c.name) + b":"
            if fixed is not None:
                vfmt.append(_esc(head + fixed))
                continue
            piece, arg = _arg(c, v, null, lines, booleans, outputs)
            vfmt.append(_esc(head) + piece)
            vargs.append(arg)
        kfmt, kargs, kdefaults = [], [], []
        for name, _j, null, fixed in key or ():  # null: the key's NULL (its column's default, or null)
            c = by_name[name]
            head = orjson.dumps(name) + b":"
            if fixed is not None:
                kfmt.append(_esc(head + fixed))
                continue
            piece, arg = _arg(c, v, null, lines, booleans, outputs)
            kfmt.append(_esc(head) + piece)
            kargs.append(arg)
            if null != b"null" and c.nullable:
                kdefaults.append(f"{v}{c.i}")
        kjoined = b"{" + b",".join(kfmt) + b"}"
        return lines, b"{" + b",".join(vfmt) + b"}", vargs, kjoined, kargs, kdefaults

    lines_v, vfmt, vargs, kfmt, kargs, kdefaults = pieces("v")
    g["VFMT"] = vfmt
    g["KFMT"] = kfmt
    keyed = "".join(a + ", " for a in kargs)
    lines_w, _vfmt, wargs, _kfmt, kwargs, wdefaults = pieces("w")
    # an after value that is the before's object (its bytes unchanged) reuses the before's JSON
    lines_w = [_reuse(x) for x in lines_w]
    one = [*code.one, *lines_v]  # an INSERT's (or DELETE's) image decoded
    two = [*code.two, *lines_v, *lines_w]  # an UPDATE's images
    after = "".join(a + ", " for a in vargs)
    both = after + "".join(a + ", " for a in wargs)
    differ = None
    if key is not None:
        # the same text (an int column's value, else its JSON) for each key field: the same key; a field whose
        # NULL prints its column's default also NULL in both or in neither (NULL -> the default is a key
        # change, as Debezium compares the key structs before the converter prints them); else (None, p): the
        # dict path decides
        changes = [f"{a} != {b}" for a, b in zip(kargs, kwargs)]
        changes += [f"({a} is None) is not ({b} is None)" for a, b in zip(kdefaults, wdefaults)]
        differ = " or ".join(changes) or "False"
    # each pair from one template, the key's part its parameter: `insert`/`update` make the key apart (or have
    # none), `insert_k`/`update_k` put its fields in the line's format
    key_way = "apart" if key is not None else None
    c = fill is not None
    funcs = [
        _function("insert", one, after, key_way, keyed, tx, c),
        _function("update", two, both, key_way, keyed, tx, c, differ),
    ]
    if key is not None:
        funcs += [
            _function("insert_k", one, after, "inline", keyed, tx, c),
            _function("update_k", two, both, "inline", keyed, tx, c, differ),
        ]
    src = "\n\n\n".join("\n    ".join(f) for f in funcs) + "\n"
    exec(compile(src, f"<row lines {tm.schema}.{tm.table}>", "exec"), g)  # noqa: S102 - generated code
    lines = LineDecoders(g["insert"], g["update"], vfmt)
    if key is not None:
        lines.insert_k, lines.update_k, lines.key_format = g["insert_k"], g["update_k"], kfmt
    return lines


def _whole(row: dict[str, Callable], spec: tuple, keyed: bool) -> LineDecoders:
    """The line decoders of a row plan (fastrow.c): one C call a row, each image one `%b` of the line's format
    (its JSON object made whole), the key one `%b` too (in its own place: `insert_k`'s format is `insert`'s, the
    key's length 0 as the generated `insert_k` returns)."""
    plan, line, line2 = row["plan"](spec), row["line"], row["line2"]
    lines = LineDecoders(partial(line, plan, True), partial(line2, plan, True), b"%b")
    if keyed:
        lines.insert_k, lines.update_k, lines.key_format = (
            partial(line, plan, False),
            partial(line2, plan, False),
            b"%b",
        )
    return lines


def _function(
    name: str,
    image: list[str],
    args: str,
    key: str | None,
    keyed: str,
    tx: bool,
    fill: bool,
    differ: str | None = None,
) -> list[str]:
    """The lines of line decoder `name`: `image` decodes the row's image(s), `args` the format's arguments
    for them; the key's part by `key`: "apart" (its own `%` into `key`, the line's first argument, its length
    returned), "inline" (`keyed`, its fields' arguments, first in the line's format) or None (no key); `tx` the
    transaction block's orders (`tot`, `dco`) after the source's; `fill`: each `fmt % args` as `_fill(fmt,
    args)` (the C accelerator, linefill.py: the same bytes); `differ` the test of a key change (UPDATE: then
    (None, p))."""

    def pct(fmt: str, args: str) -> str:
        return f"_fill({fmt}, ({args}))" if fill else f"{fmt} % ({args})"

    orders = ", tot, dco" if tx else ""
    out = [f"def {name}(b, p, fmt, pos, row, ns{orders}):", *image]
    if key == "apart":
        out.append(f"key = {pct('KFMT', keyed)}")
    if differ is not None:
        out += [f"if {differ}:", "    return None, p"]
    front, length = {"apart": ("key, ", "len(key)"), "inline": (keyed, "0"), None: ("", "0")}[key]
    # ms and µs: the format's precision cuts the ns text (_TIMES)
    line = pct("fmt", f"{front}{args}pos, row{orders}, t, t, t")
    # (the C `dumps` prints an int itself: its text as `%d`'s, without `fill`'s tuple and format)
    t = "_dumps(ns)" if fill else "b'%d' % ns"
    out += [f"t = {t}", f"return ({line}, {length}), p"]
    return out


def _boolean(c, outputs: list) -> bool:
    """A column never NULL whose converter makes a bool (`values.nonzero`): its JSON inline."""
    out = outputs[c.i] if c.i < len(outputs) else None
    return out is not None and out[1] is nonzero and not c.nullable


def _direct(c, outputs: list) -> bool:
    """An integer column printed as `%d` of its decoded value (no converter, or one that makes ints: dates
    and times as numbers, `int_result`), never NULL."""
    if c.nullable:
        return False
    if c.conv is None:
        return c.t in _INTS
    out = outputs[c.i] if c.i < len(outputs) else None
    return out is not None and getattr(out[1], "int_result", False)


def _arg(
    c, v: str, null: bytes, lines: list[str], booleans: frozenset[int], outputs: list
) -> tuple[bytes, str]:
    """-> (the format's piece, the argument printing it) for column `c` of image `v` (`null`: what a NULL
    prints); a JSON made once in `J{v}{i}` (the key and the value may both print it)."""
    var = f"{v}{c.i}"
    if _direct(c, outputs):
        return b"%d", var
    if c.i in booleans:
        return b"%b", f"(b'true' if {var} else b'false')"
    if c.quoted:  # the string's text (json_quoted_inline): the quotes are the format's
        if not c.nullable:
            return b'"%b"', var
        return b"%b", f"({null!r} if {var} is None else b'\"' + {var} + b'\"')"
    if c.jtext:  # the local is the value's JSON already (row_decoders: JTEXT), or None
        return b"%b", f"({null!r} if {var} is None else {var})" if c.nullable else var
    j = f"J{var}"
    # a NULL's JSON without the call (orjson.dumps(None) is b"null"): ~550 instructions a NULL value
    line = f"{j} = b'null' if {var} is None else _dumps({var})" if c.nullable else f"{j} = _dumps({var})"
    if line not in lines:
        lines.append(line)
    if null == b"null":
        return b"%b", j
    return b"%b", f"({null!r} if {var} is None else {j})"


def _reuse(line: str) -> str:
    """`Jw{i} = _dumps(w{i})` -> the before's JSON when the after value is the before's object."""
    j, _, expr = line.partition(" = ")
    i = j[2:]
    return f"{j} = Jv{i} if w{i} is v{i} else {expr}"


def line_formats(
    env, value_format: bytes, key_format: bytes | None = None, tx: bool = False
) -> dict[str, tuple[bytes, bytes]] | None:
    """The whole directory line of `env`'s streamed INSERT ("c"), UPDATE ("u") and DELETE ("d") records with
    the line decoders' `value_format` in the before (UPDATE, DELETE) and after places, cut where the source
    block goes: an
    event's format is `pre + source template + post` (the template with `%d` at pos and row, `%` escaped).
    None when the envelope's format is not the expected one. With the decoders' `key_format`, also "ck" and
    "uk": the INSERT's and UPDATE's formats with it in the key's place (`LineDecoders.insert_k`). `tx`: the
    transaction block in the text after the source, `TX_ID` where its id goes."""
    hs = env.settings.context_headers
    kf = env.key_frame
    if kf is None:
        key_format = None
    tail = headers_json(hs) if hs else None
    out = {}
    for op in ("c", "u", "d"):
        pay = payload_format(
            before=b"null" if op == "c" else _BEFORE,
            source=_SOURCE,
            transaction=_TX if tx else b"null",
            op=op,
        )
        # a DELETE's image is its before: the INSERT's arguments in the before place, `after` null
        pay = pay.replace(b',"after":%b,', b',"after":' + (b"null" if op == "d" else _AFTER) + b",", 1)
        fmt = line_format(env.key_frame, env.value_frame, pay, tail)[0]
        if fmt.count(_TIMES[0]) != 1 or fmt.count(_SOURCE) != 1 or fmt.count(_AFTER) != (op != "d"):
            return None
        fmt = fmt.replace(_TIMES[0], _TIMES[1]).replace(_BEFORE, value_format).replace(_AFTER, value_format)
        if tx:
            fmt = fmt.replace(_TX, _TX_BLOCK)
        pre, post = fmt.split(_SOURCE)
        if post.count(TX_ID) != tx:  # (the id's marker is never in JSON text: as _SOURCE)
            return None
        out[op] = (pre, post)
        if op != "d" and key_format is not None and pre.startswith(b"%b", _KEY_SLOT + len(_esc(kf.head))):
            at = _KEY_SLOT + len(_esc(kf.head))  # the key's payload slot, the format's first
            out[op + "k"] = (pre[:at] + key_format + pre[at + 2 :], post)
    return out
