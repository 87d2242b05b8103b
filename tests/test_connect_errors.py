"""Errors with a cause (issue 14 item 3, the CLI part), on a real PostgreSQL and a real MariaDB.

A connector that can never work - wrong password, unknown database, missing REPLICATION / binlog
privileges, wrong binlog_format or binlog_row_image, wal_level not logical, no right to create the
publication - stops with exit 1 and ONE line naming the server, the cause and the fix, without retrying
(errors.max.retries is left at its default, -1: retry forever, so exiting at all shows it is not retried)
and without the password. A server that cannot be reached is retried as errors.max.retries says, one log
line per attempt. emulator.preflight.check() says the same to an in-process caller (the REST worker).
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from emulator.preflight import ConnectError, check
from emulator.testing import mariadbserver
from emulator.testing.mariadbserver import MariaDbServer, free_port
from emulator.testing.pgserver import PgServer

SECRET = "s3cret-(pw)-\u00e9"


def _cli(tmp_path: Path, props: dict[str, str]) -> subprocess.CompletedProcess:
    cfg = tmp_path / "c.json"
    cfg.write_text(json.dumps({"name": props.get("name", "x"), "config": props}))
    return subprocess.run(
        [sys.executable, "-m", "emulator", "run", str(cfg), "--out", str(tmp_path / "out")],
        capture_output=True,
        text=True,
        timeout=120,
    )


def _one_error_line(r: subprocess.CompletedProcess, *fragments: str) -> str:
    assert r.returncode == 1, r.stderr
    errors = [ln for ln in r.stderr.splitlines() if ln.startswith("error:")]
    assert len(errors) == 1, r.stderr
    assert "Traceback" not in r.stderr
    assert SECRET not in r.stderr
    for f in fragments:
        assert f in errors[0], (f, errors[0])
    return errors[0]


# -- PostgreSQL -----------------------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def pg():
    with PgServer() as server:
        hba = server.data / "pg_hba.conf"
        # these roles log in with a password (the rest of the test cluster trusts everyone)
        hba.write_text(
            "host all pwuser 127.0.0.1/32 scram-sha-256\n"
            "host replication pwuser 127.0.0.1/32 scram-sha-256\n" + hba.read_text()
        )
        with server.connect() as c:
            c.execute("SET password_encryption = 'scram-sha-256'")
            c.execute("CREATE ROLE pwuser LOGIN REPLICATION PASSWORD 'right-one'")
            c.execute("CREATE ROLE norepl LOGIN")
            c.execute("CREATE ROLE replonly LOGIN REPLICATION")
            c.execute("SELECT pg_reload_conf()")
        yield server


def _pg_props(pg: PgServer, **extra: str) -> dict[str, str]:
    return pg.connector_properties(
        **{
            "topic.prefix": "ce",
            "slot.name": "ce",
            "publication.name": "ce_pub",
            "snapshot.mode": "no_data",
            **extra,
        }
    )


def test_postgres_wrong_password(pg, tmp_path) -> None:
    props = _pg_props(pg, **{"database.user": "pwuser", "database.password": SECRET})
    line = _one_error_line(
        _cli(tmp_path, props),
        f"PostgreSQL at 127.0.0.1:{pg.port}",
        "password authentication failed",
        "database.password",
    )
    assert "pwuser" in line
    with pytest.raises(ConnectError) as err:
        check(props)
    assert not err.value.transient and "password" in str(err.value)


def test_postgres_unknown_database(pg, tmp_path) -> None:
    _one_error_line(
        _cli(tmp_path, _pg_props(pg, **{"database.dbname": "nosuchdb"})),
        "nosuchdb",
        "does not exist",
        "database.dbname",
    )


def test_postgres_missing_replication_privilege(pg, tmp_path) -> None:
    _one_error_line(
        _cli(tmp_path, _pg_props(pg, **{"database.user": "norepl"})), "norepl", "REPLICATION", "ALTER ROLE"
    )


def test_postgres_missing_publication_rights(pg, tmp_path) -> None:
    _one_error_line(
        _cli(tmp_path, _pg_props(pg, **{"database.user": "replonly"})),
        "replonly",
        "FOR ALL TABLES",
        "superuser",
    )
    _one_error_line(
        _cli(tmp_path, _pg_props(pg, **{"publication.autocreate.mode": "disabled"})),
        "ce_pub",
        "does not exist",
        "CREATE PUBLICATION",
    )


def test_postgres_wal_level_not_logical(tmp_path) -> None:
    with PgServer(extra_conf={"wal_level": "replica"}) as other:
        _one_error_line(_cli(tmp_path, _pg_props(other)), "wal_level is replica", "wal_level = logical")


def test_postgres_good_configuration_passes_the_preflight(pg) -> None:
    assert check(_pg_props(pg)) is None


def test_an_unreachable_server_is_retried_as_configured(tmp_path) -> None:
    port = free_port()  # nothing listens there
    props = {
        "name": "ur",
        "connector.class": "io.debezium.connector.postgresql.PostgresConnector",
        "database.hostname": "127.0.0.1",
        "database.port": str(port),
        "database.user": "u",
        "database.password": SECRET,
        "database.dbname": "d",
        "topic.prefix": "ur",
        "plugin.name": "pgoutput",
        "errors.max.retries": "2",
        "retriable.restart.connector.wait.ms": "50",
    }
    r = _cli(tmp_path, props)
    assert r.returncode == 1, r.stderr
    attempts = [ln for ln in r.stderr.splitlines() if "restarting in" in ln]
    assert len(attempts) == 2, r.stderr
    assert "retry 1 of 2" in attempts[0] and "retry 2 of 2" in attempts[1]
    assert SECRET not in r.stderr
    with pytest.raises(ConnectError) as err:
        check(props)
    assert err.value.transient


# -- MariaDB ----------------------------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def maria():
    if not mariadbserver.available():
        pytest.skip("MariaDB server binaries not installed")
    with MariaDbServer() as s:
        s.sql(
            "CREATE USER 'weak'@'127.0.0.1' IDENTIFIED BY 'weakpw'; GRANT SELECT ON *.* TO 'weak'@'127.0.0.1';"
            "CREATE USER 'halfway'@'127.0.0.1' IDENTIFIED BY 'halfpw';"
            "GRANT SELECT, REPLICATION SLAVE ON *.* TO 'halfway'@'127.0.0.1';"
        )
        yield s


def _maria_props(maria: MariaDbServer, **extra: str) -> dict[str, str]:
    return maria.connector_properties(
        **{"topic.prefix": "ce", "database.server.id": "6201", "snapshot.mode": "no_data", **extra}
    )


def test_mariadb_wrong_password(maria, tmp_path) -> None:
    props = _maria_props(maria, **{"database.password": SECRET})
    _one_error_line(
        _cli(tmp_path, props), f"MariaDB at 127.0.0.1:{maria.port}", "access denied", "database.password"
    )
    with pytest.raises(ConnectError) as err:
        check(props)
    assert not err.value.transient


def test_mariadb_missing_binlog_privileges(maria, tmp_path) -> None:
    _one_error_line(
        _cli(tmp_path, _maria_props(maria, **{"database.user": "weak", "database.password": "weakpw"})),
        "'weak'",
        "REPLICATION SLAVE",
        "GRANT",
    )
    _one_error_line(
        _cli(tmp_path, _maria_props(maria, **{"database.user": "halfway", "database.password": "halfpw"})),
        "'halfway'",
        "BINLOG MONITOR",
        "GRANT REPLICATION CLIENT",
    )


@pytest.mark.parametrize("variable,value", [("binlog_format", "MIXED"), ("binlog_row_image", "MINIMAL")])
def test_mariadb_wrong_binlog_settings(maria, tmp_path, variable: str, value: str) -> None:
    original = maria.query(f"SELECT @@GLOBAL.{variable}")[0][0]
    maria.sql(f"SET GLOBAL {variable} = '{value}'")
    try:
        _one_error_line(
            _cli(tmp_path, _maria_props(maria)), f"{variable} is {value}", f"SET GLOBAL {variable}"
        )
    finally:
        maria.sql(f"SET GLOBAL {variable} = '{original}'")


def test_mariadb_good_configuration_passes_the_preflight(maria) -> None:
    assert check(_maria_props(maria)) is None


def test_in_process_a_fatal_failure_is_not_retried(maria) -> None:
    """Without the CLI's preflight (the in-process API), the runner itself stops retrying a failure that
    retrying cannot cure."""

    import pytest

    from emulator.api import Capture, CaptureError

    cap = Capture(_maria_props(maria, **{"database.password": SECRET}))
    try:
        with pytest.raises(CaptureError) as err:  # start() waits for streaming: the failure comes at once
            cap.start(timeout=60)
        assert isinstance(err.value.__cause__, ConnectError), err.value.__cause__
        assert "access denied" in str(err.value) and SECRET not in str(err.value)
    finally:
        cap.stop()


def test_a_record_debezium_writes_is_never_skipped(pg) -> None:
    """AvroConverter use.latest.version with a latest schema that puts the record's values in other fields:
    Confluent's converter (latest.compatibility.strict=false: no check) writes the record's datum with the latest
    schema by position — `before` as `x` —, which the emulator does not copy (it would lose data;
    docs/converters.md). Under errors.tolerance=all Connect's skip would apply to a real conversion error, but
    this record Debezium writes: skipping it would lose it (campaign connect 75, trial 11), so the task stops,
    naming the option."""
    from emulator.api import Capture, CaptureError
    from emulator.connect.converters.registry import mock_scope

    pg.psql(
        "CREATE TABLE public.latest_t (id int PRIMARY KEY, v text); INSERT INTO public.latest_t VALUES (1, 'a');"
    )
    other = {"type": "record", "name": "Other", "fields": [{"name": "x", "type": ["null", "string"]}]}
    mock_scope("latest_nle").register("nle.public.latest_t-value", json.dumps(other))
    props = pg.connector_properties(
        **{
            "topic.prefix": "nle",
            "slot.name": "latest_nle",
            "publication.name": "latest_nle_pub",
            "table.include.list": "public.latest_t",
            "value.converter": "io.confluent.connect.avro.AvroConverter",
            "value.converter.schema.registry.url": "mock://latest_nle",
            "value.converter.auto.register.schemas": "false",
            "value.converter.use.latest.version": "true",
            "value.converter.latest.compatibility.strict": "false",
            "errors.tolerance": "all",
        }
    )
    cap = Capture(props).start(wait=False)
    try:
        with pytest.raises(CaptureError, match="use.latest.version"):
            cap.wait_for("nle.public.latest_t", timeout=60)
    finally:
        cap.stop()
