"""The source position as Spark expressions (`sink.position.seq` on executors): per connector, a struct of
longs to order events by, and the hex text of `sink.position.seq` made from it for the winners only."""

from __future__ import annotations

from collections.abc import Callable

from pyspark.sql import Column
from pyspark.sql import functions as F

from sink.plan import TopicPlan

# the `source` struct's Connect name -> the connector value its records carry (`sink.position.seq` branches)
SOURCE_CONNECTORS = {
    "io.debezium.connector.postgresql.Source": "postgresql",
    "io.debezium.connector.mysql.Source": "mysql",
    "io.debezium.connector.mariadb.Source": "mariadb",
    "io.debezium.connector.mongodb.Source": "mongodb",
}


def connector_of(plans: list[TopicPlan]) -> str | None:
    """The one connector of these topics' change events, by their value schemas' `source` struct name, or None
    (several, or one `seq_expr` has no branch for): then the expression decides per row."""
    names = set()
    for tp in plans:
        for g in tp.changes():
            src = [f for f in g.vschema.get("fields", []) if f.get("field") == "source"]
            names.add(SOURCE_CONNECTORS.get(src[0].get("name")) if src else None)
    return names.pop() if len(names) == 1 else None


def _hex(x, w: int) -> Column:
    # hex() prints A-F; translate, not lower(): Spark 4's lower() goes through ICU, whose first use initializes
    # `CollationAwareUTF8String` (case mappings of every code point: ~1.3 s of one JVM thread, on the first
    # decoding task's path; 9 % of the driver JVM's samples in a 200k-change run, docs/sink.md session 12)
    return F.lpad(F.translate(F.hex(x), "ABCDEF", "abcdef"), w, "0")


# the parts' hex widths per connector (`_parts` pairs them with its columns; `sink.reader_keys` gives the
# parts as columns o0..o3)
WIDTHS = {"postgresql": (16, 16, 1), "mysql": (8, 16, 1, 8), "mariadb": (8, 16, 1, 8), "mongodb": (16, 8, 1)}


def _parts(src, op, connector: str | None) -> list[tuple[Column, int]] | None:
    """`sink.position.seq` of one connector as (long column, hex width) parts, in order; None for other
    connectors. The parts as a struct order events as their hex text does (non-negative, within width)."""
    phase = F.when(op == "r", F.lit(0)).otherwise(F.lit(1)).cast("long")
    if connector == "postgresql":
        raw = src.getField("sequence")
        # `["lastCommitLsn","lsn"]` (either may be null): its two numbers, without a JSON parser
        arr = F.split(F.translate(raw, '[]"', ""), ",")
        has = raw.isNotNull() & (raw != "")
        second = F.coalesce(F.try_element_at(arr, F.lit(2)).try_cast("long"), F.lit(0))
        # a null lastCommitLsn (the first commit after a connector (re)start) of a streamed change: its own
        # LSN, as `sink.position.seq`
        first = F.when(op == "r", F.lit(0)).otherwise(second)
        a = F.when(has, F.coalesce(F.try_element_at(arr, F.lit(1)).try_cast("long"), first)).otherwise(0)
        b = F.when(has, second).otherwise(F.coalesce(src.getField("lsn"), F.lit(0)))
        cols = [a.cast("long"), b.cast("long"), phase]
    elif connector in ("mysql", "mariadb"):
        num = F.coalesce(F.regexp_extract(src.getField("file"), r"\.(\d+)$", 1).try_cast("long"), F.lit(0))
        cols = [
            num,
            F.coalesce(src.getField("pos"), F.lit(0)).cast("long"),
            phase,
            F.coalesce(src.getField("row"), F.lit(0)).cast("long"),
        ]
    elif connector == "mongodb":
        # the cluster time (seconds, as ts_ms) and `ord`, the event's order within that second
        cols = [
            F.coalesce(src.getField("ts_ms"), F.lit(0)).cast("long"),
            F.coalesce(src.getField("ord"), F.lit(0)).cast("long"),
            phase,
        ]
    else:
        return None
    return list(zip(cols, WIDTHS[connector], strict=True))


def seq_expr(src, op, connector: str | None = None):
    """`sink.position.seq` as a Spark expression; with `connector` known (all rows' source struct says which),
    only its branch (a quarter of the generated code to compile and run)."""
    parts = _parts(src, op, connector)
    if parts is not None:
        return F.concat(*(_hex(c, w) for c, w in parts))
    ns = src.getField("ts_ns")
    ts = F.when(ns.isNotNull() & (ns != 0), ns).otherwise(
        F.coalesce(src.getField("ts_ms"), F.lit(0)) * 1_000_000
    )
    other = F.concat(_hex(ts, 20), F.when(op == "r", F.lit("0")).otherwise(F.lit("1")))
    conn = src.getField("connector")
    out = None
    for name in ("postgresql", "mysql", "mongodb"):
        e = F.concat(*(_hex(c, w) for c, w in _parts(src, op, name)))
        test = conn.isin("mysql", "mariadb") if name == "mysql" else conn == name
        out = F.when(test, e) if out is None else out.when(test, e)
    return out.otherwise(other)


def text_of(widths) -> Callable[[Column], Column]:
    """`sink.position.seq`'s text of a struct of parts o0, o1... with these hex widths (as the function's
    `widths`: the winners' texts are made from the parts on the driver, `sink.arrow_decode.seq_texts`)."""

    def text(o: Column) -> Column:
        return F.concat(*(_hex(o.getField(f"o{i}"), w) for i, w in enumerate(widths)))

    text.widths = tuple(widths)
    return text


def position(src, op, connector: str | None):
    """(order, text): the source position as a struct of longs to order events by (the per-key maximum is
    cheaper over longs than over the hex text: fixed-width compares, and no text built per event), and a
    function making `sink.position.seq`'s text of such a struct (for the winners only). Connectors without
    parts order by the text itself."""
    parts = _parts(src, op, connector)
    if parts is None:
        return F.struct(seq_expr(src, op, connector).alias("o0")), lambda o: o.getField("o0")
    order = F.struct(*(c.alias(f"o{i}") for i, (c, _) in enumerate(parts)))
    return order, text_of([w for _, w in parts])
