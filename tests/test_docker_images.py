"""The container images, built and run with a real container engine (podman, or docker with a daemon) when
the machine has one; skipped with the reason otherwise.

* `docker/Dockerfile.sink` builds on its pinned Debian 12 base, has Java 17 and Python 3.11, and its sink
  turns a real PostgreSQL snapshot (captured by the emulator) into a Delta table equal to the source table.
* `docker/Dockerfile` builds, and its container started with the compose service's command line serves the
  Kafka Connect REST API: the compose stack's connector file (`docker/connectors/postgres.json`), registered
  the way the stack's `register` service does, captures a throwaway PostgreSQL.
* `docker compose up` of the whole stack needs the databases' and Kafka's images; it runs only where they
  are present (no registry is reachable on the development machines, so it is skipped there, saying so).

The base image (`docker.io/library/debian:12-slim`) is never pulled (`--pull=never`): where no registry is
reachable, `docker/local-base.sh` builds it from the Debian archive first.
"""

from __future__ import annotations

import json
import os
import shutil
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
BASE = "docker.io/library/debian:12-slim"


def _engine() -> tuple[str | None, str]:
    for name in ("podman", "docker"):
        exe = shutil.which(name)
        if exe is None:
            continue
        r = subprocess.run([exe, "info"], capture_output=True, text=True, timeout=60)
        if r.returncode == 0:
            return exe, ""
        last = f"{name} is installed but not usable: {(r.stderr.strip().splitlines() or ['?'])[-1]}"
    return None, locals().get("last", "no container engine (podman or docker) is installed")


ENGINE, WHY_NOT = _engine()
pytestmark = pytest.mark.skipif(ENGINE is None, reason=WHY_NOT)
PODMAN = ENGINE is not None and Path(ENGINE).name == "podman"


def _runtime() -> list[str]:
    return ["--runtime", "runc"] if PODMAN and shutil.which("runc") else []


def _run_flags() -> list[str]:
    """Limits the engine may set here (a sandbox without CAP_SYS_RESOURCE refuses podman's defaults)."""
    import resource

    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    return [*_runtime(), "--ulimit", f"nofile={soft}:{soft}", "--ulimit", "nproc=4096:4096"] if PODMAN else []


def _engine_cmd(*args: str, timeout: float = 1800, check: bool = True) -> subprocess.CompletedProcess:
    r = subprocess.run([ENGINE, *args], capture_output=True, text=True, timeout=timeout)
    if check and r.returncode != 0:
        raise AssertionError(
            f"{Path(ENGINE).name} {' '.join(args[:3])} failed:\n{r.stdout[-3000:]}\n{r.stderr[-3000:]}"
        )
    return r


@pytest.fixture(scope="module")
def base_image():
    if _engine_cmd("image", "inspect", BASE, check=False).returncode != 0:
        if not (PODMAN and shutil.which("debootstrap") and os.getuid() == 0):
            pytest.skip(
                f"{BASE} is not present and cannot be pulled here; docker/local-base.sh builds it "
                "(needs root, debootstrap, podman)"
            )
        subprocess.run(["bash", str(ROOT / "docker" / "local-base.sh")], check=True, timeout=1800)
    return BASE


@pytest.fixture(scope="module")
def build_flags(tmp_path_factory):
    """This machine's TLS trust for pip inside the build (a proxy's CA), without changing the Dockerfiles."""
    ca = os.environ.get("PIP_CERT") or os.environ.get("SSL_CERT_FILE")
    if not (PODMAN and ca and Path(ca).is_file()):
        return []
    d = tmp_path_factory.mktemp("buildconf")
    (d / "pip.conf").write_text("[global]\ncert = /run/host-ca.crt\n")
    return ["-v", f"{ca}:/run/host-ca.crt:ro", "-v", f"{d / 'pip.conf'}:/etc/pip.conf:ro"]


def _build(dockerfile: str, tag: str, build_flags: list[str]) -> str:
    _engine_cmd(
        "build", *_runtime(), "--pull=never", *build_flags, "-f", f"docker/{dockerfile}", "-t", tag, str(ROOT)
    )
    return tag


@pytest.fixture(scope="module")
def pg():
    from emulator.testing.pgserver import PgServer

    with PgServer() as server:
        server.psql(
            "CREATE SCHEMA inventory;"
            "CREATE TABLE inventory.customers (id int PRIMARY KEY, name text, balance numeric(8,2));"
            "INSERT INTO inventory.customers VALUES (1, 'Ann', 10.50), (2, 'Bob', -3.00);"
        )
        yield server


def test_sink_image_has_java_and_mirrors_a_snapshot(base_image, build_flags, pg, tmp_path):
    tag = _build("Dockerfile.sink", "localhost/dbz-emulator-sink:test", build_flags)
    r = _engine_cmd(
        "run",
        "--rm",
        *_run_flags(),
        tag,
        "sh",
        "-c",
        "java -version 2>&1; python -c 'import sys, pyspark, deltalake, sink; print(sys.version)'",
    )
    assert 'version "17.' in r.stdout and r.stdout.splitlines()[-1].startswith("3.11."), r.stdout

    # the emulator (on this machine) captures a snapshot; the sink in the container mirrors it
    cfg = tmp_path / "c.properties"
    props = pg.connector_properties(
        **{
            "snapshot.mode": "initial_only",
            "slot.name": "img_sink",
            "publication.name": "img_sink_pub",
            "slot.drop.on.stop": "true",
            "schema.include.list": "inventory",
        }
    )
    cfg.write_text("".join(f"{k}={v}\n" for k, v in props.items()))
    events, data = tmp_path / "events", tmp_path / "data"
    events.mkdir()
    events.chmod(0o755)  # the sink image's user reads it: the output's files follow the directory's read bits
    subprocess.run(
        [sys.executable, "-m", "emulator", "run", str(cfg), "--out", str(events)],
        check=True,
        capture_output=True,
        timeout=120,
    )
    data.mkdir()
    data.chmod(0o777)  # the image runs as its own user
    _engine_cmd(
        "run",
        "--rm",
        *_run_flags(),
        "-v",
        f"{events}:/events:ro",
        "-v",
        f"{data}:/data",
        tag,
        "python",
        "-m",
        "sink",
        "run",
        "--source",
        "/events",
        "--tables",
        "/data/tables",
        "--checkpoint",
        "/data/checkpoint",
        "--once",
    )
    from deltalake import DeltaTable

    rows = DeltaTable(str(data / "tables" / "dbserver1.inventory.customers")).to_pyarrow_table().to_pylist()
    got = sorted((r["id"], r["name"], str(r["balance"])) for r in rows)
    assert got == [(1, "Ann", "10.50"), (2, "Bob", "-3.00")]


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _http(method: str, url: str, body: dict | None = None) -> tuple[int, str]:
    req = urllib.request.Request(
        url,
        method=method,
        data=json.dumps(body).encode() if body else None,
        headers={"Content-Type": "application/json"},
    )
    try:
        with urllib.request.urlopen(req, timeout=10) as resp:
            return resp.status, resp.read().decode()
    except urllib.error.HTTPError as e:
        return e.code, e.read().decode()


def test_emulator_image_serves_connect_and_captures(base_image, build_flags, pg, tmp_path):
    import yaml

    tag = _build("Dockerfile", "localhost/dbz-emulator:test", build_flags)
    service = yaml.safe_load((ROOT / "docker" / "compose.yaml").read_text())["services"]["emulator"]
    argv = list(service["command"])
    port = _free_port()
    # the compose service's command line; Kafka replaced by the directory output (no Kafka image here)
    i = argv.index("--kafka")
    argv[i : i + 2] = ["--out", "/out"]
    argv[argv.index("--rest-port") + 1] = str(port)
    argv[argv.index("--rest-host") + 1] = "127.0.0.1"
    out = tmp_path / "out"
    out.mkdir()
    out.chmod(0o777)
    name = f"dbz-emulator-test-{port}"
    _engine_cmd(
        "run", "-d", "--name", name, "--network", "host", *_run_flags(), "-v", f"{out}:/out", tag, *argv
    )
    try:
        deadline = time.monotonic() + 120
        while True:
            try:
                status, body = _http("GET", f"http://127.0.0.1:{port}/")
                break
            except OSError:
                assert time.monotonic() < deadline, _engine_cmd("logs", name, check=False).stderr[-3000:]
                time.sleep(0.5)
        assert status == 200 and "version" in json.loads(body)
        connector = json.loads((ROOT / "docker" / "connectors" / "postgres.json").read_text())
        connector["config"].update({"database.hostname": "127.0.0.1", "database.port": str(pg.port)})
        status, body = _http("POST", f"http://127.0.0.1:{port}/connectors", connector)
        assert status == 201, body
        assert _http("POST", f"http://127.0.0.1:{port}/connectors", connector)[0] == 409
        topic = out / connector["name"] / "dbserver1.inventory.customers.jsonl"
        while not (topic.exists() and len(topic.read_text().splitlines()) >= 2):
            assert time.monotonic() < deadline + 60, _engine_cmd("logs", name, check=False).stderr[-3000:]
            time.sleep(0.5)
        after = [json.loads(line)["value"]["payload"]["after"] for line in topic.read_text().splitlines()]
        assert sorted(a["id"] for a in after[:2]) == [1, 2]
        status, body = _http("GET", f"http://127.0.0.1:{port}/connectors/{connector['name']}/status")
        assert status == 200 and json.loads(body)["connector"]["state"] == "RUNNING", body
    finally:
        _engine_cmd("rm", "-f", name, check=False)


def test_compose_stack_up():
    import yaml

    services = yaml.safe_load((ROOT / "docker" / "compose.yaml").read_text())["services"]
    pulled = sorted({s["image"] for s in services.values() if "image" in s})
    missing = [i for i in pulled if _engine_cmd("image", "inspect", i, check=False).returncode != 0]
    compose = shutil.which("docker-compose") or shutil.which("podman-compose")
    if missing or compose is None:
        pytest.skip(
            "the whole stack needs "
            + (f"the images {', '.join(missing)} (no registry is reachable to pull them)" if missing else "")
            + (" and " if missing and compose is None else "")
            + ("a compose tool (docker compose or podman-compose)" if compose is None else "")
        )
    file = str(ROOT / "docker" / "compose.yaml")
    try:
        subprocess.run([compose, "-f", file, "up", "-d", "--build"], check=True, timeout=1800)
        deadline = time.monotonic() + 300
        while True:
            try:
                status, body = _http("GET", "http://127.0.0.1:8083/connectors/inventory-postgres/status")
                if status == 200 and json.loads(body)["connector"]["state"] == "RUNNING":
                    break
            except OSError:
                pass
            assert time.monotonic() < deadline, "the stack's connector did not reach RUNNING"
            time.sleep(2)
    finally:
        subprocess.run([compose, "-f", file, "down", "-v"], timeout=600)
