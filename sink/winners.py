"""The winners stage of a micro-batch on executors: per (topic, key) the last change by source position and the
key's last delete, from the readers' op/position columns (`sink.reader_keys`) or, where they could not read
a payload, from `from_json` of it; TOAST placeholders carried forward by window functions. `sink.executors`
decodes the winners' `after` images and writes them.
"""

from __future__ import annotations

from pyspark.sql import Column, Window
from pyspark.sql import functions as F
from pyspark.sql import types as T

from sink import decode
from sink.arrow_decode import position_field
from sink.plan import TopicPlan, toast_cols
from sink.position_expr import WIDTHS, connector_of, position, text_of
from sink.stats import PH_B64
from sink.types import PLACEHOLDER

# a placeholder column's payload as `from_json` reads it as text: string, bytes, array of either
PLACEHOLDER_TEXTS = (PLACEHOLDER, PH_B64 + "==", f'["{PLACEHOLDER}"]', f'["{PH_B64}=="]')
STAGE1 = (
    "op string, ts_ms long, source struct<connector string, sequence string, lsn long, file string, "
    "pos long, row int, ord int, ts_ms long, ts_ns long>, after string"
)
CHANGE_OPS = ("c", "u", "d", "r")


def key_phys(kschema: dict, sort: bool) -> T.StructType:
    fields = kschema.get("fields", [])
    if sort:
        fields = sorted(fields, key=lambda f: f["field"])
    return T.StructType([T.StructField(f["field"], decode.physical(f), True) for f in fields])


def per_topic(plans: list[TopicPlan], expr) -> Column | None:
    out = None
    for tp in plans:
        e = expr(tp)
        if e is None:
            continue
        out = (
            F.when(F.col("topic") == tp.topic, e) if out is None else out.when(F.col("topic") == tp.topic, e)
        )
    return out


def ph_test(c: Column) -> Column:
    """A raw payload text (`from_json` as string) that is Debezium's unavailable-value placeholder."""
    return c.isin(*PLACEHOLDER_TEXTS)


def carried(ev, plans: list[TopicPlan], text):
    """TOAST carry-forward with window functions: per key in source order, each placeholder column gets the
    last earlier image's value (text as in the payload) or, after a delete, null. `fill` maps column ->
    struct(d: deleted since, v: text, s: that image's or delete's position text, `sink.fills`' provenance);
    no entry (null) means no earlier image in the batch: the driver takes the value from the table."""
    w = (
        Window.partitionBy("topic", "kc")
        .orderBy("o", "part", "pos")
        .rowsBetween(Window.unboundedPreceding, -1)
    )
    is_del = F.col("op") == "d"
    fills = []
    for tp in plans:
        cols = toast_cols(tp)
        raw = F.from_json("after", T.StructType([T.StructField(c, T.StringType(), True) for c in cols]))
        entries = []
        for c in cols:
            v = raw.getField(c)
            at = text(F.col("o")).alias("s")
            mark = F.when(
                is_del, F.struct(F.lit(True).alias("d"), F.lit(None).cast("string").alias("v"), at)
            ).when(~ph_test(v) | v.isNull(), F.struct(F.lit(False).alias("d"), v.alias("v"), at))
            entries += [F.lit(c), F.last(mark, ignorenulls=True).over(w)]
        fills.append((tp.topic, F.create_map(*entries)))
    fill = None
    for topic, e in fills:
        fill = F.when(F.col("topic") == topic, e) if fill is None else fill.when(F.col("topic") == topic, e)
    return ev.withColumn("fill", fill)


def reader_path(plans: list[TopicPlan], toast: list[TopicPlan]) -> str | None:
    """The connector when the readers gave every event's op and position (`sink.reader_keys`) and the batch
    needs nothing else from the payload before the winners are known (no TOAST carry-forward), else None."""
    conn = connector_of(plans)
    if conn not in WIDTHS or toast or any(g.unread for tp in plans for g in tp.keyed()):
        return None
    return conn


def after_ranges(plans: list[TopicPlan], conn: str) -> bool:
    """Every keyed group's payloads come with `after`'s byte range (`sink.reader_keys`: relational envelopes;
    a change the reader could not cut is unread, and then the readers' path is not taken)."""
    return conn != "mongodb" and all(g.cut for tp in plans for g in tp.keyed())


def winners(df, plans: list[TopicPlan], truncs: dict[str, str]):
    """Per (topic, key): the last change by source position, and the position of the key's last delete.
    Events before a truncate of the batch are dropped first; TOAST placeholders are carried forward."""
    ev, text, conn, cut = candidates(df, plans, truncs)
    return reduced(ev, text, conn, cut)


def candidates(df, plans: list[TopicPlan], truncs: dict[str, str]):
    """The events `winners` reduces: (topic, canonical key, delivery position, op, position `o`, null for an
    event that cannot win, `after` or the payload, ...), with the function giving a position's text, the
    connector when the readers' columns were used (else None) and whether `after` is the readers' cut."""
    fps = [g.vfp for tp in plans for g in tp.keyed()]
    ev = df.where(
        F.col("topic").isin([tp.topic for tp in plans if tp.keyed()])
        & F.col("vfp").isin(fps)
        & F.col("vp").isNotNull()
    )
    # the key as canonical JSON (sorted fields), as the delete log and driver path key it
    kc = per_topic(
        [tp for tp in plans if tp.keyed()],
        lambda tp: F.to_json(
            F.from_json("kp", key_phys(tp.keyed()[0].kschema, True)), {"ignoreNullFields": "false"}
        ),
    )
    toast = [tp for tp in plans if any(g.placeholder for g in tp.changes()) and toast_cols(tp)]
    conn = reader_path(plans, toast)
    cut = False
    if conn is not None:
        # the readers' op, position and (where sure) canonical key: no payload parsed before the winners
        # are known; the winner carries its payload, whose `after` is read at the end
        widths = WIDTHS[conn]
        text = text_of(widths)
        o = F.struct(*(F.col(f"o{i}") for i in range(len(widths))))
        # the `after` object's bytes where the readers gave its range: the shuffle carries, and `from_json`
        # tokenizes, only that (not `before`, `source` and the rest); else the whole payload
        cut = after_ranges(plans, conn)
        payload = F.col("vp")
        if cut:
            payload = F.when(
                F.col("a0").isNotNull(),
                F.substring(F.col("vp").cast("binary"), F.col("a0") + 1, F.col("a1") - F.col("a0")).cast(
                    "string"
                ),
            )
        ev = ev.select(
            "topic",
            F.coalesce(F.col("kc"), kc).alias("kc"),
            "part",
            "pos",
            "vfp",
            "kp",
            "op",
            F.when(F.col("o0").isNotNull(), o).alias("o"),
            payload.alias("after"),
            "ts",
        )
    else:
        p = F.from_json("vp", STAGE1)
        ev = ev.select("topic", kc.alias("kc"), "part", "pos", "vfp", "kp", p.alias("p"))
        src = F.col("p.source")
        order, text = position(src, F.col("p.op"), connector_of(plans))
        ev = ev.select(
            "topic",
            "kc",
            "part",
            "pos",
            "vfp",
            "kp",
            F.col("p.op").alias("op"),
            order.alias("o"),
            F.col("p.after").alias("after"),
            F.coalesce(F.col("p.ts_ms"), src.getField("ts_ms"), F.lit(0)).alias("ts"),
        )
    # Events that cannot win (not a change, an update without its image, before the batch's truncate) get no
    # position rather than a filter: `max_by` skips them, and a filter would be pushed below the projection,
    # parsing every payload twice (`from_json` in the filter and in the projection)
    ok = F.col("op").isin(*CHANGE_OPS) & ((F.col("op") == "d") | F.col("after").isNotNull())
    if conn is not None:
        ok = F.col("o").isNotNull()
    floor = per_topic(
        plans, lambda tp: text(F.col("o")) >= F.lit(truncs[tp.topic]) if tp.topic in truncs else None
    )
    if floor is not None:
        ok = ok & floor.otherwise(F.lit(True))
    ev = ev.withColumn("o", F.when(ok, F.col("o")))
    fill_t = T.MapType(
        T.StringType(),
        T.StructType(
            [
                T.StructField("d", T.BooleanType()),
                T.StructField("v", T.StringType()),
                T.StructField("s", T.StringType()),
            ]
        ),
    )
    if toast:
        names = [tp.topic for tp in toast]
        rest = ev.where(~F.col("topic").isin(names)).withColumn("fill", F.lit(None).cast(fill_t))
        ev = carried(ev.where(F.col("topic").isin(names) & F.col("o").isNotNull()), toast, text)
        ev = ev.unionByName(rest)
    else:
        ev = ev.withColumn("fill", F.lit(None).cast(fill_t))
    return ev, text, conn, cut


# the winner's fields besides its position and `after` (`reduced`'s `fields`; a caller that reads fewer names
# them: each is copied into the aggregate's buffer at every new maximum and carried through the shuffle)
FIELDS = ("part", "pos", "op", "vfp", "kp", "ts", "fill")


def reduced(ev, text, conn: str | None, cut: bool, hashed: bool = True, fields: tuple[str, ...] = FIELDS):
    """`winners` from its `candidates` (`hashed=False`: grouped by (topic, key) alone, the plan before session
    18, for `bench/bench_sink_stages.py`); the winner struct `w` holds `seq`, `fields` and `after`."""
    # shuffled by key first: the aggregation (sort-based: its buffer holds strings) then sorts every event
    # once; otherwise its partial step sorts them in each input partition, where keys seldom repeat, and the
    # final step sorts again what that left.
    # Grouped by a 64-bit hash of (topic, key) ahead of them: the sort's prefix is its first key, and the
    # topic (one value per batch, often) as that key made nearly every comparison a full comparison of the
    # rows' topic and key texts; the hash decides nearly all of them from the prefix. The groups are the same
    # (the hash is a function of the two); the JVM's CPU for the stage -10 to -15 % (docs/sink.md, session 18)
    # Shuffled by the hash alone: a partitioning by a subset of the grouping keys satisfies the aggregation's
    # (the same rows meet), and the exchange no longer hashes the topic and key texts a second time.
    keys, by = ["topic", "kc"], ["topic", "kc"]
    if hashed:
        ev = ev.withColumn("h", F.xxhash64("topic", "kc"))
        keys, by = ["h", "topic", "kc"], ["h"]
    w = (
        ev.repartition(*by)
        .groupBy(*keys)
        .agg(
            F.max_by(
                F.struct("o", *fields, "after"),
                F.when(F.col("o").isNotNull(), F.struct("o", "part", "pos")),
            ).alias("w"),
            F.max(F.when(F.col("op") == "d", F.col("o"))).alias("d"),
        )
    )
    # the position's text only for the winners (and the key's last delete)
    # on the readers' path without `after`'s byte range (MongoDB) the winner carries its payload (`vp`):
    # decoding reads `after` from it directly, and `after` as text is made only where it is used (a document)
    after = [F.col("w.after").alias("after")]
    if conn is not None and not cut:
        after = [
            F.from_json("w.after", "after string").getField("after").alias("after"),
            F.col("w.after").alias("vp"),
        ]
    widths = getattr(text, "widths", None)
    if widths is not None:
        # the position's parts (longs), named with their hex widths: the driver makes the texts from Arrow
        # (`sink.arrow_decode.seq_texts`; the expression per winner was ~6 % of the job's executor samples)
        def parts(o: Column) -> Column:
            return F.struct(
                *(o.getField(f"o{i}").alias(position_field(i, wd)) for i, wd in enumerate(widths))
            )

        seq, dseq = (
            parts(F.col("w.o")).alias("seq"),
            F.when(F.col("d").isNotNull(), parts(F.col("d"))).alias("dseq"),
        )
    else:
        seq, dseq = (
            text(F.col("w.o")).alias("seq"),
            F.when(F.col("d").isNotNull(), text(F.col("d"))).alias("dseq"),
        )
    return w.where(F.col("w").isNotNull()).select(
        "topic", "kc", F.struct(seq, *(F.col(f"w.{f}").alias(f) for f in fields), *after).alias("w"), dseq
    )
