"""A micro-batch on Spark: which topics the executors can finish, and their plan up to the final rows.

The batch's split records (`sink.split`) are cached once. One aggregation gives, per topic and schema
fingerprint, the schema texts and what the executor path cannot do. Topics with a key, in SCD type 1, without
TOAST placeholders or truncates in the batch (the common case) are done by Spark: `from_json` of the payload
with a small fixed schema (op, source position, `after` kept as text), the canonical key, the source position
as a column, and the last change per key as `max(struct(position, ...))`; only then the winners' `after`
images are decoded (`sink.decode`, per schema fingerprint) and brought to the driver as Arrow — memory bounded
by the final rows. The driver drops what the delete log supersedes, records the batch's deletes and makes one
delta-rs MERGE (`sink.mirror.merge`). Every other topic takes the driver path (`sink.apply`).
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field

import orjson
import pyarrow as pa
import pyarrow.compute as pc
from pyspark.sql import functions as F
from pyspark.sql import types as T

from sink import decode, mirror, tombstones
from sink.batch import BatchStats, Options, TopicBatch, tombstone_path
from sink.delta import OP, RID, SEQ, already_applied, open_table, plan_columns, table_schema
from sink.types import PLACEHOLDER

PH_B64 = "X19kZWJleml1bV91bmF2YWlsYWJsZV92YWx1ZQ"  # the placeholder in a bytes column (base64)
STAGE1 = (
    "op string, ts_ms long, source struct<connector string, sequence string, lsn long, file string, "
    "pos long, row int, ts_ms long, ts_ns long>, after string"
)
KEY_TYPES = {"int8", "int16", "int32", "int64", "string", "boolean", "bytes"}
CHANGE_OPS = ("c", "u", "d", "r")


@dataclass
class Fp:
    """One (topic, key schema, value schema) group of the batch."""

    kfp: int | None
    vfp: int | None
    kschema: dict | None
    vschema: dict | None
    n: int
    placeholder: bool
    truncate: bool
    first: tuple


@dataclass
class TopicPlan:
    topic: str
    groups: list[Fp] = field(default_factory=list)
    fast: bool = False
    why: str = ""

    @property
    def records(self) -> int:
        return sum(g.n for g in self.groups)

    def changes(self) -> list[Fp]:
        return [g for g in self.groups if _after_fields(g.vschema) is not None]


def _after_fields(vschema: dict | None) -> list[dict] | None:
    if not vschema or vschema.get("type") != "struct":
        return None
    fields = {f["field"]: f for f in vschema.get("fields", [])}
    a = fields.get("after")
    if "op" not in fields or "source" not in fields or a is None or a.get("type") != "struct":
        return None
    return a.get("fields", [])


def survey(df) -> dict[str, TopicPlan]:
    """One pass over the (cached) batch: per topic its schema groups and what they contain."""
    ph = F.col("vp").contains(PLACEHOLDER) | F.col("vp").contains(PH_B64)
    tr = F.col("vp").contains('"op":"t"')
    rows = (
        df.groupBy("topic", "kfp", "vfp")
        .agg(
            F.first("kschema", ignorenulls=True).alias("ks"),
            F.first("vschema", ignorenulls=True).alias("vs"),
            F.count(F.lit(1)).alias("n"),
            F.max(F.coalesce(ph, F.lit(False))).alias("ph"),
            F.max(F.coalesce(tr, F.lit(False))).alias("tr"),
            F.min(F.struct("part", "pos")).alias("first"),
        )
        .collect()
    )
    texts: dict[int, dict] = {}  # a schema's text is sent once per partition: with any group of its fp
    for r in rows:
        if r.ks is not None:
            texts.setdefault(r.kfp, orjson.loads(r.ks))
        if r.vs is not None:
            texts.setdefault(r.vfp, orjson.loads(r.vs))
    out: dict[str, TopicPlan] = {}
    for r in rows:
        g = Fp(
            r.kfp,
            r.vfp,
            texts.get(r.kfp),
            texts.get(r.vfp),
            r.n,
            bool(r.ph),
            bool(r.tr),
            (r.first.part, r.first.pos),
        )
        out.setdefault(r.topic, TopicPlan(r.topic)).groups.append(g)
    for tp in out.values():
        tp.groups.sort(key=lambda g: g.first)
    return out


def classify(tp: TopicPlan, tables: str, opts: Options) -> None:
    tp.fast, tp.why = False, ""
    ch = tp.changes()
    if opts.scd != 1:
        tp.why = "SCD type 2"
    elif not ch:
        tp.why = "no change events"
    elif any(g.truncate for g in tp.groups):
        tp.why = "truncate"
    elif any(g.placeholder for g in ch):
        tp.why = "TOAST placeholders"
    elif any(g.kfp is None for g in ch):
        tp.why = "no key"
    elif len({g.kfp for g in ch}) > 1:
        tp.why = "key schema changed"
    elif any(f["type"] not in KEY_TYPES for f in ch[0].kschema.get("fields", [])):
        tp.why = "key type"
    else:
        try:
            for g in ch:
                decode.physical({"type": "struct", "fields": _after_fields(g.vschema)})
        except decode.Unsupported as e:
            tp.why = str(e)
            return
        dt = open_table(os.path.join(tables, tp.topic))
        if dt is not None and RID in table_schema(dt).names:
            tp.why = "table mirrored without a key"
            return
        tp.fast = True


def slow_records(df, plans: list[TopicPlan]):
    """The driver path's records of these topics, rebuilt as (topic, key_doc, value_doc, tie, headers)."""
    schemas: dict[int, dict] = {}
    for tp in plans:
        for g in tp.groups:
            if g.kfp is not None:
                schemas[g.kfp] = g.kschema
            if g.vfp is not None:
                schemas[g.vfp] = g.vschema
    t = (
        df.where(F.col("topic").isin([tp.topic for tp in plans]))
        .select("topic", "part", "pos", "kfp", "kp", "vfp", "vp", "hdr")
        .toArrow()
    )
    loads = orjson.loads
    for topic, part, pos, kfp, kp, vfp, vp, hdr in zip(*(c.to_pylist() for c in t.columns)):
        k = None if kp is None else {"schema": schemas.get(kfp), "payload": loads(kp)} if kfp else loads(kp)
        if vp is None:
            v = None
        elif vfp is None:
            v = loads(vp)
        else:
            v = {"schema": schemas[vfp], "payload": loads(vp)}
        yield topic, k, v, (part, pos), None if hdr is None else loads(hdr)


def seq_expr(src, op):
    """`sink.position.seq` as a Spark expression."""

    def h(x, w):
        return F.lpad(F.lower(F.hex(x)), w, "0")

    phase = F.when(op == "r", F.lit("0")).otherwise(F.lit("1"))
    raw = src.getField("sequence")
    arr = F.from_json(raw, T.ArrayType(T.StringType()))
    has = raw.isNotNull() & (raw != "")
    a = F.when(has, F.coalesce(arr[0].try_cast("long"), F.lit(0))).otherwise(F.lit(0))
    b = F.when(has, F.coalesce(arr[1].try_cast("long"), F.lit(0))).otherwise(
        F.coalesce(src.getField("lsn"), F.lit(0))
    )
    pg = F.concat(h(a, 16), h(b, 16), phase)
    num = F.coalesce(F.regexp_extract(src.getField("file"), r"\.(\d+)$", 1).try_cast("long"), F.lit(0))
    my = F.concat(
        h(num, 8),
        h(F.coalesce(src.getField("pos"), F.lit(0)), 16),
        phase,
        h(F.coalesce(src.getField("row"), F.lit(0)), 8),
    )
    ns = src.getField("ts_ns")
    ts = F.when(ns.isNotNull() & (ns != 0), ns).otherwise(
        F.coalesce(src.getField("ts_ms"), F.lit(0)) * 1_000_000
    )
    other = F.concat(h(ts, 20), phase)
    conn = src.getField("connector")
    return F.when(conn == "postgresql", pg).when(conn.isin("mysql", "mariadb"), my).otherwise(other)


def _key_phys(kschema: dict, sort: bool) -> T.StructType:
    fields = kschema.get("fields", [])
    if sort:
        fields = sorted(fields, key=lambda f: f["field"])
    return T.StructType([T.StructField(f["field"], decode.physical(f), True) for f in fields])


def winners(df, plans: list[TopicPlan]):
    """Per (topic, key): the last change by source position, and the position of the key's last delete."""
    fps = [g.vfp for tp in plans for g in tp.changes()]
    ev = df.where(
        F.col("topic").isin([tp.topic for tp in plans]) & F.col("vfp").isin(fps) & F.col("vp").isNotNull()
    )
    p = F.from_json("vp", STAGE1)
    kc = None
    for tp in plans:  # the key as canonical JSON (sorted fields), as the delete log and driver path key it
        e = F.to_json(
            F.from_json("kp", _key_phys(tp.changes()[0].kschema, True)), {"ignoreNullFields": "false"}
        )
        kc = F.when(F.col("topic") == tp.topic, e) if kc is None else kc.when(F.col("topic") == tp.topic, e)
    ev = ev.select("topic", kc.alias("kc"), "part", "pos", "vfp", "kp", p.alias("p"))
    src = F.col("p.source")
    ev = ev.select(
        "topic",
        "kc",
        "part",
        "pos",
        "vfp",
        "kp",
        F.col("p.op").alias("op"),
        seq_expr(src, F.col("p.op")).alias("seq"),
        F.col("p.after").alias("after"),
        F.coalesce(F.col("p.ts_ms"), src.getField("ts_ms"), F.lit(0)).alias("ts"),
    ).where(F.col("op").isin(*CHANGE_OPS))
    return ev.groupBy("topic", "kc").agg(
        F.max(F.struct("seq", "part", "pos", "op", "vfp", "after", "kp", "ts")).alias("w"),
        F.max(F.when(F.col("op") == "d", F.col("seq"))).alias("dseq"),
    )


def _decoded(w, tp: TopicPlan, g: Fp) -> pa.Table:
    """The winners of one schema group, decoded on executors, as Arrow."""
    after = _after_fields(g.vschema)
    kfields = tp.changes()[0].kschema.get("fields", [])
    a = F.from_json("w.after", decode.physical({"type": "struct", "fields": after}))
    k = F.from_json("w.kp", _key_phys(tp.changes()[0].kschema, False))
    is_del = F.col("w.op") == "d"
    cols = []
    names = {f["field"] for f in after}
    knames = {f["field"]: f for f in kfields}
    for f in after:
        c = decode.convert(a.getField(f["field"]), f)
        if f["field"] in knames:
            c = F.when(is_del, decode.convert(k.getField(f["field"]), knames[f["field"]])).otherwise(c)
        cols.append(c.alias(f["field"]))
    for f in kfields:
        if f["field"] not in names:
            cols.append(decode.convert(k.getField(f["field"]), f).alias(f["field"]))
    meta = [
        F.col("w.seq").alias(SEQ),
        F.col("w.op").alias(OP),
        F.col("kc").alias("__kc"),
        F.col("dseq").alias("__dseq"),
        F.col("w.ts").alias("__ts"),
    ]
    sel = w.where((F.col("topic") == tp.topic) & (F.col("w.vfp") == g.vfp)).select(*cols, *meta)
    return sel.toArrow()


def _column(t: pa.Table, c: str, typ: pa.DataType, default) -> pa.Array:
    if c in t.column_names:
        try:
            return t.column(c).cast(typ)
        except pa.ArrowInvalid:  # null structs with non-nullable children (e.g. geometry): rebuild
            return pa.array(t.column(c).to_pylist(), typ)
    return pa.array([default] * len(t), typ)


def _chunked(parts: list, typ: pa.DataType) -> pa.ChunkedArray:
    chunks = []
    for x in parts:
        chunks.extend(x.chunks if isinstance(x, pa.ChunkedArray) else [x])
    return pa.chunked_array(chunks, typ)


def apply_topic(
    w, tp: TopicPlan, tables: str, app_id: str, batch_id: int, opts: Options, st: BatchStats
) -> None:
    path = os.path.join(tables, tp.topic)
    tpath = tombstone_path(tables, tp.topic)
    dt = open_table(path)
    if already_applied(dt, app_id, batch_id):
        st.skipped_replay.append(tp.topic)
        return
    ch = tp.changes()
    tb = TopicBatch()
    tb.key_cols = [f["field"] for f in ch[0].kschema.get("fields", [])]
    for g in ch:
        for f in _after_fields(g.vschema):
            tb.cols[f["field"]] = f
    for f in ch[0].kschema.get("fields", []):
        tb.cols.setdefault(f["field"], f)
    parts = [_decoded(w, tp, g) for g in ch]
    parts = [t for t in parts if len(t)]
    if not parts:
        st.applied[tp.topic] = 0
        return
    plan = plan_columns(dt, tb.cols, tb.key_cols, [pa.field(SEQ, pa.string(), nullable=False)])
    cols = {c: [] for c in [*plan.cols, SEQ, OP, "__kc", "__dseq", "__ts"]}
    for t in parts:
        for c in plan.cols:
            cols[c].append(_column(t, c, plan.schema.field(c).type, plan.defaults.get(c)))
        for c in (SEQ, OP, "__kc", "__dseq"):
            cols[c].append(t.column(c).cast(pa.string()))
        cols["__ts"].append(t.column("__ts").cast(pa.int64()))
    types = {**{c: plan.schema.field(c).type for c in plan.cols}, "__ts": pa.int64()}
    src = pa.table({c: _chunked(v, types.get(c, pa.string())) for c, v in cols.items()})
    st.max_ts_ms = max(st.max_ts_ms, pc.max(src.column("__ts")).as_py() or 0)

    keys = src.column("__kc").to_pylist()
    seqs = src.column(SEQ).to_pylist()
    dseqs = src.column("__dseq").to_pylist()
    old = tombstones.load(tpath, set(keys))
    floor = old.get(tombstones.TRUNCATE_KEY)
    keep = [s > old.get(k, "") and (floor is None or s >= floor) for k, s in zip(keys, seqs)]
    new_tombs = {k: d for k, d in zip(keys, dseqs) if d is not None and (floor is None or d >= floor)}
    tombstones.write(tpath, new_tombs, app_id, batch_id, opts.now_ms)
    src = src.filter(pa.array(keep, pa.bool_())).select([*plan.cols, SEQ, OP])
    if len(src) == 0:
        st.applied[tp.topic] = 0
        return
    src = src.cast(pa.schema([*plan.schema, pa.field(OP, pa.string())]))
    from sink.delta import create_or_evolve

    mirror.merge(create_or_evolve(path, dt, plan), plan, tb.key_cols, src, None, app_id, batch_id)
    st.applied[tp.topic] = len(src)


def run_batch(df, tables: str, app_id: str, batch_id: int, opts: Options) -> BatchStats:
    """The whole micro-batch: executor path for what it can do, driver path for the rest."""
    from sink.apply import apply_topics
    from sink.batch import collect

    st = BatchStats()
    df = df.persist()
    try:
        plans = survey(df)
        st.records = sum(tp.records for tp in plans.values())
        for tp in plans.values():
            classify(tp, tables, opts)
        fast = [tp for tp in sorted(plans.values(), key=lambda t: t.topic) if tp.fast]
        slow = [tp for tp in sorted(plans.values(), key=lambda t: t.topic) if not tp.fast]
        if fast:
            w = winners(df, fast)
            many = sum(len(tp.changes()) for tp in fast) > 1
            if many:
                w = w.persist()
            try:
                for tp in fast:
                    apply_topic(w, tp, tables, app_id, batch_id, opts, st)
                    st.pruned += _prune(tables, tp.topic, opts)
            finally:
                if many:
                    w.unpersist()
        if slow:
            apply_topics(tables, collect(slow_records(df, slow)), app_id, batch_id, opts, st)
    finally:
        df.unpersist()
    st.fast = [tp.topic for tp in fast]
    st.driver = {tp.topic: tp.why for tp in slow}
    return st


def _prune(tables: str, topic: str, opts: Options) -> int:
    from sink.apply import _prune as prune

    return prune(tables, topic, opts)
