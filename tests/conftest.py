import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent))


@pytest.fixture(scope="session")
def _session_pg():
    from emulator.testing.pgserver import PgServer

    with PgServer() as pg:
        yield pg


@pytest.fixture
def fresh_pg(_session_pg):
    """The session's PostgreSQL, `reset()` for this test (database `postgres` created again, no replication
    slots, no roles of its own): as fresh as a server of its own for a test that only uses database
    `postgres`, a second or two cheaper than starting one (the replays start hundreds)."""
    _session_pg.reset()
    return _session_pg
