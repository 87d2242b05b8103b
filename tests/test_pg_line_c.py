"""The C reader of pgoutput tuples (emulator/fastpg.c, pg_line_plan.py) prints the lines the generated Python
reader (`pgoutput.row_json_parser`'s `parse_line`) prints.

A real PostgreSQL workload over a table of every column kind the C code reads itself (integers, text, varchar,
char, boolean, numeric in precise mode with scale 2 and 0, timestamptz with 6, 3 and 0 digits) and of kinds it
hands to the converters (numeric(30,4), date, timestamp, uuid, jsonb, bytea, float8): INSERTs with edge values
(quotes, backslashes, control characters, `%`, non-ASCII, NaN, -0.00, extremes, fractions of every length) and
NULLs, UPDATEs (the new tuple alone), and the same on a REPLICA IDENTITY FULL table whose DELETEs read their old
row with the same reader. Its pgoutput messages are replayed through the connector's handlers with the C reader
and with the generated one (linefill.PG None), without and with transaction metadata: every topic's file must be
the same bytes (the records' own times masked). A few values are checked against numbers worked out by hand.
Skipped where the extension was not built."""

from __future__ import annotations

import functools
import re
from pathlib import Path

import orjson
import psycopg
import pytest

from emulator import linefill
from emulator.config import from_dict
from emulator.connectors.postgres import pgoutput as po
from emulator.connectors.postgres.connector import PostgresConnector
from emulator.engine import Engine
from emulator.offsets import MemoryOffsetStore
from emulator.outputs.directory import DirectoryOutput
from emulator.testing.pgserver import PgServer

PG_C = linefill.PG
needs_c = pytest.mark.skipif(PG_C is None, reason="the C extension emulator.fastline is not built")

COLS = (
    "id bigint PRIMARY KEY, i2 smallint, i4 integer, i8 bigint, t text, vc varchar(40), bp char(5), b boolean, "
    "n numeric(12,2), n0 numeric(10,0), nbig numeric(30,4), tz timestamptz, tz3 timestamptz(3), d date, "
    "ts timestamp, u uuid, j jsonb, by bytea, f8 float8, tz0 timestamptz(0)"
)
NAMES = [c.split()[0] for c in COLS.split(", ")]
# rows: every column but the key NULL in one, extremes and odd text in the others
ROWS = [
    "(1, 1, 2, 3, 'plain', 'Berlin', 'ab', true, 1234.25, 7, 1.5, '2024-01-01 00:00:01+00', "
    "'2024-01-01 00:00:01.5+00', '2024-02-29', '2024-01-01 12:00:00.25', "
    "'a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11', '{\"a\": [1, 2]}', '\\x00ff', 1.5, '2024-01-01 00:00:02+00')",
    "(2, -32768, -2147483648, -9223372036854775808, 'q\"uo\\te %s %d %%', 'tab\tnew\nline', 'x', false, "
    "-0.00, -1, -12345678901234567890.1234, '2024-06-30 23:59:59.123456+00', '2024-06-30 23:59:59.1239+00', "
    "'0001-01-01', '1970-01-01 00:00:00', NULL, '\"s\"', '\\x', -0.0, '1970-01-01 00:00:00+00')",
    "(3, 32767, 2147483647, 9223372036854775807, 'ünïcødé €😀', 'ctl \x01\x1f', '€', true, "
    "9999999999.99, 9999999999, 0.0001, '2024-06-30 23:59:59.1+00', '2024-06-30 23:59:59+00', "
    "'9999-12-31', '2024-01-01 00:00:00.000001', NULL, 'null', '\\x41', 'NaN', '2024-06-30 23:59:59.7+00')",
    "(4, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, "
    "NULL, NULL)",
    "(5, 0, 0, 0, '', '', '', false, 'NaN', 0, 'NaN', 'infinity', '-infinity', '2024-01-01', '2024-01-01', NULL, "
    "'[]', '\\x', 'Infinity', 'infinity')",
    "(6, 5, 6, 7, repeat('x', 3000), 'long', 'l', true, -99999999.5, -9999999999, 99999999999999999999999999.9999, "
    "'1999-12-31 23:59:59.999999+00', '2000-01-01 00:00:00.001+00', '2000-01-01', '2000-01-01 00:00:00', NULL, "
    "'{}', '\\xdeadbeef', 1e300, '2000-01-01 00:00:00+00')",
]
UPDATES = [
    "UPDATE {t} SET n = n + 1, tz = tz + interval '1.5 second', b = NOT b, t = t || '%' WHERE id IN (1, 2, 6)",
    "UPDATE {t} SET i2 = 9, t = 'now set', n = 0.01, tz3 = '2024-01-01 00:00:00.010+00' WHERE id = 4",
    "UPDATE {t} SET vc = NULL, n0 = NULL WHERE id = 3",
    "UPDATE {t} SET dd = NULL, nd = 'NaN' WHERE id = 1",
]


def _record(pg: PgServer) -> list[tuple[int, bytes]]:
    """The workload's pgoutput messages (lsn, message) on a DEFAULT and a FULL table."""
    with psycopg.connect(pg.dsn, autocommit=True) as c:
        c.execute("SET synchronous_commit = on")
        for t in ("cl", "cl_full"):
            c.execute(f"CREATE TABLE {t} ({COLS})")
            # defaults: a NULL prints the default (replace.null.with.default), and so does a NaN numeric
            c.execute(
                f"ALTER TABLE {t} ADD COLUMN dd integer DEFAULT 42, ADD COLUMN nd numeric(12,2) DEFAULT 1.5"
            )
        c.execute("ALTER TABLE cl_full REPLICA IDENTITY FULL")
        c.execute("CREATE PUBLICATION pcl FOR TABLE cl, cl_full")
        c.execute("SELECT pg_create_logical_replication_slot('scl', 'pgoutput')")
        for t in ("cl", "cl_full"):
            with c.transaction():
                for row in ROWS:
                    c.execute(f"INSERT INTO {t} VALUES {row}")
            for u in UPDATES:
                c.execute(u.format(t=t))
            c.execute(f"DELETE FROM {t} WHERE id IN (2, 4)")
        cur = c.execute(
            "SELECT lsn::text, data FROM pg_logical_slot_get_binary_changes("
            "'scl', NULL, NULL, 'proto_version', '1', 'publication_names', 'pcl')"
        )
        return [(po.lsn_to_int(lsn), bytes(data)) for lsn, data in cur]


# columns left out, masked (a constant in the format) and truncated (a converter of its own)
OPTIONS = {
    "column.exclude.list": "public.cl.i4,public.cl_full.vc",
    "column.mask.with.6.chars": "public.cl.vc,public.cl_full.t",
    "column.truncate.to.3.chars": "public.cl.t,public.cl_full.bp",
}


def _replay(pg: PgServer, msgs, out: Path, tx: bool, options: bool = False) -> dict[str, bytes]:
    cfg = from_dict(
        pg.connector_properties(
            **{
                "name": "cl",
                "topic.prefix": "cl",
                "offset.storage.file.filename": str(out / "offsets.dat"),
                "provide.transaction.metadata": "true" if tx else "false",
                **(OPTIONS if options else {}),
            }
        )
    )
    engine = Engine(DirectoryOutput(out / "topics"), MemoryOffsetStore())
    conn = PostgresConnector(cfg, engine)
    conn.conn = psycopg.connect(conn.conninfo, autocommit=True)
    try:
        handlers = {
            ord("B"): conn._on_begin,
            ord("C"): conn._on_commit,
            ord("R"): conn._on_relation,
            ord("I"): conn._on_insert,
            ord("U"): conn._on_update,
            ord("D"): conn._on_delete,
        }
        readers = set()
        for lsn, msg in msgs:
            if msg[0] in handlers:
                handlers[msg[0]](msg, lsn)
            for ct in conn.by_oid.values():
                if ct is not None:
                    readers.add(type(ct.parse_line).__name__)
        engine.output.flush()
        # the DEFAULT table's DELETEs read their old key with the C reader too (made on the first DELETE)
        keyed = {
            type(getattr(ct.parse_key, "line", None)).__name__ for ct in conn.by_oid.values() if ct.parse_key
        }
        assert keyed == ({"partial"} if linefill.PG is not None else {"function"})
    finally:
        conn.conn.close()
    # which reader served: the C one is bound with functools.partial, the generated one is a function
    assert readers == ({"partial"} if linefill.PG is not None else {"function"})
    files = sorted((out / "topics").rglob("*"))
    return {str(f.relative_to(out)): f.read_bytes() for f in files if f.is_file()}


# the record's own times (ts_ms/us/ns of the envelope, written when the line is made): masked
_TIMES = re.compile(rb'"ts_ms":\d+,"ts_us":\d+,"ts_ns":\d+\}(,"schema"|\}|$)')
_RUN_ID = re.compile(rb'(runId",\{"schema":\{"type":"string","optional":false\},"payload":")[0-9a-f-]+"')


def _masked(text: bytes) -> bytes:
    lines = []
    for line in text.splitlines():
        # only the last trio in the value is the record's own (the source block's is the commit time)
        line = _RUN_ID.sub(rb'\1R"', line)  # each run's own id
        lines.append(_TIMES.sub(rb'"ts_ms":T,"ts_us":T,"ts_ns":T}\1', line))
    return b"\n".join(lines)


@pytest.fixture(scope="module")
def workload():
    with PgServer() as pg:
        yield pg, _record(pg)


@needs_c
@pytest.mark.parametrize(
    "tx,options", [(False, False), (True, False), (False, True)], ids=["plain", "tx_metadata", "options"]
)
def test_c_reader_prints_the_generated_readers_bytes(workload, tmp_path, monkeypatch, tx, options):
    pg, msgs = workload
    got_c = _replay(pg, msgs, tmp_path / "c", tx, options)
    monkeypatch.setattr(linefill, "PG", None)
    got_py = _replay(pg, msgs, tmp_path / "py", tx, options)
    assert sorted(got_c) == sorted(got_py)
    assert any("cl.public.cl" in name for name in got_c)
    for name in got_c:
        c, p = _masked(got_c[name]), _masked(got_py[name])
        if ".public." in name:  # every change record's own times were masked (tombstones have none)
            assert all(b'"ts_ns":T}' in line for line in c.splitlines() if b'"op":' in line)
        assert c == p, name
    # a few values against numbers worked out by hand (independent of both readers)
    after = {}
    for name, text in got_c.items():
        if name.endswith("cl.public.cl.jsonl"):
            for line in text.splitlines():
                rec = orjson.loads(line)
                value = rec["value"]["payload"] if "payload" in (rec["value"] or {}) else rec["value"]
                if value and value.get("op") == "c" and value["source"]["table"] == "cl":
                    after[value["after"]["id"]] = value["after"]
    if options:
        assert after[1]["vc"] == "******" and "i4" not in after[1] and after[1]["t"] == "pla"
        return
    assert after[1]["n"] == "AeIh"  # 1234.25 -> unscaled 123425 = 0x01E221
    assert after[2]["n"] == "AA=="  # -0.00 -> 0
    assert after[2]["n0"] == "/w=="  # -1 -> 0xFF
    assert after[3]["n"] == "AOjUpQ//"  # 9999999999.99 -> 999999999999 = 0x00E8D4A50FFF
    assert after[1]["tz"] == "2024-01-01T00:00:01.000000Z"  # timestamptz: 6 digits
    assert after[2]["tz"] == "2024-06-30T23:59:59.123456Z"
    assert after[3]["tz"] == "2024-06-30T23:59:59.100000Z"
    assert after[1]["tz0"] == "2024-01-01T00:00:02Z"  # timestamptz(0): no fraction
    assert after[3]["tz0"] == "2024-07-01T00:00:00Z"  # .7 rounded up by PostgreSQL
    assert after[1]["tz3"] == "2024-01-01T00:00:01.500Z"
    assert after[3]["tz3"] == "2024-06-30T23:59:59.000Z"
    assert after[2]["t"] == 'q"uo\\te %s %d %%'
    assert after[3]["t"] == "ünïcødé €😀"
    assert {k: after[4][k] for k in NAMES} == {"id": 4, **{k: None for k in NAMES[1:]}}
    assert after[4]["dd"] == 42 and after[4]["nd"] == "AJY="  # the defaults: 1.5 -> 150 = 0x0096
    assert after[2]["i8"] == -9223372036854775808 and after[3]["b"] is True and after[5]["n"] is None


@needs_c
def test_plan_refuses_what_it_cannot_read():
    """A plan naming a column out of range or a kind it does not know is refused (ValueError), never half-read."""
    with pytest.raises(ValueError):
        PG_C["plan"]((1, ((99, 0, 0, None, b"null", b"null"),), (0,), None, None))
    with pytest.raises(ValueError):
        PG_C["plan"]((1, ((1, 0, 0, None, b"null", b"null"),), (5,), None, None))
    plan = PG_C["plan"]((1, ((1, 0, 0, None, b"null", b"null"),), (0,), None, None))
    line = functools.partial(PG_C["line"], plan)
    msg = b"I\x00\x00\x00\x01N\x00\x01t\x00\x00\x00\x0212"
    assert line(msg, 6, b"{%b|%d|%d|%b|%b|%b|%b}", 5, b"null", 1_700_000_000_123_456_789) == (
        b"{12|5|5|null|1700000000123|1700000000123456|1700000000123456789}",
        0,
    )
    assert line(msg[:-1], 6, b"%b%d%d%b%b%b%b", 5, b"null", 10**18) is None  # runs past the message
    assert line(msg.replace(b"t\x00", b"u\x00"), 6, b"%b%d%d%b%b%b%b", 5, b"null", 10**18) is None  # 'u'
    assert line(msg, 6, b"%s%d%d%b%b%b%b", 5, b"null", 10**18) is None  # a conversion it does not do
