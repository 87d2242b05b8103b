"""The snapshot.mode table (emulator.pipeline.snapshotter), expected values written by hand from Debezium's
documentation (/work/shared/spec: spec-postgres-mongodb.md 2.13.1 and 3.8, spec-mysql-mariadb.md 9.1 and 14).

Columns: offsets (none / in progress / done), position available, -> data, schema, stream, reset, lost."""

from __future__ import annotations

from types import SimpleNamespace

import pytest

from emulator.pipeline.snapshotter import NoOffsets, Plan, decide, mode_of

NONE, RUNNING, DONE = (False, False), (True, True), (True, False)

TABLE = [
    # initial: a snapshot when there is no offset or the last one did not finish, then stream
    ("initial", NONE, True, Plan(True, True, True)),
    ("initial", RUNNING, True, Plan(True, True, True, reset=True)),
    ("initial", DONE, True, Plan(False, False, True)),
    ("initial", DONE, False, Plan(False, False, True, lost=True)),  # MySQL: refuses to start
    # initial_only: the same, and no streaming
    ("initial_only", NONE, True, Plan(True, True, False)),
    ("initial_only", RUNNING, True, Plan(True, True, False, reset=True)),
    ("initial_only", DONE, True, Plan(False, False, False)),
    # always: on every start, whatever the offsets say
    ("always", NONE, True, Plan(True, True, True)),
    ("always", DONE, True, Plan(True, True, True, reset=True)),
    ("always", DONE, False, Plan(True, True, True, reset=True)),
    # no_data: never the data; the schema (binlog connectors) when there is no completed snapshot
    ("no_data", NONE, True, Plan(False, True, True)),
    ("no_data", DONE, True, Plan(False, False, True)),
    ("no_data", DONE, False, Plan(False, False, True, lost=True)),
    ("never", NONE, True, Plan(False, True, True)),  # deprecated alias of no_data
    # when_needed: no offset, or the stored position is gone from the server
    ("when_needed", NONE, True, Plan(True, True, True)),
    ("when_needed", DONE, True, Plan(False, False, True)),
    ("when_needed", DONE, False, Plan(True, True, True, reset=True)),
    # recovery (MySQL/MariaDB): the schema history rebuilt from the tables now, the stored position kept
    ("recovery", DONE, True, Plan(False, True, True)),
    ("schema_only_recovery", DONE, True, Plan(False, True, True)),
]


@pytest.mark.parametrize(
    ("mode", "offsets", "available", "plan"),
    TABLE,
    ids=[f"{m}-{['none', 'running', 'done'][[NONE, RUNNING, DONE].index(o)]}-{a}" for m, o, a, _ in TABLE],
)
def test_mode_table(mode, offsets, available, plan):
    assert decide(mode_of(mode), *offsets, available) == plan


def _cb(**flags):
    names = (
        "snapshot_data",
        "snapshot_schema",
        "start_stream",
        "snapshot_on_data_error",
        "snapshot_on_schema_error",
    )
    return mode_of("configuration_based", SimpleNamespace(**{n: flags.get(n, False) for n in names}))


def test_configuration_based_defaults_do_nothing():
    # every snapshot.mode.configuration.based.* property defaults to false
    assert decide(_cb(), False, False) == Plan(False, False, False)


def test_configuration_based_data_and_stream():
    m = _cb(snapshot_data=True, start_stream=True)
    assert decide(m, False, False) == Plan(True, True, True)
    assert decide(m, True, False) == Plan(False, False, True)


def test_configuration_based_schema_only():
    assert decide(_cb(snapshot_schema=True), False, False) == Plan(False, True, False)


def test_configuration_based_on_data_error():
    # a lost position: offsets reset and the flags asked again as if there were none
    m = _cb(snapshot_data=True, start_stream=True, snapshot_on_data_error=True)
    assert decide(m, True, False, False) == Plan(True, True, True, reset=True)
    m = _cb(start_stream=True)
    assert decide(m, True, False, False) == Plan(False, False, True, lost=True)


def test_snapshot_property():
    assert Plan(False, True, True).snapshot and not Plan(False, False, True).snapshot


@pytest.mark.parametrize("name", ["custom", "exported", "bogus"])
def test_unsupported_mode_named(name):
    with pytest.raises(ValueError, match=name):
        mode_of(name)


def test_recovery_needs_offsets():
    # real Debezium 3.6.3 (MySqlConnector, snapshot.mode=recovery, no offsets) fails the task at start with
    # "Could not find existing redo log information while attempting schema only recovery snapshot"
    with pytest.raises(NoOffsets, match="Could not find existing redo log information"):
        decide(mode_of("recovery"), False, False)
    assert decide(mode_of("recovery"), True, True) == Plan(False, True, True, reset=True)
