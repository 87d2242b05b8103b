"""With `provide.transaction.metadata=true` the binlog rows made straight into their lines
(emulator/connectors/mysql/stream_lines.py `_lines`) hold the same transaction block, and the transaction topic
the same BEGIN/END records, as the row-dict path (the dispatcher's `event_block`).

Real binlog events of two tables in four transactions (multi-row statements, both tables interleaved, an UPDATE
that changes the key, deletes with their tombstones) are read from a throwaway MariaDB and replayed through a
MariaDbConnector twice: with the line decoders and with them refused. Every topic must hold the same records but
for the processing times; the blocks' orders are also checked against the counts the workload gives (Debezium's
TransactionContext: `total_order` counts the transaction's events, `data_collection_order` its events of that
table; a tombstone carries no block)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from binlog_events import read_events

from emulator.config import load_config
from emulator.connectors.mysql import stream, stream_lines
from emulator.connectors.mysql.connector import MariaDbConnector
from emulator.engine import Engine
from emulator.offsets import MemoryOffsetStore
from emulator.outputs.directory import DirectoryOutput
from emulator.records import Record
from emulator.testing import mariadbserver

pytestmark = pytest.mark.skipif(not mariadbserver.available(), reason="MariaDB server binaries not installed")

TABLES = (
    "CREATE TABLE a (id INT NOT NULL PRIMARY KEY, s VARCHAR(20) NULL) DEFAULT CHARSET=utf8mb4",
    "CREATE TABLE b (id INT NOT NULL PRIMARY KEY, n BIGINT NOT NULL, m DECIMAL(8,2) NULL)",
)
STATEMENTS = """
BEGIN;
INSERT INTO a VALUES (1, 'x'), (2, 'y%d');
INSERT INTO b VALUES (1, 10, 1.50);
INSERT INTO a VALUES (3, NULL);
COMMIT;
BEGIN;
UPDATE a SET s = 'w' WHERE id IN (1, 2);
UPDATE b SET n = 11 WHERE id = 1;
DELETE FROM a WHERE id = 3;
COMMIT;
UPDATE a SET id = 10 WHERE id = 1;
BEGIN;
DELETE FROM b WHERE id = 1;
INSERT INTO b VALUES (2, 20, NULL);
DELETE FROM a WHERE id IN (2, 10);
COMMIT;
"""
TRANSACTIONS = 4
# per transaction, its events in order: (table, op, total_order, data_collection_order)
EXPECTED = [
    [("a", "c", 1, 1), ("a", "c", 2, 2), ("b", "c", 3, 1), ("a", "c", 4, 3)],
    [("a", "u", 1, 1), ("a", "u", 2, 2), ("b", "u", 3, 1), ("a", "d", 4, 3)],
    [("a", "d", 1, 1), ("a", "c", 2, 2)],  # the key change: delete (+ tombstone) and create
    [("b", "d", 1, 1), ("b", "c", 2, 2), ("a", "d", 3, 1), ("a", "d", 4, 2)],
]
# END's counts per transaction, (event_count, {table: count})
ENDS = [(4, {"a": 3, "b": 1}), (4, {"a": 3, "b": 1}), (2, {"a": 2}), (4, {"a": 2, "b": 2})]


@pytest.fixture(scope="module")
def captured():
    """The workload's binlog events (etype, packet, event attributes), the checksum length, the properties."""
    with mariadbserver.MariaDbServer() as db:
        db.sql("CREATE DATABASE txdb")
        for t in TABLES:
            db.sql(t, "txdb")
        file, pos = db.query("SHOW MASTER STATUS")[0][:2]
        db.sql(STATEMENTS, "txdb")
        events, checksum = read_events(db, file, pos, TRANSACTIONS)
        props = db.connector_properties(
            **{
                "connector.class": "io.debezium.connector.mariadb.MariaDbConnector",
                "database.include.list": "txdb",
                "topic.prefix": "tx",
                "snapshot.mode": "no_data",
                "provide.transaction.metadata": "true",
            }
        )
    return events, checksum, props


def _replay(tmp: Path, captured, lines: bool, monkeypatch) -> dict[str, list[dict]]:
    """-> each topic's records; `lines`: the line path must have written rows (counted), else it is refused."""
    events, checksum, props = captured
    written = []
    if lines:
        orig = stream_lines.BinlogLines._lines

        def spy(self, way, body, p, end, *first):
            took = orig(self, way, body, p, end, *first)
            if way.tx is not None:  # the transaction block's lines
                written.append(took)
            return took

        monkeypatch.setattr(stream_lines.BinlogLines, "_lines", spy)
    else:
        monkeypatch.setattr(stream.MySqlBinlogStream, "_line_decoders", lambda *a: None)
    cfg = dict(props, **{"schema.history.internal.file.filename": str(tmp / "h.dat")})
    p = tmp / "c.properties"
    p.write_text("".join(f"{k}={v}\n" for k, v in cfg.items()))
    c = MariaDbConnector(load_config(str(p)), Engine(DirectoryOutput(tmp / "topics"), MemoryOffsetStore()))
    c.mariadb_server = True
    c.server_version = "10.11.0-MariaDB"
    c.snapshot_done = True
    c.file, c.next_pos = "binlog.000001", 4
    for t in TABLES:
        c.parser.apply(t, "txdb")
    for etype, data, ev in events:
        c.handle_event(etype, data, ev, checksum)
    c.engine.output.flush()
    if lines:  # every rows event but the key change's (refused: the dict path splits it) went as lines
        assert written.count(True) == 9 and False in written
    out = {}
    for f in sorted((tmp / "topics").glob("*.jsonl")):
        out[f.stem] = [json.loads(line) for line in f.read_text().splitlines()]
    return out


def _norm(topics: dict[str, list[dict]]) -> dict[str, list[dict]]:
    for recs in topics.values():
        for r in recs:
            pl = (r["value"] or {}).get("payload")
            if pl is not None and "op" in pl:
                for k in ("ts_ms", "ts_us", "ts_ns"):
                    pl[k] = 0
            r["headers"] = [h for h in r.get("headers") or [] if h[0] != "__debezium.context.runId"]
    return topics


@pytest.mark.parametrize("output", ["lines", "records"])
def test_tx_lines_are_the_dict_paths_records(captured, tmp_path, monkeypatch, output):
    """`records`: an output that takes records, not lines (as Kafka's): the lines are cut into key and value."""
    (tmp_path / "a").mkdir()
    (tmp_path / "b").mkdir()
    with monkeypatch.context() as m:
        if output == "records":
            m.setattr(Engine, "line_writer", lambda self: None)
            write = DirectoryOutput.write
            m.setattr(
                DirectoryOutput,
                "write",
                lambda self, r: write(self, Record(r.topic, r.key, r.value, r.headers)),
            )
        got = _replay(tmp_path / "a", captured, True, monkeypatch)
    with monkeypatch.context() as m:
        ref = _replay(tmp_path / "b", captured, False, m)
    assert set(got) == {"tx.transaction", "tx.txdb.a", "tx.txdb.b"}
    assert _norm(got) == _norm(ref)

    # the blocks against the workload's counts, in the order the records were written
    tx_recs = [r["value"]["payload"] for r in got["tx.transaction"]]
    assert [t["status"] for t in tx_recs] == ["BEGIN", "END"] * TRANSACTIONS
    ids = [t["id"] for t in tx_recs[::2]]
    ends = [
        (t["event_count"], {d["data_collection"][5:]: d["event_count"] for d in t["data_collections"]})
        for t in tx_recs[1::2]
    ]
    assert ends == ENDS
    events = []
    for table in ("a", "b"):
        for r in got[f"tx.txdb.{table}"]:
            if r["value"] is not None:  # a tombstone: no block
                pl = r["value"]["payload"]
                blk = pl["transaction"]
                events.append(
                    (
                        ids.index(blk["id"]),
                        blk["total_order"],
                        (table, pl["op"], blk["total_order"], blk["data_collection_order"]),
                    )
                )
    events.sort()
    assert [[e[2] for e in events if e[0] == k] for k in range(TRANSACTIONS)] == EXPECTED
