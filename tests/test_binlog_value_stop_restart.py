"""A binlog rows event stopped at a value Debezium cannot convert (a NOT NULL TIME outside a day with
`time.precision.mode=connect`) inside a transaction, then restarted on the stored offset with the cause fixed.

Debezium converts and queues an event's rows one by one (BinlogStreamingChangeEventSource.handleChange) and
stops at the failing row: the rows before it are its records (recorded: case
time_connect_required_fails_mid_event, and seed 5 of tests/test_mariadb_workloads.py, which failed whenever
Debezium delivered such a row while the emulator held the whole event back). Its offset is that of the last
record delivered (BinlogOffsetContext.setRowNumber: the event's transaction, the events done, the rows to
skip), so a restart reads the failing event again past the rows delivered: every row once.

Both ways the emulator makes rows: the records' lines (the default) and the general path (taken with a
transform). Before session 24 the first held the event's first row back and the second also stored the stopped
event as done, so the restart skipped its rows (4 and 5 below: lost)."""

from __future__ import annotations

import contextlib

import pytest

from emulator.api import Capture, CaptureError
from emulator.offsets import MemoryOffsetStore
from emulator.testing import mariadbserver

pytestmark = pytest.mark.skipif(
    not mariadbserver.available(),
    reason="MariaDB server binaries not installed (scripts/setup.sh installs them)",
)

UNWRAP = {
    "transforms": "unwrap",
    "transforms.unwrap.type": "io.debezium.transforms.ExtractNewRecordState",
}


@pytest.fixture(scope="module")
def db():
    with mariadbserver.MariaDbServer() as server:
        yield server


def _ids(cap: Capture, topic: str) -> list[int]:
    with contextlib.suppress(CaptureError):  # (the stopped connector's error comes after its records)
        cap.changes()  # read everything delivered
    return [r["key"]["payload"]["id"] for r in cap.seen if r["topic"] == topic]


@pytest.mark.parametrize("way", ["lines", "general"])
def test_rows_before_the_failing_row_then_the_restart_goes_on_after_them(db, tmp_path, way):
    name = f"valstop_{way}"
    topic = f"p.{name}.tr"
    db.sql(f"CREATE DATABASE {name}")
    db.sql("CREATE TABLE tr (id INT PRIMARY KEY, t TIME(3) NOT NULL, v VARCHAR(10))", name)
    db.sql("INSERT INTO tr VALUES (1, '08:30:15.555', 'a')", name)
    props = db.connector_properties(
        **{
            "database.include.list": name,
            "topic.prefix": "p",
            "schema.history.internal.file.filename": str(tmp_path / "history.dat"),
            "time.precision.mode": "connect",
            "offset.flush.interval.ms": "60000",  # only the commit as the connector stops saves an offset
            **(UNWRAP if way == "general" else {}),
        }
    )
    store = MemoryOffsetStore()
    cap = Capture(props, offsets=store).start()
    try:
        db.sql(
            "INSERT INTO tr VALUES (2, '08:30:15.555', 'b'); BEGIN; INSERT INTO tr VALUES (6, '01:00:00', 'f'); "
            "INSERT INTO tr VALUES (3, '08:30:15.555', 'c'), (4, '-00:00:00.001', 'd'), (5, '01:00:00', 'e'); "
            "COMMIT; INSERT INTO tr VALUES (7, '01:00:00', 'g')",
            name,
        )
        cap.thread.join(60)
        assert not cap.thread.is_alive(), "the connector did not stop on row 4"
    finally:
        cap.stop()
    assert "outside a day" in str(cap.error)
    # the failing event's row before row 4 is delivered, as Debezium's queue has it
    assert _ids(cap, topic) == [1, 2, 6, 3]
    stored = store.load()
    assert (stored["event"], stored["row"]) == (1, 1)  # the transaction's first event done, then one row

    fixed = dict(props, **{"time.precision.mode": "adaptive_time_microseconds"})
    again = Capture(fixed, offsets=store).start()
    try:
        again.wait_for(topic, lambda r: r["key"]["payload"]["id"] == 7, 60)
    finally:
        again.stop()
    assert again.error is None, again.error
    # no row lost, none twice: the restart reads the stopped event again past row 3
    assert _ids(again, topic) == [4, 5, 7]
