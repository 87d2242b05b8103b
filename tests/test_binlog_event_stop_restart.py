"""Every stop inside a binlog rows event leaves an offset that has a restart read that event again.

Debezium's BinlogStreamingChangeEventSource.handleEvent counts an event done (offsetContext.completeEvent)
only after its handler returned: a handler that throws stops the connector with the event not done, and the
offset a restart reads is that of the last record delivered, before the event. The emulator counts a rows
event in events_done as it starts it (`MySqlBinlogStream._rows`); a stop raised past that point without
`_rows_failed` stored the stopped event as done inside its transaction, so a restart skipped it: its rows were
lost, where Debezium stops on it again (or, with the cause removed, delivers them).

The stops: a rows event without a full row image (a session's binlog_row_image NOBLOB/MINIMAL), a row whose
column count is not the schema history's, a table the schema history does not know (inconsistent.schema.
handling.mode=fail), and a value Debezium cannot convert in the first row of an event that takes the records'
lines through the general path (`_rows` -> `_lines`, its first event of that type).

A value stopped after the event's first row (the last test): a binlog rows event stopped at a value Debezium cannot convert (a NOT NULL TIME outside a day with
`time.precision.mode=connect`) inside a transaction, then restarted on the stored offset with the cause fixed.

Debezium converts and queues an event's rows one by one (BinlogStreamingChangeEventSource.handleChange) and
stops at the failing row: the rows before it are its records (recorded: case
time_connect_required_fails_mid_event, and seed 5 of tests/test_mariadb_workloads.py, which failed whenever
Debezium delivered such a row while the emulator held the whole event back). Its offset is that of the last
record delivered (BinlogOffsetContext.setRowNumber: the event's transaction, the events done, the rows to
skip), so a restart reads the failing event again past the rows delivered: every row once.

Both ways the emulator makes rows: the records' lines (the default) and the general path (taken with a
transform). Before session 24 the first held the event's first row back and the second also stored the stopped
event as done, so the restart skipped its rows (4 and 5 in that test: lost)."""

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


@pytest.fixture(scope="module")
def db():
    with mariadbserver.MariaDbServer() as server:
        yield server


def _ids(cap: Capture, topic: str) -> list[int]:
    with contextlib.suppress(CaptureError):  # (the stopped connector's error comes after its records)
        cap.changes()  # read everything delivered
    return [r["key"]["payload"]["id"] for r in cap.seen if r["topic"] == topic]


def _props(db, name: str, tmp_path, **more: str) -> dict[str, str]:
    return db.connector_properties(
        **{
            "database.include.list": name,
            "topic.prefix": "p",
            "schema.history.internal.file.filename": str(tmp_path / "history.dat"),
            "offset.flush.interval.ms": "60000",  # only the commit as the connector stops saves an offset
            **more,
        }
    )


def _until_stopped(
    props: dict[str, str], store: MemoryOffsetStore, db, sql: str, name: str, what: str
) -> Capture:
    """A capture started on `store`, `sql` run in database `name`, the connector's own stop awaited."""
    cap = Capture(props, offsets=store).start()
    try:
        db.sql(sql, name)
        cap.thread.join(60)
        assert not cap.thread.is_alive(), f"the connector did not stop {what}"
    finally:
        cap.stop()
    return cap


def _restarted_through_7(props: dict[str, str], store: MemoryOffsetStore, topic: str) -> Capture:
    """A restart on `store` with `props` (the cause fixed), run until it delivered id 7 (the statement after
    the stopped transaction), without an error."""
    again = Capture(props, offsets=store).start()
    try:
        again.wait_for(topic, lambda r: r["key"]["payload"]["id"] == 7, 60)
    finally:
        again.stop()
    assert again.error is None, again.error
    return again


# the SQL that makes the stop (after the connector streams), from one client session; `ok` has rows 6 (in
# the transaction, before the stopping event) and 7 (after it)
_CAUSES = {
    # NOBLOB leaves the BLOB column out of an INSERT that does not set it (`ok` has no BLOB: a full image)
    "row_image": (
        "SET SESSION binlog_row_image = 'NOBLOB'; BEGIN; INSERT INTO ok VALUES (6); "
        "INSERT INTO tr (id, v) VALUES (3, 'c'); COMMIT; INSERT INTO ok VALUES (7)",
        "lacks columns",
    ),
    # a column added outside the binlog: its rows have 4 columns, the schema history 3
    "column_count": (
        "SET SESSION sql_log_bin = 0; ALTER TABLE tr ADD COLUMN x INT; SET SESSION sql_log_bin = 1; "
        "BEGIN; INSERT INTO ok VALUES (6); INSERT INTO tr VALUES (3, 'c', NULL, 9); COMMIT; "
        "INSERT INTO ok VALUES (7)",
        "the schema has 3",
    ),
    # a table created outside the binlog: no schema for it
    "unknown_table": (
        "SET SESSION sql_log_bin = 0; CREATE TABLE nt (id INT PRIMARY KEY); SET SESSION sql_log_bin = 1; "
        "BEGIN; INSERT INTO ok VALUES (6); INSERT INTO nt VALUES (3); COMMIT; INSERT INTO ok VALUES (7)",
        "no schema for table",
    ),
}


@pytest.mark.parametrize("cause", sorted(_CAUSES))
def test_a_restart_stops_on_the_same_event_again(db, tmp_path, cause):
    sql, message = _CAUSES[cause]
    name = f"evstop_{cause}"
    topic = f"p.{name}.ok"
    db.sql(f"CREATE DATABASE {name}")
    db.sql("CREATE TABLE tr (id INT PRIMARY KEY, v VARCHAR(10), c BLOB)", name)
    db.sql("CREATE TABLE ok (id INT PRIMARY KEY)", name)
    props = _props(db, name, tmp_path)
    store = MemoryOffsetStore()
    cap = _until_stopped(props, store, db, sql, name, "at the event")
    assert message in str(cap.error), cap.error
    assert _ids(cap, topic) == [6]
    stored = store.load()
    # the transaction's first event done, not the stopped one (which `event` 2 would skip on a restart)
    assert (stored["event"], stored["row"]) == (1, 0)

    # Debezium reads the stopped event again and stops on it again: the cause is still in the binlog (a user
    # moves the offset past it, or, for the schema, recovers the history); the emulator skipped it and went on
    again = Capture(props, offsets=store).start(wait=False)
    try:
        again.thread.join(60)
        assert not again.thread.is_alive(), "the restart did not stop on the same event: it skipped it"
    finally:
        again.stop()
    assert message in str(again.error), again.error
    assert _ids(again, topic) == []  # row 6 not again (the event before), row 7 not reached


def test_first_row_of_a_lines_event_then_the_restart_delivers_it(db, tmp_path):
    """The records' lines way made in `_rows` (the table's first INSERT event while streaming) stopped at its
    first row: the event is not done, and a restart with the cause fixed delivers its rows once."""
    name = "evstop_lines_first"
    topic = f"p.{name}.tr"
    db.sql(f"CREATE DATABASE {name}")
    db.sql("CREATE TABLE tr (id INT PRIMARY KEY, t TIME(3) NOT NULL, v VARCHAR(10))", name)
    db.sql("CREATE TABLE ok (id INT PRIMARY KEY)", name)
    props = _props(db, name, tmp_path, **{"time.precision.mode": "connect"})
    store = MemoryOffsetStore()
    sql = (
        "BEGIN; INSERT INTO ok VALUES (6); INSERT INTO tr VALUES (4, '-00:00:00.001', 'd'), "
        "(5, '01:00:00', 'e'); COMMIT; INSERT INTO tr VALUES (7, '01:00:00', 'g')"
    )
    cap = _until_stopped(props, store, db, sql, name, "on row 4")
    assert "outside a day" in str(cap.error), cap.error
    assert _ids(cap, topic) == []
    assert _ids(cap, f"p.{name}.ok") == [6]
    stored = store.load()
    assert (stored["event"], stored["row"]) == (1, 0)

    fixed = dict(props, **{"time.precision.mode": "adaptive_time_microseconds"})
    again = _restarted_through_7(fixed, store, topic)
    assert _ids(again, topic) == [4, 5, 7]  # none lost, none twice
    assert _ids(again, f"p.{name}.ok") == []


UNWRAP = {
    "transforms.unwrap.type": "io.debezium.transforms.ExtractNewRecordState",
}
UNWRAP_ALONE = {"transforms": "unwrap", **UNWRAP}
CAST = {
    "transforms": "unwrap,cast",
    **UNWRAP,
    "transforms.cast.type": "org.apache.kafka.connect.transforms.Cast$Value",
    "transforms.cast.spec": "v:int32",
}


@pytest.mark.parametrize("first", [False, True], ids=["mid_event", "first_row"])
def test_a_transform_stop_then_the_restart_goes_on_at_that_row(db, tmp_path, first):
    """A transform failing on a row (errors.tolerance=none) stops the connector in the rows event's loop
    (`_rows`: the data plane runs as each row is emitted): the rows before it delivered, the event not done,
    a restart with the transform fixed delivers the failing row and the rest once. Connect's
    WorkerSourceTask never commits the failing record's offset (nor any after it)."""
    name = f"evstop_cast_{'first' if first else 'mid'}"
    topic = f"p.{name}.tr"
    db.sql(f"CREATE DATABASE {name}")
    db.sql("CREATE TABLE tr (id INT PRIMARY KEY, v VARCHAR(10))", name)
    props = _props(db, name, tmp_path, **CAST)
    store = MemoryOffsetStore()
    rows = "(4, 'x'), (5, '5')" if first else "(3, '3'), (4, 'x'), (5, '5')"
    sql = f"BEGIN; INSERT INTO tr VALUES (6, '6'); INSERT INTO tr VALUES {rows}; COMMIT; INSERT INTO tr VALUES (7, '7')"
    cap = _until_stopped(props, store, db, sql, name, "on row 4")
    assert "transforms.cast" in str(cap.error), cap.error
    assert _ids(cap, topic) == ([6] if first else [6, 3])
    stored = store.load()
    assert (stored["event"], stored["row"]) == ((1, 0) if first else (1, 1))

    fixed = dict(props, **{"transforms": "unwrap"})
    again = _restarted_through_7(fixed, store, topic)
    assert _ids(again, topic) == [4, 5, 7]  # none lost, none twice


@pytest.mark.parametrize("way", ["lines", "general"])
def test_rows_before_the_failing_row_then_the_restart_goes_on_after_them(db, tmp_path, way):
    name = f"valstop_{way}"
    topic = f"p.{name}.tr"
    db.sql(f"CREATE DATABASE {name}")
    db.sql("CREATE TABLE tr (id INT PRIMARY KEY, t TIME(3) NOT NULL, v VARCHAR(10))", name)
    db.sql("INSERT INTO tr VALUES (1, '08:30:15.555', 'a')", name)
    props = _props(
        db, name, tmp_path, **{"time.precision.mode": "connect"}, **(UNWRAP_ALONE if way == "general" else {})
    )
    store = MemoryOffsetStore()
    sql = (
        "INSERT INTO tr VALUES (2, '08:30:15.555', 'b'); BEGIN; INSERT INTO tr VALUES (6, '01:00:00', 'f'); "
        "INSERT INTO tr VALUES (3, '08:30:15.555', 'c'), (4, '-00:00:00.001', 'd'), (5, '01:00:00', 'e'); "
        "COMMIT; INSERT INTO tr VALUES (7, '01:00:00', 'g')"
    )
    cap = _until_stopped(props, store, db, sql, name, "on row 4")
    assert "outside a day" in str(cap.error)
    # the failing event's row before row 4 is delivered, as Debezium's queue has it
    assert _ids(cap, topic) == [1, 2, 6, 3]
    stored = store.load()
    assert (stored["event"], stored["row"]) == (1, 1)  # the transaction's first event done, then one row

    fixed = dict(props, **{"time.precision.mode": "adaptive_time_microseconds"})
    again = _restarted_through_7(fixed, store, topic)
    # no row lost, none twice: the restart reads the stopped event again past row 3
    assert _ids(again, topic) == [4, 5, 7]
