"""Kafka Connect config providers (issue 14 item 6) in the three config forms, and no secret in any log line.

Expected values are the files' and variables' contents written here; a real MariaDB checks that the
resolved password is the one the server accepts, and that a whole run at debug level never prints it.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from emulator.config import ConfigError, from_dict, load_config_text
from emulator.preflight import check
from emulator.testing import mariadbserver
from emulator.testing.mariadbserver import MariaDbServer

SECRET = "Zq(9[x]\\y'é-secret"
PROVIDERS = {
    "config.providers": "file,env,dir",
    "config.providers.file.class": "org.apache.kafka.common.config.provider.FileConfigProvider",
    "config.providers.env.class": "org.apache.kafka.common.config.provider.EnvVarConfigProvider",
    "config.providers.dir.class": "org.apache.kafka.common.config.provider.DirectoryConfigProvider",
}
BASE = {
    "connector.class": "io.debezium.connector.postgresql.PostgresConnector",
    "topic.prefix": "cp",
    "database.hostname": "127.0.0.1",
    "database.dbname": "postgres",
    "plugin.name": "pgoutput",
}


@pytest.fixture
def secrets(tmp_path: Path) -> Path:
    (tmp_path / "db.properties").write_text(
        "password = " + SECRET.replace("\\", "\\\\") + "\nuser=fromfile\n", encoding="utf-8"
    )
    d = tmp_path / "secrets"
    d.mkdir()
    (d / "sslpw").write_bytes(b"dir-secret\n")  # the whole content, newline included
    return tmp_path


def _refs(root: Path) -> dict[str, str]:
    return {
        "database.password": f"${{file:{root}/db.properties:password}}",
        "database.user": "${env:CP_USER}",
        "database.sslpassword": f"${{dir:{root}/secrets:sslpw}}",
        "heartbeat.action.query": "SELECT '${notaprovider:x}'",  # not a configured alias: literal
    }


def _check(config, root: Path, literal: str = "SELECT '${notaprovider:x}'") -> None:
    assert config.get("database.password") == SECRET
    assert config.get("database.user") == "env-user"
    assert config.get("database.sslpassword") == "dir-secret\n"
    assert config.get("heartbeat.action.query") == literal
    assert config.raw["database.password"] == f"${{file:{root}/db.properties:password}}"
    assert SECRET not in repr(config) and "dir-secret" not in repr(config)


def test_properties_form(secrets: Path) -> None:
    props = {**BASE, **PROVIDERS, **_refs(secrets)}
    text = "".join(f"{k}={v}\n" for k, v in props.items())
    _check(load_config_text(text, environ={"CP_USER": "env-user"}), secrets)


def test_connect_json_form(secrets: Path) -> None:
    body = {"name": "cp", "config": {**BASE, **PROVIDERS, **_refs(secrets)}}
    _check(load_config_text(json.dumps(body), environ={"CP_USER": "env-user"}), secrets)


def test_debezium_server_form(secrets: Path) -> None:
    props = {**BASE, **PROVIDERS, **_refs(secrets)}
    text = "".join(f"debezium.source.{k}={v}\n" for k, v in props.items()) + "debezium.sink.type=stdout\n"
    # there, a `${name:default}` that is no provider's is Quarkus's own expression: its default
    _check(load_config_text(text, environ={"CP_USER": "env-user"}), secrets, "SELECT 'x'")


@pytest.mark.parametrize(
    "extra,prop,fragment",
    [
        (
            {"database.password": "${file:/nonexistent/x.properties:password}"},
            "database.password",
            "cannot read",
        ),
        (
            {"database.password": "${file:{root}/db.properties:nokey}"},
            "database.password",
            "no property nokey",
        ),
        ({"database.user": "${env:CP_NOT_SET_ANYWHERE}"}, "database.user", "not set"),
        ({"database.password": "${dir:{root}/secrets:nofile}"}, "database.password", "no file nofile"),
        ({"database.password": "${dir:{root}/secrets:../db.properties}"}, "database.password", "no file"),
        (
            {
                "config.providers.file.param.allowed.paths": "/nowhere",
                "database.password": "${file:{root}/db.properties:password}",
            },
            "database.password",
            "allowed.paths",
        ),
        (
            {"config.providers.env.param.allowlist.pattern": "DBZ_.*", "database.user": "${env:CP_USER}"},
            "database.user",
            "not allowed",
        ),
        (
            {"config.providers.env.class": "com.example.VaultConfigProvider"},
            "config.providers.env.class",
            "not supported",
        ),
        ({"config.providers": "file,env,dir,x"}, "config.providers.x.class", "required"),
    ],
)
def test_unresolvable_references_name_the_property(secrets: Path, extra, prop, fragment) -> None:
    extra = {k: v.replace("{root}", str(secrets)) for k, v in extra.items()}
    with pytest.raises(ConfigError) as err:
        from_dict({**BASE, **PROVIDERS, **extra}, environ={"CP_USER": "u"})
    assert err.value.property == prop and fragment in str(err.value), str(err.value)
    assert SECRET not in str(err.value)


def test_without_config_providers_references_stay_literal() -> None:
    config = from_dict({**BASE, "database.user": "u", "database.password": "${file:/x:y}"})
    assert config.get("database.password") == "${file:/x:y}"


# -- a real server takes the resolved password; no log line shows it -------------------------------------------


@pytest.fixture(scope="module")
def maria():
    if not mariadbserver.available():
        pytest.skip("MariaDB server binaries not installed")
    with MariaDbServer() as s:
        pw = SECRET.replace("\\", "\\\\").replace("'", "\\'")
        s.sql(
            f"CREATE USER 'sec'@'127.0.0.1' IDENTIFIED BY '{pw}';"
            "GRANT SELECT, RELOAD, SHOW DATABASES, LOCK TABLES, REPLICATION SLAVE, REPLICATION CLIENT, "
            "BINLOG MONITOR ON *.* TO 'sec'@'127.0.0.1';"
            "CREATE DATABASE cpdb; CREATE TABLE cpdb.t (id INT PRIMARY KEY); INSERT INTO cpdb.t VALUES (1);"
        )
        yield s


@pytest.mark.parametrize("provider", ["file", "env", "dir"])
def test_mariadb_accepts_the_resolved_password(maria, secrets: Path, provider: str) -> None:
    (secrets / "secrets" / "pw").write_text(SECRET, encoding="utf-8")
    ref = {
        "file": f"${{file:{secrets}/db.properties:password}}",
        "env": "${env:CP_PW}",
        "dir": f"${{dir:{secrets}/secrets:pw}}",
    }[provider]
    props = maria.connector_properties(
        **{
            **PROVIDERS,
            "database.user": "sec",
            "database.password": ref,
            "database.server.id": "6301",
            "topic.prefix": "cp",
        }
    )
    config = from_dict(props, environ={"CP_PW": SECRET})
    assert check(config) is None  # the server accepted the password the provider gave


def test_no_secret_in_any_log_line(maria, secrets: Path, tmp_path: Path) -> None:
    props = maria.connector_properties(
        **{
            **PROVIDERS,
            "database.user": "sec",
            "database.password": "${env:CP_PW}",
            "database.server.id": "6302",
            "topic.prefix": "cplog",
            "database.include.list": "cpdb",
            "snapshot.mode": "initial_only",
            "schema.history.internal.file.filename": str(tmp_path / "h.dat"),
        }
    )
    cfg = tmp_path / "c.json"
    cfg.write_text(json.dumps({"name": props["name"], "config": props}))
    env = {
        "CP_PW": SECRET,
        "PATH": "/usr/bin:/bin",
        **{k: v for k, v in __import__("os").environ.items() if k.startswith("PYTHON")},
    }
    r = subprocess.run(
        [sys.executable, "-m", "emulator", "-v", "run", str(cfg), "--out", str(tmp_path / "out")],
        capture_output=True,
        text=True,
        timeout=120,
        env=env,
    )
    assert r.returncode == 0, r.stderr
    assert "cplog.cpdb.t" in {p.stem for p in (tmp_path / "out").glob("*.jsonl")}
    assert SECRET not in r.stderr and SECRET not in r.stdout
    # and a bad password's error line does not show it either
    cfg.write_text(json.dumps({"name": props["name"], "config": {**props, "database.user": "debezium"}}))
    r = subprocess.run(
        [sys.executable, "-m", "emulator", "-v", "run", str(cfg), "--out", str(tmp_path / "out2")],
        capture_output=True,
        text=True,
        timeout=120,
        env=env,
    )
    assert r.returncode == 1 and "access denied" in r.stderr
    assert SECRET not in r.stderr
