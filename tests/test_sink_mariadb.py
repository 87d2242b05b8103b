"""The Spark sink on MariaDB: throwaway MariaDB -> emulator (MariaDbConnector, `python -m emulator run`) ->
`python -m sink run --once` -> each Delta table equals `SELECT *` of its source table, also when the input
arrives shuffled; the sink's order is the binlog position (file, pos, row), which the GTIDs agree with."""

from __future__ import annotations

import datetime as dt
import json
import os
import shutil
import sys
from pathlib import Path

import pytest

pytest.importorskip("pyspark", reason="pyspark not installed (pip install -e '.[sink]')")
pytest.importorskip("deltalake", reason="deltalake not installed (pip install -e '.[sink]')")
if shutil.which("java") is None and not os.environ.get("JAVA_HOME"):
    print("test_sink_mariadb: skipped, no Java runtime", file=sys.stderr)
    pytest.skip("no Java runtime for PySpark", allow_module_level=True)

from emulator_proc import EmulatorProcess, snapshot_done  # noqa: E402
from sink_checks import (  # noqa: E402, F401
    float32,
    norm,
    run_sink,
    shuffled_arrivals,
    sort_rows,
    spark_fixture,
    spark_rows,
    table_rows,
)

from emulator.testing import mariadbserver  # noqa: E402
from sink import position  # noqa: E402

pytestmark = pytest.mark.skipif(
    not mariadbserver.available(),
    reason="MariaDB server binaries not installed (scripts/setup.sh installs them)",
)

PREFIX = "m"
TABLES = ("items", "lines", "logs", "notes")

SETUP = """
CREATE DATABASE shop;
USE shop;
CREATE TABLE items (
  id INT PRIMARY KEY, name VARCHAR(64) NOT NULL, price DECIMAL(12,3), qty INT,
  made DATETIME(6), made0 DATETIME, seen TIMESTAMP(3) NULL DEFAULT NULL, day DATE, doc JSON,
  size ENUM('s','m','l'), tags SET('a','b','c'), data BLOB, ratio DOUBLE, fl FLOAT, flag BOOLEAN,
  dur TIME(3), yr YEAR, big BIGINT UNSIGNED, bits BIT(10), b1 BIT(1), txt TEXT);
CREATE TABLE `lines` (order_id INT, line INT, sku VARCHAR(20), amount DECIMAL(30,10), PRIMARY KEY (order_id, line));
CREATE TABLE logs (id BIGINT AUTO_INCREMENT PRIMARY KEY, msg VARCHAR(100), at DATETIME);
CREATE TABLE notes (a INT, b VARCHAR(20), c DECIMAL(5,1));  -- no primary key: Debezium's key is null
INSERT INTO items SELECT seq, CONCAT('item', seq), seq * 1.125, seq,
  '2024-01-01 00:00:00.123456' + INTERVAL seq HOUR, '2024-01-01 01:02:03' + INTERVAL seq MINUTE,
  '2024-02-29 13:14:15.789' + INTERVAL seq DAY, '2024-01-01' + INTERVAL seq DAY,
  JSON_OBJECT('k', seq, 'arr', JSON_ARRAY(1, 'x')), ELT(1 + seq % 3, 's', 'm', 'l'),
  IF(seq % 2 = 0, 'a,c', ''), IF(seq % 5 = 0, NULL, UNHEX(MD5(seq))), seq / 7, seq + 0.1, seq % 2,
  SEC_TO_TIME(seq * 3600.5 - 200000), 1990 + seq, seq * 1000000000007, seq * 7, seq % 2,
  REPEAT(CONCAT('t', seq), 20)
  FROM seq_1_to_60;
INSERT INTO `lines` SELECT 1 + seq DIV 3, seq % 3, CONCAT('sku', seq), seq * 1000000.0000000001 FROM seq_0_to_29;
INSERT INTO logs (msg, at) SELECT CONCAT('log', seq), '2024-03-01' + INTERVAL seq SECOND FROM seq_1_to_10;
INSERT INTO notes VALUES (1, 'one', 1.5), (2, 'two', 2.5), (2, 'two', 2.5), (3, NULL, NULL);
"""

# Runs after the snapshot. Every statement is its own transaction unless grouped.
WORKLOAD = """
INSERT INTO items (id, name, price, qty, made, seen, day, doc, size, tags, data, ratio, fl, flag, dur, yr, big,
  bits, b1, txt) VALUES
  (100, 'new', 9999999.999, -1, '1970-01-01 00:00:00.000001', '1970-01-01 00:00:01', '1000-01-01', '[]', 'l',
   'a,b,c', x'00', -0.0, -1.5, 1, '-838:59:59', 1901, 0, b'1111111111', b'0', ''),
  (101, 'nulls', NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL,
   NULL, NULL, NULL);
UPDATE items SET qty = qty + 1, price = price * 2, doc = JSON_SET(doc, '$.k', 'upd') WHERE id <= 10;
DELETE FROM items WHERE id BETWEEN 11 AND 15;
UPDATE items SET id = 1000 WHERE id = 20;
-- key changes in one multi-row event: 36 -> 37 is row 0, 35 -> 36 row 1, ... so key 36 is deleted at
-- row 1 and created at row 0 of the same binlog event: only `row` orders them
DELETE FROM items WHERE id = 37;
UPDATE items SET id = id + 1 WHERE id BETWEEN 30 AND 36 ORDER BY id DESC;
START TRANSACTION;
UPDATE items SET name = 'tx1' WHERE id = 40;
INSERT INTO `lines` VALUES (100, 1, 'tx', 1.5);
UPDATE items SET name = 'tx2', seen = '2030-01-01 00:00:00.5' WHERE id = 40;
DELETE FROM items WHERE id = 41;
INSERT INTO items (id, name) VALUES (41, 'reborn-in-tx');
UPDATE `lines` SET amount = amount + 1 WHERE order_id = 100;
COMMIT;
-- a new binlog file: later events have smaller positions in a larger file number
FLUSH BINARY LOGS;
UPDATE items SET qty = 999 WHERE id <= 5;
DELETE FROM `lines` WHERE order_id = 2;
UPDATE `lines` SET order_id = 200 WHERE order_id = 3 AND line = 0;
TRUNCATE TABLE logs;
INSERT INTO logs (msg, at) VALUES ('after truncate', '2024-04-01 00:00:00');
ALTER TABLE items ADD COLUMN note VARCHAR(20) DEFAULT 'n/a';
ALTER TABLE `lines` ADD COLUMN discount DECIMAL(5,2) NULL AFTER sku;
UPDATE items SET note = 'changed', qty = qty * 2 WHERE id IN (1, 2, 50);
-- note left to its DEFAULT: an explicit NULL there reaches the topic as 'n/a' (Debezium's JsonConverter,
-- replace.null.with.default=true), so no consumer of the events could mirror that NULL
INSERT INTO items (id, name, qty) VALUES (102, 'after alter', 1);
UPDATE `lines` SET discount = 1.25 WHERE order_id = 1;
DELETE FROM items WHERE id = 3;
INSERT INTO items (id, name, qty, note) VALUES (3, 'reborn', 3, 'again');
INSERT INTO notes VALUES (4, 'four', 4.0), (2, 'two', 2.5);
UPDATE notes SET b = 'TWO' WHERE a = 2 LIMIT 1;
DELETE FROM notes WHERE a = 1;
UPDATE notes SET c = 9.9 WHERE a = 3;
ALTER TABLE notes ADD COLUMN d INT DEFAULT 1 FIRST;
DELETE FROM notes WHERE a = 4;
UPDATE notes SET d = 2 WHERE a = 3;
INSERT INTO logs (msg) VALUES ('END');
"""


def _bits_be(v):
    return None if v is None else int.from_bytes(v, "big")


def _bits_le(v):
    return None if v is None else int.from_bytes(v, "little")


def _micros(v):
    return None if v is None else (v // dt.timedelta(microseconds=1) if isinstance(v, dt.timedelta) else v)


def _bit1(v):
    return None if v is None else (v == b"\x01" if isinstance(v, bytes) else v)


def _f32(v):
    return float32(v)


# per MariaDB column type: (source value -> comparable, table value -> comparable); other types compare as
# read (DECIMAL -> Decimal, DATETIME -> naive datetime, TIMESTAMP -> UTC, DATE -> date, BLOB -> bytes ...)
_BY_TYPE = {"time": (_micros, _micros), "float": (_f32, _f32), "bit": (_bits_be, _bits_le)}


def _source(db, table: str) -> tuple[list[str], list[tuple], dict]:
    types = dict(
        db.query(
            f"SELECT column_name, column_type FROM information_schema.columns "
            f"WHERE table_schema = 'shop' AND table_name = '{table}'"
        )
    )
    src_n, tab_n = {}, {}
    for c, t in types.items():
        kind = "bit1" if t == "bit(1)" else t.split("(")[0]
        if kind == "bit1":
            src_n[c] = tab_n[c] = _bit1
        elif kind in _BY_TYPE:
            src_n[c], tab_n[c] = _BY_TYPE[kind]
    with db.connect(database="shop") as c:
        cur = c.cursor()
        cur.execute(f"SELECT * FROM `{table}`")
        cols = [d[0] for d in cur.description]
        rows = [tuple(src_n.get(k, norm)(v) for k, v in zip(cols, r)) for r in cur.fetchall()]
    return cols, sort_rows(rows), tab_n


@pytest.fixture(scope="module")
def captured(tmp_path_factory):
    """MariaDB -> emulator (snapshot + the workload) -> its directory output, plus the final source rows."""
    work = tmp_path_factory.mktemp("sink-mariadb")
    with mariadbserver.MariaDbServer() as db:
        db.sql(SETUP)
        props = db.connector_properties(
            **{
                "topic.prefix": PREFIX,
                "database.include.list": "shop",
                "schema.history.internal.file.filename": str(work / "history.dat"),
                "offset.flush.interval.ms": "200",
                "skipped.operations": "none",
            }
        )  # emit truncates
        emu = EmulatorProcess(props, work).start()
        try:
            emu.wait_for(snapshot_done, 120, "snapshot")
            db.sql(WORKLOAD, "shop")
            emu.wait_for(
                lambda rs: any(
                    ((r.get("value") or {}).get("payload") or {}).get("after")
                    and r["value"]["payload"]["after"].get("msg") == "END"
                    for r in rs
                    if r["topic"] == f"{PREFIX}.shop.logs"
                ),
                120,
                "workload",
            )
            assert emu.stop() == 0
        finally:
            emu.kill()
        src = {t: _source(db, t) for t in TABLES}
    return work / "out", src


def _check(tables: Path, src: dict, spark=None, only=TABLES) -> None:
    for t in only:
        cols, rows, tab_n = src[t]
        path = tables / f"{PREFIX}.shop.{t}"
        assert table_rows(path, cols, tab_n) == rows, t
        if spark is not None:
            assert spark_rows(spark, path, cols, tab_n) == rows, t


def _changes(out: Path, table: str) -> list[dict]:
    recs = []
    for line in (out / f"{PREFIX}.shop.{table}.jsonl").read_text().splitlines():
        v = json.loads(line)["value"]
        if isinstance(v, dict) and isinstance(v.get("payload"), dict) and "op" in v["payload"]:
            recs.append(v["payload"])
    return recs


def test_workload_covers_what_the_sink_must_order(captured):
    """The captured stream has what this file claims to test: a snapshot, two binlog files, a truncate,
    key changes inside one multi-row event, and the GTID order agreeing with (file, pos, row)."""
    out, _ = captured
    items = _changes(out, "items")
    assert sum(1 for p in items if p["op"] == "r") == 60
    assert {p["source"]["file"] for p in items} == {"binlog.000001", "binlog.000002"}
    assert any(p["op"] == "t" for p in _changes(out, "logs"))
    created = {p["source"]["pos"] for p in items if p["op"] == "c" and p["after"]["id"] in range(31, 38)}
    assert len(created) == 1  # the seven key changes are one binlog event...
    shifted = [p for p in items if p["source"]["pos"] in created]
    assert len(shifted) == 14 and len({p["source"]["row"] for p in shifted}) == 7  # ...of seven rows
    streamed = [p for t in TABLES for p in _changes(out, t) if p["op"] != "r"]
    streamed.sort(key=lambda p: position.seq(p["source"], p["op"]))
    gtids = [int(p["source"]["gtid"].split("-")[2]) for p in streamed]
    assert gtids == sorted(gtids)
    # in each topic the emulator's emission order is the source order the sink sorts by
    for t in TABLES:
        seqs = [position.seq(p["source"], p["op"]) for p in _changes(out, t)]
        assert seqs == sorted(seqs), t


def test_end_to_end_mariadb_to_delta(captured, tmp_path, spark):
    out, src = captured
    r = run_sink(out, tmp_path / "tables", tmp_path / "ck")
    assert r.returncode == 0, r.stdout[-3000:] + r.stderr[-3000:]
    assert "batch 0:" in r.stdout
    _check(tmp_path / "tables", src, spark)
    cols, rows, _ = src["items"]
    ids = [row[cols.index("id")] for row in rows]
    assert 1000 in ids and 37 in ids and 30 not in ids and "n/a" in [row[cols.index("note")] for row in rows]
    assert len(src["logs"][1]) == 2  # the truncate is in the oracle


def test_shuffled_input_gives_same_tables(captured, tmp_path, spark):
    from sink.job import run

    out, src = captured
    for _ in shuffled_arrivals(out, tmp_path / "in", seed=5):
        assert (
            run(
                str(tmp_path / "in"),
                str(tmp_path / "tables"),
                str(tmp_path / "ck"),
                True,
                spark=spark,
                log=lambda *a, **k: None,
            )
            == 0
        )
    _check(tmp_path / "tables", src)


def test_reversed_input_one_event_per_batch(captured, tmp_path):
    """The worst order: each table's events newest first, every event in its own batch (for the keyless
    table every delete arrives before the row it removes)."""
    from sink.apply import apply_batch

    out, src = captured
    for t in ("lines", "logs", "notes"):
        f = out / f"{PREFIX}.shop.{t}.jsonl"
        recs = [
            (f.stem, d["key"], d["value"], (f.name, i), d.get("headers"))
            for i, d in enumerate(json.loads(x) for x in f.read_text().splitlines())
        ]
        for b, rec in enumerate(reversed(recs)):
            apply_batch(str(tmp_path), [rec], "app", b)
    _check(tmp_path, src, only=("lines", "logs", "notes"))
    assert (tmp_path / "_sink_pending" / f"{PREFIX}.shop.notes").exists()  # deletes did wait for their rows


# -- SCD type 2 ------------------------------------------------------------------------------------------------

KEYS = {"items": ("id",), "lines": ("order_id", "line"), "logs": ("id",)}


def _history(tables: Path, t: str) -> list[dict]:
    from sink.read import read_arrow

    return read_arrow(str(tables / f"{PREFIX}.shop.{t}")).to_pylist()


def _check_history(tables: Path, out: Path, src: dict) -> None:
    """Current versions equal the source; every c/u/r event of a key is one version; versions of a key follow
    each other in source order, each ending where the key next changed."""
    for t, key in KEYS.items():
        cols, rows, tab_n = src[t]
        hist = _history(tables, t)
        current = [r for r in hist if r["__END_AT"] is None]
        assert sort_rows([tuple(tab_n.get(c, norm)(r[c]) for c in cols) for r in current]) == rows, t
        events: dict[tuple, list[dict]] = {}
        for p in _changes(out, t):
            if p["op"] != "t":
                img = p["after"] or p["before"]
                events.setdefault(tuple(img[k] for k in key), []).append(p)
        versions: dict[tuple, list[dict]] = {}
        for r in hist:
            versions.setdefault(tuple(r[k] for k in key), []).append(r)
        live = {tuple(row[cols.index(k)] for k in key) for row in rows}
        for k, evs in events.items():
            vs = sorted(versions.get(k, []), key=lambda r: r["__START_AT"])
            assert len(vs) == sum(1 for p in evs if p["op"] != "d"), (t, k)
            assert [v["__START_AT"] for v in vs] == sorted(
                position.seq(p["source"], p["op"]) for p in evs if p["op"] != "d"
            ), (t, k)
            for a, b in zip(vs, vs[1:]):
                assert a["__END_AT"] is not None and a["__END_AT"] <= b["__START_AT"], (t, k)
            assert (vs[-1]["__END_AT"] is None) == (k in live), (t, k)


def test_scd2_history_tables(captured, tmp_path):
    out, src = captured
    r = run_sink(out, tmp_path / "tables", tmp_path / "ck", None, "--scd", "2")
    assert r.returncode == 0, r.stdout[-3000:] + r.stderr[-3000:]
    assert f"{PREFIX}.shop.notes: SCD type 2 needs a key" in r.stdout
    _check_history(tmp_path / "tables", out, src)
    logs = _history(tmp_path / "tables", "logs")
    trunc = next(position.seq(p["source"], "t") for p in _changes(out, "logs") if p["op"] == "t")
    assert sum(1 for v in logs if v["__END_AT"] == trunc) == 10  # the truncate closed the ten rows


def test_scd2_shuffled_input_gives_the_same_history(captured, tmp_path, spark):
    from sink.apply import Options
    from sink.job import run

    out, src = captured
    assert run_sink(out, tmp_path / "ordered", tmp_path / "ck0", None, "--scd", "2").returncode == 0
    for _ in shuffled_arrivals(out, tmp_path / "in", seed=9):
        assert (
            run(
                str(tmp_path / "in"),
                str(tmp_path / "tables"),
                str(tmp_path / "ck"),
                True,
                spark=spark,
                log=lambda *a, **k: None,
                opts=Options(scd=2),
            )
            == 0
        )
    for t in KEYS:
        assert sorted(map(repr, _history(tmp_path / "tables", t))) == sorted(
            map(repr, _history(tmp_path / "ordered", t))
        ), t
    _check_history(tmp_path / "tables", out, src)
