"""The C snapshot lines (emulator/fastpg_copy.c, snapshot_lines.py) print the Python path's bytes.

A real PostgreSQL table of every column kind the C code reads itself and of kinds it hands to the converters
(test_pg_line_c.py's columns and edge rows), plus COPY's escapes in text (tab, newline, carriage return,
backspace, form feed, vertical tab, backslash, a text `\\N`), NULLs printing a column default
(replace.null.with.default, a NaN numeric too) and 12,000 generated rows (more than one read of a chunked
table), and a keyless table with a NOT NULL numeric (the one reader checks a row whose message holds `NaN`
or `Infinity`, here in a text). Snapshotted by `python -m emulator run` (snapshot.mode=initial_only) with the C
extension and with DBZ_EMULATOR_PURE_PYTHON=1, with 1 and 2 readers (2: the forked readers send compact lines;
1: the reader writes whole lines), and with column options (excluded, masked, truncated columns): every topic file must
be the same bytes, the records' own times masked. In this process: each row's C line against
`ReadRecords.line` (or the record's whole line) of its parsed row, and that the C code read it (did not
hand it back)."""

from __future__ import annotations

import re

import psycopg
import pytest
from emulator_proc import EmulatorProcess
from test_pg_line_c import COLS, ROWS

from emulator import linefill
from emulator.config import from_dict
from emulator.connectors.postgres import snapshot_lines
from emulator.connectors.postgres.catalog import load_tables
from emulator.connectors.postgres.connector import PostgresConnector
from emulator.connectors.postgres.copy_text import copy_raw, parse_row
from emulator.engine import Engine
from emulator.offsets import MemoryOffsetStore
from emulator.outputs.directory import DirectoryOutput
from emulator.pipeline.snapshot_records import ReadRecords
from emulator.testing.pgserver import PgServer

needs_c = pytest.mark.skipif(linefill.PG is None, reason="the C extension emulator.fastline is not built")

N_GEN = 12_000
# COPY's escapes: every one the server writes, a text that reads `\N` (not a NULL), a lone backslash
ESCAPES = [
    r"(7, 1, 1, 1, E'\\N', E'cr\rbs\bff\fvt\v', E'\\', true, 1.00, 1, 1, '2024-01-01 00:00:00+00', NULL, NULL, "
    r"NULL, NULL, NULL, NULL, NULL, NULL)",
    r"(8, 2, 2, 2, E'a\tb\nc\\d\\\\e', E'\\t\\n', E' \\ ', false, 2.50, 2, 2, NULL, NULL, NULL, NULL, NULL, "
    r"E'{\"k\": \"t\\tab\"}', E'\\x5c', NULL, NULL)",
]
# generated rows: every kind, NULLs in varying columns, escapes and non-ASCII in some texts
GEN = f"""
INSERT INTO cl (id, i2, i4, i8, t, vc, bp, b, n, n0, nbig, tz, tz3, d, ts, u, j, by, f8, tz0)
SELECT 100 + g, (g % 30000)::smallint, CASE WHEN g % 7 = 0 THEN NULL ELSE g * 31 END, g::bigint * 1000003,
    CASE g % 5 WHEN 0 THEN 'tab' || chr(9) || g WHEN 1 THEN 'back\\slash ' || g WHEN 2 THEN 'ü€ ' || g
        WHEN 3 THEN NULL ELSE md5(g::text) END,
    'customer-' || g, chr(65 + g % 26), g % 3 = 0, ((g % 1000000) / 100.0 + 0.25)::numeric(12,2),
    CASE WHEN g % 11 = 0 THEN NULL ELSE g - 6000 END, (g * 1.0001)::numeric(30,4),
    timestamptz '2024-01-01 00:00:00+00' + g * interval '1.000123 second',
    timestamptz '2024-01-01 00:00:00+00' + g * interval '0.5 second', date '2024-01-01' + g,
    timestamp '2024-01-01 00:00:00' + g * interval '1 minute', NULL, jsonb_build_object('g', g),
    decode(md5(g::text), 'hex'), g / 7.0, timestamptz '2024-01-01 00:00:00+00' + g * interval '1 hour'
FROM generate_series(1, {N_GEN}) g;
"""
NOKEY = """
CREATE TABLE nk (a integer, s text, n numeric(8,3), z timestamptz, req numeric(6,2) NOT NULL);
INSERT INTO nk SELECT g, CASE g % 4 WHEN 0 THEN NULL WHEN 1 THEN 'NaN or Infinity ' || g ELSE 'row' || chr(10) || g END,
    g / 3.0, timestamptz '2024-01-01 00:00:00+00' + g * interval '1 day', g / 7.0 FROM generate_series(1, 300) g;
"""
OPTIONS = {
    "column.exclude.list": "public.cl.i4",
    "column.mask.with.6.chars": "public.cl.vc",
    "column.truncate.to.3.chars": "public.cl.t",
}

_TIMES = re.compile(rb'"ts_ms":\d+,"ts_us":\d+,"ts_ns":\d+\}(,"schema"|\}|$)')


_SOURCE = re.compile(rb'"source":\{[^{}]*\}')
_RUN_ID = re.compile(rb'(runId",\{"schema":\{"type":"string","optional":false\},"payload":")[0-9a-f-]+"')


def _masked(text: bytes) -> list[bytes]:
    """The lines with the records' own times masked, and the source block (each run's own snapshot: its
    time, LSN, transaction; one block per marker, made by the same Python code on both paths) and run id."""
    return [
        _RUN_ID.sub(
            rb'\1R"', _SOURCE.sub(b'"source":S', _TIMES.sub(rb'"ts_ms":T,"ts_us":T,"ts_ns":T}\1', line))
        )
        for line in text.splitlines()
    ]


@pytest.fixture(scope="module")
def pg():
    with PgServer() as server:
        with psycopg.connect(server.dsn, autocommit=True) as c:
            c.execute(f"CREATE TABLE cl ({COLS})")
            c.execute(
                "ALTER TABLE cl ADD COLUMN dd integer DEFAULT 42, ADD COLUMN nd numeric(12,2) DEFAULT 1.5"
            )
            for row in ROWS + ESCAPES:
                c.execute(
                    f"INSERT INTO cl (id, i2, i4, i8, t, vc, bp, b, n, n0, nbig, tz, tz3, d, ts, u, j, by, f8, tz0) VALUES {row}"
                )
            c.execute("UPDATE cl SET dd = NULL, nd = 'NaN' WHERE id IN (1, 7)")
            c.execute(GEN)
            c.execute(NOKEY)
            c.execute("VACUUM ANALYZE")
        yield server


def _snapshot(pg: PgServer, tmp_path, name: str, threads: int, pure: bool, monkeypatch, extra=None) -> dict:
    props = pg.connector_properties(
        **{
            "topic.prefix": "cl",
            "slot.name": name,
            "publication.name": f"{name}_pub",
            "snapshot.mode": "initial_only",
            "snapshot.max.threads": str(threads),
            "table.include.list": "public.cl,public.nk",
            **(extra or {}),
        }
    )
    if pure:
        monkeypatch.setenv("DBZ_EMULATOR_PURE_PYTHON", "1")
    else:
        monkeypatch.delenv("DBZ_EMULATOR_PURE_PYTHON", raising=False)
    work = tmp_path / name
    work.mkdir()
    emu = EmulatorProcess(props, work).start()
    try:
        assert emu.proc.wait(300) == 0, emu.log_tail()
    finally:
        emu.kill()
    log = emu.log_path.read_text()
    if threads > 1:
        assert "snapshot with 2 readers (forked)" in log and "they send lines" in log, log[-3000:]
    return {f.name: f.read_bytes() for f in sorted(emu.out.glob("*.jsonl"))}


@needs_c
@pytest.mark.parametrize(
    "threads,options", [(2, False), (1, False), (2, True)], ids=["2-readers", "1-reader", "2-readers-options"]
)
def test_c_lines_are_the_python_paths_bytes(pg, tmp_path, monkeypatch, threads, options):
    extra = OPTIONS if options else None
    c = _snapshot(pg, tmp_path, "c", threads, False, monkeypatch, extra)
    py = _snapshot(pg, tmp_path, "py", threads, True, monkeypatch, extra)
    assert sorted(c) == sorted(py) and {"cl.public.cl.jsonl", "cl.public.nk.jsonl"} <= set(c)
    assert len(c["cl.public.cl.jsonl"].splitlines()) == len(ROWS) + len(ESCAPES) + N_GEN
    for name in c:
        mc, mp = _masked(c[name]), _masked(py[name])
        assert all(b'"ts_ns":T}' in line for line in mc), name  # every record's own times were masked
        assert mc == mp, name


def _records(pg: PgServer, tmp_path, table: str, extra=None):
    """The table's ReadRecords as the connector's snapshot makes them, and its COPY messages."""
    cfg = from_dict(pg.connector_properties(**{"topic.prefix": "cl", **(extra or {})}))
    conn = PostgresConnector(cfg, Engine(DirectoryOutput(tmp_path / "unused"), MemoryOffsetStore()))
    with psycopg.connect(conn.conninfo, autocommit=True) as snap:
        (t,) = [t for t in load_tables(snap, conn.type_cfg, conn.filters.table_included) if t.name == table]
        ct = conn._capture(t)
        cols = ", ".join(f'"{c.name}"' for c in ct.env.table.columns)
        rows = [bytes(m) for m in copy_raw(snap, f"COPY (SELECT {cols} FROM {table} ORDER BY 1) TO STDOUT")]
    source = {"version": "3.6.3", "connector": "postgresql", "name": "cl", "snapshot": "true", "table": table}
    return ReadRecords(ct.env, lambda mark: {**source, "snapshot": mark}), rows


@needs_c
@pytest.mark.parametrize(
    "table,options,compact",
    [("cl", False, True), ("nk", False, True), ("cl", True, True), ("cl", False, False)],
)
def test_each_row_is_read_in_c(pg, tmp_path, monkeypatch, table, options, compact):
    rr, rows = _records(pg, tmp_path, table, OPTIONS if options else None)
    line = snapshot_lines.raw_line(rr, "utf-8", compact)
    # compact: a forked reader's line (ReadRecords.line); else the whole line one reader writes
    py_line = rr.line if compact else lambda row, mark: rr.record(row, mark).line()
    # the rows the C code hands back go through parse_row (counted): none on these tables
    handed_back = []
    monkeypatch.setattr(
        snapshot_lines, "parse_row", lambda data, codec: handed_back.append(data) or parse_row(data, codec)
    )
    for data in rows:
        for mark in ("first", "true", "last"):
            assert _masked(line(data, mark)) == _masked(py_line(parse_row(data, "utf-8"), mark)), data
    assert len(rows) == (len(ROWS) + len(ESCAPES) + N_GEN if table == "cl" else 300)
    assert handed_back == []
    # the pure path's rows (linefill.PG None) all go that way: the comparison above compared two paths
    monkeypatch.setattr(linefill, "PG", None)
    snapshot_lines.raw_line(rr, "utf-8", compact)(rows[0], "true")
    assert handed_back == [rows[0]]
