"""Documented Debezium 3.6.3 PostgreSQL behaviour: handling modes, publication and slot, other documented
options, CLI configuration errors. Expectations and method as in tests/test_pg_behaviour.py (its docstring).
"""

from __future__ import annotations

import base64
import contextlib
import os
import signal
import subprocess
import sys
import threading
import time
from datetime import UTC, date, datetime
from pathlib import Path

import pytest
from emulator_proc import EmulatorProcess, write_properties
from pg_behaviour_case import (
    behaviour_server,
    field_schema,
    is_op,
    key,
    on,
    op,
    open_case,
    payload,
)


@pytest.fixture(scope="module")
def pg():
    yield from behaviour_server()


@pytest.fixture
def case(pg, request):
    yield from open_case(pg, request)


# -- handling modes --------------------------------------------------------------------------------------------------


def _streamed(case, cap, values: str) -> dict:
    case.sql(f"INSERT INTO {case.schema}.t VALUES (2, {values});")
    return cap.wait_for(case.topic("t"), is_op("c", id=2), 20)


def _mode_case(case, columns: str, values: str, props: dict[str, str]) -> list[dict]:
    """One row read by the snapshot, the same values inserted while streaming; both records."""
    s = case.schema
    case.sql(f"CREATE TABLE {s}.t (id int PRIMARY KEY, {columns}); INSERT INTO {s}.t VALUES (1, {values});")
    cap = case.start(props)
    snap = cap.wait_for(case.topic("t"), lambda r: op(r) == "r", 20)
    return [snap, _streamed(case, cap, values)]


def test_decimal_handling_string(case):
    for r in _mode_case(
        case,
        "fixed numeric(10,2), free numeric, nan numeric, cash money",
        "1234.56, 1.5, 'NaN', 12.34",
        {"decimal.handling.mode": "string"},
    ):
        for col in ("fixed", "free", "nan", "cash"):
            sch = field_schema(r, "after", col)
            assert sch["type"] == "string" and "name" not in sch, (col, sch)
        assert payload(r)["after"] == {
            "id": payload(r)["after"]["id"],
            "fixed": "1234.56",
            "free": "1.5",
            "nan": "NAN",
            "cash": "12.34",
        }


def test_decimal_handling_double(case):
    for r in _mode_case(
        case,
        "fixed numeric(10,2), free numeric, nan numeric, cash money",
        "1234.56, 1.5, 'NaN', 12.34",
        {"decimal.handling.mode": "double"},
    ):
        for col in ("fixed", "free", "nan", "cash"):
            sch = field_schema(r, "after", col)
            assert sch["type"] == "double" and "name" not in sch, (col, sch)
        after = payload(r)["after"]
        assert (after["fixed"], after["free"], after["nan"], after["cash"]) == (1234.56, 1.5, "NaN", 12.34)


def test_time_precision_mode_connect(case):
    ts = datetime(2024, 3, 1, 13, 45, 30, 123456, tzinfo=UTC)
    days = (date(2024, 3, 1) - date(1970, 1, 1)).days
    tod_ms = (13 * 3600 + 45 * 60 + 30) * 1000 + 123
    for r in _mode_case(
        case,
        "d date, t3 time(3), t6 time, ts6 timestamp, ts3 timestamp(3)",
        "'2024-03-01', '13:45:30.123', '13:45:30.123456', '2024-03-01 13:45:30.123456', "
        "'2024-03-01 13:45:30.123'",
        {"time.precision.mode": "connect"},
    ):
        want = {
            "d": ("int32", "org.apache.kafka.connect.data.Date"),
            "t3": ("int32", "org.apache.kafka.connect.data.Time"),
            "t6": ("int32", "org.apache.kafka.connect.data.Time"),
            "ts6": ("int64", "org.apache.kafka.connect.data.Timestamp"),
            "ts3": ("int64", "org.apache.kafka.connect.data.Timestamp"),
        }
        for col, (typ, name) in want.items():
            sch = field_schema(r, "after", col)
            assert (sch["type"], sch.get("name")) == (typ, name), (col, sch)
        after = payload(r)["after"]
        assert after["d"] == days
        assert after["t3"] == after["t6"] == tod_ms  # ms; precision beyond ms is lost
        assert after["ts6"] == after["ts3"] == int(ts.timestamp() * 1000) == 1709300730123


def test_interval_handling_string(case):
    for r in _mode_case(
        case, "iv interval", "'1 year 2 mons 3 days 04:05:06.78'", {"interval.handling.mode": "string"}
    ):
        sch = field_schema(r, "after", "iv")
        assert (sch["type"], sch.get("name")) == ("string", "io.debezium.time.Interval")
        assert payload(r)["after"]["iv"] == "P1Y2M3DT4H5M6.78S"


def test_hstore_handling_map(case):
    for r in _mode_case(case, "h hstore", "'a=>1, b=>two'", {"hstore.handling.mode": "map"}):
        sch = field_schema(r, "after", "h")
        assert sch["type"] == "map" and sch["keys"]["type"] == "string" and sch["values"]["type"] == "string"
        assert payload(r)["after"]["h"] == {"a": "1", "b": "two"}


def test_binary_handling_base64(case):
    for r in _mode_case(case, "b bytea", "'\\xdeadbeef'::bytea", {"binary.handling.mode": "base64"}):
        sch = field_schema(r, "after", "b")
        assert sch["type"] == "string"
        assert payload(r)["after"]["b"] == base64.b64encode(bytes.fromhex("deadbeef")).decode() == "3q2+7w=="


# -- publication and slot ---------------------------------------------------------------------------------------------


def _publication_tables(case) -> set[tuple[str, str]]:
    with case.pg.connect() as c:
        return set(
            c.execute(
                "SELECT schemaname, tablename FROM pg_publication_tables WHERE pubname = %s",
                (case.publication,),
            ).fetchall()
        )


def test_publication_autocreate_filtered(case):
    s = case.schema
    case.sql(f"CREATE TABLE {s}.t1 (id int PRIMARY KEY); CREATE TABLE {s}.t2 (id int PRIMARY KEY);")
    cap = case.start(
        {"publication.autocreate.mode": "filtered", "table.include.list": rf"{s}\.t1,{s}\.barrier"}
    )
    assert _publication_tables(case) == {(s, "t1"), (s, "barrier")}
    case.sql(f"INSERT INTO {s}.t2 VALUES (1); INSERT INTO {s}.t1 VALUES (1);")
    cap.wait_for(case.topic("t1"), is_op("c", id=1), 20)
    case.barrier(cap)
    assert on(cap, case.topic("t2")) == []


def test_publication_autocreate_filtered_alters_existing(case):
    s = case.schema
    case.sql(f"""CREATE TABLE {s}.t1 (id int PRIMARY KEY); CREATE TABLE {s}.t2 (id int PRIMARY KEY);
                 CREATE PUBLICATION {case.publication} FOR TABLE {s}.t2;""")
    cap = case.start(
        {"publication.autocreate.mode": "filtered", "table.include.list": rf"{s}\.t1,{s}\.barrier"}
    )
    assert _publication_tables(case) == {(s, "t1"), (s, "barrier")}
    case.barrier(cap)


def test_publication_autocreate_disabled_missing_publication_fails(case, tmp_path):
    emu = EmulatorProcess(case.props({"publication.autocreate.mode": "disabled"}), tmp_path).start()
    try:
        code = emu.proc.wait(30)
    finally:
        emu.kill()
    log = emu.log_path.read_text()
    assert code != 0, log
    assert case.publication in log and "publication" in log.lower()
    assert not case.slot_exists()


def _walsender_pid(case) -> int:
    with case.pg.connect() as c:
        return c.execute(
            "SELECT active_pid FROM pg_replication_slots WHERE slot_name = %s", (case.slot,)
        ).fetchone()[0]


def test_slot_kept_after_clean_stop_by_default(case):
    cap = case.start()  # slot.drop.on.stop defaults to false
    case.barrier(cap)
    cap.stop()
    assert case.slot_exists()


def test_slot_drop_on_stop(case):
    """slot.drop.on.stop=true: the slot is gone after a clean stop. The server releases the slot only
    when its walsender has noticed the disconnect, which takes a moment on a busy server; freezing the
    walsender for a second makes that moment deterministic."""
    cap = case.start({"slot.drop.on.stop": "true"})
    case.barrier(cap)
    pid = _walsender_pid(case)
    os.kill(pid, signal.SIGSTOP)
    thaw = threading.Timer(1.0, os.kill, (pid, signal.SIGCONT))
    thaw.start()
    try:
        cap.stop()
    finally:
        thaw.join()
        with contextlib.suppress(ProcessLookupError):  # normally it has exited by now
            os.kill(pid, signal.SIGCONT)
    assert not case.slot_exists()


def _confirmed_flush(case) -> int:
    with case.pg.connect() as c:
        return c.execute(
            "SELECT confirmed_flush_lsn - '0/0'::pg_lsn FROM pg_replication_slots WHERE slot_name = %s",
            (case.slot,),
        ).fetchone()[0]


def _current_wal(case) -> int:
    with case.pg.connect() as c:
        return c.execute("SELECT pg_current_wal_lsn() - '0/0'::pg_lsn").fetchone()[0]


def test_heartbeats_advance_slot_over_uncaptured_traffic(case):
    """Spec §2.12: with heartbeats, offsets advance and the LSN is confirmed to the server even when only
    uncaptured tables change, so the slot does not retain WAL forever."""
    s = case.schema
    case.sql(f"CREATE TABLE {s}.noise (id int PRIMARY KEY, v text);")
    case.start({"heartbeat.interval.ms": "300", "table.exclude.list": rf"{s}\.noise"})
    case.sql(f"INSERT INTO {s}.noise SELECT g, repeat('x', 100) FROM generate_series(1, 2000) g;")
    written = _current_wal(case)
    deadline = time.monotonic() + 20
    while _confirmed_flush(case) < written:
        assert time.monotonic() < deadline, (
            f"confirmed_flush_lsn {_confirmed_flush(case)} never reached {written}"
        )
        time.sleep(0.2)


def test_flush_lsn_source_false_never_confirms(case):
    s = case.schema
    case.sql(f"CREATE TABLE {s}.t (id int PRIMARY KEY);")
    cap = case.start({"flush.lsn.source": "false", "heartbeat.interval.ms": "300"})
    case.sql(f"INSERT INTO {s}.t VALUES (1);")
    r = cap.wait_for(case.topic("t"), is_op("c", id=1), 20)
    time.sleep(2)  # many offset flushes (200 ms) and heartbeats later
    assert _confirmed_flush(case) < payload(r)["source"]["lsn"]


# -- documented options the connector must honour ----------------------------------------------------------


def test_snapshot_select_statement_overrides(case):
    s = case.schema
    case.sql(
        f"CREATE TABLE {s}.t (id int PRIMARY KEY, flag int); INSERT INTO {s}.t VALUES (1, 0), (2, 1), (3, 0);"
    )
    cap = case.start(
        {
            "snapshot.select.statement.overrides": f"{s}.t",
            f"snapshot.select.statement.overrides.{s}.t": f"SELECT * FROM {s}.t WHERE flag = 0 ORDER BY id DESC",
        }
    )
    case.barrier(cap)
    assert [key(r)["id"] for r in on(cap, case.topic("t"))] == [3, 1]


def test_replica_identity_autoset_values(case):
    s = case.schema
    case.sql(f"CREATE TABLE {s}.t (id int PRIMARY KEY, v text);")
    cap = case.start({"replica.identity.autoset.values": rf"{s}\.t:FULL"})
    with case.pg.connect() as c:
        ident = c.execute(
            "SELECT relreplident FROM pg_class WHERE oid = %s::regclass", (f"{s}.t",)
        ).fetchone()[0]
    assert ident == "f"
    case.sql(f"INSERT INTO {s}.t VALUES (1, 'a'); UPDATE {s}.t SET v = 'b' WHERE id = 1;")
    u = cap.wait_for(case.topic("t"), lambda r: op(r) == "u", 20)
    assert payload(u)["before"] == {"id": 1, "v": "a"}


def test_skip_messages_without_change(case):
    s = case.schema
    case.sql(
        f"CREATE TABLE {s}.t (id int PRIMARY KEY, v text, noise text); ALTER TABLE {s}.t REPLICA IDENTITY FULL;"
    )
    cap = case.start({"skip.messages.without.change": "true", "column.exclude.list": rf"{s}\.t\.noise"})
    case.sql(f"""INSERT INTO {s}.t VALUES (1, 'a', 'n1');
                 UPDATE {s}.t SET noise = 'n2' WHERE id = 1;
                 UPDATE {s}.t SET v = 'b' WHERE id = 1;""")
    cap.wait_for(case.topic("t"), is_op("u", v="b"), 20)
    assert [op(r) for r in on(cap, case.topic("t"))] == ["c", "u"]


# -- CLI configuration errors -----------------------------------------------------------------------------------------


def _cli_props() -> dict[str, str]:
    return {
        "name": "bad",
        "connector.class": "io.debezium.connector.postgresql.PostgresConnector",
        "database.hostname": "127.0.0.1",
        "database.port": "1",
        "database.user": "postgres",
        "database.password": "x",
        "database.dbname": "postgres",
        "topic.prefix": "bad",
        "plugin.name": "pgoutput",
    }


@pytest.mark.parametrize(
    "prop, change",
    [
        ("connector.class", {"connector.class": "io.debezium.connector.nosuch.NoSuchConnector"}),
        ("topic.prefix", {"topic.prefix": None}),
        ("snapshot.mode", {"snapshot.mode": "sometimes"}),
    ],
)
def test_cli_bad_config(tmp_path, prop, change):
    props = _cli_props()
    for k, v in change.items():
        if v is None:
            props.pop(k)
        else:
            props[k] = v
    cfg = tmp_path / "bad.properties"
    write_properties(props, cfg)
    out = tmp_path / "out"
    r = subprocess.run(
        [sys.executable, "-m", "emulator", "run", str(cfg), "--out", str(out)],
        capture_output=True,
        text=True,
        timeout=60,
        cwd=Path(__file__).parent.parent,
    )
    assert r.returncode == 2, r.stderr
    lines = [x for x in r.stderr.splitlines() if x.strip()]
    assert len(lines) == 1, r.stderr
    assert prop in lines[0]
    assert not out.exists()
