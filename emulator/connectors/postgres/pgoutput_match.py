r"""A pgoutput TupleData read by one regular expression per captured table, for `pgoutput.row_json_parser`.

The column walk (per column: unpack the kind and length, two additions, a slice) costs about as much as
all the conversions of a row together. One compiled pattern per table instead matches the whole tuple in
C and hands every value over as a group: `\x00\x0b` (the column count), then per column `t\x00\x00..`
(a text value shorter than 64 KB: its kind and length) and the value's own pattern: `[tf]` for a boolean
(length 1), the converter's `rx` pattern where it has one, `[^\x00]*` for anything else (integers too:
PostgreSQL prints them as their JSON); `|n` after a column that may be NULL. A converter's `rx` is
`(pattern with k groups, expression of the JSON over {0}..{k-1} and {n}name, {name: value})`: numeric(p,s)
with its s digits, a UTC timestamptz. Anything the pattern does not describe (another column count, an
unchanged TOAST value, a value of 64 KB or more, NaN, another offset, a year after 9999, ...) fails the
match and the tuple takes the column walk, which handles everything.

Why a match is the tuple's true reading: PostgreSQL's text values never contain a NUL byte, so in a
message shorter than 0x740000 bytes `t\x00\x00` occurs only where a text value begins (its kind and the
two high bytes of its length; a length's bytes `74 00 00` would need a value of 7.6 MB). So every
non-NULL column of a match starts where a value starts. A NULL alternative could match an `n` inside the
value before it: each column followed by one that may be NULL has its length checked (its value group
against the length's two bytes), so the column after it starts where a value starts too. Then all n
columns of a match start at the n places where the tuple's columns start, in order: the same columns,
and each value group is the value (it ends where the next column starts).
"""

from __future__ import annotations

import re
import struct

# the longest message whose lengths cannot hold the bytes `t\x00\x00` (0x740000: a 7.6 MB value)
MAX_MESSAGE = 0x740000 - 1

_ANY = rb"([^\x00]*)"
_HEAD = rb"t\x00\x00.."
_HEAD_LEN = rb"t\x00\x00(..)"


def _value(kind: str, conv, j: int) -> tuple[bytes, str, dict]:
    """(pattern of the value, expression of its JSON over {0}.., names) of row field `j`."""
    if kind == "int":  # PostgreSQL prints an integer as its JSON (the walk takes it as it is too)
        return _ANY, "{0}", {}
    if kind == "text":
        return _ANY, "_dumps({0}.decode())", {}
    if kind == "bool":
        return rb"([tf])", "b'true' if {0} == b't' else b'false'", {}
    rx = getattr(conv, "rx", None)
    if rx is not None:
        return rx
    if getattr(conv, "json", None) is not None:
        return _ANY, f"c{j}({{0}})", {}
    return _ANY, f"_dumps(c{j}({{0}}.decode()))", {}


def tuple_match(
    n: int,
    kinds: list[str],
    converters: list,
    field_of: dict[int, int],
    used: set[int],
    split: set[int],
    nullable: list[bool],
    defaulted: frozenset[int] = frozenset(),
) -> tuple[object, list[str], dict] | None:
    """For tuples of `n` pgoutput columns (row field `field_of[i]` of column i, `kinds[j]` as
    `pgoutput._conv_kind` says, `nullable[j]` False for a NOT NULL column): the compiled `match`, the lines
    of a generated function's body that set `v{j}` (a used field's JSON; `n{j}` when NULL) and `k{j}`
    (`split` fields: NULL as `null`) from `buf` at `start` or `return {fallback}`, and the names they use;
    a `defaulted` field (its NULL prints a default) prints that default for a converter's null too.
    None where there is nothing to gain: no column, or more than two thirds of them followed by one that may
    be NULL (each such column's length check costs about what the match saves on a column: bench_pg's table
    with its last 6 / 8 / 9 of 11 columns nullable, 35.1k / 37.8k / 39.2k instructions against the walk's 38.7k)."""
    if n == 0 or n > 400:
        return None
    cols = []  # per column: (field or None, value pattern, expression, names, may be NULL)
    for i in range(n):
        j = field_of.get(i)
        if j is None or j not in used:
            cols.append((None, b"[^\\x00]*", None, {}, True))
            continue
        pat, expr, names = _value(kinds[j], converters[j], j)
        cols.append((j, pat, expr, names, nullable[j]))
    pattern = [re.escape(struct.pack(">h", n))]
    lines = [
        f"    m = _M(buf, start) if len(buf) <= {MAX_MESSAGE} else None",
        "    if m is None:",
        "        return {fallback}",
    ]
    groups: list[str] = []
    checks: list[str] = []
    values: list[str] = []
    ns: dict = {}
    for i, (j, pat, expr, names, null) in enumerate(cols):
        checked = i + 1 < n and cols[i + 1][4]  # the next may be NULL: this one's length is checked
        if j is not None and kinds[j] == "bool":
            head = rb"t\x00\x00\x00\x01"  # one character: its length is in the pattern
            checked = False
        else:
            head = _HEAD_LEN if checked else _HEAD
        if j is None and checked:
            pat = _ANY
        ngroups = re.compile(pat).groups
        whole = f"a{i}_0"  # the group holding the whole value (for the length check)
        if checked:
            groups.append(f"L{i}")
            if ngroups != 1:  # a value of several groups is checked as one more around them
                pat = b"(" + pat + b")"
                groups.append(f"w{i}")
                whole = f"w{i}"
        names_here = [f"a{i}_{k}" for k in range(ngroups)]
        groups += names_here
        pattern.append(b"(?:" + head + pat + b"|n)" if null else head + pat)
        if checked:
            checks.append(
                f"    if L{i} is not None and L{i}[0] << 8 | L{i}[1] != len({whole}):"
                if null
                else f"    if L{i}[0] << 8 | L{i}[1] != len({whole}):"
            )
            checks.append("        return {fallback}")
        if j is None:
            continue
        prefix = f"x{j}_"
        for name, value in names.items():
            ns[prefix + name] = value
        json = expr.format(*names_here, n=prefix)
        if null:
            values.append(f"    v{j} = n{j} if {names_here[0]} is None else {json}")
        else:
            values.append(f"    v{j} = {json}")
        if j in split:
            values.append(f"    k{j} = b'null' if {names_here[0]} is None else v{j}")
        if j in defaulted and kinds[j] not in ("int", "text", "bool"):
            # a converter's null for a value (NaN) prints as a NULL does: the default (as on the walk)
            values.append(f"    if v{j} == b'null':")
            values.append(f"        v{j} = n{j}")
    if len(checks) // 2 > 2 * n // 3:  # a check costs ~1.2k instructions: with more the walk is cheaper
        return None
    pattern.append(rb"\Z")
    ns["_M"] = re.compile(b"".join(pattern), re.DOTALL).match
    if groups:
        lines.append(f"    {', '.join(groups)}, = m.groups()")
    return ns["_M"], lines + checks + values, ns
