"""Can the connector reach its database with these credentials?  What Debezium's `Connector.validate()`
does for Kafka Connect's config validation (`validateConnection`): POST/PUT of a connector answer 400 with
the reason instead of registering a connector that can only fail.

`problem(config)` returns `(property, message)` or None.  When the front-door preflight module
(`emulator.preflight.check`) is present it decides; otherwise a plain connect with a short timeout.
"""

from __future__ import annotations

TIMEOUT_S = 5

_HOST = {"mongodb": "mongodb.connection.string"}


def problem(config) -> tuple[str, str] | None:
    kind = config.connector
    prop = _HOST.get(kind, "database.hostname")
    try:
        from emulator import preflight  # the safety front door, when present
    except ImportError:
        preflight = None
    try:
        if preflight is not None and hasattr(preflight, "check"):
            found = preflight.check(config)
            if isinstance(found, str) and found:  # a check that reports instead of raising
                raise ConnectionError(found)
        else:
            _connect(kind, config)
    except (Exception, SystemExit) as e:  # noqa: BLE001 - any failure to connect is the answer
        text = " ".join(str(e).split()) or type(e).__name__
        return prop, f"Unable to connect: {text}"
    return None


def _connect(kind: str | None, config) -> None:
    get = config.get
    if kind == "postgres":
        import psycopg

        from emulator.connectors.postgres.connector import _conninfo

        psycopg.connect(_conninfo(config), connect_timeout=TIMEOUT_S).close()
    elif kind in ("mysql", "mariadb"):
        import pymysql

        pymysql.connect(
            host=get("database.hostname") or "localhost",
            port=int(get("database.port") or 3306),
            user=get("database.user"),
            password=get("database.password") or "",
            connect_timeout=TIMEOUT_S,
        ).close()
    elif kind == "mongodb":
        import pymongo

        client = pymongo.MongoClient(
            get("mongodb.connection.string"), serverSelectionTimeoutMS=TIMEOUT_S * 1000
        )
        try:
            client.admin.command("ping")
        finally:
            client.close()
