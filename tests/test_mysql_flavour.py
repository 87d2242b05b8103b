"""MySqlConnector code paths for Oracle MySQL 8, which cannot be installed here: binlog events in MySQL's
shapes (GTID event, `BEGIN` query with the thread id, table map, WRITE/UPDATE_ROWS v2, XID, DDL after its
GTID) fed to the connector's event handler, and the records checked against the shapes Debezium's
MySqlConnector recorded (`tests/data/mariadb/mariadb_via_mysql_connector.jsonl`): schema names, source
fields, transaction ids `uuid:N` or `file=...,pos=...`."""

from __future__ import annotations

import json
import struct
from pathlib import Path
from types import SimpleNamespace

import pytest

from emulator.config import load_config
from emulator.connectors.mysql import binlog as bl
from emulator.connectors.mysql.connector import MySqlConnector
from emulator.connectors.mysql.gtid import MySqlGtidSet
from emulator.engine import Engine
from emulator.offsets import MemoryOffsetStore
from emulator.outputs.memory import CallbackOutput

DATA = Path(__file__).parent / "data" / "mariadb"
UUID = "3e11fa47-71ca-11e1-9e33-c80aa9429562"


def golden(name: str = "mariadb_via_mysql_connector.jsonl") -> list[dict]:
    return [json.loads(x) for x in (DATA / name).read_text().splitlines() if x.strip()]


def packet(etype: int, body: bytes, pos: int, ts: int = 1_700_000_000, server_id: int = 1) -> bytes:
    size = 19 + len(body)
    return b"\x00" + struct.pack("<IBIIIH", ts, etype, server_id, size, pos + size, 0) + body


def table_map(table_id: int, db: str, table: str, types: bytes, meta: bytes) -> bytes:
    return (
        table_id.to_bytes(6, "little")
        + b"\x01\x00"
        + bytes([len(db)])
        + db.encode()
        + b"\x00"
        + bytes([len(table)])
        + table.encode()
        + b"\x00"
        + bytes([len(types)])
        + types
        + bytes([len(meta)])
        + meta
        + b"\x00"
    )


def rows_v2(table_id: int, ncols: int, rows: list[bytes], images: int = 1) -> bytes:
    bitmap = ((1 << ncols) - 1).to_bytes((ncols + 7) // 8, "little")
    return (
        table_id.to_bytes(6, "little")
        + b"\x01\x00"
        + b"\x02\x00"
        + bytes([ncols])
        + bitmap * images
        + b"".join(rows)
    )


def customers_row(i: int, first: str, last: str, email: str) -> bytes:
    out = b"\x00" + i.to_bytes(4, "little", signed=True)
    for s in (first, last, email):
        b = s.encode()
        out += len(b).to_bytes(2, "little") + b  # VARCHAR(255) utf8mb4: 1020 bytes max -> 2-byte length
    return out


@pytest.fixture
def connector(tmp_path):
    props = {
        "name": "t",
        "connector.class": "io.debezium.connector.mysql.MySqlConnector",
        "database.hostname": "127.0.0.1",
        "database.port": "3306",
        "database.user": "u",
        "database.server.id": "184054",
        "topic.prefix": "dbserver1",
        "database.include.list": "inventory",
        "provide.transaction.metadata": "true",
        "include.schema.changes": "true",
        "schema.history.internal.file.filename": str(tmp_path / "h.dat"),
    }
    p = tmp_path / "c.properties"
    p.write_text("".join(f"{k}={v}\n" for k, v in props.items()))
    out = SimpleNamespace(records=[])
    engine = Engine(CallbackOutput(out.records.append), MemoryOffsetStore())
    c = MySqlConnector(load_config(str(p)), engine)
    c.mariadb_server = False
    c.server_version = "8.0.36"
    c.snapshot_done = True
    c.file, c.next_pos = "mysql-bin.000003", 4
    c.gtids = MySqlGtidSet(f"{UUID}:1-22")
    ddl = golden()[11]["value"]["payload"]["ddl"]  # SHOW CREATE TABLE customers, as recorded
    c.parser.apply(ddl, "inventory")
    return c, out


CUSTOMER_TYPES = bytes([bl.T_LONG, bl.T_VARCHAR, bl.T_VARCHAR, bl.T_VARCHAR])
CUSTOMER_META = (1020).to_bytes(2, "little") * 3


def records(out) -> list[dict]:
    return [r.to_dict() for r in out.records]


def test_mysql8_transaction_with_gtid(connector):
    c, out = connector
    h = c.handle_event
    # GTID event with original_commit_timestamp (MySQL >= 8.0.1): the source ts, truncated to ms
    original_us = 1_700_000_123_456_789
    gtid_body = (
        b"\x00"
        + bytes(16)
        + (23).to_bytes(8, "little")
        + b"\x02"
        + bytes(16)
        + ((original_us + 5) | 1 << 55).to_bytes(7, "little")
        + original_us.to_bytes(7, "little")
    )
    h(bl.MYSQL_GTID, packet(bl.MYSQL_GTID, gtid_body, 1000), SimpleNamespace(gtid=f"{UUID}:23"), 0)
    h(
        bl.QUERY,
        packet(bl.QUERY, b"", 1079),
        SimpleNamespace(query="BEGIN", schema=b"inventory", slave_proxy_id=42),
        0,
    )
    h(
        bl.TABLE_MAP,
        packet(bl.TABLE_MAP, table_map(91, "inventory", "customers", CUSTOMER_TYPES, CUSTOMER_META), 1160),
        None,
        0,
    )
    body = rows_v2(91, 4, [customers_row(1036, "Sarah", "Connor", "sarah@skynet.com")])
    h(bl.WRITE_V2, packet(bl.WRITE_V2, body, 1240), None, 0)
    assert c.offset()["file"] == "mysql-bin.000003" and c.offset()["pos"] == 1000 and c.offset()["event"] == 1
    h(bl.XID, packet(bl.XID, b"\x01" + b"\x00" * 7, 1320), SimpleNamespace(xid=1), 0)
    recs = records(out)
    assert [r["topic"] for r in recs] == [
        "dbserver1.transaction",
        "dbserver1.inventory.customers",
        "dbserver1.transaction",
    ]
    begin, change, end = recs
    assert begin["value"]["payload"]["id"] == f"{UUID}:23"
    assert end["value"]["payload"]["event_count"] == 1
    pl = change["value"]["payload"]
    assert pl["after"] == {
        "id": 1036,
        "first_name": "Sarah",
        "last_name": "Connor",
        "email": "sarah@skynet.com",
    }
    src = pl["source"]
    assert (src["connector"], src["gtid"], src["thread"], src["file"], src["pos"], src["server_id"]) == (
        "mysql",
        f"{UUID}:23",
        42,
        "mysql-bin.000003",
        1240,
        1,
    )
    assert pl["transaction"] == {"id": f"{UUID}:23", "total_order": 1, "data_collection_order": 1}
    assert (src["ts_ms"], src["ts_us"]) == (1_700_000_123_456, 1_700_000_123_456_000)
    # the same schemas and header names as Debezium's MySqlConnector recorded
    rec = next(
        r
        for r in golden()
        if r["topic"] == "dbserver1.inventory.customers" and r["value"] and r["value"]["payload"]["op"] == "c"
    )
    assert change["value"]["schema"] == rec["value"]["schema"]
    assert change["key"] == rec["key"]
    assert [h[0] for h in change["headers"]] == [h[0] for h in rec["headers"]]
    assert change["headers"][2][1]["payload"] == "mysql"
    off = c.offset()
    assert off["gtids"] == f"{UUID}:1-23" and off["pos"] == 1320 + 19 + 8 and "event" not in off


def test_mysql_without_gtids_uses_file_pos_ids_and_ddl(connector):
    c, out = connector
    c.gtids = None
    h = c.handle_event
    h(
        bl.QUERY,
        packet(bl.QUERY, b"", 500),
        SimpleNamespace(query="BEGIN", schema=b"inventory", slave_proxy_id=7),
        0,
    )
    h(
        bl.TABLE_MAP,
        packet(bl.TABLE_MAP, table_map(91, "inventory", "customers", CUSTOMER_TYPES, CUSTOMER_META), 580),
        None,
        0,
    )
    before = customers_row(1004, "Anne", "Kretchmar", "annek@noanswer.org")
    after = customers_row(1004, "Anne Marie", "Kretchmar", "annek@noanswer.org")
    h(bl.UPDATE_V2, packet(bl.UPDATE_V2, rows_v2(91, 4, [before + after], images=2), 660), None, 0)
    h(bl.XID, packet(bl.XID, b"\x02" + b"\x00" * 7, 800), SimpleNamespace(xid=2), 0)
    recs = records(out)
    assert recs[0]["value"]["payload"]["id"] == "file=mysql-bin.000003,pos=500"
    upd = recs[1]["value"]["payload"]
    assert upd["op"] == "u" and upd["before"]["first_name"] == "Anne" and upd["source"]["gtid"] is None
    # a DDL right after: a schema change event on the prefix topic, no transaction records
    n = len(out.records)
    h(
        bl.QUERY,
        packet(bl.QUERY, b"", 900),
        SimpleNamespace(
            query="ALTER TABLE customers ADD COLUMN phone VARCHAR(32) NULL DEFAULT 'n/a'",
            schema=b"inventory",
            slave_proxy_id=7,
        ),
        0,
    )
    new = records(out)[n:]
    assert [r["topic"] for r in new] == ["dbserver1"]
    ours = new[0]["value"]
    rec = next(
        r
        for r in golden()
        if r["topic"] == "dbserver1" and r["value"]["payload"]["ddl"].startswith("ALTER TABLE customers")
    )["value"]
    assert ours["schema"] == rec["schema"]
    assert ours["payload"]["tableChanges"] == rec["payload"]["tableChanges"]
    assert new[0]["key"]["payload"] == {"databaseName": "inventory"}
    assert ours["payload"]["source"]["pos"] == 900 and ours["payload"]["source"]["table"] == "customers"


def test_binary_log_status_statement_by_version(connector):
    c, _ = connector
    c.server_version = "8.4.2"
    assert c._uses_binary_log_status()
    c.server_version = "8.0.36"
    assert not c._uses_binary_log_status()
    c.mariadb_server, c.server_version = True, "10.11.19-MariaDB"
    assert not c._uses_binary_log_status()


def test_mysql_json_binary_values():
    from emulator.connectors.mysql.ddl import Catalog, DdlParser
    from emulator.connectors.mysql.types import TypeConfig, map_column

    p = DdlParser(Catalog())
    p.apply("CREATE TABLE j (id INT PRIMARY KEY, doc JSON)", "d")
    m = map_column(p.catalog.get("d", "j").column("doc"), TypeConfig())
    assert m.schema.name == "io.debezium.data.Json"
    # MySQL binary JSON: small object {"a": 1}
    obj = bytes([0x00, 0x01, 0x00, 0x0C, 0x00, 0x0B, 0x00, 0x01, 0x00, 0x05, 0x01, 0x00]) + b"a"
    assert json.loads(m.convert(obj)) == {"a": 1}
    assert m.snapshot_convert('{"a": 1}') == '{"a": 1}'
