"""pgoutput TupleData straight to a row (`pgoutput.row_parser`): hand-built tuples, hand-written rows."""

from __future__ import annotations

import random

from pgoutput_tuples import tuple_data

from emulator.connectors.postgres import pgoutput as po


def same(t: str) -> str:
    return t


same.issame = True  # as the text types' converter: the row takes the decoded text as it is


def upper(t: str) -> str:
    return t.upper()


NAMES = ["id", "flag", "name", "code"]
CONVS = [int, "t".__eq__, same, upper]


def test_every_kind_of_column_and_null():
    parse = po.row_parser(4, NAMES, CONVS, [0, 1, 2, 3])
    msg = b"I\x00\x00\x00\x07N" + tuple_data(b"-42", b"t", "héllo".encode(), b"ab")
    assert parse(msg, 6) == {"id": -42, "flag": True, "name": "héllo", "code": "AB"}
    msg = b"I\x00\x00\x00\x07N" + tuple_data(b"7", b"f", None, None)
    row = parse(msg, 6)
    assert row == {"id": 7, "flag": False, "name": None, "code": None}
    assert list(row) == NAMES


def test_excluded_columns_are_skipped_in_the_row_order():
    # relation columns: a, (excluded), b, c -> row fields x=col 0, y=col 3, z=col 2
    parse = po.row_parser(4, ["x", "y", "z"], [int, same, same], [0, 3, 2])
    msg = tuple_data(b"1", b"secret", b"zz", b"yy")
    row = parse(msg, 0)
    assert row == {"x": 1, "y": "yy", "z": "zz"}
    assert list(row) == ["x", "y", "z"]


def test_what_it_does_not_handle_is_none():
    parse = po.row_parser(4, NAMES, CONVS, [0, 1, 2, 3])
    assert parse(tuple_data(b"1", b"t", "u", b"x"), 0) is None  # unchanged TOAST
    assert parse(tuple_data(b"1", b"t", b"x"), 0) is None  # another column count
    binary = tuple_data(b"1", b"t", b"x") + b"b\x00\x00\x00\x01y"
    binary = b"\x00\x04" + binary[2:]
    assert parse(binary, 0) is None


# -- straight to JSON (`pgoutput.row_json_parser`): the bytes orjson prints for the row dict, by hand ---------


def ident(t: str) -> str:
    return t


ident.is_identity = True  # as the text types' converter (left uncalled, decoded and printed)


JCONVS = [int, "t".__eq__, ident, upper]
VALUE = [
    ("id", 0, b"null", None),
    ("flag", 1, b"null", None),
    ("name", 2, b"null", None),
    ("code", 3, b"null", None),
]


def test_json_every_kind_of_column_escapes_and_null():
    parse = po.row_json_parser(4, JCONVS, [0, 1, 2, 3], VALUE, [("id", 0, b"null", None)])
    msg = b"I\x00\x00\x00\x07N" + tuple_data(b"-42", b"t", 'h\xe9 "q"\\\n\x01'.encode(), b"ab")
    assert parse(msg, 6) == (
        b'{"id":-42,"flag":true,"name":"h\xc3\xa9 \\"q\\"\\\\\\n\\u0001","code":"AB"}',
        b'{"id":-42}',
    )
    msg = b"I\x00\x00\x00\x07N" + tuple_data(b"7", b"f", None, None)
    assert parse(msg, 6) == (b'{"id":7,"flag":false,"name":null,"code":null}', b'{"id":7}')


def test_json_defaults_masks_key_only_and_excluded_columns():
    # relation columns: id, secret (excluded), flag, name, code; row fields id, flag, name, code
    value = [
        ("flag", 1, b"false", None),  # NULL prints the column's default (replace.null.with.default)
        ("name", 2, b"null", b'"****"'),  # masked: the mask whatever the value
        ("code", 3, b'"dflt"', None),
    ]  # id: key only (message.key.columns of a column left out of the value)
    key = [("id", 0, b"null", None), ("code", 3, b"null", None)]  # the key shows NULL as null
    parse = po.row_json_parser(5, JCONVS, [0, 2, 3, 4], value, key)
    msg = tuple_data(b"5", b"pw", None, b"alice", None)
    assert parse(msg, 0) == (b'{"flag":false,"name":"****","code":"dflt"}', b'{"id":5,"code":null}')
    msg = tuple_data(b"6", b"pw", b"t", None, b"x")
    assert parse(msg, 0) == (b'{"flag":true,"name":"****","code":"X"}', b'{"id":6,"code":"X"}')


def test_json_no_key_and_a_percent_in_a_name():
    parse = po.row_json_parser(1, [int], [0], [("a%d", 0, b"null", None)], None)
    assert parse(tuple_data(b"3"), 0) == (b'{"a%d":3}', None)


def test_json_what_it_does_not_handle_is_none():
    parse = po.row_json_parser(4, JCONVS, [0, 1, 2, 3], VALUE, None)
    assert parse(tuple_data(b"1", b"t", "u", b"x"), 0) is None  # unchanged TOAST
    assert parse(tuple_data(b"1", b"t", b"x"), 0) is None  # another column count


def test_json_of_timestamptz_and_numeric_from_bytes():
    from emulator.connectors.postgres.types.numeric import numeric_fixed_precise
    from emulator.connectors.postgres.types.temporal import zoned_timestamp

    ts = zoned_timestamp(6).json
    assert ts(b"2024-01-01 00:00:01+00") == b'"2024-01-01T00:00:01.000000Z"'
    assert ts(b"2024-01-01 00:00:01.5+00") == b'"2024-01-01T00:00:01.500000Z"'
    assert ts(b"2024-01-01 00:00:01.123456+00") == b'"2024-01-01T00:00:01.123456Z"'
    assert zoned_timestamp(3).json(b"2024-01-01 00:00:01.123456+00") == b'"2024-01-01T00:00:01.123Z"'
    assert ts(b"2024-01-01 02:00:01+02") == b'"2024-01-01T00:00:01.000000Z"'  # not UTC: the converter
    assert ts(b"infinity") == b'"infinity"'
    num = numeric_fixed_precise(2).json
    assert num(b"1.25") == b'"fQ=="'  # unscaled 125 = 0x7d
    assert num(b"-1.5") == b'"/2o="'  # -150, rescaled to the column's scale
    assert num(b"3") == b'"ASw="'  # 300
    assert num(b"NaN") == b"null"


def test_wide_tuples_with_nulls_anywhere():
    # columns followed by four or more are read with their length in one unpack: NULLs there and at the end
    names = [f"c{i}" for i in range(8)]
    parse = po.row_parser(8, names, [int] * 8, list(range(8)))
    jparse = po.row_json_parser(
        8, [int] * 8, list(range(8)), [(c, i, b"null", None) for i, c in enumerate(names)], None
    )
    for cols in (
        (None, b"1", None, None, b"22", None, None, None),
        (b"0", None, None, None, None, None, None, b"7"),
        (None,) * 8,
    ):
        msg = tuple_data(*cols)
        assert parse(msg, 0) == {c: None if v is None else int(v) for c, v in zip(names, cols)}
        text = ",".join(f'"{c}":{"null" if v is None else v.decode()}' for c, v in zip(names, cols))
        assert jparse(msg, 0) == (("{" + text + "}").encode(), None)


def test_line_parser_puts_row_lsn_and_times_into_the_transaction_format():
    # the envelope's line format (its shape: key slot, after and source slots, tx, three times) and a source
    # template with `%d` at the LSN's two places and an escaped `%`; the expected line is written by hand
    env_format = (
        b'{"key":{"p":%b},"value":{"s":"%%x","payload":{"before":null,"after":%b,"source":%b,'
        b'"transaction":%b,"op":"c","ts_ms":%d,"ts_us":%d,"ts_ns":%d}}}\n'
    )
    parse = po.row_json_parser(4, JCONVS, [0, 1, 2, 3], VALUE, [("id", 0, b"null", None)])
    fmt = po.line_format(env_format, parse.value_format, b'{"seq":"[\\"1\\",\\"%d\\"]","n":"a%%b","lsn":%d}')
    msg = b"I\x00\x00\x00\x07N" + tuple_data(b"-42", b"t", b"x%d", None)
    line, klen = parse.line(msg, 6, fmt, 77, b"null", 1_700_000_000_123_456_789)
    assert line == (
        b'{"key":{"p":{"id":-42}},"value":{"s":"%x","payload":{"before":null,'
        b'"after":{"id":-42,"flag":true,"name":"x%d","code":null},'
        b'"source":{"seq":"[\\"1\\",\\"77\\"]","n":"a%b","lsn":77},"transaction":null,"op":"c",'
        b'"ts_ms":1700000000123,"ts_us":1700000000123456,"ts_ns":1700000000123456789}}}\n'
    )
    assert klen == len(b'{"id":-42}')
    assert (
        parse.line(b"I\x00\x00\x00\x07N" + tuple_data(b"1", "u", b"x", b"y"), 6, fmt, 1, b"null", 0) is None
    )
    assert po.line_format(b'{"after":%b}', parse.value_format, b"{}") is None  # not the envelope's shape


def test_line_parser_on_a_real_envelope_makes_changes_record():
    # the envelope's own line format (TableEnvelope._after_formats, what the stream reads) around a parsed
    # tuple and a source template gives the line, key and value `TableEnvelope.change` makes for the row
    # (the dict path the recorded conformance cases check), timestamps aside
    import re

    import orjson

    from emulator.connect.schema import Schema
    from emulator.connectors.postgres.source import SOURCE_SCHEMA
    from emulator.envelope import EnvelopeSettings, LineRecord, TableEnvelope
    from emulator.model import ColumnDef, TableDef

    cols = [
        ColumnDef("id", Schema("int64"), int),
        ColumnDef("name", Schema("string", optional=True), str),
        ColumnDef("n", Schema("int32", optional=True, default=5), int),
    ]
    settings = EnvelopeSettings(prefix="p", connector_name="postgresql", source_schema=SOURCE_SCHEMA)
    env = TableEnvelope(settings, TableDef("public", "t", cols, ["id"]))
    value, key = env.json_fields()
    parse = po.row_json_parser(3, [int, ident, int], [0, 1, 2], value, key)
    source = {
        "version": "3.6.3.Final",
        "connector": "postgresql",
        "name": "p",
        "lsn": 91,
        "seq": '["1","91"]',
    }
    tmpl = orjson.dumps(dict(source, lsn=123456, seq='["1","123456"]')).replace(b"123456", b"%d")
    ts = re.compile(rb'"ts_(ms|us|ns)":\d+')
    msg = b"U\x00\x00\x00\x07N" + tuple_data(b"3", b'a "b"', None)
    for op in ("c", "u"):
        fmt, vstart, vtail = env._after_formats[op]
        line, klen = parse.line(msg, 6, po.line_format(fmt, parse.value_format, tmpl), 91, b"null", 10**18)
        got = LineRecord(env.topic, line, klen, vstart + klen, vtail, settings.context_headers)
        row = {"id": 3, "name": 'a "b"', "n": None}
        want = env.change(op, None, row, source, None, env.key_of(row))
        assert ts.sub(b"", got.line()) == ts.sub(b"", want.line())
        assert (got.key, ts.sub(b"", got.value)) == (want.key, ts.sub(b"", want.value))


def test_generic_tuples_of_every_width_with_nulls_toast_and_bytes_after():
    """The generic list parser (old rows, DELETEs, fallbacks): kind and length read by one unpack where four
    more columns follow, so a NULL or TOAST column there reads the next columns' bytes with it."""
    rnd = random.Random(3)
    for _ in range(600):
        n = rnd.randint(1, 14)
        choices = [None, "u", b"", b"n", b"t", b"x" * rnd.randint(1, 300), "é".encode()]
        cols = [rnd.choice(choices[: rnd.choice([2, 7])]) for _ in range(n)]  # some all NULL or TOAST
        tail = rnd.choice([b"", b"N", b"Nt\x00\x00"])
        msg = b"xy" + tuple_data(*cols) + tail
        values, end, toast = po.parse_tuple_ex(msg, 2)
        want = [None if c is None else po.UNCHANGED_TOAST if c == "u" else c.decode() for c in cols]
        assert values == want, cols
        assert end == len(msg) - len(tail)
        assert toast == ("u" in cols)


def test_json_old_key_tuple_reads_only_what_the_identity_sends():
    # a DELETE's old-key tuple (REPLICA IDENTITY DEFAULT): relation columns id (identity), secret (excluded),
    # flag, name, code; the fields outside the identity are constants (their fallbacks), and the tuple must
    # hold a value where the identity is and NULL elsewhere, or the parser hands it back (None)
    value = [("id", 0, b"null", None), ("flag", 1, b"false", b"false"), ("name", 2, b"null", b'""')]
    value.append(("code", 3, b"null", b"null"))
    parse = po.row_json_parser(
        5, JCONVS, [0, 2, 3, 4], value, [("id", 0, b"null", None)], exact=frozenset({0})
    )
    assert parse(tuple_data(b"9", None, None, None, None), 0) == (
        b'{"id":9,"flag":false,"name":"","code":null}',
        b'{"id":9}',
    )
    assert parse(tuple_data(None, None, None, None, None), 0) is None  # the identity's column NULL
    assert parse(tuple_data(b"9", None, b"t", None, None), 0) is None  # a value outside the identity
    assert parse(tuple_data(b"9", b"pw", None, None, None), 0) is None  # ... in a column left out too
    assert parse(tuple_data(b"9", None, None, None, "u"), 0) is None
    assert "_M" not in parse.__globals__  # read by the walk alone
