"""The readers' op, source position and canonical key (`sink.reader_keys`) are what the JVM expressions give
(`from_json` of the payload, `sink.position_expr`, `to_json(from_json(key))`) on hand-written lines of the three
connector families, including lines that take the per-line split (slow path) and lines the reader must leave
to the JVM. Expected positions written by hand; the JVM's values come from the expressions the old path ran.
"""

from __future__ import annotations

import json

import pyarrow as pa
import pytest

from sink.lines import split_block
from sink.split import Batcher
from sink.stats import Survey

pytest.importorskip("pyspark", reason="pyspark not installed (pip install -e '.[sink]')")

from pyspark.sql import functions as F  # noqa: E402

from sink.position_expr import WIDTHS, seq_expr, text_of  # noqa: E402
from sink.winners import STAGE1, key_phys  # noqa: E402
from tests.sink_checks import spark_fixture  # noqa: E402,F401


def _j(v) -> str:
    return json.dumps(v, separators=(",", ":"), ensure_ascii=False)


ROW = [
    {"type": "int32", "optional": False, "field": "id"},
    {"type": "string", "optional": True, "field": "v"},
]
SOURCE_FIELDS = {
    "postgresql": [
        "version",
        "connector",
        "name",
        "ts_ms",
        "snapshot",
        "db",
        "sequence",
        "schema",
        "table",
        "lsn",
    ],
    "mysql": [
        "version",
        "connector",
        "name",
        "ts_ms",
        "snapshot",
        "db",
        "table",
        "file",
        "pos",
        "row",
        "query",
    ],
    "mongodb": ["version", "connector", "name", "ts_ms", "snapshot", "db", "collection", "ord"],
}


def vschema(row=ROW, source_name="io.debezium.connector.postgresql.Source") -> str:
    img = {"type": "struct", "fields": row, "optional": True}
    src = {
        "type": "struct",
        "fields": [{"type": "string", "field": "x"}],
        "name": source_name,
        "field": "source",
    }
    return _j(
        {
            "type": "struct",
            "fields": [
                {**img, "field": "before"},
                {**img, "field": "after"},
                src,
                {"type": "string", "optional": False, "field": "op"},
                {"type": "int64", "optional": True, "field": "ts_ms"},
            ],
            "optional": False,
        }
    )


KS = _j(
    {"type": "struct", "fields": [{"type": "int32", "optional": False, "field": "id"}], "optional": False}
)


def line(key: str | None, payload: str, vs: str, ks: str = KS, layout: str = "") -> bytes:
    k = "null" if key is None else '{"schema":' + ks + ',"payload":' + key + "}"
    if layout == "spaced":  # not the compact form: the per-line split (orjson) handles it
        return ('{"key": ' + k + ', "value": {"schema": ' + vs + ', "payload": ' + payload + "}}").encode()
    return ('{"key":' + k + ',"value":{"schema":' + vs + ',"payload":' + payload + "}}").encode()


def src(conn: str, **f) -> dict:
    base = {
        "version": "3.6.3.Final",
        "connector": conn,
        "name": "srv",
        "ts_ms": 1000,
        "snapshot": "false",
        "db": "d",
    }
    return {**base, **f}


def env(op: str, after, source: dict, ts=2000, tx_first=False, tx=None) -> str:
    """An envelope in Debezium's order: before, after, source, op, ts_ms, transaction (MySQL's records print
    the transaction block before op: `tx_first`)."""
    parts = [f'"before":null,"after":{_j(after)},"source":{_j(source)}']
    if tx_first:
        parts.append(f'"transaction":{_j(tx)}')
    parts.append(f'"op":"{op}"')
    if ts is not None:
        parts.append(f'"ts_ms":{ts}')
    if not tx_first:
        parts.append(f'"transaction":{_j(tx)}')
    return "{" + ",".join(parts) + "}"


A = {"id": 1, "v": "x"}
PG = "io.debezium.connector.postgresql.Source"
# (line, reader reads it, expected position text or None: cannot win)
CASES = [
    # PostgreSQL: [lastCommitLsn, lsn] from `sequence`, else the LSN
    (
        line('{"id":1}', env("c", A, src("postgresql", sequence='["100","200"]', lsn=200)), vschema()),
        True,
        "000000000000006400000000000000c81",
    ),
    (
        line('{"id":2}', env("r", A, src("postgresql", sequence='[null,"300"]', lsn=300)), vschema()),
        True,
        "0000000000000000000000000000012c0",
    ),
    (
        line('{"id":3}', env("u", A, src("postgresql", sequence=None, lsn=255)), vschema()),
        True,
        "000000000000000000000000000000ff1",
    ),
    (
        line('{"id":4}', env("u", A, src("postgresql", sequence="", lsn=256)), vschema()),
        True,
        "000000000000000000000000000001001",
    ),
    (
        line('{"id":5}', env("d", None, src("postgresql", sequence='["7","8"]', lsn=8), ts=None), vschema()),
        True,
        "000000000000000700000000000000081",
    ),
    # an update without its image, and a message: no position
    (
        line('{"id":6}', env("u", None, src("postgresql", sequence='["9","10"]', lsn=10)), vschema()),
        True,
        None,
    ),
    (line('{"id":7}', env("m", A, src("postgresql", sequence='["9","10"]', lsn=10)), vschema()), True, None),
    # a transaction block after op, and a value with the envelope's words in it (escaped quotes)
    (
        line(
            '{"id":8}',
            env(
                "u",
                {"id": 8, "v": '"source":{"connector":"mysql"},"op":"d"'},
                src("postgresql", sequence='["11","12"]', lsn=12),
                tx={"id": "5:12", "total_order": 1, "data_collection_order": 1},
            ),
            vschema(),
        ),
        True,
        "000000000000000b000000000000000c1",
    ),
    # the per-line split's form (orjson re-prints the key and payload)
    (
        line(
            '{"id": 9}',
            env("c", A, src("postgresql", sequence='["13","14"]', lsn=14)),
            vschema(),
            layout="spaced",
        ),
        True,
        "000000000000000d000000000000000e1",
    ),
    # a row column named `source` (a struct): left to the JVM
    (
        line(
            '{"id":10}',
            env(
                "c", {"id": 10, "source": {"version": "x"}}, src("postgresql", sequence='["15","16"]', lsn=16)
            ),
            vschema(
                ROW[:1]
                + [
                    {
                        "type": "struct",
                        "fields": [{"type": "string", "field": "version"}],
                        "optional": True,
                        "field": "source",
                    }
                ]
            ),
        ),
        False,
        "000000000000000f00000000000000101",
    ),
]
MY = [
    (
        line(
            '{"id":1}',
            env("u", A, src("mysql", file="mysql-bin.000003", pos=1234, row=2, query=None), tx_first=True),
            vschema(source_name="io.debezium.connector.mysql.Source"),
        ),
        True,
        "0000000300000000000004d2100000002",
    ),
    (
        line(
            '{"id":2}',
            env("r", A, src("mariadb", file="m.000010", pos=4, row=0, query="x {y}"), tx_first=True),
            vschema(source_name="io.debezium.connector.mariadb.Source"),
        ),
        False,
        "0000000a0000000000000004000000000",
    ),
    (
        line(
            '{"id":3}',
            env("c", A, src("mysql", file=None, pos=5, row=None, query=None), tx_first=True),
            vschema(source_name="io.debezium.connector.mysql.Source"),
        ),
        True,
        "000000000000000000000005100000000",
    ),
]
MONGO_KS = _j({"type": "struct", "fields": [{"type": "string", "optional": False, "field": "id"}]})
MG = [
    (
        line(
            '{"id":"{\\"$oid\\": \\"65\\"}"}',
            env("c", None, src("mongodb", collection="c", ord=7, ts_ms=1700000000)).replace(
                '"after":null', '"after":"{\\"_id\\": 1}"'
            ),
            vschema(source_name="io.debezium.connector.mongodb.Source"),
            ks=MONGO_KS,
        ),
        True,
        "000000006553f100000000071",
    ),
]


def _read(lines: list[bytes]) -> pa.Table:
    """The lines as a reader partition yields them (block split, per-line split for the rest, survey)."""
    b = Batcher()
    data = b"\n".join(lines) + b"\n"
    rb, _ = split_block(data, 0, "t", "t.jsonl", b)
    s = Survey(b.known)
    out = [s.add(x) for x in ([rb] if rb is not None else []) + ([b.flush()] if b.rows else [])]
    return pa.Table.from_batches(out).sort_by("pos")


@pytest.mark.parametrize("conn,cases", [("postgresql", CASES), ("mysql", MY), ("mongodb", MG)])
def test_reader_position_and_key_are_the_jvms(spark, conn, cases):
    t = _read([c[0] for c in cases])
    assert t.column("rok").to_pylist() == [c[1] for c in cases]
    ks = json.loads(cases[0][0].decode().split('"schema":', 1)[1].split(',"payload":', 1)[0])
    p = F.from_json("vp", STAGE1)
    jvm = (
        spark.createDataFrame(t.select(["pos", "vp", "kp"]).to_pandas())
        .select(
            "pos",
            p.alias("p"),
            F.to_json(F.from_json("kp", key_phys(ks, True)), {"ignoreNullFields": "false"}).alias("kc"),
        )
        .select(
            "pos",
            "kc",
            F.col("p.op").alias("op"),
            seq_expr(F.col("p.source"), F.col("p.op")).alias("seq"),
            F.coalesce(F.col("p.ts_ms"), F.col("p.source.ts_ms"), F.lit(0)).alias("ts"),
            (
                F.col("p.op").isin("c", "u", "d", "r")
                & ((F.col("p.op") == "d") | F.col("p.after").isNotNull())
            ).alias("wins"),
        )
        .orderBy("pos")
        .collect()
    )
    o = F.struct(*(F.col(f"o{i}") for i in range(len(WIDTHS[conn]))))
    mine = (
        spark.createDataFrame(t.select(["pos", "op", "o0", "o1", "o2", "o3", "ts", "kc", "rok"]).to_pandas())
        .select(
            "pos",
            "op",
            "ts",
            "kc",
            "rok",
            F.when(F.col("o0").isNotNull(), text_of(WIDTHS[conn])(o)).alias("seq"),
        )
        .orderBy("pos")
        .collect()
    )
    for (_, _rok, want), j, r in zip(cases, jvm, mine):
        # the hand-written position is the JVM's (also where the reader leaves the line to it)
        assert (j.seq if j.wins else None) == want, (j, want)
        if not r.rok:
            continue
        assert (r.op, r.ts) == (j.op, j.ts)
        assert r.seq == (j.seq if j.wins else None) == want
        assert r.kc is None or r.kc == j.kc, (r.kc, j.kc)
    assert any(r.kc is not None for r in mine if r.rok)


def test_key_left_to_the_jvm_when_not_canonical():
    ks2 = _j({"type": "struct", "fields": [{"type": "int32", "field": "b"}, {"type": "int32", "field": "a"}]})
    lines = [
        line('{"b":1,"a":2}', env("c", A, src("postgresql", sequence='["1","2"]', lsn=2)), vschema(), ks=ks2),
        line(
            '{"id":"a\\u0001"}',
            env("c", A, src("postgresql", sequence='["1","3"]', lsn=3)),
            vschema(),
            ks=_j({"type": "struct", "fields": [{"type": "string", "field": "id"}]}),
        ),
    ]
    t = _read(lines)
    assert t.column("kc").to_pylist() == [None, None]
    assert t.column("rok").to_pylist() == [True, True]


def test_after_range_is_the_after_object():
    """`a0`/`a1` cut the payload's bytes to the `after` object (compared with a JSON parser's `after`), also
    after a `before` image whose text holds the envelope's words and multi-byte characters; none where `after`
    is null or the schema has a map column (a map key could be named `after`)."""
    before = {"id": 1, "v": 'é,"after":{"id":9},"source":{'}
    s = src("postgresql", sequence='["1","2"]', lsn=2)
    with_before = env("u", {"id": 1, "v": "ü"}, s).replace('"before":null', '"before":' + _j(before), 1)
    maps = ROW + [{"type": "map", "keys": {"type": "string"}, "values": {"type": "int32"}, "field": "m"}]
    lines = [
        line('{"id":1}', with_before, vschema()),
        line('{"id":2}', env("c", {"id": 2, "v": None}, s), vschema(), layout="spaced"),
        line('{"id":3}', env("d", None, s), vschema()),
        line('{"id":4}', env("c", {"id": 4, "v": "x", "m": {"after": 1}}, s), vschema(maps)),
        line(
            '{"id":5}',
            env("u", A, src("mysql", file="b.000001", pos=4, row=0, query=None), tx_first=True),
            vschema(source_name="io.debezium.connector.mysql.Source"),
        ),
    ]
    t = _read(lines)
    assert t.column("rok").to_pylist() == [True] * 5
    cut = [True, True, False, False, True]
    for ln, vp, a0, a1, want in zip(
        lines, t.column("vp").to_pylist(), t.column("a0").to_pylist(), t.column("a1").to_pylist(), cut
    ):
        assert (a0 is not None) == want, ln
        if want:
            after = json.loads(ln)["value"]["payload"]["after"]
            assert json.loads(vp.encode()[a0:a1]) == after
