"""One micro-batch of Debezium records → Delta mirror tables (SCD type 1) with delta-rs MERGE.

Per topic: decode by schema, order by source position, drop what a truncate (in this batch or recorded
earlier) supersedes, carry TOAST placeholders forward (from earlier events of the key, else from the table),
keep the last event per key, drop events older than a recorded delete of their key (tombstone table, so late
events never resurrect a row), then one MERGE guarded by `t.__seq < s.__seq`. Each table commit carries the
application transaction (app_id, batch_id); a replayed batch finds its version already there and is skipped.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from decimal import Decimal
from typing import Any

import orjson
import pyarrow as pa
from deltalake import DeltaTable, Field
from deltalake.exceptions import TableNotFoundError
from deltalake.transaction import CommitProperties, Transaction
from pyspark.sql import types as T

from sink import position
from sink.types import PLACEHOLDER, arrow_type, decoder, is_placeholder, spark_type

SEQ = "__seq"
OP = "__op"
TOMBSTONES = "_sink_tombstones"
TRUNCATE_KEY = ""
DEFAULT_PROP = "dbz.sink.default."  # tombstone-table row holding the table's truncate watermark


@dataclass
class Event:
    seq: str
    tie: tuple
    op: str
    key: str | None  # canonical JSON of the key payload
    row: dict[str, Any] | None
    ts_ms: int
    oldkey: str | None = None  # `__debezium.oldkey` header of a key change's create event


@dataclass
class TopicBatch:
    events: list[Event] = field(default_factory=list)
    key_cols: list[str] = field(default_factory=list)
    cols: dict[str, dict] = field(default_factory=dict)  # column -> Connect field schema (latest seen)
    skipped_nokey: int = 0


@dataclass
class BatchStats:
    records: int = 0
    applied: dict[str, int] = field(default_factory=dict)
    skipped_replay: list[str] = field(default_factory=list)
    max_ts_ms: int = 0


def _canon(v: Any) -> str:
    return orjson.dumps(v, option=orjson.OPT_SORT_KEYS).decode()


class _Decoders:
    def __init__(self) -> None:
        self.cache: dict[str, Any] = {}

    def get(self, schema: dict):
        k = _canon(schema)
        d = self.cache.get(k)
        if d is None:
            d = self.cache[k] = decoder(schema)
        return d


def collect(records, decs: _Decoders | None = None) -> dict[str, TopicBatch]:
    """records: iterable of (topic, key_doc|None, value_doc|None, tie) with JsonConverter documents."""
    decs = decs or _Decoders()
    out: dict[str, TopicBatch] = {}
    for rec in records:
        topic, kdoc, vdoc, tie = rec[:4]
        headers = rec[4] if len(rec) > 4 else None
        if not isinstance(vdoc, dict):
            continue  # tombstone: the delete before it carries the sequence
        p, vs = vdoc.get("payload"), vdoc.get("schema")
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
        if kdoc is None or not isinstance(kdoc, dict) or kdoc.get("payload") is None:
            tb.skipped_nokey += 1  # table without a key: nothing to mirror by
            continue
        ks, kp = kdoc["schema"], kdoc["payload"]
        tb.key_cols = [f["field"] for f in ks.get("fields", [])]
        row_schema_fields = img_schema.get("fields") if img_schema and img_schema["type"] == "struct" else None
        if row_schema_fields is None:  # e.g. MongoDB: `after` is an extended-JSON document string
            row_schema_fields = [dict(f, field=f["field"]) for f in ks.get("fields", [])]
            row_schema_fields.append({"type": "string", "optional": True, "name": "io.debezium.data.Json",
                                      "field": "document"})
            img = None
            if op != "d":
                if p.get("after") is None:
                    continue  # update without a full document: not mirrorable
                img = dict(kp, document=p["after"])
        else:
            img = p.get("after") if op != "d" else None
        for f in row_schema_fields:
            tb.cols[f["field"]] = f
        for f in ks.get("fields", []):
            tb.cols.setdefault(f["field"], f)
        row = None
        if img is not None:
            row = {f["field"]: decs.get(f)(img.get(f["field"])) for f in row_schema_fields}
        oldkey = None
        for h in headers or ():
            if h and h[0] == "__debezium.oldkey" and isinstance(h[1], dict):
                oldkey = _canon(h[1].get("payload"))
        tb.events.append(Event(seq, tie, op, _canon(kp), row, ts, oldkey))
    return out


# -- Delta helpers ------------------------------------------------------------------------------------------


def open_table(path: str) -> DeltaTable | None:
    try:
        return DeltaTable(path)
    except TableNotFoundError:
        return None


def table_schema(dt: DeltaTable) -> pa.Schema:
    return pa.schema(dt.schema().to_arrow())


def already_applied(dt: DeltaTable | None, app_id: str, batch_id: int) -> bool:
    if dt is None:
        return False
    v = dt.transaction_version(app_id)
    return v is not None and v >= batch_id


def _commit(app_id: str, batch_id: int) -> CommitProperties:
    return CommitProperties(app_transactions=[Transaction(app_id, batch_id)])


def _sql_lit(v: Any) -> str | None:
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, int | float):
        return repr(v)
    if isinstance(v, str):
        return "'" + v.replace("'", "''") + "'"
    if isinstance(v, Decimal):
        return str(v)
    return None


def _q(c: str) -> str:
    return "`" + c.replace("`", "``") + "`"


def load_tombstones(path: str, keys: set[str]) -> dict[str, str]:
    dt = open_table(path)
    if dt is None:
        return {}
    t = dt.to_pyarrow_table()
    out = {}
    for k, s in zip(t.column("key").to_pylist(), t.column("seq").to_pylist()):
        if k in keys or k == TRUNCATE_KEY:
            out[k] = s
    return out


def write_tombstones(path: str, rows: dict[str, str], app_id: str, batch_id: int) -> None:
    dt = open_table(path)
    if already_applied(dt, app_id, batch_id) or not rows:
        return
    src = pa.table({"key": list(rows), "seq": list(rows.values())})
    if dt is None:
        DeltaTable.create(path, schema=src.schema, mode="ignore")
        dt = DeltaTable(path)
    (dt.merge(src, "t.key = s.key", source_alias="s", target_alias="t", commit_properties=_commit(app_id, batch_id))
     .when_matched_update({"seq": "s.seq"}, predicate="t.seq < s.seq")
     .when_not_matched_insert_all()
     .execute())


# -- the batch ---------------------------------------------------------------------------------------------


def apply_topic(tables: str, topic: str, tb: TopicBatch, app_id: str, batch_id: int) -> int:
    path = os.path.join(tables, topic)
    tpath = os.path.join(tables, TOMBSTONES, topic)
    dt = open_table(path)
    if already_applied(dt, app_id, batch_id):
        return -1
    evs = sorted(tb.events, key=lambda e: (e.seq, e.tie))
    trunc = max((e.seq for e in evs if e.op == "t"), default=None)
    keys = {e.key for e in evs if e.key is not None}
    tombs = load_tombstones(tpath, keys)
    floor = max(x for x in (trunc, tombs.get(TRUNCATE_KEY)) if x is not None) if (
        trunc or tombs.get(TRUNCATE_KEY)) else None
    evs = [e for e in evs if e.op != "t" and (floor is None or e.seq >= floor)]

    # TOAST carry-forward and the last event per key
    last: dict[str, Event] = {}
    last_image: dict[str, Event] = {}
    unresolved: dict[str, set[str]] = {}
    for e in evs:
        if e.row is not None:
            prev = last.get(e.key)
            if prev is None and e.oldkey is not None and e.oldkey in last_image:
                prev = last_image[e.oldkey]  # key change: the unchanged TOAST values live under the old key
            miss = set()
            for c, v in e.row.items():
                if is_placeholder(v):
                    if prev is not None and prev.row is not None and not is_placeholder(prev.row.get(c)):
                        e.row[c] = prev.row.get(c)
                    elif prev is not None and prev.row is not None and c in unresolved.get(e.key, ()):
                        miss.add(c)
                    elif prev is None:
                        miss.add(c)
                    else:
                        e.row[c] = None
            if miss:
                unresolved[e.key] = miss
            else:
                unresolved.pop(e.key, None)
            last_image[e.key] = e
        else:
            unresolved.pop(e.key, None)
        last[e.key] = e
    final = [e for e in last.values() if e.seq > tombs.get(e.key, "")]
    new_tombs = {e.key: e.seq for e in evs if e.op == "d"}
    if trunc is not None:
        new_tombs[TRUNCATE_KEY] = trunc
    if not final and trunc is None:
        write_tombstones(tpath, new_tombs, app_id, batch_id)
        return 0
    if not final:  # only a truncate: delete what it supersedes
        write_tombstones(tpath, new_tombs, app_id, batch_id)
        if dt is not None:
            dt.delete(f"{SEQ} < '{trunc}'", commit_properties=_commit(app_id, batch_id))
        return 0

    # schema: table columns (existing first), then new ones in Connect order
    existing = {f.name: f for f in table_schema(dt)} if dt is not None else {}
    cols = [c for c in existing if c != SEQ]
    for c in tb.cols:
        if c not in existing:
            cols.append(c)
    stypes: dict[str, T.DataType] = {}
    defaults: dict[str, Any] = {}
    # column defaults (Connect `default`) are remembered in the table's configuration, so that events written
    # before an ADD COLUMN ... DEFAULT get the value PostgreSQL gives those rows, in any later batch too
    stored = dict(dt.metadata().configuration) if dt is not None else {}
    props: dict[str, str] = {}
    for c in cols:
        f = tb.cols.get(c)
        if f is not None:
            stypes[c] = spark_type(f)
        pk = DEFAULT_PROP + c
        if f is not None and f.get("default") is not None:
            if stored.get(pk) != _canon(f):
                props[pk] = _canon(f)
        elif f is None and pk in stored:
            f = orjson.loads(stored[pk])
        if f is not None and f.get("default") is not None:
            defaults[c] = decoder(f)(f["default"])
    afields = []
    for c in cols:
        at = arrow_type(stypes[c]) if c in stypes else existing[c].type
        if c in existing and existing[c].type != at:
            at = existing[c].type  # keep the table's type; values are cast below
        afields.append(pa.field(c, at, nullable=c not in tb.key_cols))
    schema = pa.schema([*afields, pa.field(SEQ, pa.string(), nullable=False)])

    # unresolved TOAST columns: previous values from the table
    need = {e.key: unresolved[e.key] for e in final if e.key in unresolved and e.row is not None}
    if need:
        look = dict(need)
        for e in final:
            if e.key in need and e.oldkey is not None:
                look[e.oldkey] = need[e.key]
        prev = _lookup(dt, tb.key_cols, look) if dt is not None else {}
        for e in final:
            if e.key in need and e.key not in prev and e.oldkey in prev:
                prev[e.key] = prev[e.oldkey]
            for c in need.get(e.key, ()):
                # the table's value; when it never had the row (a TOAST update delivered before its base
                # image) the placeholder stays and an older image fills it in later (see the MERGE below)
                if e.key in prev:
                    e.row[c] = prev[e.key].get(c)

    keyrows = [orjson.loads(e.key) for e in final]
    data = {}
    for i, c in enumerate(cols):
        dflt = defaults.get(c)
        vals = []
        for e, kr in zip(final, keyrows):
            if e.row is None:
                vals.append(_key_value(kr, c, tb.cols.get(c)))
            else:
                vals.append(e.row[c] if c in e.row else dflt)
        data[c] = pa.array(vals, type=afields[i].type)
    data[SEQ] = pa.array([e.seq for e in final], pa.string())
    data[OP] = pa.array([e.op for e in final], pa.string())
    src = pa.table(data)

    write_tombstones(tpath, new_tombs, app_id, batch_id)
    if dt is None:
        DeltaTable.create(path, schema=schema, mode="ignore", configuration=props or None,
                           raise_if_key_not_exists=False)
        dt = DeltaTable(path)
        added = []
    else:
        added = [c for c in cols if c not in existing]
        if added:
            dt.alter.add_columns([Field.from_arrow(schema.field(c)) for c in added])
            dt = DeltaTable(path)
        if props:
            dt.alter.set_table_properties(props, raise_if_not_exists=False)
            dt = DeltaTable(path)
    pred = " AND ".join(f"t.{_q(k)} = s.{_q(k)}" for k in tb.key_cols)
    sets = {_q(c): f"s.{_q(c)}" for c in [*cols, SEQ]}
    m = (dt.merge(src, pred, source_alias="s", target_alias="t", commit_properties=_commit(app_id, batch_id))
         .when_matched_delete(predicate=f"s.{OP} = 'd' AND t.{SEQ} < s.{SEQ}")
         .when_matched_update(sets, predicate=f"s.{OP} <> 'd' AND t.{SEQ} < s.{SEQ}")
         .when_not_matched_insert(sets, predicate=f"s.{OP} <> 'd'"))
    texts = [c for c in cols if pa.types.is_string(schema.field(c).type) and c not in tb.key_cols]
    if texts:
        ph = f"'{PLACEHOLDER}'"
        m = m.when_matched_update(
            {_q(c): f"CASE WHEN t.{_q(c)} = {ph} THEN s.{_q(c)} ELSE t.{_q(c)} END" for c in texts},
            predicate=f"s.{OP} <> 'd' AND t.{SEQ} > s.{SEQ}")
    if trunc is not None:
        m = m.when_not_matched_by_source_delete(predicate=f"t.{SEQ} < '{trunc}'")
    backfill = {_q(c): lit for c in added if (lit := _sql_lit(defaults.get(c))) is not None}
    if backfill and trunc is None:
        m = m.when_not_matched_by_source_update(backfill)
    m.execute()
    return len(final)


def _key_value(keyrow: dict, c: str, f: dict | None):
    if c not in keyrow:
        return None
    return decoder(f)(keyrow[c]) if f is not None else keyrow[c]


def _lookup(dt: DeltaTable, key_cols: list[str], need: dict[str, set[str]]) -> dict[str, dict]:
    import pyarrow.compute as pc
    cols = sorted({c for s in need.values() for c in s} | set(key_cols))
    t = dt.to_pyarrow_table(columns=[c for c in cols if c in table_schema(dt).names])
    k0 = key_cols[0]
    want = [orjson.loads(k)[k0] for k in need]
    t = t.filter(pc.is_in(t.column(k0), value_set=pa.array(want, t.schema.field(k0).type)))
    out = {}
    for r in t.to_pylist():
        out[_canon({k: _jsonable(r[k]) for k in key_cols})] = r
    return out


def _jsonable(v):
    return v if isinstance(v, int | str | float | bool) or v is None else str(v)


def apply_batch(tables: str, records, app_id: str, batch_id: int) -> BatchStats:
    """records: iterable of (topic, key_doc, value_doc, tie)."""
    st = BatchStats()
    recs = list(records)
    st.records = len(recs)
    for topic, tb in sorted(collect(recs).items()):
        if tb.events:
            st.max_ts_ms = max(st.max_ts_ms, max(e.ts_ms for e in tb.events))
        n = apply_topic(tables, topic, tb, app_id, batch_id)
        if n < 0:
            st.skipped_replay.append(topic)
        else:
            st.applied[topic] = n
    return st
