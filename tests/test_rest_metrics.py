"""Connector metrics after a known workload (JSON, Prometheus text parsed with prometheus_client's parser, the
`status` command, the progress log), and KIP-875 offsets on a stopped connector: alter, resume from the
altered offset, reset and re-snapshot — all with a real worker and a real PostgreSQL (and MariaDB)."""

from __future__ import annotations

import json
import subprocess
import sys
import time
from pathlib import Path

import pytest
from emulator_proc import write_properties
from prometheus_client.parser import text_string_to_metric_families
from rest_worker import WorkerProcess, drop_slot, http, records

from emulator.testing import mariadbserver
from emulator.testing.pgserver import PgServer, free_port

MODIFIED = (
    "The Connect framework-managed offsets for this connector have been {0} successfully. However, if this "
    "connector manages offsets externally, they will need to be manually {0} in the system that the connector "
    "uses."
)


@pytest.fixture(scope="module")
def pg():
    with PgServer() as server:
        yield server


def _samples(text: str) -> dict[tuple[str, frozenset], float]:
    out = {}
    for fam in text_string_to_metric_families(text):
        for s in fam.samples:
            out[(s.name, frozenset(s.labels.items()))] = s.value
    return out


def _lbl(**kw: str) -> frozenset:
    return frozenset(kw.items())


def _ids(rows: list[dict], op: str | None = None) -> list[int]:
    return [
        (r["after"] or r["before"])["id"]
        for r in rows
        if r.get("op") and (op is None or r["op"] == op) and (r["after"] or r["before"])
    ]


def test_metrics_status_and_offsets_round_trip(pg, tmp_path):
    name = "rm"
    pg.psql(
        f"DROP SCHEMA IF EXISTS {name} CASCADE; CREATE SCHEMA {name};"
        f"CREATE TABLE {name}.t (id int PRIMARY KEY, v text);"
        f"INSERT INTO {name}.t SELECT g, 'r' || g FROM generate_series(1, 25) g;"
    )
    w = WorkerProcess(tmp_path, "--progress-interval", "1").start()
    b = w.base
    topic = f"{name}.{name}.t"
    config = pg.connector_properties(
        **{
            "name": name,
            "topic.prefix": name,
            "slot.name": name,
            "publication.name": f"{name}_pub",
            "table.include.list": f"{name}.t",
        }
    )
    try:
        assert http("POST", b + "/connectors", {"name": name, "config": config})[0] == 201

        def metrics():
            return http("GET", f"{b}/connectors/{name}/metrics")[1]

        m = w.wait(
            lambda: (x := metrics())["snapshot"]["SnapshotCompleted"] and x["streaming"]["Connected"] and x,
            60,
            "snapshot done and streaming",
        )
        snap = m["snapshot"]
        assert m["plugin"] == "postgres" and m["server"] == name
        assert snap["RowsScanned"] == {f"{name}.t": 25}
        assert snap["TotalTableCount"] == 1 and snap["RemainingTableCount"] == 0
        assert snap["SnapshotRunning"] is False and snap["SnapshotAborted"] is False
        assert snap["TotalNumberOfEventsSeen"] == 25 and snap["CapturedTables"] == [f"{name}.t"]
        assert m["streaming"]["TotalNumberOfEventsSeen"] == 0

        # 10 inserts, an update and a delete, each its own transaction
        pg.psql("".join(f"INSERT INTO {name}.t VALUES ({i}, 'n');" for i in range(26, 36)))
        pg.psql(f"UPDATE {name}.t SET v = 'u' WHERE id = 1; DELETE FROM {name}.t WHERE id = 2;")
        st = w.wait(
            lambda: (x := metrics()["streaming"])["TotalNumberOfEventsSeen"] >= 12 and x, 60, "12 events"
        )
        assert st["TotalNumberOfEventsSeen"] == 12
        assert (
            st["TotalNumberOfCreateEventsSeen"],
            st["TotalNumberOfUpdateEventsSeen"],
            st["TotalNumberOfDeleteEventsSeen"],
        ) == (10, 1, 1)
        assert st["NumberOfCommittedTransactions"] == 12
        assert st["Connected"] is True and st["MilliSecondsBehindSource"] >= 0
        assert int(st["SourceEventPosition"]["lsn"]) > 0

        # Prometheus, named as the JMX exporter names Debezium's MBeans in debezium-examples/monitoring
        text = http_text(b + "/metrics")
        samples = _samples(text)
        streaming = _lbl(context="streaming", name=name, plugin="postgres")
        snapshot = _lbl(context="snapshot", name=name, plugin="postgres")
        assert samples[("debezium_metrics_TotalNumberOfEventsSeen", streaming)] == 12
        assert samples[("debezium_metrics_TotalNumberOfCreateEventsSeen", streaming)] == 10
        assert samples[("debezium_metrics_Connected", streaming)] == 1
        assert samples[("debezium_metrics_MilliSecondsBehindSource", streaming)] >= 0
        assert samples[("debezium_metrics_SnapshotCompleted", snapshot)] == 1
        assert samples[("debezium_metrics_TotalTableCount", snapshot)] == 1
        rows_scanned = _lbl(context="snapshot", name=name, plugin="postgres", table=f"{name}.t")
        assert samples[("debezium_metrics_RowsScanned", rows_scanned)] == 25
        assert "# TYPE debezium_metrics_MilliSecondsBehindSource untyped" in text

        # the status command
        out = subprocess.run(
            [sys.executable, "-m", "emulator", "status", "--url", b],
            capture_output=True,
            text=True,
            timeout=60,
        )
        assert out.returncode == 0, out.stderr
        assert f"{name}: connector RUNNING, task RUNNING (postgres, topic.prefix {name})" in out.stdout
        assert "snapshot completed: 1 of 1 tables, 25 rows" in out.stdout
        assert f"{name}.t: 25 rows" in out.stdout
        assert "12 events (c 10, u 1, d 1), 12 transactions" in out.stdout
        bad = subprocess.run(
            [sys.executable, "-m", "emulator", "status", "--url", f"http://127.0.0.1:{free_port()}"],
            capture_output=True,
            text=True,
            timeout=60,
        )
        assert (
            bad.returncode == 1
            and bad.stderr.startswith("error: cannot read")
            and bad.stderr.count("\n") == 1
        )
        # the progress log (every second here)
        w.wait(
            lambda: f"emulator.progress: {name}: streaming: 12 events" in w.log.read_text(),
            30,
            "progress line",
        )

        # -- KIP-875: stop, alter to a position between two transactions, resume from there
        assert http("PUT", f"{b}/connectors/{name}/stop")[0] == 204
        code, got, _ = http("GET", f"{b}/connectors/{name}/offsets")
        assert code == 200 and got["offsets"][0]["partition"] == {"server": name}
        pg.psql(f"INSERT INTO {name}.t VALUES (100, 'skipped by the altered offset');")
        with pg.connect() as conn:
            lsn = int(conn.execute("SELECT pg_current_wal_insert_lsn() - '0/0'").fetchone()[0])
        pg.psql(f"INSERT INTO {name}.t VALUES (101, 'after the altered offset');")
        new = {"lsn": lsn, "lsn_commit": lsn, "lsn_proc": lsn, "ts_usec": time.time_ns() // 1000}
        code, body, _ = http(
            "PATCH",
            f"{b}/connectors/{name}/offsets",
            {"offsets": [{"partition": {"server": name}, "offset": new}]},
        )
        assert (code, body) == (200, {"message": MODIFIED.format("altered")})
        assert http("GET", f"{b}/connectors/{name}/offsets")[1] == {
            "offsets": [{"partition": {"server": name}, "offset": new}]
        }
        code, body, _ = http(
            "PATCH",
            f"{b}/connectors/{name}/offsets",
            {"offsets": [{"partition": {"server": "elsewhere"}, "offset": new}]},
        )
        assert code == 400 and body["error_code"] == 400
        assert http("PUT", f"{b}/connectors/{name}/resume")[0] == 202
        w.wait(lambda: 101 in _ids(records(w.out, name, topic)), 60, "the row after the altered offset")
        assert 100 not in _ids(records(w.out, name, topic))

        # -- reset: no offsets, so the connector snapshots again on resume
        assert http("PUT", f"{b}/connectors/{name}/stop")[0] == 204
        assert http("DELETE", f"{b}/connectors/{name}/offsets")[:2] == (
            200,
            {"message": MODIFIED.format("reset")},
        )
        assert http("GET", f"{b}/connectors/{name}/offsets")[:2] == (200, {"offsets": []})
        reads_before = len(_ids(records(w.out, name, topic), "r"))
        with pg.connect() as conn:
            count = conn.execute(f"SELECT count(*) FROM {name}.t").fetchone()[0]
        assert http("PUT", f"{b}/connectors/{name}/resume")[0] == 202
        w.wait(
            lambda: len(_ids(records(w.out, name, topic), "r")) >= reads_before + count, 60, "second snapshot"
        )
        assert len(_ids(records(w.out, name, topic), "r")) == reads_before + count
        m = w.wait(
            lambda: (x := metrics())["snapshot"]["SnapshotCompleted"] and x, 30, "second snapshot metrics"
        )
        assert m["snapshot"]["RowsScanned"] == {f"{name}.t": count}
        assert http("DELETE", f"{b}/connectors/{name}")[0] == 204
    finally:
        w.stop()
        drop_slot(pg, name)


def http_text(url: str) -> str:
    import urllib.request

    with urllib.request.urlopen(url, timeout=30) as r:
        assert r.headers["Content-Type"].startswith("text/plain")
        return r.read().decode()


def test_standalone_run_metrics_port(pg, tmp_path):
    name = "sm"
    pg.psql(
        f"DROP SCHEMA IF EXISTS {name} CASCADE; CREATE SCHEMA {name};"
        f"CREATE TABLE {name}.t (id int PRIMARY KEY, v text);"
        f"INSERT INTO {name}.t SELECT g, 'r' || g FROM generate_series(1, 7) g;"
    )
    props = pg.connector_properties(
        **{
            "name": name,
            "topic.prefix": name,
            "slot.name": name,
            "publication.name": f"{name}_pub",
            "table.include.list": f"{name}.t",
            "offset.storage.file.filename": str(tmp_path / "offsets.json"),
        }
    )
    conf = tmp_path / "c.properties"
    write_properties(props, conf)
    port = free_port()
    log = tmp_path / "run.log"
    with open(log, "wb") as f:
        p = subprocess.Popen(
            [
                sys.executable,
                "-m",
                "emulator",
                "run",
                str(conf),
                "--out",
                str(tmp_path / "out"),
                "--metrics-port",
                str(port),
            ],
            stdout=f,
            stderr=subprocess.STDOUT,
        )
    try:
        base = f"http://127.0.0.1:{port}"
        deadline = time.monotonic() + 60
        while True:
            try:
                s = _samples(http_text(base + "/metrics"))
                key = ("debezium_metrics_Connected", _lbl(context="streaming", name=name, plugin="postgres"))
                if s.get(key) == 1:
                    break
            except OSError:
                pass
            assert p.poll() is None, log.read_text()
            assert time.monotonic() < deadline, log.read_text()
            time.sleep(0.3)
        rows = _lbl(context="snapshot", name=name, plugin="postgres", table=f"{name}.t")
        assert s[("debezium_metrics_RowsScanned", rows)] == 7
        out = subprocess.run(
            [sys.executable, "-m", "emulator", "status", "--url", base],
            capture_output=True,
            text=True,
            timeout=60,
        )
        assert out.returncode == 0 and f"{name}.t: 7 rows" in out.stdout, out
        # a port in use: one line, exit 2
        taken = subprocess.run(
            [
                sys.executable,
                "-m",
                "emulator",
                "run",
                str(conf),
                "--out",
                str(tmp_path / "o2"),
                "--metrics-port",
                str(port),
            ],
            capture_output=True,
            text=True,
            timeout=60,
        )
        assert taken.returncode == 2 and taken.stderr.startswith(f"error: --metrics-port {port}")
    finally:
        p.terminate()
        p.wait(30)
        drop_slot(pg, name)


@pytest.mark.skipif(not mariadbserver.available(), reason="MariaDB binaries not installed")
def test_mariadb_metrics(tmp_path):
    with mariadbserver.MariaDbServer() as db:
        db.sql(
            "CREATE DATABASE mm; CREATE TABLE mm.t (id int PRIMARY KEY, v text);"
            "INSERT INTO mm.t VALUES (1,'a'),(2,'b'),(3,'c'),(4,'d');"
        )
        w = WorkerProcess(tmp_path).start()
        try:
            config = db.connector_properties(
                **{
                    "name": "mm",
                    "topic.prefix": "mm",
                    "database.include.list": "mm",
                    "schema.history.internal.file.filename": str(tmp_path / "history.dat"),
                }
            )
            code, body, _ = http("POST", w.base + "/connectors", {"name": "mm", "config": config})
            assert code == 201, body

            def metrics():
                return http("GET", w.base + "/connectors/mm/metrics")[1]

            m = w.wait(
                lambda: (
                    (x := metrics())["snapshot"]["SnapshotCompleted"] and x["streaming"]["Connected"] and x
                ),
                60,
                "snapshot and streaming",
            )
            assert m["plugin"] == "mariadb" and m["snapshot"]["RowsScanned"] == {"mm.t": 4}
            db.sql("".join(f"INSERT INTO mm.t VALUES ({i}, 'n');" for i in range(10, 20)))
            db.sql("UPDATE mm.t SET v = 'x' WHERE id = 1; DELETE FROM mm.t WHERE id = 2;")
            st = w.wait(
                lambda: (x := metrics()["streaming"])["TotalNumberOfEventsSeen"] >= 12 and x, 60, "12 events"
            )
            assert st["TotalNumberOfEventsSeen"] == 12
            assert (
                st["TotalNumberOfCreateEventsSeen"],
                st["TotalNumberOfUpdateEventsSeen"],
                st["TotalNumberOfDeleteEventsSeen"],
            ) == (10, 1, 1)
            assert st["NumberOfCommittedTransactions"] == 12 and st["MilliSecondsBehindSource"] >= 0
        finally:
            w.stop()


def test_blocking_snapshot_in_snapshot_metrics(pg, tmp_path):
    name = "rb"
    pg.psql(
        f"DROP SCHEMA IF EXISTS {name} CASCADE; CREATE SCHEMA {name};"
        f"CREATE TABLE {name}.t (id int PRIMARY KEY, v text);"
        f"CREATE TABLE {name}.debezium_signal (id varchar(64) PRIMARY KEY, type varchar(32), data text);"
        f"INSERT INTO {name}.t SELECT g, 'r' || g FROM generate_series(1, 5) g;"
    )
    w = WorkerProcess(tmp_path).start()
    config = pg.connector_properties(
        **{
            "topic.prefix": name,
            "slot.name": name,
            "publication.name": f"{name}_pub",
            "table.include.list": f"{name}.t,{name}.debezium_signal",
            "signal.data.collection": f"{name}.debezium_signal",
        }
    )
    config.pop("name")
    try:
        assert http("POST", w.base + "/connectors", {"name": name, "config": config})[0] == 201

        def metrics():
            return http("GET", f"{w.base}/connectors/{name}/metrics")[1]

        m = w.wait(lambda: (x := metrics())["streaming"]["Connected"] and x, 60, "streaming")
        assert m["snapshot"]["RowsScanned"] == {f"{name}.t": 5}  # the signal table is not snapshotted
        pg.psql(f"INSERT INTO {name}.t VALUES (6, 'x'), (7, 'y'), (8, 'z');")
        pg.psql(
            f"INSERT INTO {name}.debezium_signal VALUES ('b1', 'execute-snapshot', "
            f'\'{{"type": "blocking", "data-collections": ["{name}.t"]}}\');'
        )
        m = w.wait(
            lambda: (x := metrics())["snapshot"]["RowsScanned"] == {f"{name}.t": 8} and x, 60, "blocking"
        )
        snap = m["snapshot"]
        assert snap["TotalTableCount"] == 1 and snap["RemainingTableCount"] == 0
        w.wait(lambda: metrics()["snapshot"]["SnapshotCompleted"], 30, "blocking snapshot completed")
        assert http("DELETE", f"{w.base}/connectors/{name}")[0] == 204
    finally:
        w.stop()
        drop_slot(pg, name)


def test_progress_lines():
    from emulator.metrics import ConnectorMetrics
    from emulator.progress import ProgressReporter

    m = ConnectorMetrics("postgres", "p")
    r = ProgressReporter(m, 10, bar=False)
    assert r.snapshot_line() is None and r.streaming_line() is None  # nothing running yet
    m.snapshot.begin(["s.a", "s.b", "s.c"], {"s.a": 100, "s.b": 50})
    m.snapshot.table_started("s.a")
    m.snapshot.table_rows("s.a", 40)
    line = r.snapshot_line()
    assert line.startswith("snapshot: table s.a: 40 of about 100 rows (40%); 0 of 3 tables done, 40 rows in ")
    assert "rows/s, ETA " in line
    m.snapshot.table_done("s.a", 100)
    m.snapshot.table_started("s.c")  # no estimate for s.c
    m.snapshot.table_rows("s.c", 7)
    assert r.snapshot_line().startswith(
        "snapshot: table s.c: 7 rows (no row estimate); 1 of 3 tables done, 107 rows"
    )
    m.snapshot.end(True)
    assert r.snapshot_line() is None
    m.streaming.connected = True
    m.streaming.creates, m.streaming.updates = 3, 2
    assert r.streaming_line() == "streaming: 5 events (0.0/s), 0 transactions, no event yet"
    m.streaming.committed(time.time_ns() // 1_000_000 - 5000, 7)
    line = r.streaming_line()
    assert (
        line.startswith("streaming: 5 events (")
        and " 1 transactions, " in line
        and line.endswith("ms behind source")
    )
    assert 5000 <= m.streaming.behind_ms < 60_000


def test_metrics_match_debezium(pg, tmp_path):
    """The counters real Debezium 3.6.3 reported over JMX for the same workload
    (tests/data/metrics/pg_metrics.json, recorded by record_pg_metrics.py beside it)."""
    data = Path(__file__).parent / "data" / "metrics"
    sys.path.insert(0, str(data))
    try:
        from pg_metrics_workload import PREFIX, WORKLOAD_PRE, WORKLOAD_STREAM, connector_props
    finally:
        sys.path.remove(str(data))
    want = json.loads((data / "pg_metrics.json").read_text())
    pg.psql(WORKLOAD_PRE)
    config = {
        k: v
        for k, v in connector_props(pg.port, "").items()
        if not k.startswith("offset.storage") and k != "name"
    }
    w = WorkerProcess(tmp_path).start()
    try:
        assert http("POST", w.base + "/connectors", {"name": PREFIX, "config": config})[0] == 201

        def metrics():
            return http("GET", f"{w.base}/connectors/{PREFIX}/metrics")[1]

        w.wait(
            lambda: (x := metrics())["snapshot"]["SnapshotCompleted"] and x["streaming"]["Connected"],
            60,
            "up",
        )
        for group in WORKLOAD_STREAM:
            pg.psql(group)
        want_st = want["streaming"]
        got = w.wait(
            lambda: (
                (x := metrics())["streaming"]["TotalNumberOfEventsSeen"] >= want_st["TotalNumberOfEventsSeen"]
                and x
            ),
            60,
            "the streamed events",
        )
        time.sleep(1)  # anything beyond Debezium's counts would show now
        got = metrics()
        for key in (
            "TotalNumberOfEventsSeen",
            "TotalTableCount",
            "RemainingTableCount",
            "RowsScanned",
            "SnapshotCompleted",
            "SnapshotAborted",
            "SnapshotRunning",
            "NumberOfEventsFiltered",
            "QueueTotalCapacity",
            "QueueRemainingCapacity",
        ):
            assert got["snapshot"][key] == want["snapshot"][key], key
        assert sorted(got["snapshot"]["CapturedTables"]) == sorted(want["snapshot"]["CapturedTables"])
        for key in (
            "TotalNumberOfEventsSeen",
            "TotalNumberOfCreateEventsSeen",
            "TotalNumberOfUpdateEventsSeen",
            "TotalNumberOfDeleteEventsSeen",
            "NumberOfEventsFiltered",
            "NumberOfCommittedTransactions",
            "Connected",
            "NumberOfErroneousEvents",
            "QueueTotalCapacity",
        ):
            assert got["streaming"][key] == want_st[key], key
        assert sorted(got["streaming"]["CapturedTables"]) == sorted(want_st["CapturedTables"])
        assert set(want_st["SourceEventPosition"]) <= set(got["streaming"]["SourceEventPosition"])
        assert got["streaming"]["MilliSecondsBehindSource"] >= 0 and want_st["MilliSecondsBehindSource"] >= 0
        assert http("DELETE", f"{w.base}/connectors/{PREFIX}")[0] == 204
    finally:
        w.stop()
        drop_slot(pg, "mx")
