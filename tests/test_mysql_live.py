"""MySqlConnector against a real Oracle MySQL server, when one is given: MYSQL_URL=mysql://user:password@host:port
(the user needs the grants Debezium documents plus CREATE/DROP to make a scratch database; the server needs
binlog_format=ROW, binlog_row_image=FULL; gtid_mode=ON is optional). Skipped otherwise: Oracle MySQL cannot
be installed on this project's machines (its code paths are unit-tested in test_mysql_flavour.py)."""

from __future__ import annotations

import os
import re
import time
import uuid
from urllib.parse import unquote, urlparse

import pytest
from emulator_proc import EmulatorProcess, snapshot_done

URL = os.environ.get("MYSQL_URL")
pytestmark = pytest.mark.skipif(
    not URL,
    reason="MYSQL_URL is not set (mysql://user:password@host:port of an Oracle MySQL 8 server); "
    "the live MySQL suite needs a server this machine cannot install",
)


@pytest.fixture(scope="module")
def mysql():
    import pymysql

    u = urlparse(URL)
    info = {
        "host": u.hostname or "127.0.0.1",
        "port": u.port or 3306,
        "user": unquote(u.username or "root"),
        "password": unquote(u.password or ""),
    }
    db = f"dbzemu_{uuid.uuid4().hex[:8]}"
    conn = pymysql.connect(**info, autocommit=True)
    with conn.cursor() as cur:
        cur.execute(f"CREATE DATABASE {db}")
        cur.execute("SELECT @@gtid_mode, VERSION()")
        gtid_mode, version = cur.fetchone()
    yield {"info": info, "db": db, "conn": conn, "gtid": str(gtid_mode).upper() == "ON", "version": version}
    with conn.cursor() as cur:
        cur.execute(f"DROP DATABASE IF EXISTS {db}")
    conn.close()


def run(conn, sql: str) -> None:
    with conn.cursor() as cur:
        for stmt in [s for s in sql.split(";") if s.strip()]:
            cur.execute(stmt)


def test_mysql_snapshot_stream_ddl(mysql, tmp_path):
    db, info, conn = mysql["db"], mysql["info"], mysql["conn"]
    run(
        conn,
        f"CREATE TABLE {db}.t (id INT PRIMARY KEY, v VARCHAR(20), d DECIMAL(8,2), ts TIMESTAMP(3) NULL);"
        f"INSERT INTO {db}.t VALUES (1, 'one', 1.50, '2024-01-01 00:00:00.123')",
    )
    props = {
        "name": "live",
        "connector.class": "io.debezium.connector.mysql.MySqlConnector",
        "database.hostname": info["host"],
        "database.port": str(info["port"]),
        "database.user": info["user"],
        "database.password": info["password"],
        "database.server.id": str(5400 + os.getpid() % 1000),
        "topic.prefix": "live",
        "database.include.list": db,
        "provide.transaction.metadata": "true",
        "schema.history.internal.file.filename": str(tmp_path / "history.dat"),
        "offset.storage.file.filename": str(tmp_path / "offsets.dat"),
    }
    emu = EmulatorProcess(props, tmp_path).start()
    try:
        emu.wait_for(snapshot_done, 120, "snapshot")
        time.sleep(1)
        run(
            conn,
            f"BEGIN; INSERT INTO {db}.t VALUES (2, 'two', -3.25, NULL); UPDATE {db}.t SET v = 'uno' WHERE id = 1;"
            f"COMMIT; ALTER TABLE {db}.t ADD COLUMN extra INT DEFAULT 5; INSERT INTO {db}.t (id) VALUES (3);"
            f"DELETE FROM {db}.t WHERE id = 2",
        )
        recs = emu.wait_for(lambda rs: sum(1 for r in rs if r["topic"] == f"live.{db}.t") >= 6, 60, "changes")
    finally:
        assert emu.stop() == 0
    data = [r["value"]["payload"] for r in recs if r["topic"] == f"live.{db}.t" and r["value"]]
    assert [p["op"] for p in data] == ["r", "c", "u", "c", "d"]
    assert data[0]["after"] == {"id": 1, "v": "one", "d": "AJY=", "ts": "2024-01-01T00:00:00.123Z"}
    assert data[3]["after"] == {"id": 3, "v": None, "d": None, "ts": None, "extra": 5}
    src = data[1]["source"]
    assert src["connector"] == "mysql" and src["thread"] is not None
    if mysql["gtid"]:
        assert re.fullmatch(r"[0-9a-f-]{36}:\d+", src["gtid"])
        assert data[1]["transaction"]["id"] == src["gtid"]
    else:
        assert data[1]["transaction"]["id"].startswith("file=")
    ddl = [
        r["value"]["payload"]
        for r in recs
        if r["topic"] == "live" and "ADD COLUMN extra" in r["value"]["payload"]["ddl"]
    ]
    assert ddl and ddl[0]["tableChanges"][0]["type"] == "ALTER"
