"""The binlog stream shows a transaction to readers as soon as it ended and nothing more arrived (the output is
flushed right after its XID event), not at the server's next heartbeat, 100 ms after the last event — at 100
tx/s that heartbeat never came and the lines waited for a full 256 KiB buffer (p50 256 ms, docs/latency.md).
Observed with hooks on the reader's `read` and the engine's `idle`; the database is real."""

from __future__ import annotations

import pytest

from emulator.api import Capture
from emulator.connectors.mysql import binlog as bl
from emulator.offsets import MemoryOffsetStore
from emulator.testing import mariadbserver

pytestmark = pytest.mark.skipif(
    not mariadbserver.available(),
    reason="MariaDB server binaries not installed (scripts/setup.sh installs them)",
)


def test_a_transaction_is_flushed_right_after_its_xid(tmp_path, monkeypatch):
    last_read: list[int] = []
    read = bl.BinlogReader.read

    def noted(self):
        ev = read(self)
        last_read.append(ev[0])
        return ev

    monkeypatch.setattr(bl.BinlogReader, "read", noted)
    with mariadbserver.MariaDbServer() as db:
        db.sql("CREATE DATABASE fl")
        db.sql("CREATE TABLE t (id INT PRIMARY KEY, v VARCHAR(20))", "fl")
        props = db.connector_properties(
            **{
                "database.include.list": "fl",
                "topic.prefix": "p",
                "schema.history.internal.file.filename": str(tmp_path / "history.dat"),
                "snapshot.mode": "no_data",
            }
        )
        cap = Capture(props, offsets=MemoryOffsetStore()).start()
        try:
            engine = cap.runner.connector.engine
            idle = engine.idle
            before = engine.records  # start() returned streaming: the schema change records are written
            first: list[int] = []  # the event read last when idle() first came with the row written

            def hooked() -> None:
                if engine.records > before and not first:
                    first.append(last_read[-1])
                    engine.stop()
                idle()

            engine.idle = hooked
            db.sql("INSERT INTO t VALUES (1, 'x')", "fl")
            cap.thread.join(60)
            assert not cap.thread.is_alive(), "idle() never came after the row"
        finally:
            cap.stop()
    assert first == [bl.XID]  # not HEARTBEAT: the flush did not wait for the server's heartbeat
