"""The optional C accelerator of the MySQL/MariaDB line path (emulator/fastline.c, linefill.py) prints the
bytes the pure-Python path prints (`fmt % args` and `orjson.dumps` in the generated decoders, row_lines.py).

First `fill` itself against CPython's `%` on the conversions it does (`%d`, `%b`, `%.Nb`, `%%`) and the ones it
hands back to `%` (results and errors), and `dumps` against orjson's. Then a real MariaDB workload: INSERTs, UPDATEs (one column, NULL <->
value, the key changed), DELETEs of a table with signed and unsigned extremes, text with `%` and quotes, a column
named with `%`, DECIMAL, DATETIME(6), BLOB, JSON; its binlog events replayed with the accelerator and with
FILL None (the pure path), without and with transaction metadata, the key in the line's format (the
directory output's decoders) and made apart (the others'): every topic's file must be the same bytes
(the run id and the records' own times masked). A few values are checked against what MariaDB stored (independent of
either path). Skipped where the accelerator was not built (no compiler at install)."""

from __future__ import annotations

import json
import re
import sys
from pathlib import Path
from types import SimpleNamespace

import orjson
import pytest

from emulator import linefill
from emulator.config import load_config
from emulator.connectors.mysql import binlog as bl
from emulator.connectors.mysql.connector import MariaDbConnector
from emulator.engine import Engine
from emulator.offsets import MemoryOffsetStore
from emulator.outputs.directory import DirectoryOutput
from emulator.testing import mariadbserver

# the accelerator linefill.py takes (None: not built, or a build of an older fastline.c)
fill = linefill.fastline.fill if linefill.fastline is not None else None
dumps = linefill.fastline.dumps if linefill.fastline is not None else None

needs_c = pytest.mark.skipif(fill is None, reason="the C accelerator emulator.fastline is not built")


def _both(fmt, args):
    """(`fmt % args`, `fill(fmt, args)`), each its result or its exception's type and text."""
    out = []
    for f in (lambda: fmt % args, lambda: fill(fmt, args)):
        try:
            out.append(f())
        except Exception as e:  # noqa: BLE001 - the error itself is compared
            out.append((type(e), str(e)))
    return out


@needs_c
@pytest.mark.parametrize(
    "fmt,args",
    [
        (b"%d", (0,)),
        (b"[%d|%d|%d]", (-1, 2**63 - 1, -(2**63))),
        (b"%d", (2**63,)),  # beyond a long long: CPython's
        (b"%d", (-(2**64) - 5,)),
        (b"%d", (True,)),  # an int subclass: CPython's
        (b'{"a":%b,"b":"%b"}', (b"null", b'x"y')),
        (b"%%%d%%", (7,)),
        (b'"ts_ms":%.13b,"ts_us":%.16b,"ts_ns":%b', (b"1764200000123456789",) * 3),
        (b"%.30b|%.0b|%.b", (b"short", b"abc", b"abc")),
        (b"%b", (bytearray(b"ba"),)),  # not exact bytes: CPython's
        (b"%s %r %5d %-3d %x", (b"s", b"r", 4, 5, 255)),
        (b"%d %d", (1,)),  # too few arguments
        (b"%d", (1, 2)),  # too many
        (b"%b", (1,)),  # %b of an int: CPython's TypeError
        (b"%d", (b"1",)),
        (b"trailing %", ()),
        (b"%.99999999b", (b"x",)),
        (b"no conversion", ()),
        (b"%d", 5),  # not a tuple
        (b"", ()),
    ],
)
def test_fill_is_percent(fmt, args):
    expected, got = _both(fmt, args)
    assert got == expected


@needs_c
def test_fill_ints_over_the_range():
    values = [0, 9, 10, 99, 100, -9, -10, -99, -100, 10**18, 10**19 - 1, 2**63 - 1, -(2**63), 2**63, 2**64]
    values += [10**k + d for k in range(20) for d in (-1, 0, 1)] + [-(10**k) for k in range(20)]
    fmt = b",".join([b"%d"] * len(values))
    assert fill(fmt, tuple(values)) == fmt % tuple(values)


@needs_c
@pytest.mark.parametrize(
    "value",
    ["", "abc", 'a"b', "a\\b", "x\n", "\x00", "\x1f", "\x7f", "a/b", "é😀", "\ud800", 5, -(2**70), None, True]
    + [1.5, float("nan"), [1, "a"], {"k": "v"}, b"bytes"],
)
def test_dumps_is_orjson(value):
    expected, got = [], []
    for f, out in ((orjson.dumps, expected), (dumps, got)):
        try:
            out.append(f(value))
        except Exception as e:  # noqa: BLE001 - the error itself is compared
            out.append((type(e), str(e)))
    assert got == expected


@needs_c
def test_dumps_finds_each_escape_at_each_place():
    """The 8-byte scan: a character JSON escapes at every place of strings 0-24 long (each 8-byte step and
    the tail), and the characters next to those it looks for."""
    for n in range(25):
        base = "abcdefghijklmnopqrstuvwxy"[:n]
        assert dumps(base) == orjson.dumps(base)
        for i in range(n):
            for ch in ['"', "\\", "\x00", "\x1f", " ", "!", "#", "[", "]", "\x7f", "é"]:
                s = base[:i] + ch + base[i + 1 :]
                assert dumps(s) == orjson.dumps(s), s


TABLE = """CREATE TABLE `pct%t` (
  id INT NOT NULL PRIMARY KEY,
  `a%d` INT NULL,
  tiny TINYINT NOT NULL,
  ubig BIGINT UNSIGNED NOT NULL,
  big BIGINT NULL,
  dec1 DECIMAL(12,2) NULL,
  dt DATETIME(6) NOT NULL,
  flag BOOLEAN NOT NULL,
  s VARCHAR(40) NULL,
  t TEXT NULL,
  bl BLOB NULL,
  j JSON NULL
) DEFAULT CHARSET=utf8mb4"""

STATEMENTS = r"""
INSERT INTO `pct%t` VALUES
  (1, -2147483648, -128, 18446744073709551615, -9223372036854775808, -1234567890.12,
   '2024-01-02 03:04:05.123456', TRUE, '100%% "q" \\ %d %b', 'x%sy', X'00FF', '{"a": "%"}'),
  (2, 2147483647, 127, 0, 9223372036854775807, 0.00, '1970-01-01 00:00:00', FALSE, NULL, NULL, NULL, NULL);
UPDATE `pct%t` SET s = 'b%' WHERE id = 1;
UPDATE `pct%t` SET `a%d` = NULL, big = NULL, dec1 = NULL, bl = NULL WHERE id = 1;
UPDATE `pct%t` SET `a%d` = 5, s = '%', t = '', j = '[1, 2]', ubig = 9223372036854775808 WHERE id = 2;
UPDATE `pct%t` SET id = 3 WHERE id = 2;
BEGIN;
INSERT INTO `pct%t` VALUES (4, 0, 0, 1, 1, 1.5, '2001-01-01 00:00:00.5', TRUE, 'é😀', 't', X'01', 'null');
UPDATE `pct%t` SET tiny = 1 WHERE id >= 3;
DELETE FROM `pct%t` WHERE id IN (1, 4);
COMMIT;
DELETE FROM `pct%t`;
"""
TRANSACTIONS = 7  # the INSERT, four UPDATEs, the explicit transaction, the last DELETE


def _plain(ev):
    if ev is None:
        return None
    names = ("query", "schema", "slave_proxy_id", "next_binlog", "position", "flags", "gtid", "sql_statement")
    return SimpleNamespace(**{a: getattr(ev, a) for a in names if hasattr(ev, a)})


@pytest.fixture(scope="module")
def captured():
    if fill is None:
        pytest.skip("the C accelerator emulator.fastline is not built")
    if not mariadbserver.available():
        pytest.skip("MariaDB server binaries not installed")
    with mariadbserver.MariaDbServer() as db:
        db.sql("CREATE DATABASE fdb")
        db.sql(TABLE, "fdb")
        file, pos = db.query("SHOW MASTER STATUS")[0][:2]
        db.sql(STATEMENTS, "fdb", charset="utf8mb4")
        r = bl.BinlogReader(
            {"host": "127.0.0.1", "port": db.port, "user": db.user, "password": db.password},
            server_id=77,
            blocking=False,
            resume_stream=True,
            log_file=file,
            log_pos=int(pos),
            enable_logging=False,
            mariadb_server=True,
        )
        r.connect()
        events = []
        while sum(1 for e in events if e[0] == bl.XID) < TRANSACTIONS:
            etype, data, ev = r.read()
            if etype is not None:
                events.append((etype, data, _plain(ev)))
        checksum = 4 if r.checksum else 0
        r.close()
        props = db.connector_properties(
            **{"database.include.list": "fdb", "topic.prefix": "f", "snapshot.mode": "no_data"}
        )
    return events, checksum, props


# what differs between two runs: the run id header's value, the record's own times (its clock)
_RUN_ID = re.compile(rb'(runId",\{"schema":\{"type":"string","optional":false\},"payload":)"[^"]*"')
_TIMES = re.compile(rb'("op":"[crud]","ts_ms":)\d+,"ts_us":\d+,"ts_ns":\d+')


def _replay(tmp: Path, captured, c_path: bool, tx: bool, apart: bool, monkeypatch) -> dict[str, bytes]:
    events, checksum, props = captured
    if apart:  # the line decoders that make the key by its own format (`insert`/`update`, as for Kafka)
        monkeypatch.setattr(Engine, "line_writer", lambda self: None)
    monkeypatch.setattr(linefill, "FILL", fill if c_path else None)
    monkeypatch.setattr(linefill, "DUMPS", dumps if c_path else None)
    cfg = dict(props, **{"schema.history.internal.file.filename": str(tmp / "h.dat")})
    if tx:
        cfg["provide.transaction.metadata"] = "true"
    p = tmp / "c.properties"
    p.write_text("".join(f"{k}={v}\n" for k, v in cfg.items()))
    c = MariaDbConnector(load_config(str(p)), Engine(DirectoryOutput(tmp / "topics"), MemoryOffsetStore()))
    c.mariadb_server = True
    c.server_version = "10.11.0-MariaDB"
    c.snapshot_done = True
    c.file, c.next_pos = "binlog.000001", 4
    c.parser.apply(TABLE, "fdb")
    for etype, data, ev in events:
        c.handle_event(etype, data, ev, checksum)
    c.engine.output.flush()
    decoders = [e.lines for e in c.table_ids.values() if e.lines is not None]
    assert decoders, "the line path was not taken"
    g = decoders[0].insert.__globals__
    assert (g["_fill"] is fill) == c_path  # the path meant was compiled
    assert (g["_dumps"] is dumps) == c_path
    assert ("ck" in decoders[0].formats) is not apart  # the key in the line's format, or apart
    out = {}
    for f in sorted((tmp / "topics").iterdir()):
        out[f.name] = _TIMES.sub(rb"\g<1>0", _RUN_ID.sub(rb'\g<1>""', f.read_bytes()))
    return out


@pytest.mark.parametrize("apart", [False, True], ids=["key_inline", "key_apart"])
@pytest.mark.parametrize("tx", [False, True], ids=["plain", "tx_metadata"])
def test_accelerated_lines_are_the_pure_lines(captured, tmp_path, monkeypatch, tx, apart):
    (tmp_path / "c").mkdir()
    (tmp_path / "py").mkdir()
    fast = _replay(tmp_path / "c", captured, True, tx, apart, monkeypatch)
    pure = _replay(tmp_path / "py", captured, False, tx, apart, monkeypatch)
    assert fast == pure
    values = [json.loads(x)["value"] for x in fast["f.fdb.pct_t.jsonl"].splitlines()]
    rows = [v["payload"] for v in values if v is not None]  # (not the tombstones)
    ops = [r["op"] for r in rows]
    # 2 inserts, 3 updates, the key change as delete + create, insert, update of 2 rows, 2 deletes, 1 delete
    assert ops == ["c", "c", "u", "u", "u", "d", "c", "c", "u", "u", "d", "d", "d"]
    first = rows[0]["after"]
    assert first["a%d"] == -2147483648 and first["tiny"] == -128
    assert first["ubig"] == -1  # BIGINT UNSIGNED as int64 (bigint.unsigned.handling.mode=long)
    assert first["big"] == -(2**63) and first["s"] == '100%% "q" \\ %d %b' and first["t"] == "x%sy"
    assert rows[4]["after"]["ubig"] == -(2**63) and rows[4]["after"]["s"] == "%"
    assert rows[2]["after"]["s"] == "b%"
    if tx:
        assert all(r["transaction"] is not None for r in rows)


if __name__ == "__main__":
    sys.exit(pytest.main([__file__, "-q"]))
