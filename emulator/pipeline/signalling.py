"""The signal side every adapter has, wired in one place: the notifier (notification.enabled.channels), the
incremental-snapshot window machine and the signal processor, attached to the adapter's dispatcher (Debezium's
connector-common wires the same three for every connector: NotificationService, the incremental snapshot
change event source, SignalProcessor)."""

from __future__ import annotations

from typing import Any

from emulator.incremental.machine import IncrementalSnapshot
from emulator.notifications import Notifier
from emulator.signals.processor import SignalProcessor


def wire_signals(adapter: Any, typed: Any, engine: Any, filters: Any, signal_table: str | None) -> None:
    """Set ``adapter.notifier``, ``adapter.incremental`` and ``adapter.signals`` and attach them to
    ``adapter.dispatcher``; ``filters`` is the dialect's condition policy (SqlFilters for the relational
    adapters, QueryDocumentFilters for MongoDB), ``signal_table`` the captured signal collection (or None)."""
    adapter.notifier = Notifier(typed.notifications, adapter.settings, engine)
    adapter.incremental = IncrementalSnapshot(
        adapter,
        engine,
        incremental=typed.incremental,
        signal_table=typed.signals.data_collection,
        filters=filters,
        retriable=adapter.is_retriable,
        notifier=adapter.notifier,
    )
    adapter.signals = SignalProcessor(adapter, typed, engine, adapter.incremental)
    adapter.dispatcher.attach(adapter.incremental, adapter.signals, signal_table)
