"""PostgreSQL-only snapshot and restart cases, through the CLI as users run it (`python -m emulator run
CONFIG --out DIR`), with file offsets. The snapshot modes × offsets states, SIGTERM / kill -9 restarts and the
interrupted snapshot of every backend are in tests/suite/ (test_snapshot.py, test_restart.py); what stays
here is PostgreSQL's own:
- `when_needed` when the slot exists but its restart_lsn moved past the stored lsn_commit (spec §2.12);
- one large transaction interrupted by SIGTERM (exactly once) or kill -9 (at least once).
One PostgreSQL server serves the module; each test has its own schema, slot, publication and prefix.
"""

from __future__ import annotations

import re
import time
from collections import Counter
from pathlib import Path

import orjson
import pytest
from emulator_proc import EmulatorProcess, snapshot_done
from wire_hold import HoldingProxy

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


def _after_first_last(recs: list[dict]) -> int:
    for i, r in enumerate(recs):
        if op(r) == "r" and payload(r)["source"]["snapshot"] == "last":
            return i + 1
    raise AssertionError("no snapshot end")


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


# -- restarts ------------------------------------------------------------------------------------------------------


def _offset_lsn(case) -> int:
    off = orjson.loads((case.workdir / "offsets.json").read_bytes())["offset"]
    return off.get("lsn_commit") or off["lsn"]


def _big_transaction_restart(case, n: int, stop) -> Counter:
    """One INSERT of n rows (a single transaction) while streaming; `stop(emu)` while the process holds part of
    it; restart; every id's count once the transaction is complete in the output.

    The stop lands inside the transaction whatever the machine's speed: the first process reaches the server
    through a proxy that forwards about the first third of the transaction's messages and holds the rest (a
    poll that waited for a tenth of the rows in the output and hoped for the rest not to be there raced the
    stream, which C paths make faster). The second process connects directly."""
    s = case.schema
    quiet = {
        "snapshot.mode": "no_data",
        "key.converter.schemas.enable": "false",
        "value.converter.schemas.enable": "false",
        "header.converter.schemas.enable": "false",
    }
    case.sql(f"CREATE TABLE {s}.big (id int PRIMARY KEY, v text);")
    out = case.workdir / "out" / f"{case.topic('big')}.jsonl"
    with HoldingProxy("127.0.0.1", case.pg.port, only=b"replication\x00") as proxy:
        emu = case.emulator({**quiet, "database.port": str(proxy.port)})
        case.wait_streaming(emu)
        # each row's pgoutput message (CopyData, XLogData header, 'I' tuple of id and 'row <id>') is 50-70
        # bytes: a budget of 20 bytes a row is between a tenth and a half of the transaction's messages
        proxy.hold_after(20 * n)
        case.sql(f"INSERT INTO {s}.big SELECT g, 'row ' || g FROM generate_series(1, {n}) g;")
        deadline = time.monotonic() + 120
        while not (proxy.holding() and _count_lines(out) >= n // 10):
            assert emu.proc.poll() is None and time.monotonic() < deadline, emu.log_tail()
            time.sleep(0.05)
        stop(emu)
    assert _count_lines(out) < n, "the proxy held nothing back"
    emu2 = case.emulator(quiet)
    deadline = time.monotonic() + 120
    last, since = -1, time.monotonic()
    while True:  # until the output has every row and has stopped growing for a second
        lines = _count_lines(out)
        assert emu2.proc.poll() is None and time.monotonic() < deadline, f"{lines} of {n}\n{emu2.log_tail()}"
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
