"""`TableEnvelope.change_json` (rows given as JSON text, the pgoutput stream's path) makes the same record as
`change` (rows as dicts, checked against Debezium's recordings elsewhere): key, value and line, a keyed and
a keyless table, a default and a transaction block."""

from __future__ import annotations

import re

import orjson
import pytest

from emulator.connect.schema import Schema
from emulator.connectors.postgres.source import SOURCE_SCHEMA
from emulator.envelope import EnvelopeSettings, LineRecord, TableEnvelope
from emulator.model import ColumnDef, TableDef

SOURCE = {"version": "3.6.3.Final", "connector": "postgresql", "name": "p%d", "lsn": 7}
TS = re.compile(rb'"ts_(ms|us|ns)":\d+')


def table(key: list[str]) -> TableEnvelope:
    cols = [
        ColumnDef("id", Schema("int64"), int),
        ColumnDef("name", Schema("string", optional=True), str),
        ColumnDef("n", Schema("int32", optional=True, default=5), int),
    ]
    s = EnvelopeSettings(prefix="p%d", connector_name="postgresql", source_schema=SOURCE_SCHEMA)
    return TableEnvelope(s, TableDef("public", "t", cols, key))


@pytest.mark.parametrize("key", [["id"], []], ids=["keyed", "keyless"])
@pytest.mark.parametrize("tx", [None, {"id": "1:2", "total_order": 1, "data_collection_order": 1}])
def test_change_json_is_change(key, tx):
    env = table(key)
    row = {"id": 3, "name": 'a "b"', "n": None}  # n NULL: printed as its default, 5
    after = b'{"id":3,"name":"a \\"b\\"","n":5}'
    k = b'{"id":3}' if key else None
    for op in ("c", "u"):
        want = env.change(op, None, row, SOURCE, tx, env.key_of(row))
        got = env.change_json(op, after, orjson.dumps(SOURCE), tx, k)
        assert isinstance(got, LineRecord)
        assert got.key == want.key
        assert TS.sub(b"", got.value) == TS.sub(b"", want.value)
        assert TS.sub(b"", got.line()) == TS.sub(b"", want.line())
        assert (got.topic, got.headers, got.partition, got.binary) == (want.topic, want.headers, None, False)
    assert [f[:3] for f in env.json_fields()[0]] == [("id", 0, b"null"), ("name", 1, b"null"), ("n", 2, b"5")]


@pytest.mark.parametrize("key", [["id"], []], ids=["keyed", "keyless"])
@pytest.mark.parametrize("tx", [None, {"id": "1:2", "total_order": 1, "data_collection_order": 1}])
def test_change_json_old_and_tombstone_json_are_change_and_tombstone(key, tx):
    # an UPDATE with its old row (REPLICA IDENTITY FULL) and a DELETE, rows and key as JSON text
    env = table(key)
    old = {"id": 3, "name": None, "n": 7}
    new = {"id": 3, "name": "x%sy", "n": None}
    old_json, new_json = b'{"id":3,"name":null,"n":7}', b'{"id":3,"name":"x%sy","n":5}'
    k = b'{"id":3}' if key else None
    for op, before, after, after_json in (("u", old, new, new_json), ("d", old, None, b"null")):
        want = env.change(op, before, after, SOURCE, tx, env.key_of(old))
        got = env.change_json_old(op, old_json, after_json, orjson.dumps(SOURCE), tx, k)
        assert isinstance(got, LineRecord)
        assert got.key == want.key
        assert TS.sub(b"", got.value) == TS.sub(b"", want.value)
        assert TS.sub(b"", got.line()) == TS.sub(b"", want.line())
        assert (got.topic, got.headers) == (want.topic, want.headers)
    want, got = env.tombstone(env.key_of(old)), env.tombstone_json(k)
    assert (got.topic, got.key, got.value, got.headers, got.line()) == (
        want.topic,
        want.key,
        want.value,
        want.headers,
        want.line(),
    )
