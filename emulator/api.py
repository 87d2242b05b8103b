"""In-process API: capture changes from Python without files or Kafka.

    from emulator.api import Capture, assert_change
    with Capture({"connector.class": "io.debezium.connector.postgresql.PostgresConnector", ...}) as cap:
        ...  # change the database: start() returned once the connector streams, so this is seen as op=c
        ch = cap.wait_for_change("public.orders", op="c")
        assert_change(ch, op="c", after={"id": 1})

Records are delivered as dicts `{"topic", "key", "value", "headers"}` (key/value parsed JsonConverter
documents) once the engine has flushed them, i.e. with the latency a file reader would see. `Change` is the
Debezium view of one data record: `op`, `before`, `after`, `source`, `key` (payloads as Debezium wrote them).
"""

from __future__ import annotations

import logging
import queue
import re
import threading
import time
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from emulator.config import Config, from_dict, load_config
from emulator.connectors.registry import POSTGRES, retriable
from emulator.offsets import MemoryOffsetStore, OffsetStore
from emulator.outputs.memory import QueueOutput
from emulator.records import Record
from emulator.runner import Runner, offset_store
from emulator.settings import settings_for

log = logging.getLogger("emulator.api")

OPS = {"c": "create", "u": "update", "d": "delete", "r": "read (snapshot)", "t": "truncate", "m": "message"}
_UNSET: Any = object()


class CaptureError(RuntimeError):
    """The connector failed, or could not reach its database; the message says which and why."""


def _config(config: Config | dict | str | Path) -> Config:
    if isinstance(config, Config):
        return config
    if isinstance(config, dict):
        return from_dict(config)
    return load_config(config)


def _first_line(e: BaseException) -> str:
    text = str(e).strip()
    return text.splitlines()[0].strip() if text else type(e).__name__


_USERINFO = re.compile(r"//[^/@]*@")


def describe_failure(config: Config, e: BaseException) -> str:
    """One line saying why the connector is not running, naming the database it tried to reach."""
    s = settings_for(config)
    db = getattr(s, "relational", None)  # MongoDB: the connection string names the servers
    if db is None:
        # the servers, without the user and password a connection string may carry
        where = _USERINFO.sub("//", s.mongodb.connection_string or "") or "the database"
    else:
        where = f"{db.hostname}:{db.port}" if db.hostname else "the database"
    if _unreachable(e):
        return f"cannot reach the database at {where}: {type(e).__name__}: {_first_line(e)}"
    return f"connector failed: {type(e).__name__}: {_first_line(e)}"


# PyMySQL's client-side connection errors: can't connect (socket / TCP / unknown host), gone away, lost
_MYSQL_CONNECTION_ERRORS = {2002, 2003, 2005, 2006, 2013}


def _unreachable(e: BaseException) -> bool:
    """A failure to connect, as opposed to an error the server answered with (those have an SQLSTATE or an
    error number of the server; psycopg's OperationalError covers both)."""
    if isinstance(e, ConnectionError | TimeoutError):
        return True
    if not retriable(e):
        return False
    if type(e).__module__.startswith("psycopg"):
        return getattr(e, "sqlstate", None) is None
    if type(e).__module__.startswith("pymysql"):
        return bool(e.args) and e.args[0] in _MYSQL_CONNECTION_ERRORS
    return type(e).__module__.startswith("pymongo")  # ConnectionFailure; not the replication stream's errors


@dataclass(frozen=True)
class Change:
    """One change event in Debezium terms (a data record's value payload, plus its topic and key)."""

    topic: str
    op: str
    before: dict[str, Any] | None
    after: dict[str, Any] | None
    key: Any
    source: dict[str, Any] = field(repr=False)
    record: dict[str, Any] = field(repr=False, compare=False)

    @property
    def table(self) -> str:
        """`schema.table` (PostgreSQL) or `db.table` (MySQL/MariaDB), from the source block."""
        s = self.source
        ns = s.get("schema") if s.get("schema") is not None else s.get("db")
        return f"{ns}.{s.get('table') or s.get('collection')}"

    @staticmethod
    def of(record: dict[str, Any]) -> Change | None:
        """The change in a record, or None for tombstones, heartbeats, transaction and schema-change records."""
        payload = _payload(record.get("value"))
        if not isinstance(payload, dict) or payload.get("op") not in OPS or "source" not in payload:
            return None
        return Change(
            record["topic"],
            payload["op"],
            payload.get("before"),
            payload.get("after"),
            _payload(record.get("key")),
            payload["source"],
            record,
        )


def _payload(doc: Any) -> Any:
    if isinstance(doc, dict) and set(doc) == {"schema", "payload"}:
        return doc["payload"]
    return doc


def _mismatches(what: str, expected: Mapping[str, Any] | None, actual: Any, exact: bool) -> list[str]:
    if expected is None or actual is None:
        return [] if expected is None and actual is None else [f"{what} is {actual!r}, expected {expected!r}"]
    if not isinstance(actual, dict):
        return [f"{what} is {actual!r}, expected {dict(expected)!r}"]
    out = [
        f"{what}[{k!r}] is {actual.get(k, '<missing>')!r}, expected {v!r}"
        for k, v in expected.items()
        if k not in actual or actual[k] != v
    ]
    if exact and set(actual) - set(expected):
        out.append(f"{what} has columns not expected: {sorted(set(actual) - set(expected))}")
    return out


def change_mismatches(
    change: Change,
    op: str | None = None,
    before: Any = _UNSET,
    after: Any = _UNSET,
    key: Any = _UNSET,
    exact: bool = False,
) -> list[str]:
    """What differs between `change` and the expectation (empty: it matches). Columns not named in
    `before`/`after` are ignored unless `exact`; `None` means the image must be null."""
    out = []
    if op is not None and change.op != op:
        out.append(f"op is {change.op!r} ({OPS.get(change.op, '?')}), expected {op!r} ({OPS.get(op, '?')})")
    if before is not _UNSET:
        out += _mismatches("before", before, change.before, exact)
    if after is not _UNSET:
        out += _mismatches("after", after, change.after, exact)
    if key is not _UNSET and change.key != key:
        out.append(f"key is {change.key!r}, expected {key!r}")
    return out


def assert_change(
    change: Change | dict[str, Any],
    op: str | None = None,
    before: Any = _UNSET,
    after: Any = _UNSET,
    key: Any = _UNSET,
    exact: bool = False,
) -> Change:
    """Assert one change event (a `Change` or a record dict): its `op` ("c", "u", "d", "r", "t"), and the
    listed columns of `before` / `after` (all columns with `exact=True`; `None`: the image is null), and
    its `key` payload. Returns the Change."""
    ch = change if isinstance(change, Change) else Change.of(change)
    if ch is None:
        raise AssertionError(f"not a change event: {_brief(change)}")
    problems = change_mismatches(ch, op, before, after, key, exact)
    if problems:
        raise AssertionError(
            f"{ch.topic} op={ch.op}: " + "; ".join(problems) + f"\n  before={ch.before}\n  after={ch.after}"
        )
    return ch


class _Runner(Runner):
    """The Runner, remembering the failure it is retrying after (an unreachable database is retried like
    Kafka Connect does, forever by default; a test wants to hear about it)."""

    failure: BaseException | None = None

    def _commit_after_failure(self, exc: BaseException) -> None:
        self.failure = exc
        super()._commit_after_failure(exc)


class Capture:
    """One connector running in a thread of this process.

    `start()` returns once the connector streams: the snapshot its `snapshot.mode` asks for is done (its
    records are already readable) and the replication slot / binlog position is established, so a change
    made after `start()` arrives as a change event (`op` c/u/d), never inside the snapshot. It raises
    `CaptureError` at once if the connector fails or cannot reach the database.

    `cleanup=True` (what the pytest fixture uses): PostgreSQL replication slots and publications that did not
    exist before `start()` are dropped at `stop()`.
    """

    def __init__(
        self, config: Config | dict | str | Path, offsets: OffsetStore | None = None, cleanup: bool = False
    ) -> None:
        self.config = _config(config)
        self.settings = settings_for(self.config)
        self.output = QueueOutput()
        if offsets is None:
            offsets = (
                offset_store(self.config) if self.settings.offsets.file_filename else MemoryOffsetStore()
            )
        self.runner = _Runner(self.config, self.output, offsets)
        self.thread: threading.Thread | None = None
        self.error: BaseException | None = None
        self.seen: list[dict[str, Any]] = []
        self.cleanup = cleanup
        self._created: list[tuple[str, str]] = []  # ("slot"|"publication", name) to drop at stop
        self._done = False
        self._ever_streamed = False
        self._stopped = False

    # -- lifecycle ---------------------------------------------------------------------------------------
    def start(self, wait: bool = True, timeout: float = 120) -> Capture:
        """Start the connector; with `wait` (the default) return only once it streams (see the class)."""
        if self.cleanup:
            self._note_missing_pg_objects()

        def target() -> None:
            try:
                self.runner.run()
            except BaseException as e:  # surfaced to the reader
                self.error = e
                self.output.queue.put(None)

        self.thread = threading.Thread(target=target, name="emulator-capture", daemon=True)
        self.thread.start()
        if wait:
            self._wait_streaming(timeout)
        return self

    @property
    def streaming(self) -> bool:
        """The connector reads the change stream (after its snapshot)."""
        if getattr(self.runner.connector, "streaming", False):
            self._ever_streamed = True
            return True
        return False

    def _failure(self) -> str | None:
        """Why the connector is not running: its final error, or the failure it is retrying after while it
        has never streamed (typically: the database is unreachable)."""
        if self.error is not None:
            return describe_failure(self.config, self.error)
        f = getattr(self.runner, "failure", None)
        if f is not None and not self._ever_streamed and not self.streaming:
            return describe_failure(self.config, f)
        return None

    def _wait_streaming(self, timeout: float) -> None:
        deadline = time.monotonic() + timeout
        while not self.streaming:
            problem = self._failure()
            if problem is not None:
                self.stop()
                raise CaptureError(problem) from (self.error or self.runner.failure)
            if self.thread is not None and not self.thread.is_alive():
                return  # a snapshot-only mode (initial_only) finished: everything is readable
            if time.monotonic() > deadline:
                self.stop()
                raise CaptureError(f"the connector did not start streaming within {timeout} s")
            time.sleep(0.02)

    def stop(self, timeout: float = 30) -> None:
        if self._stopped:
            return
        self._stopped = True
        self.runner.stop()
        if self.thread is not None:
            self.thread.join(timeout)
        if self._created:
            self._drop_created()

    def signal(self, kind: str, data: Mapping[str, Any] | str | None = None, sid: str | None = None) -> str:
        """Send a signal through the in-process channel (`signal.enabled.channels` must include
        `in-process`), as Debezium's engine signaler does; the connector handles it at its next poll (a
        signal sent while the connector restarts after a failure is lost). Returns the signal's id."""
        from emulator.signals.record import SignalError

        signals = getattr(self.runner.connector, "signals", None)
        if signals is None:
            raise CaptureError("the connector is not running")
        sid = sid or f"in-process-{time.time_ns()}"
        try:
            signals.send(sid, kind, data)
        except SignalError as e:
            raise CaptureError(str(e)) from None
        return sid

    def __enter__(self) -> Capture:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    # -- PostgreSQL objects a test created ---------------------------------------------------------------
    def _pg(self):
        if self.settings.common.connector_class != POSTGRES:
            return None
        import psycopg

        from emulator.connectors.postgres.conninfo import libpq_conninfo

        return psycopg.connect(libpq_conninfo(self.config), autocommit=True)

    def _note_missing_pg_objects(self) -> None:
        if self.settings.connector != "postgres":
            return
        slot, pub = self.settings.postgres.slot_name, self.settings.postgres.publication_name
        try:
            conn = self._pg()
        except Exception:  # noqa: BLE001 - unreachable: start() reports it with the connector's words
            return
        if conn is None:
            return
        with conn:
            if not conn.execute(
                "SELECT 1 FROM pg_replication_slots WHERE slot_name = %s", (slot,)
            ).fetchone():
                self._created.append(("slot", slot))
            if not conn.execute("SELECT 1 FROM pg_publication WHERE pubname = %s", (pub,)).fetchone():
                self._created.append(("publication", pub))

    def _drop_created(self) -> None:
        import psycopg
        from psycopg import sql

        try:
            conn = self._pg()
        except psycopg.Error as e:
            log.warning("could not drop the test's replication slot/publication: %s", _first_line(e))
            return
        with conn:
            for kind, name in self._created:
                if kind == "publication":
                    conn.execute(sql.SQL("DROP PUBLICATION IF EXISTS {}").format(sql.Identifier(name)))
                    continue
                deadline = time.monotonic() + 10  # the walsender may hold the slot a moment after we left
                while True:
                    try:
                        conn.execute(
                            "SELECT pg_drop_replication_slot(slot_name) FROM pg_replication_slots "
                            "WHERE slot_name = %s",
                            (name,),
                        )
                        break
                    except psycopg.errors.ObjectInUse:
                        if time.monotonic() > deadline:
                            log.warning("replication slot %s is still in use; not dropped", name)
                            break
                        time.sleep(0.1)
        self._created.clear()

    # -- reading -----------------------------------------------------------------------------------------
    def _next(self, timeout: float) -> dict[str, Any] | None:
        if self._done:
            return None
        try:
            rec: Record | None = self.output.queue.get(timeout=timeout)
        except queue.Empty:
            return None
        if rec is None:
            self._done = True
            # the runner closes its output (this None) before its thread records the error that ended it:
            # wait for the thread, or a failure reads as "no record arrived" (CI, stop 27)
            if self.thread is not None and self.thread is not threading.current_thread():
                self.thread.join(30)
            if self.error is not None:
                raise CaptureError(describe_failure(self.config, self.error)) from self.error
            return None
        d = rec.to_dict()
        self.seen.append(d)
        return d

    def _drain(self) -> None:
        while self._next(0) is not None:
            pass

    def records(self, timeout: float = 1.0) -> Iterator[dict[str, Any]]:
        """Records as they arrive; ends after `timeout` seconds without one, or when capture stops."""
        while True:
            d = self._next(timeout)
            if d is None:
                return
            yield d

    def topic(self, table: str) -> str:
        """The topic of `schema.table` (or `db.table`); a full topic name is returned as it is. PostgreSQL under
        DefaultTopicNamingStrategy: `<prefix>.<table>`, without the schema (emulator.envelope)."""
        t = self.settings.topics
        prefix, delim = t.prefix, t.delimiter
        if table.startswith(prefix + delim):
            return table
        if (
            self.settings.common.connector_class == POSTGRES
            and t.naming_strategy.strip().lower() == "io.debezium.schema.defaulttopicnamingstrategy"
        ):
            _schema, dot, name = table.partition(".")
            table = name if dot else table
        return f"{prefix}{delim}{table}"

    def wait_for(
        self, topic: str, predicate: Callable[[dict[str, Any]], bool] = lambda r: True, timeout: float = 10.0
    ) -> dict[str, Any]:
        """The first record on `topic` (already seen or arriving) matching `predicate`. Raises CaptureError
        at once when the connector failed or cannot reach its database, and AssertionError after `timeout`
        seconds, listing what did arrive."""
        for d in self.seen:
            if d["topic"] == topic and predicate(d):
                return d
        deadline = time.monotonic() + timeout
        while (left := deadline - time.monotonic()) > 0:
            problem = self._failure()
            if problem is not None:
                self._drain()
                raise CaptureError(problem)
            d = self._next(min(left, 0.2))
            if d is not None and d["topic"] == topic and predicate(d):
                return d
            if self._done:
                break
        if self.error is not None:
            raise CaptureError(describe_failure(self.config, self.error)) from self.error
        arrived = [f"{r['topic']}: {_brief(r)}" for r in self.seen[-20:]]
        retrying = getattr(self.runner, "failure", None)
        note = (
            f"; the connector is reconnecting after: {_first_line(retrying)}"
            if retrying is not None and not self.streaming
            else ""
        )
        ended = "the connector stopped" if self._done else f"within {timeout} s"
        raise AssertionError(
            f"no record on {topic!r} matched ({ended}); "
            f"{len(self.seen)} arrived{note}" + ("; last:\n  " + "\n  ".join(arrived) if arrived else "")
        )

    def changes(self, table: str | None = None, op: str | None = None) -> list[Change]:
        """The change events seen so far (records already delivered are read first), optionally of one
        table (`schema.table`, `db.table` or the topic) and one op, in arrival order."""
        self._drain()
        topic = self.topic(table) if table else None
        out = []
        for d in self.seen:
            if topic is not None and d["topic"] != topic:
                continue
            ch = Change.of(d)
            if ch is not None and (op is None or ch.op == op):
                out.append(ch)
        return out

    def wait_for_change(
        self,
        table: str,
        op: str | None = None,
        before: Any = _UNSET,
        after: Any = _UNSET,
        key: Any = _UNSET,
        timeout: float = 10.0,
    ) -> Change:
        """The first change event of `table` matching `op` and the listed `before`/`after` columns and `key`
        (as `assert_change` compares them); errors as `wait_for`."""

        def matches(r: dict[str, Any]) -> bool:
            ch = Change.of(r)
            return ch is not None and not change_mismatches(ch, op, before, after, key)

        return Change.of(self.wait_for(self.topic(table), matches, timeout))


def _brief(r: Any) -> str:
    v = r.get("value") if isinstance(r, dict) else r
    p = _payload(v)
    if isinstance(p, dict) and "op" in p:
        return f"op={p['op']} before={p.get('before')} after={p.get('after')}"
    return str(p)[:120]
