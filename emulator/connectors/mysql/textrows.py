"""Fast reading of snapshot result sets (the MySQL text protocol).

pymysql parses each row field by field through generic code; for a snapshot of millions of rows that is
most of the time. Here pymysql sends the query and reads the column definitions (an unbuffered `SSCursor`),
then the row packets are read straight from the connection and parsed by a per-table generated function
that applies the columns' snapshot converters inline and builds the `after` dict as a literal.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any

import pymysql
from pymysql.protocol import MysqlPacket

BINARY_TYPES = frozenset(
    {
        "BINARY",
        "VARBINARY",
        "TINYBLOB",
        "BLOB",
        "MEDIUMBLOB",
        "LONGBLOB",
        "BIT",
        "GEOMETRY",
        "POINT",
        "LINESTRING",
        "POLYGON",
        "MULTIPOINT",
        "MULTILINESTRING",
        "MULTIPOLYGON",
        "GEOMETRYCOLLECTION",
    }
)


def compile_text_row_parser(columns: list[tuple[str, Callable | None, bool]]) -> Callable[[bytes], dict]:
    """`columns`: (field name, snapshot converter, binary) per selected column, in SELECT order."""
    g: dict[str, Any] = {"_int": int}
    lines = ["def parse(d):", "    p = 0"]
    fields = []
    for i, (name, conv, binary) in enumerate(columns):
        var = f"v{i}"
        lines += [
            "    c = d[p]",
            "    if c == 251:",
            f"        {var} = None",
            "        p += 1",
            "    else:",
            "        if c < 251:",
            "            n = c",
            "            p += 1",
            "        elif c == 252:",
            "            n = d[p + 1] | d[p + 2] << 8",
            "            p += 3",
            "        elif c == 253:",
            "            n = d[p + 1] | d[p + 2] << 8 | d[p + 3] << 16",
            "            p += 4",
            "        else:",
            "            n = int.from_bytes(d[p + 1:p + 9], 'little')",
            "            p += 9",
        ]
        raw = "d[p:p + n]" if binary else "d[p:p + n].decode('utf-8', 'replace')"
        call = getattr(conv, "text_call", None)  # values.text_call: the reader and its arguments, one call
        if conv is int:
            expr = "_int(d[p:p + n])"
        elif conv is None:
            expr = raw
        elif call is not None:
            g[f"c{i}"] = call[0]
            g.update({f"a{i}_{k}": a for k, a in enumerate(call[1])})
            expr = f"c{i}({raw}{''.join(f', a{i}_{k}' for k in range(len(call[1])))})"
        else:
            g[f"c{i}"] = conv
            expr = f"c{i}({raw})"
        lines += [f"        {var} = {expr}", "        p += n"]
        fields.append((name, var))
    lines.append("    return {" + ", ".join(f"{n!r}: {v}" for n, v in fields) + "}")
    exec(compile("\n".join(lines), "<snapshot row parser>", "exec"), g)  # noqa: S102
    return g["parse"]


def stream_rows(conn: pymysql.Connection, sql: str, parse: Callable[[bytes], dict]) -> Iterator[dict]:
    """Run `sql` unbuffered and yield each row parsed by `parse`. The connection is usable again after the
    last row (or after the generator is closed, which drains the rest of the result). A parser marked
    `drops_rows` (failed_rows.dropping_parser) returns None for a row it drops: only then are rows tested."""
    rows = _stream_rows(conn, sql, parse)
    return _without_dropped(rows) if getattr(parse, "drops_rows", False) else rows


def _without_dropped(rows: Iterator[dict | None]) -> Iterator[dict]:
    try:
        for row in rows:
            if row is not None:
                yield row
    finally:
        rows.close()  # (drains the result: the connection stays in sync)


def _stream_rows(conn: pymysql.Connection, sql: str, parse: Callable[[bytes], dict]) -> Iterator[dict]:
    cur = conn.cursor(pymysql.cursors.SSCursor)
    cur.execute(sql)
    result = conn._result
    rf = conn._rfile
    done = False
    try:
        while True:
            hdr = rf.read(4)
            n = hdr[0] | hdr[1] << 8 | hdr[2] << 16
            data = rf.read(n)
            while n == 0xFFFFFF:
                hdr = rf.read(4)
                n = hdr[0] | hdr[1] << 8 | hdr[2] << 16
                data += rf.read(n)
            first = data[0]
            if first == 0xFE and len(data) < 9:  # EOF
                done = True
                break
            if first == 0xFF:
                done = True
                MysqlPacket(data, "utf8").raise_for_error()
            yield parse(data)
    finally:
        if not done:  # abandoned: read the rest so the connection stays in sync
            try:
                while True:
                    hdr = rf.read(4)
                    n = hdr[0] | hdr[1] << 8 | hdr[2] << 16
                    data = rf.read(n)
                    if n < 9 and data[:1] in (b"\xfe", b"\xff"):
                        break
            except (ValueError, OSError):
                # the connection was closed first (a stop on a failed record while this stream was suspended):
                # nothing left to keep in sync, and the result below is detached all the same (else pymysql's
                # finalizers read the closed socket again and print tracebacks after the one-line error)
                pass
        result.unbuffered_active = False
        result.connection = None
        result.rows = None
        conn._result = None
        cur.close()
