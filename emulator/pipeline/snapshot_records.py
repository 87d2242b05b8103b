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
from emulator.envelope_format import HEAD_MARK, line_format, payload_format, value_format
from emulator.outputs.directory import DirectoryOutput
from emulator.records import Record, headers_json

_dumps = orjson.dumps
_time_ns = time.time_ns


def bytes_records(env: Any) -> bool:
    """Whether a table's records are made here (its envelope serializes them itself)."""
    return type(env) is TableEnvelope


def writes_lines(engine: Any) -> bool:
    """Whether the engine's output takes records as their directory lines and nothing else (`LineBatch`):
    the directory output with no data plane (transforms, converters) between."""
    return engine.dataplane is None and type(engine.output) is DirectoryOutput


class LineBatch(Record):
    """Several snapshot records of one topic as their directory lines, made by a forked reader in compact form
    (`ReadRecords.line`: HEAD_MARK for the value's schema head, which one `replace` puts back here), for an
    output that only writes `line()` (`writes_lines`): one write for all of them. No key or value of its
    own (None): nothing but the directory output may be handed one."""

    __slots__ = ("_lines", "_head")

    def __init__(self, topic: str, lines, head: bytes, headers) -> None:
        super().__init__(topic, None, None, headers)
        self._lines = lines  # bytes-like
        self._head = head

    def line(self) -> bytes:
        return bytes(self._lines).replace(HEAD_MARK, self._head)


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
        "_lines",
        "_headers_tail",
    )

    def __init__(self, env: TableEnvelope, source_of: Callable[[str], dict]) -> None:
        self.env = env
        self._source_of = source_of
        self._formats: dict[str, bytes] = {}  # the whole value's, per marker
        self._payloads: dict[str, bytes] = {}  # the payload's, per marker
        self._lines: dict[str, bytes] = {}  # the compact directory line's, per marker
        self._value_head, self._value_tail = env.value_frame.head, env.value_frame.tail
        kf = env.key_frame
        self._key_head = kf.head if kf is not None else b""
        self._key_tail = kf.tail if kf is not None else b""
        self._topic = env.topic
        self._headers = env.settings.context_headers
        self._headers_tail = headers_json(self._headers) if self._headers else None
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

    def line_format(self, mark: str) -> bytes:
        fmt = self._lines.get(mark)
        if fmt is None:
            env = self.env
            pay = self.payload_format(mark)
            fmt = line_format(env.key_frame, env.value_frame, pay, self._headers_tail, compact=True)[0]
            self._lines[mark] = fmt
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

    def line(self, row: list, mark: str) -> bytes:
        """A row's record as the directory output's line in compact form (`record(row, mark).line()`'s bytes
        with HEAD_MARK for the value's schema head): what a forked reader sends when the output takes lines
        (`writes_lines`; ~1 KB instead of ~4.7 KB a row through the pipe for bench_pg.py's table)."""
        env = self.env
        after = env.snapshot_row(row)
        key = env.key_of(after)
        if self._value_of is not None:
            after = self._value_of(after)
        fmt = self._lines.get(mark) or self.line_format(mark)
        ns = _time_ns()
        if key is None:
            return fmt % (_dumps(after), ns // 1_000_000, ns // 1_000, ns)
        return fmt % (_dumps(key), _dumps(after), ns // 1_000_000, ns // 1_000, ns)

    def framed(self, key_json: bytes | None, payload: bytes) -> Record:
        value = b"".join((self._value_head, payload, self._value_tail))
        if key_json is None:
            return Record(self._topic, None, value, self._headers)
        return Record(self._topic, b"".join((self._key_head, key_json, self._key_tail)), value, self._headers)
