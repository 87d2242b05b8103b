"""The docker compose stack, checked without a Docker engine (none runs here): the file parses, the services
are configured as the emulator needs them (logical decoding, full binlog row metadata, a replica set, KRaft),
every service the pipeline waits on has a healthcheck, and every connector config the stack registers is
accepted by the emulator's own validation."""

from __future__ import annotations

import json
import re
import shlex
from pathlib import Path

import pytest

from emulator.config import load_config_text
from emulator.connectors.registry import connector_class

yaml = pytest.importorskip("yaml")

DOCKER = Path(__file__).resolve().parent.parent / "docker"


@pytest.fixture(scope="module")
def compose():
    return yaml.safe_load((DOCKER / "compose.yaml").read_text())


def _cmd(svc: dict) -> str:
    c = svc.get("command", "")
    return " ".join(c) if isinstance(c, list) else c


def test_services_present(compose):
    assert {"kafka", "postgres", "mysql", "mariadb", "mongodb", "emulator", "register", "sink"} <= set(
        compose["services"]
    )


def test_sink_service_reads_kafka_into_tables(compose):
    sink = compose["services"]["sink"]
    argv = sink["command"]
    assert argv[:3] == ["python", "-m", "sink"] and argv[3] == "run"
    assert argv[argv.index("--source") + 1] == "kafka:kafka:9092"
    assert {"--tables", "--checkpoint"} <= set(argv)
    assert sink["depends_on"]["kafka"]["condition"] == "service_healthy"
    assert sink["depends_on"]["register"]["condition"] == "service_completed_successfully"
    dockerfile = (DOCKER / sink["build"]["dockerfile"].removeprefix("docker/")).read_text()
    assert "openjdk-17" in dockerfile and ".[sink]" in dockerfile


def test_healthchecks(compose):
    for name, svc in compose["services"].items():
        if name == "register":
            continue
        hc = svc.get("healthcheck")
        assert hc and hc.get("test"), f"{name} has no healthcheck"
        assert hc["test"][0] in ("CMD", "CMD-SHELL"), name


def test_databases_configured_for_cdc(compose):
    s = compose["services"]
    assert "wal_level=logical" in _cmd(s["postgres"])
    for name in ("mysql", "mariadb"):
        cmd = _cmd(s[name]).replace("_", "-")
        assert "--binlog-row-metadata=FULL" in cmd and "--binlog-format=ROW" in cmd and "--log-bin" in cmd, (
            name
        )
        assert re.search(r"--server-id=\d+", cmd), name
    assert s["mysql"]["image"].startswith("mysql:8")
    assert s["mariadb"]["image"].startswith("mariadb:")
    assert "--replSet" in _cmd(s["mongodb"])
    assert "rs.initiate" in " ".join(s["mongodb"]["healthcheck"]["test"])
    init = s["postgres"]["volumes"][0].split(":")[0]
    assert (DOCKER / init).is_file()


def test_kafka_kraft(compose):
    env = compose["services"]["kafka"]["environment"]
    assert set(env["KAFKA_PROCESS_ROLES"].split(",")) == {"broker", "controller"}
    assert "zookeeper" not in json.dumps(compose).lower()
    assert "kafka:9092" in env["KAFKA_ADVERTISED_LISTENERS"]
    assert env["KAFKA_CONTROLLER_QUORUM_VOTERS"].startswith(f"{env['KAFKA_NODE_ID']}@kafka:")
    assert len(env["CLUSTER_ID"]) == 22


def test_emulator_service(compose):
    s = compose["services"]["emulator"]
    assert (DOCKER.parent / s["build"]["context"].replace("..", ".")).resolve() == DOCKER.parent
    assert (DOCKER / Path(s["build"]["dockerfile"]).name).is_file()
    argv = s["command"]
    assert argv[:4] == ["python", "-m", "emulator", "connect"]
    port = argv[argv.index("--rest-port") + 1]
    assert f"{port}:{port}" in s["ports"] and port == "8083"
    assert argv[argv.index("--rest-host") + 1] == "0.0.0.0"
    assert argv[argv.index("--kafka") + 1] == "kafka:9092"
    state = argv[argv.index("--state") + 1]
    assert any(v.endswith(":" + state) for v in s["volumes"])
    assert s["depends_on"]["kafka"]["condition"] == "service_healthy"
    # the CLI accepts exactly this command line
    from emulator.cli import main

    with pytest.raises(SystemExit) as e:
        main([*argv[3:], "--help"])
    assert e.value.code == 0
    dockerfile = (DOCKER / "Dockerfile").read_text()
    assert "EXPOSE 8083" in dockerfile and "-m emulator connect" in dockerfile


def _registered_files(compose) -> list[Path]:
    reg = compose["services"]["register"]
    mounts = {v.split(":")[1]: v.split(":")[0] for v in reg["volumes"]}
    cmd = _cmd(reg)
    files = []
    for m in re.finditer(r"@(\S+?\.json)", cmd):
        files.append(DOCKER / mounts[m.group(1)])
    return files


def test_registration_step(compose):
    reg = compose["services"]["register"]
    assert reg["depends_on"]["emulator"]["condition"] == "service_healthy"
    cmd = _cmd(reg)
    assert "curl" in cmd and "-X POST" in cmd and "http://emulator:8083/connectors" in cmd
    assert _registered_files(compose)


def test_registered_connectors_pass_validation(compose):
    services = set(compose["services"])
    for path in _registered_files(compose):
        assert path.is_file(), path
        doc = json.loads(path.read_text())
        assert set(doc) == {"name", "config"}
        config = load_config_text(path.read_text(), origin=str(path))
        connector_class(config.connector_class)  # a connector this emulator runs
        assert config.get("database.hostname") in services
        assert config.get("plugin.name") == "pgoutput"


def test_every_mounted_config_is_valid(compose):
    for path in sorted((DOCKER / "connectors").glob("*.json")):
        load_config_text(path.read_text(), origin=str(path))
    for svc in compose["services"].values():
        for v in svc.get("volumes", []):
            src = v.split(":")[0]
            if src.startswith("./"):
                assert (DOCKER / src).exists(), src


def test_register_shell_quoting(compose):
    cmd = compose["services"]["register"]["command"]
    assert cmd[:2] == ["sh", "-c"]
    shlex.split(cmd[2].replace("$$", "$"))  # balanced quotes after compose's $$ unescaping
