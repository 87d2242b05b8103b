"""What a database provides to the shared capture pipeline: the adapter interface.

`emulator.pipeline.coordinator.Coordinator` drives every connector through these methods alone; the
adapter keeps what is its database's own (connections, catalog, snapshot reads, the replication / binlog /
change-stream decoding, the source block). Nothing here imports a connector or a driver, so adapters,
`incremental` and the runner can all import it without an import circle.

Offsets are plain dicts in Debezium's own shape (what Kafka Connect stores); only the adapter reads them.
"""

from __future__ import annotations

from contextlib import AbstractContextManager
from typing import Any, Protocol


class PositionLost(RuntimeError):
    """The stored position is no longer on the server (a purged binlog, a dropped slot, an oplog that
    rolled over). Raised by `stream_changes` when the loss shows only then (MongoDB); the coordinator then takes
    a new snapshot if the snapshot mode says so (`when_needed`), else fails with this message."""


def with_progress(position: dict[str, Any] | None, incremental: Any) -> dict[str, Any] | None:
    """An adapter's `offset()` from its `position()`: the incremental snapshot's progress added (none when
    there is no position yet)."""
    if position is not None:
        progress = incremental.offset()
        if progress:
            position.update(progress)
    return position


class SourceAdapter(Protocol):
    """One connector's database side. The coordinator calls, in order:

    [check(config), before anything runs: CLI, REST validation] -> connect() -> offset_state(stored)
    -> [position_available(stored)] -> prepare(snapshot) -> snapshot_session(data) | restore(stored)
    -> stream_changes() (until stop) -> close();
    `blocking_snapshot` from inside `stream_changes` (signals). `notifier` and `incremental` are the
    adapter's `emulator.notifications.Notifier` and incremental-snapshot machine.

    Pausing the stream: every adapter reads its log and runs signals on one thread, so a blocking snapshot
    (`emulator.pipeline.coordinator.blocking_snapshot`) pauses the stream by running on that thread between
    two events, and the stream resumes from the very next event when it returns; `keep_alive` is what the
    paused stream needs meanwhile."""

    notifier: Any
    incremental: Any

    # Debezium's "historized" connectors (MySQL/MariaDB) keep a schema history: a schema-only snapshot
    # (no_data, recovery) is a real snapshot for them and a no-op for the others.
    HISTORIZED: bool
    # what a stored position that is gone does when the mode takes no new snapshot: "fail" (binlog,
    # MongoDB) or "warn" and stream from what the server still has (PostgreSQL's slot)
    ON_LOST_POSITION: str

    @staticmethod
    def check(config: Any) -> None:
        """Can the connector start with `config` (an `emulator.config.Config`)? Connects the way the
        connector will and checks what it needs there (replication rights, log settings, topology).
        Raises `emulator.preflight.ConnectError`, one line naming the server, the cause and the fix
        (`transient`: the server could not be reached, worth retrying). Called through
        `emulator.preflight.check` by the CLI before it starts and by the REST validation."""

    def connect(self) -> None:
        """Open the connections and check the server's prerequisites (one message per problem)."""

    def close(self) -> None:
        """Release everything `connect` and `stream_changes` opened; safe to call twice or after a failure."""

    def captured_table_ids(self) -> list[str]:
        """The ids (`schema.table`, `db.table`, `db.collection`) of the captured tables, as they are now."""

    def table_by_id(self, table_id: str) -> Any:
        """A captured table (its envelope) by id, loaded on demand; None when it is not captured."""

    def offset_state(self, stored: dict[str, Any] | None) -> tuple[bool, bool]:
        """(offsets exist, the snapshot they record was still in progress)."""

    def position_available(self, stored: dict[str, Any]) -> bool:
        """Whether the server still has the stored position (asked for a completed snapshot's offsets)."""

    def lost_position_message(self, stored: dict[str, Any]) -> str:
        """The one-line error (or warning) for a stored position the server no longer has."""

    def prepare(self, snapshot: bool) -> None:
        """The plan is known: set up what the snapshot or the stream needs first (PostgreSQL creates its
        replication slot here, exporting a snapshot when one will be taken)."""

    def snapshot_session(self, data: bool) -> AbstractContextManager[Any]:
        """The initial snapshot's consistent read (the schema, and the rows when `data`): a context
        manager yielding an `emulator.pipeline.coordinator.SnapshotSession`, which the coordinator reads
        through `emulator.snapshot.run_snapshot`. Its point becomes the streaming start position once the
        session is `completed`."""

    def restore(self, stored: dict[str, Any], history: bool = True) -> None:
        """Take the position from stored offsets (`history`: also recover the schema history)."""

    def stream_changes(self) -> None:
        """Read changes until the engine stops; may raise `PositionLost`."""

    def blocking_snapshot(self, tables: list[str], filters: dict[str, Any]) -> None:
        """A blocking snapshot of `tables` while the stream waits (called from inside `stream_changes`)."""

    def position(self) -> dict[str, Any] | None:
        """Where the stream would resume now, in the offsets' own keys (PostgreSQL `lsn`/`lsn_commit`/...,
        binlog `file`/`pos`/`gtids`/..., MongoDB `sec`/`ord`/`resume_token`), without the incremental
        snapshot's progress; None before any position is known."""

    def offset(self) -> dict[str, Any] | None:
        """The position to store now (the engine saves it after the output made records durable):
        `position()` plus the incremental snapshot's progress."""

    def keep_alive(self) -> None:
        """The stream is paused inside a long synchronous loop (incremental chunks, a blocking snapshot):
        tell the server we are alive if it is due (PostgreSQL's standby status); cheap when not due."""

    def committed(self, offset: dict[str, Any]) -> None:
        """The output and offsets are durable up to `offset` (PostgreSQL confirms the LSN)."""

    @staticmethod
    def is_retriable(exc: BaseException) -> bool:
        """A connection-level failure Kafka Connect would restart the task for."""
