"""The libpq connection string and replication-stream parameters from the connector's typed settings."""

from __future__ import annotations

from typing import Any

import psycopg

from emulator.settings import PostgresSettings, settings_for


def libpq_conninfo(settings: PostgresSettings | Any) -> str:
    """The libpq connection string of a PostgreSQL connector (its typed settings, or a validated Config)."""
    if not isinstance(settings, PostgresSettings):
        settings = settings_for(settings)
    rel, pg = settings.relational, settings.postgres
    parts = {
        "host": rel.hostname,
        "port": str(rel.port),
        "user": rel.user,
        "password": rel.password,
        "dbname": pg.dbname,
        "sslmode": pg.sslmode,
        "sslcert": pg.sslcert,
        "sslkey": pg.sslkey,
        "sslrootcert": pg.sslrootcert,
        "sslpassword": pg.sslpassword,
        "application_name": "dbz-emulator",
        "connect_timeout": str(max(1, pg.connect_timeout_ms // 1000)),
    }
    if not pg.tcp_keep_alive:
        parts["keepalives"] = "0"
    return psycopg.conninfo.make_conninfo(**{k: v for k, v in parts.items() if v})


def stream_params(value: str | None) -> dict[str, str]:
    """``slot.stream.params``: ``k=v`` pairs separated by ``;`` (passed to pgoutput as START_REPLICATION
    options)."""
    out = {}
    for part in (value or "").split(";"):
        if "=" in part:
            k, v = part.split("=", 1)
            out[k.strip()] = v.strip()
    return out
