"""A micro-batch's plan: one aggregation over the batch gives, per topic and schema fingerprint, the schema
texts and what the groups contain (TOAST placeholders, truncates, key changes); `classify` then says which
topics the executors finish (`sink.executors`) and which take the driver path, and why.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field

import orjson
from pyspark.sql import functions as F

from sink import decode
from sink.batch import Options
from sink.delta import RID, open_table, table_schema
from sink.types import PLACEHOLDER

PH_B64 = "X19kZWJleml1bV91bmF2YWlsYWJsZV92YWx1ZQ"  # the placeholder in a bytes column (base64)
KEY_TYPES = {
    "int8",
    "int16",
    "int32",
    "int64",
    "string",
    "boolean",
    "bytes",
}  # keys the executors can group by


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
    ntrunc: int = 0  # truncate events in the group (a group of only truncates has no key)
    oldkey: bool = False  # some record carries `__debezium.oldkey` (a key change)


@dataclass
class TopicPlan:
    topic: str
    groups: list[Fp] = field(default_factory=list)
    fast: bool = False
    events: bool = False
    why: str = ""

    @property
    def records(self) -> int:
        return sum(g.n for g in self.groups)

    def changes(self) -> list[Fp]:
        return [g for g in self.groups if after_fields(g.vschema) is not None or is_doc(g.vschema)]

    def keyed(self) -> list[Fp]:
        """The change groups holding events of a key (not only truncates, which have none)."""
        return [g for g in self.changes() if g.ntrunc < g.n]

    @property
    def doc(self) -> bool:
        """MongoDB: `after` is the document as extended-JSON text; the row is the key and that text."""
        return any(is_doc(g.vschema) for g in self.changes())


DOCUMENT = {"type": "string", "optional": True, "name": "io.debezium.data.Json", "field": "document"}


def after_of(vschema: dict | None) -> dict | None:
    if not vschema or vschema.get("type") != "struct":
        return None
    fields = {f["field"]: f for f in vschema.get("fields", [])}
    if "op" not in fields or "source" not in fields or "after" not in fields:
        return None
    return fields["after"]


def after_fields(vschema: dict | None) -> list[dict] | None:
    a = after_of(vschema)
    return a.get("fields", []) if a is not None and a.get("type") == "struct" else None


def is_doc(vschema: dict | None) -> bool:
    a = after_of(vschema)
    return a is not None and a.get("type") == "string"


def row_fields(tp: TopicPlan, g: Fp) -> list[dict]:
    """The mirror's columns for one schema group: the `after` fields, or (MongoDB) the key and document."""
    if is_doc(g.vschema):
        return [*tp.keyed()[0].kschema.get("fields", []), DOCUMENT]
    return after_fields(g.vschema)


def key_schema(tp: TopicPlan) -> dict | None:
    k = [g for g in tp.keyed() if g.kschema is not None]
    return k[0].kschema if k else None


def toast_cols(tp: TopicPlan) -> dict[str, dict]:
    """Columns that can hold a TOAST placeholder (text, bytes, arrays of them), not key columns."""
    keys = {f["field"] for g in tp.keyed()[:1] for f in g.kschema.get("fields", [])}
    out: dict[str, dict] = {}
    for g in tp.changes():
        for f in after_fields(g.vschema) or ():
            t = f["items"]["type"] if f["type"] == "array" else f["type"]
            if t in ("string", "bytes") and f["field"] not in keys:
                out[f["field"]] = f
    return out


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
            F.sum(F.coalesce(tr, F.lit(False)).cast("int")).alias("nt"),
            F.max(F.coalesce(F.col("hdr").contains("__debezium.oldkey"), F.lit(False))).alias("hk"),
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
            int(r.nt or 0),
            bool(r.hk),
        )
        out.setdefault(r.topic, TopicPlan(r.topic)).groups.append(g)
    for tp in out.values():
        tp.groups.sort(key=lambda g: g.first)
    return out


def classify(tp: TopicPlan, tables: str, opts: Options) -> None:
    """`tp.fast`: decoded and reduced to the final row per key on executors (SCD type 1 with a key);
    `tp.events`: every event decoded on executors, then written by `sink.history` (SCD type 2) or
    `sink.keyless` (no key) from the decoded rows; neither: the driver path (`tp.why`)."""
    tp.fast, tp.events, tp.why = False, False, ""
    ch, keyed = tp.changes(), tp.keyed()
    nokey = any(g.kfp is None for g in keyed)
    if not ch:
        tp.why = "no change events"
    elif not keyed:  # only truncates
        tp.events = True
    elif nokey and any(g.kfp is not None for g in keyed):
        tp.why = "events with and without a key"
    elif len({g.kfp for g in keyed}) > 1:
        tp.why = "key schema changed"
    elif keyed and not nokey and any(f["type"] not in KEY_TYPES for f in keyed[0].kschema.get("fields", [])):
        tp.why = "key type"
    elif nokey and (opts.scd != 1 or tp.doc):
        tp.why = "no key"  # history needs a key (the writer says so); a document without a key: nothing
    elif opts.scd == 1 and not nokey and any(g.placeholder for g in ch) and any(g.oldkey for g in ch):
        # the unchanged TOAST values of a key change's new row live under the old key
        tp.why = "TOAST placeholders with a key change"
    else:
        try:
            for g in keyed:
                decode.physical({"type": "struct", "fields": row_fields(tp, g)})
        except decode.Unsupported as e:
            tp.why = str(e)
            return
        dt = open_table(os.path.join(tables, tp.topic))
        mirrored_by_key = dt is not None and RID not in table_schema(dt).names
        if opts.scd == 1 and not nokey and dt is not None and not mirrored_by_key:
            tp.why = "table mirrored without a key"
        elif opts.scd == 1 and nokey and mirrored_by_key:
            tp.why = "table mirrored by its key"
        elif opts.scd == 1 and not nokey:
            tp.fast = True
        else:
            tp.events = True
