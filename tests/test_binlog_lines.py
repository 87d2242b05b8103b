"""Binlog rows made straight into their records' lines (emulator/connectors/mysql/row_lines.py) print every
value as the row-dict path does and as Debezium does.

Real binlog events of a value-edge table (limits of signed and unsigned integers, NULLs, a NULL with a column
default, strings needing JSON escapes and non-ASCII, dates before and at the epoch, DATETIME(6), DECIMAL
precise, multi-row statements, an UPDATE that changes the key) are read from a throwaway MariaDB and
replayed through the connector twice: with the line decoders and with them refused (rows as dicts). Both
outputs must hold the values written below, derived from Debezium's documented MySQL mappings (INT UNSIGNED
-> INT64; DATE -> days since the epoch; DATETIME(6) -> MicroTimestamp, µs; DECIMAL precise -> the unscaled
value's big-endian two's complement bytes, base64; JsonConverter prints a NULL of a column with a default as
the default; a key change -> delete + tombstone + create with __debezium.newkey / oldkey headers)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from binlog_events import read_events

from emulator.config import load_config
from emulator.connectors.mysql import stream, stream_lines
from emulator.connectors.mysql.connector import MySqlConnector
from emulator.engine import Engine
from emulator.offsets import MemoryOffsetStore
from emulator.outputs.directory import DirectoryOutput
from emulator.records import Record
from emulator.testing import mariadbserver

pytestmark = pytest.mark.skipif(not mariadbserver.available(), reason="MariaDB server binaries not installed")

TABLE = """CREATE TABLE edge (
  id INT NOT NULL PRIMARY KEY,
  ti TINYINT NOT NULL,
  si SMALLINT NOT NULL,
  bi BIGINT NOT NULL,
  iu INT UNSIGNED NOT NULL,
  n INT NULL,
  nd INT NULL DEFAULT 7,
  s VARCHAR(40) NULL,
  d DATE NULL,
  dt DATETIME(6) NOT NULL,
  m DECIMAL(12,2) NOT NULL
) DEFAULT CHARSET=utf8mb4"""

# one INSERT of two rows (one rows event), one of one row, a two-row UPDATE of value columns, an UPDATE of
# the key, a two-row DELETE and a one-row DELETE (each delete followed by its tombstone)
STATEMENTS = r"""
INSERT INTO edge VALUES
  (1, -128, -32768, 9223372036854775807, 4294967295, NULL, NULL, 'a"b\\c\nd é 😀', '1970-01-01',
   '1970-01-01 00:00:00.000001', -1.50),
  (2, 127, 32767, -9223372036854775808, 0, -1, 5, '', '1969-12-31', '2024-01-02 03:04:05.123456', 0.00);
INSERT INTO edge VALUES (3, 0, 0, 0, 1, 2147483647, -2147483648, NULL, NULL, '2000-02-29 23:59:59', 1234567890.12);
UPDATE edge SET s = CONCAT(IFNULL(s, '-'), '!'), nd = NULL WHERE id IN (2, 3);
UPDATE edge SET id = 10 WHERE id = 1;
DELETE FROM edge WHERE id IN (2, 3);
DELETE FROM edge WHERE id = 10;
"""

S1 = 'a"b\\c\nd é 😀'
ROW1 = {"id": 1, "ti": -128, "si": -32768, "bi": 9223372036854775807, "iu": 4294967295, "n": None, "nd": 7}
ROW1 |= {"s": S1, "d": 0, "dt": 1, "m": "/2o="}
ROW2 = {"id": 2, "ti": 127, "si": 32767, "bi": -9223372036854775808, "iu": 0, "n": -1, "nd": 5, "s": ""}
ROW2 |= {"d": -1, "dt": 1704164645123456, "m": "AA=="}
ROW3 = {"id": 3, "ti": 0, "si": 0, "bi": 0, "iu": 1, "n": 2147483647, "nd": -2147483648, "s": None}
ROW3 |= {"d": None, "dt": 951868799000000, "m": "HL6ZGhQ="}  # 123456789012 = 0x1CBE991A14

# (op, key id, before, after, source.row, headers' names)
EXPECTED = [
    ("c", 1, None, ROW1, 0, []),
    ("c", 2, None, ROW2, 1, []),
    ("c", 3, None, ROW3, 0, []),
    ("u", 2, ROW2, dict(ROW2, s="!", nd=7), 0, []),
    ("u", 3, ROW3, dict(ROW3, s="-!", nd=7), 1, []),
    ("d", 1, ROW1, None, 0, ["__debezium.newkey"]),
    (None, 1, None, None, None, ["__debezium.newkey"]),  # the tombstone
    ("c", 10, None, dict(ROW1, id=10), 0, ["__debezium.oldkey"]),
    ("d", 2, dict(ROW2, s="!", nd=7), None, 0, []),  # nd NULL: its default printed
    (None, 2, None, None, None, []),
    ("d", 3, dict(ROW3, s="-!", nd=7), None, 1, []),
    (None, 3, None, None, None, []),
    ("d", 10, dict(ROW1, id=10), None, 0, []),
    (None, 10, None, None, None, []),
]
TRANSACTIONS = 6  # one per statement


@pytest.fixture(scope="module")
def captured():
    """The workload's binlog events (etype, packet, event attributes), the checksum length, the properties."""
    with mariadbserver.MariaDbServer() as db:
        db.sql("CREATE DATABASE edgedb")
        db.sql(TABLE, "edgedb")
        file, pos = db.query("SHOW MASTER STATUS")[0][:2]
        db.sql(STATEMENTS, "edgedb", charset="utf8mb4")
        events, checksum = read_events(db, file, pos, TRANSACTIONS)
        props = db.connector_properties(
            **{"database.include.list": "edgedb", "topic.prefix": "edge", "snapshot.mode": "no_data"}
        )
    return events, checksum, props


def _replay(tmp: Path, captured, lines: bool, monkeypatch, **extra: str) -> list[dict]:
    events, checksum, props = captured
    if not lines:
        monkeypatch.setattr(stream.MySqlBinlogStream, "_line_decoders", lambda *a: None)
    cfg = dict(props, **{"schema.history.internal.file.filename": str(tmp / "h.dat")}, **extra)
    p = tmp / "c.properties"
    p.write_text("".join(f"{k}={v}\n" for k, v in cfg.items()))
    c = MySqlConnector(load_config(str(p)), Engine(DirectoryOutput(tmp / "topics"), MemoryOffsetStore()))
    c.mariadb_server = True
    c.server_version = "10.11.0-MariaDB"
    c.snapshot_done = True
    c.file, c.next_pos = "binlog.000001", 4
    c.parser.apply(TABLE, "edgedb")
    for etype, data, ev in events:
        c.handle_event(etype, data, ev, checksum)
    c.engine.output.flush()
    assert any(e.lines is not None for e in c.table_ids.values()) == lines  # the path meant was taken
    if lines:
        assert all({"c", "u", "d"} <= e.line_ops for e in c.table_ids.values() if e.lines is not None)
    text = (tmp / "topics" / "edge.edgedb.edge.jsonl").read_text()
    return [json.loads(line) for line in text.splitlines()]


@pytest.mark.parametrize("lines", [True, False], ids=["lines", "dicts"])
def test_values_as_debezium_prints_them(captured, tmp_path, monkeypatch, lines):
    recs = _replay(tmp_path, captured, lines, monkeypatch)
    got = []
    for r in recs:
        v = r["value"]
        heads = [h[0] for h in r.get("headers") or [] if not h[0].startswith("__debezium.context.")]
        key = r["key"]["payload"]["id"]
        if v is None:
            got.append((None, key, None, None, None, heads))
            continue
        pl = v["payload"]
        got.append((pl["op"], key, pl["before"], pl["after"], pl["source"]["row"], heads))
    assert got == EXPECTED


@pytest.mark.parametrize("tombstones", ["true", "false"])
@pytest.mark.parametrize("output", ["lines", "records"])
def test_lines_are_the_dict_paths_bytes(captured, tmp_path, monkeypatch, tombstones, output):
    """Whole records alike (but for the times and the run id every run has its own of); without
    tombstones.on.delete no delete (the key change's either) is followed by a tombstone. `records`: an output
    that takes records, not lines (as Kafka's): the line path's records are written from the key, value and
    headers cut out of their lines."""
    (tmp_path / "a").mkdir()
    (tmp_path / "b").mkdir()
    extra = {"tombstones.on.delete": tombstones}
    with monkeypatch.context() as m:
        if output == "records":
            m.setattr(Engine, "line_writer", lambda self: None)
            write = DirectoryOutput.write
            m.setattr(
                DirectoryOutput,
                "write",
                lambda self, r: write(self, Record(r.topic, r.key, r.value, r.headers)),
            )
        a = _replay(tmp_path / "a", captured, True, monkeypatch, **extra)
    b = _replay(tmp_path / "b", captured, False, monkeypatch, **extra)
    expected = [e for e in EXPECTED if tombstones == "true" or e[0] is not None]
    assert [(r["value"] or {}).get("payload", {}).get("op") for r in a] == [e[0] for e in expected]

    def norm(recs):
        for r in recs:
            if r["value"] is not None:
                for k in ("ts_ms", "ts_us", "ts_ns"):
                    r["value"]["payload"][k] = 0
            r["headers"] = [h for h in r.get("headers") or [] if h[0] != "__debezium.context.runId"]
        return recs

    assert norm(a) == norm(b)


def test_a_clock_outside_19_digit_nanoseconds_takes_the_dict_path(captured, tmp_path, monkeypatch):
    """The line decoders print ts_ms and ts_us as the first 13 and 16 digits of ts_ns's 19 (row_lines._TIMES);
    a clock before 2001-09-09 (18 digits) must not be cut that way: its rows go as dicts, their times still
    one instant in three units."""
    monkeypatch.setattr(stream_lines, "_time_ns", lambda: 999_999_999_123_456_789)
    recs = _replay(tmp_path, captured, True, monkeypatch)
    payloads = [r["value"]["payload"] for r in recs if r["value"] is not None]
    assert payloads
    for pl in payloads:
        assert (pl["ts_ms"], pl["ts_us"]) == (pl["ts_ns"] // 10**6, pl["ts_ns"] // 1000)
    assert [(pl["op"], pl["before"], pl["after"]) for pl in payloads] == [
        (e[0], e[2], e[3]) for e in EXPECTED if e[0] is not None
    ]
