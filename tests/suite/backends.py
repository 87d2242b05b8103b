"""The databases the behaviour suite runs against, behind one `Backend` protocol (estuary's `TestBackend`,
Debezium's `BinlogConnectorTest`): a scenario creates tables, writes rows and reads topics through it and
never names the database it runs on. What a backend cannot do it declares as a missing *feature*; the
`backend` fixture (conftest.py) skips a scenario whose `@needs(...)` a backend lacks.

Backends:
* `postgres`: a throwaway PostgreSQL (pgoutput); each test gets its own schema, slot, publication and
  topic prefix. Tables are `REPLICA IDENTITY FULL`, so `before` images are whole rows as on the binlog.
* `mariadb-mysql` / `mariadb`: one throwaway MariaDB captured as `MySqlConnector` and as
  `MariaDbConnector`; each test gets its own database and topic prefix.
* `mysql`: Oracle MySQL at `MYSQL_URL` (mysql://user:password@host:port; binlog_format=ROW, gtid_mode=ON for
  transaction metadata), skipped when unset.
* `mongodb`: a replica set at `MONGODB_URI`, skipped when unset. Documents are `{"_id": id, ...}`;
  `image()` turns Debezium's extended-JSON `after` string into the row the scenario wrote.

Features (what a scenario may need):
  before_image      update/delete events carry the full old row in `before`
  key_change        an UPDATE of the primary key (delete + tombstone + create with key headers)
  truncate          TRUNCATE reaches the stream (`op=t` unless skipped)
  lose_position     the test may make the stored position unavailable (drops a slot / purges binlogs)
  lost_position_fails   `initial` refuses to start from an unavailable position (binlog); without it the
                    connector warns and streams from what the server still has (PostgreSQL, spec §2.12)
  signal_table      source-channel signals through a table; incremental and blocking snapshots
  blocking_snapshot     a blocking snapshot from a source-channel signal, without filters (also on a
                    recorded MongoDB change stream, which has no incremental snapshots)
  sql_writer        the random writer of incremental_checks (SQL sessions)
  heartbeat         heartbeats on an idle database
  tx_metadata       BEGIN/END records on `<prefix>.transaction`
  lazy_tx_begin     BEGIN only once a transaction has a captured change (PostgreSQL); binlog connectors
                    emit it at the GTID event, also for DDL and for transactions of skipped changes
  cli_restart       the CLI process can be killed and restarted on its offsets (kill -9 scenarios)
  held_reads        another session can hold a lock under which a snapshot waits to read one table's rows
                    (`reads_held`): a test stops the snapshot in its middle without hoping the machine is slow
  schema_change_topic   DDL records on the topic named after `topic.prefix` (binlog connectors)
  configuration_based   snapshot.mode=configuration_based (MongoDB refuses it at start: the emulator does
                    not implement it there)
  relational_markers    snapshot reads marked first / first_in_data_collection / true /
                    last_in_data_collection / last; MongoDB marks every read `true` but the very last
"""

from __future__ import annotations

import contextlib
import datetime
import itertools
import json
import os
import time
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import Any, ClassVar
from urllib.parse import unquote, urlparse

from bson import Int64

POSTGRES = "io.debezium.connector.postgresql.PostgresConnector"
MYSQL = "io.debezium.connector.mysql.MySqlConnector"
MARIADB = "io.debezium.connector.mariadb.MariaDbConnector"
MONGODB = "io.debezium.connector.mongodb.MongoDbConnector"

_names = itertools.count(1)

SIGNAL_TABLE = "debezium_signal"


class Backend:
    """One database, one test's private corner of it (schema or database `ns`, topic prefix `ns`)."""

    name: ClassVar[str]
    connector_class: ClassVar[str]
    features: ClassVar[frozenset[str]] = frozenset()
    # what the one-line error says when `lost_position_fails` refuses a start (Debezium's own wording)
    lost_position_error: ClassVar[str] = "no longer available"

    def __init__(self, server: Any, workdir: Path) -> None:
        self.server = server
        self.workdir = workdir
        self.ns = f"s{next(_names)}_{self.name.replace('-', '_')}"
        self.prefix = self.ns
        self.tables: dict[str, tuple[str, ...]] = {}  # name -> key columns
        self._pending: list[tuple[str, Any]] | None = None  # writes of an open transaction()
        self.processes: list[Any] = []  # CLI processes of the test (harness.CliRun)

    # -- availability and features ----------------------------------------------------------------------
    @classmethod
    def unavailable(cls) -> str | None:
        """Why this backend cannot run here (the skip reason), or None."""
        return None

    def supports(self, feature: str) -> bool:
        return feature in self.features

    # -- connector side -----------------------------------------------------------------------------------
    def config(self, **overrides: Any) -> dict[str, str]:
        """Connector properties for this test: its namespace, topic prefix and offsets file; `overrides`
        win (a None value removes a property)."""
        props = {**self._base_config(), "offset.flush.interval.ms": "100"}
        props["offset.storage.file.filename"] = str(self.workdir / "offsets.json")
        for k, v in overrides.items():
            if v is None:
                props.pop(k, None)
            else:
                props[k] = str(v)
        return props

    def _base_config(self) -> dict[str, str]:
        raise NotImplementedError

    def topic(self, table: str) -> str:
        return f"{self.prefix}.{self.ns}.{table}"

    def table_id(self, table: str) -> str:
        """The data-collection name signals and include lists use."""
        return f"{self.ns}.{table}"

    def image(self, row: Any) -> dict | None:
        """An event's `before`/`after` as the row the scenario wrote."""
        return row

    def key(self, record: dict) -> dict:
        """A record's key payload as the key columns the scenario wrote."""
        k = record["key"]
        return k["payload"] if isinstance(k, dict) and "payload" in k else k

    # -- database side ------------------------------------------------------------------------------------
    def create_table(self, name: str, columns: dict[str, str], key: tuple[str, ...] = ("id",)) -> None:
        """`columns`: name -> neutral type (`int`, `bigint`, `text`)."""
        raise NotImplementedError

    def insert(self, table: str, *rows: dict) -> None:
        """One INSERT per 1000 rows of the same columns (bulk loads stay cheap), in order."""
        i = 0
        while i < len(rows):
            cols = list(rows[i])
            batch = [rows[i]]
            while i + len(batch) < len(rows) and len(batch) < 1000 and list(rows[i + len(batch)]) == cols:
                batch.append(rows[i + len(batch)])
            one = "(" + ", ".join(["%s"] * len(cols)) + ")"
            self._write(
                f"INSERT INTO {self.qualified(table)} ({', '.join(cols)}) VALUES {', '.join([one] * len(batch))}",
                tuple(v for row in batch for v in row.values()),
            )
            i += len(batch)

    def update(self, table: str, key: dict, values: dict) -> None:
        sets = ", ".join(f"{c} = %s" for c in values)
        where = " AND ".join(f"{c} = %s" for c in key)
        self._write(
            f"UPDATE {self.qualified(table)} SET {sets} WHERE {where}", (*values.values(), *key.values())
        )

    def delete(self, table: str, key: dict) -> None:
        where = " AND ".join(f"{c} = %s" for c in key)
        self._write(f"DELETE FROM {self.qualified(table)} WHERE {where}", tuple(key.values()))

    def insert_each(self, table: str, rows: Iterable[dict]) -> None:
        """Insert `rows` one transaction each, on one connection (a steady stream of small commits)."""
        with contextlib.closing(self.session()) as c:
            for row in rows:
                marks = ", ".join(["%s"] * len(row))
                c.execute(
                    f"INSERT INTO {self.qualified(table)} ({', '.join(row)}) VALUES ({marks})",
                    tuple(row.values()),
                )

    def _write(self, sql: str, args: Any) -> None:
        if self._pending is not None:
            self._pending.append((sql, args))
        else:
            self._run([(sql, args)])

    def _run(self, statements: list[tuple[str, Any]]) -> None:
        """Run the statements in one transaction."""
        raise NotImplementedError

    def truncate(self, table: str) -> None:
        self.execute(f"TRUNCATE TABLE {self.qualified(table)}")

    def execute(self, sql: str, args: Any = None) -> None:
        raise NotImplementedError

    def qualified(self, table: str) -> str:
        return f"{self.ns}.{table}"

    def rows(self, table: str) -> list[dict]:
        raise NotImplementedError

    @contextlib.contextmanager
    def transaction(self) -> Iterator[Backend]:
        """Writes inside the block commit together, as one transaction, when the block ends."""
        self._pending = []
        try:
            yield self
            self._run(self._pending)
        finally:
            self._pending = None

    def signal_table(self) -> str:
        """Creates the signal table; returns its data-collection name for `signal.data.collection`."""
        self.execute(
            f"CREATE TABLE {self.qualified(SIGNAL_TABLE)} (id varchar(64) PRIMARY KEY, "
            "type varchar(32) NOT NULL, data varchar(2048) NULL)"
        )
        return self.table_id(SIGNAL_TABLE)

    def signal(self, kind: str, data: dict | str | None, sid: str | None = None) -> None:
        payload = data if isinstance(data, str) or data is None else json.dumps(data)
        self._write(
            f"INSERT INTO {self.qualified(SIGNAL_TABLE)} VALUES (%s, %s, %s)",
            (sid or f"sig-{time.monotonic_ns()}", kind, payload),
        )

    def session(self) -> Any:
        """A session for incremental_checks.Writer: `execute(sql, args)` and `transaction()`."""
        raise NotImplementedError

    def writer_sql(self, table: str) -> Any:
        raise NotImplementedError

    def lose_position(self) -> None:
        """Make the position a stopped connector stored unavailable on the server."""
        raise NotImplementedError

    @contextlib.contextmanager
    def reads_held(self, table: str) -> Iterator[tuple[dict[str, str], Any]]:
        """While the block runs, another session holds a lock under which the connector's snapshot waits to
        read `table`'s rows. Yields the connector properties the snapshot needs for that (none of its own
        locks may wait first) and `waiting()`: true once the connector waits on that lock. Released at the
        block's end."""
        raise NotImplementedError

    def close(self) -> None:
        """The test's end: kill what it left running, drop what it created."""
        for p in self.processes:
            p.kill()
        self.cleanup()

    def cleanup(self) -> None:
        pass


# -- PostgreSQL ---------------------------------------------------------------------------------------------

_PG_TYPES = {"int": "int", "bigint": "bigint", "text": "text"}


class Postgres(Backend):
    name = "postgres"
    connector_class = POSTGRES
    features = frozenset(
        {
            "before_image",
            "key_change",
            "truncate",
            "lose_position",
            "signal_table",
            "blocking_snapshot",
            "sql_writer",
            "heartbeat",
            "relational_markers",
            "configuration_based",
            "tx_metadata",
            "lazy_tx_begin",
            "cli_restart",
            "held_reads",
        }
    )

    def __init__(self, server: Any, workdir: Path) -> None:
        super().__init__(server, workdir)
        self.slot = self.ns
        self.execute(f"CREATE SCHEMA {self.ns}")

    def _base_config(self) -> dict[str, str]:
        return self.server.connector_properties(
            **{
                "connector.class": POSTGRES,
                "topic.prefix": self.prefix,
                "slot.name": self.slot,
                "publication.name": f"{self.ns}_pub",
                "schema.include.list": self.ns,
            }
        )

    def execute(self, sql: str, args: Any = None) -> None:
        with self.server.connect() as c:
            c.execute(sql, args)

    def create_table(self, name: str, columns: dict[str, str], key: tuple[str, ...] = ("id",)) -> None:
        cols = ", ".join(f"{c} {_PG_TYPES[t]}" for c, t in columns.items())
        pk = f", PRIMARY KEY ({', '.join(key)})" if key else ""
        self.execute(f"CREATE TABLE {self.qualified(name)} ({cols}{pk})")
        self.execute(f"ALTER TABLE {self.qualified(name)} REPLICA IDENTITY FULL")
        self.tables[name] = key

    def rows(self, table: str) -> list[dict]:
        with self.server.connect() as c:
            cur = c.execute(f"SELECT * FROM {self.qualified(table)}")
            names = [d.name for d in cur.description]
            return [dict(zip(names, r)) for r in cur.fetchall()]

    def _run(self, statements: list[tuple[str, Any]]) -> None:
        with self.server.connect() as c, c.transaction():
            for sql, args in statements:
                c.execute(sql, args)

    def session(self) -> Any:
        return self.server.connect()

    def writer_sql(self, table: str) -> Any:
        from incremental_checks import pg_writes

        return pg_writes(self.qualified(table))

    @contextlib.contextmanager
    def reads_held(self, table: str) -> Iterator[tuple[dict[str, str], Any]]:
        """ACCESS EXCLUSIVE on `table`: the snapshot's COPY of it waits (the default snapshot.locking.mode
        `none` takes no lock of its own first; reading the catalog does not wait). The slot is made here first:
        creating it waits for every running transaction, this lock's too; a connector that finds its slot
        and no offsets snapshots in a transaction of its own."""
        name = self.qualified(table)
        with self.server.connect() as c:
            if (
                c.execute("SELECT 1 FROM pg_replication_slots WHERE slot_name = %s", (self.slot,)).fetchone()
                is None
            ):
                c.execute("SELECT pg_create_logical_replication_slot(%s, 'pgoutput')", (self.slot,))

        def waiting() -> bool:  # the snapshot's read of `table`, not any other statement
            with self.server.connect() as c:
                sql = (
                    "SELECT count(*) FROM pg_locks l JOIN pg_stat_activity a USING (pid)"
                    " WHERE l.relation = %s::regclass AND NOT l.granted AND a.query ~* '^\\s*(copy|select)'"
                )
                return c.execute(sql, (name,)).fetchone()[0] > 0

        with self.server.connect() as c, c.transaction():
            c.execute(f"LOCK TABLE {name} IN ACCESS EXCLUSIVE MODE")
            yield {}, waiting

    def _slot_active(self) -> bool | None:
        with self.server.connect() as c:
            row = c.execute(
                "SELECT active FROM pg_replication_slots WHERE slot_name = %s", (self.slot,)
            ).fetchone()
        return None if row is None else bool(row[0])

    def lose_position(self) -> None:
        """Drop the slot: a new one only has changes from its creation on (spec §2.12, slot loss)."""
        self._drop_slot()

    def _drop_slot(self) -> None:
        deadline = time.monotonic() + 15
        while time.monotonic() < deadline:
            active = self._slot_active()
            if active is None:
                return
            if not active:
                with self.server.connect() as c:
                    c.execute("SELECT pg_drop_replication_slot(%s)", (self.slot,))
                return
            time.sleep(0.1)
        raise AssertionError(f"slot {self.slot} stayed in use")

    def cleanup(self) -> None:
        with contextlib.suppress(Exception):
            self._drop_slot()


# -- MySQL family ---------------------------------------------------------------------------------------------

_MY_TYPES = {"int": "INT", "bigint": "BIGINT", "text": "TEXT"}


class _Binlog(Backend):
    """MariaDB or MySQL: a database per test, statements on a root connection of the server."""

    features = frozenset(
        {
            "before_image",
            "key_change",
            "truncate",
            "lose_position",
            "lost_position_fails",
            "schema_change_topic",
            "signal_table",
            "blocking_snapshot",
            "sql_writer",
            "heartbeat",
            "relational_markers",
            "configuration_based",
            "tx_metadata",
            "cli_restart",
            "held_reads",
        }
    )

    def __init__(self, server: Any, workdir: Path) -> None:
        super().__init__(server, workdir)
        self.execute(f"CREATE DATABASE {self.ns}")

    def _connect(self) -> Any:
        return self.server.connect()

    def _base_config(self) -> dict[str, str]:
        return self.server.connector_properties(
            connector="mariadb" if self.connector_class == MARIADB else "mysql",
            **{
                "topic.prefix": self.prefix,
                "database.include.list": self.ns,
                "database.server.id": str(5400 + next(_names)),
                "schema.history.internal.file.filename": str(self.workdir / "history.dat"),
            },
        )

    def execute(self, sql: str, args: Any = None) -> None:
        conn = self._connect()
        try:
            with conn.cursor() as cur:
                cur.execute(sql, args)
        finally:
            conn.close()

    def create_table(self, name: str, columns: dict[str, str], key: tuple[str, ...] = ("id",)) -> None:
        cols = ", ".join(f"{c} {_MY_TYPES[t]}" for c, t in columns.items())
        pk = f", PRIMARY KEY ({', '.join(key)})" if key else ""
        self.execute(f"CREATE TABLE {self.qualified(name)} ({cols}{pk})")
        self.tables[name] = key

    def rows(self, table: str) -> list[dict]:
        import pymysql.cursors

        conn = self._connect()
        try:
            with conn.cursor(pymysql.cursors.DictCursor) as cur:
                cur.execute(f"SELECT * FROM {self.qualified(table)}")
                return list(cur.fetchall())
        finally:
            conn.close()

    def _run(self, statements: list[tuple[str, Any]]) -> None:
        conn = self._connect()
        try:
            conn.begin()
            with conn.cursor() as cur:
                for sql, args in statements:
                    cur.execute(sql, args)
            conn.commit()
        finally:
            conn.close()

    def session(self) -> Any:
        from incremental_checks import PyMySqlSession

        return PyMySqlSession(self._connect())

    def writer_sql(self, table: str) -> Any:
        from incremental_checks import mariadb_writes

        return mariadb_writes(self.qualified(table))

    @contextlib.contextmanager
    def reads_held(self, table: str) -> Iterator[tuple[dict[str, str], Any]]:
        """LOCK TABLES `table` WRITE: the snapshot's SELECT of it waits for the metadata lock, while SHOW
        CREATE TABLE does not. snapshot.locking.mode=none: the default's FLUSH TABLES WITH READ LOCK would
        wait for this lock before any row is read."""

        def waiting() -> bool:
            conn = self._connect()
            try:
                with conn.cursor() as cur:
                    cur.execute(
                        "SELECT COUNT(*) FROM information_schema.processlist"
                        " WHERE state = 'Waiting for table metadata lock' AND info LIKE %s",
                        (f"%{self.ns}%",),
                    )
                    return cur.fetchone()[0] > 0
            finally:
                conn.close()

        conn = self._connect()
        try:
            with conn.cursor() as cur:
                cur.execute(f"LOCK TABLES {self.qualified(table)} WRITE")
            yield {"snapshot.locking.mode": "none"}, waiting
            with conn.cursor() as cur:
                cur.execute("UNLOCK TABLES")
        finally:
            conn.close()

    def cleanup(self) -> None:
        with contextlib.suppress(Exception):
            self.execute(f"DROP DATABASE IF EXISTS {self.ns}")


class _LocalMariaDb(_Binlog):
    @classmethod
    def unavailable(cls) -> str | None:
        from emulator.testing import mariadbserver

        return (
            None if mariadbserver.available() else "MariaDB server binaries not installed (scripts/setup.sh)"
        )

    def __init__(self, server: Any, workdir: Path) -> None:
        super().__init__(server, workdir)
        # the connector's user writes watermarks into the signal table (incremental snapshots)
        self.execute(f"GRANT ALL PRIVILEGES ON {self.ns}.* TO '{server.user}'@'127.0.0.1'")

    def lose_position(self) -> None:
        """Purge every binlog but a new one: the stored file/GTID is gone (spec §14)."""
        for _ in range(100):  # a binlog is purged only once its transactions are checkpointed
            self.server.sql("FLUSH BINARY LOGS")
            last = self.server.query("SHOW MASTER STATUS")[0][0]
            self.server.sql(f"PURGE BINARY LOGS TO '{last}'")
            if [r[0] for r in self.server.query("SHOW BINARY LOGS")] == [last]:
                return
            time.sleep(0.1)
        raise AssertionError("could not purge the binlogs")


class MariaDbAsMySql(_LocalMariaDb):
    """MySqlConnector reading MariaDB's binlog: it does not recognise MariaDB's GTID events, so it emits no
    transaction metadata (tests/data/mariadb/golden: real Debezium's recording has no `.transaction` topic)."""

    name = "mariadb-mysql"
    connector_class = MYSQL
    features = _LocalMariaDb.features - {"tx_metadata"}


class MariaDb(_LocalMariaDb):
    name = "mariadb"
    connector_class = MARIADB


class OracleMySql(_Binlog):
    """A server we do not own: its binlogs are never purged (no `lose_position`)."""

    name = "mysql"
    connector_class = MYSQL
    features = _Binlog.features - {"lose_position"}

    @classmethod
    def unavailable(cls) -> str | None:
        if not os.environ.get("MYSQL_URL"):
            return "MYSQL_URL is not set (mysql://user:password@host:port of an Oracle MySQL 8 server)"
        return None


class RemoteMySql:
    """The server at MYSQL_URL with the `MariaDbServer` calls the backend uses."""

    def __init__(self, url: str) -> None:
        u = urlparse(url)
        self.host = u.hostname or "127.0.0.1"
        self.port = u.port or 3306
        self.user = unquote(u.username or "root")
        self.password = unquote(u.password or "")

    def connect(self) -> Any:
        import pymysql

        return pymysql.connect(
            host=self.host, port=self.port, user=self.user, password=self.password, autocommit=True
        )

    def connector_properties(self, connector: str = "mysql", **overrides: str) -> dict[str, str]:
        props = {
            "name": "suite-mysql",
            "connector.class": MYSQL,
            "database.hostname": self.host,
            "database.port": str(self.port),
            "database.user": self.user,
            "database.password": self.password,
            "schema.history.internal": "io.debezium.storage.file.history.FileSchemaHistory",
            "schema.history.internal.store.only.captured.databases.ddl": "true",
        }
        props.update(overrides)
        return props


# -- MongoDB ------------------------------------------------------------------------------------------------------


class MongoDb(Backend):
    """Collections instead of tables; `id` is the document's `_id`. No SQL: no writer, no TRUNCATE, no key
    changes (`_id` is immutable), and its signal collection takes documents, not rows."""

    name = "mongodb"
    connector_class = MONGODB
    features = frozenset({"tx_metadata", "cli_restart"})

    @classmethod
    def unavailable(cls) -> str | None:
        if not os.environ.get("MONGODB_URI"):
            return "MONGODB_URI is not set (a replica set, e.g. mongodb://localhost:27017/?replicaSet=rs0)"
        return None

    def __init__(self, server: Any, workdir: Path) -> None:
        super().__init__(server, workdir)
        self.db = server[self.ns]
        self._session: Any = None  # of an open transaction()

    def _base_config(self) -> dict[str, str]:
        return {
            "name": "suite-mongodb",
            "connector.class": MONGODB,
            "mongodb.connection.string": os.environ.get("MONGODB_URI", ""),
            "topic.prefix": self.prefix,
            "database.include.list": self.ns,
            "capture.mode": "change_streams_update_full",
        }

    def create_table(self, name: str, columns: dict[str, str], key: tuple[str, ...] = ("id",)) -> None:
        self.db.create_collection(name)
        self.tables[name] = key

    @staticmethod
    def _doc(row: dict) -> dict:
        return {"_id": row["id"], **{k: v for k, v in row.items() if k != "id"}}

    def insert(self, table: str, *rows: dict) -> None:
        for row in rows:
            self.db[table].insert_one(self._doc(row), session=self._session)

    def update(self, table: str, key: dict, values: dict) -> None:
        self.db[table].update_one({"_id": key["id"]}, {"$set": values}, session=self._session)

    def delete(self, table: str, key: dict) -> None:
        self.db[table].delete_one({"_id": key["id"]}, session=self._session)

    def insert_each(self, table: str, rows: Iterable[dict]) -> None:
        for row in rows:
            self.insert(table, row)

    @contextlib.contextmanager
    def transaction(self) -> Iterator[Backend]:
        """A multi-document transaction (replica sets)."""
        with self.server.start_session() as session, session.start_transaction():
            self._session = session
            try:
                yield self
            finally:
                self._session = None

    def truncate(self, table: str) -> None:
        raise NotImplementedError("MongoDB has no TRUNCATE")

    def rows(self, table: str) -> list[dict]:
        return [self.image(json.dumps(d, default=str)) for d in self.db[table].find()]

    def image(self, row: Any) -> dict | None:
        if row is None:
            return None
        doc = json.loads(row) if isinstance(row, str) else row
        out = {"id": _plain(doc.pop("_id"))}
        out.update({k: _plain(v) for k, v in doc.items()})
        return out

    def key(self, record: dict) -> dict:
        """A document key `{"id": "<_id as extended JSON>"}` as the id written; other keys (transaction,
        heartbeat) as they are."""
        k = super().key(record)
        if (
            record["topic"].startswith(f"{self.prefix}.{self.ns}.")
            and isinstance(k, dict)
            and set(k) == {"id"}
        ):
            return {"id": _plain(json.loads(k["id"]))}
        return k

    def cleanup(self) -> None:
        with contextlib.suppress(Exception):
            self.server.drop_database(self.ns)


def _plain(v: Any) -> Any:
    """Extended JSON numbers (`{"$numberLong": "5"}`) as Python ints."""
    if isinstance(v, dict) and len(v) == 1:
        ((tag, inner),) = v.items()
        if tag in ("$numberInt", "$numberLong"):
            return int(inner)
    return v


class MongoRecorded(MongoDb):
    """MongoDbConnector on a recorded change stream (`mongodb.connection.string=file:...`,
    `emulator.connectors.mongodb.streams.RecordedStreams`): no server; each write appends the change event
    a replica set's change stream delivers for it (MongoDB's documented event shape: resume token `_id`,
    `operationType`, `clusterTime`, `wallTime`, `ns`, `documentKey`, `fullDocument` as `updateLookup`
    returns it, `updateDescription`, pre-images, `lsid`/`txnNumber` in a transaction) to the file the
    connector's change-stream reader tails. `lose_position` is the oplog rolling over: every event gets a
    new resume token, so a stored one is gone (error 286). Only the connector's reading of the change
    stream is replaced; its decoding, snapshot, offsets and the pipeline are the ones a server run uses."""

    name = "mongodb-recorded"
    features = frozenset(
        {"tx_metadata", "heartbeat", "lose_position", "lost_position_fails", "blocking_snapshot"}
    )
    lost_position_error = "no longer be in the oplog"

    @classmethod
    def unavailable(cls) -> str | None:
        return None

    def __init__(self, server: Any, workdir: Path) -> None:
        Backend.__init__(self, server, workdir)
        self.path = workdir / "changestream.jsonl"
        self.path.touch()
        self.epoch = 1  # of the resume tokens; lose_position starts a new one
        self.count = 0
        self.docs: dict[str, dict[Any, dict]] = {}
        self._tx: list[dict] | None = None
        self._txn = 0
        self._session: Any = None

    def _base_config(self) -> dict[str, str]:
        # a file is polled, not awaited: a short poll keeps each scenario near its own work
        return {
            **super()._base_config(),
            "mongodb.connection.string": self.path.as_uri(),
            "poll.interval.ms": "20",
        }

    def _event(self, kind: str, coll: str, **fields: Any) -> None:
        from bson import Timestamp

        self.count += 1
        now = time.time()
        event = {
            "_id": {"_data": f"{self.epoch:04X}{self.count:012X}"},
            "operationType": kind,
            "clusterTime": Timestamp(int(now), self.count),
            "wallTime": datetime.datetime.fromtimestamp(now, datetime.UTC),
            "ns": {"db": self.ns, "coll": coll},
            **fields,
        }
        if self._tx is not None:
            event["lsid"], event["txnNumber"] = self._session, Int64(self._txn)
            self._tx.append(event)
        else:
            self._append([event])

    def _append(self, events: list[dict]) -> None:
        from emulator.connectors.mongodb.streams import dumps

        with open(self.path, "a") as f:  # one write: the reader never sees half a transaction
            f.write("".join(dumps(e) + "\n" for e in events))

    def create_table(self, name: str, columns: dict[str, str], key: tuple[str, ...] = ("id",)) -> None:
        self.docs[name] = {}
        self.tables[name] = key
        self._event("create", name)

    def insert(self, table: str, *rows: dict) -> None:
        for row in rows:
            doc = self._doc(row)
            self.docs[table][doc["_id"]] = doc
            self._event("insert", table, documentKey={"_id": doc["_id"]}, fullDocument=dict(doc))

    def update(self, table: str, key: dict, values: dict) -> None:
        old = self.docs[table][key["id"]]
        new = {**old, **values}
        self.docs[table][key["id"]] = new
        update = {"updatedFields": dict(values), "removedFields": [], "truncatedArrays": []}
        self._event(
            "update",
            table,
            documentKey={"_id": key["id"]},
            updateDescription=update,
            fullDocument=dict(new),
            fullDocumentBeforeChange=dict(old),
        )

    def delete(self, table: str, key: dict) -> None:
        old = self.docs[table].pop(key["id"])
        self._event("delete", table, documentKey={"_id": key["id"]}, fullDocumentBeforeChange=old)

    @contextlib.contextmanager
    def transaction(self) -> Iterator[Backend]:
        """A multi-document transaction: its events share `lsid`/`txnNumber` and reach the file together."""
        import uuid

        from bson import Binary

        self._txn += 1
        self._session = {"id": Binary(uuid.uuid4().bytes, 4), "uid": Binary(bytes(32), 0)}
        self._tx = []
        try:
            yield self
            self._append(self._tx)
        finally:
            self._tx = None

    def rows(self, table: str) -> list[dict]:
        return [self.image(dict(d)) for d in self.docs[table].values()]

    def signal_table(self) -> str:
        self.create_table(SIGNAL_TABLE, {"id": "text", "type": "text", "data": "text"})
        return self.table_id(SIGNAL_TABLE)

    def signal(self, kind: str, data: dict | str | None, sid: str | None = None) -> None:
        """A signal document `{_id, type, data}` (Debezium's MongoDB signalling collection)."""
        text = data if isinstance(data, str) or data is None else json.dumps(data)
        self.insert(SIGNAL_TABLE, {"id": sid or f"sig-{time.monotonic_ns()}", "type": kind, "data": text})

    def lose_position(self) -> None:
        from bson.json_util import JSONOptions, loads

        from emulator.connectors.mongodb.streams import dumps

        self.epoch += 1
        opts = JSONOptions(document_class=dict, tz_aware=True)
        events = [loads(line, json_options=opts) for line in self.path.read_text().splitlines() if line]
        for e in events:
            e["_id"] = {"_data": f"{self.epoch:04X}{e['_id']['_data'][4:]}"}
        self.path.write_text("".join(dumps(e) + "\n" for e in events))

    def cleanup(self) -> None:
        pass


ALL: tuple[type[Backend], ...] = (Postgres, MariaDbAsMySql, MariaDb, OracleMySql, MongoDb, MongoRecorded)
