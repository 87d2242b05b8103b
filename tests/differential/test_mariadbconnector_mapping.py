"""The `mariadbconnector` backend compares the emulator as the MariaDbConnector with Debezium's
MySqlConnector recording mapped to the MariaDbConnector's documented shapes. The mapping is checked here
against two real recordings of one workload: tests/data/mariadb/mariadb_public.jsonl (Debezium's
MariaDbConnector) and mariadb_via_mysql_connector.jsonl (its MySqlConnector against the same server, version
string spoofed). No JVM, no server."""

from __future__ import annotations

import gzip
import shutil
from pathlib import Path

import pytest

from emulator.testing import mariadbserver
from emulator.testing.conformance import compare, load_dir, load_golden
from emulator.testing.differential import Workload, backend, diff
from emulator.testing.differential_mariadb import as_mariadb_connector

DATA = Path(__file__).resolve().parents[1] / "data" / "mariadb"


def test_mapped_mysqlconnector_recording_equals_the_mariadbconnector_recording():
    be = backend("mariadbconnector")
    mysql = load_golden(DATA / "mariadb_via_mysql_connector.jsonl")
    mariadb = load_golden(DATA / "mariadb_public.jsonl")
    compared, problems = compare(*be.comparable(mysql, mariadb), mask_positions=True, max_report=20)
    assert compared > 100
    assert problems == []


def test_the_recordings_differ_without_the_mapping():
    """The test above can fail: unmapped, the two connectors' records differ."""
    mysql = load_golden(DATA / "mariadb_via_mysql_connector.jsonl")
    mariadb = load_golden(DATA / "mariadb_public.jsonl")
    _, problems = compare(mysql, mariadb, mask_positions=True, max_report=1000)
    assert any("source/connector" in p or "schema" in p for p in problems)
    assert any(p.startswith("dbserver1.transaction[") for p in problems)


def test_one_record_mapped():
    src_schema = {
        "type": "struct",
        "fields": [],
        "optional": False,
        "name": "io.debezium.connector.mysql.Source",
    }
    rec = {
        "key": None,
        "value": {
            "schema": {"type": "struct", "fields": [{**src_schema, "field": "source"}], "name": "t.Envelope"},
            "payload": {"source": {"connector": "mysql", "gtid": None}, "transaction": None, "op": "c"},
        },
        "headers": [["__debezium.context.connectorName", {"schema": {"type": "string"}, "payload": "mysql"}]],
    }
    out = as_mariadb_connector(rec, from_mysql=True)
    assert out["value"]["schema"]["fields"][0]["name"] == "io.debezium.connector.mariadb.Source"
    assert out["value"]["payload"]["source"]["connector"] == "mariadb"
    assert out["headers"][0][1]["payload"] == "mariadb"
    ours = {
        "value": {
            "payload": {"source": {"connector": "mariadb", "gtid": "0-1-7"}, "transaction": {"id": "x"}}
        }
    }
    ours = as_mariadb_connector(ours, from_mysql=False)
    assert ours["value"]["payload"] == {"source": {"connector": "mariadb", "gtid": None}, "transaction": None}


@pytest.mark.skipif(not mariadbserver.available(), reason="MariaDB server binaries not installed")
@pytest.mark.parametrize(
    ("case", "records"),
    [
        ("ddl_routines_views_users_indexes", 11),
        ("names_adjust_avro", 11),
        # a rows event failing on its second row: its first row emitted (as the MySqlConnector, recorded)
        ("time_connect_required_fails_mid_event", 11),
    ],
)
def test_recorded_case_replayed_as_the_mariadbconnector(case, records, tmp_path):
    """A MySqlConnector recording replayed with connector.class=...MariaDbConnector (a throwaway MariaDB,
    no JVM): equal after the mapping. The first case holds the DDL forms whose model the two connectors
    share (CREATE INDEX / ALTER DATABASE / EVENT, ALTER ... CHARSET=, generated columns)."""
    src = DATA / "cases" / case
    rec = tmp_path / "rec"
    rec.mkdir()
    (rec / "golden.jsonl").write_bytes(gzip.decompress((src / "golden.jsonl.gz").read_bytes()))
    shutil.copy(src / "golden.meta.json", rec / "golden.meta.json")
    res = diff(
        "mariadbconnector", Workload.load(src / "workload.sql"), tmp_path / "run", golden=rec / "golden.jsonl"
    )
    assert res.compared >= records
    assert not res.mismatch, res.summary() + "\n" + "\n".join(res.problems[:10])
    ours = load_dir(tmp_path / "run" / "emulator")
    assert any(r["value"]["payload"]["source"]["connector"] == "mariadb" for r in ours["dbserver1"])


def test_include_query_and_another_transaction_topic_are_left_out_of_the_mapped_comparison():
    """Campaign seed 73000 (include.query=true): MariaDB sends ANNOTATE_ROWS events only to a MariaDB replica,
    so the MySqlConnector's recording has `source.query` null where the MariaDbConnector has the statement; and
    topic.transaction=txn names the transaction topic otherwise (the MariaDbConnector's GTID transactions are not
    comparable with the spoofed recording's)."""
    be = backend("mariadbconnector")

    def row(query, txid):
        value = {"schema": {}, "payload": {"op": "c", "source": {"connector": "mysql", "query": query}}}
        tx_key = {
            "schema": {"name": "io.debezium.connector.common.TransactionMetadataKey"},
            "payload": {"id": txid},
        }
        return {
            "dbserver1.inventory.t": [{"topic": "dbserver1.inventory.t", "key": None, "value": value}],
            "dbserver1.txn": [{"topic": "dbserver1.txn", "key": tx_key, "value": {"payload": {"id": txid}}}],
        }

    mysql, ours = row(None, "file=binlog.000002,pos=1"), row("INSERT INTO t VALUES (1)", "0-1-5")
    ours["dbserver1.inventory.t"][0]["value"]["payload"]["source"]["connector"] = "mariadb"
    assert compare(*be.comparable(mysql, ours)) == (1, [])


def test_snapshot_timestamps_compare_without_trailing_fraction_zeros():
    """Campaign seed 79011: a TIMESTAMP(3) snapshot row of .000 is `...05Z` in the MySqlConnector recording and
    `...05.000Z` from the emulator as the MariaDbConnector; only op `r` ZonedTimestamp fields are trimmed."""
    from emulator.testing.differential_mariadb import trim_snapshot_timestamps

    def rec(op: str, ts: str) -> dict:
        fields = [{"field": "ts", "name": "io.debezium.time.ZonedTimestamp"}, {"field": "s"}]
        schema = {"fields": [{"field": "after", "fields": fields}]}
        return {"value": {"schema": schema, "payload": {"op": op, "after": {"ts": ts, "s": "1.000Z"}}}}

    after = trim_snapshot_timestamps(rec("r", "2024-01-02T03:04:05.000Z"))["value"]["payload"]["after"]
    assert after == {"ts": "2024-01-02T03:04:05Z", "s": "1.000Z"}
    after = trim_snapshot_timestamps(rec("r", "2024-01-02T03:04:05.120Z"))["value"]["payload"]["after"]
    assert after["ts"] == "2024-01-02T03:04:05.12Z"
    streamed = trim_snapshot_timestamps(rec("c", "2024-01-02T03:04:05.000Z"))["value"]["payload"]["after"]
    assert streamed["ts"] == "2024-01-02T03:04:05.000Z"
