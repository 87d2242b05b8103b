"""The MongoDB change-stream loop's pause when nothing comes: as Debezium's fetcher
(`BufferingChangeStreamCursor.EventFetcher.throttleIfNeeded`, Debezium 3.x), `poll.interval.ms` only after every
5th empty poll (THROTTLE_NO_MESSAGE_BEFORE_PAUSE = 5), not after each one: against a server an empty poll is a
getMore that already waited for changes, and a pause after each delayed the next change by up to
`poll.interval.ms`. On a recorded stream (no server here) an empty poll returns at once; the loop's waits are
counted by the engine's stop event. Expected values written by hand from that source."""

from __future__ import annotations

import threading
from pathlib import Path

from emulator.config import from_dict
from emulator.connectors.mongodb.connector import MongoDbConnector
from emulator.connectors.mongodb.streams import dumps
from emulator.engine import Engine
from emulator.offsets import MemoryOffsetStore
from emulator.outputs.memory import CallbackOutput


class _CountedStop(threading.Event):
    """The engine's stop event: records each wait's timeout and stops the loop after `limit` of them."""

    def __init__(self, limit: int) -> None:
        super().__init__()
        self.limit = limit
        self.waits: list[float | None] = []

    def wait(self, timeout: float | None = None) -> bool:
        self.waits.append(timeout)
        if len(self.waits) >= self.limit:
            self.set()
        return self.is_set()


def _waits(tmp_path: Path, **extra: str) -> list[float | None]:
    stream = tmp_path / "changestream.jsonl"
    stream.write_text(dumps({"_id": {"_data": "82630000"}, "operationType": "noop"}) + "\n")
    config = from_dict(
        {
            "connector.class": "io.debezium.connector.mongodb.MongoDbConnector",
            "mongodb.connection.string": stream.as_uri(),
            "topic.prefix": "fulfillment",
            "snapshot.mode": "no_data",
            **extra,
        }
    )
    engine = Engine(CallbackOutput(lambda r: None), MemoryOffsetStore())
    stop = engine.stop_event = _CountedStop(12)
    connector = MongoDbConnector(config, engine)
    connector.connect()
    try:
        connector.stream_changes()
    finally:
        connector.close()
    return stop.waits


def test_the_poll_interval_pause_comes_after_every_fifth_empty_poll(tmp_path: Path) -> None:
    assert _waits(tmp_path) == [0, 0, 0, 0, 0.5, 0, 0, 0, 0, 0.5, 0, 0]  # poll.interval.ms default 500


def test_the_pause_is_poll_interval_ms(tmp_path: Path) -> None:
    assert _waits(tmp_path, **{"poll.interval.ms": "200"})[3:6] == [0, 0.2, 0]
