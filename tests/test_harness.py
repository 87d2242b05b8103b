"""The test harness users get: `Capture.start()` / `dbz_capture` return once the connector streams, the
`dbz_postgres` / `dbz_mariadb` fixtures, failures reported at once and in words, slots and publications
cleaned up, and the Debezium-terms assertion helpers."""

from __future__ import annotations

import socket
import time

import pytest

from emulator.api import Capture, CaptureError, Change, assert_change

ROUNDS = 20


def _slots(db) -> set[str]:
    with db.connect() as c:
        return {r[0] for r in c.execute("SELECT slot_name FROM pg_replication_slots")}


def _publications(db) -> set[str]:
    with db.connect() as c:
        return {r[0] for r in c.execute("SELECT pubname FROM pg_publication")}


@pytest.fixture(scope="module")
def pg(dbz_postgres):
    dbz_postgres.execute("CREATE TABLE IF NOT EXISTS public.race (id int PRIMARY KEY, note text)")
    dbz_postgres.execute("INSERT INTO public.race VALUES (0, 'seed') ON CONFLICT DO NOTHING")
    return dbz_postgres


@pytest.mark.parametrize("mode", ["initial", "no_data"])
def test_change_right_after_start_is_a_create_every_time_pg(pg, mode):
    """Before the fix this passed 2 of 20 times: start() returned before the slot and snapshot existed,
    so the insert was read by the snapshot (op=r) or missed."""
    ops = []
    for i in range(1, ROUNDS + 1):
        row = 1000 * (mode == "no_data") + i
        props = pg.connector_properties(
            **{
                "slot.name": f"race_{mode}_{i}",
                "publication.name": f"race_{i}_pub",
                "snapshot.mode": mode,
                "table.include.list": "public.race",
            }
        )
        with Capture(props, cleanup=True) as cap:
            pg.execute("INSERT INTO public.race VALUES (%s, 'after start')", (row,))
            rec = cap.wait_for(
                "dbserver1.public.race",
                lambda r, row=row: (r["value"]["payload"]["after"] or {}).get("id") == row,
                timeout=60,
            )
            ops.append(rec["value"]["payload"]["op"])
            if mode == "initial":  # the snapshot is complete and readable when start() returns
                assert_change(cap.changes("public.race", op="r")[0], op="r", after={"id": 0, "note": "seed"})
    assert ops == ["c"] * ROUNDS
    assert not {s for s in _slots(pg) if s.startswith("race_")}  # cleanup dropped every slot


def test_change_right_after_start_is_a_create_every_time_mariadb(dbz_mariadb):
    db = dbz_mariadb
    db.execute("CREATE TABLE IF NOT EXISTS race (id int PRIMARY KEY, note varchar(20))")
    db.execute("INSERT IGNORE INTO race VALUES (0, 'seed')")
    ops = []
    for i in range(1, ROUNDS + 1):
        with Capture(db.connector_properties(**{"table.include.list": "app.race"})) as cap:
            db.execute("INSERT INTO race VALUES (%s, 'after start')", (i,))
            ch = cap.wait_for_change("app.race", after={"id": i}, timeout=60)
            ops.append(ch.op)
            assert cap.changes("app.race", op="r")[0].after == {"id": 0, "note": "seed"}
    assert ops == ["c"] * ROUNDS


def test_fixtures_yield_connection_information(dbz_postgres, dbz_mariadb):
    pg, my = dbz_postgres, dbz_mariadb
    assert str(pg).startswith("postgresql://postgres@127.0.0.1:") and str(pg).endswith("/postgres")
    assert pg.env["PGPORT"] == str(pg.port) and pg.env["PGDATABASE"] == "postgres"
    with pg.connect() as c:
        assert c.execute("SHOW wal_level").fetchone()[0] == "logical"
    assert str(my) == f"mysql://debezium:dbz@127.0.0.1:{my.port}/app"
    assert my.env["MYSQL_TCP_PORT"] == str(my.port) and my.env["MYSQL_DATABASE"] == "app"
    conn = my.connect()
    with conn.cursor() as cur:
        cur.execute("SELECT @@binlog_format, @@binlog_row_image, DATABASE()")
        assert cur.fetchone() == ("ROW", "FULL", "app")
    conn.close()


def test_dbz_capture_with_a_database_and_cleanup(pg, dbz_capture):
    before_slots, before_pubs = _slots(pg), _publications(pg)
    cap = dbz_capture(pg, **{"table.include.list": "public.race", "snapshot.mode": "no_data"})
    slot = cap.config.get("slot.name")
    assert slot in _slots(pg) - before_slots
    pg.execute("UPDATE public.race SET note = 'changed' WHERE id = 0")
    ch = cap.wait_for_change("public.race", op="u", timeout=30)
    assert ch.after == {"id": 0, "note": "changed"} and ch.table == "public.race"
    cap.stop()
    assert _slots(pg) == before_slots and _publications(pg) == before_pubs


def test_cleanup_keeps_what_existed_before(pg):
    with pg.connect() as c:
        c.execute("SELECT pg_create_logical_replication_slot('kept_slot', 'pgoutput')")
        c.execute("CREATE PUBLICATION kept_pub FOR ALL TABLES")
    props = pg.connector_properties(
        **{"slot.name": "kept_slot", "publication.name": "kept_pub", "snapshot.mode": "no_data"}
    )
    with Capture(props, cleanup=True):
        pass
    assert "kept_slot" in _slots(pg) and "kept_pub" in _publications(pg)
    with pg.connect() as c:
        c.execute("SELECT pg_drop_replication_slot('kept_slot')")
        c.execute("DROP PUBLICATION kept_pub")


def _closed_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]  # closed again when we return: nothing listens there


def test_unreachable_database_is_said_at_once(pg):
    port = _closed_port()
    props = pg.connector_properties(**{"database.port": str(port), "slot.name": "unreach"})
    t0 = time.monotonic()
    with pytest.raises(CaptureError, match=rf"cannot reach the database at 127\.0\.0\.1:{port}: "):
        Capture(props).start(timeout=300)
    assert time.monotonic() - t0 < 60  # not the 300 s start timeout: the first failure is reported
    cap = Capture(props).start(wait=False)
    try:
        with pytest.raises(CaptureError, match="cannot reach the database") as err:
            cap.wait_for("dbserver1.public.race", timeout=300)
        assert "arrived" not in str(err.value)
    finally:
        cap.stop()


def test_connector_error_is_raised_by_start_and_wait_for(pg):
    props = pg.connector_properties(
        **{"slot.name": "fails", "publication.name": "absent_pub", "publication.autocreate.mode": "disabled"}
    )
    with pytest.raises(CaptureError, match="connector failed: .*absent_pub"):
        Capture(props).start()
    cap = Capture(props).start(wait=False)
    try:
        with pytest.raises(CaptureError, match="absent_pub"):
            cap.wait_for("dbserver1.public.race", timeout=300)
    finally:
        cap.stop()


def test_server_error_being_retried_is_not_called_unreachable(pg):
    """psycopg classes some server answers as OperationalError, which the runner retries; start() still says
    what the server said (here: a filtered publication whose name is taken by a FOR ALL TABLES one)."""
    with pg.connect() as c:
        c.execute("CREATE PUBLICATION all_pub FOR ALL TABLES")
    props = pg.connector_properties(
        **{
            "slot.name": "filtered",
            "publication.name": "all_pub",
            "publication.autocreate.mode": "filtered",
            "table.include.list": "public.race",
        }
    )
    try:
        with pytest.raises(CaptureError) as err:
            Capture(props).start()
        assert str(err.value).startswith("connector failed: ") and "all_pub" in str(err.value), err.value
    finally:
        with pg.connect() as c:
            c.execute("DROP PUBLICATION all_pub")


# -- assertion helpers, on hand-written records --------------------------------------------------------------
def _record(op, before, after, topic="dbserver1.public.orders"):
    return {
        "topic": topic,
        "key": {"payload": {"id": 1}, "schema": {}},
        "value": {
            "schema": {},
            "payload": {
                "op": op,
                "before": before,
                "after": after,
                "source": {"schema": "public", "table": "orders"},
            },
        },
    }


def test_assert_change_matches_listed_columns():
    rec = _record("u", {"id": 1, "qty": 1}, {"id": 1, "qty": 2})
    ch = assert_change(rec, op="u", before={"qty": 1}, after={"qty": 2}, key={"id": 1})
    assert isinstance(ch, Change) and ch.table == "public.orders" and ch.key == {"id": 1}
    assert_change(rec, after={"id": 1, "qty": 2}, exact=True)


def test_assert_change_says_what_differs():
    rec = _record("r", None, {"id": 1, "qty": 2})
    with pytest.raises(AssertionError) as err:
        assert_change(rec, op="c", after={"qty": 3})
    msg = str(err.value)
    assert "op is 'r' (read (snapshot)), expected 'c' (create)" in msg
    assert "after['qty'] is 2, expected 3" in msg
    with pytest.raises(AssertionError, match="before is None, expected"):
        assert_change(rec, before={"id": 1})
    with pytest.raises(AssertionError, match=r"columns not expected: \['qty'\]"):
        assert_change(rec, after={"id": 1}, exact=True)
    with pytest.raises(AssertionError, match="not a change event"):
        assert_change({"topic": "t", "key": None, "value": None})
