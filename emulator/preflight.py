"""Validate and connect first: the causes of a connector that can never work, in one line each.

``check(config)`` validates the configuration (:class:`emulator.config.ConfigError`) and connects to the
source database the way the connector will, then checks what the connector needs there: for PostgreSQL
``wal_level = logical``, the REPLICATION attribute and a publication it may use or create; for MySQL and
MariaDB ``binlog_format = ROW``, ``binlog_row_image = FULL``, the binary log, and the REPLICATION SLAVE /
REPLICATION CLIENT (MariaDB: BINLOG MONITOR) privileges. A problem is :class:`ConnectError`, whose
``str()`` is ONE line naming the server, the cause and the fix; ``transient`` tells a server that could not
be reached (worth retrying) from one that refused (not worth it). Used by the CLI before it starts, by the
runner to stop retrying a failure that retrying cannot cure, and by the REST worker to answer POST/PUT with
400 as Kafka Connect's validation does.

Passwords never appear in these messages (they are never part of what the drivers report either).
"""

from __future__ import annotations

import re
from typing import Any

from emulator.config import Config, ConfigError, from_dict
from emulator.settings import settings_for

__all__ = ["ConfigError", "ConnectError", "check", "fatal_cause"]


class ConnectError(Exception):
    """The source database cannot be used as configured. ``str()`` is one line."""

    def __init__(self, message: str, transient: bool = False) -> None:
        super().__init__(" ".join(str(message).split()))
        self.transient = transient


def _server(config: Config) -> str:
    kind = {"postgres": "PostgreSQL", "mysql": "MySQL", "mariadb": "MariaDB", "mongodb": "MongoDB"}.get(
        config.connector or "", "database"
    )
    if config.connector == "mongodb":
        return kind
    db = settings_for(config).relational
    return f"{kind} at {db.hostname}:{db.port}"


def _first_line(exc: BaseException) -> str:
    text = str(exc).strip()
    for line in text.splitlines():
        line = line.strip()
        if line:
            return line
    return type(exc).__name__


# -- classification of driver errors ------------------------------------------------------------------------------

_PG_FATAL = (  # (sqlstate, text pattern, cause, fix)
    (
        "28P01",
        r"password authentication failed",
        "password authentication failed for {user}",
        "check database.user and database.password",
    ),
    (
        "28000",
        r"no pg_hba\.conf entry|role .* does not exist|is not permitted to log in",
        "the server does not let {user} log in",
        "check database.user and the server's pg_hba.conf",
    ),
    ("3D000", r"database .* does not exist", "database {dbname} does not exist", "check database.dbname"),
    (
        "42501",
        r"must be superuser or replication role|permission denied to start WAL sender|"
        r"REPLICATION attribute",
        "{user} may not stream changes (no REPLICATION attribute)",
        "ALTER ROLE {user_raw} REPLICATION (or connect as a role that has it)",
    ),
    (
        "55000",
        r"logical decoding requires wal_level|wal_level must be",
        "logical decoding is off (wal_level is not logical)",
        "set wal_level = logical in postgresql.conf and restart the server",
    ),
)

_PG_BROAD = frozenset({"42501", "55000"})

_MY_FATAL = {  # MySQL/MariaDB error code -> (cause, fix)
    1045: (
        "access denied for {user} (wrong user name or password)",
        "check database.user and database.password",
    ),
    1044: ("{user} may not use that database", "GRANT the connector's privileges to {user}"),
    1049: ("unknown database", "check database.include.list and the server's databases"),
    1130: ("the server does not let {user} connect from this host", "create the user for this host"),
    1227: (
        "{user} lacks a privilege the connector needs ({detail})",
        "GRANT REPLICATION SLAVE, REPLICATION CLIENT (MariaDB: BINLOG MONITOR), SELECT, RELOAD, "
        "SHOW DATABASES, LOCK TABLES ON *.* TO {user}",
    ),
    1236: (
        "the binlog position is gone from the server ({detail})",
        "start afresh (remove the offsets) or keep binlogs longer",
    ),
    1251: (
        "the server wants an authentication method the client does not speak",
        "use mysql_native_password",
    ),
    1698: ("access denied for {user}", "check database.user and database.password"),
    # database.ssl.mode=required and a server without TLS (or a failed TLS handshake): Debezium stops at its
    # connection validation ("SSL Connection required, but not provided by server"), not retried
    2026: ("TLS connection failed ({detail})", "enable TLS on the server or change database.ssl.mode"),
}


def fatal_cause(exc: BaseException, config: Config) -> ConnectError | None:
    """A failure that retrying cannot cure (credentials, missing database or privilege, server settings) as a
    one-line ConnectError; None for anything else (network trouble, a restarting server...)."""
    seen: set[int] = set()
    e: BaseException | None = exc
    while e is not None and id(e) not in seen:
        seen.add(id(e))
        found = _classify(e, config)
        if found is not None:
            return found
        e = e.__cause__ or e.__context__
    return None


def _classify(e: BaseException, config: Config) -> ConnectError | None:
    s = settings_for(config)
    db, pg = getattr(s, "relational", None), getattr(s, "postgres", None)  # neither for MongoDB
    user_raw = (db.user if db is not None else None) or "?"
    values = {
        "user": f"user '{user_raw}'",
        "user_raw": user_raw,
        "dbname": repr(pg.dbname if pg is not None else None),
    }
    if isinstance(e, ConnectError):
        return e if not e.transient else None
    try:
        import psycopg

        if isinstance(e, psycopg.Error):
            state = getattr(e, "sqlstate", None)
            text = str(e)
            for code, pattern, cause, fix in _PG_FATAL:
                # 42501 and 55000 are broad classes (any missing privilege, any object not in the right
                # state): those need the text too, or e.g. a FOR ALL TABLES publication reads as wal_level
                if (state == code and code not in _PG_BROAD) or re.search(pattern, text, re.IGNORECASE):
                    return ConnectError(
                        f"{_server(config)}: {cause.format(**values)}; {fix.format(**values)}"
                    )
            return None
    except ImportError:  # pragma: no cover
        pass
    try:
        import pymysql

        if isinstance(e, pymysql.err.MySQLError) and e.args and isinstance(e.args[0], int):
            entry = _MY_FATAL.get(e.args[0])
            if entry is not None:
                detail = str(e.args[1]) if len(e.args) > 1 else ""
                detail = detail.split(";")[-1].strip() if "privilege" in detail else detail
                cause, fix = entry
                values["detail"] = detail[:160]
                return ConnectError(f"{_server(config)}: {cause.format(**values)}; {fix.format(**values)}")
    except ImportError:  # pragma: no cover
        pass
    return None


# -- the checks ---------------------------------------------------------------------------------------------------


def check(config: Config | dict[str, Any]) -> None:
    """Validate `config` and connect to its database: None when the connector can start, else ConfigError
    (a property) or ConnectError (the server; ``transient`` when it could not be reached)."""
    if not isinstance(config, Config):
        config = from_dict(config)
    from emulator.connectors.registry import connector_class

    try:
        adapter = connector_class(config.connector_class)
    except ValueError:
        return  # not a connector the emulator runs: the configuration's validation says so
    adapter.check(config)  # the adapter's checks (emulator/connectors/base.py)


def check_postgres(config: Config) -> None:
    import psycopg

    from emulator.connectors.postgres.conninfo import libpq_conninfo

    server = _server(config)
    s = settings_for(config)
    try:
        conn = psycopg.connect(libpq_conninfo(config), autocommit=True, connect_timeout=10)
    except psycopg.Error as e:
        raise fatal_cause(e, config) or ConnectError(
            f"{server}: cannot connect ({_first_line(e)})", transient=True
        ) from None
    try:
        with conn:
            wal = conn.execute("SHOW wal_level").fetchone()[0]
            if wal != "logical":
                raise ConnectError(
                    f"{server}: wal_level is {wal}, logical decoding needs logical; set "
                    "wal_level = logical in postgresql.conf and restart the server"
                )
            user = s.relational.user
            superuser, replication = conn.execute(
                "SELECT rolsuper, rolreplication FROM pg_roles WHERE rolname = current_user"
            ).fetchone()
            if not (superuser or replication):
                raise ConnectError(
                    f"{server}: user '{user}' may not stream changes (no REPLICATION attribute); "
                    f'ALTER ROLE "{user}" REPLICATION'
                )
            pub = s.postgres.publication_name
            exists = conn.execute("SELECT 1 FROM pg_publication WHERE pubname = %s", (pub,)).fetchone()
            mode = s.postgres.publication_autocreate_mode
            if not exists:
                if mode == "disabled":
                    raise ConnectError(
                        f"{server}: publication '{pub}' does not exist and "
                        "publication.autocreate.mode=disabled; CREATE PUBLICATION it first"
                    )
                if mode == "all_tables" and not superuser:
                    raise ConnectError(
                        f"{server}: user '{user}' may not create publication '{pub}' FOR ALL TABLES (only a "
                        "superuser may); create it as a superuser, or set publication.autocreate.mode=filtered "
                        "and make the user owner of the captured tables"
                    )
                if mode in ("filtered", "no_tables") and not superuser:
                    can = conn.execute(
                        "SELECT has_database_privilege(current_user, current_database(), 'CREATE')"
                    ).fetchone()[0]
                    if not can:
                        raise ConnectError(
                            f"{server}: user '{user}' may not create publication '{pub}' (no CREATE privilege on "
                            f'the database); GRANT CREATE ON DATABASE "{s.postgres.dbname}" TO '
                            f'"{user}", or create the publication first'
                        )
    except psycopg.Error as e:
        raise fatal_cause(e, config) or ConnectError(f"{server}: {_first_line(e)}", transient=True) from None


_REPL_SLAVE = re.compile(r"\b(REPLICATION SLAVE|REPLICATION REPLICA|ALL PRIVILEGES|SUPER)\b", re.IGNORECASE)
_REPL_CLIENT = re.compile(r"\b(REPLICATION CLIENT|BINLOG MONITOR|ALL PRIVILEGES|SUPER)\b", re.IGNORECASE)


def check_binlog(config: Config) -> None:
    import pymysql

    from emulator.connectors.mysql.tls import tls_options

    server = _server(config)
    s = settings_for(config)
    db = s.relational
    try:
        conn = pymysql.connect(
            host=db.hostname or "localhost",
            port=db.port,
            user=db.user,
            password=(db.password or "").encode("utf-8"),
            charset="utf8mb4",
            autocommit=True,
            connect_timeout=min(10, max(1, s.binlog.connect_timeout_ms // 1000)),
            **tls_options(s.binlog.ssl_mode),
        )
    except pymysql.err.MySQLError as e:
        raise fatal_cause(e, config) or ConnectError(
            f"{server}: cannot connect ({_first_line(e)})", transient=True
        ) from None
    try:
        with conn.cursor() as cur:

            def var(name: str) -> str:
                cur.execute("SHOW GLOBAL VARIABLES LIKE %s", (name,))
                row = cur.fetchone()
                return str(row[1]).upper() if row else ""

            if var("log_bin") not in ("ON", "1"):
                raise ConnectError(f"{server}: the binary log is off; start the server with log_bin")
            fmt = var("binlog_format")
            if fmt != "ROW":
                raise ConnectError(  # Debezium's words, then the fix
                    f"{server}: binlog_format is {fmt or 'unset'}: the server is not configured to use a ROW "
                    "binlog_format, which the connector needs; SET GLOBAL binlog_format = 'ROW' (and in the "
                    "server's configuration)"
                )
            image = var("binlog_row_image") or "FULL"
            if image != "FULL":
                raise ConnectError(
                    f"{server}: binlog_row_image is {image}: the server is not configured to use a FULL "
                    "binlog_row_image, which the connector needs; SET GLOBAL binlog_row_image = 'FULL' (and in "
                    "the server's configuration)"
                )
            cur.execute("SHOW GRANTS FOR CURRENT_USER()")
            grants = " ".join(str(r[0]) for r in cur.fetchall())
            user = db.user
            missing = [
                p
                for p, rx in (
                    ("REPLICATION SLAVE", _REPL_SLAVE),
                    ("REPLICATION CLIENT (MariaDB: BINLOG MONITOR)", _REPL_CLIENT),
                )
                if not rx.search(grants)
            ]
            if missing:
                raise ConnectError(
                    f"{server}: user '{user}' lacks {' and '.join(missing)}, needed to read the "
                    f"binlog; GRANT {', '.join(m.split(' (')[0] for m in missing)} ON *.* TO "
                    f"'{user}'"
                )
    except pymysql.err.MySQLError as e:
        raise fatal_cause(e, config) or ConnectError(f"{server}: {_first_line(e)}", transient=True) from None
    finally:
        conn.close()
