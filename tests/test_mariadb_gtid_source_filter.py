"""`gtid.source.includes` / `gtid.source.excludes` with `gtid.source.filter.dml.events` on a real MariaDB.

Debezium 3.6.3's MariaDbConnector (MariaDbStreamingChangeEventSource.handleGtidEvent, read in debezium/debezium at
v3.6.1.Final; the server id comes from the event header: BinaryLogClient sets it on the MariadbGtidEventData,
checked in mysql-binlog-connector-java 0.41.2) skips the rows of a transaction whose `domain-server` the filter
rejects, unless `gtid.source.filter.dml.events=false`; positioning keeps the GTID set's `domain-server` streams
the filter accepts (MariaDbGtidSet.retainAll). The MySqlConnector does not read a MariaDB server's GTID events, so
no row is filtered there. Not recordable here (the MariaDbConnector's jars are in no reachable registry): the
expected rows are the workload's, written by hand from that source.
"""

from __future__ import annotations

import re

import pytest

from emulator.api import Capture
from emulator.connectors.mysql.gtid import MariaGtidSet, source_filter
from emulator.testing import mariadbserver

pytestmark = pytest.mark.skipif(
    not mariadbserver.available(),
    reason="MariaDB server binaries not installed (scripts/setup.sh installs them)",
)


@pytest.fixture(scope="module")
def db():
    with mariadbserver.MariaDbServer() as server:
        yield server


def _ids(cap: Capture, name: str) -> list[int]:
    return [
        r["value"]["payload"]["after"]["id"]
        for r in cap.seen
        if r["topic"] == f"p.{name}.a" and r["value"] is not None and r["value"]["payload"]["op"] == "c"
    ]


@pytest.mark.parametrize(
    "connector,extra,expected",
    [
        # domain 5's transaction is filtered out: its row is not emitted, domain 0's are
        ("mariadb", {"gtid.source.includes": "0-.*"}, [10, 12]),
        ("mariadb", {"gtid.source.excludes": "5-1"}, [10, 12]),
        # the include list names domain-server: a domain alone matches no source
        ("mariadb", {"gtid.source.includes": "0"}, []),
        ("mariadb", {"gtid.source.includes": "0-.*", "gtid.source.filter.dml.events": "false"}, [10, 11, 12]),
        ("mysql", {"gtid.source.includes": "0-.*"}, [10, 11, 12]),
    ],
)
def test_rows_of_filtered_gtid_sources(db, tmp_path, connector, extra, expected):
    name = f"gs{abs(hash((connector, tuple(sorted(extra.items()))))) % 10**8}"
    db.sql(f"CREATE DATABASE {name}")
    db.sql("CREATE TABLE a (id INT PRIMARY KEY); CREATE TABLE m (id INT PRIMARY KEY)", name)
    props = db.connector_properties(
        connector,
        **{
            "database.include.list": name,
            "topic.prefix": "p",
            "schema.history.internal.file.filename": str(tmp_path / "history.dat"),
            **extra,
        },
    )
    cap = Capture(props).start()
    try:
        db.sql("INSERT INTO a VALUES (10)", name)
        db.sql(
            "SET SESSION gtid_domain_id = 5; INSERT INTO a VALUES (11); SET SESSION gtid_domain_id = 0", name
        )
        db.sql("INSERT INTO a VALUES (12)", name)
        # a DDL then a row of domain 0: the stream has read past domain 5's transaction when it arrives
        db.sql("ALTER TABLE m ADD COLUMN v INT; INSERT INTO m VALUES (1, 1)", name)
        if expected:
            cap.wait_for(f"p.{name}.a", lambda r: r["value"]["payload"]["after"]["id"] == expected[-1], 60)
        cap.wait_for("p", lambda r: "ALTER TABLE" in (r["value"]["payload"].get("ddl") or ""), 60)
    finally:
        cap.stop()
    assert _ids(cap, name) == expected


def test_positioning_filter_tests_domain_server():
    """MariaDbGtidSet.retainAll tests each stream's `domain-server`."""
    gset = MariaGtidSet("0-1-5,5-1-2,0-2-9")
    assert str(gset) == "0-2-9,5-1-2"  # one position per domain: the last added
    assert str(MariaGtidSet("0-1-5,5-1-2").filtered([re.compile("0-1")], None)) == "0-1-5"
    assert str(MariaGtidSet("0-1-5,5-1-2").filtered(None, [re.compile("5-.*")])) == "0-1-5"
    assert str(MariaGtidSet("0-1-5,5-1-2").filtered([re.compile("0")], None)) == ""
    keep = source_filter([re.compile("0-1")], [re.compile("0-1")], True)
    assert keep is not None and keep("0-1") and not keep("5-1")  # the include list wins
    assert source_filter([re.compile("0-1")], None, False) is None
    assert source_filter(None, None, True) is None
