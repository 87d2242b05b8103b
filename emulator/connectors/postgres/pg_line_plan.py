"""The C line reader of a captured table's pgoutput tuples (emulator/fastpg.c, in the fastline extension): a
plan made once per Relation message from the same fields `pgoutput.row_json_parser` generates its Python
`parse_line` from, bound into a callable of the same signature and the same result. None where the extension
is not built or DBZ_EMULATOR_PURE_PYTHON=1 (linefill.PG), and the generated reader serves."""

from __future__ import annotations

from functools import partial

from emulator import linefill
from emulator.connectors.postgres.pgoutput import JsonField, conv_kind, fields_format

# fastpg.c's column kinds
P_SKIP, P_INT, P_TEXT, P_BOOL, P_JSON, P_CONV, P_NUM, P_TSTZ = range(8)
_SIMPLE = {"int": P_INT, "text": P_TEXT, "bool": P_BOOL}
_NUM_MAX_SCALE = 17  # fastpg.c reads at most 18 digits; a larger scale always takes the converter


def column_spec(conv, vnull: bytes, knull: bytes) -> tuple:
    """fastpg.c's (kind, a, fallback kind, obj, value NULL JSON, key NULL JSON) of a used column."""
    simple = _SIMPLE.get(conv_kind(conv))
    if simple is not None:
        return (simple, 0, 0, None, vnull, knull)
    json = getattr(conv, "json", None)
    ck = getattr(conv, "c_kind", None)
    if ck is not None and ck[0] == "num" and json is not None and 0 <= ck[1] <= _NUM_MAX_SCALE:
        return (P_NUM, ck[1], P_JSON, json, vnull, knull)
    if ck is not None and ck[0] == "tstz" and 0 <= ck[1] <= 9:
        fb, obj = (P_JSON, json) if json is not None else (P_CONV, conv)
        return (P_TSTZ, ck[1], fb, obj, vnull, knull)
    if json is not None:
        return (P_JSON, 0, 0, json, vnull, knull)
    return (P_CONV, 0, 0, conv, vnull, knull)


def line_spec(
    n: int,
    converters: list,
    columns: list[int],
    value: list,
    key: list | None,
    exact: frozenset[int] | None = None,
) -> tuple:
    """fastpg.c's plan spec for `row_json_parser(n, converters, columns, value, key, exact=exact)`'s `parse_line`
    (`exact`: a DELETE's old key, the columns at these positions must hold a value, the other unused ones be
    NULL)."""
    field_of = {c: j for j, c in enumerate(columns)}
    value = [JsonField(*f) for f in value]
    keyf = [JsonField(*f) for f in key or ()]
    value_null = {f.j: f.null_json for f in value if f.fixed is None}
    key_null = {f.j: f.null_json for f in keyf if f.fixed is None}
    used = value_null.keys() | key_null.keys()
    cols = []
    for i in range(n):
        j = field_of.get(i)
        ex = 0 if exact is None else 1 if i in exact else 2
        if j is None or j not in used:
            cols.append((P_SKIP, 0, 0, None, b"null", b"null", ex))
            continue
        vnull = value_null.get(j, b"null")
        cols.append((*column_spec(converters[j], vnull, key_null.get(j, vnull)), ex if ex == 1 else 0))
    vcols = tuple(columns[f.j] for f in value if f.fixed is None)
    if not key:
        return (n, tuple(cols), vcols, None, None)
    kfmt, _args = fields_format(keyf, lambda f: "")
    return (n, tuple(cols), vcols, tuple(columns[f.j] for f in keyf if f.fixed is None), kfmt)


def line_reader(
    n: int,
    converters: list,
    columns: list[int],
    value: list,
    key: list | None,
    exact: frozenset[int] | None = None,
):
    """`parse_line(buf, start, fmt, lsn, tx, ns)` in C, or None (not built, or pure Python asked for)."""
    pg = linefill.PG
    if pg is None:
        return None
    return partial(pg["line"], pg["plan"](line_spec(n, converters, columns, value, key, exact)))
