"""Snapshot lines straight from COPY's messages (a forked reader's compact lines, one reader's whole lines into
the directory output): `ReadRecords.line(parse_row(data), mark)`'s bytes from a row's raw CopyData message, in C (emulator/fastpg_copy.c) with the plan the stream's C reader
makes from the same fields (pg_line_plan.line_spec over the snapshot converters), the row going the Python way
where the C code answers None (or is not built, or DBZ_EMULATOR_PURE_PYTHON=1: linefill.PG None).

Per row the Python way decodes and splits the message, builds `after` and the key as dicts through the
converters, serializes both and formats the line; here one C call reads the columns and writes the line from a
format made once per (table, marker) with `after`'s fields in place (the stream's `line_format` does the same
for a transaction). tests/test_pg_snapshot_c.py compares both on a real table of every C kind."""

from __future__ import annotations

import re
from collections.abc import Callable

from emulator import linefill
from emulator.connectors.postgres.copy_text import parse_row
from emulator.connectors.postgres.pg_line_plan import line_spec
from emulator.connectors.postgres.pgoutput import JsonField, fields_format
from emulator.envelope_format import line_format
from emulator.pipeline.snapshot_records import ReadRecords
from emulator.records import headers_json

_AFTER = b',"after":%b,'


def available(codec: str) -> bool:
    """Whether rows read with this client encoding go through the C lines (its text is read as UTF-8)."""
    return linefill.PG is not None and codec == "utf-8"


def raw_line(rr: ReadRecords, codec: str, compact: bool = True) -> Callable[[object, str], bytes]:
    """`line(data, mark)`: the table's compact directory line of a READ of the COPY message `data` (`compact`
    False: the whole line, `rr.record(row, mark).line()`'s bytes)."""
    if compact:
        py_line = rr.line
    else:
        record = rr.record

        def py_line(row: list, mark: str) -> bytes:
            return record(row, mark).line()

    def slow(data, mark: str) -> bytes:
        return py_line(parse_row(data, codec), mark)

    pg = linefill.PG
    if not available(codec):
        return slow
    env = rr.env
    value, key = env.json_fields()
    n = len(env.names)  # the COPY selects the table's columns in order: row field j is column j
    plan = pg["plan"](line_spec(n, env.snapshot_converters, list(range(n)), value, key))
    vfmt = fields_format([JsonField(*f) for f in value], lambda f: "")[0]
    hs = env.settings.context_headers
    tail = headers_json(hs) if hs else None
    formats: dict[str, bytes] = {}

    def format_of(mark: str) -> bytes:
        payload = rr.payload_format(mark)
        # `before` (null) comes first: the first `after` slot is the payload's own (the source's `%` are `%%`)
        payload = payload.replace(_AFTER, b',"after":' + vfmt + b",", 1)
        fmt = line_format(env.key_frame, env.value_frame, payload, tail, compact=compact)[0]
        formats[mark] = fmt
        return fmt

    cline = pg["copyline"]

    def line(data, mark: str) -> bytes:
        r = cline(plan, data, formats.get(mark) or format_of(mark))
        return slow(data, mark) if r is None else r

    return line


def raw_checks(converters: list) -> Callable[[object], object] | None:
    """For a snapshot read from COPY's messages (one reader): `search(data)`, not None for a message holding a
    text that may fail one of the converters' row checks (a NaN in a NOT NULL precise numeric: numeric.py's
    `check.hints`), so that only such a message is parsed and checked; None when a check has no hints (its
    rows go the Python way)."""
    hints: list[bytes] = []
    for c in converters:
        check = getattr(c, "check", None)
        if check is None:
            continue
        h = getattr(check, "hints", None)
        if h is None:
            return None
        hints += h
    return re.compile(b"|".join(map(re.escape, hints)) if hints else b"(?!)").search
