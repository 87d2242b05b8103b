r"""A pgoutput TupleData read by one regular expression per captured table, for `pgoutput.row_json_parser`.

The column walk (per column: unpack the kind and length, two additions, a slice) costs about as much as
all the conversions of a row together. One compiled pattern per table instead matches the whole tuple in
C and hands every value over as a group: `\x00\x0b` (the column count), then per column `t\x00\x00..`
(a text value shorter than 64 KB: its kind and length) and the value's own pattern: `[tf]` for a boolean
(length 1), the converter's `rx` pattern where it has one, `-?[0-9]+` for an integer before a column that
may be NULL, `[^\x00]*` for anything else (integers too: PostgreSQL prints them as their JSON);
`(?:...|n)` for a column that may be NULL. A converter's `rx` is `(pattern with k groups, expression of
the JSON over {0}..{k-1} and {n}name, {name: value})`: numeric(p,s) with its s digits, a UTC timestamptz.
Anything the pattern does not describe (another column count, an unchanged TOAST value, a value of 64 KB
or more, NaN, another offset, a year after 9999, ...) fails the match and the tuple takes the column
walk, which handles everything.

Why a match is the tuple's true reading. Call the places where the tuple's columns start its boundaries
(the first right after the column count), and those where the pattern's columns start in a match the
match's boundaries; both are n places, the tuple's end closes both. (1) PostgreSQL's text values never
contain a NUL byte, so in a message shorter than 0x740000 bytes `t\x00\x00` occurs only where a text
value begins (its kind and the two high bytes of its length; a length's bytes `74 00 00` would need a
value of 7.6 MB): every column the match reads as a value starts at a boundary. (2) A column the match
reads as NULL starts at a boundary too, if the one before it does: after a NULL at a boundary (its `n`
is a kind byte, one byte long), after a boolean (its length is in the pattern), and after any other value
because its length is checked: where a value is followed by a NULL in the match, the two bytes before its
group (its length) must equal the group's length, or the tuple takes the walk. By (1) and (2) all n
boundaries of a match are boundaries of the tuple, in order, from the first to the end: they are the
tuple's n boundaries. So the match reads the tuple's columns, a NULL where the tuple has one, and each
value group is the value (it ends where the next column starts). The checks run only where a NULL
follows a value in the match: a NOT NULL column, or a table read without NULLs, costs none.

The first reading the regex engine tries is the one it returns, so the patterns are written for the
first try to be the true one (a wrong reading fails a check and costs the match and the walk):
`[^\x00]*` runs on to the next NUL and gives back a byte at a time, so before a NULL it would first take
the NULL's `n` and the next column's kind as its own and read the columns after it shifted (the shift
mostly fails at the next typed pattern, but every such try is paid for); an integer there is `-?[0-9]+`,
which stops at the `n`. Where a text value before a nullable column could still take a NULL's `n` and the
columns after it accept the shifted reading up to a value that ends in `n` before another nullable column
(several text columns in a row), the first reading could often be the shifted one: such a table keeps the
walk (`_first_reading_may_shift`). Either way the length checks decide what a match reads.
"""

from __future__ import annotations

import re
import struct

# the longest message whose lengths cannot hold the bytes `t\x00\x00` (0x740000: a 7.6 MB value)
MAX_MESSAGE = 0x740000 - 1

_ANY = rb"([^\x00]*)"
# an integer (PostgreSQL prints int2/4/8 and oid so): unlike `[^\x00]*` it stops before a NULL's `n`
_INT = rb"(-?[0-9]+)"
_HEAD = rb"t\x00\x00.."


# kinds whose length is in the pattern (a boolean: one character), so the column after one starts where a
# column starts without a length check
_SELF_DELIMITING = frozenset({"bool"})


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
    end: bytes = rb"\Z",
) -> tuple[object, list[str], dict] | None:
    """For tuples of `n` pgoutput columns (row field `field_of[i]` of column i, `kinds[j]` as
    `pgoutput.conv_kind` says, `nullable[j]` False for a NOT NULL column): the compiled `match`, the lines
    of a generated function's body that set `v{j}` (a used field's JSON; `n{j}` when NULL) and `k{j}`
    (`split` fields: NULL as `kn{j}`, the key's NULL) from `buf` at `start` or `return {fallback}`, and the
    names they use;
    a `defaulted` field (its NULL prints a default) prints that default for a converter's null too.
    `end`: what follows the tuple (the message's end; an UPDATE's old tuple: `old_tuple_end(n)`).
    None where there is nothing to gain: no column, or too many to generate."""
    if n == 0 or n > 400:
        return None
    cols = []  # per column: (field or None, value pattern, expression, names, may be NULL, value ends itself)
    for i in range(n):
        j = field_of.get(i)
        if j is None or j not in used:
            cols.append((None, _ANY, None, {}, True, False))
            continue
        pat, expr, names = _value(kinds[j], converters[j], j)
        cols.append((j, pat, expr, names, nullable[j], kinds[j] in _SELF_DELIMITING))
    for i in range(n - 1):
        j = cols[i][0]
        if j is not None and kinds[j] == "int" and cols[i + 1][4]:
            # `[^\x00]*` would take the next column's NULL `n` (and the column after it) first, then backtrack
            cols[i] = (j, _INT, *cols[i][2:])
    if _first_reading_may_shift(cols):
        return None
    pattern = [re.escape(struct.pack(">h", n))]
    lines = [
        f"    m = _M(buf, start) if len(buf) <= {MAX_MESSAGE} else None",
        "    if m is None:",
        "        return {fallback}",
    ]
    groups: list[str] = []
    first: list[str | None] = []  # per column: its first group's name (None when NULL), if it has one
    checks: list[str] = []
    values: list[str] = []
    ns: dict = {}
    for i, (j, pat, expr, names, null, ends) in enumerate(cols):
        # a value after which a NULL may match is checked against its length when the NULL does match
        checked = i + 1 < n and cols[i + 1][4] and not ends
        head = rb"t\x00\x00\x00\x01" if j is not None and kinds[j] == "bool" else _HEAD
        ngroups = re.compile(pat).groups
        if j is None and not checked and not (i > 0 and not cols[i - 1][5]):
            pat, ngroups = rb"[^\x00]*", 0  # no group needed: not checked, nor a NULL that decides a check
        if checked and ngroups != 1:  # a value of several groups is checked as one more around them
            pat = b"(" + pat + b")"
            groups.append(f"w{i}")
        names_here = [f"a{i}_{k}" for k in range(ngroups)]
        groups += names_here
        first.append(names_here[0] if names_here else None)
        pattern.append(b"(?:" + head + pat + b"|n)" if null else head + pat)
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
        if j in split:  # kn{j}: the key's NULL (row_json_parser's)
            values.append(f"    k{j} = kn{j} if {names_here[0]} is None or v{j} == b'null' else v{j}")
        if j in defaulted and kinds[j] not in ("int", "text", "bool"):
            # a converter's null for a value (NaN) prints as a NULL does: the default (as on the walk)
            values.append(f"    if v{j} == b'null':")
            values.append(f"        v{j} = n{j}")
    for i, (_j, _pat, _expr, _names, null, ends) in enumerate(cols):
        if i + 1 == n or not cols[i + 1][4] or ends:
            continue
        cond = f"{first[i + 1]} is None" + (f" and {first[i]} is not None" if null else "")
        whole = _whole_group(groups, i)
        checks += [
            f"    if {cond}:",
            f"        s = m.start({whole})",
            f"        if buf[s - 2] << 8 | buf[s - 1] != len({groups[whole - 1]}):",
            "            return {fallback}",
        ]
    pattern.append(end)
    ns["_M"] = re.compile(b"".join(pattern), re.DOTALL).match
    if groups:
        lines.append(f"    {', '.join(groups)}, = m.groups()")
    return ns["_M"], lines + checks + values, ns


def old_tuple_end(n: int) -> bytes:
    """What follows an UPDATE's old tuple of `n` columns: the new tuple's `N` and its column count (the same n).
    A lookahead, so the match ends where the old tuple does: the last value's `[^\x00]*` cannot run past the
    NUL a text value never holds (the count's high byte, or the new tuple's first length), and gives back
    bytes up to the last place followed by `N` and the count, which is the tuple's end (nothing between the
    end and that NUL can be followed by them: `N`, the count, `t` or `n` kinds)."""
    return rb"(?=N" + re.escape(struct.pack(">h", n)) + rb")"


def _whole_group(groups: list[str], i: int) -> int:
    """The number of the group that holds column i's whole value."""
    if f"w{i}" in groups:
        return groups.index(f"w{i}") + 1
    return groups.index(f"a{i}_0") + 1


def _first_reading_may_shift(cols: list) -> bool:
    """Whether the engine's first reading of a tuple could be a shifted one (module docstring), which the
    length checks then refuse at the cost of the match and the walk: the first reading differs from the
    true one first where a value takes the `n` of a NULL after it (only `[^\x00]*` can), so the columns
    after it are read one column on, until a column's pattern stops before an `n` that ends the value one
    column on and the NULL after it takes that `n`. Every pattern in between must accept the value one column
    on (`[^\x00]*` accepts any; a typed pattern the same type's), and the value taken apart must be one that
    may end in `n`. A table where that can happen (several text columns in a row before nullable ones) is
    read by the walk: 3,450 of 5,000 tuples of 10 nullable text columns with 20 % NULLs fell to it."""
    n = len(cols)
    free = [c[0] is None or c[1] == _ANY for c in cols]  # accepts any value, may end in n
    for i in range(n - 1):
        if not (free[i] and cols[i + 1][4]):  # no value here can take a NULL's n
            continue
        for c in range(i + 1, n - 1):  # pattern c reads the value of column c + 1
            if not (free[c] or cols[c][1] == cols[c + 1][1]):
                break
            if free[c + 1] and cols[c + 1][4]:  # c + 1's value may end in n, taken by pattern c + 1's NULL
                return True
    return False
