"""The in-process API (`emulator.api.Capture`) and the pytest plugin's `dbz_capture` fixture, on a
throwaway PostgreSQL server."""

from __future__ import annotations

import re
import time

import pytest

from emulator.api import Capture
from emulator.testing.pgserver import PgServer


@pytest.fixture(scope="module")
def pg():
    with PgServer() as server:
        server.psql(
            "CREATE TABLE public.orders (id int PRIMARY KEY, item text NOT NULL);"
            "INSERT INTO public.orders VALUES (1, 'seed');"
        )
        yield server


def _props(pg: PgServer, name: str, **extra: str) -> dict[str, str]:
    props = pg.connector_properties(
        **{"topic.prefix": name, "slot.name": name, "publication.name": f"{name}_pub"}
    )
    props.update(extra)
    return props


def _payload(r: dict) -> dict:
    return r["value"]["payload"]


def _drop_slot(pg: PgServer, slot: str) -> None:
    with pg.connect() as c:
        c.execute(
            "SELECT pg_drop_replication_slot(slot_name) FROM pg_replication_slots "
            "WHERE slot_name = %s AND NOT active",
            (slot,),
        )


def test_capture_wait_for_success(pg):
    with Capture(_props(pg, "api_ok")) as cap:
        snap = cap.wait_for("api_ok.public.orders", lambda r: _payload(r)["op"] == "r", timeout=30)
        assert snap["key"]["payload"] == {"id": 1}
        assert _payload(snap)["after"] == {"id": 1, "item": "seed"}
        pg.psql("INSERT INTO public.orders VALUES (100, 'api');")
        rec = cap.wait_for(
            "api_ok.public.orders",
            lambda r: _payload(r)["op"] == "c" and _payload(r)["after"]["id"] == 100,
            timeout=30,
        )
        assert rec["topic"] == "api_ok.public.orders"
        assert _payload(rec)["after"] == {"id": 100, "item": "api"}
        assert _payload(rec)["source"]["connector"] == "postgresql"
        # already-seen records match at once
        assert cap.wait_for("api_ok.public.orders", lambda r: _payload(r)["op"] == "r", timeout=0.1) is snap
    _drop_slot(pg, "api_ok")


def test_capture_wait_for_timeout_lists_what_arrived(pg):
    with Capture(_props(pg, "api_to")) as cap:
        cap.wait_for("api_to.public.orders", lambda r: _payload(r)["op"] == "r", timeout=30)
        with pytest.raises(AssertionError) as err:
            cap.wait_for("api_to.public.orders", lambda r: _payload(r)["op"] == "d", timeout=1.0)
    msg = str(err.value)
    assert "api_to.public.orders" in msg
    assert re.search(r"\b1 s\b|1\.0 s", msg), msg  # says how long it waited
    assert re.search(r"\b\d+ arrived", msg), msg
    assert "op=r" in msg and "seed" in msg, msg  # lists what did arrive
    _drop_slot(pg, "api_to")


def test_capture_failure_is_raised_to_the_reader(pg):
    cap = Capture(_props(pg, "api_fail", **{"publication.autocreate.mode": "disabled"})).start(wait=False)
    try:
        with pytest.raises(RuntimeError, match="api_fail_pub"):
            cap.wait_for("api_fail.public.orders", timeout=30)
    finally:
        cap.stop()


def test_a_failure_is_raised_even_when_the_output_closes_first(pg):
    """The runner closes its output before the capture thread records the error that ended it; under load
    the reader saw the end of the stream first and reported "no record arrived" (CI, stop 27). A slow
    connection close widens that window to a second."""
    cap = Capture(_props(pg, "api_fail_late", **{"publication.autocreate.mode": "disabled"}))
    close = cap.runner._close_connector

    def slow_close() -> None:
        time.sleep(1.0)
        close()

    cap.runner._close_connector = slow_close
    cap.start(wait=False)
    try:
        with pytest.raises(RuntimeError, match="api_fail_late_pub"):
            cap.wait_for("api_fail_late.public.orders", timeout=30)
    finally:
        cap.stop()


def test_dbz_capture_fixture_with_dsn(pg, dbz_capture):
    cap = dbz_capture(
        pg.dsn,
        **{"slot.name": "api_fixture", "publication.name": "api_fixture_pub", "snapshot.mode": "no_data"},
    )
    assert cap.config.get("topic.prefix") == "dbserver1"
    # no snapshot: wait until the slot exists, then every later commit is captured
    deadline = time.monotonic() + 30
    while True:
        with pg.connect() as c:
            if c.execute("SELECT 1 FROM pg_replication_slots WHERE slot_name = 'api_fixture'").fetchone():
                break
        assert time.monotonic() < deadline and cap.error is None, cap.error
        time.sleep(0.05)
    pg.psql("INSERT INTO public.orders VALUES (200, 'fixture');")
    rec = cap.wait_for("dbserver1.public.orders", lambda r: _payload(r)["after"]["id"] == 200, timeout=30)
    assert _payload(rec)["op"] == "c"
    assert rec["key"]["payload"] == {"id": 200}


def test_an_unreachable_mongodb_is_named_without_its_credentials() -> None:
    from emulator.api import describe_failure
    from emulator.config import from_dict

    config = from_dict(
        {
            "connector.class": "io.debezium.connector.mongodb.MongoDbConnector",
            "topic.prefix": "m",
            "mongodb.connection.string": "mongodb://bob:s3cret@h1:27017,h2/?replicaSet=rs0",
        }
    )
    assert describe_failure(config, ConnectionError("refused")) == (
        "cannot reach the database at mongodb://h1:27017,h2/?replicaSet=rs0: ConnectionError: refused"
    )
