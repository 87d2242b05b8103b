"""pytest plugin (registered as `dbz_emulator` when the package is installed): capture a database's
changes inside a test.

Fixtures:
* `dbz_postgres` / `dbz_mariadb` (session): a throwaway server, as an `emulator.testing.databases.Database`
  (`str(db)` is its DSN; `.connect()`, `.execute(sql)`, `.env`, `.connector_properties()`).
* `dbz_capture`: `dbz_capture(db_or_dsn_or_config, **properties)` starts a `Capture` and returns it once the
  connector streams, so a change made next arrives as `op=c`/`u`/`d`. Given a database or DSN it fills in
  the connector properties (a slot and publication of its own on PostgreSQL); every capture is stopped at
  the end of the test and the slots and publications it created are dropped.

    def test_orders(dbz_postgres, dbz_capture):
        dbz_postgres.execute("CREATE TABLE orders (id int PRIMARY KEY, item text)")
        cap = dbz_capture(dbz_postgres, **{"table.include.list": "public.orders"})
        dbz_postgres.execute("INSERT INTO orders VALUES (1, 'book')")
        assert_change(cap.wait_for_change("public.orders"), op="c", after={"id": 1, "item": "book"})
"""

from __future__ import annotations

import itertools
from typing import Any

import pytest

from emulator.api import Capture
from emulator.testing.databases import Database

_seq = itertools.count(1)


def _properties(db: Database, props: dict[str, Any]) -> dict[str, str]:
    extra = {}
    if db.kind == "postgresql":  # its own slot and publication: captures never share or collide
        n = next(_seq)
        extra = {"slot.name": f"dbz_test_{n}", "publication.name": f"dbz_test_{n}_pub"}
    return db.connector_properties(**{**extra, **props})


@pytest.fixture(scope="session")
def dbz_postgres():
    from emulator.testing.databases import postgres

    with postgres() as db:
        yield db


@pytest.fixture(scope="session")
def dbz_mariadb():
    from emulator.testing.databases import mariadb

    with mariadb() as db:
        yield db


@pytest.fixture
def dbz_capture():
    started: list[Capture] = []

    def factory(config: Any, **props: Any) -> Capture:
        if isinstance(config, str) and (
            config.startswith(("postgres", "mysql://", "mariadb://")) or "host=" in config
        ):
            config = Database.from_dsn(config)
        if isinstance(config, Database):
            config = _properties(config, props)
        elif isinstance(config, dict) and props:
            config = {**config, **{k: str(v) for k, v in props.items()}}
        cap = Capture(config, cleanup=True)
        started.append(cap)
        return cap.start()

    yield factory
    for cap in started:
        cap.stop()
