"""Can the connector reach its database with these credentials?  What Debezium's `Connector.validate()`
does for Kafka Connect's config validation (`validateConnection`): POST/PUT of a connector answer 400 with
the reason instead of registering a connector that can only fail.

`problem(config)` returns `(property, message)` or None.  When the front-door preflight module
(`emulator.preflight.check`) is present it decides; otherwise a plain connect with a short timeout.
"""

from __future__ import annotations

from emulator.settings import settings_for

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
    s = settings_for(config)
    if kind == "postgres":
        import psycopg

        from emulator.connectors.postgres.conninfo import libpq_conninfo

        psycopg.connect(libpq_conninfo(config), connect_timeout=TIMEOUT_S).close()
    elif kind in ("mysql", "mariadb"):
        import pymysql

        from emulator.connectors.mysql.tls import tls_options

        db = s.relational
        pymysql.connect(
            host=db.hostname or "localhost",
            port=db.port,
            user=db.user,
            password=db.password or "",
            connect_timeout=TIMEOUT_S,
            **tls_options(s.binlog.ssl_mode),
        ).close()
    elif kind == "mongodb":
        import pymongo

        client = pymongo.MongoClient(s.mongodb.connection_string, serverSelectionTimeoutMS=TIMEOUT_S * 1000)
        try:
            client.admin.command("ping")
        finally:
            client.close()
