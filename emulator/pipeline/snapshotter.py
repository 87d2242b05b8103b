"""`snapshot.mode` as data: what a start does, decided once for every connector.

Debezium asks its `Snapshotter` (io.debezium.spi.snapshot) four things: snapshot the data? the schema?
stream afterwards? and, when the stored position is gone from the server, snapshot again? Each mode
answers from two facts about the stored offsets - do they exist, and was the snapshot they record still
in progress - and the connector asks a third, whether the stored position is still on the server
(PostgreSQL: the slot and its restart LSN; MySQL/MariaDB: the binlog file; MongoDB: the oplog, found out
only when the change stream is opened). A lost position with a mode that snapshots on data error is
treated as no offset at all (Debezium resets the offsets and asks again).

Pure: no IO, no connector; `tests/test_snapshotter.py` holds the table's expected values, written from
Debezium's documentation.
"""

from __future__ import annotations

from dataclasses import dataclass

# What "snapshot when" means for data and schema: never, always, or only without a completed snapshot.
NEVER, ALWAYS, UNLESS_DONE = "never", "always", "unless_done"


@dataclass(frozen=True)
class Mode:
    """One row of Debezium's table. `data` / `schema`: NEVER, ALWAYS or UNLESS_DONE."""

    data: str
    schema: str
    stream: bool
    on_data_error: bool  # a lost stored position takes a new snapshot instead of failing
    on_schema_error: bool = False  # a lost schema history is rebuilt (MySQL/MariaDB recovery)
    needs_offsets: bool = False  # refused without stored offsets (Debezium's Snapshotter.validate)


MODES: dict[str, Mode] = {
    "initial": Mode(UNLESS_DONE, UNLESS_DONE, True, False),
    "initial_only": Mode(UNLESS_DONE, UNLESS_DONE, False, False),
    "always": Mode(ALWAYS, ALWAYS, True, False),
    "when_needed": Mode(UNLESS_DONE, UNLESS_DONE, True, True),
    # the schema of the captured tables is still read (binlog connectors need it to decode rows)
    "no_data": Mode(NEVER, UNLESS_DONE, True, False),
    # rebuild the schema history from the tables as they are now, keep the stored position
    "recovery": Mode(NEVER, ALWAYS, True, False, True, needs_offsets=True),
}
# deprecated names Debezium 2.x still took; config.py rejects them with a hint, old offsets/tests may not
ALIASES = {"never": "no_data", "schema_only": "no_data", "schema_only_recovery": "recovery"}
CONFIGURATION_BASED = "configuration_based"


class NoOffsets(RuntimeError):
    """The mode needs stored offsets and there are none (Debezium fails the task at start)."""


# Debezium 3.6.3's message (RecoverySnapshotter.validate), recorded from a MySqlConnector start with
# snapshot.mode=recovery and no offsets
RECOVERY_WITHOUT_OFFSETS = (
    "Could not find existing redo log information while attempting schema only recovery snapshot"
)


@dataclass(frozen=True)
class Plan:
    """What this start does. `reset`: stored offsets are discarded (a new snapshot replaces them);
    `lost`: the stored position is gone and the mode does not snapshot again (the adapter fails or warns,
    as its Debezium connector does)."""

    data: bool
    schema: bool
    stream: bool
    reset: bool = False
    lost: bool = False

    @property
    def snapshot(self) -> bool:
        return self.data or self.schema


def mode_of(name: str | None, configuration_based=None) -> Mode:
    """The row for `snapshot.mode`; for configuration_based, the row its flags make
    (`emulator.settings.ConfigurationBased`: snapshot_data, snapshot_schema, start_stream,
    snapshot_on_data_error, snapshot_on_schema_error; all false when None)."""
    name = (name or "initial").lower()
    name = ALIASES.get(name, name)
    if name == CONFIGURATION_BASED:
        cb = configuration_based
        return Mode(
            UNLESS_DONE if cb is not None and cb.snapshot_data else NEVER,
            UNLESS_DONE if cb is not None and cb.snapshot_schema else NEVER,
            bool(cb is not None and cb.start_stream),
            bool(cb is not None and cb.snapshot_on_data_error),
            bool(cb is not None and cb.snapshot_on_schema_error),
        )
    mode = MODES.get(name)
    if mode is None:
        raise ValueError(f"snapshot.mode {name!r} is not supported")
    return mode


def _wanted(when: str, offset_exists: bool, in_progress: bool) -> bool:
    if when == ALWAYS:
        return True
    if when == UNLESS_DONE:
        return not offset_exists or in_progress
    return False


def decide(mode: Mode, offset_exists: bool, in_progress: bool, position_available: bool = True) -> Plan:
    """The plan for a start. `position_available` matters only for a completed snapshot's offsets
    (callers may pass anything otherwise). NoOffsets when the mode cannot start without offsets."""
    if mode.needs_offsets and not offset_exists:
        raise NoOffsets(RECOVERY_WITHOUT_OFFSETS)
    done = offset_exists and not in_progress
    if done and not position_available and mode.data != ALWAYS:
        if mode.on_data_error:  # Debezium: offsets reset, then the snapshotter is asked again
            data = _wanted(mode.data, False, False)
            return Plan(data, data or _wanted(mode.schema, False, False), mode.stream, reset=True)
        return Plan(False, _wanted(mode.schema, offset_exists, in_progress), mode.stream, lost=True)
    data = _wanted(mode.data, offset_exists, in_progress)
    schema = data or _wanted(mode.schema, offset_exists, in_progress)
    # a completed snapshot's position survives a schema-only snapshot (recovery); anything else restarts
    return Plan(data, schema, mode.stream, reset=offset_exists and (data or (schema and in_progress)))
