"""A micro-batch on Spark: which topics the executors can finish, and their plan up to the final rows.

On the cached path (`sink.microbatch.cached_batch`; the common batch takes `sink.onepass`) the batch's split
records (`sink.split`) are cached once and the readers' survey rows give, per topic and schema fingerprint, the
schema texts and what the executor path cannot do (`sink.plan`). Topics with a key, in SCD type 1 (the common
case) are done by Spark: the last change per key by source position (`sink.winners`); only then the winners'
`after` images are decoded (`sink.arrow_json` on the driver, or `sink.decode` expressions, per schema
fingerprint) and brought to the driver as Arrow — memory bounded by the final rows. The driver drops what the
delete log supersedes, records the batch's deletes and makes one delta-rs MERGE (`sink.mirror.merge`). SCD type
2 and keyless topics are decoded here and written by `sink.history` / `sink.keyless`; every other topic takes
the driver path (`sink.apply`)."""

from __future__ import annotations

import os

import orjson
import pyarrow as pa
import pyarrow.compute as pc
from pyspark.sql import Column
from pyspark.sql import functions as F
from pyspark.sql import types as T

from sink import arrow_decode, arrow_json, decode, fills, mirror, tombstones
from sink.batch import BatchStats, Options, TopicBatch, tombstone_path
from sink.delta import OP, RID, SEQ, already_applied, commit, open_table, plan_columns, table_schema
from sink.oldkey import oldkey_of
from sink.plan import (
    DOCUMENT,
    Fp,
    TopicPlan,
    after_fields,
    is_doc,
    key_schema,
    row_fields,
    toast_cols,
)
from sink.position_expr import connector_of, seq_expr
from sink.types import DECIMAL, spark_type
from sink.winners import CHANGE_OPS, STAGE1, key_phys, ph_test


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


def truncates(df, plans: list[TopicPlan]) -> dict[str, str]:
    """Per topic with truncate events in the batch: the position of its last one."""
    tt = [tp.topic for tp in plans if any(g.truncate for g in tp.groups)]
    if not tt:
        return {}
    p = F.from_json("vp", STAGE1)
    ev = df.where(F.col("topic").isin(tt) & F.col("vp").contains('"op":"t"')).select("topic", p.alias("p"))
    seq = seq_expr(F.col("p.source"), F.col("p.op"), connector_of(plans))
    ev = ev.where(F.col("p.op") == "t").select("topic", seq.alias("s"))
    return {r.topic: r.s for r in ev.groupBy("topic").agg(F.max("s").alias("s")).collect()}


def decoded_winners(w, tp: TopicPlan, g: Fp) -> pa.Table:
    """The winners of one schema group, decoded, as Arrow; `__unres` lists the columns whose placeholder found
    no earlier image in the batch. Flat rows of the common types are parsed on the driver from the winners'
    `after` texts (`sink.arrow_json`); the rest, or texts it does not read exactly, by Spark expressions."""
    t = None
    if json_readable(w, tp, g):
        t = json_winners(w, tp, g)
    if t is None:
        late = arrow_decodes(tp, g)
        t = decoded(w, tp, g, late).toArrow()
        for name, (prec, scale) in late.items():
            t = t.set_column(
                t.schema.get_field_index(name), name, arrow_decode.decimals(t[name], prec, scale)
            )
    for name in (SEQ, "__dseq"):  # the position's parts (`winners.reduced`), when not already its text
        if pa.types.is_struct(t.schema.field(name).type):
            t = t.set_column(t.schema.get_field_index(name), name, arrow_decode.seq_texts(t[name]))
    return t


def json_readable(w, tp: TopicPlan, g: Fp) -> bool:
    """The group's winners can be read by `sink.arrow_json` (`json_fits`) and their `after` is its own text
    (not the payload)."""
    return "vp" not in w.schema["w"].dataType.names and json_fits(tp, g)


def json_fits(tp: TopicPlan, g: Fp) -> bool:
    """`sink.arrow_json` reads the group's `after` texts: not a document, no TOAST placeholders to carry, every
    column of a type it reads, and the key's columns among the row's with the same types (a delete's row is its
    canonical key read with the row's schema)."""
    if is_doc(g.vschema) or _placeholder_cols(tp, g):
        return False
    after = after_fields(g.vschema)
    if not after or not arrow_json.supported(after):
        return False
    same = ("type", "name", "parameters")
    row = {f["field"]: tuple(f.get(x) for x in same) for f in after}
    return all(
        row.get(f["field"]) == tuple(f.get(x) for x in same) for f in tp.keyed()[0].kschema.get("fields", [])
    )


def json_winners(w, tp: TopicPlan, g: Fp) -> pa.Table | None:
    """`decoded`'s table by `sink.arrow_json` (None: a text it does not read; the caller takes the expression
    path). The executors send one JSON text per winner: its `after`, or for a delete its canonical key, whose
    fields are the row's key columns (the other columns of a delete's row are null, as `decoded` makes them)."""
    text = F.when(F.col("w.op") == "d", F.col("kc")).otherwise(F.col("w.after"))
    t = _group(w, tp, g).select(text.alias("__json"), *meta_cols([])).toArrow()
    if not len(t):
        return t
    return arrow_winners(t, g)


def arrow_winners(t: pa.Table, g: Fp, drop: tuple[str, ...] = ("__json",)) -> pa.Table | None:
    """The winners' table `t` (their `__json` texts beside the meta columns) with the row's columns parsed by
    `sink.arrow_json` in place of the `drop` columns; None: a text it does not read."""
    try:
        cols = arrow_json.read(t["__json"], after_fields(g.vschema), t.schema.field("__kc").type)
    except arrow_json.NotRead:
        return None
    meta = t.drop_columns(list(drop))
    return pa.table({**cols, **{c: meta[c] for c in meta.column_names}})


def _group(w, tp: TopicPlan, g: Fp):
    return w.where((F.col("topic") == tp.topic) & (F.col("w.vfp") == g.vfp))


def meta_cols(unres: list[Column], frm: list | None = None) -> list[Column]:
    """The winners' columns besides the row's: position text (or parts), op, canonical key, the key's last
    delete, the event's ts, the placeholder columns left to the table's values and those filled from an
    earlier image of the batch, with that image's position (`frm`: (column, position or null) pairs;
    `sink.fills`)."""
    got = F.create_map(*(x for c, v in frm for x in (F.lit(c), v))) if frm else None
    # `__from` only where placeholders are carried (absent: none; the one pass's query stays as it was)
    extra = [] if got is None else [F.map_filter(got, lambda _, v: v.isNotNull()).alias("__from")]
    return [
        F.col("w.seq").alias(SEQ),
        F.col("w.op").alias(OP),
        F.col("kc").alias("__kc"),
        F.col("dseq").alias("__dseq"),
        F.col("w.ts").alias("__ts"),
        (
            F.filter(F.array(*unres), lambda x: x.isNotNull()) if unres else F.lit(None).cast("array<string>")
        ).alias("__unres"),
        *extra,
    ]


def arrow_decodes(tp: TopicPlan, g: Fp) -> dict[str, tuple[int, int]]:
    """The row's Decimal columns of up to 18 digits that come to the driver as their payload text and are decoded
    from Arrow (`sink.arrow_decode`: the Spark expression was ~7 % of the winners job's samples; docs/sink.md,
    session 19): name -> (precision, scale). Not TOAST columns (their value may be an earlier image's text)."""
    if is_doc(g.vschema):
        return {}
    toast = _placeholder_cols(tp, g)
    out = {}
    for f in after_fields(g.vschema):
        st = spark_type(f)
        if (
            f.get("name") == DECIMAL
            and f["type"] == "bytes"
            and isinstance(st, T.DecimalType)
            and st.precision <= 18
            and f["field"] not in toast
        ):
            out[f["field"]] = (st.precision, st.scale)
    return out


def _placeholder_cols(tp: TopicPlan, g: Fp) -> dict:
    """The TOAST columns whose value may be a placeholder in this group's winners (none where no event of the
    topic's batch holds one)."""
    return toast_cols(tp) if g.placeholder or any(x.placeholder for x in tp.changes()) else {}


def decoded(w, tp: TopicPlan, g: Fp, late: dict | None = None):
    """`decoded_winners`' DataFrame; the columns named in `late` are left as their payload text."""
    late = late or {}

    def conv(c: Column, f: dict) -> Column:
        return c if f["field"] in late else decode.convert(c, f)

    kfields = tp.keyed()[0].kschema.get("fields", [])
    k = F.from_json("w.kp", key_phys(tp.keyed()[0].kschema, False))
    is_del = F.col("w.op") == "d"
    cols, unres, frm = [], [], []
    knames = {f["field"]: f for f in kfields}
    if is_doc(g.vschema):
        after, names = [], set()
        cols.append(F.when(is_del, F.lit(None)).otherwise(F.col("w.after")).alias(DOCUMENT["field"]))
    else:
        after = after_fields(g.vschema)
        names = {f["field"] for f in after}
    phys = decode.physical({"type": "struct", "fields": after})
    if "vp" in w.schema["w"].dataType.names:  # the payload itself (`winners` on the readers' path)
        a = F.from_json("w.vp", T.StructType([T.StructField("after", phys, True)])).getField("after")
    else:
        a = F.from_json("w.after", phys)
    toast = _placeholder_cols(tp, g)
    raw = F.from_json("w.after", T.StructType([T.StructField(c, T.StringType(), True) for c in toast]))
    for f in after:
        c = conv(a.getField(f["field"]), f)
        if f["field"] in knames:
            c = F.when(is_del, conv(k.getField(f["field"]), knames[f["field"]])).otherwise(c)
        elif f["field"] in toast:
            ph = ph_test(raw.getField(f["field"]))
            prev = F.col("w.fill").getItem(f["field"])
            phys = decode.physical(f)
            text = prev.getField("v")
            val = text if isinstance(phys, T.StringType) else F.from_json(text, phys)
            c = F.when(
                ph & prev.isNotNull(),
                F.when(prev.getField("d"), F.lit(None)).otherwise(decode.convert(val, f)),
            ).otherwise(c)
            unres.append(F.when(ph & prev.isNull() & ~is_del, F.lit(f["field"])))
            frm.append((f["field"], F.when(ph & prev.isNotNull() & ~is_del, prev.getField("s"))))
        cols.append(c.alias(f["field"]))
    for f in kfields:
        if f["field"] not in names:
            cols.append(decode.convert(k.getField(f["field"]), f).alias(f["field"]))
    return _group(w, tp, g).select(*cols, *meta_cols(unres, frm))


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


def _fill_from_table(
    dt, key_cols: list[str], fields: dict, src: pa.Table, log: dict
) -> tuple[pa.Table, dict[str, dict[str, str]]]:
    """Placeholders with no earlier image in the batch take the table's value (bounded by the final rows);
    when the table has no row either, the placeholder stays (the MERGE fills it when the base image comes).
    Per key, the position those values came from (`sink.fills.table_src`, "" where the placeholder stays)."""
    unres = src.column("__unres").to_pylist()
    need = {k: set(u) for k, u in zip(src.column("__kc").to_pylist(), unres) if u}
    if not need:
        return src, {}
    prev = mirror.rows_by_key(dt, key_cols, need, fields) if dt is not None else {}
    srcs = {k: {c: fills.table_src(prev.get(k), SEQ, log, k, c) for c in u} for k, u in need.items()}
    for c in sorted({c for u in need.values() for c in u}):
        vals = src.column(c).to_pylist()
        for i, (k, u) in enumerate(zip(src.column("__kc").to_pylist(), unres)):
            if u and c in u and k in prev:
                vals[i] = prev[k].get(c)
        src = src.set_column(src.column_names.index(c), c, pa.array(vals, src.schema.field(c).type))
    return src, srcs


def apply_topic(
    w,
    tp: TopicPlan,
    tables: str,
    app_id: str,
    batch_id: int,
    opts: Options,
    st: BatchStats,
    trunc: str | None,
    parts: list[pa.Table] | None = None,
) -> None:
    """One topic's winners written (`parts`: its keyed groups' `decoded_winners`, already made by
    `sink.onepass`; else made here from `w`)."""
    path = os.path.join(tables, tp.topic)
    tpath = tombstone_path(tables, tp.topic)
    dt = open_table(path)
    if already_applied(dt, app_id, batch_id):
        st.skipped_replay.append(tp.topic)
        return
    keyed = tp.keyed()
    if parts is None:
        parts = [decoded_winners(w, tp, g) for g in keyed] if keyed and w is not None else []
    parts = [t for t in parts if len(t)]
    if not parts:
        if trunc is not None:
            tombstones.write(tpath, {tombstones.TRUNCATE_KEY: trunc}, app_id, batch_id, opts.now_ms)
            if dt is not None:  # only a truncate: delete what it supersedes
                dt.delete(f"{SEQ} < '{trunc}'", commit_properties=commit(app_id, batch_id))
        st.applied[tp.topic] = 0
        return
    tb = TopicBatch()
    tb.key_cols = [f["field"] for f in keyed[0].kschema.get("fields", [])]
    for g in keyed:
        for f in row_fields(tp, g):
            tb.cols[f["field"]] = f
    for f in keyed[0].kschema.get("fields", []):
        tb.cols.setdefault(f["field"], f)
    plan = plan_columns(dt, tb.cols, tb.key_cols, [pa.field(SEQ, pa.string(), nullable=False)])
    meta = (SEQ, OP, "__kc", "__dseq")
    cols = {c: [] for c in [*plan.cols, *meta, "__ts", "__unres", "__from"]}
    for t in parts:
        for c in plan.cols:
            cols[c].append(_column(t, c, plan.schema.field(c).type, plan.defaults.get(c)))
        for c in meta:
            cols[c].append(t.column(c).cast(pa.string()))
        cols["__ts"].append(t.column("__ts").cast(pa.int64()))
        cols["__unres"].append(t.column("__unres").cast(pa.list_(pa.string())))
        cols["__from"].append(_column(t, "__from", pa.map_(pa.string(), pa.string()), None))
    types = {
        **{c: plan.schema.field(c).type for c in plan.cols},
        "__ts": pa.int64(),
        "__unres": pa.list_(pa.string()),
        "__from": pa.map_(pa.string(), pa.string()),
    }
    src = pa.table({c: _chunked(v, types.get(c, pa.string())) for c, v in cols.items()})
    st.max_ts_ms = max(st.max_ts_ms, pc.max(src.column("__ts")).as_py() or 0)

    keys = src.column("__kc").to_pylist()
    seqs = src.column(SEQ).to_pylist()
    dseqs = src.column("__dseq").to_pylist()
    old = tombstones.load(tpath, set(keys))
    floor = max((x for x in (old.get(tombstones.TRUNCATE_KEY), trunc) if x), default=None)
    # a delete is not superseded by its own entry (a replay after a crash between the log's write and the MERGE)
    ops = src.column(OP).to_pylist()
    keep = [
        (s > old.get(k, "") or (o == "d" and s == old.get(k))) and (floor is None or s >= floor)
        for k, s, o in zip(keys, seqs, ops)
    ]
    new_tombs = {k: d for k, d in zip(keys, dseqs) if d is not None and (floor is None or d >= floor)}
    if trunc is not None:
        new_tombs[tombstones.TRUNCATE_KEY] = trunc
    tombstones.write(tpath, new_tombs, app_id, batch_id, opts.now_ms)
    src = src.filter(pa.array(keep, pa.bool_()))
    if len(src) == 0:
        if trunc is not None and dt is not None:
            dt.delete(f"{SEQ} < '{trunc}'", commit_properties=commit(app_id, batch_id))
        st.applied[tp.topic] = 0
        return
    fpath = fills.path_of(tables, tp.topic)
    keys = src.column("__kc").to_pylist()
    log = fills.load(fpath, set(keys))
    src, from_table = _fill_from_table(dt, tb.key_cols, tb.cols, src, log)
    late, entries = fills.settle(
        fills.finals_of(
            keys,
            src.column(SEQ).to_pylist(),
            src.column(OP).to_pylist(),
            src.column("__from").to_pylist(),
            from_table,
            plan.cols,
        ),
        log,
    )
    fills.write(fpath, entries, app_id, batch_id, opts.now_ms)
    src = src.select([*plan.cols, SEQ, OP]).cast(pa.schema([*plan.schema, pa.field(OP, pa.string())]))
    if late:
        for name, arr in fills.late_arrays(keys, late).items():
            src = src.append_column(name, arr)
    from sink.delta import create_or_evolve

    lcols = fills.late_cols(late)
    mirror.merge(create_or_evolve(path, dt, plan), plan, tb.key_cols, src, trunc, app_id, batch_id, lcols)
    st.applied[tp.topic] = len(src)


STAGE_EV = STAGE1 + ", before string"


def _image(text: Column, fields: list[dict]) -> Column:
    """A payload image (JSON text) decoded into a struct of the sink's column types; null stays null."""
    a = F.from_json(text, decode.physical({"type": "struct", "fields": fields}))
    parts = [decode.convert(a.getField(f["field"]), f).alias(f["field"]) for f in fields]
    return F.when(text.isNull(), F.lit(None)).otherwise(F.struct(*parts))


def events(df, tp: TopicPlan, g: Fp, keyless: bool) -> pa.Table:
    """Every change event of one schema group, decoded on executors (rows, and before images of tables
    without a key), as Arrow: what `sink.history` / `sink.keyless` need, without parsing JSON on the driver."""
    p = F.from_json("vp", STAGE_EV)
    ev = df.where((F.col("topic") == tp.topic) & (F.col("vfp") == g.vfp) & F.col("vp").isNotNull())
    ev = ev.select("part", "pos", "kp", "hdr", p.alias("p")).where(
        F.col("p.op").isin(*CHANGE_OPS) & ((F.col("p.op") == "d") | F.col("p.after").isNotNull())
    )  # an update without its document (MongoDB) cannot be mirrored
    src = F.col("p.source")
    op = F.col("p.op")
    cols = [
        F.col("part"),
        F.col("pos"),
        op.alias("op"),
        seq_expr(src, op, connector_of([tp])).alias("seq"),
        F.coalesce(F.col("p.ts_ms"), src.getField("ts_ms"), F.lit(0)).alias("ts"),
    ]
    after = F.when(op != "d", F.col("p.after"))
    fields = None if is_doc(g.vschema) else after_fields(g.vschema)
    if fields and arrow_json.supported(fields):
        t = events_read(ev, cols, after, fields, keyless, tp)
        if t is not None:
            return t
    if keyless:
        cols += [
            _image(after, fields).alias("row"),
            _image(F.when(op.isin("u", "d"), F.col("p.before")), fields).alias("before"),
        ]
    else:
        ks = key_schema(tp)
        cols.append(
            F.to_json(F.from_json("kp", key_phys(ks, True)), {"ignoreNullFields": "false"}).alias("kc")
        )
        cols.append(F.when(F.col("hdr").contains("__debezium.oldkey"), F.col("hdr")).alias("hdr"))
        if is_doc(g.vschema):
            k = F.from_json("kp", key_phys(ks, False))
            parts = [
                decode.convert(k.getField(f["field"]), f).alias(f["field"]) for f in ks.get("fields", [])
            ]
            row = F.when(after.isNull(), F.lit(None)).otherwise(
                F.struct(*parts, after.alias(DOCUMENT["field"]))
            )
        else:
            row = _image(after, after_fields(g.vschema))
        cols.append(row.alias("row"))
    return ev.select(*cols).toArrow()


def events_read(ev, cols: list[Column], after: Column, fields: list[dict], keyless: bool, tp: TopicPlan):
    """`events`' table with the images parsed on the driver (`sink.arrow_json.images`: `from_json` and the
    logical types' expressions of every event were the SCD2 job's largest step, session 21); None: a text it
    does not read exactly (the caller runs the expressions)."""
    texts = [after.alias("__a")]
    if keyless:
        texts.append(F.when(F.col("p.op").isin("u", "d"), F.col("p.before")).alias("__b"))
    else:
        ks = key_schema(tp)
        cols = [
            *cols,
            F.to_json(F.from_json("kp", key_phys(ks, True)), {"ignoreNullFields": "false"}).alias("kc"),
            F.when(F.col("hdr").contains("__debezium.oldkey"), F.col("hdr")).alias("hdr"),
        ]
    t = ev.select(*cols, *texts).toArrow()
    if not len(t):
        return t
    string = t.schema.field("op").type
    try:
        imgs = {c: arrow_json.images(t[c], fields, string) for c in ("__a", "__b") if c in t.column_names}
    except arrow_json.NotRead:
        return None
    t = t.append_column("row", imgs["__a"])
    if keyless:
        t = t.append_column("before", imgs["__b"])
    return t.drop_columns([c for c in ("__a", "__b") if c in t.column_names])


def pyrows(col: pa.ChunkedArray, fields: list[dict]) -> list:
    """Decoded images as the driver's decoder gives them: maps as dicts (Arrow gives pairs)."""
    rows = col.to_pylist()
    maps = [f["field"] for f in fields if f["type"] == "map"]
    if maps:
        for r in rows:
            if r is not None:
                for m in maps:
                    if r.get(m) is not None:
                        r[m] = dict(r[m])
    return rows


def topic_events(df, tp: TopicPlan, trunc: str | None, tables: str) -> TopicBatch:
    """The topic's events decoded on executors, as the `TopicBatch` the table writers take."""
    from sink.batch import Event
    from sink.delta import canon

    tb = TopicBatch()
    keyed = tp.keyed()
    keyless = any(g.kfp is None for g in keyed)
    if not keyed:  # only truncates: the table says which writer
        dt = open_table(os.path.join(tables, tp.topic))
        keyless = dt is not None and RID in table_schema(dt).names
    tb.keyless = keyless
    ks = key_schema(tp)
    if ks is not None:
        tb.key_cols = [f["field"] for f in ks.get("fields", [])]
    for g in keyed:
        fields = row_fields(tp, g)
        for f in fields:
            tb.cols[f["field"]] = f
        t = events(df, tp, g, keyless)
        if not len(t):
            continue
        cols = {c: t.column(c).to_pylist() for c in ("part", "pos", "op", "seq", "ts")}
        rows = pyrows(t.column("row"), fields)
        if keyless:
            befores = pyrows(t.column("before"), fields)
            for i, row in enumerate(rows):
                tie = (cols["part"][i], cols["pos"][i])
                tb.events.append(
                    Event(cols["seq"][i], tie, cols["op"][i], None, row, cols["ts"][i], before=befores[i])
                )
            continue
        kcs, hdrs = t.column("kc").to_pylist(), t.column("hdr").to_pylist()
        for i, row in enumerate(rows):
            oldkey = None
            for h in orjson.loads(hdrs[i]) if hdrs[i] else ():
                if h and h[0] == "__debezium.oldkey" and isinstance(h[1], dict):
                    oldkey = canon(oldkey_of(h[1]))
            tie = (cols["part"][i], cols["pos"][i])
            tb.events.append(Event(cols["seq"][i], tie, cols["op"][i], kcs[i], row, cols["ts"][i], oldkey))
    if ks is not None:
        for f in ks.get("fields", []):
            tb.cols.setdefault(f["field"], f)
    if trunc is not None:
        tb.events.append(Event(trunc, ("", -1), "t", None, None, 0))
    return tb
