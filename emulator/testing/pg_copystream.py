"""Recorded pgoutput messages replayed through `PostgresConnector._stream`, the connector's own read loop, without
a server: the replication stream object it reads, for a benchmark (bench/bench_pg_path.py) and the tests that
compare its ways of writing a change (tests/test_pg_msg_c.py)."""

from __future__ import annotations

from collections.abc import Callable


def copy_messages(msgs: list[tuple[int, bytes]]) -> list[tuple[int, memoryview]]:
    """What psycopg's `get_copy_data` gives for each (lsn, message): its length and the XLogData CopyData
    message as a memoryview ('w', start LSN, end LSN, send time, then the message)."""
    return [(len(m) + 25, memoryview(b"w" + lsn.to_bytes(8, "big") * 2 + bytes(8) + m)) for lsn, m in msgs]


class CopyStream:
    """The replication stream `_stream` reads: `copies` (`copy_messages`) one by one, then none; its `read`,
    called when no message is waiting, flushes and calls `stop` (the engine's), which ends the loop. Status
    updates are never due."""

    server_wal_end = 0

    def __init__(self, copies: list[tuple[int, memoryview]], stop: Callable[[], None]) -> None:
        it = iter(copies)
        end = (0, None)

        def get(_async: int):
            return next(it, end)

        def read(_timeout: float, flush) -> None:
            flush()
            stop()

        self.pgconn = type("PgConn", (), {})()
        self.pgconn.get_copy_data = get
        self.read = read

    def start(self, _lsn: int) -> None:
        return None

    def status_due(self, _interval: float) -> bool:
        return False

    def send_status(self, _lsn: int) -> None:
        return None
