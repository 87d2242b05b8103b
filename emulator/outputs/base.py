"""What every output offers the engine."""

from __future__ import annotations

from emulator.records import Record


class Output:
    """`write` may buffer; `flush` makes everything written so far visible to readers; `commit` returns
    only once everything written so far is durable (offsets are saved right after it)."""

    def write(self, record: Record) -> None:
        raise NotImplementedError

    def flush(self) -> None:
        pass

    def commit(self) -> None:
        self.flush()

    def close(self) -> None:
        self.commit()
