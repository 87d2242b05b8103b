"""emulator.pipeline.snapshot_records: a snapshot read's record from per-table, per-marker parts is byte for
byte `TableEnvelope.change("r", None, after, source, None, key)` (whose records the conformance suites
compare with real Debezium), but for the timestamps, which are the time of the call. Tables with a masked
column (null_fill), a key column the column filters exclude (key_only), a NULL printed as its default and no
key; a `%` in a name and in the source, which the bytes formats must keep literal. The same for a row's
directory line (`ReadRecords.line`, what forked readers send when the output takes lines)."""

from __future__ import annotations

import re

import orjson
import pytest

from emulator.connect.schema import Schema
from emulator.envelope import EnvelopeSettings, TableEnvelope
from emulator.envelope_format import HEAD_MARK
from emulator.model import ColumnDef, TableDef
from emulator.pipeline.snapshot_records import LineBatch, ReadRecords, bytes_records

TS = re.compile(rb'"ts_(ms|us|ns)":\d+')
SOURCE = {"version": "3.6.3.Final", "connector": "postgresql", "name": "p%d", "snapshot": None, "lsn": 42}


def _ident(v):
    return v


def _table(key_only: bool = False, keyless: bool = False) -> TableDef:
    cols = [
        ColumnDef("id", Schema("int32"), int),
        ColumnDef("v%s", Schema("string", optional=True), _ident),
        ColumnDef("d", Schema("int32", optional=True, default=7), int),
        ColumnDef("m", Schema("string", optional=True), _ident, null_value="***"),
    ]
    return TableDef(
        "s", "t%", cols, [] if keyless else ["id"], key_only=frozenset({"id"}) if key_only else frozenset()
    )


def _source(mark: str) -> dict:
    return {**SOURCE, "snapshot": mark}


def _without_ts(value: bytes) -> dict:
    v = orjson.loads(value)
    for k in ("ts_ms", "ts_us", "ts_ns"):
        assert isinstance(v["payload"].pop(k), int)
    return v


@pytest.mark.parametrize("key_only", [False, True])
@pytest.mark.parametrize("keyless", [False, True])
def test_records_are_changes_bytes(key_only, keyless):
    settings = EnvelopeSettings(prefix="p", connector_name="postgresql", source_schema=Schema("string"))
    env = TableEnvelope(settings, _table(key_only and not keyless, keyless))
    assert bytes_records(env)
    rr = ReadRecords(env, _source)
    for row in (["1", "a%sb", None, "x"], ["2", None, "3", None]):
        for mark in ("first", "true", "last"):
            after = env.snapshot_row(list(row))
            want = env.change("r", None, after, _source(mark), None, env.key_of(after))
            for got in (rr.record(list(row), mark), rr.framed(*rr.parts(list(row), mark))):
                assert (got.topic, got.key, got.headers) == (want.topic, want.key, want.headers)
                assert _without_ts(got.value) == _without_ts(want.value)
                head = want.value[: want.value.index(b'"ts_ms"')]
                assert got.value[: len(head)] == head  # bytes, not just the same JSON
            # the directory line a forked reader sends: the record's line() but for the timestamps, once the
            # value's schema head is put back in place of its mark (LineBatch, for many lines at once)
            compact = rr.line(list(row), mark)
            assert len(TS.sub(b"", compact)) == len(TS.sub(b"", want.line())) - len(env.value_frame.head) + 1
            for got_line in (
                compact.replace(HEAD_MARK, env.value_frame.head),
                LineBatch("t", compact + compact, env.value_frame.head, None).line(),
            ):
                assert TS.sub(b"", got_line) == TS.sub(b"", want.line() * (len(got_line) // len(want.line())))
    # written by hand: the NULL of `d` printed as its default, the mask, and `id` only in the key when key_only
    after = orjson.loads(rr.record(["2", None, None, None], "true").value)["payload"]["after"]
    assert after == ({} if key_only and not keyless else {"id": 2}) | {"v%s": None, "d": 7, "m": "***"}


def test_structured_envelopes_are_not_made_here():
    settings = EnvelopeSettings(
        prefix="p", connector_name="postgresql", source_schema=Schema("string"), structured=True
    )
    assert not bytes_records(TableEnvelope(settings, _table()))
