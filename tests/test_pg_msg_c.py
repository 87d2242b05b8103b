"""The stream's row changes written whole in C (emulator/fastpg_msg.c, `pgmsg`; fast_rows.py) print what the Python
handlers print, and keep the position as they keep it.

A real PostgreSQL workload over three tables of every column kind test_pg_line_c.py reads (REPLICA IDENTITY
DEFAULT, FULL and USING INDEX; FULL without a key), each with a TOASTed text column: INSERTs of the tables interleaved in one
transaction, UPDATEs that leave the TOASTed value unchanged ('u': the handler's other readers) and UPDATEs that do
not, a transactional logical message between two INSERTs of a transaction, a key change between UPDATEs of its relation in one transaction, DELETEs of several rows in one
transaction. Its CopyData messages go through the connector's own read loop (`_stream`) three ways: with `pgmsg`,
with the C line but without `pgmsg`, and pure Python (linefill.PG None); every topic's file must be the same bytes
(the records' own times masked), and so must the position (lsn_proc, lsn_events, proc_op) each record is written
at. Skipped where the extension was not built."""

from __future__ import annotations

import random
import re
from pathlib import Path

import psycopg
import pytest
from test_pg_line_c import COLS, ROWS, UPDATES, _masked

from emulator import linefill
from emulator.config import from_dict
from emulator.connectors.postgres import pgoutput as po
from emulator.connectors.postgres.connector import PostgresConnector
from emulator.engine import Engine
from emulator.offsets import MemoryOffsetStore
from emulator.outputs.directory import DirectoryOutput
from emulator.testing.pg_copystream import CopyStream, copy_messages
from emulator.testing.pgserver import PgServer

PG_C = linefill.PG
needs_c = pytest.mark.skipif(PG_C is None, reason="the C extension emulator.fastline is not built")

# a logical message's record time (test_pg_line_c._masked masks the row changes' own); the collection its
# transaction counts it under (a Java identity hash) is drawn from `random`, seeded the same for each way
_MESSAGE_TIME = re.compile(rb'"op":"m","ts_ms":\d+')


def _all_masked(text: bytes) -> bytes:
    return _MESSAGE_TIME.sub(b'"op":"m","ts_ms":T', _masked(text))


TABLES = {"m_def": None, "m_full": "FULL", "m_idx": "USING INDEX m_idx_pkey", "m_nokey": "FULL"}
KEYLESS = {"m_nokey"}  # no primary key: FULL UPDATEs' lines without a key
# an incompressible 3.2 KB value PostgreSQL keeps out of line: UPDATEs not setting it send it as unchanged ('u')
TOASTED = "(SELECT string_agg(md5(i::text), '') FROM generate_series(1, 100) i)"


def _record(pg: PgServer) -> list[tuple[int, bytes]]:
    """The workload's pgoutput messages (lsn, message), with logical messages."""
    with psycopg.connect(pg.dsn, autocommit=True) as c:
        c.execute("SET synchronous_commit = on")
        for t, identity in TABLES.items():
            c.execute(f"CREATE TABLE {t} ({COLS.replace(' PRIMARY KEY', '') if t in KEYLESS else COLS})")
            c.execute(
                f"ALTER TABLE {t} ADD COLUMN dd integer DEFAULT 42, ADD COLUMN nd numeric(12,2) DEFAULT 1.5, "
                "ADD COLUMN doc text"
            )
            if identity:
                c.execute(f"ALTER TABLE {t} REPLICA IDENTITY {identity}")
        c.execute(f"CREATE PUBLICATION pm FOR TABLE {', '.join(TABLES)}")
        c.execute("SELECT pg_create_logical_replication_slot('sm', 'pgoutput')")
        with c.transaction():  # the tables' INSERTs interleaved: each relation's entries live side by side
            for row in ROWS:
                for t in TABLES:
                    c.execute(f"INSERT INTO {t} VALUES {row}")
        for t in TABLES:
            c.execute(f"UPDATE {t} SET doc = {TOASTED} || id WHERE id IN (1, 2, 3)")
            for u in UPDATES:  # the rows with `doc` set send it unchanged
                c.execute(u.format(t=t))
            c.execute(f"UPDATE {t} SET i2 = coalesce(i2, 0) + 1, t = 'again' WHERE id IN (4, 5, 6)")
            with (
                c.transaction()
            ):  # UPDATEs written in C, then a key change of the same relation (FULL: the old
                # and the new tuple's keys differ, the handler's), then the relation's UPDATEs again
                c.execute(f"UPDATE {t} SET t = 'k1' WHERE id IN (5, 6)")
                c.execute(f"UPDATE {t} SET id = 60 WHERE id = 6")
                c.execute(f"UPDATE {t} SET t = 'k2', i2 = NULL WHERE id IN (5, 60)")
            with c.transaction():
                c.execute(f"INSERT INTO {t} (id, t) VALUES (7, 'before the message')")
                c.execute("SELECT pg_logical_emit_message(true, 'pfx', 'between')")
                c.execute(f"INSERT INTO {t} (id, t) VALUES (8, 'after the message')")
                c.execute(f"UPDATE {t} SET t = 'x' WHERE id IN (7, 8)")
            c.execute(f"DELETE FROM {t} WHERE id IN (2, 4, 5, 7)")
        cur = c.execute(
            "SELECT lsn::text, data FROM pg_logical_slot_get_binary_changes("
            "'sm', NULL, NULL, 'proto_version', '1', 'publication_names', 'pm', 'messages', 'true')"
        )
        return [(po.lsn_to_int(lsn), bytes(data)) for lsn, data in cur]


def _replay(
    pg: PgServer, msgs, out: Path, tx: bool, hooked: bool = True
) -> tuple[dict[str, bytes], list[tuple], tuple]:
    """The topics' files, the position at each record written (`hooked`: the output's write_line wrapped to log
    it; else the output's own, which pgmsg's direct path serves) and the counts (metrics, engine.records)."""
    cfg = from_dict(
        pg.connector_properties(
            **{
                "name": "m",
                "topic.prefix": "m",
                "offset.storage.file.filename": str(out / "offsets.dat"),
                "provide.transaction.metadata": "true" if tx else "false",
            }
        )
    )
    engine = Engine(DirectoryOutput(out / "topics"), MemoryOffsetStore())
    conn = PostgresConnector(cfg, engine)
    conn.conn = psycopg.connect(conn.conninfo, autocommit=True)
    positions = []
    write_line = engine.output.write_line

    def logged(topic: str, line: bytes) -> None:  # (the line gates are made with it: engine.line_writer)
        positions.append((topic, conn.lsn_proc, conn.lsn_events, conn.proc_op))
        write_line(topic, line)

    if hooked:
        engine.output.write_line = logged
    random.seed(23)
    try:
        conn.stream = CopyStream(copy_messages(msgs), engine.stop)
        conn._stream(0)
    finally:
        conn.conn.close()
    engine.output.flush()
    files = sorted((out / "topics").rglob("*"))
    m = conn.metrics
    counts = (m.creates, m.updates, m.deletes, engine.records)
    return {str(f.relative_to(out)): f.read_bytes() for f in files if f.is_file()}, positions, counts


@pytest.fixture(scope="module")
def workload():
    with PgServer() as pg:
        yield pg, _record(pg)


@needs_c
@pytest.mark.parametrize(
    ("tx", "hooked"),
    [(False, True), (True, True), (False, False)],
    ids=["plain", "tx_metadata", "plain_direct"],
)
def test_pgmsg_prints_the_handlers_bytes(workload, tmp_path, monkeypatch, tx, hooked):
    pg, msgs = workload
    written = {}
    direct = []  # per change written in C: whether the directory output's line gate was done in C too
    full_rels = set()  # the relations of the FULL UPDATEs written in C

    def counted(rels, conn, data):
        took = PG_C["msg"](rels, conn, data)
        if took:  # by message and tuple kind: 'U' 'O' a FULL UPDATE's old row and new row
            kind = chr(data[25]) + chr(data[30])
            written[kind] = written.get(kind, 0) + 1
            relid = int.from_bytes(data[26:30], "big")
            gate = rels[relid]["IUD".index(kind[0])][2]
            if kind == "UO":
                full_rels.add(relid)
            direct.append(gate.__class__ is tuple)
        return took

    monkeypatch.setattr(linefill, "PG", {**PG_C, "msg": counted})
    got_fast, pos_fast, n_fast = _replay(pg, msgs, tmp_path / "fast", tx, hooked)
    monkeypatch.setattr(linefill, "PG", {k: v for k, v in PG_C.items() if k != "msg"})
    got_line, pos_line, n_line = _replay(pg, msgs, tmp_path / "line", tx, hooked)
    monkeypatch.setattr(linefill, "PG", None)
    got_py, pos_py, n_py = _replay(pg, msgs, tmp_path / "py", tx, hooked)
    # the hooked write_line is no DirectoryOutput's own: the gate is called; the output's own: done in C but DELETEs
    assert not hooked or not any(direct)
    assert hooked or (any(direct) and not all(direct))
    if tx:  # the transaction block is the monitor's: never written in C
        assert written == {}
    else:  # each kind written in C, and each left to the handlers at times (first of a transaction, 'u' values)
        # (not 'D' 'K': a key-only DELETE's reader is made by its transaction's first, the JSON path serves the
        # rest of that one, and each table's DELETEs here are one transaction)
        assert set(written) == {"IN", "UN", "UO", "DO"}
        assert len(full_rels) == 2  # m_full's and the keyless m_nokey's
        rows = sum(1 for _, m in msgs if m[0] in b"IUD")
        assert sum(written.values()) < rows
    assert sorted(got_fast) == sorted(got_line) == sorted(got_py)
    assert any(".public.m_full" in name for name in got_fast)
    for name in got_fast:
        fast, line, py = _all_masked(got_fast[name]), _all_masked(got_line[name]), _all_masked(got_py[name])
        assert fast == line == py, name
    assert pos_fast == pos_line == pos_py
    assert n_fast == n_line == n_py


@needs_c
def test_pgmsg_leaves_what_it_does_not_know():
    """No entry, another message, another tuple kind: False, and nothing changed."""
    msg = PG_C["msg"]

    class Conn:
        lsn_proc = 5
        lsn_events = 3
        proc_op = "B"

    conn = Conn()
    row = b"w" + (7).to_bytes(8, "big") * 2 + bytes(8) + b"I\x00\x00\x00\x01N\x00\x01t\x00\x00\x00\x0212"
    assert msg({}, conn, row) is False
    assert msg({2: [None, None, None]}, conn, row) is False
    rels = {1: [None, None, None]}
    assert msg(rels, conn, row) is False and rels == {}  # a row change left to the handler drops its entries
    plan = PG_C["plan"]((1, ((1, 0, 0, None, b"null", b"null"),), (0,), None, None))
    seen = []
    rels = {
        1: [
            (plan, b"%b|%d|%d|%b|%b|%b|%b", lambda op, line: seen.append((op, line)) or True, ord("N"), "c"),
            None,
            None,
        ]
    }
    assert msg(rels, conn, b"k" + row[1:]) is False  # a keepalive
    assert msg(rels, conn, row.replace(b"N\x00\x01", b"K\x00\x01")) is False and rels == {}
    assert (conn.lsn_proc, conn.lsn_events, conn.proc_op) == (5, 3, "B")
    rels = {
        1: [
            (plan, b"%b|%d|%d|%b|%b|%b|%b", lambda op, line: seen.append((op, line)) or True, ord("N"), "c"),
            None,
            None,
        ]
    }
    assert msg(rels, conn, row) is True and msg(rels, conn, row) is True
    assert (conn.lsn_proc, conn.lsn_events, conn.proc_op) == (7, 2, "c")  # two changes at one LSN
    assert [(op, line[0][:11], line[1]) for op, line in seen] == [("c", b"12|7|7|null", 0)] * 2
    rels[1][0] = (plan, b"%b|%d|%d|%b|%b|%b|%b", lambda op, line: False, ord("N"), "c")  # a window opened
    assert msg(rels, conn, row) is False and rels == {}
    assert (conn.lsn_proc, conn.lsn_events, conn.proc_op) == (7, 2, "c")


@needs_c
def test_pgmsg_does_the_directory_line_gate_itself():
    """A directory output's own line gate (fast_rows._direct): the counter, the line written, the file marked
    unflushed, engine.records; an incremental snapshot window open refuses it as the gate does: nothing done."""
    import io
    from types import SimpleNamespace

    msg = PG_C["msg"]
    conn = SimpleNamespace(lsn_proc=5, lsn_events=3, proc_op="B")
    row = b"w" + (7).to_bytes(8, "big") * 2 + bytes(8) + b"I\x00\x00\x00\x01N\x00\x01t\x00\x00\x00\x0212"
    plan = PG_C["plan"]((1, ((1, 0, 0, None, b"null", b"null"),), (0,), None, None))
    inc = SimpleNamespace(window_open=False)
    metrics = SimpleNamespace(creates=4, updates=0)
    engine = SimpleNamespace(records=10)
    f, unflushed = io.BytesIO(), set()
    gate = (inc, metrics, "creates", engine, f.write, unflushed, f)
    rels = {1: [(plan, b"%b|%d|%d|%b|%b|%b|%b;", gate, ord("N"), "c"), None, None]}
    assert msg(rels, conn, row) is True
    assert (metrics.creates, metrics.updates, engine.records, unflushed) == (5, 0, 11, {f})
    line = f.getvalue()
    assert line[:12] == b"12|7|7|null|" and line.endswith(b";")
    assert (conn.lsn_proc, conn.lsn_events, conn.proc_op) == (7, 1, "c")
    inc.window_open = True
    unflushed.clear()
    assert msg(rels, conn, row) is False and rels == {}
    assert (metrics.creates, engine.records, unflushed, f.getvalue()) == (5, 11, set(), line)
    assert (conn.lsn_proc, conn.lsn_events, conn.proc_op) == (7, 1, "c")
