"""The REST worker against a real PostgreSQL: hardening (slow clients, oversized bodies, bad names, malformed
HTTP) and Kafka Connect's endpoints, status codes and JSON shapes.

Expected shapes and messages are written from Kafka Connect's source (connect/runtime/.../rest/resources and
entities, AbstractHerder, StandaloneHerder, Worker; Connect 3.9), not from the emulator's code."""

from __future__ import annotations

import json
import os
import shutil
import socket
import stat
import subprocess
import sys
import time
import urllib.parse
from pathlib import Path

import pytest
from rest_worker import WorkerProcess, drop_slot, http

from emulator.testing.pgserver import PgServer

PG_CLASS = "io.debezium.connector.postgresql.PostgresConnector"
ERROR_KEYS = {"error_code", "message"}
VALIDATE_HINT = "You can also find the above list of errors at the endpoint `/connector-plugins/{connectorType}/config/validate`"


@pytest.fixture(scope="module")
def pg():
    with PgServer() as server:
        server.psql(
            "CREATE SCHEMA ra; CREATE TABLE ra.t (id int PRIMARY KEY, v text);"
            "INSERT INTO ra.t SELECT g, 'r' || g FROM generate_series(1, 5) g;"
        )
        yield server


@pytest.fixture(scope="module")
def worker(tmp_path_factory):
    w = WorkerProcess(tmp_path_factory.mktemp("rest")).start()
    yield w
    w.stop()


def props(pg, name: str, **extra: str) -> dict[str, str]:
    return pg.connector_properties(
        **{
            "name": name,
            "topic.prefix": name,
            "slot.name": name,
            "publication.name": f"{name}_pub",
            "table.include.list": "ra.t",
            **extra,
        }
    )


def _raw(port: int, data: bytes, timeout: float = 60) -> bytes:
    with socket.create_connection(("127.0.0.1", port), timeout=timeout) as s:
        s.sendall(data)
        chunks = []
        while True:
            try:
                b = s.recv(65536)
            except ConnectionResetError:
                break
            if not b:
                break
            chunks.append(b)
    return b"".join(chunks)


def _status_and_json(resp: bytes) -> tuple[int, dict]:
    head, _, body = resp.partition(b"\r\n\r\n")
    assert b"application/json" in head.lower(), resp[:300]
    return int(head.split()[1]), json.loads(body)


# ------------------------------------------------------------------------------------------ hardening


@pytest.fixture
def slow_worker(tmp_path, monkeypatch):
    """A worker of its own with the header and body deadlines (10 s, 30 s) lowered through the test hook,
    so the test does not wait them out; still far above the few ms the other clients' requests take."""
    monkeypatch.setenv("DBZ_REST_HEADER_TIMEOUT_S", "2")
    monkeypatch.setenv("DBZ_REST_BODY_TIMEOUT_S", "3")
    w = WorkerProcess(tmp_path).start()
    yield w
    w.stop()


def test_slow_client_does_not_block_others_and_gets_408(slow_worker):
    worker = slow_worker
    stalled = socket.create_connection(("127.0.0.1", worker.port), timeout=60)
    try:
        stalled.sendall(b"GET /connectors HTTP/1.1\r\nHost: x\r\n")  # headers never finish
        half_body = socket.create_connection(("127.0.0.1", worker.port), timeout=60)
        half_body.sendall(
            b"POST /connectors HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
            b'Content-Length: 1000\r\n\r\n{"name":'
        )  # the body never finishes
        for _ in range(3):  # others are served meanwhile
            assert http("GET", worker.base + "/")[0] == 200
            assert http("GET", worker.base + "/connectors")[:2] == (200, [])
        resp = b""
        while not resp.endswith(b"}"):
            chunk = stalled.recv(65536)
            if not chunk:
                break
            resp += chunk
        code, body = _status_and_json(resp)
        assert code == 408 and set(body) == ERROR_KEYS and body["error_code"] == 408
        half_body.settimeout(90)
        resp = b""
        while not resp.endswith(b"}"):
            chunk = half_body.recv(65536)
            if not chunk:
                break
            resp += chunk
        code, body = _status_and_json(resp)
        assert code == 408 and body["error_code"] == 408
        half_body.close()
    finally:
        stalled.close()
    assert worker.alive() and http("GET", worker.base + "/")[0] == 200


def test_oversized_body_413_json(worker):
    big = b'{"name": "big", "config": {"x": "' + b"a" * (3 << 20) + b'"}}'
    code, body, _ = http("POST", worker.base + "/connectors", raw=big)
    assert code == 413 and set(body) == ERROR_KEYS and body["error_code"] == 413
    # 50 MB announced: answered before any of it is read
    code, body = _status_and_json(
        _raw(
            worker.port,
            b"POST /connectors HTTP/1.1\r\nHost: x\r\n"
            b"Content-Type: application/json\r\nContent-Length: 52428800\r\n\r\n",
        )
    )
    assert code == 413 and body["error_code"] == 413
    # no Content-Length: a chunked body is counted as it arrives
    chunk = b"a" * 65536
    req = (
        b"POST /connectors HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
        b"Transfer-Encoding: chunked\r\n\r\n" + (b"%x\r\n" % len(chunk) + chunk + b"\r\n") * 40 + b"0\r\n\r\n"
    )
    code, body = _status_and_json(_raw(worker.port, req))
    assert code == 413 and body["error_code"] == 413
    assert worker.alive() and http("GET", worker.base + "/")[0] == 200


@pytest.mark.parametrize(
    "name", ["..", ".", "a/b", "../../etc/x", "x\x01y", "tab\tname", "n" * 300, "", "  "]
)
def test_bad_connector_names_400_json(pg, worker, name):
    config = {k: v for k, v in props(pg, "ok").items() if k != "name"}
    code, body, _ = http("POST", worker.base + "/connectors", {"name": name, "config": config})
    assert code == 400 and set(body) == ERROR_KEYS and body["error_code"] == 400, body
    assert body["message"].startswith(
        "Connector configuration is invalid and contains the following 1 error(s):"
    )
    assert "for configuration name" in body["message"] and body["message"].endswith(VALIDATE_HINT)
    # nothing written for it, inside or outside the state directory
    assert sorted(p.name for p in (worker.state / "connectors").iterdir()) == []
    assert not (worker.state.parent / "x.json").exists() and not (worker.state / "x.json").exists()
    assert http("GET", worker.base + "/connectors")[:2] == (200, [])


def test_paths_and_methods_answer_json(worker):
    for method, path, code in [
        ("GET", "/nope", 404),
        ("GET", "/connectors/nope", 404),
        ("PATCH", "/connectors/nope/config", 404),
        ("PATCH", "/connectors", 405),
        ("DELETE", "/", 405),
        ("GET", "/connectors/" + urllib.parse.quote("..", safe="") + "/status", 404),
        ("GET", "/connectors/x/tasks/abc/status", 404),
    ]:
        got, body, _ = http(method, worker.base + path, {} if method in ("PATCH", "PUT", "POST") else None)
        assert got == code and set(body) == ERROR_KEYS and body["error_code"] == code, (method, path, body)
    # Connect's messages for these (ConnectExceptionMapper: NotFoundException's message; Jersey's for routes)
    assert http("GET", worker.base + "/connectors/nope")[1] == {
        "error_code": 404,
        "message": "Connector nope not found",
    }
    assert http("GET", worker.base + "/nope")[1] == {"error_code": 404, "message": "HTTP 404 Not Found"}
    assert http("PATCH", worker.base + "/connectors", {})[1] == {
        "error_code": 405,
        "message": "HTTP 405 Method Not Allowed",
    }
    # raw path traversal and malformed HTTP: JSON, and the worker stays up
    code, body = _status_and_json(
        _raw(
            worker.port, b"GET /connectors/../../etc/passwd HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n"
        )
    )
    assert code == 404 and body["error_code"] == 404
    code, body = _status_and_json(_raw(worker.port, b"NOT HTTP AT ALL\r\n\r\n"))
    assert code == 400 and body["error_code"] == 400
    code, body = _status_and_json(
        _raw(worker.port, b"GET / HTTP/1.1\r\nHost: x\r\nX: " + b"h" * 100_000 + b"\r\n\r\n")
    )
    assert code in (400, 431) and body["error_code"] == code
    code, body = _status_and_json(
        _raw(
            worker.port,
            b"GET / HTTP/1.1\r\nHost: x\r\nConnection: close\r\n"
            + b"".join(b"X-%d: %s\r\n" % (i, b"h" * 1000) for i in range(40))
            + b"\r\n",
        )
    )
    assert code == 431 and body["error_code"] == 431
    # a body that is not JSON, or JSON of the wrong shape
    code, body, _ = http("POST", worker.base + "/connectors", raw=b"{not json")
    assert code == 400 and body["error_code"] == 400
    for raw in (b"[" * 200_000 + b"]" * 200_000, b"\xff\xfe{}", b'{"name": 1' + b"1" * 10_000 + b"}"):
        code, body, _ = http("POST", worker.base + "/connectors", raw=raw)
        assert code == 400 and body["error_code"] == 400, raw[:20]
    for bad in ([], "x", {"name": "a"}, {"name": "a", "config": []}, {"name": 5, "config": None}):
        code, body, _ = http("POST", worker.base + "/connectors", bad)
        assert code == 400 and body["error_code"] == 400, bad
    assert worker.alive() and http("GET", worker.base + "/")[0] == 200


# ------------------------------------------------------------------------------------------ Connect's endpoints


NUMBERS = "org.apache.kafka.connect.converters."
ORDER = [
    "source",
    "transformation",
    "predicate",
    "converter",
    "header_converter",
]  # ConnectorPluginsResource's


def test_root_and_plugins(worker):
    code, body, _ = http("GET", worker.base + "/")
    assert code == 200 and set(body) == {"version", "commit", "kafka_cluster_id"}  # ServerInfo
    for q in ("", "?connectorsOnly=false", "?connectorsOnly=true"):
        code, plugins, _ = http("GET", worker.base + "/connector-plugins" + q)
        assert code == 200 and {"class": PG_CLASS, "type": "source", "version": "3.6.3.Final"} in plugins
        assert all(set(p) == {"class", "type", "version"} for p in plugins)  # PluginInfo
        types = {p["type"] for p in plugins}
        every = {"source", "transformation", "predicate", "converter", "header_converter"}
        assert types == (every if q.endswith("false") else {"source"})
        if q.endswith("false"):
            # session 19: every converter and transform the emulator runs, with the version each class reports
            # on a Connect worker (Versioned.version() of the Kafka 4.x / Debezium 3.6.3 jars; Confluent's
            # AvroConverter is not Versioned: PluginDesc's "undefined")
            kafka = http("GET", worker.base + "/")[1]["version"]
            for expected in (
                {"class": NUMBERS + "IntegerConverter", "type": "converter", "version": kafka},
                {"class": NUMBERS + "BooleanConverter", "type": "header_converter", "version": kafka},
                {"class": NUMBERS + "DoubleConverter", "type": "header_converter", "version": kafka},
                {
                    "class": "io.confluent.connect.avro.AvroConverter",
                    "type": "converter",
                    "version": "undefined",
                },
                {
                    "class": "io.debezium.converters.CloudEventsConverter",
                    "type": "converter",
                    "version": "3.6.3.Final",
                },
                {
                    "class": "io.debezium.transforms.ExtractNewRecordState",
                    "type": "transformation",
                    "version": "3.6.3.Final",
                },
                {
                    "class": "org.apache.kafka.connect.transforms.Cast$Value",
                    "type": "transformation",
                    "version": kafka,
                },
                {
                    "class": "org.apache.kafka.connect.transforms.predicates.HasHeaderKey",
                    "type": "predicate",
                    "version": kafka,
                },
            ):
                assert expected in plugins, expected
            assert [p["type"] for p in plugins] == sorted((p["type"] for p in plugins), key=ORDER.index)
            assert not any(
                p["class"].endswith("AvroConverter") and p["type"] == "header_converter" for p in plugins
            )
    for alias in (PG_CLASS, "PostgresConnector", "Postgres"):
        code, keys, _ = http("GET", f"{worker.base}/connector-plugins/{alias}/config")
        assert code == 200 and isinstance(keys, list)
        key_info = {
            "name",
            "type",
            "required",
            "default_value",
            "importance",
            "documentation",
            "group",
            "order",
            "width",
            "display_name",
            "dependents",
        }  # ConfigKeyInfo's JSON properties
        assert all(set(k) == key_info for k in keys)
        by_name = {k["name"]: k for k in keys}
        assert by_name["database.hostname"]["type"] == "STRING"
        assert by_name["snapshot.mode"]["default_value"] == "initial"
    assert http("GET", worker.base + "/connector-plugins/Nope/config")[:2] == (
        404,
        {"error_code": 404, "message": "Unknown plugin Nope."},
    )


def test_config_validate(pg, worker):
    url = worker.base + "/connector-plugins/PostgresConnector/config/validate"
    good = props(pg, "v1")
    code, infos, _ = http("PUT", url, good)
    assert code == 200 and set(infos) == {"name", "error_count", "groups", "configs"}  # ConfigInfos
    assert infos["name"] == PG_CLASS and infos["error_count"] == 0 and isinstance(infos["groups"], list)
    for c in infos["configs"]:
        assert set(c) == {"definition", "value"}
        assert set(c["value"]) == {"name", "value", "recommended_values", "errors", "visible"}
    values = {c["value"]["name"]: c["value"] for c in infos["configs"]}
    assert values["database.hostname"]["value"] == "127.0.0.1"
    assert values["database.password"]["value"] == "[hidden]"
    assert (
        "never" not in values["snapshot.mode"]["recommended_values"]
        and "initial" in values["snapshot.mode"]["recommended_values"]
    )

    code, infos, _ = http("PUT", url, {**good, "snapshot.mode": "sometimes"})
    assert code == 200 and infos["error_count"] == 1
    errs = {c["value"]["name"]: c["value"]["errors"] for c in infos["configs"] if c["value"]["errors"]}
    assert list(errs) == ["snapshot.mode"]

    code, infos, _ = http(
        "PUT", url, {**good, "database.dbname": "nosuchdb", "database.password": "s3cr3t-x"}
    )
    assert code == 200 and infos["error_count"] == 1
    errs = {c["value"]["name"]: c["value"]["errors"] for c in infos["configs"] if c["value"]["errors"]}
    assert list(errs) == ["database.hostname"] and errs["database.hostname"][0].startswith(
        "Unable to connect"
    )
    assert "nosuchdb" in errs["database.hostname"][0] and "s3cr3t-x" not in json.dumps(infos)

    code, body, _ = http("PUT", worker.base + "/connector-plugins/MySqlConnector/config/validate", good)
    assert (code, body) == (
        400,
        {
            "error_code": 400,
            "message": f"Included connector type {PG_CLASS} does not match request type MySqlConnector",
        },
    )


def test_connector_lifecycle(pg, worker):
    b = worker.base
    name = "life"
    config = {k: v for k, v in props(pg, name).items() if k != "name"}
    try:
        # validation with the connection first: 400, nothing registered
        code, body, _ = http(
            "POST", b + "/connectors", {"name": name, "config": {**config, "database.port": "1"}}
        )
        assert code == 400 and body["message"].startswith(
            "Connector configuration is invalid and contains the following 1 error(s):\nUnable to connect"
        )
        assert http("GET", b + "/connectors")[1] == []

        code, info, headers = http("POST", b + "/connectors", {"name": name, "config": config})
        assert code == 201 and headers["location"].endswith(f"/connectors/{name}")
        assert info == {
            "name": name,
            "config": {**config, "name": name},
            "tasks": [{"connector": name, "task": 0}],
            "type": "source",
        }  # ConnectorInfo
        assert http("POST", b + "/connectors", {"name": name, "config": config})[:2] == (
            409,
            {"error_code": 409, "message": f"Connector {name} already exists"},
        )
        assert (worker.state / "connectors").stat().st_mode & 0o777 == 0o700
        for f in (worker.state / "connectors").iterdir():
            assert stat.S_IMODE(f.stat().st_mode) == 0o600

        def running():
            st = http("GET", f"{b}/connectors/{name}/status")[1]
            return (
                st["connector"]["state"] == "RUNNING"
                and st["tasks"]
                and st["tasks"][0]["state"] == "RUNNING"
                and st
            )

        st = worker.wait(running, 30, "RUNNING")
        assert st == {
            "name": name,
            "connector": {"state": "RUNNING", "worker_id": st["connector"]["worker_id"]},
            "tasks": [{"id": 0, "state": "RUNNING", "worker_id": st["connector"]["worker_id"]}],
            "type": "source",
        }  # ConnectorStateInfo
        code, expanded, _ = http("GET", b + "/connectors?expand=status&expand=info")
        assert code == 200 and set(expanded) == {name} and set(expanded[name]) == {"status", "info"}
        assert expanded[name]["info"]["name"] == name and expanded[name]["status"]["name"] == name
        assert set(http("GET", b + "/connectors?expand=status")[1][name]) == {"status"}
        assert http("GET", f"{b}/connectors/{name}")[1]["name"] == name
        assert http("GET", f"{b}/connectors/{name}/tasks")[1] == [
            {"id": {"connector": name, "task": 0}, "config": {**config, "name": name}}
        ]  # TaskInfo
        assert http("GET", f"{b}/connectors/{name}/tasks/0/status")[1]["id"] == 0
        assert http("GET", f"{b}/connectors/{name}/tasks/1/status")[:2] == (
            404,
            {"error_code": 404, "message": f"No status found for task {name}-1"},
        )
        assert http("POST", f"{b}/connectors/{name}/tasks/0/restart")[0] == 204

        # PATCH config (KIP-477): keys replace, nulls remove
        code, info, _ = http("PATCH", f"{b}/connectors/{name}/config", {"snapshot.fetch.size": "100"})
        assert code == 200 and info["config"]["snapshot.fetch.size"] == "100"
        code, info, _ = http("PATCH", f"{b}/connectors/{name}/config", {"snapshot.fetch.size": None})
        assert code == 200 and "snapshot.fetch.size" not in info["config"]
        assert http("GET", f"{b}/connectors/{name}/config")[1] == {**config, "name": name}
        code, body, _ = http("PATCH", f"{b}/connectors/{name}/config", {"snapshot.mode": "sometimes"})
        assert code == 400 and "snapshot.mode" in body["message"]
        # PUT config: 200 for an update, a name mismatch is 400
        assert http("PUT", f"{b}/connectors/{name}/config", config)[0] == 200
        assert http("PUT", f"{b}/connectors/{name}/config", {**config, "name": "other"})[:2] == (
            400,
            {
                "error_code": 400,
                "message": f"Connector name configuration (other) doesn't match connector "
                f"name in the URL ({name})",
            },
        )

        assert http("POST", f"{b}/connectors/{name}/restart")[0] == 204
        code, st, _ = http("POST", f"{b}/connectors/{name}/restart?includeTasks=true&onlyFailed=false")
        assert code == 202 and set(st) == {"name", "connector", "tasks", "type"}
        worker.wait(running, 30, "RUNNING after restart")
        code, topics, _ = http("GET", f"{b}/connectors/{name}/topics")
        assert code == 200 and list(topics) == [name] and set(topics[name]) == {"topics"}  # ActiveTopicsInfo
        assert http("PUT", f"{b}/connectors/{name}/topics/reset")[0] == 202

        offsets = worker.wait(
            lambda: http("GET", f"{b}/connectors/{name}/offsets")[1]["offsets"], 30, "offsets"
        )
        assert offsets[0]["partition"] == {"server": name} and set(offsets[0]) == {"partition", "offset"}
        assert http(
            "PATCH",
            f"{b}/connectors/{name}/offsets",
            {"offsets": [{"partition": {"server": name}, "offset": {"lsn": 1}}]},
        )[:2] == (
            400,
            {
                "error_code": 400,
                "message": "Connectors must be in the STOPPED state before their offsets can be modified. This can "
                f"be done for the specified connector by issuing a 'PUT' request to the "
                f"'/connectors/{name}/stop' endpoint",
            },
        )
        assert http("DELETE", f"{b}/connectors/{name}/offsets")[0] == 400

        assert http("PUT", f"{b}/connectors/{name}/pause")[0] == 202
        worker.wait(
            lambda: http("GET", f"{b}/connectors/{name}/status")[1]["connector"]["state"] == "PAUSED",
            30,
            "PAUSED",
        )
        assert http("PUT", f"{b}/connectors/{name}/resume")[0] == 202
        worker.wait(running, 30, "RUNNING after resume")
        assert http("PUT", f"{b}/connectors/{name}/stop")[0] == 204
        st = http("GET", f"{b}/connectors/{name}/status")[1]
        assert st["connector"]["state"] == "STOPPED" and st["tasks"] == []
        assert http("GET", f"{b}/connectors/{name}/tasks")[1] == []
        assert http("GET", f"{b}/connectors/{name}")[1]["tasks"] == []
        assert http("PATCH", f"{b}/connectors/{name}/offsets", {})[:2] == (
            400,
            {
                "error_code": 400,
                "message": "Partitions / offsets need to be provided for an alter offsets request",
            },
        )

        assert http("DELETE", f"{b}/connectors/{name}")[0] == 204
        assert http("GET", f"{b}/connectors/{name}/status")[:2] == (
            404,
            {"error_code": 404, "message": f"Connector {name} not found"},
        )
        # PUT config of a new connector creates it: 201
        code, info, headers = http("PUT", f"{b}/connectors/{name}/config", config)
        assert code == 201 and info["name"] == name and headers["location"].endswith(f"/connectors/{name}")
        worker.wait(running, 30, "RUNNING (created by PUT)")
        assert http("DELETE", f"{b}/connectors/{name}")[0] == 204
    finally:
        http("DELETE", f"{b}/connectors/{name}")
        time.sleep(0.5)
        drop_slot(pg, name)
    assert worker.alive()


def test_loggers(worker):
    b = worker.base
    code, loggers, _ = http("GET", b + "/admin/loggers")
    assert (
        code == 200 and "root" in loggers and set(loggers["root"]) == {"level", "last_modified"}
    )  # LoggerLevel
    code, affected, _ = http("PUT", b + "/admin/loggers/emulator.worker", {"level": "DEBUG"})
    assert code == 200 and "emulator.worker" in affected
    code, level, _ = http("GET", b + "/admin/loggers/emulator.worker")
    assert code == 200 and level["level"] == "DEBUG" and isinstance(level["last_modified"], int)
    assert (
        http(
            "PUT",
            b + "/admin/loggers/emulator.worker",
            {"level": "INFO"},
        )[0]
        == 200
    )
    assert http("PUT", b + "/admin/loggers/emulator.worker?scope=cluster", {"level": "INFO"})[0] == 204
    assert http("PUT", b + "/admin/loggers/emulator.worker", {})[:2] == (
        400,
        {"error_code": 400, "message": "Desired 'level' parameter was not specified in request."},
    )
    assert http("PUT", b + "/admin/loggers/emulator.worker", {"level": "LOUD"})[:2] == (
        404,
        {"error_code": 404, "message": "invalid log level 'LOUD'."},
    )
    assert http("GET", b + "/admin/loggers/no.such.logger")[:2] == (
        404,
        {"error_code": 404, "message": "Logger no.such.logger not found."},
    )


def test_failure_later_shows_failed_with_trace_and_restart_only_failed(pg, worker):
    b = worker.base
    name = "fails"
    config = {k: v for k, v in props(pg, name, **{"errors.max.retries": "0"}).items() if k != "name"}
    try:
        assert http("POST", b + "/connectors", {"name": name, "config": config})[0] == 201

        def streaming():
            m = http("GET", f"{b}/connectors/{name}/metrics")[1]
            return m["streaming"]["Connected"]

        worker.wait(streaming, 60, "streaming")
        with pg.connect() as conn:  # the database drops the connector's replication connection
            conn.execute(
                "SELECT pg_terminate_backend(active_pid) FROM pg_replication_slots WHERE slot_name = %s",
                (name,),
            )

        def failed():
            st = http("GET", f"{b}/connectors/{name}/status")[1]
            return st["tasks"] and st["tasks"][0]["state"] == "FAILED" and st

        st = worker.wait(failed, 60, "FAILED")
        assert st["connector"]["state"] == "RUNNING"  # as Connect: the connector runs, its task failed
        assert (
            set(st["tasks"][0]) == {"id", "state", "worker_id", "trace"}
            and "Traceback" in st["tasks"][0]["trace"]
        )
        assert http("GET", f"{b}/connectors/{name}/tasks/0/status")[1]["state"] == "FAILED"
        code, st, _ = http("POST", f"{b}/connectors/{name}/restart?includeTasks=true&onlyFailed=true")
        assert code == 202 and st["name"] == name
        worker.wait(
            lambda: http("GET", f"{b}/connectors/{name}/status")[1]["tasks"][0]["state"] == "RUNNING",
            60,
            "RUNNING",
        )
        assert worker.alive()
    finally:
        http("DELETE", f"{b}/connectors/{name}")
        time.sleep(0.5)
        drop_slot(pg, name)


DOCKER = Path(__file__).resolve().parent.parent / "docker"


@pytest.mark.skipif(shutil.which("curl") is None, reason="curl not installed")
def test_docker_curl_scripts_unchanged(pg, worker, tmp_path):
    """The compose `register` command and docker/connect-api.sh, run with curl as written, against the worker."""
    import yaml

    name = "curl-pg"
    doc = {"name": name, "config": {k: v for k, v in props(pg, "curlpg").items() if k != "name"}}
    reg = tmp_path / "register.json"
    reg.write_text(json.dumps(doc))
    compose = yaml.safe_load((DOCKER / "compose.yaml").read_text())
    cmd = compose["services"]["register"]["command"][-1].replace("$$", "$")
    cmd = cmd.replace("http://emulator:8083", worker.base).replace("@/connectors/postgres.json", f"@{reg}")
    env = {**os.environ, "CONNECT_URL": worker.base}
    try:
        first = subprocess.run(["sh", "-c", cmd], capture_output=True, text=True, timeout=60)
        assert first.returncode == 0 and "HTTP 201" in first.stdout, first
        again = subprocess.run(["sh", "-c", cmd], capture_output=True, text=True, timeout=60)
        assert again.returncode == 0 and "HTTP 409" in again.stdout, again

        def api(*args: str) -> tuple[int, object]:
            r = subprocess.run(
                ["sh", str(DOCKER / "connect-api.sh"), *args],
                capture_output=True,
                text=True,
                timeout=60,
                env=env,
            )
            assert r.returncode == 0, r
            body, _, code = r.stdout.rstrip("\n").rpartition("\nHTTP ")
            return int(code), json.loads(body) if body.strip() else None

        assert api("list")[0] == 200 and name in api("list")[1]
        assert api("plugins")[0] == 200
        cfg = tmp_path / "config.json"
        cfg.write_text(json.dumps(doc["config"]))
        code, infos = api("validate", "PostgresConnector", str(cfg))
        assert code == 200 and infos["error_count"] == 0
        assert (
            api("status", name)[0] == 200 and api("config", name)[0] == 200 and api("tasks", name)[0] == 200
        )
        assert api("set-config", name, str(cfg))[0] == 200
        assert api("patch-config", name, '{"snapshot.fetch.size": "500"}')[0] == 200
        assert api("pause", name)[0] == 202 and api("resume", name)[0] == 202
        assert api("restart", name)[0] == 202 and api("restart-task", name)[0] == 204
        assert api("topics", name)[0] == 200 and api("metrics", name)[0] == 200
        assert api("stop", name)[0] == 204 and api("offsets", name)[0] == 200
        assert api("reset-offsets", name)[0] == 200
        code, loggers = api("loggers")
        assert code == 200 and "root" in loggers
        assert api("log-level", "emulator.worker", "INFO")[0] == 200
        assert api("delete", name)[0] == 204
        # a registration whose file is the registration body: register also with a trailing slash
        code, info = api("register", str(reg))
        assert code == 201 and info["name"] == name
        assert api("delete", name)[0] == 204
    finally:
        http("DELETE", f"{worker.base}/connectors/{name}")
        time.sleep(0.5)
        drop_slot(pg, "curlpg")


@pytest.mark.parametrize(
    "content,why",
    [
        (b"{not json", "cannot be read as JSON"),
        (b"[1, 2]", "not a JSON object"),
        (b'{"name": "..", "config": {}}', "not a valid connector name"),
        (b'{"name": "ok", "config": {"a": 1}}', "not an object of strings"),
        (b'{"name": "ok", "config": {}, "target": "SLEEPING"}', "must be RUNNING, PAUSED or STOPPED"),
    ],
)
def test_bad_state_file_stops_the_worker_naming_it(tmp_path, content, why):
    w = WorkerProcess(tmp_path)
    (w.state / "connectors").mkdir(parents=True)
    bad = w.state / "connectors" / "ok.json"
    bad.write_bytes(content)
    r = subprocess.run(
        [sys.executable, "-m", "emulator", *w.args], capture_output=True, text=True, timeout=60
    )
    assert r.returncode == 2, r
    lines = r.stderr.strip().splitlines()
    assert lines[-1].startswith(f"error: state file {bad}: ") and why in lines[-1], r.stderr
    assert stat.S_IMODE(bad.stat().st_mode) == 0o600 and stat.S_IMODE(w.state.stat().st_mode) == 0o700
