"""The row decoders' UPDATE shortcuts (emulator/connectors/mysql/row_decoders.py) print what a full decode prints.

An UPDATE's after image takes a column's value from the before image when its bytes are unchanged: for a
DATETIME(5-6) the int both images' 8 bytes unpack to is compared (`_WHOLE`), not slices of them. A BOOLEAN is
`b[p] != 0` (the byte's sign not applied first), and UTF-8 text is decoded strictly first (the converter's
replacing decode only for invalid bytes). Real binlog events from a throwaway MariaDB: UPDATEs changing one
column, a DATETIME(6) only, NULL -> value, value -> NULL and every column but the key, replayed with the line
decoders and with them refused (rows as dicts). Both must print the values written below (Debezium's MySQL
mappings: BOOLEAN -> boolean, nonzero is true; DATETIME(5-6) -> MicroTimestamp, µs since the epoch read as
UTC; TEXT -> string; BLOB -> bytes, base64 in JSON), and the two outputs must be the same bytes.
(An UPDATE changing no column writes no row event on MariaDB: nothing to replay.)"""

from __future__ import annotations

import base64
import datetime as dt
import json
from pathlib import Path

import pytest
from binlog_events import read_events

from emulator.config import load_config
from emulator.connectors.mysql import binlog as bl
from emulator.connectors.mysql import row_decoders as rd
from emulator.connectors.mysql import stream
from emulator.connectors.mysql.connector import MySqlConnector
from emulator.connectors.mysql.values import text_decoder
from emulator.engine import Engine
from emulator.offsets import MemoryOffsetStore
from emulator.outputs.directory import DirectoryOutput
from emulator.testing import mariadbserver

TABLE = """CREATE TABLE img (
  id INT NOT NULL PRIMARY KEY,
  b BOOLEAN NOT NULL,
  bn BOOLEAN NULL,
  dt DATETIME(6) NOT NULL,
  dtn DATETIME(5) NULL,
  s VARCHAR(40) NULL,
  t TEXT NULL,
  bl BLOB NULL
) DEFAULT CHARSET=utf8mb4"""

STATEMENTS = r"""
INSERT INTO img VALUES
  (1, TRUE, NULL, '2024-01-02 03:04:05.123456', NULL, 'a', 'x', NULL),
  (2, -1, 0, '1970-01-01 00:00:00.000001', '2000-02-29 23:59:59.12345', 'é😀"\\', 'y', X'00FF');
UPDATE img SET s = 'b' WHERE id = 1;
UPDATE img SET dt = '2024-01-02 03:04:05.123457' WHERE id = 1;
UPDATE img SET dtn = '1999-12-31 23:59:59.5', bn = TRUE WHERE id = 1;
UPDATE img SET dtn = NULL, bn = NULL, s = NULL, bl = NULL WHERE id = 2;
UPDATE img SET b = 0, bn = -128, dt = '2001-01-01 00:00:00', dtn = '2001-01-01 00:00:00.00001', s = 'c',
  t = 'z', bl = X'01' WHERE id = 2;
"""
TRANSACTIONS = 6  # one per statement

_EPOCH = dt.datetime(1970, 1, 1)


def _us(text: str) -> int:
    """A DATETIME's MicroTimestamp: µs since the epoch, the wall time read as UTC."""
    return (dt.datetime.fromisoformat(text) - _EPOCH) // dt.timedelta(microseconds=1)


def _b64(b: bytes) -> str:
    return base64.b64encode(b).decode()


R1 = {"id": 1, "b": True, "bn": None, "dt": _us("2024-01-02 03:04:05.123456"), "dtn": None}
R1 |= {"s": "a", "t": "x", "bl": None}
R2 = {"id": 2, "b": True, "bn": False, "dt": _us("1970-01-01 00:00:00.000001")}
R2 |= {"dtn": _us("2000-02-29 23:59:59.12345"), "s": 'é😀"\\', "t": "y", "bl": _b64(b"\x00\xff")}
R1b = dict(R1, s="b")
R1c = dict(R1b, dt=_us("2024-01-02 03:04:05.123457"))
R1d = dict(R1c, dtn=_us("1999-12-31 23:59:59.5"), bn=True)
R2b = dict(R2, dtn=None, bn=None, s=None, bl=None)
R2c = dict(R2b, b=False, bn=True, dt=_us("2001-01-01 00:00:00"), dtn=_us("2001-01-01 00:00:00.00001"))
R2c |= {"s": "c", "t": "z", "bl": _b64(b"\x01")}

EXPECTED = [
    ("c", None, R1),
    ("c", None, R2),
    ("u", R1, R1b),
    ("u", R1b, R1c),
    ("u", R1c, R1d),
    ("u", R2, R2b),
    ("u", R2b, R2c),
]


@pytest.fixture(scope="module")
def captured():
    if not mariadbserver.available():
        pytest.skip("MariaDB server binaries not installed")
    with mariadbserver.MariaDbServer() as db:
        db.sql("CREATE DATABASE imgdb")
        db.sql(TABLE, "imgdb")
        file, pos = db.query("SHOW MASTER STATUS")[0][:2]
        db.sql(STATEMENTS, "imgdb", charset="utf8mb4")
        events, checksum = read_events(db, file, pos, TRANSACTIONS)
        props = db.connector_properties(
            **{"database.include.list": "imgdb", "topic.prefix": "img", "snapshot.mode": "no_data"}
        )
    return events, checksum, props


def _replay(tmp: Path, captured, lines: bool, monkeypatch) -> list[bytes]:
    events, checksum, props = captured
    if not lines:
        monkeypatch.setattr(stream.MySqlBinlogStream, "_line_decoders", lambda *a: None)
    cfg = dict(props, **{"schema.history.internal.file.filename": str(tmp / "h.dat")})
    p = tmp / "c.properties"
    p.write_text("".join(f"{k}={v}\n" for k, v in cfg.items()))
    c = MySqlConnector(load_config(str(p)), Engine(DirectoryOutput(tmp / "topics"), MemoryOffsetStore()))
    c.mariadb_server = True
    c.server_version = "10.11.0-MariaDB"
    c.snapshot_done = True
    c.file, c.next_pos = "binlog.000001", 4
    c.parser.apply(TABLE, "imgdb")
    for etype, data, ev in events:
        c.handle_event(etype, data, ev, checksum)
    c.engine.output.flush()
    assert any(e.lines is not None for e in c.table_ids.values()) == lines  # the path meant was taken
    return (tmp / "topics" / "img.imgdb.img.jsonl").read_bytes().splitlines()


def _payloads(lines: list[bytes]) -> list[tuple]:
    return [(v["op"], v["before"], v["after"]) for v in (json.loads(x)["value"]["payload"] for x in lines)]


def _bytes_but_times(lines: list[bytes]) -> list[bytes]:
    """Each line with its record's times and the run id (each run has its own) taken out."""
    out = []
    for x in lines:
        r = json.loads(x)
        for k in ("ts_ms", "ts_us", "ts_ns"):
            r["value"]["payload"][k] = 0
        r["headers"] = [h for h in r["headers"] if h[0] != "__debezium.context.runId"]
        out.append(json.dumps(r, ensure_ascii=False).encode())
    return out


def test_update_images_print_the_full_decode(captured, tmp_path, monkeypatch):
    (tmp_path / "a").mkdir()
    (tmp_path / "b").mkdir()
    a = _replay(tmp_path / "a", captured, True, monkeypatch)
    b = _replay(tmp_path / "b", captured, False, monkeypatch)
    assert _payloads(a) == EXPECTED
    assert _payloads(b) == EXPECTED
    assert _bytes_but_times(a) == _bytes_but_times(b)


def test_invalid_utf8_still_takes_the_converters_replacement():
    """The strict decode's fallback: bytes that are not UTF-8 print as the converter's own decode prints them
    (each invalid byte U+FFFD), in an INSERT's image and in an UPDATE's changed after image."""
    tm = bl.TableMap("d", "t", bytes([bl.T_VARCHAR]), [40], b"", nullable=0)
    dec, dec2 = rd.compile_row_decoders(tm, [("s", text_decoder("utf-8"))])
    row = b"\x00\x04a\xffb\xfe"  # null bitmap, length 4, 'a', 0xFF, 'b', 0xFE
    assert dec(row, 0) == ({"s": "a\ufffdb\ufffd"}, len(row))
    good = b"\x00\x02ok"
    assert dec2(good + row, 0) == ({"s": "ok"}, {"s": "a\ufffdb\ufffd"}, len(good) + len(row))
    assert dec2(row + good, 0) == ({"s": "a\ufffdb\ufffd"}, {"s": "ok"}, len(good) + len(row))
