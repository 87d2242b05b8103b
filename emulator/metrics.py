"""Debezium's connector metrics (the `debezium.<plugin>:type=connector-metrics,context=snapshot|streaming`
MBeans), kept by the connectors as plain counters and read by the REST worker, the Prometheus endpoint, the
progress reporter and `python -m emulator status`.

The connectors only increment integers here (per row change, per transaction, every 256 snapshot rows);
everything derived (totals, durations, lag, rates) is computed when someone reads.  Attribute names are the
MBean attribute names of Debezium's monitoring documentation.

Differences from Debezium, on purpose or for want of a JVM: there is no queue between the source and the
output (records are written as they are read), so `QueueRemainingCapacity` always equals
`QueueTotalCapacity` and `CurrentQueueSizeInBytes` is 0; `LastEvent` is not kept (it would cost a string
per event).
"""

from __future__ import annotations

import threading
import time
from typing import Any

from emulator.settings import settings_for

# Debezium's MBean domain suffix (`debezium.<plugin>`) per connector class
PLUGINS = {
    "io.debezium.connector.postgresql.PostgresConnector": "postgres",
    "io.debezium.connector.mysql.MySqlConnector": "mysql",
    "io.debezium.connector.mariadb.MariaDbConnector": "mariadb",
    "io.debezium.connector.mongodb.MongoDbConnector": "mongodb",
}


_time_ns = time.time_ns


class SnapshotMetrics:
    """`context=snapshot`.  Row counts per table are refreshed every 256 rows and at each table's end."""

    def __init__(self) -> None:
        self.running = False
        self.completed = False
        self.aborted = False
        self.started: float | None = None  # monotonic
        self.ended: float | None = None
        self.tables: list[str] = []
        self.estimates: dict[str, int] = {}
        self.rows: dict[str, int] = {}  # RowsScanned
        self.done_tables = 0
        self.current: str | None = None
        self.filtered = 0
        self.last_event_mono: float | None = None

    # -- fed by the connector (through emulator.snapshot.run_snapshot)
    def begin(self, tables: list[str], estimates: dict[str, int] | None = None) -> None:
        self.running, self.completed, self.aborted = True, False, False
        self.started, self.ended = time.monotonic(), None
        self.tables = list(tables)
        self.estimates = dict(estimates or {})
        self.rows = {}
        self.done_tables = 0
        self.current = None

    def table_started(self, table: str) -> None:
        self.current = table
        self.rows[table] = 0

    def table_rows(self, table: str, n: int) -> None:
        self.rows[table] = n
        self.last_event_mono = time.monotonic()

    def table_done(self, table: str, n: int) -> None:
        self.rows[table] = n
        self.done_tables += 1
        self.current = None
        if n:
            self.last_event_mono = time.monotonic()

    def end(self, ok: bool) -> None:
        self.running = False
        self.completed, self.aborted = ok, not ok
        self.ended = time.monotonic()

    # -- read
    def duration_s(self) -> int:
        if self.started is None:
            return 0
        return int((self.ended if self.ended is not None else time.monotonic()) - self.started)

    def total_rows(self) -> int:
        return sum(self.rows.values())


class StreamingMetrics:
    """`context=streaming`.  The connector increments `creates`/`updates`/`deletes`/`truncates`/`filtered`
    per row change and calls `committed(ts_ms)` per source transaction."""

    def __init__(self) -> None:
        self.creates = 0
        self.updates = 0
        self.deletes = 0
        self.truncates = 0
        self.filtered = 0
        self.transactions = 0
        self.connected = False
        # the last counted commit: (source ts_ms, transaction id as given, wall clock ns when it was delivered);
        # lag, LastTransactionId and the time since are derived when read (one clock read per commit)
        self._last: tuple[int, Any, int] | None = None
        self._seen_at_commit = 0

    def committed(self, source_ts_ms: int, tx_id: Any = None, only_with_events: bool = False) -> None:
        """One source transaction delivered: lag is measured here, as Debezium measures it per event.
        `only_with_events`: count it only if it carried captured changes (Debezium's PostgreSQL metrics
        count a transaction at its first dispatched event; the binlog connectors count every commit)."""
        if only_with_events:
            seen = self.creates + self.updates + self.deletes + self.truncates - self.filtered
            if seen == self._seen_at_commit:
                return
            self._seen_at_commit = seen
        self.transactions += 1
        self._last = (source_ts_ms, tx_id, _time_ns())

    @property
    def behind_ms(self) -> int:
        """MilliSecondsBehindSource at the last commit; -1 (Debezium's initial value) before any."""
        last = self._last
        return -1 if last is None else max(last[2] // 1_000_000 - last[0], 0)

    @property
    def last_tx_id(self) -> str | None:
        last = self._last
        return None if last is None or last[1] is None else str(last[1])

    @property
    def last_event_mono(self) -> float | None:
        """The last commit on the `time.monotonic()` scale (it was read on the wall clock)."""
        last = self._last
        if last is None:
            return None
        return time.monotonic() - (_time_ns() - last[2]) / 1e9

    def total(self) -> int:
        return self.creates + self.updates + self.deletes + self.truncates


class ConnectorMetrics:
    """Both contexts of one connector; `plugin`/`server` label them as Debezium's MBean names do."""

    def __init__(
        self, plugin: str = "", server: str = "", queue_capacity: int = 8192, max_queue_bytes: int = 0
    ) -> None:
        self.plugin = plugin
        self.server = server
        self.queue_capacity = queue_capacity
        self.max_queue_bytes = max_queue_bytes
        self.snapshot = SnapshotMetrics()
        self.streaming = StreamingMetrics()
        self.source: Any = None  # the connector: offset() and captured_table_ids()
        self.lock = threading.Lock()

    @classmethod
    def for_config(cls, config) -> ConnectorMetrics:
        """The identity and queue capacities of a validated Config's connector (its typed settings)."""
        s = settings_for(config)
        return cls(
            PLUGINS.get(s.common.connector_class, s.connector),  # a class alias names the same plugin
            s.topics.prefix or "",
            s.tuning.max_queue_size,
            s.tuning.max_queue_size_in_bytes,
        )

    def configure(self, config) -> None:
        other = ConnectorMetrics.for_config(config)
        self.plugin, self.server = other.plugin, other.server
        self.queue_capacity, self.max_queue_bytes = other.queue_capacity, other.max_queue_bytes

    def _captured(self) -> list[str]:
        fn = getattr(self.source, "captured_table_ids", None)
        try:
            return sorted(fn()) if fn is not None else []
        except Exception:  # noqa: BLE001 - not connected yet
            return []

    def _position(self) -> dict[str, str] | None:
        fn = getattr(self.source, "offset", None)
        try:
            off = fn() if fn is not None else None
        except Exception:  # noqa: BLE001
            return None
        return None if off is None else {str(k): str(v) for k, v in off.items()}

    def as_dict(self) -> dict[str, dict[str, Any]]:
        """`{"snapshot": {MBean attribute: value}, "streaming": {...}}`."""
        now = time.monotonic()

        def since(mono: float | None) -> int:
            return -1 if mono is None else int((now - mono) * 1000)

        snap, st = self.snapshot, self.streaming
        captured = self._captured()
        queue = {
            "QueueTotalCapacity": self.queue_capacity,
            "QueueRemainingCapacity": self.queue_capacity,
            "MaxQueueSizeInBytes": self.max_queue_bytes,
            "CurrentQueueSizeInBytes": 0,
        }
        total_tables = len(snap.tables)
        return {
            "snapshot": {
                "MilliSecondsSinceLastEvent": since(snap.last_event_mono),
                "TotalNumberOfEventsSeen": snap.total_rows(),
                "NumberOfEventsFiltered": snap.filtered,
                "NumberOfErroneousEvents": 0,
                "CapturedTables": captured,
                **queue,
                "TotalTableCount": total_tables,
                "RemainingTableCount": max(total_tables - snap.done_tables, 0),
                "SnapshotRunning": snap.running,
                "SnapshotPaused": False,
                "SnapshotAborted": snap.aborted,
                "SnapshotCompleted": snap.completed,
                "SnapshotDurationInSeconds": snap.duration_s(),
                "SnapshotPausedDurationInSeconds": 0,
                "RowsScanned": dict(snap.rows),
            },
            "streaming": {
                "MilliSecondsSinceLastEvent": since(st.last_event_mono),
                "TotalNumberOfEventsSeen": st.total(),
                "TotalNumberOfCreateEventsSeen": st.creates,
                "TotalNumberOfUpdateEventsSeen": st.updates,
                "TotalNumberOfDeleteEventsSeen": st.deletes,
                "NumberOfEventsFiltered": st.filtered,
                "NumberOfErroneousEvents": 0,
                "CapturedTables": captured,
                **queue,
                "Connected": st.connected,
                "MilliSecondsBehindSource": st.behind_ms,
                "NumberOfCommittedTransactions": st.transactions,
                "SourceEventPosition": self._position(),
                "LastTransactionId": st.last_tx_id,
            },
        }
