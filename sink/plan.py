"""A micro-batch's plan: the readers' survey rows give, per topic and schema fingerprint, the schema texts and
what the groups contain (TOAST placeholders, truncates, key changes); `classify` then says which
topics the executors finish (`sink.executors`) and which take the driver path, and why.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field

import orjson
from pyspark.sql import functions as F

from sink import decode, reader_keys
from sink.batch import Options
from sink.delta import RID, open_table, table_schema
from sink.stats import STATS

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
    unread: int = 0  # payloads whose op/position the readers could not read (`sink.reader_keys`)
    # the readers give `after`'s byte range in these payloads (`sink.reader_keys.sliceable`)
    cut: bool = False
    nokc: int = 0  # payloads of a key the readers did not give in canonical form (`sink.reader_keys`)


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
    """Per topic its schema groups and what they contain, from the readers' survey rows (`sink.stats`: each
    partition counted its records as it read them); one small job, which also fills the batch's cache."""
    rows = (
        df.where(F.col(STATS).isNotNull())
        .select("topic", "part", "pos", "kfp", "vfp", "kschema", "vschema", STATS)
        .collect()
    )
    return plans_of(tuple(r) for r in rows)


def plans_of(rows) -> dict[str, TopicPlan]:
    """`survey`'s plans from the survey rows as tuples (topic, part, pos, kfp, vfp, kschema, vschema, stats)."""
    texts: dict[int, dict] = {}  # a schema's text comes with any group of its fingerprint
    groups: dict[tuple, Fp] = {}
    # value fingerprints whose payloads the readers cut (the same test on the same text)
    cut: set[int] = set()
    for topic, part, pos, kfp, vfp, kschema, vschema, stats in rows:
        if kschema is not None and kfp not in texts:
            texts[kfp] = orjson.loads(kschema)
        if vschema is not None and vfp not in texts:
            texts[vfp] = orjson.loads(vschema)
            if reader_keys.sliceable(vschema):
                cut.add(vfp)
        st = orjson.loads(stats)
        g = groups.get((topic, kfp, vfp))
        if g is None:
            groups[(topic, kfp, vfp)] = Fp(
                kfp,
                vfp,
                None,
                None,
                st["n"],
                st["ph"],
                st["tr"],
                (part, pos),
                st["nt"],
                st["hk"],
                st.get("nr", 0),
                nokc=st.get("nk", 0),
            )
        else:
            g.n += st["n"]
            g.placeholder |= st["ph"]
            g.truncate |= st["tr"]
            g.first = min(g.first, (part, pos))
            g.ntrunc += st["nt"]
            g.oldkey |= st["hk"]
            g.unread += st.get("nr", 0)
            g.nokc += st.get("nk", 0)
    out: dict[str, TopicPlan] = {}
    for (topic, _, _), g in groups.items():
        g.kschema, g.vschema = texts.get(g.kfp), texts.get(g.vfp)
        g.cut = g.vfp in cut
        out.setdefault(topic, TopicPlan(topic)).groups.append(g)
    for tp in out.values():
        tp.groups.sort(key=lambda g: g.first)
    return out


def records(df):
    """The batch's record rows (not the readers' survey rows)."""
    return df.where(F.col(STATS).isNull())


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
