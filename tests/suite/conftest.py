"""The `backend` fixture: every scenario runs once per backend in backends.ALL. A backend that cannot run here
(no server binaries, no MONGODB_URI / MYSQL_URL) is skipped with its reason; a scenario marked
`@pytest.mark.needs("feature", ...)` is skipped on a backend that does not declare the feature. Servers are started once
per session, on first use."""

from __future__ import annotations

import os
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent))
sys.path.insert(0, str(Path(__file__).parent.parent))

from backends import (  # noqa: E402
    ALL,
    Backend,
    MariaDb,
    MariaDbAsMySql,
    MongoDb,
    MongoRecorded,
    OracleMySql,
    Postgres,
)


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line("markers", "needs(*features): backend features a behaviour scenario needs")


@pytest.fixture(scope="session")
def _pg_server():
    from emulator.testing.pgserver import PgServer

    with PgServer() as server:
        yield server


@pytest.fixture(scope="session")
def _mariadb_server():
    from emulator.testing.mariadbserver import MariaDbServer

    with MariaDbServer() as server:
        yield server


@pytest.fixture(scope="session")
def _mysql_server():
    from backends import RemoteMySql

    return RemoteMySql(os.environ["MYSQL_URL"])


@pytest.fixture(scope="session")
def _mongo_server():
    import pymongo

    client = pymongo.MongoClient(os.environ["MONGODB_URI"])
    yield client
    client.close()


@pytest.fixture(scope="session")
def _no_server():
    return None  # a recorded change stream: the backend writes the file the connector reads


_SERVERS = {
    Postgres: "_pg_server",
    MariaDbAsMySql: "_mariadb_server",
    MariaDb: "_mariadb_server",
    OracleMySql: "_mysql_server",
    MongoDb: "_mongo_server",
    MongoRecorded: "_no_server",
}


@pytest.fixture(params=ALL, ids=[b.name for b in ALL])
def backend(request: pytest.FixtureRequest, tmp_path: Path) -> Backend:
    cls: type[Backend] = request.param
    reason = cls.unavailable()
    if reason:
        pytest.skip(f"{cls.name}: {reason}")
    marker = request.node.get_closest_marker("needs")
    missing = [f for f in (marker.args if marker else ()) if f not in cls.features]
    if missing:
        pytest.skip(f"{cls.name} does not support {', '.join(missing)}")
    server = request.getfixturevalue(_SERVERS[cls])
    b = cls(server, tmp_path)
    yield b
    b.close()
