"""A micro-batch of Debezium records → per-topic lists of decoded change events, ordered by source position."""

from __future__ import annotations

import os
import sys
from dataclasses import dataclass, field
from typing import Any

from sink import position, tombstones
from sink.delta import AUX_PREFIX, canon
from sink.oldkey import oldkey_of
from sink.types import decoder

TOMBSTONES = AUX_PREFIX + "tombstones"  # <tables>/_sink_tombstones/<topic>: the delete log (sink.tombstones)


@dataclass
class Options:
    tombstone_retention_s: float = tombstones.DEFAULT_RETENTION_S
    scd: int = 1  # 1: mirror tables; 2: history tables (sink.history)
    now_ms: int | None = None  # tests: the wall clock for tombstone times and pruning
    log: Any = None  # print-like, for one line per notable skip; stderr when None
    prune_every_s: float = 60.0  # how often a topic's delete log is checked for expired entries
    last_prune: dict[str, float] = field(default_factory=dict)
    # try the batch in one pass (`sink.onepass`): True, predicted from the previous batch's plan; False, that
    # batch's plan would not have fitted; None, a batch's winners were not read by it (off for the run)
    one_pass: bool | None = True

    def say(self, msg: str) -> None:
        (self.log or (lambda m, **k: print(m, file=sys.stderr, **k)))(msg, flush=True)


@dataclass
class Event:
    seq: str  # sink.position.seq of the source block
    tie: tuple  # delivery position (file + byte offset, Kafka partition + offset): orders equal seqs
    op: str
    key: str | None  # canonical JSON of the key payload; None for a table without a key
    row: dict[str, Any] | None  # the decoded `after` image (None for deletes and truncates)
    ts_ms: int
    oldkey: str | None = None  # `__debezium.oldkey` header of a key change's create event
    before: dict[str, Any] | None = None  # decoded `before` image, kept for tables without a key only
    fills: dict[str, str] | None = (
        None  # TOAST columns filled from an earlier image: its position (sink.fills)
    )


@dataclass
class TopicBatch:
    events: list[Event] = field(default_factory=list)
    key_cols: list[str] = field(default_factory=list)
    cols: dict[str, dict] = field(default_factory=dict)  # column -> Connect field schema (latest seen)
    keyless: bool = False  # some change event had a null key (a table without a primary key)


@dataclass
class BatchStats:
    records: int = 0
    applied: dict[str, int] = field(default_factory=dict)
    skipped_replay: list[str] = field(default_factory=list)
    max_ts_ms: int = 0
    pruned: int = 0  # tombstones forgotten (retention)
    fast: list[str] = field(default_factory=list)  # topics done on executors (sink.executors)
    driver: dict[str, str] = field(default_factory=dict)  # topics done on the driver -> why
    one_pass: bool = False  # the batch took `sink.onepass` (no cache, no survey job)


def tombstone_path(tables: str, topic: str) -> str:
    return os.path.join(tables, TOMBSTONES, topic)


def truncate_floor(trunc: str | None, tombs: dict[str, str]) -> str | None:
    """Events before this position were emptied by a truncate (of this batch or recorded earlier)."""
    xs = [x for x in (trunc, tombs.get(tombstones.TRUNCATE_KEY)) if x]
    return max(xs) if xs else None


class _Decoders:
    def __init__(self) -> None:
        self.cache: dict[str, Any] = {}

    def get(self, schema: dict):
        k = canon(schema)
        d = self.cache.get(k)
        if d is None:
            d = self.cache[k] = decoder(schema)
        return d


def _decode(decs: _Decoders, fields: list[dict], img: dict | None) -> dict | None:
    return None if img is None else {f["field"]: decs.get(f)(img.get(f["field"])) for f in fields}


UNWRAPPED_KEYLESS = (
    "records unwrapped by ExtractNewRecordState of a table without a key: their updates and deletes carry no "
    "before image to find the row by (keep Debezium's envelope for tables without a primary key)"
)


def unwrapped_payload(p) -> bool:
    """Whether a value payload is an `ExtractNewRecordState` record (as `collect` reads it)."""
    return isinstance(p, dict) and ("__deleted" in p or "__op" in p) and "source" not in p


def _unwrapped(p: dict, vs: dict, tie: tuple) -> tuple[dict, dict]:
    """An `ExtractNewRecordState` record (`__op` from add.fields=op, `__deleted` from
    delete.tombstone.handling.mode=rewrite) as an envelope: the row is the payload without the added `__`
    fields; a rewritten delete (`__deleted: "true"`) is a delete. Unwrapped records carry no source position,
    so the delivery position orders them (the file offset, the Kafka offset: Debezium's order per key)."""
    fields = [f for f in vs.get("fields", []) if not f["field"].startswith("__")]
    row = {k: v for k, v in p.items() if not k.startswith("__")}
    op = "d" if p.get("__deleted") in ("true", True) else p.get("__op") or "c"
    pos = tie[-1] if tie and isinstance(tie[-1], int) else 0
    source = {"connector": "unwrapped", "ts_ns": pos + 1, "ts_ms": p.get("__source_ts_ms") or 0}
    envelope = {
        "op": op,
        "source": source,
        "after": None if op == "d" else row,
        "before": row if op == "d" else None,
        "ts_ms": p.get("__source_ts_ms") or p.get("__ts_ms") or 0,
    }
    after = {"type": "struct", "optional": True, "fields": fields, "field": "after"}
    schema = {
        "type": "struct",
        "fields": [dict(after, field="before"), after, {"type": "struct", "field": "source"}],
    }
    return envelope, schema


def collect(records, decs: _Decoders | None = None) -> dict[str, TopicBatch]:
    """records: iterable of (topic, key_doc|None, value_doc|None, tie[, headers]) with JsonConverter documents."""
    decs = decs or _Decoders()
    out: dict[str, TopicBatch] = {}
    for rec in records:
        topic, kdoc, vdoc, tie = rec[:4]
        headers = rec[4] if len(rec) > 4 else None
        if not isinstance(vdoc, dict):
            continue  # tombstone: the delete before it carries the sequence
        p, vs = vdoc.get("payload"), vdoc.get("schema")
        unwrapped = vs is not None and unwrapped_payload(p)
        if unwrapped:
            p, vs = _unwrapped(p, vs, tie)
        if not isinstance(p, dict) or "op" not in p or not isinstance(p.get("source"), dict) or vs is None:
            continue  # not a change event (schema change, heartbeat, transaction metadata...)
        op = p["op"]
        if op not in ("c", "u", "d", "r", "t"):
            continue
        tb = out.setdefault(topic, TopicBatch())
        seq = position.seq(p["source"], op)
        ts = p.get("ts_ms") or p["source"].get("ts_ms") or 0
        if op == "t":
            tb.events.append(Event(seq, tie, op, None, None, ts))
            continue
        fields = {f["field"]: f for f in vs.get("fields", [])}
        img_schema = fields.get("after") or fields.get("before")
        row_fields = img_schema.get("fields") if img_schema and img_schema["type"] == "struct" else None
        if kdoc is None or not isinstance(kdoc, dict) or kdoc.get("payload") is None:
            if row_fields is None:
                continue  # no key and no row structure: nothing to mirror
            if unwrapped:  # an update would be mirrored as an insert: never write that
                raise ValueError(f"{topic}: {UNWRAPPED_KEYLESS}")
            # a table without a key: rows are found again by their full before image
            tb.keyless = True
            for f in row_fields:
                tb.cols[f["field"]] = f
            after = _decode(decs, row_fields, p.get("after") if op != "d" else None)
            before = _decode(decs, row_fields, p.get("before")) if op in ("u", "d") else None
            tb.events.append(Event(seq, tie, op, None, after, ts, before=before))
            continue
        ks, kp = kdoc["schema"], kdoc["payload"]
        tb.key_cols = [f["field"] for f in ks.get("fields", [])]
        if row_fields is None:  # e.g. MongoDB: `after` is an extended-JSON document string
            row_fields = [dict(f) for f in ks.get("fields", [])]
            row_fields.append(
                {"type": "string", "optional": True, "name": "io.debezium.data.Json", "field": "document"}
            )
            img = None
            if op != "d":
                if p.get("after") is None:
                    continue  # update without a full document: not mirrorable
                img = dict(kp, document=p["after"])
        else:
            img = p.get("after") if op != "d" else None
        for f in row_fields:
            tb.cols[f["field"]] = f
        for f in ks.get("fields", []):
            tb.cols.setdefault(f["field"], f)
        oldkey = None
        for h in headers or ():
            if h and h[0] == "__debezium.oldkey" and isinstance(h[1], dict):
                oldkey = canon(oldkey_of(h[1]))
        tb.events.append(Event(seq, tie, op, canon(kp), _decode(decs, row_fields, img), ts, oldkey))
    return out
