"""Session 21's PostgreSQL settings at the front door and the row-count order's sort (the records are checked by the
pg cases snapshot_locking_shared, snapshot_order_by_row_count_*, converting_*, processing_failure_*, each recorded
from Debezium 3.6.3)."""

from __future__ import annotations

import pytest

from emulator.config import from_dict
from emulator.connectors.postgres.snapshot_tables import by_row_count
from emulator.settings import settings_for
from emulator.settings.errors import ConfigError

BASE = {
    "connector.class": "io.debezium.connector.postgresql.PostgresConnector",
    "database.hostname": "127.0.0.1",
    "database.user": "u",
    "database.dbname": "d",
    "topic.prefix": "p",
    "plugin.name": "pgoutput",
}


@pytest.mark.parametrize(
    "prop,value",
    [
        ("snapshot.locking.mode", "shared"),
        ("snapshot.tables.order.by.row.count", "ascending"),
        ("snapshot.tables.order.by.row.count", "descending"),
        ("event.converting.failure.handling.mode", "fail"),
        ("event.converting.failure.handling.mode", "skip"),
        ("event.processing.failure.handling.mode", "warn"),
        ("event.processing.failure.handling.mode", "skip"),
    ],
)
def test_accepted_on_postgres(prop: str, value: str) -> None:
    from_dict({**BASE, prop: value})


@pytest.mark.parametrize("mode", ["warn", "skip", "fail"])
def test_processing_modes_with_snapshot_threads_are_accepted(mode: str) -> None:
    # (refused until session 23; pg case processing_failure_snapshot_threads)
    from_dict({**BASE, "event.processing.failure.handling.mode": mode, "snapshot.max.threads": "2"})


def test_still_refused() -> None:
    for prop, value in (
        ("snapshot.locking.mode", "custom"),
        ("schema.refresh.mode", "columns_diff_exclude_unchanged_toast"),
    ):
        with pytest.raises(ConfigError):
            from_dict({**BASE, prop: value, "snapshot.locking.mode.custom.name": "x"})


def _rel(order: str):
    return settings_for(from_dict({**BASE, "snapshot.tables.order.by.row.count": order})).relational


def test_the_sort_is_stable_both_ways() -> None:
    counts = {"a": 2, "b": 5, "c": 3, "d": 2, "e": 0}
    items = list(counts)
    assert by_row_count(_rel("descending"), items, counts.get) == ["b", "c", "a", "d", "e"]
    assert by_row_count(_rel("ascending"), items, counts.get) == ["e", "a", "d", "c", "b"]
    assert by_row_count(_rel("disabled"), items, counts.get) == items
