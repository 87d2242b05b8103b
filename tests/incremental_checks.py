"""Database-neutral pieces of the incremental-snapshot tests, shared by the PostgreSQL suite
(tests/test_incremental.py), the MariaDB suite (tests/test_incremental_mariadb.py) and
bench/torture_incremental.py:

* `Run`: the connector in-process through `emulator.api.Capture`, keeping every emitted record across
  restarts on one offset store;
* `Writer`: one thread of random single-row updates, deletes, upserts (and optionally primary-key moves),
  some grouped in transactions; every write stamps the row with a version `v` from one counter, so
  "newer" is `v` order;
* the two properties that make an incremental snapshot correct: `replay` (r/c/u upsert the key's row,
  d removes it) equals the table, and `stale_reads` finds no READ of a key after a newer streamed change.

A database plugs in through a small target object (`Target`) and a session with `execute(sql, args)` and a
`transaction()` context manager: psycopg connections are such sessions, pymysql ones are wrapped in
`PyMySqlSession`.
"""

from __future__ import annotations

import contextlib
import itertools
import random
import threading
import time
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from typing import Any, Protocol

import psycopg
import pymysql

from emulator.api import Capture
from emulator.offsets import MemoryOffsetStore

Key = tuple[tuple[str, Any], ...]


class Session(Protocol):
    def execute(self, sql: str, args: Any = None) -> Any: ...

    def transaction(self) -> contextlib.AbstractContextManager: ...

    def __enter__(self) -> Session: ...

    def __exit__(self, *exc: object) -> Any: ...


class Target(Protocol):
    """One test database: its topics and a marker table whose events prove the stream caught up."""

    def topic(self, table: str) -> str: ...

    def insert_marker(self, n: int) -> None: ...


class PyMySqlSession:
    """A pymysql connection with psycopg's `execute` and `transaction()` (autocommit outside of it)."""

    def __init__(self, conn: Any) -> None:
        self.conn = conn

    def execute(self, sql: str, args: Any = None) -> list[tuple]:
        with self.conn.cursor() as cur:
            cur.execute(sql, args)
            return list(cur.fetchall())

    @contextlib.contextmanager
    def transaction(self) -> Iterator[None]:
        self.conn.begin()
        try:
            yield
        except BaseException:
            self.conn.rollback()
            raise
        self.conn.commit()

    def close(self) -> None:
        self.conn.close()

    def __enter__(self) -> PyMySqlSession:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


# -- the connector in-process ---------------------------------------------------------------------------------


class Run:
    """The connector in-process; `records` accumulates everything it emitted, across restarts."""

    def __init__(self, db: Target, props: dict[str, str], offsets: MemoryOffsetStore | None = None) -> None:
        self.db = db
        self.props = props
        self.offsets = offsets or MemoryOffsetStore()
        self.records: list[dict] = []
        self._reads: dict[str, list[tuple[int, dict]]] = {}
        self.cap: Capture | None = None
        self._markers = itertools.count(1)
        self.handled: set[str] = set()  # ids of the signals the connector has handled (across restarts)

    def start(self) -> Run:
        self.cap = Capture(self.props, offsets=self.offsets).start()
        deadline = time.monotonic() + 60
        while not getattr(self.cap.runner.connector, "streaming", False):  # its stream has started
            if self.cap.error is not None or time.monotonic() > deadline:
                raise AssertionError(f"the connector did not start streaming: {self.cap.error!r}")
            time.sleep(0.02)
        signals = getattr(self.connector, "signals", None)
        if signals is not None:
            handle = signals.handle

            def counted(rec: Any) -> None:
                try:
                    handle(rec)
                finally:
                    self.handled.add(rec.id)

            signals.handle = counted
        return self

    @property
    def connector(self) -> Any:
        return self.cap.runner.connector

    def pump(self, timeout: float = 0.1) -> None:
        # back to the caller's checks after at most 10 x timeout: records flushed as each transaction ends
        # (docs/latency.md) under a busy writer leave no `timeout` pause for records() to end at
        end = time.monotonic() + 10 * timeout
        for r in self.cap.records(timeout=timeout):
            self._take(r)
            if time.monotonic() > end:
                return

    def _take(self, r: dict) -> None:
        if r["value"] and r["value"]["payload"].get("op") == "r":
            self._reads.setdefault(r["topic"], []).append((len(self.records), r))
        self.records.append(r)

    def wait(self, pred: Callable[[Run], bool], timeout: float = 60, what: str = "condition") -> None:
        deadline = time.monotonic() + timeout
        while True:
            self.pump(0.1)
            if pred(self):
                return
            if self.cap.error is not None:
                raise AssertionError(f"capture failed: {self.cap.error!r}")
            if time.monotonic() > deadline:
                raise AssertionError(f"timeout waiting for {what}; {len(self.records)} records")

    def sync(self, timeout: float = 60) -> None:
        """Everything committed so far has been emitted: a marker row's event has arrived."""
        n = next(self._markers)
        self.db.insert_marker(n)
        topic = self.db.topic("marker")
        self.wait(
            lambda r: any(
                x["topic"] == topic and x["value"] and x["value"]["payload"]["after"]["id"] == n
                for x in r.records[-2000:]
            ),
            timeout,
            f"marker {n}",
        )

    def snapshot_done(self) -> bool:
        # every signal the test sent through its Db has been handled first: before the stream reaches a
        # signal's row nothing is running yet (under load that window is longer than wait()'s first pump)
        if not all(sid in self.handled for sid in getattr(self.db, "sent", ())):
            return False
        return not self.connector.incremental.running and not self.connector.signals.deferred

    def stop(self) -> None:
        self.cap.stop()
        # up to the end marker the output puts at close (records() ends there), not for pump's time budget:
        # a backlog longer than it would go with the Capture, and the restart past it
        for r in self.cap.records(timeout=1.0):
            self._take(r)

    def reads(self, table: str, since: int = 0) -> list[dict]:
        return [r for i, r in self._reads.get(self.db.topic(table), ()) if i >= since]

    def ops(self, table: str) -> list[str]:
        topic = self.db.topic(table)
        return [r["value"]["payload"]["op"] for r in self.records if r["topic"] == topic and r["value"]]


def stop_after_key(run: Run, key: int) -> None:
    """Stops the connector right after the first window that ends at `key` or beyond, with the next window
    already in flight: a stop at an exact point of the snapshot, whatever the timing."""
    inc = run.connector.incremental
    emit_window = inc._emit_window

    def emit_then_stop(next_chunk: bool = True) -> None:
        emit_window(next_chunk)
        if inc.done_key is not None and int(inc.done_key[0]) >= key:
            run.cap.runner.stop()

    inc._emit_window = emit_then_stop


# -- the checks -------------------------------------------------------------------------------------------------


def record_key(r: dict) -> Key:
    return tuple(sorted(r["key"]["payload"].items()))


def _changes(records: Iterable[dict], topic: str | None) -> Iterator[tuple[int, dict, dict]]:
    """(index, record, payload) of the data records of `topic` (every record when None), tombstones left out."""
    for i, r in enumerate(records):
        if (topic is not None and r.get("topic") != topic) or r.get("value") is None:
            continue
        yield i, r, r["value"]["payload"]


def replay(records: Iterable[dict], topic: str | None = None) -> dict[Key, dict]:
    state: dict[Key, dict] = {}
    for _, r, p in _changes(records, topic):
        if p["op"] in ("r", "c", "u"):
            state[record_key(r)] = p["after"]
        elif p["op"] == "d":
            state.pop(record_key(r), None)
    return state


def stale_reads(records: Iterable[dict], topic: str | None = None, vcol: str = "v") -> list[str]:
    """READs older than a streamed change of the same key emitted before them."""
    newest: dict[Key, tuple[int, bool]] = {}
    bad = []
    for i, r, p in _changes(records, topic):
        k = record_key(r)
        cur = newest.get(k)
        if p["op"] in ("c", "u"):
            v = p["after"][vcol]
            if cur is None or v >= cur[0]:
                newest[k] = (v, False)
        elif p["op"] == "d":
            v = p["before"][vcol]
            if cur is None or v >= cur[0]:
                newest[k] = (v, True)
        elif p["op"] == "r" and cur is not None:
            v = p["after"][vcol]
            if v < cur[0] or (cur[1] and v <= cur[0]):
                bad.append(f"record {i}: READ {dict(k)} v={v} after a streamed v={cur[0]} deleted={cur[1]}")
    return bad


def keyed(rows: Iterable[dict], key_cols: Iterable[str]) -> dict[Key, dict]:
    """Table rows by the same key `replay` uses."""
    cols = list(key_cols)
    return {tuple(sorted((k, row[k]) for k in cols)): row for row in rows}


def differences(expected: dict[Key, dict], got: dict[Key, dict]) -> tuple[list[Key], list[Key], list[Key]]:
    """(missing, extra, different) keys of a replay against the table."""
    missing = sorted(set(expected) - set(got))
    extra = sorted(set(got) - set(expected))
    differ = sorted(k for k in expected if k in got and got[k] != expected[k])
    return missing, extra, differ


def assert_replay_equals(
    records: list[dict], topic: str, table_rows: Iterable[dict], key_cols: Iterable[str]
) -> None:
    expected = keyed(table_rows, key_cols)
    got = replay(records, topic)
    missing, extra, differ = differences(expected, got)
    assert not missing and not extra and not differ, (
        f"replay != table: missing {missing[:5]}, extra {extra[:5]}, "
        f"differ {[(k, got[k], expected[k]) for k in differ[:5]]}"
    )
    bad = stale_reads(records, topic)
    assert not bad, "\n".join(bad[:10])


# -- the writer -------------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class WriterSql:
    """The writer's statements in one dialect. Parameters: update (v, id), delete (id,), upsert (id, v)
    inserting (id, v, 'w') or setting v and note = 'w2', move (new id, v, id)."""

    update: str
    delete: str
    upsert: str
    move: str
    conflict: tuple[type[BaseException], ...]  # a move onto an existing key: rolled back, counted


def pg_writes(table: str = "public.items") -> WriterSql:
    return WriterSql(
        update=f"UPDATE {table} SET v = %s, note = 'u' WHERE id = %s",
        delete=f"DELETE FROM {table} WHERE id = %s",
        upsert=f"INSERT INTO {table} VALUES (%s, %s, 'w') ON CONFLICT (id) DO UPDATE SET v = excluded.v, "
        "note = 'w2'",
        move=f"UPDATE {table} SET id = %s, v = %s, note = 'moved' WHERE id = %s",
        conflict=(psycopg.errors.UniqueViolation,),
    )


def mariadb_writes(table: str = "items") -> WriterSql:
    return WriterSql(
        update=f"UPDATE {table} SET v = %s, note = 'u' WHERE id = %s",
        delete=f"DELETE FROM {table} WHERE id = %s",
        upsert=f"INSERT INTO {table} VALUES (%s, %s, 'w') ON DUPLICATE KEY UPDATE v = VALUES(v), note = 'w2'",
        move=f"UPDATE {table} SET id = %s, v = %s, note = 'moved' WHERE id = %s",
        conflict=(pymysql.err.IntegrityError,),
    )


class Writer(threading.Thread):
    """Random single-row updates, deletes and upserts (some grouped in transactions) until stopped.
    `mix` are the cumulative shares of update, delete and upsert (the rest are key moves); `hot` gives a key
    near the chunk being read (or None), where 30 % of the writes go so that windows do get hit."""

    def __init__(
        self,
        connect: Callable[[], Session],
        sql: WriterSql,
        keys: int = 1100,
        seed: int = 7,
        delay: float = 0.0,
        hot: Callable[[], int | None] | None = None,
        mix: tuple[float, float, float] = (0.55, 0.75, 1.0),
        tx_sizes: tuple[int, int] = (3, 3),
        first_version: int = 1_000_000,
    ) -> None:
        super().__init__(daemon=True, name="writer")
        self.connect, self.sql, self.keys, self.delay = connect, sql, keys, delay
        self.hot, self.mix, self.tx_sizes = hot, mix, tx_sizes
        self.rnd = random.Random(seed)
        # one writer on one session: version order is commit order, above every row's initial version
        self.versions = itertools.count(first_version)
        self.halt = threading.Event()
        self.ops = 0
        self.failed = 0
        self.touched: set[int] = set()  # every key a statement named (a row not in it was never changed)
        self.error: BaseException | None = None

    def _key(self) -> int:
        k = self.rnd.randint(1, self.keys)
        if self.hot is not None and self.rnd.random() < 0.3:
            try:
                center = self.hot()
            except Exception:  # noqa: BLE001 - the connector may be between runs
                center = None
            if center is not None:
                k = max(1, center + self.rnd.randint(-12, 3))
        return k

    def one(self, c: Session) -> None:
        k = self._key()
        x = self.rnd.random()
        sql = self.sql
        self.touched.add(k)
        if x < self.mix[0]:
            c.execute(sql.update, (next(self.versions), k))
        elif x < self.mix[1]:
            c.execute(sql.delete, (k,))
        elif x < self.mix[2]:
            c.execute(sql.upsert, (k, next(self.versions)))
        else:  # a primary-key change: d (old key) + c (new key) in the stream
            to = self.rnd.randint(1, self.keys)
            self.touched.add(to)
            c.execute(sql.move, (to, next(self.versions), k))
        self.ops += 1

    def run(self) -> None:
        try:
            with self.connect() as c:
                while not self.halt.is_set():
                    try:
                        if self.rnd.random() < 0.2:
                            with c.transaction():
                                for _ in range(self.rnd.randint(*self.tx_sizes)):
                                    self.one(c)
                        else:
                            self.one(c)
                    except self.sql.conflict:
                        self.failed += 1
                    if self.delay:
                        time.sleep(self.delay)
        except BaseException as e:  # surfaced by stop()
            self.error = e

    def stop(self) -> None:
        self.halt.set()
        self.join(30)
        if self.error is not None:
            raise self.error
