"""PostgreSQL array literals -> lists, element by element through the element's converter."""

from __future__ import annotations

from emulator.connectors.postgres.types.model import Converter


def parse_array(s: str, delim: str = ",") -> list:
    """PostgreSQL array_out text -> (nested) list of str/None; `delim` the element type's typdelim (`;` for
    box, whose values hold commas; `,` for every other built-in type)."""
    if s[0] == "[":  # explicit bounds decoration "[0:1]={...}"
        s = s[s.index("=") + 1 :]
    if s == "{}":
        return []
    if '"' not in s and "{" not in s[1:]:
        return [None if x == "NULL" else x for x in s[1:-1].split(delim)]
    out, _ = _parse_array_level(s, 0, delim)
    return out


def _parse_array_level(s: str, i: int, delim: str = ",") -> tuple[list, int]:
    i += 1  # skip '{'
    res: list = []
    if s[i] == "}":
        return res, i + 1
    n = len(s)
    while i < n:
        c = s[i]
        if c == "{":
            sub, i = _parse_array_level(s, i, delim)
            res.append(sub)
        elif c == '"':
            i += 1
            buf = []
            while True:
                j = i
                while s[j] != '"' and s[j] != "\\":
                    j += 1
                buf.append(s[i:j])
                if s[j] == "\\":
                    buf.append(s[j + 1])
                    i = j + 2
                else:
                    i = j + 1
                    break
            res.append("".join(buf))
        else:
            j = i
            while s[j] != delim and s[j] != "}":
                j += 1
            tok = s[i:j]
            res.append(None if tok == "NULL" else tok)
            i = j
        c = s[i]
        i += 1
        if c == "}":
            return res, i
    raise ValueError(f"unterminated array literal {s!r}")


def array_converter(elem: Converter, delim: str = ",") -> Converter:
    def conv(t: str) -> list:
        items = parse_array(t, delim)
        if t[1:2] == "{" or t[:1] == "[":  # multi-dimensional: the element converter gets a sub-array
            return [None if x is None or isinstance(x, list) else elem(x) for x in items]
        return [None if x is None else elem(x) for x in items]

    return conv
