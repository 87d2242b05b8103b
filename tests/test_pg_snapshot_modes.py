"""Snapshot modes and restarts of the PostgreSQL connector, through the CLI as users run it
(`python -m emulator run CONFIG --out DIR`), with file offsets.

Expectations come from the requirements digest (/work/shared/spec/spec-postgres-mongodb.md §1.8, §2.12,
§2.13) and /work/shared/golden/pg/FINDINGS.md:
- `initial` snapshots when no (completed) offset exists, then streams; a restart resumes from the
  stored LSN, and a clean stop commits everything, so nothing is lost or repeated;
- `always` snapshots on every start; `initial_only` snapshots and stops; `no_data` never snapshots;
  `when_needed` snapshots without an offset, or when the stored position is gone (slot dropped);
- `snapshot.include.collection.list` restricts the initial snapshot, not streaming;
- after a crash the connector restarts from the last committed offset: at-least-once, duplicates only
  of what came after that offset; an interrupted snapshot is redone.
One PostgreSQL server serves the module; each test has its own schema, slot, publication and prefix.
"""

from __future__ import annotations

import re
import threading
import time
from collections import Counter
from pathlib import Path

import orjson
import pytest
from emulator_proc import EmulatorProcess, snapshot_done

from emulator.testing.pgserver import PgServer


@pytest.fixture(scope="module")
def pg():
    with PgServer() as server:
        yield server


class Case:
    def __init__(self, pg: PgServer, name: str, workdir: Path) -> None:
        self.pg = pg
        self.name = self.schema = self.prefix = self.slot = name
        self.publication = f"{name}_pub"
        self.workdir = workdir
        self.procs: list[EmulatorProcess] = []
        self.sql(f"CREATE SCHEMA {name};")

    def sql(self, text: str) -> None:
        self.pg.psql(text)

    def props(self, extra: dict[str, str] | None = None) -> dict[str, str]:
        props = self.pg.connector_properties(
            **{
                "topic.prefix": self.prefix,
                "slot.name": self.slot,
                "publication.name": self.publication,
                "schema.include.list": self.schema,
                "offset.flush.interval.ms": "200",
                "offset.storage.file.filename": str(self.workdir / "offsets.json"),
            }
        )
        props.update(extra or {})
        return props

    def emulator(self, extra: dict[str, str] | None = None) -> EmulatorProcess:
        """A new process over the same work dir: same offsets file, appending to the same output."""
        emu = EmulatorProcess(self.props(extra), self.workdir)
        self.procs.append(emu)
        return emu.start()

    def slot_row(self):
        with self.pg.connect() as c:
            return c.execute(
                "SELECT active FROM pg_replication_slots WHERE slot_name = %s", (self.slot,)
            ).fetchone()

    def wait_streaming(self, emu: EmulatorProcess, timeout: float = 30) -> None:
        """Until the slot is in use, i.e. the process is streaming (or snapshotting on a new slot)."""
        deadline = time.monotonic() + timeout
        while True:
            row = self.slot_row()
            if row is not None and row[0]:
                return
            if emu.proc.poll() is not None:
                raise AssertionError(f"emulator exited ({emu.proc.returncode}):\n{emu.log_tail()}")
            if time.monotonic() > deadline:
                raise AssertionError(f"slot {self.slot} never became active\n{emu.log_tail()}")
            time.sleep(0.05)

    def drop_slot(self) -> None:
        deadline = time.monotonic() + 15
        while time.monotonic() < deadline:
            row = self.slot_row()
            if row is None:
                return
            if not row[0]:
                with self.pg.connect() as c:
                    c.execute("SELECT pg_drop_replication_slot(%s)", (self.slot,))
                return
            time.sleep(0.1)

    def topic(self, table: str) -> str:
        return f"{self.prefix}.{self.schema}.{table}"

    def close(self) -> None:
        for emu in self.procs:
            emu.kill()
        self.drop_slot()


@pytest.fixture
def case(pg, request, tmp_path):
    name = re.sub(r"[^a-z0-9]+", "_", request.node.name.lower()).strip("_")
    name = re.sub(r"^test_", "", name)[:40].rstrip("_")
    c = Case(pg, name, tmp_path)
    yield c
    c.close()


def payload(r: dict):
    v = r.get("value")
    return v["payload"] if isinstance(v, dict) and "payload" in v else v


def op(r: dict) -> str | None:
    p = payload(r)
    return p.get("op") if isinstance(p, dict) else None


def ids(recs: list[dict], topic: str, kind: str) -> list[int]:
    return [payload(r)["after"]["id"] for r in recs if r["topic"] == topic and op(r) == kind]


def has_ids(topic: str, kind: str, wanted: set[int]):
    return lambda recs: wanted <= set(ids(recs, topic, kind))


def snapshots_done(n: int):
    return lambda recs: (
        sum(1 for r in recs if op(r) == "r" and payload(r)["source"]["snapshot"] == "last") >= n
    )


# -- snapshot.mode -------------------------------------------------------------------------------------------------


def test_initial_snapshots_once_and_resumes(case):
    s, t = case.schema, case.topic("t")
    case.sql(
        f"CREATE TABLE {s}.t (id int PRIMARY KEY, v text); INSERT INTO {s}.t VALUES (1,'a'), (2,'b'), (3,'c');"
    )
    emu = case.emulator()  # snapshot.mode defaults to initial
    emu.wait_for(snapshot_done, 30, "the snapshot")
    case.sql(f"INSERT INTO {s}.t VALUES (4, 'd'); INSERT INTO {s}.t VALUES (5, 'e');")
    emu.wait_for(has_ids(t, "c", {4, 5}), 30, "streamed 4, 5")
    assert emu.stop() == 0
    case.sql(f"INSERT INTO {s}.t VALUES (6, 'f'); UPDATE {s}.t SET v = 'g' WHERE id = 6;")  # while down
    emu2 = case.emulator()
    emu2.wait_for(lambda recs: any(op(r) == "u" for r in recs), 30, "the update of 6")
    case.sql(f"INSERT INTO {s}.t VALUES (7, 'h');")
    recs = emu2.wait_for(has_ids(t, "c", {7}), 30, "streamed 7")
    recs = emu2.wait_quiet(1.5)
    assert sorted(ids(recs, t, "r")) == [1, 2, 3]  # no second snapshot
    assert ids(recs, t, "c") == [4, 5, 6, 7]  # nothing lost, nothing repeated
    assert ids(recs, t, "u") == [6]
    assert emu2.stop() == 0


def test_always_snapshots_on_every_start(case):
    s, t = case.schema, case.topic("t")
    case.sql(f"CREATE TABLE {s}.t (id int PRIMARY KEY); INSERT INTO {s}.t VALUES (1), (2), (3);")
    emu = case.emulator({"snapshot.mode": "always"})
    emu.wait_for(snapshot_done, 30, "the first snapshot")
    assert emu.stop() == 0
    case.sql(f"INSERT INTO {s}.t VALUES (4);")
    emu2 = case.emulator({"snapshot.mode": "always"})
    recs = emu2.wait_for(snapshots_done(2), 30, "the second snapshot")
    second = recs[_after_first_last(recs) :]
    assert sorted(ids(second, t, "r")) == [1, 2, 3, 4]
    assert sorted(ids(recs, t, "r")) == [1, 1, 2, 2, 3, 3, 4]
    case.sql(f"INSERT INTO {s}.t VALUES (5);")
    emu2.wait_for(has_ids(t, "c", {5}), 30, "streaming after the second snapshot")
    assert emu2.stop() == 0


def _after_first_last(recs: list[dict]) -> int:
    for i, r in enumerate(recs):
        if op(r) == "r" and payload(r)["source"]["snapshot"] == "last":
            return i + 1
    raise AssertionError("no snapshot end")


def test_initial_only_snapshots_then_exits(case):
    s, t = case.schema, case.topic("t")
    case.sql(f"CREATE TABLE {s}.t (id int PRIMARY KEY); INSERT INTO {s}.t VALUES (1), (2), (3);")
    emu = case.emulator({"snapshot.mode": "initial_only"})
    assert emu.proc.wait(60) == 0, emu.log_tail()
    recs = emu.records()
    assert sorted(ids(recs, t, "r")) == [1, 2, 3]
    assert snapshot_done(recs)
    assert [r for r in recs if op(r) not in ("r",)] == []


def test_initial_only_after_completed_snapshot_does_not_stream(case):
    s, t = case.schema, case.topic("t")
    case.sql(f"CREATE TABLE {s}.t (id int PRIMARY KEY); INSERT INTO {s}.t VALUES (1), (2);")
    emu = case.emulator({"snapshot.mode": "initial_only"})
    assert emu.proc.wait(60) == 0, emu.log_tail()
    case.sql(f"INSERT INTO {s}.t VALUES (3);")
    emu2 = case.emulator({"snapshot.mode": "initial_only"})  # snapshot done already: nothing to do
    deadline = time.monotonic() + 15
    while emu2.proc.poll() is None and time.monotonic() < deadline:
        if any(op(r) != "r" for r in emu2.records()):
            break  # streamed: no point waiting longer
        time.sleep(0.1)
    code = emu2.proc.poll()
    recs = emu2.records()
    assert sorted(ids(recs, t, "r")) == [1, 2]
    assert [op(r) for r in recs if op(r) != "r"] == []  # initial_only never streams
    assert code == 0, f"the second initial_only run did not stop by itself\n{emu2.log_tail()}"


def test_no_data_streams_without_snapshot(case):
    s, t = case.schema, case.topic("t")
    case.sql(f"CREATE TABLE {s}.t (id int PRIMARY KEY); INSERT INTO {s}.t VALUES (1), (2), (3);")
    emu = case.emulator({"snapshot.mode": "no_data"})
    case.wait_streaming(emu)
    case.sql(f"INSERT INTO {s}.t VALUES (4);")
    recs = emu.wait_for(has_ids(t, "c", {4}), 30, "streamed 4")
    assert [op(r) for r in recs if r["topic"] == t] == ["c"]
    assert emu.stop() == 0


def test_when_needed(case):
    s, t = case.schema, case.topic("t")
    props = {"snapshot.mode": "when_needed"}
    case.sql(f"CREATE TABLE {s}.t (id int PRIMARY KEY); INSERT INTO {s}.t VALUES (1), (2);")
    emu = case.emulator(props)  # no offset: snapshot
    emu.wait_for(snapshot_done, 30, "the first snapshot")
    assert emu.stop() == 0
    case.sql(f"INSERT INTO {s}.t VALUES (3);")
    emu2 = case.emulator(props)  # offset and slot present: stream on, no snapshot
    emu2.wait_for(has_ids(t, "c", {3}), 30, "streamed 3")
    recs = emu2.wait_quiet(1.5)
    assert sorted(ids(recs, t, "r")) == [1, 2]
    assert emu2.stop() == 0
    case.drop_slot()  # the stored position is gone
    case.sql(f"INSERT INTO {s}.t VALUES (4);")
    emu3 = case.emulator(props)
    recs = emu3.wait_for(snapshots_done(2), 30, "a new snapshot after the slot was dropped")
    assert sorted(ids(recs, t, "r")) == [1, 1, 2, 2, 3, 4]
    case.sql(f"INSERT INTO {s}.t VALUES (5);")
    emu3.wait_for(has_ids(t, "c", {5}), 30, "streaming on the new slot")
    assert emu3.stop() == 0


def test_when_needed_snapshots_when_stored_position_is_gone(case):
    """Spec §2.12: the stored position is unavailable when the slot's restart_lsn has moved past the
    stored lsn_commit; when_needed then takes a new snapshot (the rows written meanwhile are not in the
    WAL the slot still has)."""
    s, t = case.schema, case.topic("t")
    props = {"snapshot.mode": "when_needed"}
    case.sql(f"CREATE TABLE {s}.t (id int PRIMARY KEY); INSERT INTO {s}.t VALUES (1), (2);")
    emu = case.emulator(props)
    emu.wait_for(snapshot_done, 30, "the first snapshot")
    assert emu.stop() == 0
    stored = _offset_lsn(case)
    case.sql(f"INSERT INTO {s}.t SELECT generate_series(3, 500); CHECKPOINT; INSERT INTO {s}.t VALUES (501);")
    with case.pg.connect() as c:
        c.execute("SELECT pg_replication_slot_advance(%s, pg_current_wal_lsn())", (case.slot,))
        restart = c.execute(
            "SELECT restart_lsn - '0/0'::pg_lsn FROM pg_replication_slots WHERE slot_name = %s", (case.slot,)
        ).fetchone()[0]
    assert restart > stored, "could not move the slot past the stored position"
    emu2 = case.emulator(props)
    recs = emu2.wait_for(snapshots_done(2), 30, "a new snapshot")
    assert sorted(ids(recs[_after_first_last(recs) :], t, "r")) == list(range(1, 502))
    case.sql(f"INSERT INTO {s}.t VALUES (502);")
    emu2.wait_for(has_ids(t, "c", {502}), 30, "streaming after the new snapshot")
    assert emu2.stop() == 0


def test_configuration_based_snapshot_then_stream(case):
    s, t = case.schema, case.topic("t")
    case.sql(f"CREATE TABLE {s}.t (id int PRIMARY KEY); INSERT INTO {s}.t VALUES (1), (2);")
    emu = case.emulator(
        {
            "snapshot.mode": "configuration_based",
            "snapshot.mode.configuration.based.snapshot.data": "true",
            "snapshot.mode.configuration.based.snapshot.schema": "true",
            "snapshot.mode.configuration.based.start.stream": "true",
        }
    )
    emu.wait_for(snapshot_done, 30, "the snapshot")
    case.sql(f"INSERT INTO {s}.t VALUES (3);")
    recs = emu.wait_for(has_ids(t, "c", {3}), 30, "streamed 3")
    assert sorted(ids(recs, t, "r")) == [1, 2]
    assert emu.stop() == 0


def test_snapshot_include_collection_list(case):
    s = case.schema
    case.sql(f"""CREATE TABLE {s}.a (id int PRIMARY KEY); CREATE TABLE {s}.b (id int PRIMARY KEY);
                 INSERT INTO {s}.a VALUES (1), (2); INSERT INTO {s}.b VALUES (1), (2);""")
    emu = case.emulator({"snapshot.include.collection.list": rf"{s}\.a"})
    emu.wait_for(snapshot_done, 30, "the snapshot")
    case.sql(f"INSERT INTO {s}.b VALUES (3); INSERT INTO {s}.a VALUES (3);")
    emu.wait_for(has_ids(case.topic("a"), "c", {3}), 30, "streamed a.3")
    recs = emu.wait_for(has_ids(case.topic("b"), "c", {3}), 30, "streamed b.3")
    assert sorted(ids(recs, case.topic("a"), "r")) == [1, 2]
    assert ids(recs, case.topic("b"), "r") == []
    assert emu.stop() == 0


# -- restarts ------------------------------------------------------------------------------------------------------


class Writer(threading.Thread):
    """Inserts ids 1..n into `table`, one autocommit transaction each, a few ms apart."""

    def __init__(self, pg: PgServer, table: str, n: int, pause: float = 0.002) -> None:
        super().__init__(daemon=True)
        self.pg, self.table, self.n, self.pause = pg, table, n, pause
        self.done = 0
        self.error: BaseException | None = None

    def run(self) -> None:
        try:
            with self.pg.connect() as c:
                for i in range(1, self.n + 1):
                    c.execute(f"INSERT INTO {self.table} VALUES (%s, 'v')", (i,))
                    self.done = i
                    time.sleep(self.pause)
        except BaseException as e:  # reported by the test
            self.error = e


def _offset_lsn(case) -> int:
    off = orjson.loads((case.workdir / "offsets.json").read_bytes())["offset"]
    return off.get("lsn_commit") or off["lsn"]


def test_sigterm_mid_stream_then_restart_exactly_once(case):
    s, t = case.schema, case.topic("t")
    n = 600
    case.sql(f"CREATE TABLE {s}.t (id int PRIMARY KEY, v text);")
    emu = case.emulator({"snapshot.mode": "no_data"})
    case.wait_streaming(emu)
    w = Writer(case.pg, f"{s}.t", n)
    w.start()
    emu.wait_for(lambda recs: len(recs) >= 100, 30, "100 streamed records")
    assert emu.stop() == 0
    assert w.done < n, "the writer finished before the stop; nothing was tested"
    emu2 = case.emulator({"snapshot.mode": "no_data"})
    w.join(60)
    assert w.error is None
    recs = emu2.wait_for(has_ids(t, "c", set(range(1, n + 1))), 60, "every inserted id")
    recs = emu2.wait_quiet(1.0)
    counts = Counter(ids(recs, t, "c"))
    assert set(counts) == set(range(1, n + 1))
    assert [i for i, k in counts.items() if k > 1] == []
    assert emu2.stop() == 0


def test_kill9_mid_stream_then_restart_at_least_once(case):
    s, t = case.schema, case.topic("t")
    n = 1500
    props = {"snapshot.mode": "no_data", "provide.transaction.metadata": "true"}
    case.sql(f"CREATE TABLE {s}.t (id int PRIMARY KEY, v text);")
    emu = case.emulator(props)
    case.wait_streaming(emu)
    w = Writer(case.pg, f"{s}.t", n)
    w.start()
    emu.wait_for(lambda recs: len(ids(recs, t, "c")) >= 300, 30, "300 streamed records")
    emu.kill()
    assert w.done < n, "the writer finished before the kill; nothing was tested"
    committed = _offset_lsn(case)
    run1 = ids(emu.records(), t, "c")
    emu2 = case.emulator(props)
    w.join(60)
    assert w.error is None
    emu2.wait_for(has_ids(t, "c", set(range(1, n + 1))), 60, "every inserted id")
    recs = emu2.wait_quiet(1.0)
    assert set(ids(recs, t, "c")) == set(range(1, n + 1))  # nothing lost
    # Duplicates: only transactions the committed offset did not cover, i.e. a tail of the first run
    # whose commits lie at or after the committed position (END ids are "<xid>:<commit LSN>", FINDINGS).
    data = [r for r in recs if r["topic"] == t and op(r) == "c"]
    run2 = data[len(run1) :]
    assert [payload(r)["after"]["id"] for r in data[: len(run1)]] == run1
    commit_lsn = {}
    for r in recs:
        if r["topic"] == f"{case.prefix}.transaction" and payload(r)["status"] == "END":
            xid, lsn = payload(r)["id"].split(":")
            commit_lsn[int(xid)] = int(lsn)
    seen1 = set(run1)
    dups = [r for r in run2 if payload(r)["after"]["id"] in seen1]
    dup_ids = [payload(r)["after"]["id"] for r in dups]
    assert dup_ids == run1[len(run1) - len(dup_ids) :], "re-emitted records are not a tail of the first run"
    covered = [
        payload(r)["after"]["id"] for r in dups if commit_lsn[payload(r)["source"]["txId"]] < committed
    ]
    assert covered == [], f"re-emitted although the committed offset ({committed}) covered them: {covered}"
    assert emu2.stop() == 0


def _big_transaction_restart(case, n: int, stop) -> Counter:
    """One INSERT of n rows (a single transaction) while streaming; `stop(emu)` once part of it has been
    written; restart; every id's count once the transaction is complete in the output."""
    s = case.schema
    quiet = {
        "snapshot.mode": "no_data",
        "key.converter.schemas.enable": "false",
        "value.converter.schemas.enable": "false",
        "header.converter.schemas.enable": "false",
    }
    case.sql(f"CREATE TABLE {s}.big (id int PRIMARY KEY, v text);")
    out = case.workdir / "out" / f"{case.topic('big')}.jsonl"
    emu = case.emulator(quiet)
    case.wait_streaming(emu)
    case.sql(f"INSERT INTO {s}.big SELECT g, 'row ' || g FROM generate_series(1, {n}) g;")
    deadline = time.monotonic() + 60
    while _count_lines(out) < n // 10:
        assert emu.proc.poll() is None and time.monotonic() < deadline, emu.log_tail()
        time.sleep(0.01)
    stop(emu)
    assert _count_lines(out) < n, "the transaction was complete before the stop; nothing was tested"
    emu2 = case.emulator(quiet)
    deadline = time.monotonic() + 60
    last, since = -1, time.monotonic()
    while True:  # until the output has every row and has stopped growing for a second
        assert emu2.proc.poll() is None and time.monotonic() < deadline, emu2.log_tail()
        lines = _count_lines(out)
        if lines != last:
            last, since = lines, time.monotonic()
        elif lines >= n and time.monotonic() - since >= 1.0:
            break
        time.sleep(0.1)
    with open(out, "rb") as f:
        counts = Counter(orjson.loads(line)["value"]["after"]["id"] for line in f)
    assert emu2.stop() == 0
    return counts


def test_sigterm_mid_large_transaction_then_restart_exactly_once(case):
    n = 100_000
    counts = _big_transaction_restart(case, n, lambda emu: emu.stop() == 0 or pytest.fail(emu.log_tail()))
    assert set(counts) == set(range(1, n + 1))
    dups = [i for i, k in counts.items() if k > 1]
    assert dups == [], f"{len(dups)} rows repeated after a clean stop, e.g. {sorted(dups)[:5]}"


def test_kill9_mid_large_transaction_then_restart_at_least_once(case):
    n = 100_000
    counts = _big_transaction_restart(case, n, lambda emu: emu.kill())
    assert set(counts) == set(range(1, n + 1))


def _count_lines(path: Path) -> int:
    try:
        with open(path, "rb") as f:
            return sum(chunk.count(b"\n") for chunk in iter(lambda: f.read(1 << 20), b""))
    except FileNotFoundError:
        return 0


def _tail_has_last(path: Path) -> bool:
    try:
        with open(path, "rb") as f:
            f.seek(0, 2)
            size = f.tell()
            f.seek(max(0, size - 4096))
            tail = f.read()
    except FileNotFoundError:
        return False
    return b'"snapshot":"last"' in tail


def test_kill9_during_large_snapshot_then_restart(case):
    s = case.schema
    n = 200_000
    case.sql(
        f"CREATE TABLE {s}.big (id int PRIMARY KEY, v text);"
        f"INSERT INTO {s}.big SELECT g, 'row ' || g FROM generate_series(1, {n}) g;"
    )
    quiet = {
        "key.converter.schemas.enable": "false",
        "value.converter.schemas.enable": "false",
        "header.converter.schemas.enable": "false",
    }
    out = case.workdir / "out" / f"{case.topic('big')}.jsonl"
    emu = case.emulator(quiet)
    deadline = time.monotonic() + 60
    while _count_lines(out) < 20_000:
        assert emu.proc.poll() is None and time.monotonic() < deadline, emu.log_tail()
        time.sleep(0.02)
    emu.kill()
    assert not _tail_has_last(out), "the snapshot finished before the kill; nothing was tested"
    emu2 = case.emulator(quiet)
    deadline = time.monotonic() + 120
    while not _tail_has_last(out):
        assert emu2.proc.poll() is None and time.monotonic() < deadline, emu2.log_tail()
        time.sleep(0.2)
    assert emu2.stop() == 0
    seen: set[int] = set()
    with open(out, "rb") as f:
        for line in f:
            v = orjson.loads(line)["value"]
            if v["op"] == "r":
                seen.add(v["after"]["id"])
    missing = set(range(1, n + 1)) - seen
    assert not missing, f"{len(missing)} rows never read, e.g. {sorted(missing)[:5]}"
