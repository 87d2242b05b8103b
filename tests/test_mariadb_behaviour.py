"""MariaDbConnector / MySqlConnector behaviour on a throwaway MariaDB: restarts across DDL (schema history),
snapshot modes, server checks, include.query, types under handling modes."""

from __future__ import annotations

import base64
import json
import time

import pytest
from emulator_proc import EmulatorProcess, snapshot_done
from stop_hooks import stop_after_records

from emulator.api import Capture
from emulator.offsets import MemoryOffsetStore
from emulator.testing import mariadbserver

pytestmark = pytest.mark.skipif(
    not mariadbserver.available(),
    reason="MariaDB server binaries not installed (scripts/setup.sh installs them)",
)


@pytest.fixture(scope="module")
def db():
    with mariadbserver.MariaDbServer() as server:
        yield server


_N = iter(range(1, 10_000))


@pytest.fixture
def dbname(db):
    name = f"t{next(_N)}"
    db.sql(f"CREATE DATABASE {name}")
    db.sql(f"GRANT INSERT, UPDATE, DELETE ON {name}.* TO 'debezium'@'127.0.0.1'")
    return name


def props(db, work, dbname, **extra):
    p = db.connector_properties(
        **{
            "database.include.list": dbname,
            "topic.prefix": "p",
            "schema.history.internal.file.filename": str(work / "history.dat"),
            "offset.storage.file.filename": str(work / "offsets.dat"),
        }
    )
    p.update(extra)
    return p


def data_records(recs, table=None):
    out = []
    for r in recs:
        if r["topic"] in ("p", "p.transaction") or r["topic"].startswith("__"):
            continue
        if table and not r["topic"].endswith("." + table):
            continue
        if isinstance(r.get("value"), dict):
            out.append(r)
    return out


def payload(r):
    return r["value"]["payload"]


def test_ddl_kill9_restart_decodes_with_the_schema_in_force(db, dbname, tmp_path):
    """Events written before an ALTER decode with the old columns after a kill -9 and a restart whose
    offset lies before the ALTER; DDL run while the connector is down applies in order; nothing is lost."""
    db.sql("CREATE TABLE t (a INT PRIMARY KEY, b VARCHAR(10)); INSERT INTO t VALUES (1, 'one')", dbname)
    # offsets are committed at the snapshot's end and then not for a minute: the kill loses them
    p = props(db, tmp_path, dbname, **{"offset.flush.interval.ms": "60000"})
    emu = EmulatorProcess(p, tmp_path).start()
    try:
        emu.wait_for(snapshot_done, 60, "snapshot")
        db.sql(
            "INSERT INTO t VALUES (2, 'two'); ALTER TABLE t ADD COLUMN c INT DEFAULT 7 AFTER a;"
            "INSERT INTO t VALUES (3, 33, 'three')",
            dbname,
        )
        emu.wait_for(lambda rs: len(data_records(rs)) >= 3, 30, "streamed rows")
        hist = (tmp_path / "history.dat").read_text()
        assert "ADD COLUMN c" in hist
    finally:
        emu.kill()
    # while the connector is down: more rows and more DDL
    db.sql(
        "INSERT INTO t VALUES (4, 44, 'four'); ALTER TABLE t DROP COLUMN b;"
        "INSERT INTO t VALUES (5, 55); ALTER TABLE t ADD COLUMN d VARCHAR(5) FIRST;"
        "INSERT INTO t (d, a, c) VALUES ('x', 6, 66); UPDATE t SET c = 0 WHERE a = 1",
        dbname,
    )
    emu2 = EmulatorProcess(p, tmp_path, out=tmp_path / "out2").start()
    try:
        recs = emu2.wait_for(
            lambda rs: any(payload(r)["op"] == "u" for r in data_records(rs)),
            60,
            "the update after the restart",
        )
        recs = emu2.wait_quiet(1.5)
    finally:
        assert emu2.stop() == 0
    rows = {}
    for r in data_records(recs):
        pl = payload(r)
        if pl["op"] == "c":
            rows[pl["after"]["a"]] = pl["after"]
    # re-read from the snapshot position: every row in the shape of its time
    assert rows[2] == {"a": 2, "b": "two"}
    assert rows[3] == {"a": 3, "c": 33, "b": "three"}
    assert rows[4] == {"a": 4, "c": 44, "b": "four"}
    assert rows[5] == {"a": 5, "c": 55}
    assert rows[6] == {"d": "x", "a": 6, "c": 66}
    upd = [payload(r) for r in data_records(recs) if payload(r)["op"] == "u"][0]
    assert upd["before"] == {"d": None, "a": 1, "c": 7} and upd["after"]["c"] == 0
    fields = [
        f["field"]
        for f in json.loads(json.dumps(data_records(recs)[0]["value"]["schema"]))["fields"][1]["fields"]
    ]
    assert fields == ["a", "b"]
    hist = [json.loads(x) for x in (tmp_path / "history.dat").read_text().splitlines()]
    assert [h["ddl"] for h in hist].count("ALTER TABLE t ADD COLUMN c INT DEFAULT 7 AFTER a") == 1


def test_restart_resumes_after_committed_offset_without_duplicates(db, dbname, tmp_path):
    db.sql("CREATE TABLE t (a INT PRIMARY KEY, b TEXT)", dbname)
    p = props(
        db, tmp_path, dbname, **{"offset.flush.interval.ms": "100", "provide.transaction.metadata": "true"}
    )
    emu = EmulatorProcess(p, tmp_path).start()
    try:
        emu.wait_for(lambda rs: any(r["topic"] == "p" for r in rs), 60, "snapshot schema")
        db.sql(
            "INSERT INTO t VALUES (1, 'x'), (2, 'y'); ALTER TABLE t ADD COLUMN c INT;"
            "INSERT INTO t VALUES (3, 'z', 3)",
            dbname,
        )
        emu.wait_for(lambda rs: len(data_records(rs)) >= 3, 30, "rows")
        time.sleep(1.0)  # offsets flushed
    finally:
        assert emu.stop() == 0
    db.sql("INSERT INTO t VALUES (4, 'w', 4)", dbname)
    emu2 = EmulatorProcess(p, tmp_path, out=tmp_path / "out2").start()
    try:
        recs = emu2.wait_for(lambda rs: len(data_records(rs)) >= 1, 60, "the new row")
        recs = emu2.wait_quiet(1.0)
    finally:
        assert emu2.stop() == 0
    got = [payload(r)["after"] for r in data_records(recs)]
    assert got == [{"a": 4, "b": "w", "c": 4}]
    tx = [r for r in recs if r["topic"] == "p.transaction"]
    assert [payload(r)["status"] for r in tx] == ["BEGIN", "END"]
    assert payload(tx[0])["id"] == payload(data_records(recs)[0])["source"]["gtid"]


def test_include_query_and_server_checks(db, dbname, tmp_path):
    db.sql("CREATE TABLE t (a INT PRIMARY KEY)", dbname)
    emu = EmulatorProcess(props(db, tmp_path, dbname, **{"include.query": "true"}), tmp_path).start()
    try:
        emu.wait_for(lambda rs: any(r["topic"] == "p" for r in rs), 60, "snapshot")
        time.sleep(0.5)
        db.sql("INSERT INTO t VALUES (42)", dbname)
        recs = emu.wait_for(lambda rs: len(data_records(rs)) >= 1, 30, "row")
    finally:
        emu.stop()
    src = payload(data_records(recs)[0])["source"]
    assert src["query"] == "INSERT INTO t VALUES (42)"
    assert src["connector"] == "mariadb" and src["thread"] is None


def test_binlog_format_must_be_row(tmp_path):
    with mariadbserver.MariaDbServer(extra_args=["--binlog-format=MIXED"]) as db:
        p = props(db, tmp_path, "mysql")
        emu = EmulatorProcess(p, tmp_path).start()
        emu.proc.wait(60)
        assert emu.proc.returncode != 0
        assert "not configured to use a ROW binlog_format" in emu.log_tail()


def test_types_under_handling_modes(db, dbname, tmp_path):
    db.sql(
        """CREATE TABLE ty (id INT PRIMARY KEY, d DECIMAL(10,3), u BIGINT UNSIGNED, b VARBINARY(4),
              t TIME(6), dt DATETIME(3), ts TIMESTAMP(6) NULL, e ENUM('x','y'), s SET('p','q','r'),
              bit5 BIT(5), f FLOAT, l1 VARCHAR(10) CHARACTER SET latin1, y YEAR);
              INSERT INTO ty VALUES (1, -12.5, 18446744073709551615, x'00ff', '-25:00:00.000001',
              '2001-02-03 04:05:06.789', '2020-01-01 00:00:00.5', 'y', 'p,r', b'10001', 0.1, 'caf\xe9', 1999)""",
        dbname,
    )
    p = props(
        db,
        tmp_path,
        dbname,
        **{
            "decimal.handling.mode": "string",
            "bigint.unsigned.handling.mode": "precise",
            "binary.handling.mode": "hex",
            "time.precision.mode": "connect",
        },
    )
    emu = EmulatorProcess(p, tmp_path).start()
    try:
        emu.wait_for(snapshot_done, 60, "snapshot")
        time.sleep(0.5)
        db.sql(
            "INSERT INTO ty SELECT 2, d, u, b, t, dt, ts, e, s, bit5, f, l1, y FROM ty WHERE id = 1", dbname
        )
        recs = emu.wait_for(lambda rs: len(data_records(rs)) >= 2, 30, "streamed row")
    finally:
        emu.stop()
    snap, streamed = [payload(r)["after"] for r in data_records(recs)]
    snap.pop("id")
    streamed.pop("id")
    assert snap == streamed
    assert snap["d"] == "-12.500"
    assert base64.b64decode(snap["u"]) == (18446744073709551615).to_bytes(9, "big", signed=True)
    assert snap["b"] == "00ff"
    # connect Time of a negative TIME: null (recorded: tests/data/mariadb/cases/time_connect_out_of_day)
    assert snap["t"] is None
    assert snap["dt"] == 981173106789
    assert snap["ts"] == "2020-01-01T00:00:00.500000Z"
    assert snap["e"] == "y" and snap["s"] == "p,r"
    assert base64.b64decode(snap["bit5"]) == bytes([0b10001])
    assert snap["f"] == 0.1
    assert snap["l1"] == "café"
    assert snap["y"] == 1999
    schema = {f["field"]: f for f in data_records(recs)[0]["value"]["schema"]["fields"][1]["fields"]}
    assert schema["t"]["name"] == "org.apache.kafka.connect.data.Time" and schema["t"]["type"] == "int32"
    assert schema["u"]["parameters"] == {"scale": "0", "connect.decimal.precision": "20"}
    assert schema["b"]["type"] == "string"


def test_missing_history_and_recovery_mode(db, dbname, tmp_path):
    db.sql("CREATE TABLE t (a INT PRIMARY KEY)", dbname)
    p = props(db, tmp_path, dbname)
    emu = EmulatorProcess(p, tmp_path).start()
    try:
        emu.wait_for(
            lambda rs: any(r["topic"] == "p" and "CREATE TABLE" in payload(r)["ddl"] for r in rs),
            60,
            "snapshot",
        )
    finally:
        assert emu.stop() == 0
    (tmp_path / "history.dat").unlink()
    db.sql("INSERT INTO t VALUES (7)", dbname)
    emu = EmulatorProcess(p, tmp_path, out=tmp_path / "o2").start()
    emu.proc.wait(60)
    assert emu.proc.returncode != 0 and "history" in emu.log_tail()
    p["snapshot.mode"] = "recovery"
    emu = EmulatorProcess(p, tmp_path, out=tmp_path / "o3").start()
    try:
        recs = emu.wait_for(lambda rs: len(data_records(rs)) >= 1, 60, "the row written while down")
    finally:
        assert emu.stop() == 0
    assert [(payload(r)["op"], payload(r)["after"]) for r in data_records(recs)] == [("c", {"a": 7})]
    assert (tmp_path / "history.dat").exists()


def test_filters_masking_key_columns_truncate(db, dbname, tmp_path):
    db.sql(
        "CREATE TABLE t (id INT PRIMARY KEY, code VARCHAR(10) NOT NULL, secret VARCHAR(20), "
        "note TEXT, UNIQUE KEY (code)); CREATE TABLE skipped (id INT PRIMARY KEY)",
        dbname,
    )
    p = props(
        db,
        tmp_path,
        dbname,
        **{
            "table.include.list": f"{dbname}\\.t",
            "column.exclude.list": f"{dbname}\\.t\\.note",
            "column.mask.with.3.chars": f"{dbname}\\.t\\.secret",
            "message.key.columns": f"{dbname}\\.t:code",
            "skipped.operations": "none",
        },
    )
    emu = EmulatorProcess(p, tmp_path).start()
    try:
        emu.wait_for(lambda rs: any(r["topic"] == "p" for r in rs), 60, "snapshot")
        time.sleep(0.5)
        db.sql(
            "INSERT INTO t VALUES (1, 'A', 'hush', 'n'); INSERT INTO skipped VALUES (1);"
            "UPDATE t SET code = 'B' WHERE id = 1; TRUNCATE TABLE t",
            dbname,
        )
        recs = emu.wait_for(
            lambda rs: any(isinstance(r.get("value"), dict) and payload(r).get("op") == "t" for r in rs),
            30,
            "truncate",
        )
    finally:
        emu.stop()
    assert not any(r["topic"].endswith(".skipped") for r in recs)
    rows = [r for r in recs if r["topic"] == f"p.{dbname}.t"]
    c = payload(rows[0])
    assert rows[0]["key"]["payload"] == {"code": "A"}
    assert c["after"] == {"id": 1, "code": "A", "secret": "***"}
    # the key column changed: delete + tombstone + create
    assert [(payload(r)["op"] if r["value"] else None) for r in rows[1:]] == ["d", None, "c", "t"]
    assert rows[-1]["key"] is None
    schema = rows[0]["value"]["schema"]["fields"][1]["fields"]
    assert [f["field"] for f in schema] == ["id", "code", "secret"]
    assert schema[2]["parameters"] == {"masked": "true"}


def test_unparseable_ddl_fails_unless_skipped(db, dbname, tmp_path):
    db.sql("CREATE TABLE t (a INT PRIMARY KEY)", dbname)
    p = props(db, tmp_path, dbname, **{"table.include.list": f"{dbname}\\.t"})
    emu = EmulatorProcess(p, tmp_path).start()
    try:
        emu.wait_for(lambda rs: any(r["topic"] == "p" for r in rs), 60, "snapshot")
        time.sleep(0.5)
        db.sql("CREATE TABLE sv (a INET6); INSERT INTO t VALUES (1)", dbname)
        emu.proc.wait(30)
    finally:
        emu.stop()
    assert emu.proc.returncode != 0
    assert "CREATE TABLE sv (a INET6)" in emu.log_tail()
    p["schema.history.internal.skip.unparseable.ddl"] = "true"
    emu = EmulatorProcess(p, tmp_path, out=tmp_path / "o2").start()
    try:
        recs = emu.wait_for(lambda rs: len(data_records(rs)) >= 1, 60, "the row after the skipped DDL")
    finally:
        assert emu.stop() == 0
    assert [payload(r)["after"] for r in data_records(recs)] == [{"a": 1}]


def test_heartbeat_action_query_and_lock_modes(db, dbname, tmp_path):
    db.sql(
        "CREATE TABLE hb (ts DATETIME(6)); CREATE TABLE t (a INT PRIMARY KEY); INSERT INTO t VALUES (1)",
        dbname,
    )
    db.sql(f"GRANT INSERT ON {dbname}.hb TO 'debezium'@'127.0.0.1'")
    for mode in ("extended", "none"):
        w = tmp_path / mode
        w.mkdir()
        p = props(
            db,
            w,
            dbname,
            **{
                "snapshot.locking.mode": mode,
                "heartbeat.interval.ms": "200",
                "heartbeat.action.query": f"INSERT INTO {dbname}.hb VALUES (NOW(6))",
            },
        )
        emu = EmulatorProcess(p, w).start()
        try:
            recs = emu.wait_for(snapshot_done, 60, "snapshot")
            emu.wait_for(lambda rs: any(r["topic"] == "__debezium-heartbeat.p" for r in rs), 30, "heartbeat")
            time.sleep(1)
        finally:
            assert emu.stop() == 0
        assert [payload(r)["after"] for r in data_records(recs, "t")] == [{"a": 1}]
    assert int(db.query(f"SELECT COUNT(*) FROM {dbname}.hb")[0][0]) >= 2


def test_server_restart_reconnects_and_resumes(tmp_path):
    with mariadbserver.MariaDbServer() as db:
        db.sql("CREATE DATABASE rs; CREATE TABLE rs.t (a INT PRIMARY KEY)")
        p = props(
            db,
            tmp_path,
            "rs",
            **{"retriable.restart.connector.wait.ms": "300", "snapshot.locking.mode": "none"},
        )
        emu = EmulatorProcess(p, tmp_path).start()
        try:
            emu.wait_for(lambda rs: any(r["topic"] == "p" for r in rs), 60, "snapshot")
            time.sleep(0.5)
            db.sql("INSERT INTO rs.t VALUES (1)")
            emu.wait_for(lambda rs: len(data_records(rs)) >= 1, 30, "first row")
            db.restart()
            db.sql("INSERT INTO rs.t VALUES (2)")
            recs = emu.wait_for(lambda rs: len(data_records(rs)) >= 2, 60, "the row after the restart")
        finally:
            assert emu.stop() == 0
        assert [payload(r)["after"]["a"] for r in data_records(recs)] == [1, 2]
        assert "restarting" in emu.log_tail(60)


def test_in_process_capture(db, dbname):
    from emulator.api import Capture

    db.sql("CREATE TABLE t (a INT PRIMARY KEY, b JSON)", dbname)
    cfg = db.connector_properties(**{"database.include.list": dbname, "topic.prefix": "api"})
    with Capture(cfg) as cap:
        cap.wait_for("api", lambda r: "CREATE TABLE" in r["value"]["payload"]["ddl"], timeout=60)
        db.sql("""INSERT INTO t VALUES (1, '{"x": [1, 2]}')""", dbname)
        rec = cap.wait_for(f"api.{dbname}.t", lambda r: r["value"]["payload"]["op"] == "c", timeout=30)
    assert rec["value"]["payload"]["after"] == {"a": 1, "b": '{"x": [1, 2]}'}
    assert rec["value"]["payload"]["source"]["connector"] == "mariadb"


def test_stop_mid_transaction_resumes_exactly(db, dbname, tmp_path):
    """A clean stop in the middle of a large transaction: the offsets record the events and rows already
    emitted, the restart resumes at the transaction's start and skips them: every row exactly once.

    The stop lands inside the transaction whatever the load: a hook on the engine's per-event tick stops the
    capture once 1,000 of its rows are out (a stop timed from outside raced the capture under load)."""
    rows = 5000
    db.sql("CREATE TABLE big (id INT PRIMARY KEY, pad VARCHAR(200))", dbname)
    p = props(db, tmp_path, dbname, **{"provide.transaction.metadata": "true"})
    del p["offset.storage.file.filename"]
    store = MemoryOffsetStore()
    topic = f"p.{dbname}.big"
    cap = Capture(p, offsets=store).start()
    try:
        stop_after_records(cap, 1000)
        db.sql(f"INSERT INTO big SELECT seq, REPEAT('x', 200) FROM seq_1_to_{rows}", dbname)
        cap.thread.join(60)
        assert not cap.thread.is_alive(), "the hook never stopped the capture"
    finally:
        cap.stop()
    first = [c.after["id"] for c in cap.changes() if c.topic == topic]
    assert 1000 <= len(first) < rows
    off = store.load()
    assert off.get("event", 0) > 0
    again = Capture(p, offsets=store).start()
    try:
        again.wait_for(topic, lambda r: r["value"]["payload"]["after"]["id"] == rows, 60)
        db.sql("INSERT INTO big VALUES (0, 'after')", dbname)  # nothing more of the transaction may come
        again.wait_for(topic, lambda r: r["value"]["payload"]["after"]["id"] == 0, 60)
    finally:
        again.stop()
    ids = first + [c.after["id"] for c in again.changes() if c.topic == topic]
    assert ids == list(range(1, rows + 1)) + [0]


WIDE = """CREATE TABLE w (
  id INT PRIMARY KEY,
  ti TINYINT, tiu TINYINT UNSIGNED, si SMALLINT, siu SMALLINT UNSIGNED, mi MEDIUMINT, miu MEDIUMINT UNSIGNED,
  i INT, iu INT UNSIGNED, bi BIGINT, biu BIGINT UNSIGNED,
  d65 DECIMAL(65,30), d5 DECIMAL(5,0), d18u DECIMAL(18,9) UNSIGNED, d4 DECIMAL(4,4),
  f FLOAT, f73 FLOAT(7,3), db DOUBLE,
  b1 BIT(1), b8 BIT(8), b17 BIT(17), b64 BIT(64),
  c5 CHAR(5), vc VARCHAR(300), tx MEDIUMTEXT, bl TINYBLOB, lb LONGBLOB, bn BINARY(5), vb VARBINARY(10),
  dt DATE, t0 TIME, t1 TIME(1), t4 TIME(4), t6 TIME(6), dt0 DATETIME, dt2 DATETIME(2), dt5 DATETIME(5),
  ts0 TIMESTAMP NULL, ts1 TIMESTAMP(1) NULL, ts6 TIMESTAMP(6) NULL, y YEAR,
  e ENUM('a','b','c'), s SET('a','b','c','d','e','f','g','h','i','j'),
  j JSON, l1 VARCHAR(20) CHARACTER SET latin1, u16 VARCHAR(20) CHARACTER SET utf16, gbk VARCHAR(20) CHARACTER SET gbk,
  nn INT NOT NULL DEFAULT 3
)"""

WIDE_ROWS = """INSERT INTO w VALUES
 (1, -128, 255, -32768, 65535, -8388608, 16777215, -2147483648, 4294967295, -9223372036854775808,
  18446744073709551615, -12345678901234567890123456789012345.123456789012345678901234567890, -99999, 999999999.999999999,
  0.9999, -3.4e38, -1234.567, 1e-300, b'1', b'11111111', b'10000000000000001', b'1111111111111111111111111111111111111111111111111111111111111111',
  'ab  ', 'trailing  ', 'ünïcödé ✓ 𝄞', x'00', x'ff00ff', x'0100000000', x'00ff', '1000-01-01', '-838:59:59', '-00:00:00.5',
  '-12:34:56.7891', '-12:34:56.789012', '1000-01-01 00:00:00', '9999-12-31 23:59:59.99', '1970-01-01 00:00:00.00001',
  '1970-01-01 00:00:01', '2038-01-19 03:14:07.9', '2038-01-19 03:14:07.999999', 1901, 'c', 'a,j', '[1, {"a": null}]',
  'Grüße', 'ÿ€', '中文', 0),
 (2, 127, 0, 32767, 0, 8388607, 0, 2147483647, 0, 9223372036854775807, 9223372036854775808,
  0, 0, 0, 0, 0.1, 0.001, -0.0, b'0', b'0', b'0', b'0', '', '', '', '', '', '', '', '9999-12-31', '838:59:59',
  '00:00:00.1', '00:00:00.0001', '23:59:59.999999', '9999-12-31 23:59:59', '1970-01-01 00:00:00', '2000-02-29 12:00:00.5',
  '2000-01-01 00:00:00', '1999-12-31 23:59:59.5', '2020-02-29 00:00:00.000001', 2155, 'a', '', '{}', '', '', '', 7),
 (3, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL,
  NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL,
  NULL, NULL, NULL, NULL, NULL, NULL, NULL, 1)"""


@pytest.mark.parametrize(
    "modes",
    [
        {},
        {
            "decimal.handling.mode": "string",
            "bigint.unsigned.handling.mode": "precise",
            "binary.handling.mode": "base64",
            "time.precision.mode": "connect",
        },
        {"decimal.handling.mode": "double", "binary.handling.mode": "hex"},
    ],
    ids=["defaults", "string-precise-base64-connect", "double-hex"],
)
def test_snapshot_and_binlog_values_agree(db, dbname, tmp_path, modes):
    """The snapshot (text protocol) and the binlog (binary row images) are decoded by independent code:
    every edge value of every type must come out the same both ways."""
    db.sql(WIDE + ";" + WIDE_ROWS, dbname, charset="utf8mb4")
    emu = EmulatorProcess(props(db, tmp_path, dbname, **modes), tmp_path).start()
    try:
        emu.wait_for(snapshot_done, 60, "snapshot")
        time.sleep(0.3)
        db.sql(
            "INSERT INTO w SELECT id + 100, ti, tiu, si, siu, mi, miu, i, iu, bi, biu, d65, d5, d18u, d4, f, f73, db, "
            "b1, b8, b17, b64, c5, vc, tx, bl, lb, bn, vb, dt, t0, t1, t4, t6, dt0, dt2, dt5, ts0, ts1, ts6, y, e, s, "
            "j, l1, u16, gbk, nn FROM w",
            dbname,
        )
        recs = emu.wait_for(lambda rs: len(data_records(rs, "w")) >= 6, 30, "binlog copies")
    finally:
        emu.stop()
    rows = {payload(r)["after"]["id"]: payload(r)["after"] for r in data_records(recs, "w")}
    for i in (1, 2, 3):
        snap, streamed = dict(rows[i]), dict(rows[i + 100])
        snap.pop("id")
        streamed.pop("id")
        diff = {k: (snap[k], streamed[k]) for k in snap if snap[k] != streamed[k]}
        assert not diff, f"row {i}: snapshot != binlog for {diff}"
    r1 = rows[1]
    if not modes:
        assert r1["c5"] == "ab" and r1["vc"] == "trailing  " and r1["tx"] == "ünïcödé ✓ 𝄞"
        assert r1["t1"] == -500000 and r1["t6"] == -(12 * 3600 + 34 * 60 + 56) * 10**6 - 789012
        assert r1["dt2"] == 253402300799990 and r1["dt5"] == 10
        assert r1["ts1"] == "2038-01-19T03:14:07.9Z" and r1["ts6"] == "2038-01-19T03:14:07.999999Z"
        assert r1["biu"] == -1 and rows[2]["biu"] == -9223372036854775808
        assert r1["s"] == "a,j" and r1["l1"] == "Grüße" and r1["u16"] == "ÿ€" and r1["gbk"] == "中文"
        assert r1["bn"] == "AQAAAAA=" and rows[2]["b64"] == "AAAAAAAAAAA="
        assert r1["f"] == -3.4e38 or r1["f"].__class__.__name__ == "str"


def test_zero_dates_geometry_wide_enum_agree(db, dbname, tmp_path):
    members = ",".join(f"'m{i}'" for i in range(300))
    db.sql(
        f"""SET SESSION sql_mode = '';
        CREATE TABLE z (id INT PRIMARY KEY, d DATE NOT NULL, dn DATE, dt DATETIME(3) NOT NULL, ts TIMESTAMP NOT NULL,
          g POINT, e ENUM({members}));
        INSERT INTO z VALUES (1, '0000-00-00', '0000-00-00', '0000-00-00 00:00:00', '0000-00-00 00:00:00',
          ST_GeomFromText('POINT(1 2)', 4326), 'm299'),
          (2, '2020-01-01', NULL, '2020-01-01 00:00:00.001', '2020-01-01 00:00:00', NULL, 'm0')""",
        dbname,
    )
    emu = EmulatorProcess(props(db, tmp_path, dbname), tmp_path).start()
    try:
        emu.wait_for(snapshot_done, 60, "snapshot")
        time.sleep(0.3)
        db.sql("SET SESSION sql_mode = ''; INSERT INTO z SELECT id + 100, d, dn, dt, ts, g, e FROM z", dbname)
        recs = emu.wait_for(lambda rs: len(data_records(rs, "z")) >= 4, 30, "binlog copies")
    finally:
        emu.stop()
    rows = {payload(r)["after"]["id"]: payload(r)["after"] for r in data_records(recs, "z")}
    for i in (1, 2):
        a, b = dict(rows[i]), dict(rows[i + 100])
        a.pop("id")
        b.pop("id")
        assert a == b
    r = rows[1]
    assert (r["d"], r["dn"], r["dt"], r["ts"], r["e"]) == (0, None, 0, "1970-01-01T00:00:00Z", "m299")
    assert r["g"]["srid"] == 4326 and base64.b64decode(r["g"]["wkb"])[:1] == b"\x01"


def test_blocking_snapshot_and_insert_delete_incremental(db, dbname, tmp_path):
    db.sql(
        "CREATE TABLE sig (id VARCHAR(64) PRIMARY KEY, type VARCHAR(32) NOT NULL, data VARCHAR(2048));"
        "CREATE TABLE t (a INT PRIMARY KEY, b VARCHAR(5)); INSERT INTO t VALUES (1, 'x'), (2, 'y'), (3, 'z')",
        dbname,
    )
    p = props(
        db,
        tmp_path,
        dbname,
        **{
            "signal.data.collection": f"{dbname}.sig",
            "incremental.snapshot.watermarking.strategy": "insert_delete",
            "incremental.snapshot.chunk.size": "2",
        },
    )
    emu = EmulatorProcess(p, tmp_path).start()
    try:
        emu.wait_for(snapshot_done, 60, "snapshot")
        time.sleep(0.3)
        db.sql(
            f"""INSERT INTO sig VALUES ('b1', 'execute-snapshot',
                   '{{"data-collections": ["{dbname}.t"], "type": "blocking"}}')""",
            dbname,
        )
        emu.wait_for(
            lambda rs: (
                sum(1 for r in data_records(rs, "t") if payload(r)["source"]["snapshot"] == "last") >= 2
            ),
            30,
            "the blocking snapshot",
        )
        db.sql("INSERT INTO t VALUES (4, 'w')", dbname)
        recs = emu.wait_for(
            lambda rs: any(payload(r)["op"] == "c" for r in data_records(rs, "t")),
            30,
            "the insert after the blocking snapshot",
        )
        db.sql(
            f"""INSERT INTO sig VALUES ('i1', 'execute-snapshot',
                   '{{"data-collections": ["{dbname}.t"], "type": "incremental"}}')""",
            dbname,
        )
        recs = emu.wait_for(
            lambda rs: (
                sum(1 for r in data_records(rs, "t") if payload(r)["source"]["snapshot"] == "incremental")
                >= 4
            ),
            30,
            "incremental reads",
        )
        recs = emu.wait_quiet(1.0)  # every topic's file flushed, not only the one the wait looked at
    finally:
        assert emu.stop() == 0
    t = [payload(r) for r in data_records(recs, "t")]
    blocking = [(x["op"], x["after"]["a"], x["source"]["snapshot"]) for x in t[3:7]]
    assert blocking == [("r", 1, "first"), ("r", 2, "true"), ("r", 3, "last"), ("c", 4, "false")]
    inc = sorted(x["after"]["a"] for x in t if x["source"]["snapshot"] == "incremental")
    assert inc == [1, 2, 3, 4]
    sig = [payload(r) for r in data_records(recs, "sig")]
    assert [x["op"] for x in sig if x["after"] is None or x["after"]["type"] == "snapshot-window-open"][
        :2
    ] == ["c", "d"]


def test_read_only_incremental_snapshot_from_a_signal_file(db, dbname, tmp_path):
    """read.only=true: no signal table writes; the signal comes from signal.file and each chunk's window
    closes once the stream has executed the chunk's consistent-snapshot GTID set."""
    db.sql(
        "CREATE TABLE t (a INT PRIMARY KEY, b INT); INSERT INTO t SELECT seq, seq FROM seq_1_to_25", dbname
    )
    signals = tmp_path / "signals.txt"
    signals.write_text("")
    p = props(
        db,
        tmp_path,
        dbname,
        **{
            "read.only": "true",
            "signal.enabled.channels": "file",
            "signal.file": str(signals),
            "incremental.snapshot.chunk.size": "10",
            "snapshot.mode": "no_data",
        },
    )
    emu = EmulatorProcess(p, tmp_path).start()
    try:
        emu.wait_for(
            lambda rs: any(r["topic"] == "p" and "CREATE TABLE" in payload(r)["ddl"] for r in rs),
            60,
            "schema",
        )
        time.sleep(0.3)
        doc = {"id": "s1", "type": "execute-snapshot", "data": {"data-collections": [f"{dbname}.t"]}}
        with open(signals, "a") as f:
            f.write(json.dumps(doc) + "\n")
        db.sql("UPDATE t SET b = -b WHERE a IN (5, 20)", dbname)
        recs = emu.wait_for(
            lambda rs: (
                sum(1 for r in data_records(rs, "t") if payload(r)["source"]["snapshot"] == "incremental")
                >= 23
            ),
            60,
            "incremental reads",
        )
        recs = emu.wait_quiet(1.0)
    finally:
        assert emu.stop() == 0
    reads = {
        payload(r)["after"]["a"]: payload(r)["after"]["b"]
        for r in data_records(recs, "t")
        if payload(r)["source"]["snapshot"] == "incremental"
    }
    assert set(reads) >= set(range(1, 26)) - {5, 20}
    assert all(v == a for a, v in reads.items() if a not in (5, 20))
    assert all(reads.get(a, -a) == -a for a in (5, 20))  # a stale read never follows the update
    assert (db.query(f"SELECT COUNT(*) FROM {dbname}.t")[0][0]) == "25"


def test_read_only_windows_use_the_snapshot_gtid_set(db, dbname, tmp_path, caplog):
    """read.only watermarks are executed GTID sets: a chunk read on a quiet server carries the server's
    GTID position, and every row is emitted once the stream has executed it."""
    import logging

    from emulator.api import Capture

    db.sql("CREATE TABLE t (a INT PRIMARY KEY, b INT); INSERT INTO t SELECT seq, seq FROM seq_1_to_7", dbname)
    signals = tmp_path / "signals.txt"
    signals.write_text("")
    cfg = db.connector_properties(
        **{
            "database.include.list": dbname,
            "topic.prefix": "ro",
            "read.only": "true",
            "signal.enabled.channels": "file",
            "signal.file": str(signals),
            "signal.poll.interval.ms": "100",
            "incremental.snapshot.chunk.size": "3",
            "snapshot.mode": "no_data",
        }
    )
    caplog.set_level(logging.DEBUG, logger="emulator.mysql")
    with Capture(cfg) as cap:
        cap.wait_for("ro", lambda r: "CREATE TABLE" in r["value"]["payload"]["ddl"], timeout=60)
        pos = db.query("SELECT @@GLOBAL.gtid_binlog_pos")[0][0]
        doc = {"id": "s1", "type": "execute-snapshot", "data": {"data-collections": [f"{dbname}.t"]}}
        signals.write_text(json.dumps(doc) + "\n")
        seen: set[int] = set()
        cap.wait_for(
            f"ro.{dbname}.t",
            lambda r: seen.add(r["value"]["payload"]["after"]["a"]) or len(seen) == 7,
            timeout=60,
        )
    marks = [m.getMessage() for m in caplog.records if "window open until" in m.getMessage()]
    assert len(marks) >= 3 and all(m.endswith(f"executed {pos}") for m in marks), marks


def test_snapshot_overrides_and_order_by_row_count(db, dbname, tmp_path):
    db.sql(
        "CREATE TABLE a (id INT PRIMARY KEY, gone TINYINT); INSERT INTO a VALUES (1, 0), (2, 1), (3, 0);"
        "CREATE TABLE b (id INT PRIMARY KEY); INSERT INTO b VALUES (1); ANALYZE TABLE a, b",
        dbname,
    )
    p = props(
        db,
        tmp_path,
        dbname,
        **{
            "snapshot.mode": "initial_only",
            "snapshot.tables.order.by.row.count": "ascending",
            "snapshot.select.statement.overrides": f"{dbname}.a",
            f"snapshot.select.statement.overrides.{dbname}.a": f"SELECT * FROM {dbname}.a WHERE gone = 0",
        },
    )
    emu = EmulatorProcess(p, tmp_path).start()
    emu.proc.wait(60)
    assert emu.proc.returncode == 0, emu.log_tail()
    got = [
        (r["topic"].rsplit(".", 1)[1], payload(r)["after"]["id"], payload(r)["source"]["snapshot"])
        for r in sorted(data_records(emu.records()), key=lambda r: payload(r)["ts_ns"])
    ]
    assert got == [("b", 1, "first"), ("a", 1, "first_in_data_collection"), ("a", 3, "last")]


def test_notifications_sink_channel(db, dbname):
    """notification.enabled.channels=sink on MariaDB: the placement the PostgreSQL recordings show
    (tests/data/pg/cases/notifications), through the shared snapshot and incremental layers."""
    from emulator.api import Capture

    db.sql(
        "CREATE TABLE debezium_signal (id VARCHAR(42) PRIMARY KEY, type VARCHAR(32) NOT NULL, data TEXT);"
        "CREATE TABLE a (id INT PRIMARY KEY); INSERT INTO a SELECT seq FROM seq_1_to_7;"
        "CREATE TABLE b (id INT PRIMARY KEY);",
        dbname,
    )
    cfg = db.connector_properties(
        **{
            "database.include.list": dbname,
            "topic.prefix": "nt",
            "signal.data.collection": f"{dbname}.debezium_signal",
            "incremental.snapshot.chunk.size": "5",
            "notification.enabled.channels": "sink,log",
            "notification.sink.topic.name": "nt.notifications",
        }
    )
    seen: list[tuple[str, dict]] = []

    def kinds() -> list[str]:
        return [
            f"{v['aggregate_type'][:4]} {v['type']}"
            if t == "nt.notifications"
            else f"{t.rsplit('.', 1)[1]} {v}"
            for t, v in seen
        ]

    with Capture(cfg) as cap:

        def pump(pred, timeout=60):
            deadline = time.monotonic() + timeout
            while not pred():
                assert time.monotonic() < deadline, kinds()
                for r in cap.records(timeout=0.2):
                    if r["topic"] == "nt.notifications":
                        seen.append((r["topic"], r["value"]["payload"]))
                    elif r["topic"] in (f"nt.{dbname}.a", f"nt.{dbname}.b") and r["value"]:
                        p = r["value"]["payload"]
                        seen.append((r["topic"], f"{p['after']['id']}{p['source']['snapshot']}"))

        pump(lambda: "Init COMPLETED" in kinds())
        db.sql(
            "INSERT INTO debezium_signal VALUES ('sig-1', 'execute-snapshot', "
            f'\'{{"data-collections": ["{dbname}.a", "{dbname}.b"]}}\')',
            dbname,
        )
        pump(lambda: "Incr COMPLETED" in kinds())
    k = kinds()
    assert k[:5] == ["Init STARTED", "Init IN_PROGRESS", "a 1first", "a 2true", "a 3true"]
    # the table's last row is held back until the next table starts (Debezium's buffering receiver)
    assert k[8:14] == [
        "Init TABLE_SCAN_COMPLETED",
        "Init IN_PROGRESS",
        "Init TABLE_SCAN_COMPLETED",
        "a 7last",  # b is empty: the last row emitted is the snapshot's last (emulator/snapshot.py)
        "Init COMPLETED",
        "Incr STARTED",
    ], k
    assert k[14:] == [
        "Incr IN_PROGRESS",
        "a 1incremental",
        "a 2incremental",
        "a 3incremental",
        "a 4incremental",
        "a 5incremental",
        "Incr IN_PROGRESS",
        "a 6incremental",
        "a 7incremental",
        "Incr TABLE_SCAN_COMPLETED",
        "Incr TABLE_SCAN_COMPLETED",
        "Incr COMPLETED",
    ], k
    notes = [v for t, v in seen if t == "nt.notifications"]
    first = notes[1]["additional_data"]
    assert first["current_collection_in_progress"] == f"{dbname}.a" and first["connector_name"] == "nt"
    assert sorted(first["data_collections"].split(",")) == [f"{dbname}.a", f"{dbname}.b"]
    assert (
        notes[2]["additional_data"]["data_collections"] == f"{dbname}.a,{dbname}.b,{dbname}.debezium_signal"
    )
    incr = [v for v in notes if v["aggregate_type"] == "Incremental Snapshot"]
    assert {v["id"] for v in incr} == {"sig-1"}
    assert incr[1]["additional_data"]["maximum_key"] == "7"
    assert incr[1]["additional_data"]["last_processed_key"] == "5"
    assert [v["additional_data"].get("status") for v in incr[-3:-1]] == ["SUCCEEDED", "EMPTY"]
    assert incr[-3]["additional_data"]["total_rows_scanned"] == "7"


def test_notification_sink_needs_a_topic(db, dbname, tmp_path):
    from emulator.api import Capture

    cfg = db.connector_properties(
        **{"database.include.list": dbname, "notification.enabled.channels": "sink"}
    )
    with pytest.raises(Exception, match="notification.sink.topic.name"):
        with Capture(cfg) as cap:
            cap.wait_for("x", lambda r: False, timeout=5)
