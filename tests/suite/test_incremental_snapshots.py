"""Incremental snapshots (execute-snapshot through the signal table), in the style of Debezium's
AbstractIncrementalSnapshotTest: while a writer updates, deletes, upserts and moves rows, a table is read in
chunks, the connector is stopped and restarted in the middle, and at the end

* replaying the emitted events (r/c/u upsert the key's row, d removes it) gives exactly the table;
* no READ of a key comes after a streamed change of that key that is newer than the READ;
* the restart resumed after the last chunk the first run emitted (the offsets carry the snapshot's progress).

Completion is observed as Debezium publishes it: the `Incremental Snapshot` / `COMPLETED` notification on
the sink channel (`notification.enabled.channels=sink`).
"""

from __future__ import annotations

import time

import pytest
from harness import Run, payload
from incremental_checks import Writer, assert_replay_equals

ITEMS = {"id": "int", "v": "bigint", "note": "text"}


def incremental_config(backend, **extra) -> dict[str, str]:
    return {
        "snapshot.mode": "no_data",
        "signal.data.collection": backend.signal_table(),
        "incremental.snapshot.chunk.size": "10",
        "notification.enabled.channels": "sink",
        "notification.sink.topic.name": f"{backend.prefix}.notifications",
        **extra,
    }


def completed(run: Run, n: int = 1) -> bool:
    notes = run.notifications(f"{run.backend.prefix}.notifications")
    return (
        sum(1 for p in notes if p["aggregate_type"] == "Incremental Snapshot" and p["type"] == "COMPLETED")
        >= n
    )


def fill(backend, table: str, n: int) -> None:
    backend.create_table(table, ITEMS)
    with backend.transaction():
        backend.insert(table, *({"id": i, "v": i, "note": f"n{i}"} for i in range(1, n + 1)))


@pytest.mark.needs("signal_table", "sql_writer")
def test_concurrent_writes_and_a_restart_replay_to_the_table(backend):
    fill(backend, "items", 1000)
    run = Run(backend, **incremental_config(backend)).start()
    topic = backend.topic("items")

    def hot() -> int | None:  # aim part of the writes just past the last emitted read: the window in flight
        for r in reversed(run.records[-200:]):
            if r["topic"] == topic and payload(r) and payload(r)["op"] == "r":
                return backend.key(r)["id"] + 8
        return None

    writer = Writer(backend.session, backend.writer_sql("items"), keys=1100, delay=0.002, hot=hot)
    writer.start()
    try:
        # paused after its first window, so that the stop below lands inside the snapshot whatever the timing
        with backend.transaction():
            backend.signal("execute-snapshot", {"data-collections": [backend.table_id("items")]})
            backend.signal("pause-snapshot", {"type": "incremental"})
        run.barrier()
        run.stop()
        first = run.ids("items", "r")
        assert first and not completed(run), "the snapshot finished before the stop; nothing was tested"
        mark = len(run.records)
        time.sleep(0.3)  # the writer goes on while the connector is down
        run.start()  # a pause is not kept across a restart (Debezium): the snapshot resumes
        run.wait(completed, "the end of the incremental snapshot", 180)
    finally:
        writer.stop()
    run.barrier()
    run.stop()
    assert writer.ops > 100
    later = [
        backend.key(r)["id"]
        for r in run.records[mark:]
        if r["topic"] == backend.topic("items") and payload(r) and payload(r)["op"] == "r"
    ]
    assert later and min(later) > max(first), "the restart must resume after the last emitted chunk"
    assert_replay_equals(run.records, backend.topic("items"), backend.rows("items"), ("id",))


@pytest.mark.needs("signal_table")
def test_additional_conditions_limit_the_reads(backend):
    fill(backend, "items", 30)
    with Run(backend, **incremental_config(backend)) as run:
        backend.signal(
            "execute-snapshot",
            {
                "data-collections": [backend.table_id("items")],
                "type": "incremental",
                "additional-conditions": [
                    {"data-collection": backend.table_id("items"), "filter": "id > 25"}
                ],
            },
        )
        run.wait(completed, "the snapshot")
    assert run.ids("items", "r") == [26, 27, 28, 29, 30]
    assert {payload(r)["source"]["snapshot"] for r in run.events("items", "r")} == {"incremental"}


@pytest.mark.needs("signal_table")
def test_pause_and_resume(backend):
    """pause-snapshot committed with execute-snapshot: at most the window in flight is read until
    resume-snapshot; then the rest, each row once."""
    fill(backend, "items", 60)
    with Run(backend, **incremental_config(backend)) as run:
        with backend.transaction():
            backend.signal("execute-snapshot", {"data-collections": [backend.table_id("items")]}, "exec-1")
            backend.signal("pause-snapshot", {"type": "incremental"}, "pause-1")
        run.barrier()
        paused = len(run.ids("items", "r"))
        time.sleep(1.0)
        run.barrier()
        assert len(run.ids("items", "r")) == paused < 60  # nothing while paused
        backend.signal("resume-snapshot", {"type": "incremental"}, "resume-1")
        run.wait(completed, "the snapshot after resume")
    assert sorted(run.ids("items", "r")) == list(range(1, 61))


@pytest.mark.needs("signal_table")
def test_stop_snapshot_of_all_collections(backend):
    fill(backend, "a", 40)
    fill(backend, "b", 40)
    with Run(backend, **incremental_config(backend)) as run:
        with backend.transaction():
            backend.signal(
                "execute-snapshot", {"data-collections": [backend.table_id("a"), backend.table_id("b")]}
            )
            backend.signal("pause-snapshot", {"type": "incremental"})
        run.barrier()
        with backend.transaction():
            backend.signal("stop-snapshot", {"type": "incremental"})
            backend.signal("resume-snapshot", {"type": "incremental"})
        run.barrier()
        time.sleep(0.5)
        run.barrier()
        assert len(run.ids("a", "r")) < 40 and run.ids("b", "r") == []
        # a new snapshot afterwards starts from scratch
        backend.signal("execute-snapshot", {"data-collections": [backend.table_id("b")]})
        run.wait(lambda _: completed(run, 1) and len(run.ids("b", "r")) == 40, "a new snapshot")
