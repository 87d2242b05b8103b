"""pytest plugin (registered as `dbz_emulator`): capture a database's changes inside a test.

    def test_orders(dbz_capture):
        cap = dbz_capture({"connector.class": "io.debezium.connector.postgresql.PostgresConnector", ...})
        ...  # write to the database
        rec = cap.wait_for("dbserver1.public.orders", lambda r: r["value"]["payload"]["op"] == "c", timeout=5)

`dbz_capture(config_or_dsn, **props)` accepts a config dict/path, or a PostgreSQL DSN plus properties;
every capture it started is stopped at the end of the test.
"""

from __future__ import annotations

from typing import Any

import pytest

from emulator.api import Capture


def _from_dsn(dsn: str, props: dict[str, Any]) -> dict[str, Any]:
    from psycopg.conninfo import conninfo_to_dict

    info = conninfo_to_dict(dsn)
    out = {
        "connector.class": "io.debezium.connector.postgresql.PostgresConnector",
        "plugin.name": "pgoutput",
        "database.hostname": info.get("host", "127.0.0.1"),
        "database.port": str(info.get("port", 5432)),
        "database.user": info.get("user", "postgres"),
        "database.password": info.get("password", ""),
        "database.dbname": info.get("dbname", "postgres"),
        "topic.prefix": "dbserver1",
    }
    out.update({k: str(v) for k, v in props.items()})
    return out


@pytest.fixture
def dbz_capture():
    started: list[Capture] = []

    def factory(config: Any, **props: Any) -> Capture:
        if isinstance(config, str) and (config.startswith("postgres") or "host=" in config):
            config = _from_dsn(config, props)
        elif isinstance(config, dict) and props:
            config = {**config, **{k: str(v) for k, v in props.items()}}
        cap = Capture(config).start()
        started.append(cap)
        return cap

    yield factory
    for cap in started:
        cap.stop()
