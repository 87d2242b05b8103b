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


def run_golden_workload(
    db: MariaDbServer,
    work: Path,
    props: dict[str, str],
    quiet_s: float = 6.0,
    database: str = "inventory",
    expected: dict[str, int] | None = None,
) -> tuple[EmulatorProcess, int]:
    """`expected` (the recording's record count per topic): the end is when every topic holds that many
    and nothing more comes for a second, instead of the quiet wait."""
    chunks = parse_workload(DATA / "workload.sql")
    for phase, _sleep, _bg, sql in chunks:
        if phase == "snapshot":
            db.sql(sql)
    emu = EmulatorProcess(props, work).start()
    try:
        emu.wait_for(snapshot_done, 120, "the snapshot's last record")
        time.sleep(2)
        background = []
        for phase, sleep, bg, sql in chunks:
            if phase != "stream":
                continue
            time.sleep(sleep)
            if bg:
                background.append(db.sql_async(sql, database=database))
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
