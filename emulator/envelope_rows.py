"""Per-table row and key builders of the envelope (`TableEnvelope`): generated once per table, called per row."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any


def row_builder(names: list[str], converters: list[Callable[[Any], Any]]) -> Callable[[list], dict[str, Any]]:
    """A per-table function `raw values -> {name: None if v is None else convert(v)}`, unrolled.

    The generic form (`dict(zip(names, [... for c, v in zip(converters, raw)]))`) costs a list, two
    zips and a dict built from an iterator per row; the unrolled one is one tuple unpack and a dict
    display with constant keys, and leaves identity converters (`is_identity`) uncalled. It gives the
    same dict, key order included; a row of another length takes the generic form: shorter, the columns it lacks
    are null (a narrower tuple of a table Debezium still decodes with its old columns, by position: a column dropped
    while the table was renamed out of the filters, relation_stale; pg case table_renamed_out_of_filters_narrowed)."""
    n = len(names)
    ns: dict[str, Any] = {"len": len}

    def generic(raw: list) -> dict[str, Any]:
        if len(raw) < n:
            return narrower(raw)
        return dict(zip(names, [None if v is None else c(v) for c, v in zip(converters, raw)]))

    def narrower(raw: list) -> dict[str, Any]:
        out = dict.fromkeys(names)
        for name, c, v in zip(names, converters, raw):
            try:
                out[name] = None if v is None else c(v)
            except (ValueError, ArithmeticError) as e:  # a value shifted into a column of another type
                raise ValueError(
                    f"a change's tuple has {len(raw)} of the {n} columns its table had when it left the filters: "
                    f"Debezium decodes it by position, and {v!r} as column {name} fails ({e}); "
                    "Debezium stops here too"
                ) from None
        return out

    if n == 0 or n > 200:  # tuple unpacks and dict displays of any size work; keep the code small
        return generic
    ns["_generic"] = generic
    parts = []
    for i, (name, conv) in enumerate(zip(names, converters)):
        if getattr(conv, "is_identity", False):
            parts.append(f"{name!r}: v{i}")
        else:
            ns[f"c{i}"] = conv
            parts.append(f"{name!r}: None if v{i} is None else c{i}(v{i})")
    unpack = ", ".join(f"v{i}" for i in range(n)) + ","
    code = (
        f"def row(raw):\n    if len(raw) != {n}:\n        return _generic(raw)\n"
        f"    {unpack} = raw\n    return {{{', '.join(parts)}}}\n"
    )
    exec(compile(code, f"<row builder {n} columns>", "exec"), ns)  # noqa: S102 - names as repr()
    return ns["row"]


def key_builder(key_names: list[str]) -> Callable[[dict[str, Any]], dict[str, Any]]:
    """`row -> {k: row[k] for k in key_names}` as one dict display."""
    ns: dict[str, Any] = {}
    body = ", ".join(f"{k!r}: row[{k!r}]" for k in key_names)
    exec(compile(f"def key(row):\n    return {{{body}}}\n", "<key builder>", "exec"), ns)  # noqa: S102
    return ns["key"]


def with_defaults(row: dict, defaults: list[tuple[str, Any]]) -> dict:
    """`row` with the NULL of each (name, default) replaced (a copy when one is: rows and keys are kept for
    TOAST and key-change bookkeeping with their real values)."""
    out = None
    for name, default in defaults:
        if row.get(name, default) is None:
            if out is None:
                out = dict(row)
            out[name] = default
    return row if out is None else out
