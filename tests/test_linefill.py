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

import base64
import datetime
import functools
import json
import random
import re
import sys
from pathlib import Path

import orjson
import pytest
from binlog_events import read_events

from emulator import linefill
from emulator.config import load_config
from emulator.connectors.mysql.binlog_values import decimal_size
from emulator.connectors.mysql.connector import MariaDbConnector
from emulator.connectors.mysql.row_decoders import decimal_code
from emulator.connectors.mysql.row_json_code import JDEC_PREC
from emulator.connectors.mysql.values import unscaled_b64
from emulator.engine import Engine
from emulator.offsets import MemoryOffsetStore
from emulator.outputs.directory import DirectoryOutput
from emulator.testing import mariadbserver

# the accelerator linefill.py takes (None: not built, or a build of an older fastline.c)
fill = linefill.fastline.fill if linefill.fastline is not None else None
dumps = linefill.fastline.dumps if linefill.fastline is not None else None
jtext = linefill.fastline.jtext if linefill.fastline is not None else None
jtext_same = linefill.fastline.jtext_same if linefill.fastline is not None else None
jdec = linefill.fastline.jdec if linefill.fastline is not None else None
jdec_same = linefill.fastline.jdec_same if linefill.fastline is not None else None
accel = {"_jt": jtext, "_jts": jtext_same, "_jd": jdec, "_jds": jdec_same}
# the row plans (fastrow.c)
row = (
    None
    if linefill.fastline is None
    else {"plan": linefill.fastline.plan, "line": linefill.fastline.line, "line2": linefill.fastline.line2}
)

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
    + [0, -1, 2**63 - 1, -(2**63), 2**63, 2**64 - 1, 2**64, -(2**63) - 1, False]
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


def _jtext_py(b: bytes, start: int, end: int) -> bytes:
    """What the pure path prints for a UTF-8 text column's bytes b[start:end] (row_decoders.py)."""
    return orjson.dumps(b[start:end].decode("utf-8", "replace"))


@needs_c
def test_jtext_is_the_pure_text():
    """`jtext` against slice, decode and orjson: ASCII around the 8-byte steps, what JSON escapes, non-ASCII, invalid
    UTF-8 (replaced), a span past the bytes' end (clamped as a slice is); `jtext_same` the before's object only
    for equal bytes."""
    values = [
        b"",
        b"a",
        b"abcdefgh",
        b"abcdefghi",
        b"\x7f",
        b"\x80",
        b"caf\xc3\xa9",
        b"\xc3",
        b"\xed\xa0\x80",
        b"\xff",
    ]
    values += [
        b"abcdefghijklmnop"[:k] + ch for k in range(17) for ch in (b'"', b"\\", b"\x00", b"\x1f", b"\xc3\xa9")
    ]
    for v in values:
        b = b"\x05" + v + b"tail"
        assert jtext(b, 1, 1 + len(v)) == _jtext_py(b, 1, 1 + len(v)), v
    assert jtext(b"abc", 1, 99) == _jtext_py(b"abc", 1, 99) and jtext(b"abc", 3, 1) == b'""'
    b = b"xyzxyq"
    prev = b"prev"
    assert jtext_same(b, 3, 6, 0, 3, prev) == b'"xyq"'  # the same length, other bytes
    assert jtext_same(b, 0, 2, 3, 5, prev) is prev
    assert jtext_same(b, 0, 2, -1, -1, None) == b'"xy"'  # no before value (NULL)
    with pytest.raises(ValueError):
        jtext(b, -1, 2)


@needs_c
def test_jdec_is_the_pure_decimal():
    """`jdec` against the generated decoder's DECIMAL code and values.unscaled_b64 on random bytes (garbage digit
    groups too) of every precision it takes and scale; `jdec_same` the before's object only for equal bytes."""
    rnd = random.Random(7)
    for prec in range(1, JDEC_PREC + 1):
        for scale in range(prec + 1):
            g: dict = {}
            lines = decimal_code(prec, scale, g)
            exec("def f(b, p):\n" + "".join(f"    {x}\n" for x in lines) + "    return r\n", g)  # noqa: S102
            size = decimal_size(prec, scale)
            for k in range(40):
                b = bytes([rnd.getrandbits(8) for _ in range(size + 2)])
                if k < 4:  # all digits 0 or all 9s-and-beyond, each sign
                    b = bytes([b[0] | 128 if k % 2 else b[0] & 127] + [0 if k < 2 else 255] * (size + 1))
                assert jdec(b, 1, prec, scale) == unscaled_b64(g["f"](b, 1)).encode(), (prec, scale, b.hex())
    b = bytes.fromhex("800000018000000180000002")
    prev = b"prev"
    assert jdec_same(b, 4, 7, 0, 0, prev) is prev  # DECIMAL(7) is 4 bytes: b[4:8] == b[0:4]
    assert jdec_same(b, 8, 7, 0, 0, b"prev") == jdec(b, 8, 7, 0)
    assert jdec_same(b, 8, 7, 0, -1, None) == jdec(b, 8, 7, 0)
    with pytest.raises(ValueError):
        jdec(b, 10, 7, 0)  # past the bytes
    with pytest.raises(ValueError):
        jdec(b, 0, JDEC_PREC + 1, 0)


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
# every integer width signed and unsigned, the temporal types with fractions, text of every length prefix in
# UTF-8 and in latin1 (its own converter: not the UTF-8 JSON from bytes), ENUM/SET, BIT; text with what JSON
# escapes, non-ASCII, empty, at each 8-byte step of the C scan; UPDATEs changing one text column (the others'
# JSON reused from the before image), NULL <-> text, and equal bytes in another column
MANY = """CREATE TABLE many (
  id INT NOT NULL PRIMARY KEY,
  ti TINYINT NULL, tu TINYINT UNSIGNED NOT NULL, si SMALLINT NOT NULL, su SMALLINT UNSIGNED NULL,
  mi MEDIUMINT NOT NULL, mu MEDIUMINT UNSIGNED NOT NULL, ii INT UNSIGNED NOT NULL, bu BIGINT UNSIGNED NULL,
  d DECIMAL(30,10) NULL, dt DATETIME(3) NULL, ts TIMESTAMP(6) NULL, tm TIME(2) NULL, da DATE NULL, y YEAR NULL,
  c CHAR(5) NOT NULL, v VARCHAR(300) NULL, tt TINYTEXT NULL, mt MEDIUMTEXT NULL, lt LONGTEXT NULL,
  l1 VARCHAR(20) CHARACTER SET latin1 NULL, e ENUM('a', 'b%', 'c') NULL, st SET('x', 'y', 'z') NULL,
  bt BIT(10) NULL, vb VARBINARY(10) NULL, d2 DECIMAL(65,30) NULL, d3 DECIMAL(18,9) NOT NULL, d4 DECIMAL(5,0) NULL
) DEFAULT CHARSET=utf8mb4"""

MANY_STATEMENTS = r"""
INSERT INTO many VALUES
  (1, -128, 255, -32768, 65535, -8388608, 16777215, 4294967295, 18446744073709551615,
   -12345678901234567890.0123456789, '2024-02-29 23:59:59.999', '2038-01-19 03:14:07.5', '-838:59:58.99',
   '1000-01-01', 1901, 'ab', REPEAT('é', 300), 'q"b\\s\tc\n', REPEAT('m', 70000), '12345678"abcdefgh',
   'café ü', 'b%', 'x,z', b'1010101010', X'00', -99999.5, -123456789.987654321, -99999),
  (2, 127, 0, 32767, 0, 8388607, 0, 0, 0, 0.5, '1970-01-01 00:00:01', '2000-01-01 00:00:01', '00:00:00', '9999-12-31',
   2155, '', '', 'back\\slash', '', '', '', 'a', '', b'0', '', 0, 0, 0),
  (3, NULL, 1, 1, NULL, 1, 1, 1, NULL, NULL, NULL, NULL, NULL, NULL, NULL, 'zz', NULL, NULL, NULL, NULL, NULL,
   NULL, NULL, NULL, NULL, NULL, 999999999.999999999, NULL);
UPDATE many SET v = 'ascii only here', tu = 7, d3 = 123456789.987654321 WHERE id = 1;
UPDATE many SET v = NULL, tt = 'same' WHERE id = 1;
UPDATE many SET v = 'same', tt = NULL, mt = CONCAT('abcdefghijklmnop', CHAR(1)) WHERE id = 1;
UPDATE many SET v = 'emas', c = 'ba', d = NULL, d4 = 1 WHERE id = 1;
UPDATE many SET v = 'x', tt = 'x', mt = 'x', lt = 'x', l1 = 'x', c = 'x', d = -0.0000000001, d4 = 5 WHERE id = 3;
UPDATE many SET lt = '😀😀😀😀😀😀😀😀😀' WHERE id = 2;
UPDATE many SET id = 4, v = 'key changed' WHERE id = 3;
DELETE FROM many WHERE id IN (1, 2);
"""
MANY_TRANSACTIONS = 9
# every kind the C row plans take (fastrow.c, row_plan.py): a table whose rows go through one C call each, the key
# (c, id) not in column order, two columns not captured (column.exclude.list: skipped by size and by prefix),
# fractional seconds 0-6, zero dates (NULL, 0 and a column's default), dates before 1970, negative TIMEs with a
# fraction, extremes, text with escapes, non-ASCII and latin1, ENUM/SET members JSON escapes, BIT(1)/BIT(10), BLOB,
# a NULL printed as its column's default
WHOLE = r"""CREATE TABLE whole (
  id INT NOT NULL, skip_f INT NULL,
  ti TINYINT NULL, tu TINYINT UNSIGNED NOT NULL, si SMALLINT NULL, su SMALLINT UNSIGNED NOT NULL,
  mi MEDIUMINT NOT NULL, mu MEDIUMINT UNSIGNED NULL, ii INT NULL, iu INT UNSIGNED NOT NULL,
  bi BIGINT NULL, bu BIGINT UNSIGNED NOT NULL,
  d1 DECIMAL(30,10) NULL, d2 DECIMAL(5,0) NOT NULL, d3 DECIMAL(12,2) NULL, d4 DECIMAL(10,10) NULL,
  d5 DECIMAL(1,0) NULL, c CHAR(4) NOT NULL,
  dt0 DATETIME NULL, dt1 DATETIME(1) NULL, dt2 DATETIME(2) NULL, dt3 DATETIME(3) NOT NULL, dt4 DATETIME(4) NULL,
  dt5 DATETIME(5) NULL, dt6 DATETIME(6) NOT NULL DEFAULT '2001-02-03 04:05:06.5',
  ts0 TIMESTAMP NULL, ts1 TIMESTAMP(1) NULL, ts4 TIMESTAMP(4) NULL, ts6 TIMESTAMP(6) NULL,
  tsn TIMESTAMP(2) NOT NULL DEFAULT '2000-01-01 00:00:00',
  tm0 TIME NULL, tm1 TIME(1) NULL, tm2 TIME(2) NULL, tm3 TIME(3) NULL, tm4 TIME(4) NULL, tm5 TIME(5) NULL,
  tm6 TIME(6) NULL, da DATE NULL, dn DATE NOT NULL, y YEAR NULL, skip_v VARCHAR(10) NULL,
  v VARCHAR(300) NULL, tt TINYTEXT NULL, t TEXT NULL, mt MEDIUMTEXT NULL,
  l1 VARCHAR(20) CHARACTER SET latin1 NULL, lc CHAR(3) CHARACTER SET latin1 NULL,
  e ENUM('a', 'b%', 'c"q') NULL, st SET('x', 'y', 'z\\') NULL, b1 BIT(1) NULL, b10 BIT(10) NULL, bl BLOB NULL,
  vb VARBINARY(10) NULL, flag BOOLEAN NOT NULL, dflt INT NULL DEFAULT 42,
  PRIMARY KEY (c, id)
) DEFAULT CHARSET=utf8mb4"""

WHOLE_STATEMENTS = r"""
SET SESSION sql_mode = '';
SET SESSION time_zone = '+00:00';
INSERT INTO whole VALUES
  (1, 5, -128, 255, -32768, 65535, -8388608, 16777215, -2147483648, 4294967295, -9223372036854775808,
   18446744073709551615, -12345678901234567890.0123456789, -99999, -1234567890.12, 0.1234567890, -9, 'ab',
   '1000-01-01 00:00:00', '1969-12-31 23:59:59.9', '1970-01-01 00:00:00.01', '1969-12-31 23:59:59.999',
   '2024-02-29 12:34:56.1234', '9999-12-31 23:59:59.99999', '2024-01-02 03:04:05.123456',
   '1970-01-01 00:00:01', '2038-01-19 03:14:07.9', '2000-02-29 00:00:00.0001', '2038-01-19 03:14:07.999999',
   '2020-01-01 00:00:00.25', '-838:59:59', '-00:00:00.5', '-01:02:03.12', '838:59:58.999', '-00:00:01.0001',
   '12:34:56.12345', '-00:00:00.000001', '1000-01-01', '9999-12-31', 1901, 'sk',
   REPEAT('é', 300), 'q"b\\s\tc\n', 'x%sy😀', CONCAT('abcdefghijklmnop', CHAR(1)), 'café ü', 'ñ',
   'c"q', 'x,z\\', b'1', b'1010101010', X'00FF10', '', TRUE, NULL),
  (2, NULL, 127, 0, 32767, 0, 8388607, 0, 2147483647, 0, 9223372036854775807, 9223372036854775808,
   99999999999999999999.9999999999, 99999, 9999999999.99, -0.0000000001, 9, '',
   '0000-00-00 00:00:00', NULL, NULL, '0000-00-00 00:00:00', NULL, NULL, '0000-00-00 00:00:00.000000',
   '0000-00-00 00:00:00', NULL, NULL, NULL, '0000-00-00 00:00:00', '00:00:00', NULL, NULL, NULL, NULL, NULL, NULL,
   '0000-00-00', '0000-00-00', 2155, NULL, '', '', '', '', '', '', 'a', '', b'0', b'0', '', NULL, FALSE, 7),
  (3, 1, NULL, 1, NULL, 1, 1, NULL, NULL, 1, NULL, 1, NULL, 0, NULL, NULL, NULL, 'zz',
   NULL, NULL, NULL, '2001-01-01', NULL, NULL, '2001-01-01', NULL, NULL, NULL, NULL, '2001-01-01', NULL, NULL, NULL,
   NULL, NULL, NULL, NULL, NULL, '2001-01-01', NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL,
   NULL, NULL, NULL, TRUE, NULL);
UPDATE whole SET v = 'ascii only here', tu = 7, d1 = 0.5 WHERE id = 1;
UPDATE whole SET v = NULL, tt = 'same', ts6 = NULL, e = 'b%' WHERE id = 1;
UPDATE whole SET v = 'same', tt = NULL, st = 'y', b10 = b'1', skip_v = 'x' WHERE id = 1;
UPDATE whole SET ti = 0, dt0 = '1999-09-09 09:09:09', l1 = 'x', tm0 = '-00:00:01' WHERE id = 3;
UPDATE whole SET c = 'key', skip_f = 7 WHERE id = 3;
UPDATE whole SET da = '0069-03-04', dn = '0070-01-01', dt0 = '0099-12-31 23:59:59', dt6 = '0001-01-01 00:00:00' WHERE id = 1;
BEGIN;
UPDATE whole SET flag = NOT flag WHERE id IN (1, 2);
DELETE FROM whole WHERE id = 2;
COMMIT;
DELETE FROM whole;
"""
WHOLE_TRANSACTIONS = 9  # (the years 1-99 UPDATE: enable.time.adjuster's 2000s/1900s in both paths)
TRANSACTIONS = (
    7 + MANY_TRANSACTIONS + WHOLE_TRANSACTIONS
)  # pct%t's: the INSERT, four UPDATEs, a transaction, a DELETE


@pytest.fixture(scope="module")
def captured():
    if fill is None:
        pytest.skip("the C accelerator emulator.fastline is not built")
    if not mariadbserver.available():
        pytest.skip("MariaDB server binaries not installed")
    with mariadbserver.MariaDbServer() as db:
        db.sql("CREATE DATABASE fdb")
        db.sql(TABLE, "fdb")
        db.sql(MANY, "fdb")
        db.sql(WHOLE, "fdb")
        file, pos = db.query("SHOW MASTER STATUS")[0][:2]
        db.sql(STATEMENTS, "fdb", charset="utf8mb4")
        db.sql(MANY_STATEMENTS, "fdb", charset="utf8mb4")
        db.sql(WHOLE_STATEMENTS, "fdb", charset="utf8mb4")
        events, checksum = read_events(db, file, pos, TRANSACTIONS)
        props = db.connector_properties(
            **{
                "database.include.list": "fdb",
                "topic.prefix": "f",
                "snapshot.mode": "no_data",
                "column.exclude.list": "fdb.whole.skip_f,fdb.whole.skip_v",
            }
        )
    return events, checksum, props


# what differs between two runs: the run id header's value, the record's own times (its clock)
_RUN_ID = re.compile(rb'(runId",\{"schema":\{"type":"string","optional":false\},"payload":)"[^"]*"')
_TIMES = re.compile(rb'("op":"[crud]","ts_ms":)\d+,"ts_us":\d+,"ts_ns":\d+')


def _replay(
    tmp: Path, captured, c_path: bool, tx: bool, apart: bool, monkeypatch, whole: bool = False
) -> dict[str, bytes]:
    """The captured events' topic files; `c_path`: the C accelerator's per-value functions, `whole`: also its row
    plans (a table all of whose columns they take as one C call a row)."""
    events, checksum, props = captured
    if apart:  # the line decoders that make the key by its own format (`insert`/`update`, as for Kafka)
        monkeypatch.setattr(Engine, "line_writer", lambda self: None)
    monkeypatch.setattr(linefill, "FILL", fill if c_path else None)
    monkeypatch.setattr(linefill, "DUMPS", dumps if c_path else None)
    monkeypatch.setattr(linefill, "ACCEL", accel if c_path else None)
    monkeypatch.setattr(linefill, "ROW", row if whole else None)
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
    c.parser.apply(MANY, "fdb")
    c.parser.apply(WHOLE, "fdb")
    for etype, data, ev in events:
        c.handle_event(etype, data, ev, checksum)
    c.engine.output.flush()
    lines = {e.tm.table: e.lines for e in c.table_ids.values() if e.lines is not None}
    assert sorted(lines) == ["many", "pct%t", "whole"], "the line path was not taken for every table"
    # the row plan for `whole` only (pct%t has a JSON column, many a DECIMAL(65,30): generated decoders)
    assert isinstance(lines["whole"].insert, functools.partial) is whole
    assert lines["whole"].formats.keys() == lines["many"].formats.keys()
    decoders = [lines["pct%t"], lines["many"]]
    g = decoders[0].insert.__globals__
    assert (g["_fill"] is fill) == c_path  # the path meant was compiled
    assert (g["_dumps"] is dumps) == c_path
    assert (g.get("_jt") is jtext) == c_path  # UTF-8 text columns' JSON from the row's bytes
    assert (g.get("_jd") is jdec) == c_path  # DECIMALs' base64
    assert ("ck" in decoders[0].formats) is not apart  # the key in the line's format, or apart
    out = {}
    for f in sorted((tmp / "topics").iterdir()):
        out[f.name] = _TIMES.sub(rb"\g<1>0", _RUN_ID.sub(rb'\g<1>""', f.read_bytes()))
    return out


@pytest.mark.parametrize("apart", [False, True], ids=["key_inline", "key_apart"])
@pytest.mark.parametrize("tx", [False, True], ids=["plain", "tx_metadata"])
def test_accelerated_lines_are_the_pure_lines(captured, tmp_path, monkeypatch, tx, apart):
    for d in ("w", "c", "py"):
        (tmp_path / d).mkdir()
    whole = _replay(tmp_path / "w", captured, True, tx, apart, monkeypatch, whole=True)
    fast = _replay(tmp_path / "c", captured, True, tx, apart, monkeypatch)
    pure = _replay(tmp_path / "py", captured, False, tx, apart, monkeypatch)
    assert fast == pure
    assert whole == fast
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
    many = [json.loads(x)["value"] for x in fast["f.fdb.many.jsonl"].splitlines()]
    many = [v["payload"] for v in many if v is not None]
    assert [r["op"] for r in many] == ["c", "c", "c", "u", "u", "u", "u", "u", "u", "d", "c", "d", "d"]
    one = many[0]["after"]
    assert one["v"] == "é" * 300 and one["tt"] == 'q"b\\s\tc\n' and one["mt"] == "m" * 70000
    assert one["lt"] == '12345678"abcdefgh' and one["l1"] == "café ü" and one["c"] == "ab"
    assert many[5]["after"]["mt"] == "abcdefghijklmnop\x01" and many[5]["before"]["tt"] == "same"
    assert many[4]["after"]["v"] is None and many[4]["before"]["v"] == "ascii only here"
    assert many[8]["after"]["lt"] == "😀" * 9 and many[1]["after"]["v"] == ""
    assert many[1]["after"]["tt"] == "back\\slash"
    # DECIMAL as base64 of the unscaled value's two's complement bytes (decimal.handling.mode=precise)
    assert (
        many[0]["after"]["d3"]
        == base64.b64encode((-123456789987654321).to_bytes(8, "big", signed=True)).decode()
    )
    assert (
        many[3]["after"]["d3"]
        == base64.b64encode((123456789987654321).to_bytes(8, "big", signed=True)).decode()
    )
    assert many[7]["after"]["d"] == "/w==" and many[1]["after"]["d3"] == "AA=="  # -1e-10 unscaled -1; 0
    # the same length, other bytes (an after value is the before's only when its bytes are)
    assert (many[6]["before"]["v"], many[6]["after"]["v"], many[6]["after"]["c"]) == ("same", "emas", "ba")
    # the row plan's table: values as MariaDB stored them (Debezium's types, worked out by hand)
    rows = [json.loads(x)["value"] for x in whole["f.fdb.whole.jsonl"].splitlines()]
    rows = [v["payload"] for v in rows if v is not None]
    # 3 inserts, 3 updates of id 1, one of id 3, its key change (delete + create), id 1's years 1-99, 2 updates,
    # 3 deletes
    assert [r["op"] for r in rows] == [
        "c",
        "c",
        "c",
        "u",
        "u",
        "u",
        "u",
        "d",
        "c",
        "u",
        "u",
        "u",
        "d",
        "d",
        "d",
    ]
    # years 1-99 as Debezium's temporal adjuster moves them (00-69 -> 20xx, 70-99 -> 19xx; enable.time.adjuster)
    yrs = rows[9]["after"]
    days = lambda y, m, d: (datetime.date(y, m, d) - datetime.date(1970, 1, 1)).days  # noqa: E731
    assert (yrs["da"], yrs["dn"]) == (days(2069, 3, 4), 0)
    assert yrs["dt0"] == (days(1999, 12, 31) * 86400 + 86399) * 1000  # DATETIME(0): ms
    assert yrs["dt6"] == days(2001, 1, 1) * 86400 * 10**6  # DATETIME(6): µs
    one, two = rows[0]["after"], rows[1]["after"]
    assert "skip_f" not in one and "skip_v" not in one  # column.exclude.list: skipped in the image
    assert (one["tu"], one["su"], one["mu"], one["iu"], one["bu"]) == (255, 65535, 16777215, 4294967295, -1)
    assert (one["ti"], one["si"], one["mi"], one["ii"]) == (-128, -32768, -8388608, -(2**31))
    assert one["d2"] == base64.b64encode((-99999).to_bytes(3, "big", signed=True)).decode()
    assert one["dt1"] == -100 and one["dt3"] == -1  # DATETIME(0-3) in ms, floored before 1970
    assert one["dt0"] == -30610224000000 and one["dt4"] == 1709210096123400  # ms; DATETIME(4): µs
    assert one["ts6"] == "2038-01-19T03:14:07.999999Z" and one["ts1"] == "2038-01-19T03:14:07.9Z"
    assert one["ts4"] == "2000-02-29T00:00:00.0001Z" and one["ts0"] == "1970-01-01T00:00:01Z"
    assert (one["tm0"], one["tm1"], one["tm2"]) == (
        -(838 * 3600 + 59 * 60 + 59) * 10**6,
        -500000,
        -3723120000,
    )
    assert (one["tm4"], one["tm6"]) == (-1000100, -1)
    assert one["da"] == -354285 and one["dn"] == 2932896 and one["y"] == 1901
    # a streamed SET/ENUM value is its members as the DDL writes them (`'z\\'`: z and two backslashes), Debezium
    # 3.6.3's escapeOption (mariadb case enum_members_as_written)
    assert one["e"] == 'c"q' and one["st"] == "x,z\\\\" and one["l1"] == "café ü" and one["lc"] == "ñ"
    assert one["b1"] is True and one["b10"] == "qgI=" and one["bl"] == "AP8Q" and one["vb"] == ""
    assert one["tt"] == 'q"b\\s\tc\n' and one["mt"] == "abcdefghijklmnop\x01" and one["flag"] is True
    # a NULL prints the column's default (replace.null.with.default)
    assert one["dflt"] == 42 and two["dflt"] == 7
    # zero dates: NULL where the column may be NULL, else 0 or the column's default
    assert (two["dt0"], two["dt3"], two["dt6"], two["ts0"], two["da"], two["dn"]) == (
        None,
        0,
        981173106500000,
        None,
        None,
        0,
    )
    assert (
        two["tsn"] == "2000-01-01T00:00:00Z" and two["tm0"] == 0 and two["st"] == "" and two["b10"] == "AAA="
    )
    assert rows[4]["after"]["ts6"] is None and rows[4]["after"]["e"] == "b%" and rows[5]["after"]["st"] == "y"


if __name__ == "__main__":
    sys.exit(pytest.main([__file__, "-q"]))
