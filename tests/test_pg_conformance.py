"""Conformance with real Debezium 3.6.3: the golden workload replayed against a fresh PostgreSQL, captured
by `python -m emulator run CONFIG --out DIR`, compared with `pg_public.jsonl` after masking only what
varies between runs (see tests/conformance.py)."""

from __future__ import annotations

import json
import time
from pathlib import Path

import pytest
from conformance import compare, load_dir, load_golden, sections
from emulator_proc import EmulatorProcess, snapshot_done

from emulator.testing.pgserver import PgServer

DATA = Path(__file__).parent / "data" / "pg"


def golden_props(pg: PgServer) -> dict[str, str]:
    meta = json.loads((DATA / "pg_public.meta.json").read_text())
    props = dict(meta["connector_config"])
    props["database.port"] = str(pg.port)
    return props


SIGNAL_TOPIC = "dbserver1.public.debezium_signal"
INCREMENTAL_WAIT = "SELECT pg_sleep(15);"  # in workload.sql's `incremental`: the wait for the snapshot's end


def wait_topic_count(emu: EmulatorProcess, topic: str, n: int, timeout: float) -> None:
    """Until `topic` holds `n` records; at the timeout or the emulator's exit the run goes on, and the
    comparison names what is missing."""
    deadline = time.monotonic() + timeout
    while emu.counts().get(topic, 0) < n and emu.proc.poll() is None and time.monotonic() < deadline:
        time.sleep(0.1)


def wait_locked(pg: PgServer, table: str, locker, timeout: float = 60) -> None:
    """Until the `incremental_locker` session holds its ACCESS EXCLUSIVE lock on `table`. The recording's
    pg_sleep(0.5) before the signal let it take the lock first; under load a psql can take longer than that to
    start, and the capture's first chunk then reads the table before the lock (the rows updated or deleted
    inside that window would be read, not dropped)."""
    deadline = time.monotonic() + timeout
    with pg.connect() as conn:
        while not conn.execute(
            "SELECT count(*) FROM pg_locks WHERE relation = %s::regclass AND mode = 'AccessExclusiveLock' AND granted",
            (table,),
        ).fetchone()[0]:
            if locker.poll() is not None:
                raise AssertionError(
                    f"incremental_locker ended ({locker.returncode}) before its lock was seen"
                )
            if time.monotonic() > deadline:
                raise AssertionError(f"incremental_locker never locked {table}")
            time.sleep(0.05)


@pytest.fixture(scope="module")
def golden_run(tmp_path_factory):
    """Runs the whole golden workload once; the tests below look at the result."""
    work = sections(DATA / "workload.sql")
    tmp = tmp_path_factory.mktemp("pg_golden")
    with PgServer() as pg:
        pg.psql(work["pre"])
        emu = EmulatorProcess(golden_props(pg), tmp).start()
        try:
            emu.wait_for(snapshot_done, 60, "the snapshot's last record")
            pg.psql(work["stream"])
            # the stream's WAL sent to the emulator, then no new record for 1.5 s
            pg.wait_slot_sent(golden_props(pg).get("slot.name", "debezium"), pg.wal_lsn())
            emu.wait_quiet(1.5)
            locker = pg.psql_async(work["incremental_locker"])
            wait_locked(pg, "inventory.customers", locker)
            signal, late = work["incremental"].split(INCREMENTAL_WAIT, 1)
            pg.psql(signal)
            # the recording waited 15 s for the incremental snapshot to end before its late changes; the
            # end itself is the barrier here: every window row of the recording (the empty last chunk's
            # close among them) is out, so the late changes stream after the last chunk as recorded
            golden = load_golden(DATA / "pg_public.jsonl")
            wait_topic_count(emu, SIGNAL_TOPIC, len(golden[SIGNAL_TOPIC]), 60)
            pg.psql(late)
            assert locker.wait(60) == 0
            emu.wait_for(
                lambda rs: any(
                    (r.get("value") or {}).get("payload", {}).get("source", {}).get("snapshot")
                    == "incremental"
                    for r in rs
                    if isinstance(r.get("value"), dict)
                ),
                60,
                "the first incremental read",
            )
            emu.wait_counts({topic: len(recs) for topic, recs in golden.items()})  # then 1 s without more
        finally:
            code = emu.stop()
        log = emu.log_tail(60)
    return {"dir": emu.out, "code": code, "log": log}


def test_exit_zero_after_sigterm(golden_run):
    assert golden_run["code"] == 0, golden_run["log"]


GOLDEN_TOPICS = sorted(
    {
        json.loads(x)["topic"]
        for x in (DATA / "pg_public.jsonl").read_text().splitlines()
        if x.strip() and not x.startswith('{"topic": "__debezium-heartbeat')
    }
)


@pytest.mark.parametrize("topic", GOLDEN_TOPICS)
def test_topic_matches_golden(golden_run, topic):
    golden = load_golden(DATA / "pg_public.jsonl")
    ours = load_dir(golden_run["dir"])
    compared, problems = compare({topic: golden.get(topic, [])}, {topic: ours.get(topic, [])})
    assert compared > 0
    assert not problems, f"{len(problems)} mismatches of {compared}:\n" + "\n".join(problems[:15])


def test_no_topics_beyond_golden(golden_run):
    golden = load_golden(DATA / "pg_public.jsonl")
    ours = load_dir(golden_run["dir"])
    assert sorted(set(ours) - set(golden)) == []


def test_whole_recording_zero_mismatches(golden_run):
    compared, problems = compare(load_golden(DATA / "pg_public.jsonl"), load_dir(golden_run["dir"]))
    print(f"{compared} records compared, {len(problems)} mismatches")
    assert not problems, "\n".join(problems[:20])
