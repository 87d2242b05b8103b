"""Throwaway databases for users' tests, described the way clients want them: a DSN, its parts, the
standard client environment variables, and connector properties pointing at it.

`postgres()` / `mariadb()` start a server (see `pgserver.py` / `mariadbserver.py`) and yield a `Database`;
the pytest plugin exposes them as the session fixtures `dbz_postgres` and `dbz_mariadb`.
"""

from __future__ import annotations

import contextlib
import random
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

POSTGRES_CLASS = "io.debezium.connector.postgresql.PostgresConnector"
MARIADB_CLASS = "io.debezium.connector.mariadb.MariaDbConnector"


@dataclass(frozen=True)
class Database:
    """Connection information for one database. `str(db)` is its DSN."""

    kind: str  # "postgresql" or "mariadb"
    host: str
    port: int
    user: str
    password: str
    dbname: str

    @property
    def dsn(self) -> str:
        scheme = "postgresql" if self.kind == "postgresql" else "mysql"
        auth = self.user + (f":{self.password}" if self.password else "")
        return f"{scheme}://{auth}@{self.host}:{self.port}/{self.dbname}"

    def __str__(self) -> str:
        return self.dsn

    @property
    def env(self) -> dict[str, str]:
        """libpq's variables (PGHOST, PGPORT, PGUSER, PGPASSWORD, PGDATABASE) for PostgreSQL; for MariaDB the
        client's MYSQL_HOST, MYSQL_TCP_PORT, MYSQL_PWD plus MYSQL_USER and MYSQL_DATABASE."""
        if self.kind == "postgresql":
            return {
                "PGHOST": self.host,
                "PGPORT": str(self.port),
                "PGUSER": self.user,
                "PGPASSWORD": self.password,
                "PGDATABASE": self.dbname,
            }
        return {
            "MYSQL_HOST": self.host,
            "MYSQL_TCP_PORT": str(self.port),
            "MYSQL_USER": self.user,
            "MYSQL_PWD": self.password,
            "MYSQL_DATABASE": self.dbname,
        }

    def connect(self):
        """An autocommit connection: psycopg for PostgreSQL, PyMySQL for MariaDB."""
        if self.kind == "postgresql":
            import psycopg

            return psycopg.connect(self.dsn, autocommit=True)
        import pymysql

        return pymysql.connect(
            host=self.host,
            port=self.port,
            user=self.user,
            password=self.password,
            database=self.dbname,
            autocommit=True,
        )

    def execute(self, sql: str, params: Any = None) -> None:
        """Run one statement on a fresh autocommit connection."""
        conn = self.connect()
        try:
            if self.kind == "postgresql":
                conn.execute(sql, params)
            else:
                with conn.cursor() as cur:
                    cur.execute(sql, params)
        finally:
            conn.close()

    def connector_properties(self, **overrides: Any) -> dict[str, str]:
        """Debezium connector properties for this database (topic prefix `dbserver1`)."""
        props = {
            "name": "dbz-test",
            "database.hostname": self.host,
            "database.port": str(self.port),
            "database.user": self.user,
            "database.password": self.password,
            "topic.prefix": "dbserver1",
        }
        if self.kind == "postgresql":
            props.update(
                {"connector.class": POSTGRES_CLASS, "plugin.name": "pgoutput", "database.dbname": self.dbname}
            )
        else:
            props.update(
                {
                    "connector.class": MARIADB_CLASS,
                    "database.include.list": self.dbname,
                    "database.server.id": str(random.randint(5400, 6400)),
                }
            )
        props.update({k: str(v) for k, v in overrides.items()})
        return props

    @staticmethod
    def from_dsn(dsn: str) -> Database:
        """`postgresql://user:pw@host:port/db` (or a libpq `key=value` string), `mysql://...` / `mariadb://...`."""
        if dsn.startswith(("mysql://", "mariadb://")):
            from urllib.parse import unquote, urlsplit

            u = urlsplit(dsn)
            return Database(
                "mariadb",
                u.hostname or "127.0.0.1",
                u.port or 3306,
                unquote(u.username or "root"),
                unquote(u.password or ""),
                (u.path or "/").lstrip("/"),
            )
        from psycopg.conninfo import conninfo_to_dict

        info = conninfo_to_dict(dsn)
        return Database(
            "postgresql",
            str(info.get("host") or "127.0.0.1"),
            int(info.get("port") or 5432),
            str(info.get("user") or "postgres"),
            str(info.get("password") or ""),
            str(info.get("dbname") or "postgres"),
        )


@contextlib.contextmanager
def postgres() -> Iterator[Database]:
    """A throwaway PostgreSQL 13+ with `wal_level=logical`; user `postgres` (superuser), database `postgres`."""
    from emulator.testing.pgserver import PgServer

    with PgServer() as pg:
        yield Database("postgresql", "127.0.0.1", pg.port, "postgres", "", "postgres")


@contextlib.contextmanager
def mariadb() -> Iterator[Database]:
    """A throwaway MariaDB with the binlog settings Debezium needs; database `app`, user `debezium` with every
    privilege (replication included)."""
    from emulator.testing.mariadbserver import MariaDbServer

    with MariaDbServer() as db:
        db.sql(f"""
CREATE DATABASE app;
GRANT ALL PRIVILEGES ON *.* TO '{db.user}'@'127.0.0.1', '{db.user}'@'localhost';
FLUSH PRIVILEGES;
""")
        yield Database("mariadb", "127.0.0.1", db.port, db.user, db.password, "app")
