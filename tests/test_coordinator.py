"""The coordinator's start-up sequence (emulator.pipeline.coordinator), with an adapter that records what it
is asked to do: which steps run, in which order, for each snapshot.mode and offsets situation. The
expected sequences are written by hand from Debezium's documentation (spec-postgres-mongodb.md 2.12-2.13,
spec-mysql-mariadb.md 9.1 and 14); the databases' own parts are covered by the connectors' live tests."""

from __future__ import annotations

import threading
from contextlib import contextmanager, nullcontext
from types import SimpleNamespace

import pytest

from emulator.connectors.base import PositionLost
from emulator.metrics import ConnectorMetrics
from emulator.pipeline.coordinator import Coordinator, SnapshotSession
from emulator.pipeline.snapshotter import NoOffsets


class Offsets:
    def __init__(self, stored):
        self.stored = stored

    def load(self):
        return self.stored


class Engine:
    def __init__(self, stored):
        self.offsets = Offsets(stored)
        self.stop_event = threading.Event()
        self.metrics = ConnectorMetrics()
        self.commits = 0

    @property
    def stopping(self):
        return self.stop_event.is_set()

    def commit(self, force=False):
        self.commits += 1


class Notifier:
    def __init__(self, calls):
        self.calls = calls

    def initial(self, kind, **data):
        self.calls.append(f"notify {kind}")

    def snapshot_callbacks(self, data_tables, captured, id_of):
        return (
            lambda t: self.calls.append(f"started {id_of(t)}"),
            lambda t, rows: self.calls.append(f"finished {id_of(t)} {rows}"),
        )


class Incremental:
    def __init__(self, calls):
        self.calls = calls

    def restore(self, stored):
        self.calls.append("incremental.restore")


class Adapter:
    """Offsets: {"done": bool} (absent: none); `available`: whether the server still has the position."""

    HISTORIZED = False
    ON_LOST_POSITION = "fail"

    def __init__(self, available=True, rows=None, lost_in_stream=False):
        self.calls: list[str] = []
        self.available = available
        self.rows = rows if rows is not None else {"t1": [1, 2], "t2": [3]}
        self.lost_in_stream = lost_in_stream
        self.notifier = Notifier(self.calls)
        self.incremental = Incremental(self.calls)

    def connect(self):
        self.calls.append("connect")

    def offset_state(self, stored):
        return stored is not None, stored is not None and not stored["done"]

    def position_available(self, stored):
        self.calls.append("position_available")
        return self.available

    def lost_position_message(self, stored):
        return "position gone"

    def prepare(self, snapshot):
        self.calls.append(f"prepare {snapshot}")

    @contextmanager
    def snapshot_session(self, data):
        self.calls.append(f"snapshot data={data}")
        tables = list(self.rows) if data else []
        s = SnapshotSession(tables, lambda t: self.rows[t], self._emit, str, captured=list(self.rows))
        yield s
        self.calls.append(f"snapshot completed={s.completed}")

    def _emit(self, table, row, mark):
        self.calls.append(f"read {table} {row} {mark}")

    def restore(self, stored, history=True):
        self.calls.append(f"restore history={history}")

    def position(self):
        return None

    def keep_alive(self):
        self.calls.append("keep_alive")

    def stream_changes(self):
        self.calls.append("stream")
        if self.lost_in_stream and self.calls.count("stream") == 1:
            raise PositionLost("resume point gone")


def snapshot_settings(mode, **flags):
    """The typed `snapshot` settings group's fields the coordinator reads (emulator.settings.Snapshot)."""
    names = (
        "snapshot_data",
        "snapshot_schema",
        "start_stream",
        "snapshot_on_data_error",
        "snapshot_on_schema_error",
    )
    cb = SimpleNamespace(**{n: flags.get(n, False) for n in names})
    return SimpleNamespace(mode=mode, configuration_based=cb, delay_ms=0, streaming_delay_ms=0)


def run(mode, stored, adapter, **flags):
    engine = Engine(stored)
    Coordinator(adapter, snapshot_settings(mode, **flags), engine).run()
    return adapter.calls


# a completed snapshot's offsets: the position checked, no snapshot, the position restored
RESTORE = [
    "connect",
    "position_available",
    "prepare False",
    "notify SKIPPED",
    "restore history=True",
    "incremental.restore",
]
SNAPSHOT = [
    "notify STARTED",
    "snapshot data=True",
    "started t1",
    "read t1 1 first",
    "finished t1 2",
    "started t2",
    "read t1 2 last_in_data_collection",
    "finished t2 1",
    "read t2 3 last",
    "snapshot completed=True",
    "notify COMPLETED",
]


def test_initial_without_offsets_snapshots_then_streams():
    assert run("initial", None, Adapter()) == ["connect", "prepare True", *SNAPSHOT, "stream"]


def test_initial_with_offsets_restores_and_streams():
    assert run("initial", {"done": True}, Adapter()) == [
        *RESTORE,
        "stream",
    ]


def test_initial_with_an_unfinished_snapshot_snapshots_again():
    assert run("initial", {"done": False}, Adapter()) == ["connect", "prepare True", *SNAPSHOT, "stream"]


def test_initial_only_does_not_stream():
    assert run("initial_only", None, Adapter()) == ["connect", "prepare True", *SNAPSHOT]
    assert run("initial_only", {"done": True}, Adapter()) == [
        *RESTORE,
    ]


def test_always_snapshots_without_asking_for_the_position():
    assert run("always", {"done": True}, Adapter(available=False)) == [
        "connect",
        "prepare True",
        *SNAPSHOT,
        "stream",
    ]


def test_no_data_streams_from_the_offsets_or_the_server():
    assert run("no_data", None, Adapter()) == ["connect", "prepare False", "notify SKIPPED", "stream"]


def test_no_data_on_a_historized_connector_reads_the_schema():
    a = Adapter()
    a.HISTORIZED = True
    assert run("no_data", None, a) == [
        "connect",
        "prepare True",
        "notify STARTED",
        "snapshot data=False",
        "snapshot completed=True",
        "notify COMPLETED",
        "stream",
    ]


def test_recovery_rebuilds_the_schema_and_keeps_the_position():
    a = Adapter()
    a.HISTORIZED = True
    assert run("recovery", {"done": True}, a) == [
        "connect",
        "position_available",
        "prepare True",
        "notify STARTED",
        "snapshot data=False",
        "snapshot completed=True",
        "notify COMPLETED",
        "restore history=False",
        "incremental.restore",
        "stream",
    ]


def test_lost_position_fails_unless_when_needed():
    with pytest.raises(PositionLost, match="position gone"):
        run("initial", {"done": True}, Adapter(available=False))
    assert run("when_needed", {"done": True}, Adapter(available=False)) == [
        "connect",
        "position_available",
        "prepare True",
        *SNAPSHOT,
        "stream",
    ]


def test_lost_position_warns_where_the_connector_streams_on(caplog):
    a = Adapter(available=False)
    a.ON_LOST_POSITION = "warn"  # PostgreSQL: streams from what the slot still has
    assert run("initial", {"done": True}, a) == [
        *RESTORE,
        "stream",
    ]
    assert "position gone" in caplog.text


def test_position_lost_in_the_stream():
    with pytest.raises(PositionLost):
        run("initial", {"done": True}, Adapter(lost_in_stream=True))
    calls = run("when_needed", {"done": True}, Adapter(lost_in_stream=True))
    assert calls == [
        *RESTORE,
        "stream",
        *SNAPSHOT,
        "stream",
    ]


def test_configuration_based_follows_its_flags():
    assert run("configuration_based", None, Adapter(), snapshot_data=True) == [
        "connect",
        "prepare True",
        *SNAPSHOT,
    ]
    assert run("configuration_based", None, Adapter(), snapshot_data=True, start_stream=True) == [
        "connect",
        "prepare True",
        *SNAPSHOT,
        "stream",
    ]


def test_a_stop_during_the_snapshot_ends_the_run():
    a = Adapter(rows={"t1": [1, 2, 3]})
    engine = Engine(None)
    emit = a._emit

    def stop_after_first(table, row, mark):
        emit(table, row, mark)
        engine.stop_event.set()

    a._emit = stop_after_first
    Coordinator(a, snapshot_settings("initial"), engine).run()
    assert a.calls == [
        "connect",
        "prepare True",
        "notify STARTED",
        "snapshot data=True",
        "started t1",
        "read t1 1 first",
        "snapshot completed=False",
    ]


def test_recovery_without_offsets_fails_before_reading():
    a = Adapter()
    a.HISTORIZED = True
    with pytest.raises(NoOffsets, match="schema only recovery"):
        run("recovery", None, a)
    assert a.calls == ["connect"]


# snapshot.delay.ms / streaming.delay.ms: the coordinator waits for every connector (Debezium's
# ChangeEventSourceCoordinator delays before the snapshot and before streaming); a stop during the wait
# ends the run before the step. The engine here is already stopping, so the wait ends at once.
def delayed(mode, adapter, delay_ms=0, streaming_delay_ms=0):
    engine = Engine(None)
    engine.stop_event.set()
    settings = snapshot_settings(mode)
    settings.delay_ms, settings.streaming_delay_ms = delay_ms, streaming_delay_ms
    Coordinator(adapter, settings, engine).run()
    return adapter.calls


def test_a_stop_during_snapshot_delay_reads_nothing():
    assert delayed("initial", Adapter(), delay_ms=600_000) == ["connect", "prepare True"]


def test_a_stop_during_streaming_delay_does_not_stream():
    assert delayed("no_data", Adapter(), streaming_delay_ms=600_000) == [
        "connect",
        "prepare False",
        "notify SKIPPED",
    ]


def test_without_delays_a_stopping_engine_still_reaches_the_steps():
    # the counterpart: what the two tests above would see if the delays were ignored
    assert delayed("no_data", Adapter()) == ["connect", "prepare False", "notify SKIPPED", "stream"]


def test_blocking_snapshot_keeps_the_paused_stream_alive_every_1024_rows():
    """The blocking snapshot runs on the stream's thread (the pause): 2500 rows read with the initial
    snapshot's markers, and the paused stream told to keep alive after rows 1024 and 2048."""
    from emulator.pipeline.coordinator import blocking_snapshot

    a = Adapter(rows={"t1": list(range(2500))})
    engine = Engine(None)
    session = SnapshotSession(["t1"], lambda t: a.rows[t], a._emit, str)
    blocking_snapshot(a, engine, nullcontext(session))
    reads = [c for c in a.calls if c.startswith("read")]
    assert len(reads) == 2500 and reads[0].endswith(" first") and reads[-1].endswith(" last")
    assert a.calls.count("keep_alive") == 2
    assert a.calls.index("keep_alive") == 1024  # after the 1024th read, not before it
