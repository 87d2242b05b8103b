"""The per-table generated readers of pgoutput tuples a Relation message makes (`PgoutputStream._on_relation`):
rows as dicts, rows and keys as JSON text, a DELETE's old key and the UPDATEs only a slower reader takes (an
unchanged TOAST value, a key printing a default) as JSON text; the last two on their first use."""

from __future__ import annotations

from typing import Any

import orjson

from emulator.connectors.postgres import pgoutput as po
from emulator.connectors.postgres.captured import CapturedTable
from emulator.connectors.postgres.pg_line_plan import line_reader
from emulator.connectors.postgres.pgoutput_toast import update_json_parser


def _none(buf: bytes, start: int) -> None:
    return None


def row_parser_for(ct: CapturedTable, ncols: int):
    """The table's one-pass TupleData -> row parser for this Relation's column count (None: too wide to
    generate, the generic path serves)."""
    env = ct.env
    if ncols > 400:
        return None
    cols = ct.keep if ct.keep is not None else list(range(len(env.names)))
    if len(cols) != len(env.names) or any(c >= ncols for c in cols):
        return None
    parse = po.row_parser(ncols, env.names, env.converters, cols)
    if not env.null_fill:
        return parse
    fill = env.fill_nulls

    def parse_filled(buf: bytes, pos: int) -> dict | None:
        row = parse(buf, pos)
        return None if row is None else fill(row)

    return parse_filled


def json_parser_for(ct: CapturedTable, ncols: int, old: bool = False):
    """The table's one-pass TupleData -> (`after` JSON, key JSON) parser (`row_parser_for`'s conditions);
    `old`: with the reader of an UPDATE's old tuple (`parse.old`)."""
    env = ct.env
    cols = ct.keep if ct.keep is not None else list(range(len(env.names)))
    value, key = env.json_fields()
    nullable = [c.schema.optional for c in env.table.columns]  # NOT NULL: no NULL alternative to match
    return po.row_json_parser(ncols, env.converters, cols, value, key, nullable, old)


def line_reader_for(ct: CapturedTable, ncols: int):
    """`json_parser_for(...).line` in C (pg_line_plan.line_reader), or None."""
    env = ct.env
    cols = ct.keep if ct.keep is not None else list(range(len(env.names)))
    value, key = env.json_fields()
    return line_reader(ncols, env.converters, cols, value, key)


def old_parser_for(ct: CapturedTable):
    """A FULL UPDATE's old-tuple reader (`json_parser_for(..., old=True).old`), whose key JSON the stream
    compares with the new tuple's. Where a key field's NULL prints its column default (key_defaults) equal key
    JSON is no proof of the same key (NULL -> the default is a key change; pg case key_null_prints_default):
    an old key showing a default (`"field":default`, or a longer value starting so) answers None, and the
    UPDATE goes to `toast_parser_later`'s reader, which compares the raw keys. An old key without one holds
    no NULL there, nor does a new key printed the same."""
    old = ct.parse_json.old
    if old is None or not ct.env.key_defaults:
        return old
    _value, key = ct.env.json_fields()
    shows = tuple(orjson.dumps(f[0]) + b":" + f[2] for f in key or () if f[3] is None and f[2] != b"null")

    def parse_old(buf: bytes, start: int):
        got = old(buf, start)
        if got is None:
            return None
        for text in shows:
            if text in got[1]:
                return None
        return got

    return parse_old


def key_parser_later(ct: CapturedTable, rel: po.Relation):
    """A DELETE's old-key tuple -> (`before` JSON, key JSON) parser, made on its first call (most tables
    see no DELETE: no generated code for them): the columns outside the replica identity (the Relation's
    key flags) are constants (`CapturedTable.old_key_json_fields`)."""

    def first(buf: bytes, start: int):
        env = ct.env
        cols = ct.keep if ct.keep is not None else list(range(len(env.names)))
        identity = [rel.columns[c].is_key for c in cols]
        value, key = ct.old_key_json_fields(identity)
        nullable = [c.schema.optional for c in env.table.columns]
        # the identity's columns must hold values and the others be NULL, as the constants assume (a partition
        # published as its root may send its own identity's columns): else the general reading
        exact = frozenset(i for i, c in enumerate(rel.columns) if c.is_key)
        ct.parse_key = po.row_json_parser(
            len(rel.columns), env.converters, cols, value, key, nullable, exact=exact
        )
        c_line = line_reader(len(rel.columns), env.converters, cols, value, key, exact)
        if c_line is not None:  # its line in C (pg_line_plan), as the INSERTs'
            ct.parse_key.line = c_line
        return ct.parse_key(buf, start)

    return first


def toast_parser_later(ct: CapturedTable, ncols: int, full: bool):
    """`pgoutput_toast.update_json_parser` for `ct`'s UPDATEs (`full`: the old and new tuples of REPLICA
    IDENTITY FULL), made on its first call: most tables never need it."""

    def first(buf: bytes, start: int):
        env = ct.env
        cols = ct.keep if ct.keep is not None else list(range(len(env.names)))
        value, key = env.json_fields()
        parse = update_json_parser(ncols, env.converters, cols, value, key, env.unavailable, full)
        if parse is None:
            parse = _none
        if full:
            ct.parse_toast_full = parse
        else:
            ct.parse_toast = parse
            # into the line of the per-transaction format the JSON parser's fields made (`ct.line_u`)
            same = getattr(parse, "value_format", None) == getattr(ct.parse_json, "value_format", None)
            ct.toast_line = parse.line if same else None
        return parse(buf, start)

    return first


def wire(ct: CapturedTable, rel: po.Relation, d: Any, structured: bool) -> None:
    """A captured table's row parsers and gates from its Relation message (what `PgoutputStream._on_relation`
    sets on each schema it reads): the plain row parser always; without the data plane (`structured`) the JSON and
    line readers the dispatcher's gates allow."""
    ct.parse_row = row_parser_for(ct, len(rel.columns))
    ct.parse_json = ct.gate_json = ct.parse_line = ct.gate_line = ct.parse_old = ct.gate_old = None
    ct.parse_key = ct.parse_toast = ct.parse_toast_full = None
    ct.toast_first = False
    ct.toast_line = None
    ct.line_epoch = -1
    ct.line_uo = ct.line_uof = ct.line_d = ct.gate_line_d = ct.tx_formats = None
    if ct.parse_row is not None and not structured:
        # None for a table post.processors may read again (it reads the rows as dicts), whose DELETEs (it never
        # touches one) `gate_old` and `gate_line_d` take all the same; none of them for the signal table
        ct.gate_json = d.table_json(ct.env, ct.data_collection)
        ct.gate_old = d.table_json_old(ct.env, ct.data_collection)
        if ct.gate_old is not None:
            # REPLICA IDENTITY FULL: UPDATEs carry the old row, read by the parser's `old`
            full = rel.replica_identity == "f"
            ct.parse_json = json_parser_for(ct, len(rel.columns), full)
            ct.parse_old = old_parser_for(ct)
            if ct.gate_json is not None:  # the UPDATEs the faster readers refuse, as JSON all the same
                if full:
                    ct.parse_toast_full = toast_parser_later(ct, len(rel.columns), True)
                else:
                    ct.parse_toast = toast_parser_later(ct, len(rel.columns), False)
            if rel.replica_identity in ("d", "i"):
                ct.parse_key = key_parser_later(ct, rel)
            formats = getattr(ct.env, "_after_formats", None)  # the envelope's line format per op
            if formats is not None:  # with transaction metadata the lines hold the block (`tx_block`)
                _fmt, vstart, vtail = formats["c"]
                ct.gate_line = d.table_line(ct.env, ct.data_collection, vstart, vtail)
                # the C reader where built (pg_line_plan), else the generated one: the same lines
                ct.parse_line = line_reader_for(ct, len(rel.columns)) or ct.parse_json.line
                # the old formats' value starts and ends where these do
                ct.gate_line_d = d.table_line_delete(ct.env, ct.data_collection, vstart, vtail)
