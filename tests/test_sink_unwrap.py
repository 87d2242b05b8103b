"""The sink reads what users put on topics (issue 15 item 4): records unwrapped by `ExtractNewRecordState`
(`__op` from add.fields, `__deleted` from delete.tombstone.handling.mode=rewrite), recorded from real Debezium
3.6.3 (`tests/data/connect/pg_unwrap.jsonl`, workload `pg_connect.sql` of the Connect goldens). The expected
tables are written by hand from that workload."""

from __future__ import annotations

import json
import os
import shutil
from decimal import Decimal
from pathlib import Path

import pytest

pytest.importorskip("pyspark", reason="pyspark not installed (pip install -e '.[sink]')")
pytest.importorskip("deltalake", reason="deltalake not installed (pip install -e '.[sink]')")

from sink_checks import run_sink  # noqa: E402

from sink.apply import apply_batch  # noqa: E402
from sink.read import read_arrow  # noqa: E402

DATA = Path(__file__).parent / "data" / "connect" / "pg_unwrap.jsonl"
T = "dbserver1.public."


def _records() -> list:
    return [json.loads(x) for x in DATA.read_text().splitlines() if x.strip()]


def _check(tables: Path) -> None:
    cust = {r["id"]: r for r in read_arrow(str(tables / f"{T}customers")).to_pylist()}
    assert cust == {
        1001: {"id": 1001, "first_name": "Sally", "last_name": "Thomas", "email": "sally@acme.com"},
        1003: {"id": 1003, "first_name": "Edward", "last_name": "Walker", "email": None},
        1004: {"id": 1004, "first_name": "Anne", "last_name": "Kretchmar", "email": "annek@noanswer.org"},
    }
    ids = {
        t: sorted(read_arrow(str(tables / f"{T}{t}")).column("id").to_pylist())
        for t in ("orders_2024", "orders_2025", "outbox", "products")
    }
    assert ids["orders_2024"] == [2, 3] and ids["orders_2025"] == [1, 2]
    assert ids["outbox"] == ["22222222-2222-2222-2222-222222222222", "33333333-3333-3333-3333-333333333333"]
    assert ids["products"] == [1, 3, 4, 5]
    p1 = next(r for r in read_arrow(str(tables / f"{T}products")).to_pylist() if r["id"] == 1)
    # note = NULL in the workload, but JsonConverter's replace.null.with.default (on by default) makes
    # Debezium's record carry the column default 'n/a': the sink mirrors the record
    assert p1["price"] == Decimal("13.00") and p1["qty"] == 4 and p1["note"] == "n/a"


def test_unwrapped_records_in_one_batch(tmp_path):
    recs = [(r["topic"], r["key"], r["value"], ("f", i), r.get("headers")) for i, r in enumerate(_records())]
    apply_batch(str(tmp_path), recs, "app", 0)
    _check(tmp_path)


def test_unwrapped_records_through_the_sink(tmp_path):
    if shutil.which("java") is None and not os.environ.get("JAVA_HOME"):
        pytest.skip("no Java runtime for PySpark")
    src = tmp_path / "in"
    src.mkdir()
    for r in _records():
        line = {"key": r["key"], "value": r["value"]}
        with open(src / f"{r['topic']}.jsonl", "a") as f:
            f.write(json.dumps(line, separators=(",", ":")) + "\n")
    r = run_sink(src, tmp_path / "tables", tmp_path / "ck")
    assert r.returncode == 0, r.stdout[-2000:] + r.stderr[-2000:]
    _check(tmp_path / "tables")


def _keyless(tmp_path: Path) -> tuple[Path, list]:
    """Real Debezium's unwrapped customers records as a table without a primary key sends them (key null)."""
    recs = [r for r in _records() if r["topic"] == f"{T}customers" and r["value"] is not None]
    src = tmp_path / "in"
    src.mkdir()
    with open(src / f"{T}customers.jsonl", "w") as f:
        f.writelines(json.dumps({"key": None, "value": r["value"]}) + "\n" for r in recs)
    return src, [(r["topic"], None, r["value"], ("f", i)) for i, r in enumerate(recs)]


def test_unwrapped_records_of_a_table_without_a_key_are_refused(tmp_path):
    """Sink campaign (pg seed 3): such records carry no before image, so an update was appended as a new row
    (the old one stayed). Refused at start (one line, exit 2, nothing written), and by the batch when such
    records come later."""
    src, recs = _keyless(tmp_path)
    r = run_sink(src, tmp_path / "tables", tmp_path / "ck")
    assert r.returncode == 2, r.stdout[-2000:] + r.stderr[-2000:]
    lines = r.stderr.strip().splitlines()
    assert len(lines) == 1 and "ExtractNewRecordState of a table without a key" in lines[0], r.stderr
    assert not (tmp_path / "tables").exists() and not (tmp_path / "ck").exists()
    with pytest.raises(ValueError, match="ExtractNewRecordState of a table without a key"):
        apply_batch(str(tmp_path / "drv"), recs, "app", 0)
