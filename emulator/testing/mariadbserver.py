"""A throwaway MariaDB server for tests, demos and benchmarks.

`mariadb-install-db` into a temp dir, `mariadbd` as our direct child (as the `mysql` OS user when we are
root) on a free loopback port, with what Debezium's binlog connectors need: `log-bin`, ROW format, FULL
row image and metadata, GTID strict mode, utf8mb4 and time zone +00:00. A replication user
(`debezium`/`dbz`) is created with the grants Debezium documents, the same statements as the golden
recording's `start_mariadb.sh`, so GTID numbers line up with the recording.

`mariadb-install-db` runs once per process: every server starts from a copy of that pristine data
directory (a copy costs a third of an install), as fresh as its own install would make it.
"""

from __future__ import annotations

import atexit
import os
import shutil
import signal
import subprocess
import tempfile
import threading
import time
from pathlib import Path

from emulator.testing.pgserver import free_port, remove_orphans

USER, PASSWORD = "debezium", "dbz"


def _client_env() -> dict[str, str]:
    """The environment without the MYSQL_* variables the client reads (a user's MYSQL_PWD would be sent as
    root's password to this server)."""
    return {k: v for k, v in os.environ.items() if not k.startswith("MYSQL_")}


_template: Path | None = None
_template_lock = threading.Lock()


def _template_datadir(install_db: str, as_mysql: bool) -> Path:
    """A pristine installed data directory, made on first use and removed when the process exits."""
    global _template
    with _template_lock:
        if _template is None:
            remove_orphans("dbzemu-mariadbtemplate-")
            base = Path(tempfile.mkdtemp(prefix=f"dbzemu-mariadbtemplate-{os.getpid()}-"))
            atexit.register(shutil.rmtree, base, True)
            data, tmp = base / "data", base / "tmp"
            # a temp directory of its own: servers bootstrapping at once in a shared /tmp can collide on
            # temporary table names ("Could not remove temporary table ... Unknown table 'mysql.tmp_user_sys'")
            data.mkdir()
            tmp.mkdir()
            if as_mysql:
                for d in (base, data, tmp):
                    shutil.chown(d, "mysql", "mysql")
                os.chmod(base, 0o755)
            user = ["--user=mysql"] if as_mysql else []
            r = subprocess.run(
                [
                    install_db,
                    "--no-defaults",
                    f"--datadir={data}",
                    f"--tmpdir={tmp}",
                    *user,
                    "--auth-root-authentication-method=normal",
                    "--skip-test-db",
                ],
                capture_output=True,
                text=True,
            )
            if r.returncode != 0:
                raise RuntimeError(f"mariadb-install-db failed: {r.stderr.strip() or r.stdout.strip()}")
            _template = data
        return _template


def _which(*names: str) -> str:
    for n in names:
        p = shutil.which(n) or (f"/usr/sbin/{n}" if Path(f"/usr/sbin/{n}").exists() else None)
        if p:
            return p
    raise RuntimeError(
        f"{names[0]} not found: install the MariaDB server (apt-get install mariadb-server, "
        "or run scripts/setup.sh)"
    )


def available() -> bool:
    try:
        _which("mariadbd", "mysqld")
        _which("mariadb-install-db", "mysql_install_db")
        return True
    except RuntimeError:
        return False


class MariaDbServer:
    """`with MariaDbServer() as db: db.port ...` — a fresh server, removed on exit."""

    def __init__(
        self, extra_args: list[str] | None = None, server_id: int = 1, version: str | None = None
    ) -> None:
        self.mariadbd = _which("mariadbd", "mysqld")
        self.install_db = _which("mariadb-install-db", "mysql_install_db")
        self.client = _which("mariadb", "mysql")
        self.extra_args = list(extra_args or [])
        self.server_id = server_id
        self.version = version
        self.base = Path(tempfile.mkdtemp(prefix="dbzemu-mariadb-"))
        self.data = self.base / "data"
        self.socket = str(self.base / "mariadb.sock")
        self.port = 0
        self.proc: subprocess.Popen | None = None
        self._as_mysql = os.getuid() == 0
        self.user, self.password = USER, PASSWORD

    # -- lifecycle ---------------------------------------------------------------------------------
    def start(self) -> MariaDbServer:
        template = _template_datadir(self.install_db, self._as_mysql)
        self.tmp = self.base / "tmp"
        self.tmp.mkdir()
        if self._as_mysql:
            shutil.chown(self.base, "mysql", "mysql")
            shutil.chown(self.tmp, "mysql", "mysql")
            os.chmod(self.base, 0o755)
        user = ["--user=mysql"] if self._as_mysql else []
        subprocess.run(["cp", "-a", str(template), str(self.data)], check=True)  # -a: owner and modes kept
        for _ in range(5):
            self.port = free_port()
            args = [
                self.mariadbd,
                "--no-defaults",
                f"--datadir={self.data}",
                f"--tmpdir={self.tmp}",
                f"--socket={self.socket}",
                f"--port={self.port}",
                "--bind-address=127.0.0.1",
                *user,
                f"--pid-file={self.base / 'mariadbd.pid'}",
                f"--log-error={self.base / 'error.log'}",
                "--skip-name-resolve",
                "--character-set-server=utf8mb4",
                "--collation-server=utf8mb4_general_ci",
                "--default-time-zone=+00:00",
                f"--server-id={self.server_id}",
                f"--log-bin={self.data / 'binlog'}",
                "--binlog-format=ROW",
                "--binlog-row-image=FULL",
                "--binlog-row-metadata=FULL",
                "--binlog-annotate-row-events=ON",
                "--gtid-domain-id=0",
                "--gtid-strict-mode=ON",
                "--log-slave-updates=ON",
                "--innodb-buffer-pool-size=128M",
                "--innodb-flush-log-at-trx-commit=2",
                "--sync-binlog=0",
                *self.extra_args,
            ]
            if self.version:
                args.append(f"--version={self.version}")
            self.proc = subprocess.Popen(
                args, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL
            )
            if self._wait_ready():
                self._create_user()
                self._initial = self._databases_and_users()
                self._sql_mode0 = self.query("SELECT @@GLOBAL.sql_mode")[0][0]
                return self
            self._kill()
        raise RuntimeError(f"mariadbd did not start; see {self.base / 'error.log'}")

    def _wait_ready(self) -> bool:
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                return False
            r = subprocess.run(
                [self.client, "--no-defaults", f"--socket={self.socket}", "-uroot", "-e", "SELECT 1"],
                capture_output=True,
                env=_client_env(),
            )
            if r.returncode == 0:
                return True
            time.sleep(0.1)
        return False

    def _create_user(self) -> None:
        u, p = self.user, self.password
        self.sql(f"""
CREATE USER IF NOT EXISTS '{u}'@'127.0.0.1' IDENTIFIED BY '{p}';
CREATE USER IF NOT EXISTS '{u}'@'localhost' IDENTIFIED BY '{p}';
GRANT SELECT, RELOAD, SHOW DATABASES, LOCK TABLES, REPLICATION SLAVE,
      REPLICATION CLIENT, BINLOG MONITOR ON *.* TO '{u}'@'127.0.0.1', '{u}'@'localhost';
GRANT INSERT, UPDATE, DELETE ON inventory.* TO '{u}'@'127.0.0.1', '{u}'@'localhost';
FLUSH PRIVILEGES;
""")

    def _databases_and_users(self) -> tuple[set[str], set[tuple[str, str]]]:
        dbs = {r[0] for r in self.query("SHOW DATABASES")}
        return dbs, {(r[0], r[1]) for r in self.query("SELECT user, host FROM mysql.user")}

    def reset(self) -> None:
        """As fresh as a new server for a test whose positions (binlog files, offsets, GTIDs) are not
        compared (a new server costs a second or so more): binlog dump threads of earlier clients are
        ended, the databases and users (roles too) made since the start are dropped, with their
        tables, routines and events, and the global sql_mode is set back."""
        deadline = time.monotonic() + 30
        while dumps := self.query(  # a stopped client's binlog dump thread may linger a moment
            "SELECT id FROM information_schema.processlist WHERE command LIKE 'Binlog Dump%'"
        ):
            self.sql("".join(f"KILL {d[0]};" for d in dumps), check=False)  # gone meanwhile: no matter
            if time.monotonic() > deadline:
                raise RuntimeError(f"binlog dump threads still running: {dumps}")
            time.sleep(0.05)
        dbs0, users0 = self._initial
        dbs, users = self._databases_and_users()
        drops = [f"DROP DATABASE `{d}`;" for d in sorted(dbs - dbs0)]
        drops += [f"DROP USER '{u}'@'{h}';" if h else f"DROP ROLE '{u}';" for u, h in sorted(users - users0)]
        if drops:
            self.sql("\n".join(drops))
        if self.query("SELECT @@GLOBAL.sql_mode")[0][0] != self._sql_mode0:  # a case set it (ansi_quotes_*)
            self.sql(f"SET GLOBAL sql_mode = '{self._sql_mode0}';")

    def _kill(self) -> None:
        if self.proc and self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
            try:
                self.proc.wait(60)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()

    def restart(self) -> None:
        """Stop and start the server on the same data directory and port (a new binlog file)."""
        self._kill()
        args = self.proc.args
        self.proc = subprocess.Popen(
            args, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL
        )
        if not self._wait_ready():
            raise RuntimeError(f"mariadbd did not restart; see {self.base / 'error.log'}")

    def stop(self) -> None:
        if self.proc and self.proc.poll() is None:  # the data is deleted next: no clean shutdown needed
            self.proc.kill()
            self.proc.wait()
        shutil.rmtree(self.base, ignore_errors=True)

    def __enter__(self) -> MariaDbServer:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    # -- access ------------------------------------------------------------------------------------
    def _cli(self, database: str | None, charset: str | None = None) -> list[str]:
        cmd = [self.client, "--no-defaults", f"--socket={self.socket}", "-uroot"]
        cmd += [f"--default-character-set={charset}"] if charset else []
        return cmd + ([f"--database={database}"] if database else [])

    def sql(
        self, sql: str, database: str | None = None, check: bool = True, charset: str | None = None
    ) -> subprocess.CompletedProcess:
        """Run a script through the `mariadb` client as root (as the golden recording does; its default
        client character set unless `charset` is given)."""
        r = subprocess.run(
            self._cli(database, charset), input=sql, text=True, capture_output=True, env=_client_env()
        )
        if check and r.returncode != 0:
            raise RuntimeError(f"mariadb client failed: {r.stderr.strip()}")
        return r

    def sql_async(self, sql: str, database: str | None = None) -> subprocess.Popen:
        p = subprocess.Popen(self._cli(database), stdin=subprocess.PIPE, text=True, env=_client_env())
        p.stdin.write(sql)
        p.stdin.close()
        return p

    def query(self, sql: str, database: str | None = None) -> list[list[str]]:
        r = subprocess.run(
            self._cli(database) + ["-N", "-B", "-e", sql], text=True, capture_output=True, env=_client_env()
        )
        if r.returncode != 0:
            raise RuntimeError(f"mariadb client failed: {r.stderr.strip()}")
        return [line.split("\t") for line in r.stdout.splitlines()]

    def connect(self, **kw):
        import pymysql

        return pymysql.connect(unix_socket=self.socket, user="root", autocommit=True, **kw)

    def connector_properties(self, connector: str = "mariadb", **overrides: str) -> dict[str, str]:
        """Debezium connector properties pointing at this server."""
        cls = (
            "io.debezium.connector.mariadb.MariaDbConnector"
            if connector == "mariadb"
            else "io.debezium.connector.mysql.MySqlConnector"
        )
        props = {
            "name": "test-mariadb",
            "connector.class": cls,
            "database.hostname": "127.0.0.1",
            "database.port": str(self.port),
            "database.user": self.user,
            "database.password": self.password,
            "database.server.id": "184054",
            "topic.prefix": "dbserver1",
            "schema.history.internal": "io.debezium.storage.file.history.FileSchemaHistory",
            # tests share one server between many databases: by default (false) the snapshot would read
            # and record the schema of every one of them, as Debezium does
            "schema.history.internal.store.only.captured.databases.ddl": "true",
        }
        props.update(overrides)
        return props
