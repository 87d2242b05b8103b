"""What every output offers the engine."""

from __future__ import annotations

from emulator.records import Record


class Output:
    """`write` may buffer; `flush` makes everything written so far visible to readers; `commit` returns
    only once everything written so far is durable (offsets are saved right after it), or returns False
    when it gave up waiting (Kafka: `offset.flush.timeout.ms`), and then the offsets are not saved."""

    def write(self, record: Record) -> None:
        raise NotImplementedError

    def flush(self) -> None:
        pass

    def commit(self) -> None:
        self.flush()

    def close(self) -> None:
        self.commit()
