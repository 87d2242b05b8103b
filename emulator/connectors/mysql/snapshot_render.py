"""The MySQL connector's forked snapshot readers' rendering: a row -> the item the parent turns into a record
(`snapshot_payloads`) or the record's compact directory line. Split out of snapshot.py (one job a module)."""

from __future__ import annotations

import time

import orjson

from emulator.connectors.mysql.captured import CapturedTable
from emulator.connectors.mysql.source import source_block
from emulator.envelope import TableEnvelope
from emulator.envelope_format import line_format, payload_format
from emulator.pipeline.snapshot_chunks import renderer
from emulator.records import headers_json


def mysql_renderer(
    tables: list[CapturedTable], markers, prefix: str, name: str, file: str, pos: int, lines: bool = False
):
    """For forked readers (snapshot_chunks.renderer): the rows are `after` dicts already, filled as the
    parent's emitter fills them; one source block per mark, table and second (_snapshot_emitter). `lines`:
    the items are the records' compact directory lines (snapshot_records.ReadRecords.line, LineBatch), from
    one line format per source block."""
    line_formats: dict[int, bytes] = {}  # per source block (id: the cache holds the block itself)
    source = _source_cache(prefix, name, file, pos, line_formats)

    def line_of(env):
        return _row_lines(env, source, line_formats, True)

    def item_of(env):
        t, to_after, key_of, payloads = env.table, _filled_after(env), env.key_of, env.snapshot_payloads

        def item(row, mark: str):
            after = to_after(row)
            return payloads(after, source(t, mark), key_of(after))

        return item

    return renderer(tables, markers, line_of if lines else item_of, _same, lines)


def one_reader_lines(engine, prefix: str, name: str, file: str, pos: int):
    """`emit_row(ct, after, mark)` of the one-reader snapshot when the engine's output takes records as their
    lines (`engine.line_writer()`, else None): each row's whole directory line from one line format per source
    block (as the forked readers' `mysql_renderer` with `lines`, not compact), written as it is; the records
    and source blocks those of `MySqlSnapshot._snapshot_emitter(0, None, file, pos)` (its `env.change`, a
    Record and its `line()` per row). Tables whose envelope does not make bytes take that emitter."""
    write_line = engine.line_writer()
    if write_line is None:
        return None
    line_formats: dict[int, bytes] = {}
    source = _source_cache(prefix, name, file, pos, line_formats)
    lines: dict[int, tuple] = {}  # per captured table: (topic, line(row, mark))

    def emit_row(ct: CapturedTable, after: dict, mark: str) -> bool:
        """False: not this table (the caller's emitter takes it)."""
        way = lines.get(id(ct))
        if way is None:
            env = ct.env
            if type(env) is not TableEnvelope:
                return False
            way = lines[id(ct)] = (env.topic, _row_lines(env, source, line_formats, False))
        write_line(way[0], way[1](after, mark))
        engine.records += 1
        return True

    return emit_row


def _source_cache(prefix: str, name: str, file: str, pos: int, line_formats: dict[int, bytes]):
    """`source(t, mark, sec=None)`: the snapshot's source block of a mark, table and second (None: now), as
    `MySqlSnapshot._snapshot_emitter(0, None, file, pos)` builds it; only the last one is kept, and a new one
    empties `line_formats` (the line formats of the blocks it replaced)."""
    sources: dict[tuple, dict] = {}

    def source(t, mark: str, sec: int | None = None) -> dict:
        if sec is None:
            sec = int(time.time())
        k = (mark, t.id, sec)
        src = sources.get(k)
        if src is None:
            src = source_block(
                prefix, name, sec * 1_000_000, mark, t.namespace, t.name, 0, None, file, pos, 0
            )
            sources.clear()
            sources[k] = src
            line_formats.clear()
        return src

    return source


def _row_lines(env, source, line_formats: dict[int, bytes], compact: bool):
    """`line(row, mark)`: the record of a snapshot row (a dict, filled and converted as the parent's emitter
    fills it: `env.change`'s steps) as its directory line, `compact` with HEAD_MARK for the value's schema head
    (line_format); `source(t, mark, sec)` the block of its mark, table and second, `line_formats` the line
    format per block (by id)."""
    t, to_after, key_of = env.table, _filled_after(env), env.key_of
    headers = env.settings.context_headers
    tail = headers_json(headers) if headers else None
    steps = env.key_only or env.null_defaults  # snapshot_payloads' steps
    # the mark, second and line format of the row before: a row needs the source block of its second (read
    # with the record's times, one clock read) but looks it up only when the second or the mark changes
    last = [None, -1, b""]

    def fmt_of(mark: str, sec: int) -> bytes:
        src = source(t, mark, sec)
        fmt = line_formats.get(id(src))
        if fmt is None:
            pay = payload_format(before=b"null", source=orjson.dumps(src), transaction=b"null", op="r")
            fmt = line_formats[id(src)] = line_format(env.key_frame, env.value_frame, pay, tail, compact)[0]
        last[:] = mark, sec, fmt
        return fmt

    def line(row, mark: str) -> bytes:
        after = row if to_after is _same else to_after(row)
        key = key_of(after)
        if steps:
            after = env.value_part(after) if env.key_only else after
            after = env._null_defaults(after) if env.null_defaults else after
        ns = time.time_ns()
        sec = ns // 1_000_000_000
        fmt = last[2] if mark is last[0] and sec == last[1] else fmt_of(mark, sec)
        if key is None:
            return fmt % (orjson.dumps(after), ns // 1_000_000, ns // 1_000, ns)
        return fmt % (orjson.dumps(key), orjson.dumps(after), ns // 1_000_000, ns // 1_000, ns)

    return line


def _filled_after(env):
    fill = env.fill_nulls if env.null_fill else None
    if fill is None:
        return _same

    def filled(row: dict) -> dict:
        fill(row)
        return row

    return filled


def _same(row):
    return row
