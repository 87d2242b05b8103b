"""UPDATEs with unchanged TOAST values, or under REPLICA IDENTITY FULL with a key printing a default, read
straight to JSON (`pgoutput_toast.update_json_parser`): hand-built messages, hand-written JSON. What Debezium
prints for them is recorded in the pg cases `toast_full_notx`, `full_identity_notx_skip` (old row's value
under FULL, the placeholder without it) and `key_null_prints_default` (NULL -> default is a key change)."""

from __future__ import annotations

from types import SimpleNamespace

from pgoutput_tuples import tuple_data

from emulator.connectors.postgres import pgoutput as po
from emulator.connectors.postgres import table_parsers as tp
from emulator.connectors.postgres.pgoutput_toast import update_json_parser


def ident(t: str) -> str:
    return t


ident.is_identity = True  # a text type's converter: the text as it is


def upper(t: str) -> str:
    return t.upper()


def nan_is_null(t: str):
    return None if t == "NaN" else t


# id int (key), big text, n int printing 5 for NULL, code (converted), sec (masked: a constant)
CONVS = [int, ident, int, upper, ident]
VALUE = [
    ("id", 0, b"null", None),
    ("big", 1, b"null", None),
    ("n", 2, b"5", None),
    ("code", 3, b"null", None),
    ("sec", 4, b"null", b'"***"'),
]
KEY = [("id", 0, b"null", None)]
PLACEHOLDERS = ["__gone", "__gone", None, "__gone", "__gone"]


def full(value=VALUE, key=KEY, convs=CONVS, placeholders=PLACEHOLDERS):
    return update_json_parser(len(convs), convs, list(range(len(convs))), value, key, placeholders, True)


def test_full_update_takes_an_unchanged_toast_value_from_the_old_row():
    parse = full()
    old = tuple_data(b"1", b"long text", b"3", b"ab", b"s")
    new = tuple_data(b"1", "u", None, "u", "u")
    assert parse(b"O" + old + b"N" + new, 1) == (
        b'{"id":1,"big":"long text","n":3,"code":"AB","sec":"***"}',
        b'{"id":1,"big":"long text","n":5,"code":"AB","sec":"***"}',
        b'{"id":1}',
        True,
    )


def test_full_update_prints_the_placeholder_where_the_old_value_was_null():
    # (PostgreSQL sends `u` only for a value it kept; the dict path's rule, PgoutputStream._row_toast)
    parse = full()
    msg = tuple_data(b"1", None, b"3", None, None) + b"N" + tuple_data(b"1", "u", "u", "u", b"x")
    assert parse(msg, 0) == (
        b'{"id":1,"big":null,"n":3,"code":null,"sec":"***"}',
        b'{"id":1,"big":"__gone","n":3,"code":"__gone","sec":"***"}',
        b'{"id":1}',
        True,
    )
    # a placeholder the type prints as null shows the column's default, as a NULL does
    msg = tuple_data(b"1", b"a", None, b"c", None) + b"N" + tuple_data(b"1", b"a", "u", b"c", None)
    assert parse(msg, 0)[1] == b'{"id":1,"big":"a","n":5,"code":"C","sec":"***"}'


def test_full_update_changing_the_key_is_left_to_the_dict_path():
    parse = full()
    assert (
        parse(tuple_data(b"1", b"a", b"3", b"b", b"s") + b"N" + tuple_data(b"2", "u", b"3", b"b", b"s"), 0)
        is None
    )


def test_key_null_and_its_printed_default_are_different_keys():
    # a key field printing 7 for NULL: NULL -> 7 and 7 -> NULL change the key, NULL -> NULL does not
    value = [("a", 0, b"7", None), ("b", 1, b"null", None)]
    key = [("a", 0, b"7", None)]
    parse = full(value, key, [int, ident], [None, "__gone"])
    assert parse(tuple_data(None, b"x") + b"N" + tuple_data(b"7", b"x"), 0) is None
    assert parse(tuple_data(b"7", b"x") + b"N" + tuple_data(None, b"x"), 0) is None
    assert parse(tuple_data(None, b"x") + b"N" + tuple_data(None, "u"), 0) == (
        b'{"a":7,"b":"x"}',
        b'{"a":7,"b":"x"}',
        b'{"a":7}',
        True,
    )
    assert parse(tuple_data(b"7", b"x") + b"N" + tuple_data(b"7", b"y"), 0) == (
        b'{"a":7,"b":"x"}',
        b'{"a":7,"b":"y"}',
        b'{"a":7}',
        False,  # no unchanged TOAST value
    )


def test_a_converters_null_in_the_key_is_the_same_key_as_null():
    # Debezium compares the key Structs: NaN converted to null equals a NULL
    value = [("m", 0, b'"d"', None), ("b", 1, b"null", None)]
    parse = full(value, [("m", 0, b'"d"', None)], [nan_is_null, ident], [None, None])
    assert parse(tuple_data(None, b"x") + b"N" + tuple_data(b"NaN", b"y"), 0) == (
        b'{"m":"d","b":"x"}',
        b'{"m":"d","b":"y"}',
        b'{"m":"d"}',
        False,
    )


def test_default_identity_update_prints_the_placeholder():
    parse = update_json_parser(5, CONVS, [0, 1, 2, 3, 4], VALUE, KEY, PLACEHOLDERS, False)
    assert parse(tuple_data(b"4", "u", "u", b"q", "u"), 0) == (
        b'{"id":4,"big":"__gone","n":5,"code":"Q","sec":"***"}',
        b'{"id":4}',
        True,
    )
    # an excluded column (not among the row's fields) may be unchanged TOAST too
    parse = update_json_parser(3, [int, ident], [0, 2], VALUE[:2], None, PLACEHOLDERS[:2], False)
    assert parse(tuple_data(b"4", "u", b"t"), 0) == (b'{"id":4,"big":"t"}', None, True)
    assert parse(tuple_data(b"4", None, b"t"), 0) == (b'{"id":4,"big":"t"}', None, False)


def test_what_it_does_not_read_is_none():
    parse = full()
    old = tuple_data(b"1", b"a", b"3", b"b", b"s")
    assert parse(old + b"N" + tuple_data(b"1", b"a", b"3", b"b"), 0) is None  # another column count
    assert parse(tuple_data(b"1", "u", b"3", b"b", b"s") + b"N" + old, 0) is None  # `u` in the old row
    assert parse(old + b"X" + old, 0) is None
    unprintable = update_json_parser(5, CONVS, [0, 1, 2, 3, 4], VALUE, KEY, [object()] * 5, False)
    assert unprintable is None


def test_old_reader_of_a_key_printing_a_default_leaves_a_default_in_the_key_to_the_walk():
    # key field a prints 7 for NULL: an old key showing 7 (NULL, or 7 itself) is no proof of the same key
    # (NULL -> 7 is a key change), so the faster reader answers None and the walk above decides
    value = [("a", 0, b"7", None), ("b", 1, b"null", None)]
    key = [("a", 0, b"7", None)]
    env = SimpleNamespace(key_defaults=[("a", 7)], json_fields=lambda: (value, key))
    ct = SimpleNamespace(
        env=env, parse_json=po.row_json_parser(2, [int, ident], [0, 1], value, key, None, True)
    )
    old = tp.old_parser_for(ct)
    assert old(tuple_data(None, b"x") + b"N" + tuple_data(b"7", b"x"), 0) is None
    assert old(tuple_data(b"7", b"x") + b"N" + tuple_data(b"7", b"y"), 0) is None
    first = tuple_data(b"3", b"x")
    assert old(first + b"N" + tuple_data(b"3", b"y"), 0) == (b'{"a":3,"b":"x"}', b'{"a":3}', len(first))
    # without key defaults: the reader itself
    plain = SimpleNamespace(key_defaults=[], json_fields=lambda: (value, key))
    assert tp.old_parser_for(SimpleNamespace(env=plain, parse_json=ct.parse_json)) is ct.parse_json.old


def test_default_identity_update_straight_into_the_line():
    # the stream's per-transaction line format around `value_format` (pgoutput.line_format's arguments)
    parse = update_json_parser(5, CONVS, [0, 1, 2, 3, 4], VALUE, KEY, PLACEHOLDERS, False)
    fmt = b'{"k":%b,"v":' + parse.value_format + b',"s":[%d,%d],"t":%b,"ms":%b,"us":%b,"ns":%b}'
    got = parse.line(tuple_data(b"4", "u", None, b"q", "u"), 0, fmt, 5, b"null", 1_700_000_000_123_456_789)
    assert got == (
        b'{"k":{"id":4},"v":{"id":4,"big":"__gone","n":5,"code":"Q","sec":"***"},"s":[5,5],"t":null,'
        b'"ms":1700000000123,"us":1700000000123456,"ns":1700000000123456789}',
        len(b'{"id":4}'),
        True,
    )
    keyless = update_json_parser(3, [int, ident], [0, 2], VALUE[:2], None, PLACEHOLDERS[:2], False)
    fmt = b'{"v":' + keyless.value_format + b',"s":[%d,%d],"t":%b,"ms":%b,"us":%b,"ns":%b}'
    got = keyless.line(tuple_data(b"4", "u", b"t"), 0, fmt, 7, b"null", 1_700_000_000_000_000_001)
    assert got == (
        b'{"v":{"id":4,"big":"t"},"s":[7,7],"t":null,"ms":1700000000000,"us":1700000000000000,'
        b'"ns":1700000000000000001}',
        0,
        True,
    )
