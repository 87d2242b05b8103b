"""A throwaway PostgreSQL cluster for tests, demos and benchmarks.

initdb in a temp dir, `wal_level=logical`, trust auth on loopback, a free port; the postmaster is our
direct child (as the `postgres` OS user when we are root, since the server refuses to run as root), so
stopping it is a signal to a PID we own.

initdb runs once per process: every server starts from a copy of that pristine cluster (a copy costs a
third of an initdb), so each server is as fresh as its own initdb would make it.
"""

from __future__ import annotations

import atexit
import os
import shutil
import signal
import socket
import subprocess
import tempfile
import threading
import time
from pathlib import Path


def pg_bindir() -> Path:
    env = os.environ.get("PGBIN")
    if env:
        return Path(env)
    try:
        out = subprocess.run(["pg_config", "--bindir"], capture_output=True, text=True, check=True)
        cand = Path(out.stdout.strip())
        if (cand / "initdb").exists():
            return cand
    except (OSError, subprocess.CalledProcessError):
        pass
    for v in ("17", "16", "15", "14"):
        cand = Path(f"/usr/lib/postgresql/{v}/bin")
        if (cand / "initdb").exists():
            return cand
    raise RuntimeError("PostgreSQL server binaries not found (set PGBIN or install postgresql-15)")


_template: Path | None = None
_template_lock = threading.Lock()


def _template_cluster(bindir: Path, as_pg: bool) -> Path:
    """A pristine initdb'd data directory, made on first use and removed when the process exits."""
    global _template
    with _template_lock:
        if _template is None:
            remove_orphans("dbzemu-pgtemplate-")
            base = Path(tempfile.mkdtemp(prefix=f"dbzemu-pgtemplate-{os.getpid()}-"))
            atexit.register(shutil.rmtree, base, True)
            data = base / "data"
            if as_pg:
                shutil.chown(base, "postgres", "postgres")
            kw = {"user": "postgres", "group": "postgres"} if as_pg else {}
            r = subprocess.run(
                [
                    str(bindir / "initdb"),
                    "-D",
                    str(data),
                    "-U",
                    "postgres",
                    "--auth=trust",
                    "--encoding=UTF8",
                    "--locale=C.UTF-8",
                ],
                capture_output=True,
                text=True,
                **kw,
            )
            if r.returncode != 0:
                raise RuntimeError(f"initdb failed: {r.stderr.strip() or r.stdout.strip()}")
            _template = data
        return _template


def remove_orphans(prefix: str) -> None:
    """Templates of processes that were killed (atexit did not run): `<prefix><pid>-*` of a pid gone."""
    for d in Path(tempfile.gettempdir()).glob(prefix + "*"):
        pid = d.name[len(prefix) :].split("-", 1)[0]
        if pid.isdigit() and not Path(f"/proc/{pid}").exists():
            shutil.rmtree(d, ignore_errors=True)


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class PgServer:
    """`with PgServer() as pg: pg.dsn ...` — a fresh cluster, removed on exit."""

    def __init__(self, extra_conf: dict[str, str] | None = None) -> None:
        self.bindir = pg_bindir()
        self.extra_conf = extra_conf or {}
        self.base = Path(tempfile.mkdtemp(prefix="dbzemu-pg-"))
        self.data = self.base / "data"
        self.port = 0
        self.proc: subprocess.Popen | None = None
        self._as_pg = os.getuid() == 0

    # -- lifecycle ---------------------------------------------------------------------------------
    def start(self) -> PgServer:
        template = _template_cluster(self.bindir, self._as_pg)
        if self._as_pg:
            shutil.chown(self.base, "postgres", "postgres")
            os.chmod(self.base, 0o700)
        subprocess.run(["cp", "-a", str(template), str(self.data)], check=True)  # -a: owner and modes kept
        (self.data / "pg_hba.conf").write_text(
            "local all all trust\nlocal replication all trust\n"
            "host all all 127.0.0.1/32 trust\nhost replication all 127.0.0.1/32 trust\n"
        )
        for _ in range(5):
            self.port = free_port()
            conf = {
                "listen_addresses": "'127.0.0.1'",
                "port": str(self.port),
                "unix_socket_directories": f"'{self.base}'",
                "wal_level": "logical",
                "max_replication_slots": "20",
                "max_wal_senders": "20",
                "max_connections": "60",
                "fsync": "off",
                "synchronous_commit": "off",
                "full_page_writes": "off",
                "timezone": "'UTC'",
                "log_timezone": "'UTC'",
                **self.extra_conf,
            }
            with open(self.data / "postgresql.auto.conf", "w") as f:
                f.writelines(f"{k} = {v}\n" for k, v in conf.items())
            if self._as_pg:
                shutil.chown(self.data / "postgresql.auto.conf", "postgres", "postgres")
                shutil.chown(self.data / "pg_hba.conf", "postgres", "postgres")
            log = open(self.base / "server.log", "ab")
            kw = {"user": "postgres", "group": "postgres"} if self._as_pg else {}
            self.proc = subprocess.Popen(
                [str(self.bindir / "postgres"), "-D", str(self.data)], stdout=log, stderr=log, **kw
            )
            log.close()
            if self._wait_ready():
                return self
            self._kill()
        raise RuntimeError(f"postgres did not start; see {self.base / 'server.log'}")

    def _wait_ready(self) -> bool:
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                return False
            r = subprocess.run(
                [str(self.bindir / "pg_isready"), "-q", "-h", "127.0.0.1", "-p", str(self.port)],
                capture_output=True,
            )
            if r.returncode == 0:
                return True
            time.sleep(0.05)
        return False

    def _run(self, argv: list[str]) -> None:
        kw = {"user": "postgres", "group": "postgres"} if self._as_pg else {}
        r = subprocess.run(argv, capture_output=True, text=True, **kw)
        if r.returncode != 0:
            raise RuntimeError(f"{argv[0]} failed: {r.stderr.strip() or r.stdout.strip()}")

    def _kill(self, sig: int = signal.SIGINT) -> None:  # SIGINT: fast shutdown
        if self.proc and self.proc.poll() is None:
            self.proc.send_signal(sig)
            try:
                self.proc.wait(60)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()

    def stop(self) -> None:
        self._kill(signal.SIGQUIT)  # immediate shutdown: the cluster is deleted next, a checkpoint is wasted
        shutil.rmtree(self.base, ignore_errors=True)

    def reset(self) -> None:
        """As fresh as a new server for a test that only uses database `postgres` (a new server costs a
        second or two more): its replication slots, the database itself (created again from template1)
        and the roles made since initdb are dropped. Transaction ids and WAL positions go on."""
        import psycopg

        with self.connect(dbname="template1") as conn:
            deadline = time.monotonic() + 30
            while slots := conn.execute("SELECT slot_name, active_pid FROM pg_replication_slots").fetchall():
                for slot, pid in slots:  # a stopped client's walsender may linger a moment
                    try:
                        if pid:
                            conn.execute("SELECT pg_terminate_backend(%s)", (pid,))
                        else:
                            conn.execute("SELECT pg_drop_replication_slot(%s)", (slot,))
                    except (psycopg.errors.ObjectInUse, psycopg.errors.UndefinedObject):
                        pass  # active again, or gone meanwhile: seen on the next round
                if time.monotonic() > deadline:
                    raise RuntimeError(f"replication slots still in use: {slots}")
                time.sleep(0.05)
            conn.execute("DROP DATABASE IF EXISTS postgres WITH (FORCE)")
            conn.execute("CREATE DATABASE postgres")
            for (role,) in conn.execute("SELECT rolname FROM pg_roles WHERE oid >= 16384").fetchall():
                conn.execute(f'DROP ROLE "{role}"')

    def __enter__(self) -> PgServer:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    # -- access ------------------------------------------------------------------------------------
    @property
    def dsn(self) -> str:
        return f"postgresql://postgres@127.0.0.1:{self.port}/postgres"

    def connect(self, **kw):
        import psycopg

        return psycopg.connect(self.dsn, autocommit=True, **kw)

    def psql(self, sql: str, check: bool = True) -> subprocess.CompletedProcess:
        """Run a script through psql (statements autocommit unless BEGIN/COMMIT), as users do."""
        psql = shutil.which("psql") or str(self.bindir / "psql")
        return subprocess.run(
            [psql, self.dsn, "-X", "-q", "-v", "ON_ERROR_STOP=1", "-o", "/dev/null"],
            input=sql,
            text=True,
            capture_output=True,
            check=check,
        )

    def psql_async(self, sql: str) -> subprocess.Popen:
        psql = shutil.which("psql") or str(self.bindir / "psql")
        p = subprocess.Popen(
            [psql, self.dsn, "-X", "-q", "-v", "ON_ERROR_STOP=1", "-o", "/dev/null"],
            stdin=subprocess.PIPE,
            text=True,
        )
        p.stdin.write(sql)
        p.stdin.close()
        return p

    def connector_properties(self, **overrides: str) -> dict[str, str]:
        """Debezium connector properties pointing at this server."""
        props = {
            "name": "test-pg",
            "connector.class": "io.debezium.connector.postgresql.PostgresConnector",
            "database.hostname": "127.0.0.1",
            "database.port": str(self.port),
            "database.user": "postgres",
            "database.password": "postgres",
            "database.dbname": "postgres",
            "topic.prefix": "dbserver1",
            "plugin.name": "pgoutput",
        }
        props.update(overrides)
        return props

    # -- test barriers -----------------------------------------------------------------------------
    def wal_lsn(self) -> str:
        """The WAL position after everything committed so far."""
        with self.connect() as conn:
            return conn.execute("SELECT pg_current_wal_insert_lsn()::text").fetchone()[0]

    def wait_slot_sent(self, slot: str, lsn: str, timeout: float = 30) -> bool:
        """Until the walsender streaming `slot` has decoded and sent the WAL up to `lsn` (a barrier that a
        step's changes are all on their way to the client); False if it is not there within `timeout`."""
        deadline = time.monotonic() + timeout
        with self.connect() as conn:
            while time.monotonic() < deadline:
                row = conn.execute(
                    "SELECT r.sent_lsn >= %s::pg_lsn FROM pg_replication_slots s "
                    "JOIN pg_stat_replication r ON r.pid = s.active_pid WHERE s.slot_name = %s",
                    (lsn, slot),
                ).fetchone()
                if row and row[0]:
                    return True
                time.sleep(0.05)
        return False
