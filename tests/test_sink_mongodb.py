"""MongoDB change events through the sink's executor path: the row is the key and the document text; events
are ordered by the cluster time and `ord` (several events of one second, across micro-batches); an update
without its full document cannot be mirrored. Records written by hand in Debezium's documented MongoDB
format (key `{"id": <extended JSON>}`, `after` an io.debezium.data.Json string); expected tables by hand."""

from __future__ import annotations

import json
import os
import shutil

import pytest

pytest.importorskip("pyspark", reason="pyspark not installed (pip install -e '.[sink]')")
pytest.importorskip("deltalake", reason="deltalake not installed (pip install -e '.[sink]')")
if shutil.which("java") is None and not os.environ.get("JAVA_HOME"):
    pytest.skip("no Java runtime for PySpark", allow_module_level=True)

from sink_checks import spark_fixture  # noqa: E402, F401

from sink.read import read_arrow  # noqa: E402

TOPIC = "mongo.inventory.customers"
JSON = {"type": "string", "optional": True, "name": "io.debezium.data.Json", "version": 1}
KEY_SCHEMA = {
    "type": "struct",
    "fields": [{"type": "string", "optional": False, "field": "id"}],
    "optional": False,
    "name": f"{TOPIC}.Key",
}
SOURCE = {
    "type": "struct",
    "fields": [
        {"type": "string", "optional": False, "field": "version"},
        {"type": "string", "optional": False, "field": "connector"},
        {"type": "string", "optional": False, "field": "name"},
        {"type": "int64", "optional": False, "field": "ts_ms"},
        {"type": "string", "optional": False, "field": "db"},
        {"type": "string", "optional": False, "field": "collection"},
        {"type": "int32", "optional": False, "field": "ord"},
    ],
    "optional": False,
    "name": "io.debezium.connector.mongo.Source",
    "field": "source",
}
VALUE_SCHEMA = {
    "type": "struct",
    "fields": [
        {**JSON, "field": "before"},
        {**JSON, "field": "after"},
        SOURCE,
        {"type": "string", "optional": True, "field": "op"},
        {"type": "int64", "optional": True, "field": "ts_ms"},
    ],
    "optional": False,
    "name": f"{TOPIC}.Envelope",
}


def _doc(i: int, name: str) -> str:
    return f'{{"_id": {{"$numberLong": "{i}"}},"first_name": "{name}"}}'


def _line(i: int, op: str, after: str | None, ts_s: int, ord_: int, tombstone: bool = False) -> str:
    key = {"schema": KEY_SCHEMA, "payload": {"id": f'{{"$numberLong": "{i}"}}'}}
    if tombstone:
        return json.dumps({"key": key, "value": None}, separators=(",", ":"))
    source = {
        "version": "3.6.3.Final",
        "connector": "mongodb",
        "name": "mongo",
        "ts_ms": ts_s * 1000,
        "db": "inventory",
        "collection": "customers",
        "ord": ord_,
    }
    payload = {"before": None, "after": after, "source": source, "op": op, "ts_ms": ts_s * 1000 + 5}
    return json.dumps(
        {"key": key, "value": {"schema": VALUE_SCHEMA, "payload": payload}}, separators=(",", ":")
    )


FIRST = [
    _line(1001, "r", _doc(1001, "Sally"), 100, 1),
    _line(1002, "r", _doc(1002, "George"), 100, 1),
    _line(1003, "r", _doc(1003, "Edward"), 100, 1),
    _line(1001, "u", _doc(1001, "Sally v2"), 200, 1),
    _line(1002, "u", None, 200, 2),  # no full document (capture.mode without lookup): not mirrorable
    _line(1003, "d", None, 200, 3),
    _line(1003, "d", None, 200, 3, tombstone=True),
]
SECOND = [  # the same second as the first batch's last events, later `ord`
    _line(1001, "u", _doc(1001, "Sally v3"), 200, 4),
    _line(1004, "c", _doc(1004, "Anne"), 200, 5),
]


def test_mongodb_documents_on_executors_across_batches(tmp_path, spark):
    from sink.job import run

    src = tmp_path / "in"
    src.mkdir()
    logs: list[str] = []
    for part in (FIRST, SECOND):
        with open(src / f"{TOPIC}.jsonl", "a") as f:
            f.write("".join(x + "\n" for x in part))
        log = lambda *a, **k: logs.append(a[0])  # noqa: E731
        assert run(str(src), str(tmp_path / "t"), str(tmp_path / "ck"), True, spark=spark, log=log) == 0
    assert all("driver:" not in m for m in logs if m.startswith("batch")), logs
    rows = {r["id"]: r["document"] for r in read_arrow(str(tmp_path / "t" / TOPIC)).to_pylist()}
    assert rows == {
        '{"$numberLong": "1001"}': '{"_id": {"$numberLong": "1001"},"first_name": "Sally v3"}',
        '{"$numberLong": "1002"}': '{"_id": {"$numberLong": "1002"},"first_name": "George"}',
        '{"$numberLong": "1004"}': '{"_id": {"$numberLong": "1004"},"first_name": "Anne"}',
    }
