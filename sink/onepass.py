"""A micro-batch in one pass: the readers' records and their survey rows (`sink.stats`) go through the winners'
aggregation together, and one collect brings the winners and the survey to the driver.

The cached path (`sink.microbatch.cached_batch`) reads the batch into a cache with a job of its own (the
survey: the plan needs the schema texts and what the groups hold before the winners' query can be built),
then reads the cache again for the winners: ~a third of a 200k-change run's CPU was that job (the readers
and the cache's fill, docs/sink.md, session 20). Here the plan is assumed instead of surveyed: every topic a
mirror with a key in canonical form as the readers give it (`kc`), one connector, `after`'s byte range given
(`a0`/`a1`), no TOAST placeholders, truncates or payloads the readers could not read, and winners that
`sink.arrow_json` reads. The winners' query is then independent of the schemas; each survey row rides
through it as a group of its own (a key no record has, a position that wins it, its texts as `after`). The
survey collected with the winners checks the assumption (`fits`, the same tests `classify` and the cached
path make): if it holds, the winners are decoded as the cached path's `json_winners` would and written;
otherwise nothing has been written and the batch takes the cached path, reading its source again (the
batches are deterministic ranges of the source). Whether to try is predicted from the previous batch's plan
(`Options.one_pass`), so a stream that needs the cached path pays the second read once.
"""

from __future__ import annotations

import orjson
import pyarrow as pa
import pyarrow.compute as pc
from pyspark.sql import functions as F

from sink.apply import prune_if_due
from sink.arrow_decode import position_field, seq_texts
from sink.batch import BatchStats, Options
from sink.delta import OP, SEQ
from sink.executors import apply_topic, arrow_winners, json_fits, meta_cols
from sink.plan import TopicPlan, classify, plans_of, toast_cols
from sink.position_expr import WIDTHS, connector_of
from sink.stats import STATS
from sink.winners import after_ranges, reader_path, reduced

SURVEY_OP = "S"  # the op of a survey row's group in the winners (no record has it)
PARTS = 4  # the readers' position columns o0..o3 (a connector uses its first `len(WIDTHS[conn])`)
# the winner's fields the driver reads (`meta_cols`, `query`), besides `seq` and `after`
WINNER = ("op", "vfp", "ts")


def _text(o):  # `reduced`'s position text: only its `widths` are used (the parts, renamed on the driver)
    raise AssertionError("the winners carry the position's parts")


_text.widths = (16,) * PARTS


def query(df):
    """The winners of every topic (as `sink.winners.reduced` gives them on the readers' path with `after`'s
    byte range), with one extra winner per survey row, op `SURVEY_OP`, whose `after` is the row as JSON; then
    the columns the driver reads (`sink.executors.json_winners`' plus topic and value fingerprint)."""
    sv = F.col(STATS).isNotNull()
    zero = F.struct(*(F.lit(0).cast("long").alias(f"o{i}") for i in range(PARTS)))
    o = F.struct(*(F.col(f"o{i}") for i in range(PARTS)))
    cut = F.substring(F.col("vp").cast("binary"), F.col("a0") + 1, F.col("a1") - F.col("a0")).cast("string")
    row = F.to_json(F.struct("part", "pos", "kfp", "vfp", "kschema", "vschema", STATS))
    # unique per survey row (a partition's group), never a record's canonical key (a JSON object's text)
    key = F.concat_ws(
        "/",
        F.lit("survey"),
        "part",
        F.col("pos").cast("string"),
        F.coalesce(F.col("kfp").cast("string"), F.lit("-")),
        F.coalesce(F.col("vfp").cast("string"), F.lit("-")),
    )
    ev = df.where(sv | F.col("vp").isNotNull()).select(
        "topic",
        F.when(sv, key).otherwise(F.col("kc")).alias("kc"),
        "part",
        "pos",
        "vfp",
        F.when(sv, F.lit(SURVEY_OP)).otherwise(F.col("op")).alias("op"),
        F.when(sv, zero).when(F.col("o0").isNotNull(), o).alias("o"),  # null: cannot win
        F.when(sv, row).when(F.col("a0").isNotNull(), cut).alias("after"),
        "ts",
    )
    # only what the driver reads: not the key's text, the TOAST fill or the delivery position (the ordering's)
    w = reduced(ev, _text, "readers", True, fields=WINNER)
    text = F.when(F.col("w.op") == "d", F.col("kc")).otherwise(F.col("w.after"))
    return w, w.select("topic", F.col("w.vfp").alias("__vfp"), text.alias("__json"), *meta_cols([]))


def fits(plans: dict[str, TopicPlan], opts: Options) -> str | None:
    """Why this batch's plan is not what `query` assumed, or None (`classify` has run on the plans)."""
    if opts.scd != 1:
        return "SCD type 2"
    tps = list(plans.values())
    for tp in tps:
        if not tp.fast:
            return f"{tp.topic}: {tp.why or 'events path'}"
        keyed = tp.keyed()
        # tombstones (no value) are left out by `query` as by the cached path's winners
        if len(keyed) != len([g for g in tp.groups if g.vfp is not None]):
            return f"{tp.topic}: a group without key events"
        if any(g.truncate or g.ntrunc for g in tp.groups):
            return f"{tp.topic}: truncate"
        if any(g.nokc for g in keyed):
            return f"{tp.topic}: keys not in canonical form"
        if any(not json_fits(tp, g) for g in keyed):
            return f"{tp.topic}: columns arrow_json does not read"
    if not tps:
        return None
    toast = [tp for tp in tps if any(g.placeholder for g in tp.changes()) and toast_cols(tp)]
    conn = reader_path(tps, toast)
    if conn is None:
        return "TOAST placeholders, payloads the readers did not read or several connectors"
    if not after_ranges(tps, conn):
        return "no after ranges"
    return None


def _survey_rows(t: pa.Table):
    for topic, text in zip(t["topic"].to_pylist(), t["__json"].to_pylist()):
        d = orjson.loads(text)
        yield (
            topic,
            d["part"],
            d["pos"],
            d.get("kfp"),
            d.get("vfp"),
            d.get("kschema"),
            d.get("vschema"),
            d[STATS],
        )


def _parts(col: pa.ChunkedArray, widths: tuple) -> pa.Array:
    """The position's parts o0..o3 → the connector's, named by `position_field`, as their text."""
    arr = col.combine_chunks() if col.num_chunks != 1 else col.chunk(0)
    kids = arr.flatten()[: len(widths)]
    names = [position_field(i, wd) for i, wd in enumerate(widths)]
    return seq_texts(pa.StructArray.from_arrays(kids, names=names, mask=arr.is_null()))


def _decoded(t: pa.Table, rec: pa.Array, tp: TopicPlan, widths: tuple, alone: bool) -> list[pa.Table] | None:
    """The topic's keyed groups' winners as `sink.executors.decoded_winners` gives them (None: a text
    `sink.arrow_json` does not read). `rec`: the rows that are winners (not survey rows); `alone`: the batch's
    only group (one filter, not three comparisons of every row and a copy more)."""
    out = []
    for g in tp.keyed():
        mask = (
            rec
            if alone
            else pc.and_(rec, pc.and_(pc.equal(t["topic"], tp.topic), pc.equal(t["__vfp"], g.vfp)))
        )
        gt = t.filter(mask)
        if not len(gt):
            continue
        part = arrow_winners(gt, g, ("topic", "__vfp", "__json"))
        if part is None:
            return None
        for name in (SEQ, "__dseq"):
            part = part.set_column(part.schema.get_field_index(name), name, _parts(part[name], widths))
        out.append(part)
    return out


def winners_of(df, tables: str, opts: Options) -> tuple[list[TopicPlan], dict[str, list]] | None:
    """The batch's plans (sorted by topic) and per topic its keyed groups' decoded winners, or None when the
    batch does not fit (`opts.one_pass` says whether to try the next one)."""
    _, q = query(df)
    t = q.toArrow()
    is_sv = pc.equal(t[OP], SURVEY_OP)
    plans = plans_of(_survey_rows(t.filter(is_sv)))
    for tp in plans.values():
        classify(tp, tables, opts)
    if fits(plans, opts) is not None:
        opts.one_pass = False
        return None
    tps = sorted(plans.values(), key=lambda x: x.topic)
    parts = {}
    if tps:
        widths = WIDTHS[connector_of(tps)]
        alone = sum(len(tp.keyed()) for tp in tps) == 1
        for tp in tps:
            parts[tp.topic] = _decoded(t, pc.invert(is_sv), tp, widths, alone)
            if parts[tp.topic] is None:
                # a column's texts read only by `from_json` (e.g. a ZonedTimestamp of another form): likely again
                opts.one_pass = None
                return None
    return tps, parts


def run(df, tables: str, app_id: str, batch_id: int, opts: Options) -> BatchStats | None:
    """The batch in one pass, or None (nothing written): the caller takes the cached path."""
    got = winners_of(df, tables, opts)
    if got is None:
        return None
    tps, parts = got
    st = BatchStats()
    st.records = sum(tp.records for tp in tps)
    for tp in tps:
        apply_topic(None, tp, tables, app_id, batch_id, opts, st, None, parts=parts[tp.topic])
        st.pruned += prune_if_due(tables, tp.topic, opts)
    st.fast = [tp.topic for tp in tps]
    st.one_pass = True
    return st
