"""The emulator's command line: every error is one line on stderr (exit 2 for bad input, 1 for a failure);
the traceback only with --debug."""

from __future__ import annotations

import subprocess
import sys

import pytest


def _run(*argv: str, timeout: float = 120) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "emulator", *argv], capture_output=True, text=True, timeout=timeout
    )


def _error_line(r: subprocess.CompletedProcess) -> str:
    assert "Traceback" not in r.stderr, r.stderr
    errors = [line for line in r.stderr.splitlines() if line.startswith("error:")]
    assert len(errors) == 1, r.stderr
    assert "usage:" not in r.stderr, r.stderr
    return errors[0]


@pytest.fixture(scope="module")
def pg():
    from emulator.testing.pgserver import PgServer

    with PgServer() as server:
        yield server


def _config(tmp_path, pg, **props) -> str:
    path = tmp_path / "c.properties"
    path.write_text("".join(f"{k}={v}\n" for k, v in pg.connector_properties(**props).items()))
    return str(path)


def test_usage_errors_are_one_line():
    r = _run("run")
    assert r.returncode == 2
    assert (
        _error_line(r)
        == "error: the following arguments are required: config (see python -m emulator run --help)"
    )
    r = _run("frob")
    assert r.returncode == 2 and "invalid choice: 'frob'" in _error_line(r)
    r = _run("run", "x.properties", "--out", "a", "--stdout")
    assert r.returncode == 2 and "not allowed with argument" in _error_line(r)


def test_missing_config_file(tmp_path):
    r = _run("run", str(tmp_path / "nope.properties"))
    assert r.returncode == 2
    assert _error_line(r).startswith(f"error: {tmp_path / 'nope.properties'}: ")


def test_unusable_output_directory(tmp_path, pg):
    (tmp_path / "file").write_text("")
    r = _run("run", _config(tmp_path, pg), "--out", str(tmp_path / "file" / "sub"))
    assert r.returncode == 2
    assert _error_line(r).startswith(f"error: --out {tmp_path / 'file' / 'sub'}: ")


def test_refusing_database_is_one_line_without_traceback(tmp_path, pg):
    # caught by the check before start (validate and connect first): the cause and the fix, exit 1
    cfg = _config(
        tmp_path,
        pg,
        **{"publication.autocreate.mode": "disabled", "publication.name": "nopub", "slot.name": "cli_err"},
    )
    r = _run("run", cfg, "--out", str(tmp_path / "out"))
    assert r.returncode == 1
    line = _error_line(r)
    assert "nopub" in line and "CREATE PUBLICATION" in line


def test_connector_failure_is_one_line_and_debug_shows_the_traceback(tmp_path, pg):
    # a failure only the running connector meets: a snapshot query override the database rejects
    with pg.connect() as conn:
        conn.execute("CREATE TABLE IF NOT EXISTS public.cli_fail (id int PRIMARY KEY)")
    cfg = _config(
        tmp_path,
        pg,
        **{
            "slot.name": "cli_fail",
            "table.include.list": "public.cli_fail",
            "snapshot.select.statement.overrides": "public.cli_fail",
            "snapshot.select.statement.overrides.public.cli_fail": "SELECT no_such_column FROM public.cli_fail",
        },
    )
    r = _run("run", cfg, "--out", str(tmp_path / "out"))
    assert r.returncode == 1
    line = _error_line(r)
    assert "no_such_column" in line and line.endswith("(--debug for the traceback)")
    r = _run("run", cfg, "--out", str(tmp_path / "out2"), "--debug")
    assert (
        r.returncode == 1 and "Traceback (most recent call last)" in r.stderr and "no_such_column" in r.stderr
    )
