"""A transaction's small events read from their packets (binlog.py: MariaDB GTID, XID, a QUERY `BEGIN` or
`COMMIT`, no library event objects), on a real MariaDB's binlog: a standalone DDL, one-row and multi-row
transactions, a MyISAM statement (its group ends with a QUERY `COMMIT`), an XA transaction (GTID flags and XID
data, `XA END`/`XA COMMIT` queries), a session whose default schema is another database, and two transactions
committed as one group (their GTID events carry the commit-id flag and its 8 bytes).

Expected values come from the server (`SHOW BINLOG EVENTS`' own text of each GTID, `@@gtid_binlog_pos`) and
from the library's event classes on the same packets; the whole replay (rows, source blocks, transaction
metadata, the offsets' GTID set) must be the same through either decoder. A MariaDB server sends QUERY
`BEGIN` events only to a replica without GTID capability: the second capture asks for that
(`@mariadb_slave_capability=0`)."""

from __future__ import annotations

import json
import re
import threading
from pathlib import Path
from types import SimpleNamespace

import pymysql.cursors
import pymysql.err
import pytest

from emulator import linefill
from emulator.config import load_config
from emulator.connectors.mysql import binlog as bl
from emulator.connectors.mysql.connector import MariaDbConnector, MySqlConnector
from emulator.connectors.mysql.gtid import MariaGtidSet
from emulator.engine import Engine
from emulator.offsets import MemoryOffsetStore
from emulator.outputs.directory import DirectoryOutput
from emulator.testing import mariadbserver

TABLES = """
CREATE TABLE t (id INT PRIMARY KEY, v VARCHAR(20));
CREATE TABLE m (id INT PRIMARY KEY, v VARCHAR(20)) ENGINE=MyISAM;
"""
# DDL first (a standalone GTID), then the transactions; the group of two is written apart (two sessions)
STATEMENTS = """
CREATE TABLE s (id INT PRIMARY KEY, n BIGINT);
INSERT INTO t VALUES (1, 'one');
BEGIN; INSERT INTO t VALUES (2, 'two'); UPDATE t SET v = 'uno' WHERE id = 1; INSERT INTO s VALUES (1, 7); COMMIT;
INSERT INTO m VALUES (1, 'myisam');
XA START 'x1'; INSERT INTO t VALUES (3, 'xa'); XA END 'x1'; XA PREPARE 'x1'; XA COMMIT 'x1';
BEGIN; DELETE FROM t WHERE id = 2; INSERT INTO m VALUES (2, 'mixed'); COMMIT;
"""
OTHER_SCHEMA = "BEGIN; INSERT INTO smalldb.t VALUES (4, 'other'); COMMIT;"
GROUP = ("INSERT INTO t VALUES (10, 'g1')", "INSERT INTO s VALUES (10, 1)")
CAPABILITY = "SET @mariadb_slave_capability=4"  # what the library sends


def _read_all(
    db, file: str, pos: int, capability: int, frames: bool = False, end: list | None = None
) -> tuple[list[tuple], int]:
    """Every event from (file, pos) to the end of the log -> ([(etype, packet, library event)], checksum); by
    the stream loop's reader (`frames`: fastframe.c's where built) or `read`; `end` gets the error that ended it."""
    orig = pymysql.cursors.Cursor.execute

    def execute(self, q, args=None):
        return orig(self, f"SET @mariadb_slave_capability={capability}" if q == CAPABILITY else q, args)

    r = bl.BinlogReader(
        {"host": "127.0.0.1", "port": db.port, "user": db.user, "password": db.password},
        server_id=77,
        blocking=False,
        resume_stream=True,
        log_file=file,
        log_pos=pos,
        enable_logging=False,
        mariadb_server=True,
    )
    pymysql.cursors.Cursor.execute = execute
    try:
        r.connect()
    finally:
        pymysql.cursors.Cursor.execute = orig
    events = []
    read = r.frames() if frames else r.read
    try:
        while True:
            events.append(read())
    except ConnectionError as e:  # the end of the log (blocking=False)
        if end is not None:
            end.append(repr(e))
    except pymysql.err.OperationalError:  # without GTID capability: an XA transaction's GTID cannot be sent
        assert capability == 0
    checksum = 4 if r.checksum else 0
    r.close()
    return events, checksum


def _library(db, file: str, pos: int, capability: int, monkeypatch) -> list[tuple]:
    """The same events with the library's event objects for all but rows and table maps (as before)."""
    with monkeypatch.context() as m:
        m.setattr(bl, "_RAW_EVENTS", bl.ROW_EVENTS | {bl.TABLE_MAP})
        m.setattr(bl, "_BEGIN", None)
        m.setattr(bl, "_COMMIT", None)
        return _read_all(db, file, pos, capability)[0]


@pytest.fixture(scope="module")
def server():
    with mariadbserver.MariaDbServer() as db:
        db.sql("CREATE DATABASE smalldb; CREATE DATABASE otherdb")
        db.sql(TABLES, "smalldb")
        file, pos = db.query("SHOW MASTER STATUS")[0][:2]
        db.sql(STATEMENTS, "smalldb")
        db.sql(OTHER_SCHEMA, "otherdb")
        # two sessions' commits held until both are there: one group, a commit id in both GTID events
        db.sql("SET GLOBAL binlog_commit_wait_count = 2; SET GLOBAL binlog_commit_wait_usec = 10000000")
        threads = [threading.Thread(target=db.sql, args=(q, "smalldb")) for q in GROUP]
        for th in threads:
            th.start()
        for th in threads:
            th.join()
        db.sql("SET GLOBAL binlog_commit_wait_count = 0")
        shown = [row[5] for row in db.query(f"SHOW BINLOG EVENTS IN '{file}' FROM {pos}")]
        gtid_pos = db.query("SELECT @@gtid_binlog_pos")[0][0]
        props = db.connector_properties(
            **{
                "database.include.list": "smalldb",
                "topic.prefix": "small",
                "snapshot.mode": "no_data",
                "provide.transaction.metadata": "true",
            }
        )
        yield db, file, int(pos), shown, gtid_pos, props


def test_decoders_match_the_library_and_the_server(server, monkeypatch) -> None:
    db, file, pos, shown, _gtid_pos, _props = server
    # the server's own text of each GTID event: "BEGIN GTID 0-1-5", "GTID 0-1-4" (standalone), "... cid=N"
    server_gtids = [re.search(r"GTID (\d+-\d+-\d+)", s).group(1) for s in shown if "GTID " in s]
    assert any("cid=" in s for s in shown), "no group commit: the commit-id flag is not exercised"
    raw, checksum = _read_all(db, file, pos, 4)
    lib = _library(db, file, pos, 4, monkeypatch)
    assert [e[:2] for e in raw] == [e[:2] for e in lib]
    gtids, flags, queries = [], set(), []
    for (etype, data, ev), (_t, _d, lev) in zip(raw, lib):
        if etype == bl.MARIADB_GTID:
            assert ev is None
            sid = bl.HEADER.unpack_from(data, 1)[2]
            assert bl.mariadb_gtid(data, sid) == (lev.gtid, lev.flags)
            gtids.append(lev.gtid)
            flags.add(lev.flags)
        elif etype in (bl.XID, bl.HEARTBEAT):
            assert ev is None
        elif etype == bl.QUERY:
            text = lev.query
            queries.append(text)
            assert (ev is None) == (text in ("BEGIN", "COMMIT")), text
            if ev is None:
                start = bl.query_text_start(data)
                assert data[start : len(data) - checksum].decode() == text
    assert gtids == server_gtids
    assert any(f & 2 for f in flags) and any(not f & 2 for f in flags)  # with and without a commit id
    assert any(f & 1 for f in flags)  # standalone (the DDL, XA COMMIT)
    assert "COMMIT" in queries  # the MyISAM statements' groups
    # without GTID capability the server sends a QUERY BEGIN (and dummy events) instead of each GTID
    raw0, _ = _read_all(db, file, pos, 0)
    lib0 = _library(db, file, pos, 0, monkeypatch)
    begins = 0
    for (etype, data, ev), (_t, _d, lev) in zip(raw0, lib0, strict=True):
        assert etype != bl.MARIADB_GTID
        if etype == bl.QUERY and lev.query in ("BEGIN", "COMMIT"):
            assert ev is None
            assert bl.QUERY_POST.unpack_from(data, 20)[0] == lev.slave_proxy_id
            begins += lev.query == "BEGIN"
    before_xa = shown[: next(i for i, s in enumerate(shown) if "XA" in s)]  # (the capture ends at the XA)
    assert begins == len([s for s in before_xa if s.startswith("BEGIN GTID")]) == 3


@pytest.mark.skipif(linefill.FRAME is None, reason="the C module is not built (or DBZ_EMULATOR_PURE_PYTHON)")
@pytest.mark.parametrize("capability", [4, 0])
def test_packets_framed_in_c_are_those_read_gives(server, capability) -> None:
    """fastframe.c's `frame` (the stream loop's reader, BinlogReader.frames) against `read` on the same log: the
    same event types, packets and library events (DDL, other QUERY events, rotations, the format description
    go to `_rest`), and the same error at the log's end (the server's EOF packet, shorter than 20 bytes; without
    GTID capability the server refuses the XA group's GTID, pymysql's error)."""
    db, file, pos, *_ = server
    ends: list[list] = [[], []]
    pure, _ = _read_all(db, file, pos, capability, False, ends[0])
    framed, _ = _read_all(db, file, pos, capability, True, ends[1])
    assert [e[:2] for e in framed] == [e[:2] for e in pure]
    assert [type(e[2]) for e in framed] == [type(e[2]) for e in pure]
    assert [getattr(e[2], "query", None) for e in framed] == [getattr(e[2], "query", None) for e in pure]
    assert {bl.MARIADB_GTID if capability else bl.QUERY, bl.XID, bl.TABLE_MAP, bl.WRITE_V1}.issubset(
        {e[0] for e in framed}
    )
    assert any(e[2] is not None for e in framed) and any(e[2] is None for e in framed)
    assert ends[1] == ends[0]
    assert ends[0] or not capability  # (without GTID capability the read ends at the XA: pymysql's error)


def _replay(
    tmp: Path,
    events: list[tuple],
    checksum: int,
    props: dict,
    connector: str,
    plain: bool = True,
    states: list | None = None,
) -> tuple[list, str, dict]:
    cfg = dict(props, **{"schema.history.internal.file.filename": str(tmp / "h.dat")})
    if connector == "mysql":
        cfg["connector.class"] = "io.debezium.connector.mysql.MySqlConnector"
    p = tmp / "c.properties"
    p.write_text("".join(f"{k}={v}\n" for k, v in cfg.items()))
    cls = MariaDbConnector if connector == "mariadb" else MySqlConnector
    c = cls(load_config(str(p)), Engine(DirectoryOutput(tmp / "topics"), MemoryOffsetStore()))
    c.mariadb_server = True
    c.server_version = "10.11.0-MariaDB"
    c.snapshot_done = True
    c.file, c.next_pos = "binlog.000001", 4
    c.parser.apply(TABLES, "smalldb")
    c.gtids = MariaGtidSet()  # (a snapshot's, empty: the log's first transactions are not captured)
    # the stream's reader: an XA PREPARE group's GTID handler reads the group's events from it (xa_hold.py)
    it = iter(events)
    c.reader = SimpleNamespace(read=lambda: next(it))
    if not plain:
        c._plain = {}  # every GTID and XID through the general handlers (stream_tx.py's plain ones off)
    for etype, data, ev in it:
        c.handle_event(etype, data, ev, checksum)
        c.engine.tick()
        if states is not None:  # what a restart or a commit after this event would read
            states.append(
                (c.position(), str(c.gtids), c.in_tx, c.gtid, c.tx.begin_id, c.metrics.transactions)
            )
    c.engine.output.flush()
    records = []
    for f in sorted((tmp / "topics").glob("*.jsonl")):
        for line in f.read_text().splitlines():
            r = json.loads(line)
            payload = (r.get("value") or {}).get("payload") or {}
            for k in ("ts_ms", "ts_us", "ts_ns"):  # the wall clock of the replay
                payload.pop(k, None)
            # the connector run's id (a header of schema-change records)
            r["headers"] = [h for h in r.get("headers") or () if h[0] != "__debezium.context.runId"]
            records.append((f.name, r))
    return records, str(c.gtids), c.position()


@pytest.mark.parametrize("connector", ["mariadb", "mysql"])
@pytest.mark.parametrize("capability", [4, 0])
def test_replay_is_the_same_through_either_decoder(
    server, monkeypatch, tmp_path, connector, capability
) -> None:
    db, file, pos, shown, gtid_pos, props = server
    raw, checksum = _read_all(db, file, pos, capability)
    lib = _library(db, file, pos, capability, monkeypatch)
    (tmp_path / "raw").mkdir()
    (tmp_path / "lib").mkdir()
    got, got_gtids, got_pos = _replay(tmp_path / "raw", raw, checksum, props, connector)
    want, want_gtids, want_pos = _replay(tmp_path / "lib", lib, checksum, props, connector)
    assert got == want
    assert got_pos == want_pos
    data = [r for name, r in got if name == "small.smalldb.t.jsonl" and r["value"]]
    ops = ["c", "c", "u", "c", "d", "c", "c"] if capability else ["c", "c", "u"]  # (capability 0: to the XA)
    assert [r["value"]["payload"]["op"] for r in data] == ops
    if capability == 4 and connector == "mariadb":
        # the offsets' GTID set: the server's (domain 0, the last transaction)
        assert got_gtids == gtid_pos
        # a BEGIN record for each GTID event (the server's text), each row's source.gtid one of those that
        # begin a transaction, the group's two among them
        server_gtids = [re.search(r"GTID (\d+-\d+-\d+)", s).group(1) for s in shown if "GTID " in s]
        tx = [r["value"]["payload"] for name, r in got if name == "small.transaction.jsonl"]
        assert [t["id"] for t in tx if t["status"] == "BEGIN"] == server_gtids
        # (not standalone: "BEGIN GTID ...", "XA START ... GTID ...")
        begun = [re.search(r"GTID (\S+)", s).group(1) for s in shown if "GTID " in s and s[:5] != "GTID "]
        row_gtids = [r["value"]["payload"]["source"]["gtid"] for r in data]
        assert set(row_gtids) <= set(begun) and row_gtids[-1] in begun[-2:]


@pytest.mark.parametrize("capability", [4, 0])
def test_plain_gtid_and_xid_handlers_leave_the_general_handlers_state(server, tmp_path, capability) -> None:
    """stream_tx.py: without transaction metadata the MariaDB connector takes a plain GTID and XID in one frame
    each; the same records, and after every event the same position, GTID set, transaction state and
    transaction count as through the general handlers (`_on_mariadb_gtid`, `_on_xid`), on the real log above
    (standalone DDL, one- and multi-row transactions, MyISAM, XA, another schema, a commit group)."""
    db, file, pos, shown, gtid_pos, props = server
    raw, checksum = _read_all(db, file, pos, capability)
    props = dict(props, **{"provide.transaction.metadata": "false"})
    runs = {}
    for plain in (True, False):
        (tmp_path / str(plain)).mkdir()
        states: list = []
        got = _replay(tmp_path / str(plain), raw, checksum, props, "mariadb", plain, states)
        runs[plain] = (got, states)
    assert runs[True] == runs[False]
    (records, gtids, _pos), states = runs[True]
    assert 0 < len(states) <= len(raw) and sum(s[2] for s in states) > 0  # (an XA group is read ahead)
    if capability == 4:
        assert gtids == gtid_pos
