"""Decoding of the pgoutput logical replication protocol (version 1, text tuples).

Only parsing lives here: each function takes the message bytes (after the XLogData header) and returns
plain tuples. Column values are PG's text output as `str`, `None` for NULL, or `UNCHANGED_TOAST` for an
unchanged TOASTed value the server did not send.
"""

from __future__ import annotations

import struct
from typing import NamedTuple

import orjson

from emulator.connectors.postgres.pgoutput_match import old_tuple_end, tuple_match

PG_EPOCH_US = 946_684_800_000_000  # 2000-01-01 in µs since the Unix epoch


class _Unchanged:
    __slots__ = ()

    def __repr__(self) -> str:
        return "UNCHANGED_TOAST"


UNCHANGED_TOAST = _Unchanged()

_I16 = struct.Struct(">h").unpack_from
_I32 = struct.Struct(">i").unpack_from
_U32 = struct.Struct(">I").unpack_from
U32 = _U32  # the stream's handlers read an Insert/Update/Delete's relation id (offset 1) with it
I16, I32 = _I16, _I32  # ... and the TOAST-aware UPDATE readers (pgoutput_toast) a tuple's counts and lengths
_I64 = struct.Struct(">q").unpack_from
_BEGIN = struct.Struct(">QqI").unpack_from
_COMMIT = struct.Struct(">BQQq").unpack_from
_XLOG = struct.Struct(">QQq").unpack_from
XLOG_START = struct.Struct(">Q").unpack_from  # an XLogData message's start LSN alone (offset 1)
# a Begin's (final LSN, commit time since 2000 in µs, xid) and a Commit's (flags, commit LSN, end LSN, commit time)
# from offset 1: the stream's handlers read them without parse_begin's / parse_commit's call
BEGIN = _BEGIN
COMMIT = _COMMIT
_KEEPALIVE = struct.Struct(">QqB").unpack_from


class RelationColumn(NamedTuple):
    name: str
    type_oid: int
    typmod: int
    is_key: bool


class Relation(NamedTuple):
    oid: int
    namespace: str
    name: str
    replica_identity: str  # d default, n nothing, f full, i index
    columns: list[RelationColumn]


def _cstring(buf: bytes, pos: int) -> tuple[str, int]:
    end = buf.index(0, pos)
    return buf[pos:end].decode(), end + 1


def parse_tuple(buf: bytes, pos: int) -> tuple[list, int]:
    """TupleData at `pos` -> (values, position after it)."""
    values, pos, _ = parse_tuple_ex(buf, pos)
    return values, pos


def parse_tuple_ex(buf: bytes, pos: int) -> tuple[list, int, bool]:
    """TupleData at `pos` -> (values, position after it, whether any value is UNCHANGED_TOAST)."""
    (n,) = _I16(buf, pos)
    parse = _UNROLLED.get(n)
    if parse is None:
        if n > _UNROLL_MAX:
            return _parse_tuple_loop(buf, pos)
        parse = _UNROLLED[n] = _unrolled(n)
    return parse(buf, pos)


# A column's kind byte and, for 't', its length, read by one unpack (one call and tuple instead of an index
# and a call). A NULL ('n') is one byte, so the 4 bytes read after it belong to the next columns: only
# columns followed by at least four more (a byte each at least) are read this way, the message may end
# right after the last.
_KIND_LEN = struct.Struct(">Bi").unpack_from
_KIND = {True: "    k, ln = _KL(buf, pos)", False: "    k = buf[pos]"}
_LEN = {True: "ln", False: "_I32(buf, pos + 1)[0]"}

# Tuples of n columns are parsed by a function generated once per n, without the loop: per column one
# kind test, one length unpack, one slice and decode. Text and NULL only; any other kind (unchanged TOAST
# 'u', binary 'b') makes it hand the whole tuple to the loop below, which handles everything.
_UNROLL_MAX = 128
_UNROLLED: dict[int, object] = {}


def _unrolled(n: int):
    lines = ["def parse(buf, start):", "    pos = start + 2"]
    for i in range(n):
        lines += [
            _KIND[i < n - 4],  # the kind and the length in one unpack where four more columns follow
            "    if k == 116:",
            "        s = pos + 5",
            f"        pos = s + {_LEN[i < n - 4]}",
            f"        v{i} = buf[s:pos].decode()",
            "    elif k == 110:",
            f"        v{i} = None",
            "        pos += 1",
            "    else:",
            "        return _loop(buf, start)",
        ]
    lines.append(f"    return [{', '.join(f'v{i}' for i in range(n))}], pos, False")
    ns = {"_I32": _I32, "_KL": _KIND_LEN, "_loop": _parse_tuple_loop}
    exec(compile("\n".join(lines) + "\n", f"<pgoutput tuple of {n}>", "exec"), ns)  # noqa: S102
    return ns["parse"]


def _parse_tuple_loop(buf: bytes, pos: int) -> tuple[list, int, bool]:
    (n,) = _I16(buf, pos)
    pos += 2
    values: list = [None] * n
    toast = False
    for i in range(n):
        kind = buf[pos]
        if kind == 116:  # 't'
            (ln,) = _I32(buf, pos + 1)
            start = pos + 5
            pos = start + ln
            values[i] = buf[start:pos].decode()
        elif kind == 110:  # 'n'
            pos += 1
        elif kind == 117:  # 'u'
            values[i] = UNCHANGED_TOAST
            toast = True
            pos += 1
        else:  # 'b' binary: only with proto >= 2 binary 'true', which we never request
            raise ValueError(f"unsupported tuple data kind {chr(kind)!r}")
    return values, pos, toast


def parse_begin(buf: bytes) -> tuple[int, int, int]:
    """-> (final_lsn, commit_ts_us_unix, xid)."""
    final_lsn, ts, xid = _BEGIN(buf, 1)
    return final_lsn, ts + PG_EPOCH_US, xid


def parse_commit(buf: bytes) -> tuple[int, int, int]:
    """-> (commit_lsn, end_lsn, commit_ts_us_unix)."""
    _flags, commit_lsn, end_lsn, ts = _COMMIT(buf, 1)
    return commit_lsn, end_lsn, ts + PG_EPOCH_US


def parse_relation(buf: bytes) -> Relation:
    (oid,) = _U32(buf, 1)
    namespace, pos = _cstring(buf, 5)
    name, pos = _cstring(buf, pos)
    ident = chr(buf[pos])
    (ncols,) = _I16(buf, pos + 1)
    pos += 3
    cols = []
    for _ in range(ncols):
        flags = buf[pos]
        cname, pos = _cstring(buf, pos + 1)
        (toid,) = _U32(buf, pos)
        (typmod,) = _I32(buf, pos + 4)
        pos += 8
        cols.append(RelationColumn(cname, toid, typmod, bool(flags & 1)))
    return Relation(oid, namespace or "pg_catalog", name, ident, cols)


def parse_type(buf: bytes) -> tuple[int, str, str]:
    (oid,) = _U32(buf, 1)
    namespace, pos = _cstring(buf, 5)
    name, _ = _cstring(buf, pos)
    return oid, namespace, name


def parse_insert(buf: bytes) -> tuple[int, list, bool]:
    """-> (relid, values, whether a value is an unchanged TOAST value)."""
    (relid,) = _U32(buf, 1)
    values, _, toast = parse_tuple_ex(buf, 6)  # byte 5 is 'N'
    return relid, values, toast


def parse_update(buf: bytes) -> tuple[int, list | None, str, list, bool]:
    """-> (relid, old values or None, 'K'/'O'/'', new values, whether a new value is unchanged TOAST)."""
    (relid,) = _U32(buf, 1)
    kind = buf[5]
    old = None
    old_kind = ""
    pos = 6
    if kind in (75, 79):  # 'K' key columns, 'O' whole old row (REPLICA IDENTITY FULL)
        old_kind = chr(kind)
        old, pos = parse_tuple(buf, 6)
        pos += 1  # 'N'
    new, _, toast = parse_tuple_ex(buf, pos)
    return relid, old, old_kind, new, toast


def parse_delete(buf: bytes) -> tuple[int, str, list]:
    (relid,) = _U32(buf, 1)
    kind = chr(buf[5])
    old, _ = parse_tuple(buf, 6)
    return relid, kind, old


def parse_truncate(buf: bytes) -> tuple[list[int], int]:
    (nrels,) = _I32(buf, 1)
    options = buf[5]
    return [_U32(buf, 6 + 4 * i)[0] for i in range(nrels)], options


def parse_message(buf: bytes) -> tuple[bool, int, str, bytes]:
    """-> (transactional, lsn, prefix, content)."""
    transactional = bool(buf[1] & 1)
    (lsn,) = _I64(buf, 2)
    prefix, pos = _cstring(buf, 10)
    (ln,) = _I32(buf, pos)
    return transactional, lsn, prefix, bytes(buf[pos + 4 : pos + 4 + ln])


def parse_origin(buf: bytes) -> tuple[int, str]:
    (lsn,) = _I64(buf, 1)
    name, _ = _cstring(buf, 9)
    return lsn, name


def parse_xlogdata_header(buf: bytes) -> tuple[int, int, int]:
    """'w' message header -> (data_start, wal_end, send_time); the payload starts at offset 25."""
    return _XLOG(buf, 1)


def parse_keepalive(buf: bytes) -> tuple[int, int, bool]:
    wal_end, send_time, reply = _KEEPALIVE(buf, 1)
    return wal_end, send_time, bool(reply)


_STATUS = struct.Struct(">cQQQqB")


def standby_status(written: int, flushed: int, applied: int, now_us_unix: int, reply: bool = False) -> bytes:
    return _STATUS.pack(b"r", written, flushed, applied, now_us_unix - PG_EPOCH_US, 1 if reply else 0)


def lsn_to_int(text: str) -> int:
    hi, lo = text.split("/")
    return (int(hi, 16) << 32) | int(lo, 16)


def int_to_lsn(value: int) -> str:
    return f"{value >> 32:X}/{value & 0xFFFFFFFF:X}"


# -- TupleData straight to a row -------------------------------------------------------------------------
# The streaming path does not need the text values as a list: a parser generated once per captured table
# reads a tuple's n columns and builds the `before`/`after` dict in the same pass. Per column it knows the
# converter, so it skips what the generic path pays for: the list, the row builder's unpack, and the
# decode of values whose converter reads bytes as well as text (`int`: PostgreSQL prints integers as
# ASCII digits; boolean `"t".__eq__`: PostgreSQL prints exactly "t" or "f").

_INT = "int"
_BOOL = "bool"
_TEXT = "text"
_CONV = "conv"


def conv_kind(conv) -> str:
    if conv is int:
        return _INT
    if getattr(conv, "is_identity", False):
        return _TEXT
    if getattr(conv, "__name__", None) == "__eq__" and getattr(conv, "__self__", None) == "t":
        return _BOOL
    return _CONV


def _skip_column(i: int, n: int) -> list[str]:
    """Generated lines that step over column `i` of `n` (not captured, or not used by this parser)."""
    return [
        _KIND[i < n - 4],
        "    if k == 116:",
        f"        pos += 5 + {_LEN[i < n - 4]}",
        "    elif k == 110:",
        "        pos += 1",
        "    else:",
        "        return None",
    ]


def _exact_column(i: int, n: int, value: bool) -> list[str]:
    """Generated lines that step over column `i` of `n`, which must hold a value (`value`) or be NULL."""
    if not value:
        return ["    if buf[pos] == 110:", "        pos += 1", "    else:", "        return None"]
    return [
        _KIND[i < n - 4],
        "    if k == 116:",
        f"        pos += 5 + {_LEN[i < n - 4]}",
        "    else:",
        "        return None",
    ]


def row_parser(n: int, names: list[str], converters: list, columns: list[int]):
    """`parse(buf, pos) -> row dict or None` for tuples of `n` columns: the row's field j is `names[j]`,
    `converters[j]` of pgoutput column `columns[j]`; the other columns are skipped (column.exclude.list).
    The dict has the same keys in the same order and the same values as the envelope's row builder on
    `parse_tuple`'s values. None (nothing consumed) for what it does not handle: another column count, an
    unchanged-TOAST or binary value; the caller then takes the generic path."""
    field_of = {c: j for j, c in enumerate(columns)}
    lines = [
        "def parse(buf, start):",
        f"    if _I16(buf, start)[0] != {n}:",
        "        return None",
        "    pos = start + 2",
    ]
    ns: dict = {"_I16": _I16, "_I32": _I32, "_KL": _KIND_LEN}
    for i in range(n):
        j = field_of.get(i)
        if j is None:
            lines += _skip_column(i, n)
            continue
        conv = converters[j]
        kind = conv_kind(conv)
        if kind == _INT:
            value = "int(buf[s:pos])"
        elif kind == _TEXT:
            value = "buf[s:pos].decode()"
        elif kind == _BOOL:
            value = "pos - s == 1 and buf[s] == 116"
        else:
            ns[f"c{i}"] = conv
            value = f"c{i}(buf[s:pos].decode())"
        lines += [
            _KIND[i < n - 4],
            "    if k == 116:",
            "        s = pos + 5",
            f"        pos = s + {_LEN[i < n - 4]}",
            f"        v{i} = {value}",
            "    elif k == 110:",
            f"        v{i} = None",
            "        pos += 1",
            "    else:",
            "        return None",
        ]
    keys = ", ".join(f"{name!r}: v{c}" for name, c in zip(names, columns))
    lines.append(f"    return {{{keys}}}")
    code = "\n".join(lines) + "\n"
    exec(compile(code, f"<pgoutput row of {n}>", "exec"), ns)  # noqa: S102 - names as repr()
    return ns["parse"]


# -- TupleData straight to JSON --------------------------------------------------------------------------
# When the envelope is serialized here (no data plane), a streamed INSERT or UPDATE does not need the row as
# a dict at all: a parser generated per captured table turns the tuple into the JSON text of `after` and of
# the key, the bytes orjson would print from the dict. PostgreSQL's text form of an integer already is its
# JSON (ASCII digits and a sign), a boolean is `t`/`f`; every other value goes through its converter (text:
# none) and `orjson.dumps` on its own, as it would inside the dict. No dict is built or serialized, and
# key and value share the fragments. (Text checked for characters JSON escapes and put between quotes as it
# is was slower here than decode + dumps: the regex search costs more than both.)


class JsonField(NamedTuple):
    """One field of the `after` or key JSON: its name as printed, the row field it shows (`j`, an index into
    the envelope's names/converters), its JSON when NULL, and its constant JSON (a masked column) or None."""

    name: str
    j: int
    null_json: bytes
    fixed: bytes | None


def fields_format(fields: list[JsonField], var) -> tuple[bytes, list[str]]:
    """`{"name":%b,...}` with the fixed fragments in place, and the variable of each %b."""
    parts = []
    args = []
    for f in fields:
        head = orjson.dumps(f.name).replace(b"%", b"%%") + b":"
        if f.fixed is not None:
            parts.append(head + f.fixed.replace(b"%", b"%%"))
        else:
            parts.append(head + b"%b")
            args.append(var(f))
    return b"{" + b",".join(parts) + b"}", args


def row_json_parser(
    n: int,
    converters: list,
    columns: list[int],
    value: list,
    key: list | None,
    nullable: list | None = None,
    old: bool = False,
    exact: frozenset[int] | None = None,
):
    """`parse(buf, pos) -> (after JSON, key JSON or None)` for tuples of `n` columns: row field j is
    `converters[j]` of pgoutput column `columns[j]`; `value` and `key` list the JSON objects' fields in order
    (`JsonField`s, or tuples of their four values: `TableEnvelope.json_fields`); `nullable[j]` False for a
    NOT NULL column (None: all may be NULL).
    The bytes are those `orjson.dumps` prints for the dict `row_parser` makes (with the envelope's NULL
    defaults and masks applied). None (nothing consumed) where `row_parser` answers None. A tuple the
    table's whole-tuple pattern matches (pgoutput_match) is read by it, any other by the column walk.
    `old`: also `parse.old(buf, pos) -> (after JSON, key JSON, where the tuple ends) or None` for an UPDATE's
    old tuple (REPLICA IDENTITY FULL), which the new tuple follows. `exact`: a DELETE's old-key tuple, whose
    columns at these positions must hold a value and all others must be NULL (else None: the caller reads it
    its general way); read by the walk alone."""
    field_of = {c: j for j, c in enumerate(columns)}
    value = [JsonField(*f) for f in value]
    key = [JsonField(*f) for f in key or ()]
    used = {f.j for f in value + key if f.fixed is None}
    value_null = {f.j: f.null_json for f in value if f.fixed is None}
    key_null = {f.j: f.null_json for f in key if f.fixed is None}
    # a key field whose NULL prints otherwise than in `after` (the key's and the value's converters each
    # have their replace.null.with.default; a key-only column is not in `after`) gets its own `k{j}`
    split = {j for j, null in key_null.items() if value_null.get(j, b"null") != null}
    ns: dict = {"_I16": _I16, "_I32": _I32, "_KL": _KIND_LEN, "_dumps": orjson.dumps}
    lines = [
        "def parse(buf, start):",
        f"    if _I16(buf, start)[0] != {n}:",
        "        return None",
        "    pos = start + 2",
    ]
    for i in range(n):
        j = field_of.get(i)
        if j is None or j not in used:
            lines += _skip_column(i, n) if exact is None else _exact_column(i, n, i in exact)
            continue
        kind = conv_kind(converters[j])
        if kind == _INT:
            value_expr = ["        v{j} = buf[s:pos]"]
        elif kind == _TEXT:
            value_expr = ["        v{j} = _dumps(buf[s:pos].decode())"]
        elif kind == _BOOL:
            value_expr = ["        v{j} = b'true' if pos - s == 1 and buf[s] == 116 else b'false'"]
        elif getattr(converters[j], "json", None) is not None:  # the converter's own bytes -> JSON
            ns[f"c{j}"] = converters[j].json
            value_expr = ["        v{j} = c{j}(buf[s:pos])"]
        else:
            ns[f"c{j}"] = converters[j]
            value_expr = ["        v{j} = _dumps(c{j}(buf[s:pos].decode()))"]
        ns[f"n{j}"] = value_null.get(j, b"null")
        if j in split:
            ns[f"kn{j}"] = key_null[j]
        lines += [
            _KIND[i < n - 4],
            "    if k == 116:",
            "        s = pos + 5",
            f"        pos = s + {_LEN[i < n - 4]}",
            *(x.format(j=j) for x in value_expr),
        ]
        if j in split:
            lines.append(f"        k{j} = v{j}")
            if kind not in (_INT, _TEXT, _BOOL) and key_null[j] != b"null":
                lines += [f"        if k{j} == b'null':", f"            k{j} = kn{j}"]
        if kind not in (_INT, _TEXT, _BOOL) and ns[f"n{j}"] != b"null":
            # a converter's null for a value (NaN in a precise decimal) prints as a NULL does: the column's
            # default (JsonConverter's replace.null.with.default; pg case nan_nullable_default)
            lines += [f"        if v{j} == b'null':", f"            v{j} = n{j}"]
        # a NULL read as one (exact: a NULL where a value must be -> None)
        if exact is None or i not in exact:
            lines += [
                "    elif k == 110:",
                f"        v{j} = n{j}",
            ]
            if j in split:
                lines.append(f"        k{j} = kn{j}")
            lines.append("        pos += 1")
        lines += [
            "    else:",
            "        return None",
        ]
    vfmt, vargs = fields_format(value, lambda f: f"v{f.j}")
    ns["VFMT"] = vfmt
    values = "".join(a + ", " for a in vargs)
    after = f"VFMT % ({values})"
    # the same parse into a whole record line (`line_format`): `parse_line(buf, start, fmt, lsn, tx, ns)`
    # -> (line, key length) with `after`'s fields, the LSN and the times formatted straight into the line
    # the three times from one decimal text of ns (ms and µs are its first digits: ns is > 10^6)
    tail = "lsn, lsn, tx, t[:-6], t[:-3], t)"
    if key:
        kfmt, kargs = fields_format(key, lambda f: f"k{f.j}" if f.j in split else f"v{f.j}")
        ns["KFMT"] = kfmt
        keyed = f"KFMT % ({''.join(a + ', ' for a in kargs)})"
        ret = f"\n    return {after}, {keyed}\n"
        ret_old = f"\n    return {after}, {keyed}, {{end}}\n"
        ret_line = (
            f"\n    key = {keyed}\n    t = b'%d' % ns\n    return fmt % (key, {values}{tail}, len(key)\n"
        )
    else:
        ret = f"\n    return {after}, None\n"
        ret_old = f"\n    return {after}, None, {{end}}\n"
        ret_line = f"\n    t = b'%d' % ns\n    return fmt % ({values}{tail}, 0\n"
    body = "\n".join(lines[1:])
    code = f"def parse(buf, start):\n{body}{ret}"
    line = f"def parse_line(buf, start, fmt, lsn, tx, ns):\n{body}{ret_line}"
    exec(compile(code, f"<pgoutput JSON row of {n}>", "exec"), ns)  # noqa: S102 - names as constants
    exec(compile(line, f"<pgoutput line of {n}>", "exec"), ns)  # noqa: S102 - names as constants
    parse, parse_line = ns["parse"], ns["parse_line"]
    parse_old = None
    if old:
        code = f"def parse_old(buf, start):\n{body}{ret_old.format(end='pos')}"
        exec(compile(code, f"<pgoutput JSON old row of {n}>", "exec"), ns)  # noqa: S102 - as above
        parse_old = ns["parse_old"]
    kinds = [conv_kind(c) for c in converters]
    nullable = [True] * len(converters) if nullable is None else nullable
    defaulted = frozenset(j for j, null in value_null.items() if null != b"null")
    match = (
        None
        if exact is not None
        else tuple_match(n, kinds, converters, field_of, used, split, nullable, defaulted)
    )
    if match is not None:  # the same returns after the whole-tuple match, the walk as its fallback
        _m, mlines, mns = match
        ns.update(mns, _walk=parse, _walk_line=parse_line)
        body = "\n".join(mlines)
        code = f"def parse(buf, start):\n{body.replace('{fallback}', '_walk(buf, start)')}{ret}"
        fallback = "_walk_line(buf, start, fmt, lsn, tx, ns)"
        line = (
            f"def parse_line(buf, start, fmt, lsn, tx, ns):\n{body.replace('{fallback}', fallback)}{ret_line}"
        )
        exec(compile(code, f"<pgoutput JSON tuple match of {n}>", "exec"), ns)  # noqa: S102 - as above
        exec(compile(line, f"<pgoutput line tuple match of {n}>", "exec"), ns)  # noqa: S102 - as above
        parse, parse_line = ns["parse"], ns["parse_line"]
        if old:  # the old tuple's own pattern (it ends before the new tuple), in a namespace of its own
            omatch = tuple_match(
                n, kinds, converters, field_of, used, split, nullable, defaulted, old_tuple_end(n)
            )
            if omatch is not None:
                _m, olines, ons = omatch
                ons = {**ns, **ons, "_walk_old": parse_old}
                obody = "\n".join(olines).replace("{fallback}", "_walk_old(buf, start)")
                code = f"def parse_old(buf, start):\n{obody}{ret_old.format(end='m.end()')}"
                exec(compile(code, f"<pgoutput JSON old tuple match of {n}>", "exec"), ons)  # noqa: S102
                parse_old = ons["parse_old"]
    parse.line = parse_line
    parse.old = parse_old
    parse.value_format = vfmt
    return parse


# The envelope's line format (`TableEnvelope._after_formats`) around `after` and `source`: a per-transaction
# format puts the row's field format and the source template (LSN twice) in their place.
_AFTER_SOURCE = b'"after":%b,"source":%b,'
_TIMES = (b'"ts_ms":%d,"ts_us":%d,"ts_ns":%d', b'"ts_ms":%b,"ts_us":%b,"ts_ns":%b')


def line_format(env_format: bytes, value_format: bytes, source_template: bytes) -> bytes | None:
    """The record line's format with `after`'s fields and the source block (`%d` at its two LSN places) in
    place: arguments (key,) after's fields..., lsn, lsn, tx, then ts_ms, ts_us, ts_ns as decimal bytes. None
    when the envelope's format is not the expected one."""
    if env_format.count(_AFTER_SOURCE) != 1:
        return None
    head, rest = env_format.split(_AFTER_SOURCE)
    if rest.count(_TIMES[0]) != 1:
        return None
    rest = rest.replace(*_TIMES)
    return b'%s"after":%s,"source":%s,%s' % (head, value_format, source_template, rest)


_OLD_SLOTS = b'"before":%b,"after":%b,"source":%b,'


def line_format_old(
    env_format: bytes, before: bytes | None, after: bytes | None, source_template: bytes
) -> bytes | None:
    """`line_format` for the envelope's format with both rows (`TableEnvelope._old_formats`: an UPDATE with its
    old row, a DELETE): `before` and `after` put in place as given (a row's field format, `null`), or None for
    a `%b` that takes the whole row's JSON. Arguments: (key,) the slots' values in order, lsn, lsn, tx, then
    ts_ms, ts_us, ts_ns as decimal bytes. None when the envelope's format is not the expected one."""
    if env_format.count(_OLD_SLOTS) != 1:
        return None
    head, rest = env_format.split(_OLD_SLOTS)
    if rest.count(_TIMES[0]) != 1:
        return None
    rest = rest.replace(*_TIMES)
    before = b"%b" if before is None else before
    after = b"%b" if after is None else after
    return b'%s"before":%s,"after":%s,"source":%s,%s' % (head, before, after, source_template, rest)
