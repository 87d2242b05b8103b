"""UPDATEs the whole-tuple readers of `pgoutput.row_json_parser` refuse, read straight to JSON all the same.

Two kinds of UPDATE left the JSON-text path for the dict path (`CapturedTable.row_toast`, ~3x the CPU):

* an unchanged TOASTed value (`u`: the server did not send it) in the new tuple. Debezium prints the old
  row's value there when the UPDATE carries it (REPLICA IDENTITY FULL: PostgreSQL flattens the old tuple, so
  it holds every value) and the value was not NULL, else `unavailable.value.placeholder` as the column's type
  prints it (pg cases `full_identity_notx_skip`, `toast_full_notx`, `toast_identity_default`);
* under FULL, a table whose key field prints its column's default for NULL (`TableEnvelope.key_defaults`):
  equal key JSON is then no proof of the same key (NULL -> the default is a key change; pg case
  `key_null_prints_default`), so "same key" is decided on the key's raw JSON, a NULL as `null`.

`update_json_parser` generates, per table, one column walk over the tuple(s) that keeps each used field's
raw JSON (`null` for NULL and for a converter's null), takes a `u` from the old tuple or the placeholder,
compares the raw keys (FULL) and prints `before`, `after` and the key with the NULL defaults in place. It
answers None for anything else the dict path decides (a key change, another column count, binary values),
so it is only ever tried after the faster readers failed, or, for a table with key defaults, instead of them.
"""

from __future__ import annotations

import orjson

from emulator.connectors.postgres.pgoutput import I16, I32, JsonField, conv_kind, fields_format

_NULL = b"null"


def _value_expr(kind: str, j: int) -> str:
    """The raw JSON of row field j's text value `buf[s:pos]` (as `row_json_parser` prints it)."""
    if kind == "int":  # PostgreSQL prints an integer as its JSON
        return "buf[s:pos]"
    if kind == "text":
        return "_dumps(buf[s:pos].decode())"
    if kind == "bool":
        return "b'true' if pos - s == 1 and buf[s] == 116 else b'false'"
    return f"c{j}(buf[s:pos])" if kind == "json" else f"_dumps(c{j}(buf[s:pos].decode()))"


def _walk(
    n: int, field_of: dict[int, int], used: set[int], kinds: dict[int, str], var: str, toast
) -> list[str]:
    """Lines that read a TupleData of `n` columns at `pos` into `{var}{j}` (raw JSON) per used field, `pos`
    after it; `toast(j)`: the expression a `u` takes (None: a `u` in a used field returns None)."""
    lines = [f"    if _I16(buf, pos)[0] != {n}:", "        return None", "    pos += 2"]
    for i in range(n):
        j = field_of.get(i)
        lines.append("    k = buf[pos]")
        if j is None or j not in used:  # not printed (excluded, masked): any kind of value is stepped over
            lines += ["    if k == 116:", "        pos += 5 + _I32(buf, pos + 1)[0]"]
            if toast is None:
                lines += ["    elif k == 110 or k == 117:", "        pos += 1"]
            else:
                lines += [
                    "    elif k == 110:",
                    "        pos += 1",
                    "    elif k == 117:",
                    "        u = True",
                    "        pos += 1",
                ]
            lines += ["    else:", "        return None"]
            continue
        x = f"{var}{j}"
        lines += [
            "    if k == 116:",
            "        s = pos + 5",
            "        pos = s + _I32(buf, pos + 1)[0]",
            f"        {x} = {_value_expr(kinds[j], j)}",
            "    elif k == 110:",
            f"        {x} = b'null'",
            "        pos += 1",
        ]
        if toast is not None:
            lines += [
                "    elif k == 117:",
                f"        {x} = {toast(j)}",
                "        u = True",
                "        pos += 1",
            ]
        lines += ["    else:", "        return None"]
    return lines


def update_json_parser(
    n: int,
    converters: list,
    columns: list[int],
    value: list,
    key: list | None,
    placeholders: list,
    full: bool,
):
    """For UPDATE messages of tuples of `n` columns (`row_json_parser`'s `converters`, `columns`, `value`,
    `key`; `placeholders[j]`: row field j's unchanged-TOAST value as `TableEnvelope.unavailable` holds it):
    `full` (REPLICA IDENTITY FULL): `parse(buf, start) -> (before JSON, after JSON, key JSON, u) | None` with
    `start` at the old tuple (after its `O`), None also when the key changed; else `parse(buf, start) ->
    (after JSON, key JSON | None, u) | None` with `start` at the new tuple (after its `N`); `u`: whether the
    new tuple held an unchanged TOAST value. None when a placeholder cannot be printed as JSON (the dict
    path serves)."""
    field_of = {c: j for j, c in enumerate(columns)}
    value = [JsonField(*f) for f in value]
    key = [JsonField(*f) for f in key or ()]
    used = {f.j for f in value + key if f.fixed is None}
    ns: dict = {"_dumps": orjson.dumps, "_I16": I16, "_I32": I32}
    kinds: dict[int, str] = {}
    for j in used:
        kind = conv_kind(converters[j])
        if kind == "conv" and getattr(converters[j], "json", None) is not None:
            kind = "json"  # the converter's own bytes -> JSON
            ns[f"c{j}"] = converters[j].json
        elif kind == "conv":
            ns[f"c{j}"] = converters[j]
        kinds[j] = kind
        try:
            ns[f"P{j}"] = _NULL if placeholders[j] is None else orjson.dumps(placeholders[j])
        except TypeError:
            return None
    # printed forms: a field's NULL (raw `null`) shows its default where the converter prints one
    nulls = {}
    for f in value + key:
        if f.fixed is None and f.null_json != _NULL:
            nulls[f.null_json] = nulls.get(f.null_json) or f"D{len(nulls)}"
            ns[nulls[f.null_json]] = f.null_json

    def args_of(fields: list[JsonField], var: str) -> str:
        def one(f: JsonField) -> str:
            x = f"{var}{f.j}"
            return x if f.null_json == _NULL else f"({nulls[f.null_json]} if {x} == b'null' else {x})"

        return "".join(a + ", " for a in fields_format(fields, one)[1])

    def printed(fields: list[JsonField], var: str) -> str:
        name = f"F{len(ns)}"
        ns[name] = fields_format(fields, str)[0]
        return f"{name} % ({args_of(fields, var)})"

    keyed = printed(key, "x") if key else "None"
    if full:
        # a `u` takes the old row's value, or the placeholder where that was NULL (PgoutputStream._row_toast)
        lines = [
            "def parse(buf, start):",
            "    pos = start",
            *_walk(n, field_of, used, kinds, "o", None),
            "    if buf[pos] != 78:",
            "        return None",
            "    pos += 1",
            "    u = False",
            *_walk(n, field_of, used, kinds, "x", lambda j: f"P{j} if o{j} == b'null' else o{j}"),
        ]
        raw_key = [f.j for f in key if f.fixed is None]
        if raw_key:  # the same key: equal raw JSON (a masked key field is constant)
            old_key = "".join(f"o{j}, " for j in raw_key)
            new_key = "".join(f"x{j}, " for j in raw_key)
            lines += [f"    if ({old_key}) != ({new_key}):", "        return None"]
        lines.append(f"    return {printed(value, 'o')}, {printed(value, 'x')}, {keyed}, u")
    else:
        walk = ["    pos = start", "    u = False", *_walk(n, field_of, used, kinds, "x", lambda j: f"P{j}")]
        lines = ["def parse(buf, start):", *walk, f"    return {printed(value, 'x')}, {keyed}, u"]
        # ... and straight into the record's line, as `row_json_parser`'s `line` (its `value_format`, the same
        # fields): `parse.line(buf, start, fmt, lsn, tx, ns) -> (line, key length, u)`
        tail = "lsn, lsn, tx, t[:-6], t[:-3], t)"
        lines += ["def parse_line(buf, start, fmt, lsn, tx, ns):", *walk, "    t = b'%d' % ns"]
        if key:
            lines += [
                f"    key = {keyed}",
                f"    return fmt % (key, {args_of(value, 'x')}{tail}, len(key), u",
            ]
        else:
            lines += [f"    return fmt % ({args_of(value, 'x')}{tail}, 0, u"]
    code = "\n".join(lines) + "\n"
    exec(compile(code, f"<pgoutput TOAST update of {n}>", "exec"), ns)  # noqa: S102 - names as constants
    parse = ns["parse"]
    parse.line = ns.get("parse_line")
    parse.value_format = fields_format(value, str)[0]
    return parse
