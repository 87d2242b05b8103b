"""The libpq connection string and replication-stream parameters from the connector configuration."""

from __future__ import annotations

import psycopg


def _bool(value: str | None, default: bool = False) -> bool:
    if value is None or value == "":
        return default
    return str(value).strip().lower() == "true"


def _conninfo(cfg) -> str:
    get = cfg.get
    parts = {
        "host": get("database.hostname"),
        "port": get("database.port") or "5432",
        "user": get("database.user"),
        "password": get("database.password"),
        "dbname": get("database.dbname"),
        "sslmode": get("database.sslmode") or "prefer",
        "sslcert": get("database.sslcert"),
        "sslkey": get("database.sslkey"),
        "sslrootcert": get("database.sslrootcert"),
        "sslpassword": get("database.sslpassword"),
        "application_name": "dbz-emulator",
        "connect_timeout": str(max(1, int(get("database.connect.timeout.ms") or 30000) // 1000)),
    }
    if not _bool(get("database.tcpKeepAlive"), True):
        parts["keepalives"] = "0"
    return psycopg.conninfo.make_conninfo(**{k: v for k, v in parts.items() if v})


def _stream_params(value: str | None) -> dict[str, str]:
    out = {}
    for part in (value or "").split(";"):
        if "=" in part:
            k, v = part.split("=", 1)
            out[k.strip()] = v.strip()
    return out
