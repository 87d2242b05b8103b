"""The whole-tuple match of pgoutput TupleData (`pgoutput_match`, inside `pgoutput.row_json_parser`): its JSON
against the general converters' (`row_parser`'s dict through orjson) on random tables (NOT NULL to all
nullable) and tuples with NULLs, unchanged TOAST, long values and values made to look like column
boundaries; the base64 table encoder against the byte encoder."""

from __future__ import annotations

import random

import orjson
import pytest
from pgoutput_tuples import tuple_data

from emulator.connectors.postgres import pgoutput as po
from emulator.connectors.postgres import pgoutput_match
from emulator.connectors.postgres.types.encoders import bigint_b64, bigint_json
from emulator.connectors.postgres.types.numeric import numeric_fixed_precise, numeric_variable_precise
from emulator.connectors.postgres.types.temporal import date_days, zoned_timestamp


def ident(t: str) -> str:
    return t


ident.is_identity = True  # as the text types' converter (mappings): the walk and the match leave it uncalled


def test_bigint_json_is_the_base64_of_the_twos_complement():
    rnd = random.Random(7)
    values = list(range(-66_000, 66_000))
    values += [s * (2**k) + d for k in range(90) for d in (-1, 0, 1) for s in (1, -1)]
    values += [rnd.randint(-(2**24), 2**24) for _ in range(50_000)]
    values += [rnd.randint(-(2**200), 2**200) for _ in range(2_000)]
    for u in values:
        assert bigint_json(u) == orjson.dumps(bigint_b64(u)), u


# -- random tables -------------------------------------------------------------------------------------


def _text(rnd: random.Random) -> bytes:
    r = rnd.random()
    if r < 0.1:  # what a NULL, a TOAST tag or a column's start look like, or ends in
        return rnd.choice([b"n", b"nn", b"u", b"t", b"tn", b"nt", b"xn", b"t\x01\x02ab", b"n\x01n"])
    if r < 0.15:  # binary-looking bytes without NUL (as UTF-8: PostgreSQL's text is valid in its encoding)
        return bytes(rnd.choices(range(1, 256), k=rnd.choice([1, 5, 40]))).decode(errors="replace").encode()
    size = rnd.choice([0, 1, 3, 8, 12, 300]) if rnd.random() > 0.002 else 70_000
    # the letters of the tags (t, n, u), quotes, backslashes, a control character, non-ASCII
    return "".join(rnd.choices('abnut xyz"\\\x01éñ', k=size)).encode()


def _numeric(rnd: random.Random, scale: int) -> bytes:
    r = rnd.random()
    if r < 0.05:
        return rnd.choice([b"NaN", b"Infinity", b"-Infinity"])
    if r < 0.1:  # another scale than the column's (the converter rescales)
        scale = rnd.choice([0, 1, scale + 1])
    u = rnd.choice([rnd.randint(-(10**6), 10**6), rnd.randint(-(10**30), 10**30), 0, -1])
    digits = str(abs(u)).rjust(scale + 1, "0")
    text = digits[: len(digits) - scale] + ("." + digits[len(digits) - scale :] if scale else "")
    return ("-" if u < 0 else "").encode() + text.encode()


def _timestamptz(rnd: random.Random) -> bytes:
    r = rnd.random()
    if r < 0.04:
        return rnd.choice([b"infinity", b"-infinity"])
    year = rnd.choice([rnd.randint(1, 9999), rnd.randint(1970, 2100), rnd.randint(10_000, 99_999)])
    text = f"{year:04d}-{rnd.randint(1, 12):02d}-{rnd.randint(1, 28):02d} "
    text += f"{rnd.randint(0, 23):02d}:{rnd.randint(0, 59):02d}:{rnd.randint(0, 59):02d}"
    if rnd.random() < 0.6:
        text += "." + (str(rnd.randint(0, 999_999)).rjust(6, "0")[: rnd.randint(1, 6)].rstrip("0") or "1")
    text += rnd.choice(["+00", "+00", "+00", "+02", "-03:30"])
    if rnd.random() < 0.05:
        text += " BC"
    return text.encode()


def _date(rnd: random.Random) -> bytes:
    if rnd.random() < 0.05:
        return b"infinity"
    return f"{rnd.randint(1, 9999):04d}-{rnd.randint(1, 12):02d}-{rnd.randint(1, 28):02d}".encode()


KINDS = {  # converter, value maker
    "int": (int, lambda r: str(r.choice([r.randint(-(2**63), 2**63 - 1), r.randint(-9, 99)])).encode()),
    "text": (ident, _text),
    "bool": ("t".__eq__, lambda r: r.choice([b"t", b"f"])),
    "numeric0": (numeric_fixed_precise(0), lambda r: _numeric(r, 0)),
    "numeric2": (numeric_fixed_precise(2), lambda r: _numeric(r, 2)),
    "numeric5": (numeric_fixed_precise(5), lambda r: _numeric(r, 5)),
    "numeric_variable": (numeric_variable_precise, lambda r: _numeric(r, r.randint(0, 4))),
    "timestamptz0": (zoned_timestamp(0), _timestamptz),
    "timestamptz3": (zoned_timestamp(3), _timestamptz),
    "timestamptz6": (zoned_timestamp(6), _timestamptz),
    "date": (date_days, _date),
}


def _table(rnd: random.Random):
    """(pgoutput columns, field of each captured column, kinds, nullable, key fields)."""
    n = rnd.randint(1, 9)
    captured = [i for i in range(n) if rnd.random() > 0.15] or [0]
    kinds = [rnd.choice(list(KINDS)) for _ in captured]
    share = rnd.choice([0.0, 0.4, 0.8, 1.0])  # of the columns that may be NULL: most, in real schemas
    nullable = [rnd.random() < share for _ in captured]
    key = sorted(rnd.sample(range(len(captured)), rnd.randint(0, min(2, len(captured)))))
    return n, captured, kinds, nullable, key


def _tuple(rnd: random.Random, n: int, captured: list[int], kinds: list[str], nullable: list[bool]) -> list:
    cols: list = []
    nulls = rnd.choice([0.0, 0.12, 0.3, 0.6])
    for i in range(n):
        r = rnd.random()
        if r < nulls:
            cols.append(None)  # also in NOT NULL columns (the constraint changed): the walk reads it
        elif r < nulls + 0.02:
            cols.append("u")
        elif i in captured:
            cols.append(KINDS[kinds[captured.index(i)]][1](rnd))
        else:
            cols.append(_text(rnd))
    return cols


def _expected(names, row_parser, key, defaults, captured, msg):
    """The general path: row_parser's dict (the converters on the decoded text) through orjson; a NULL
    shows its field's default in `after` (replace.null.with.default), null in the key; so does a value the
    converter makes null (NaN in a precise decimal: real Debezium's case pg/cases/nan_nullable_default)."""
    row = row_parser(msg, 0)
    if row is None:
        return None
    raw = po.parse_tuple(msg, 0)[0]
    after = b",".join(
        orjson.dumps(name)
        + b":"
        + (defaults[j] if raw[captured[j]] is None or row[name] is None else orjson.dumps(row[name]))
        for j, name in enumerate(names)
    )
    k = {names[j]: row[names[j]] for j in key}
    return b"{" + after + b"}", orjson.dumps(k) if key else None


@pytest.fixture
def every_table_matched(monkeypatch):
    """The match for every table, also where its first reading could be a shifted one (then the table is
    read by the walk): the length checks alone must keep the readings true."""
    monkeypatch.setattr(pgoutput_match, "_first_reading_may_shift", lambda cols: False)


@pytest.mark.parametrize("seed", range(3))
@pytest.mark.parametrize("shifts", ["walked", "matched"])
def test_random_tables_and_tuples_match_the_general_converters(seed, shifts, request):
    if shifts == "matched":
        request.getfixturevalue("every_table_matched")
    rnd = random.Random(seed)
    matched = tuples = rechecked = nulls_read = 0
    for _ in range(120):
        n, captured, kinds, nullable, key = _table(rnd)
        names = [f"f{j}" for j in range(len(captured))]
        convs = [KINDS[k][0] for k in kinds]
        defaults = [rnd.choice([b"null", b"null", b'"d"', b"5"]) for _ in names]
        value = [(name, j, defaults[j], None) for j, name in enumerate(names)]
        keyf = [(names[j], j, b"null", None) for j in key] or None
        parse = po.row_json_parser(n, convs, captured, value, keyf, nullable)
        match = parse.__globals__.get("_M")  # None: a shifted first reading could be common, the walk reads
        if shifts == "matched":
            assert match is not None  # mostly nullable tables too
        walked = []
        if match is not None:
            walk = parse.__globals__["_walk"]
            parse.__globals__["_walk"] = lambda buf, start, w=walk, ws=walked: ws.append(1) or w(buf, start)
        row_parser = po.row_parser(n, names, convs, captured)
        for _ in range(30):
            cols = _tuple(rnd, n, captured, kinds, nullable)
            msg = tuple_data(*cols)
            tuples += 1
            hit = match is not None and match(msg, 0) is not None
            walked.clear()
            try:
                want = _expected(names, row_parser, key, defaults, captured, msg)
            except (ValueError, ArithmeticError, UnicodeDecodeError) as e:
                with pytest.raises(type(e)):
                    parse(msg, 0)
                continue
            assert parse(msg, 0) == want, (kinds, nullable, msg)
            matched += hit
            rechecked += hit and not walked
            # read by the match with a NULL in a table where most columns may be NULL
            nulls_read += hit and not walked and None in cols and sum(nullable) * 3 > 2 * len(nullable)
    assert matched > tuples // 5  # the match reads many tuples (the rest: NULL where NOT NULL, TOAST, ...)
    assert rechecked > matched * 0.9  # a matched tuple is rarely handed to the walk by a length check
    assert nulls_read > tuples // 20, (nulls_read, tuples)


def test_a_value_ending_in_n_before_a_null_is_not_taken_for_the_null(every_table_matched):
    # "abc", NULL, "xyn", "q" reads as "abcn", "xy", NULL, "q" too if the lengths were not checked
    cols = [b"abc", None, b"xyn", b"q"]
    names = ["a", "b", "c", "d"]
    value = [(name, j, b"null", None) for j, name in enumerate(names)]
    parse = po.row_json_parser(4, [ident] * 4, [0, 1, 2, 3], value, None, [False, True, True, False])
    assert parse(tuple_data(*cols), 0) == (b'{"a":"abc","b":null,"c":"xyn","d":"q"}', None)
    assert parse.__globals__["_M"](tuple_data(*cols), 0) is not None
    cols = [b"abcn", b"xy", None, b"q"]
    assert parse(tuple_data(*cols), 0) == (b'{"a":"abcn","b":"xy","c":null,"d":"q"}', None)


def test_an_integer_before_a_null_has_its_length_checked_too(every_table_matched):
    # "x", NULL, "5", "12n", "z" also matches as "xn" (the NULL's n taken in), "5", 12 (an integer stops
    # before an n, not where its length says), NULL (the n of "12n"), "z" if an integer's length were not
    # checked before a NULL as any other value's
    cols = [b"x", None, b"5", b"12n", b"z"]
    names = ["a", "b", "c", "d", "e"]
    value = [(name, j, b"null", None) for j, name in enumerate(names)]
    parse = po.row_json_parser(5, [ident, ident, int, ident, ident], list(range(5)), value, None, [True] * 5)
    assert parse(tuple_data(b"xn", None, b"5", b"12n", b"z"), 0) == (
        b'{"a":"xn","b":null,"c":5,"d":"12n","e":"z"}',
        None,
    )
    assert parse(tuple_data(*cols), 0) == (b'{"a":"x","b":null,"c":5,"d":"12n","e":"z"}', None)


def test_tables_whose_first_reading_could_be_shifted_keep_the_walk():
    def parser(convs, nullable):
        value = [(f"f{j}", j, b"null", None) for j in range(len(convs))]
        return po.row_json_parser(len(convs), convs, list(range(len(convs))), value, None, nullable)

    # "Oslo", NULL, "5", "Berlin", NULL, "x": the engine's first reading takes the first NULL's n into
    # "Oslo", reads the columns after it one on, and the n that ends "Berlin" as a NULL; a check refuses it
    assert "_M" not in parser([ident] * 6, [True] * 6).__globals__
    assert "_M" not in parser([int] + [ident] * 3, [False, True, True, True]).__globals__
    # a typed column between them stops such a reading (bench_pg's table, every column nullable)
    mixed = [int, int, ident, ident, numeric_fixed_precise(2), zoned_timestamp(6), "t".__eq__, ident, int]
    assert "_M" in parser(mixed, [False] + [True] * 8).__globals__
    assert "_M" in parser([ident] * 6, [False] * 6).__globals__  # NOT NULL: no NULL to take an n
    assert "_M" in parser([ident, int], [True, True]).__globals__


def test_line_of_a_matched_tuple_is_the_walks_line():
    names = ["id", "amount", "at", "note", "ok"]
    convs = [int, numeric_fixed_precise(2), zoned_timestamp(6), ident, "t".__eq__]
    value = [(name, j, b"null", None) for j, name in enumerate(names)]
    parse = po.row_json_parser(5, convs, [0, 1, 2, 3, 4], value, [("id", 0, b"null", None)], [False] * 5)
    walk_line = parse.__globals__["_walk_line"]
    fmt = b'{"k":%b,"v":' + parse.value_format + b',"s":[%d,%d],"t":%b,"ms":%b,"us":%b,"ns":%b}'
    msg = tuple_data(b"-7", b"1234.50", b"2024-02-29 23:59:59.5+00", b'say "hi"', b"t")
    assert parse.__globals__["_M"](msg, 0) is not None
    got = parse.line(msg, 0, fmt, 5, b"null", 1_700_000_000_123_456_789)
    assert got == walk_line(msg, 0, fmt, 5, b"null", 1_700_000_000_123_456_789)
    assert got[0] == (
        b'{"k":{"id":-7},"v":{"id":-7,"amount":"AeI6","at":"2024-02-29T23:59:59.500000Z",'
        b'"note":"say \\"hi\\"","ok":true},"s":[5,5],"t":null,"ms":1700000000123,"us":1700000000123456,'
        b'"ns":1700000000123456789}'
    )


@pytest.mark.parametrize("shifts", ["walked", "matched"])
def test_old_tuple_of_an_update_reads_as_the_same_tuple_alone(shifts, request):
    # REPLICA IDENTITY FULL: an UPDATE carries the old tuple, then `N` and the new one; `parse.old` reads the
    # old tuple as `parse` reads it alone and says where it ends, matched (a lookahead for the `N` and the
    # count in place of the message's end) or walked; the new tuple after it starts with the same bytes
    if shifts == "matched":
        request.getfixturevalue("every_table_matched")
    rnd = random.Random(11)
    matched = pairs = 0
    for _ in range(80):
        n, captured, kinds, nullable, key = _table(rnd)
        names = [f"f{j}" for j in range(len(captured))]
        convs = [KINDS[k][0] for k in kinds]
        value = [(name, j, rnd.choice([b"null", b"5"]), None) for j, name in enumerate(names)]
        keyf = [(names[j], j, b"null", None) for j in key] or None
        parse = po.row_json_parser(n, convs, captured, value, keyf, nullable, old=True)
        omatch = parse.old.__globals__.get("_M")
        if shifts == "matched":
            assert omatch is not None
        for _ in range(25):
            old = tuple_data(*_tuple(rnd, n, captured, kinds, nullable))
            new = tuple_data(*_tuple(rnd, n, captured, kinds, nullable))
            pairs += 1
            try:
                alone = parse(old, 0)
            except (ValueError, ArithmeticError, UnicodeDecodeError) as e:
                with pytest.raises(type(e)):
                    parse.old(old + b"N" + new, 0)
                continue
            want = None if alone is None else (*alone, len(old))
            assert parse.old(old + b"N" + new, 0) == want, (kinds, nullable, old, new)
            assert parse.old(b"xyz" + old + b"N" + new, 3) == (
                None if want is None else (*alone, len(old) + 3)
            )
            matched += omatch is not None and omatch(old + b"N" + new, 0) is not None
    assert matched > pairs // 5
