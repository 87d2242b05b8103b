"""`snapshot.max.threads.multiplier` and `snapshot.max.threads.multiplier.<table id>` (Debezium 3.6.3's
CommonConnectorConfig): what is accepted, what is refused, and when they put the snapshot on Debezium's
chunked path (RelationalSnapshotChangeEventSource.isUseNonChunkedSnapshots: one thread and every multiplier
1, or legacy.snapshot.max.threads). The records are checked against recordings in
tests/data/{pg,mariadb}/cases/snapshot_max_threads_multiplier*."""

from __future__ import annotations

import pytest

from emulator.config import ConfigError, from_dict
from emulator.pipeline.snapshot_chunks import chunked, chunked_path

MY = {
    "connector.class": "io.debezium.connector.mysql.MySqlConnector",
    "topic.prefix": "dbserver1",
    "database.hostname": "127.0.0.1",
    "database.user": "root",
    "database.server.id": "184054",
}


def path(**props: str) -> bool:
    cfg = from_dict({**MY, **props})
    threads = int(props.get("snapshot.max.threads", "1"))
    legacy = props.get("legacy.snapshot.max.threads", "false") == "true"
    return chunked_path(cfg, threads, legacy)


def test_one_thread_is_chunked_only_with_a_multiplier_above_one():
    assert not path()
    assert not path(**{"snapshot.max.threads.multiplier": "1"})
    assert path(**{"snapshot.max.threads.multiplier": "2"})
    assert path(**{"snapshot.max.threads.multiplier.inventory.t_b": "3"})
    assert not path(**{"snapshot.max.threads.multiplier.inventory.t_b": "1"})
    assert path(**{"snapshot.max.threads": "2"})


def test_legacy_keeps_one_thread_unchunked():
    assert not path(**{"snapshot.max.threads.multiplier": "4", "legacy.snapshot.max.threads": "true"})
    assert path(**{"snapshot.max.threads": "2", "legacy.snapshot.max.threads": "true"})


def test_a_keyed_table_of_two_or_more_rows_is_in_key_order_on_the_chunked_path():
    # one chunk is bounded by the table's maximum key (ChunkBoundaryCalculator.createChunks), so ordered too
    assert [chunked(rows, 1) for rows in (0, 1, 2, 3, 1000)] == [False, False, True, True, True]


@pytest.mark.parametrize(
    "prop, value",
    [
        ("snapshot.max.threads.multiplier", "0"),
        ("snapshot.max.threads.multiplier", "two"),
        ("snapshot.max.threads.multiplier.inventory.t_b", "0"),
        ("snapshot.max.threads.multiplier.inventory.t_b", "x"),
    ],
)
def test_values_below_one_or_not_integers_are_refused(prop, value):
    with pytest.raises(ConfigError) as e:
        from_dict({**MY, prop: value})
    assert e.value.property == prop
