"""The winners' `after` images parsed on the driver (`sink.arrow_json`, through `sink.executors.decoded_winners`)
against the Spark expressions they replace (`from_json` with the physical schema, then `sink.decode.convert`):
the same Arrow table, schema and values, for every type the driver reads — nulls, escapes, unicode (raw and
escaped, surrogate pairs), integers at their ends, doubles that round, dates and timestamps beyond Python's
range and PostgreSQL's infinities, negative Decimals, deletes (their row is the canonical key) — and the texts
it does not read exactly (a "NaN" double, an integer out of range, a number where a string is expected) left
to the expressions, which read them as before."""

from __future__ import annotations

import base64
import re

import orjson
import pyarrow as pa
import pytest
from sink_checks import spark_fixture  # noqa: F401

from sink import arrow_json
from sink import executors as X
from sink.plan import Fp, TopicPlan

DEC = "org.apache.kafka.connect.data.Decimal"


def _f(typ, field, **kw):
    return {"type": typ, "optional": True, "field": field, **kw}


def _dec(prec, scale, field):
    return _f(
        "bytes",
        field,
        name=DEC,
        version=1,
        parameters={"scale": str(scale), "connect.decimal.precision": str(prec)},
    )


ROW = [
    _f("int64", "id", optional=False),
    _f("int8", "i8"),
    _f("int16", "i16"),
    _f("int32", "i32"),
    _f("double", "d"),
    _f("boolean", "b"),
    _f("string", "s"),
    _f("string", "j", name="io.debezium.data.Json", version=1),
    _dec(18, 4, "dec18"),
    _dec(12, 2, "dec12"),
    _f("int32", "born", name="io.debezium.time.Date", version=1),
    _f("int64", "tms", name="io.debezium.time.Timestamp", version=1),
    _f("int64", "tus", name="io.debezium.time.MicroTimestamp", version=1),
    _f("int64", "tns", name="io.debezium.time.NanoTimestamp", version=1),
    _f("int32", "tm", name="io.debezium.time.Time", version=1),
]
KEY = {"type": "struct", "optional": False, "fields": [dict(ROW[0])]}
VALUE = {
    "type": "struct",
    "fields": [
        {"type": "struct", "optional": True, "fields": ROW, "field": "before"},
        {"type": "struct", "optional": True, "fields": ROW, "field": "after"},
        {"type": "struct", "optional": False, "fields": [], "field": "source"},
        _f("string", "op", optional=False),
    ],
}


def b64(v: int) -> str:
    return base64.b64encode(v.to_bytes((v + (v < 0)).bit_length() // 8 + 1, "big", signed=True)).decode()


# `after` texts as Debezium (Jackson) prints them; raw texts where orjson would print differently
AFTERS = [
    '{"id":1,"i8":-128,"i16":32767,"i32":-2147483648,"d":1.0E10,"b":true,"s":"a\\"b\\\\c\\/d\\n\\t\\u0000\\u001f",'
    '"j":"{\\"k\\":[1,2]}","dec18":"' + b64(-(10**18 - 1)) + '","dec12":"' + b64(123456789012) + '",'
    '"born":-622191234,"tms":253402300800000,"tus":-62135596800000001,"tns":9223372036854775807,"tm":86399999}',
    '{"id":-9223372036854775808,"i8":127,"i16":-32768,"i32":2147483647,"d":-0.0,"b":false,"s":"\\u00e9\\ud83d\\ude00 é😀 ü",'
    '"j":null,"dec18":"AA==","dec12":"/w==","born":-2147472692,"tms":-62135596800001,"tus":253402300800000000,'
    '"tns":-9223372036854775808,"tm":0}',
    '{"id":9223372036854775807,"i8":null,"i16":null,"i32":null,"d":4.9E-324,"b":null,"s":null,"j":"[]",'
    '"dec18":null,"dec12":null,"born":null,"tms":null,"tus":null,"tns":-1,"tm":null}',
    '{"id":3,"i8":0,"i16":0,"i32":0,"d":0.1,"b":true,"s":"","j":"x","dec18":"' + b64(10**17) + '",'
    '"dec12":"'
    + b64(-5)
    + '","born":2932897,"tms":0,"tus":0,"tns":-1001,"tm":-1,"extra":{"ignored":[1,"x"]}}',
    '{"id":4,"d":1.7976931348623157E308,"s":"tab\\there","born":-719163,"tns":1999}',
    '{"id":5,"d":5,"born":19000,"tms":1700000000123,"tus":1700000000123456,"tns":1700000000123456789}',
]


def _winners(spark, afters: list[str | None], ops: list[str]):
    """A `winners.reduced`-shaped DataFrame (position texts already made) of one topic and schema group."""
    from pyspark.sql import functions as F

    rows = []
    for i, (a, op) in enumerate(zip(afters, ops, strict=True)):
        key = int(re.match(r'\{"id":(-?\d+)', a).group(1)) if a is not None else 1000 + i
        kc = orjson.dumps({"id": key}).decode()
        rows.append(("t", kc, f"{i:08d}", op, 7, kc, 1000 + i, a, f"{i:07d}" if op == "d" else None))
    df = spark.createDataFrame(
        rows,
        "topic string, kc string, seq string, op string, vfp long, kp string, ts long, after string, dseq string",
    )
    fill = F.lit(None).cast("map<string,struct<d:boolean,v:string>>")
    return df.select(
        "topic",
        "kc",
        F.struct(
            "seq",
            F.lit(0).alias("part"),
            F.lit(0).alias("pos"),
            "op",
            "vfp",
            "kp",
            "ts",
            fill.alias("fill"),
            "after",
        ).alias("w"),
        "dseq",
    )


def _plan():
    g = Fp(1, 7, KEY, VALUE, 1, False, False, (0, 0))
    return TopicPlan("t", [g], fast=True), g


def _expression(w, tp, g) -> pa.Table:
    late = X.arrow_decodes(tp, g)
    t = X.decoded(w, tp, g, late).toArrow()
    for name, (prec, scale) in late.items():
        t = t.set_column(t.schema.get_field_index(name), name, X.arrow_decode.decimals(t[name], prec, scale))
    return t


def test_driver_reading_is_the_expressions(spark):
    tp, g = _plan()
    afters = [*AFTERS, None, None]
    w = _winners(spark, afters, ["u", "c", "r", "u", "c", "u", "d", "d"])
    assert X.json_readable(w, tp, g)
    got = X.json_winners(w, tp, g)
    assert got is not None
    want = _expression(w, tp, g)
    assert got.schema == want.schema
    assert got.to_pylist() == want.to_pylist()
    # the deletes' rows: the key column from the canonical key, every other column null
    dels = got.to_pylist()[-2:]
    assert [r["id"] for r in dels] == [1006, 1007]
    assert all(v is None for r in dels for k, v in r.items() if k in {f["field"] for f in ROW} - {"id"})
    assert X.decoded_winners(w, tp, g).equals(want)


@pytest.mark.parametrize(
    "bad",
    [
        '{"id":9,"i32":2147483648}',  # out of range: Spark reads null
        '{"id":9,"s":12}',  # a number for a string: Spark keeps its text
        '{"id":9,"i8":1.5}',
        '{"id":9,"s":"\\ud800"}',  # a broken surrogate pair
    ],
)
def test_texts_not_read_exactly_take_the_expressions(spark, bad):
    tp, g = _plan()
    w = _winners(spark, [AFTERS[0], bad], ["u", "u"])
    assert X.json_winners(w, tp, g) is None
    got, want = X.decoded_winners(w, tp, g), _expression(w, tp, g)
    assert got.schema == want.schema
    assert repr(got.to_pylist()) == repr(want.to_pylist())  # repr: NaN equals NaN


def test_types_it_does_not_read_take_the_expressions():
    assert not arrow_json.supported([_dec(20, 2, "wide")])
    assert not arrow_json.supported([{"type": "array", "items": _dec(10, 2, None), "field": "a"}])
    assert not arrow_json.supported(
        [{"type": "array", "items": {"type": "array", "items": {"type": "int32"}}}]
    )
    assert not arrow_json.supported([{"type": "struct", "fields": [_f("int32", "x")], "field": "s"}])
    assert not arrow_json.supported(
        [{"type": "map", "keys": {"type": "string"}, "values": {"type": "int32"}}]
    )
    assert arrow_json.supported(ROW)


def test_texts_buffer_of_a_slice():
    arr = pa.array(['{"a":1}', '{"a":22}', '{"a":333}'])[1:]
    assert arrow_json.texts_buffer(arr).to_pybytes() == b'{"a":22}{"a":333}'
    with pytest.raises(arrow_json.NotRead):
        arrow_json.texts_buffer(pa.array(['{"a":1}', None]))


# session 21: the types the driver reads since (ZonedTimestamp, bytes, float32, non-numeric doubles, arrays)
ZT = "io.debezium.time.ZonedTimestamp"
ROW2 = [
    _f("int64", "id", optional=False),
    _f("float", "f32"),
    _f("double", "d"),
    _f("string", "z", name=ZT, version=1),
    _f("bytes", "raw"),
    _f("bytes", "bits", name="io.debezium.data.Bits", version=1, parameters={"length": "3"}),
    {"type": "array", "optional": True, "items": _f("int32", None, optional=True), "field": "ai"},
    {"type": "array", "optional": True, "items": _f("string", None), "field": "as"},
    {"type": "array", "optional": True, "items": _f("double", None), "field": "ad"},
    {"type": "array", "optional": True, "items": _f("float", None), "field": "af"},
    {
        "type": "array",
        "optional": True,
        "items": _f("int32", None, name="io.debezium.time.Date"),
        "field": "adt",
    },
    {"type": "array", "optional": True, "items": _f("string", None, name=ZT), "field": "az"},
    {"type": "array", "optional": True, "items": _f("boolean", None), "field": "ab"},
    {
        "type": "array",
        "optional": True,
        "items": _f("int64", None, name="io.debezium.time.MicroTimestamp"),
        "field": "ats",
    },
]
for _x in ROW2:
    if _x.get("items"):
        _x["items"].pop("field")
KEY2 = {"type": "struct", "optional": False, "fields": [dict(ROW2[0])]}
VALUE2 = {
    "type": "struct",
    "fields": [
        {"type": "struct", "optional": True, "fields": ROW2, "field": "before"},
        {"type": "struct", "optional": True, "fields": ROW2, "field": "after"},
        {"type": "struct", "optional": False, "fields": [], "field": "source"},
        _f("string", "op", optional=False),
    ],
}
ALL_BYTES = base64.b64encode(bytes(range(256))).decode()
AFTERS2 = [
    '{"id":1,"f32":1.1,"d":"NaN","z":"2024-01-15T10:00:00Z","raw":"' + ALL_BYTES + '","bits":"BQ==",'
    '"ai":[1,null,-2147483648],"as":["a\\"b","\\u00e9\\ud83d\\ude00","Infinity ",null,""],"ad":["NaN",1.5,"Infinity",'
    '"-Infinity",null,-0.0],"af":[3.4028235E38,"NaN",1.4E-45,null],"adt":[-622191234,0,null,2932897],'
    '"az":["2024-01-15T10:00:00.123456789Z","infinity",null],"ab":[true,null,false],"ats":[0,-62135596800000001]}',
    '{"id":2,"f32":"NaN","d":"Infinity","z":"2024-01-15T10:00:00.5Z","raw":"","bits":"AA==","ai":[],"as":[],'
    '"ad":[],"af":[],"adt":[],"az":[],"ab":[],"ats":[]}',
    '{"id":3,"f32":"-Infinity","d":"-Infinity","z":"infinity","raw":"AQ==","bits":"AQI=","ai":null,"as":null,'
    '"ad":null,"af":null,"adt":null,"az":null,"ab":null,"ats":null}',
    '{"id":4,"f32":3.4028235E38,"d":1.0E-300,"z":"-infinity","raw":"/+/+","bits":null}',
    '{"id":5,"f32":1.4E-45,"d":5,"z":"0001-01-01T00:00:00Z","raw":null}',
    '{"id":6,"f32":-0.0,"d":0.1,"z":"9999-12-31T23:59:59.999999Z","raw":"AAECAw=="}',
    '{"id":7,"f32":16777217,"d":2.5,"z":"2000-02-29T12:34:56.000001Z"}',
    '{"id":8,"f32":0.1,"z":"1969-12-31T23:59:59.1234567Z","as":["x\\":\\"NaN\\""]}',
    '{"id":9,"f32":null,"d":null,"z":null}',
]


def _plan2():
    g = Fp(1, 7, KEY2, VALUE2, 1, False, False, (0, 0))
    return TopicPlan("t", [g], fast=True), g


def test_driver_reading_of_the_session_21_types_is_the_expressions(spark):
    tp, g = _plan2()
    afters = [*AFTERS2, None]
    w = _winners(spark, afters, [*"ucurcuuuu", "d"])
    assert arrow_json.supported(ROW2)
    assert X.json_readable(w, tp, g)
    got = X.json_winners(w, tp, g)
    assert got is not None
    want = _expression(w, tp, g)
    assert got.schema == want.schema
    assert repr(got.to_pylist()) == repr(want.to_pylist())  # repr: NaN equals NaN, -0.0 is not 0.0


@pytest.mark.parametrize(
    "bad",
    [
        '{"id":9,"z":"2024-01-15T10:00:00+02:00"}',  # an offset: Spark's cast reads it
        '{"id":9,"z":"+10000-01-01T00:00:00Z"}',  # a 5-digit year
        '{"id":9,"z":"Infinity"}',  # another spelling: decode.convert's translate() reads it
        '{"id":9,"z":"2024-13-01T00:00:00Z"}',  # no such month: try_cast's null
        '{"id":9,"raw":"AQ"}',  # base64 without its padding: the MIME decoder reads it
        '{"id":9,"raw":"AQ==\\n"}',
        '{"id":9,"as":["a","NaN"]}',  # a string "NaN" in a string array, made a bare token
        '{"id":9,"d":"nan"}',
    ],
)
def test_session_21_texts_not_read_exactly_take_the_expressions(spark, bad):
    tp, g = _plan2()
    w = _winners(spark, [AFTERS2[3], bad], ["u", "u"])  # a first row without NaN: Table.equals
    assert X.json_winners(w, tp, g) is None
    got, want = X.decoded_winners(w, tp, g), _expression(w, tp, g)
    assert got.schema == want.schema
    assert got.equals(want)  # not to_pylist: the expressions give year 10000 (Python's datetime ends at 9999)


def test_non_numeric_doubles_are_made_bare_tokens_only_as_values():
    from sink.arrow_values import bare_non_numeric

    assert bare_non_numeric(b'{"d":1.0}') is None
    text = b'{"d":"NaN","a":["Infinity","-Infinity"],"s":"x\\":\\"NaN\\"","NaN":1}'
    assert bare_non_numeric(text) == b'{"d":NaN,"a":[Infinity,-Infinity],"s":"x\\":\\"NaN\\"","NaN":1}'
