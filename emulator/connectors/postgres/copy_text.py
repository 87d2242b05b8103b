"""A snapshot's `COPY ... TO STDOUT` (text format) read straight from libpq: one CopyData message per row,
split into its column texts (None for NULL) - what psycopg's `Copy.rows()` gives, at a fifth of its CPU.

psycopg's `rows()` goes through a generator, its wait loop and the row parser for every row (2.5-2.9 CPU-µs
per row of bench_pg.py's table); here a row is `PQgetCopyData` (blocking: libpq waits on the socket), one
decode and one `split` (0.4-0.6 µs). A row holding a backslash is the only one that needs more: COPY's text
format writes NULL as `\\N` and escapes backslash, tab, newline, carriage return, backspace, form feed and
vertical tab (https://www.postgresql.org/docs/current/sql-copy.html, "Text Format"; the server writes no
octal or hex escapes), so a row without one has no NULL and no escape.

psycopg's `Copy` context still opens and closes the COPY: on an early exit (an error, or the consumer
closing the generator) it cancels the query and drains the rest, as with `rows()`; after a complete read the
final result has been taken here and the connection is idle in its transaction again.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

import psycopg
from psycopg import pq, sql

_ESCAPED = re.compile(r"\\(.)")
_UNESCAPE = {"b": "\b", "f": "\f", "n": "\n", "r": "\r", "t": "\t", "v": "\v", "\\": "\\"}


def _unescape_one(m: re.Match) -> str:
    c = m.group(1)
    return _UNESCAPE.get(c, c)  # any other escaped character stands for itself (COPY FROM's rule)


def parse_escaped(line: str) -> list[str | None]:
    """A row's text (without its newline) that holds a backslash: NULLs and escapes resolved."""
    return [
        None if f == "\\N" else _ESCAPED.sub(_unescape_one, f) if "\\" in f else f for f in line.split("\t")
    ]


def copy_rows(conn: psycopg.Connection, query: sql.Composable | str) -> Iterator[list[str | None]]:
    """The rows of a `COPY (...) TO STDOUT` in text format on `conn`, as lists of column texts."""
    with conn.cursor().copy(query) as cp:
        pgconn = conn.pgconn
        get = pgconn.get_copy_data
        codec = conn.info.encoding
        while True:
            n, data = get(0)  # blocking: the whole next row, or -1 at the end of the COPY
            if n <= 0:
                break
            text = str(data, codec)
            if "\\" in text:
                yield parse_escaped(text[:-1])
            else:
                yield text[:-1].split("\t")
        if n == -2:
            raise psycopg.OperationalError(pgconn.error_message.decode(errors="replace").strip())
        _finish(cp, pgconn)


def parse_row(data, codec: str) -> list[str | None]:
    """One CopyData message of a COPY in text format (bytes-like, with its newline) as its column texts."""
    text = str(data, codec)
    return parse_escaped(text[:-1]) if "\\" in text else text[:-1].split("\t")


def copy_raw(conn: psycopg.Connection, query: sql.Composable | str) -> Iterator:
    """`copy_rows`'s rows as their CopyData messages (bytes-like, each with its newline; `parse_row` reads one):
    for a reader that turns them into lines in C (snapshot_lines.py)."""
    with conn.cursor().copy(query) as cp:
        pgconn = conn.pgconn
        get = pgconn.get_copy_data
        while True:
            n, data = get(0)
            if n <= 0:
                break
            yield data
        if n == -2:
            raise psycopg.OperationalError(pgconn.error_message.decode(errors="replace").strip())
        _finish(cp, pgconn)


def _finish(cp, pgconn: pq.abc.PGconn) -> None:
    """The COPY's final result (its error, if the server failed it) and the end of the query's results."""
    res = pgconn.get_result()
    error = None
    while res is not None:
        if res.status != pq.ExecStatus.COMMAND_OK and error is None:
            error = psycopg.errors.error_from_result(res, encoding=cp.connection.info.encoding)
        res = pgconn.get_result()
    if error is not None:
        raise error
