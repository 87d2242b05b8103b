"""The golden MariaDB workload (tests/data/mariadb/workload.sql) replayed the way the recording harness
(`record.py`) replays it: the snapshot phase before the connector starts, then the stream phase chunk by
chunk with its `@sleep` pauses and `@background` sessions, then a quiet wait."""

from __future__ import annotations

import json
import time
from pathlib import Path

from emulator_proc import EmulatorProcess, snapshot_done

from emulator.testing.mariadbserver import MariaDbServer

DATA = Path(__file__).parent / "data" / "mariadb"


def parse_workload(path: Path) -> list[tuple[str, float, bool, str]]:
    """-> list of (phase, sleep_before_seconds, background, sql_chunk)."""
    chunks: list[tuple[str, float, bool, str]] = []
    phase, sleep, bg, buf = "", 0.0, False, []

    def flush():
        nonlocal buf, sleep, bg
        if any(x.strip() and not x.strip().startswith("--") for x in buf):
            chunks.append((phase, sleep, bg, "\n".join(buf).strip() + "\n"))
            sleep, bg = 0.0, False
        buf = []

    for line in path.read_text().splitlines():
        s = line.strip()
        if s.startswith("-- @phase"):
            flush()
            phase = s.split()[2]
        elif s.startswith("-- @sleep"):
            flush()
            sleep += float(s.split()[2])
        elif s.startswith("-- @background"):
            flush()
            bg = True
        else:
            buf.append(line)
    flush()
    return chunks


def golden_props(db: MariaDbServer, work: Path, meta: str = "mariadb_public.meta.json") -> dict[str, str]:
    props = dict(json.loads((DATA / meta).read_text())["debezium_config"])
    props["database.port"] = str(db.port)
    props["database.password"] = db.password
    props["schema.history.internal.file.filename"] = str(work / "schemahistory.dat")
    props["offset.storage.file.filename"] = str(work / "offsets.dat")
    return props


SIGNAL_TOPIC = "dbserver1.inventory.debezium_signal"
SIGNAL_INSERT = "INSERT INTO debezium_signal"


def _barrier(emu: EmulatorProcess, expected: dict[str, int], last: bool, before_locker: bool) -> None:
    """What the recording's pause before a stream chunk waited for, as an event instead of a time.

    The binlog orders the plain chunks whatever the pause, so they need none. The locker's chunk needs the
    emulator caught up (its output quiet for a second): the signal that follows must reach it while the
    lock is held. The chunks after the signal waited for the incremental snapshot's end: every window row
    of the recording out (the empty last chunk's close among them)."""
    if last:
        deadline = time.monotonic() + 60
        while (
            emu.counts().get(SIGNAL_TOPIC, 0) < expected.get(SIGNAL_TOPIC, 0)
            and emu.proc.poll() is None
            and time.monotonic() < deadline
        ):
            time.sleep(0.1)
    elif before_locker:
        emu.wait_quiet(1.0)


def _wait_locked(db: MariaDbServer, locker, timeout: float = 60) -> None:
    """Until the background session holds its table lock: its LOCK TABLES done, it runs the next statement
    (the `DO SLEEP`). The recording's 0.5 s pause before the signal let it lock first; under load a client can
    take longer than that to start, and the first chunk then reads the table before the lock."""
    deadline = time.monotonic() + timeout
    query = "SELECT COUNT(*) FROM information_schema.processlist WHERE info LIKE 'DO SLEEP%'"
    while db.query(query)[0][0] == "0":
        if locker.poll() is not None:
            raise AssertionError(f"the locker session ended ({locker.returncode}) before its lock was seen")
        if time.monotonic() > deadline:
            raise AssertionError("the locker session never reached its DO SLEEP")
        time.sleep(0.05)


def run_golden_workload(
    db: MariaDbServer,
    work: Path,
    props: dict[str, str],
    quiet_s: float = 6.0,
    database: str = "inventory",
    expected: dict[str, int] | None = None,
) -> tuple[EmulatorProcess, int]:
    """`expected` (the recording's record count per topic): the end is when every topic holds that many
    and nothing more comes for a second, instead of the quiet wait; and the recording's pauses that only
    waited for something are barriers on that something (`_barrier`)."""
    chunks = parse_workload(DATA / "workload.sql")
    for phase, _sleep, _bg, sql in chunks:
        if phase == "snapshot":
            db.sql(sql)
    stream = [c for c in chunks if c[0] == "stream"]
    emu = EmulatorProcess(props, work).start()
    try:
        emu.wait_for(snapshot_done, 120, "the snapshot's last record")
        if expected is None:
            time.sleep(2)
        background = []
        for i, (_phase, sleep, bg, sql) in enumerate(stream):
            after_signal = bool(i) and SIGNAL_INSERT in stream[i - 1][3]
            if expected is None or (i and stream[i - 1][2]):
                # the recording's pause; the one after the locker times the signal inside the lock
                time.sleep(sleep)
            else:
                # after the signal too: the recording's 3 s ended after the incremental snapshot's last window
                # (its late DELETE streams after every close); a capture slower than that read 1020 after it
                _barrier(emu, expected, last=i == len(stream) - 1 or after_signal, before_locker=bg)
            if bg:
                background.append(db.sql_async(sql, database=database))
                if expected is not None and "LOCK TABLES" in sql:
                    _wait_locked(db, background[-1])
            else:
                db.sql(sql, database=database)
        for p in background:
            assert p.wait(60) == 0, "a background workload chunk failed"
        if expected is None:
            emu.wait_quiet(quiet_s, timeout=120)
        else:
            emu.wait_counts(expected, 1.0)
    finally:
        code = emu.stop()
    return emu, code
