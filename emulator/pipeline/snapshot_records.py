"""A snapshot read's record (`op` "r") from parts made once per table and marker.

Every snapshot record of a table with one `source.snapshot` marker has the same bytes but for its `after`,
its key and its three timestamps: the value is `head + {"before":null,"after":A,"source":S,...} + tail`
with the source block S fixed for the snapshot (PostgreSQL) - so the whole value is one bytes `%` format per
(table, marker) with the source serialized into it once (emulator.envelope_format, which makes the streamed
records' formats too), and a row costs one dumps of its `after`, one of its key and one format (one copy of
the ~4 KB schema head), where `TableEnvelope.change` builds a payload
dict around the source dict and serializes both for every row. The bytes are `change("r", None, after,
source, None, key)`'s (tests/test_snapshot_records.py compares them); only for `TableEnvelope` itself (a
`StructuredTableEnvelope` hands the data plane dicts, not bytes).
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

import orjson

from emulator.envelope import TableEnvelope
from emulator.envelope_format import payload_format, value_format
from emulator.records import Record

_dumps = orjson.dumps
_time_ns = time.time_ns


def bytes_records(env: Any) -> bool:
    """Whether a table's records are made here (its envelope serializes them itself)."""
    return type(env) is TableEnvelope


class ReadRecords:
    """One table's snapshot records. `source_of(mark)`: the source block of its rows with that marker.

    `record(row, mark)`: the record of a row as read (the connector's snapshot row); `framed(key_json,
    payload)`: the record from a key and a payload already serialized (forked readers send those:
    `parts(row, mark)`)."""

    __slots__ = (
        "env",
        "_source_of",
        "_formats",
        "_payloads",
        "_key_head",
        "_key_tail",
        "_value_head",
        "_value_tail",
        "_topic",
        "_headers",
        "_value_of",
    )

    def __init__(self, env: TableEnvelope, source_of: Callable[[str], dict]) -> None:
        self.env = env
        self._source_of = source_of
        self._formats: dict[str, bytes] = {}  # the whole value's, per marker
        self._payloads: dict[str, bytes] = {}  # the payload's, per marker
        self._value_head, self._value_tail = env.value_frame.head, env.value_frame.tail
        kf = env.key_frame
        self._key_head = kf.head if kf is not None else b""
        self._key_tail = kf.tail if kf is not None else b""
        self._topic = env.topic
        self._headers = env.settings.context_headers
        # change()'s own steps between the row and its `after` (key-only columns out, NULLs of columns
        # with a default printed as the default), only for tables that have them
        if env.key_only or env.null_defaults:
            value_part, defaults = env.value_part, env._null_defaults
            self._value_of = lambda after: defaults(value_part(after))
        else:
            self._value_of = None

    def payload_format(self, mark: str) -> bytes:
        fmt = self._payloads.get(mark)
        if fmt is None:
            src = _dumps(self._source_of(mark))
            fmt = payload_format(before=b"null", source=src, transaction=b"null", op="r")
            self._payloads[mark] = fmt
        return fmt

    def value_format(self, mark: str) -> bytes:
        fmt = self._formats.get(mark)
        if fmt is None:
            fmt = value_format(self.env.value_frame, self.payload_format(mark))
            self._formats[mark] = fmt
        return fmt

    def record(self, row: list, mark: str) -> Record:
        env = self.env
        after = env.snapshot_row(row)
        key = env.key_of(after)
        if self._value_of is not None:
            after = self._value_of(after)
        fmt = self._formats.get(mark) or self.value_format(mark)
        ns = _time_ns()
        value = fmt % (_dumps(after), ns // 1_000_000, ns // 1_000, ns)
        if key is None:
            return Record(self._topic, None, value, self._headers)
        return Record(
            self._topic, b"".join((self._key_head, _dumps(key), self._key_tail)), value, self._headers
        )

    def parts(self, row: list, mark: str) -> tuple[bytes | None, bytes]:
        """A row's key and payload serialized, without their schemas (what a forked reader sends: the
        formatting stays with the readers, the parent only frames)."""
        env = self.env
        after = env.snapshot_row(row)
        key = env.key_of(after)
        if self._value_of is not None:
            after = self._value_of(after)
        fmt = self._payloads.get(mark) or self.payload_format(mark)
        ns = _time_ns()
        return (None if key is None else _dumps(key)), fmt % (_dumps(after), ns // 1_000_000, ns // 1_000, ns)

    def framed(self, key_json: bytes | None, payload: bytes) -> Record:
        value = b"".join((self._value_head, payload, self._value_tail))
        if key_json is None:
            return Record(self._topic, None, value, self._headers)
        return Record(self._topic, b"".join((self._key_head, key_json, self._key_tail)), value, self._headers)
