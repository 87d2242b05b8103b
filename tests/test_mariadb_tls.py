"""`database.ssl.mode=required` on a real MariaDB that accepts TLS connections only (props, session 11).

The server gets a self-signed certificate made here with openssl and `require_secure_transport=ON`, so every
TCP connection of the capture - the start-up checks, the snapshot's, the binlog reader's - must be TLS or is
refused. A recorded case (Debezium 3.6.3's records, tests/data/mariadb/cases/schema_comments: snapshot, binlog
rows and DDL) replayed with `database.ssl.mode=required` must give the recording: TLS changes the transport,
never a record. `disabled` against the same server must fail at start, as Connector/J's DISABLED does. The
other side - `required` against a server without TLS stops at start as Debezium does - is the recorded case
mariadb/cases/ssl_required_no_tls_stops.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest
from test_mariadb_conformance_cases import CASES, load_case_golden, replay

from emulator.testing import mariadbserver
from emulator.testing.conformance import compare, load_dir
from emulator.testing.differential_mariadb import SPOOFED_VERSION

pytestmark = pytest.mark.skipif(
    not mariadbserver.available() or shutil.which("openssl") is None,
    reason="MariaDB server binaries or openssl not installed",
)


@pytest.fixture(scope="module")
def tls_server():
    # not under pytest's tmp dir: the server may run as the mysql user (tests as root), which cannot enter it
    d = Path(tempfile.mkdtemp(prefix="dbzemu-tls-"))
    key, cert = d / "key.pem", d / "cert.pem"
    subprocess.run(
        [
            "openssl",
            "req",
            "-x509",
            "-newkey",
            "ec",
            "-pkeyopt",
            "ec_paramgen_curve:prime256v1",
            "-nodes",
            "-days",
            "2",
            "-subj",
            "/CN=localhost",
        ]
        + ["-keyout", str(key), "-out", str(cert)],
        check=True,
        capture_output=True,
    )
    os.chmod(d, 0o755)
    for f in (key, cert):
        os.chmod(f, 0o644)
    args = [f"--ssl-cert={cert}", f"--ssl-key={key}", "--require-secure-transport=ON"]
    try:
        with mariadbserver.MariaDbServer(version=SPOOFED_VERSION, extra_args=args) as db:
            yield db
    finally:
        shutil.rmtree(d, ignore_errors=True)


def _ssl_accepts(db) -> int:
    return int(db.query("SHOW GLOBAL STATUS LIKE 'Ssl_accepts'")[0][1])


def test_required_gives_the_recorded_records_over_tls(tls_server, tmp_path) -> None:
    case = tmp_path / "case"
    shutil.copytree(CASES / "schema_comments", case)
    meta_path = case / "golden.meta.json"
    meta = json.loads(meta_path.read_text())
    meta["connector_config"]["database.ssl.mode"] = "required"
    meta_path.write_text(json.dumps(meta))
    golden = load_case_golden(case, tmp_path)
    accepted = _ssl_accepts(tls_server)
    run = replay(case, tmp_path, {t: len(r) for t, r in golden.items()}, tls_server)
    assert run["code"] == 0, run["log"]
    compared, problems = compare(golden, load_dir(run["dir"]), mask_positions=True)
    assert compared > 0
    assert not problems, "\n".join(problems[:20])
    # at least the snapshot's and the binlog reader's connections were TLS handshakes
    assert _ssl_accepts(tls_server) >= accepted + 2


def _props(db, mode: str) -> dict[str, str]:
    return db.connector_properties(
        "mysql",  # the MySqlConnector's modes (the recordings' connector)
        **{
            "topic.prefix": "tls",
            "database.server.id": "6301",
            "snapshot.mode": "no_data",
            "database.ssl.mode": mode,
        },
    )


def test_disabled_fails_at_start_on_a_tls_only_server(tls_server, tmp_path) -> None:
    cfg = tmp_path / "c.json"
    props = _props(tls_server, "disabled")
    cfg.write_text(json.dumps({"name": props["name"], "config": props}))
    r = subprocess.run(
        [sys.executable, "-m", "emulator", "run", str(cfg), "--out", str(tmp_path / "out")],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert r.returncode == 1, r.stderr
    errors = [ln for ln in r.stderr.splitlines() if ln.startswith("error:")]
    assert len(errors) == 1 and "Traceback" not in r.stderr, r.stderr
