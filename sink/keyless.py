"""Tables without a primary key (Debezium's key is null): the mirror is the multiset of the source's rows.

An insert (or snapshot read) appends a row; a delete removes ONE row equal to its before image; an update
removes one row equal to `before` and appends `after`. Without a before image (PostgreSQL needs REPLICA
IDENTITY FULL) an update or delete cannot be placed: it is skipped with one log line per batch.

Each table row carries `__rid` (its own id: source position + delivery position), `__seq` (the position of
the event that inserted it), and `__img` / `__cs` (a hash of the image it was inserted with, and the id of
the column set that image covers, so that a before image with columns added since still finds it). A delete
at position s removes the most recent equal row inserted before s. A delete whose row has not arrived yet
(out-of-order delivery) is kept in `<tables>/_sink_pending/<topic>` and cancels that insert when it comes.
Because inserts and deletes of equal rows commute, any delivery order gives the same table, except for a
truncate delivered after a later delete of a row inserted before the truncate (then either row may go).
"""

from __future__ import annotations

import hashlib
import os
import struct
from dataclasses import dataclass
from typing import Any

import orjson
import pyarrow as pa
import pyarrow.compute as pc
from deltalake import DeltaTable, write_deltalake

from sink import tombstones
from sink.batch import Event, Options, TopicBatch, tombstone_path, truncate_floor
from sink.delta import (
    AUX_PREFIX,
    CS,
    IMG,
    OP,
    RID,
    SEQ,
    already_applied,
    backfill,
    canon,
    canonical_value,
    commit,
    create_or_evolve,
    open_table,
    plan_columns,
    table_schema,
)
from sink.types import is_placeholder

PENDING = AUX_PREFIX + "pending"
COLSET_PROP = "dbz.sink.colset."  # table property: the column names of a column-set id
META_FIELDS = [
    pa.field(SEQ, pa.string(), nullable=False),
    pa.field(RID, pa.string(), nullable=False),
    pa.field(IMG, pa.string()),
    pa.field(CS, pa.string()),
]


def colset_id(names) -> str:
    return hashlib.sha1(canon(sorted(names)).encode()).hexdigest()[:12]


def img_hash(rep: dict[str, Any], names) -> str:
    return hashlib.sha1(canon({n: rep.get(n) for n in names}).encode()).hexdigest()[:24]


@dataclass
class _Copy:  # a row that a delete may remove: in the table, or inserted by this batch
    seq: str
    rid: str
    cs: str
    img: str
    row: dict | None = None  # batch inserts only
    consumed: bool = False


@dataclass
class _Delete:
    seq: str
    rid: str
    rep: dict[str, Any]  # canonical before image
    at_ms: int | None = None  # when it became pending


def _rid(e: Event) -> str:
    return f"{e.seq}/{'/'.join(map(str, e.tie))}"


def pending_path(tables: str, topic: str) -> str:
    return os.path.join(tables, PENDING, topic)


def load_pending(path: str, app_id: str, batch_id: int) -> tuple[list[_Delete], int | None]:
    """The pending deletes as they were before this batch (a replayed batch that already wrote them reads
    the version before its own write: its commit is the table's last one, nothing else writes here)."""
    pt = open_table(path)
    if pt is None:
        return [], None
    version = pt.version()
    if already_applied(pt, app_id, batch_id):
        if version == 0:
            return [], version
        pt = DeltaTable(path, version=version - 1)
    t = pt.to_pyarrow_table()
    out = [
        _Delete(s, r, orjson.loads(i), a)
        for s, r, i, a in zip(*(t.column(c).to_pylist() for c in ("seq", "rid", "image", "at_ms")))
    ]
    return out, version


def _write_pending(path: str, dels: list[_Delete], app_id: str, batch_id: int, now: int) -> None:
    t = pa.table(
        {
            "seq": pa.array([d.seq for d in dels], pa.string()),
            "rid": pa.array([d.rid for d in dels], pa.string()),
            "image": pa.array([canon(d.rep) for d in dels], pa.string()),
            "at_ms": pa.array([d.at_ms or now for d in dels], pa.int64()),
        }
    )
    write_deltalake(path, t, mode="overwrite", commit_properties=commit(app_id, batch_id))


def _changes(topic: str, evs: list[Event], opts: Options) -> tuple[list[_Copy], list[_Delete]]:
    inserts: list[_Copy] = []
    deletes: list[_Delete] = []
    blind = 0
    for e in evs:
        if e.op in ("u", "d"):
            if e.before is None:
                blind += 1
                continue
            before = {c: canonical_value(v) for c, v in e.before.items()}
            deletes.append(_Delete(e.seq, _rid(e), before))
            if e.op == "u":
                for c, v in e.row.items():  # unchanged TOAST values: the before image has them
                    if is_placeholder(v) and e.before.get(c) is not None:
                        e.row[c] = e.before[c]
        if e.op in ("c", "r", "u"):
            names = list(e.row)
            rep = {c: canonical_value(v) for c, v in e.row.items()}
            inserts.append(_Copy(e.seq, _rid(e), colset_id(names), img_hash(rep, names), e.row))
    if blind:
        opts.say(
            f"{topic}: {blind} update/delete events without a before image skipped: a table without a "
            "primary key is mirrored by its full before image (PostgreSQL: REPLICA IDENTITY FULL)"
        )
    return inserts, deletes


def apply_topic(tables: str, topic: str, tb: TopicBatch, app_id: str, batch_id: int, opts: Options) -> int:
    path = os.path.join(tables, topic)
    tpath, ppath = tombstone_path(tables, topic), pending_path(tables, topic)
    table = open_table(path)
    if already_applied(table, app_id, batch_id):
        return -1
    if table is not None and RID not in table_schema(table).names:
        opts.say(f"{topic}: events without a key for a table mirrored by its key: skipped")
        return 0
    keyed = sum(1 for e in tb.events if e.key is not None)
    if keyed:
        opts.say(f"{topic}: {keyed} events with a key for a table mirrored without one: skipped")
    evs = sorted((e for e in tb.events if e.key is None), key=lambda e: (e.seq, e.tie))
    trunc = max((e.seq for e in evs if e.op == "t"), default=None)
    floor = truncate_floor(trunc, tombstones.load(tpath, set()))
    evs = [e for e in evs if e.op != "t" and (floor is None or e.seq >= floor)]
    inserts, deletes = _changes(topic, evs, opts)
    old_pending, _ = load_pending(ppath, app_id, batch_id)
    pending = [d for d in old_pending if floor is None or d.seq >= floor]
    dels = sorted(deletes + pending, key=lambda d: (d.seq, d.rid))

    # column sets: those of rows in the table (table properties) and of this batch's inserts
    stored = dict(table.metadata().configuration) if table is not None else {}
    colsets = {k[len(COLSET_PROP) :]: orjson.loads(v) for k, v in stored.items() if k.startswith(COLSET_PROP)}
    new_sets = {c.cs: sorted(c.row) for c in inserts if c.cs not in colsets}
    colsets.update(new_sets)
    wanted: dict[int, dict[str, str]] = {}  # per delete: column set -> hash of its before image over it
    for i, d in enumerate(dels):
        wanted[i] = {
            cs: img_hash(d.rep, names) for cs, names in colsets.items() if set(names) <= d.rep.keys()
        }
    # rows written before a DROP COLUMN: their column set has columns the before image lacks; they are
    # compared over the columns both have (rows equal there are equal in the source now)
    partial: dict[
        int, dict[str, tuple[tuple[str, ...], str]]
    ] = {}  # per delete: column set -> (columns, hash)
    f32 = _float32_columns(table)
    for i, d in enumerate(dels):
        for cs, names in colsets.items():
            common = tuple(sorted(set(names) & d.rep.keys()))
            if common and not set(names) <= d.rep.keys():
                partial.setdefault(i, {})[cs] = (common, img_hash(_as_float32(d.rep, f32), common))
    pool: dict[tuple, list[_Copy]] = {}
    table_copies = _candidates(table, {h for w in wanted.values() for h in w.values()}, floor)
    for c in table_copies + inserts:
        pool.setdefault((c.cs, c.img), []).append(c)
    if partial:
        table_copies = _partial_candidates(table, table_copies, partial, inserts, floor, pool, f32)

    # each delete, in source order, removes the most recent equal row inserted before it
    unmatched: list[_Delete] = []
    for i, d in enumerate(dels):
        best = None
        keys = [(cs, h) for cs, h in wanted[i].items()] + [(cs, *ch) for cs, ch in partial.get(i, {}).items()]
        for key in keys:
            for c in pool.get(key, ()):
                if (
                    not c.consumed
                    and c.seq < d.seq
                    and (best is None or (c.seq, c.rid) > (best.seq, best.rid))
                ):
                    best = c
        if best is None:
            unmatched.append(d)
        else:
            best.consumed = True
    appends = [c for c in inserts if not c.consumed]
    removes = [c for c in table_copies if c.consumed]

    if trunc is not None:
        tombstones.write(tpath, {tombstones.TRUNCATE_KEY: trunc}, app_id, batch_id, opts.now_ms)
    now = opts.now_ms if opts.now_ms is not None else tombstones.now_ms()
    cutoff = tombstones.cutoff_ms(opts.tombstone_retention_s, now)
    keep = [d for d in unmatched if d.at_ms is None or d.at_ms >= cutoff]  # pending deletes expire too
    if [d.rid for d in keep] != [d.rid for d in old_pending]:
        _write_pending(ppath, keep, app_id, batch_id, now)

    if not appends and not removes:
        if trunc is not None and table is not None:
            table.delete(f"{SEQ} < '{trunc}'", commit_properties=commit(app_id, batch_id))
        return 0
    plan = plan_columns(table, tb.cols, [], META_FIELDS)
    plan.props.update({COLSET_PROP + k: canon(v) for k, v in new_sets.items()})
    n = len(appends)
    data = plan.arrays([c.row for c in appends] + [{}] * len(removes))
    for col, vals in (
        (SEQ, [c.seq for c in appends + removes]),
        (RID, [c.rid for c in appends + removes]),
        (IMG, [c.img for c in appends] + [None] * len(removes)),
        (CS, [c.cs for c in appends] + [None] * len(removes)),
        (OP, ["i"] * n + ["x"] * len(removes)),
    ):
        data[col] = pa.array(vals, pa.string())
    src = pa.table(data)
    table = create_or_evolve(path, table, plan)
    sets = {f"`{c}`": f"s.`{c}`" for c in [*plan.cols, SEQ, RID, IMG, CS]}
    m = (
        table.merge(
            src,
            f"t.{RID} = s.{RID}",
            source_alias="s",
            target_alias="t",
            commit_properties=commit(app_id, batch_id),
        )
        .when_matched_delete(predicate=f"s.{OP} = 'x'")
        .when_not_matched_insert(sets, predicate=f"s.{OP} = 'i'")
    )  # a re-delivered insert is not doubled
    if trunc is not None:
        m = m.when_not_matched_by_source_delete(predicate=f"t.{SEQ} < '{trunc}'")
    fill = backfill(plan)
    if fill and trunc is None:
        m = m.when_not_matched_by_source_update(fill)
    m.execute()
    return n + len(removes)


def _partial_candidates(
    table: DeltaTable | None,
    copies: list[_Copy],
    partial: dict[int, dict[str, tuple[tuple[str, ...], str]]],
    inserts: list[_Copy],
    floor: str | None,
    pool: dict[tuple, list[_Copy]],
    f32: frozenset[str],
) -> list[_Copy]:
    """Adds to `pool` the rows of the column sets that `partial` compares over fewer columns, keyed
    (column set, columns, hash over them): this batch's inserts and the table's rows of those sets (their
    columns read back; `f32`: their float32 columns, compared as float32 on every side). Returns the table's
    candidate rows, one `_Copy` per row."""
    need: dict[str, set[tuple[str, ...]]] = {}
    for per in partial.values():
        for cs, (common, _) in per.items():
            need.setdefault(cs, set()).add(common)
    for c in inserts:
        for common in need.get(c.cs, ()):
            rep = _as_float32({n: canonical_value(c.row.get(n)) for n in common}, f32)
            pool.setdefault((c.cs, common, img_hash(rep, common)), []).append(c)
    by_rid = {c.rid: c for c in copies}
    if table is None:
        return copies
    cols = sorted({n for commons in need.values() for common in commons for n in common})
    t = table.to_pyarrow_table(columns=[SEQ, RID, CS, *cols])
    t = t.filter(pc.is_in(t.column(CS).cast(pa.string()), value_set=pa.array(sorted(need), pa.string())))
    for r in t.to_pylist():
        if floor is not None and r[SEQ] < floor:
            continue
        c = by_rid.setdefault(r[RID], _Copy(r[SEQ], r[RID], r[CS], ""))
        for common in need[r[CS]]:
            rep = _as_float32({n: canonical_value(r[n]) for n in common}, f32)
            pool.setdefault((c.cs, common, img_hash(rep, common)), []).append(c)
    return list(by_rid.values())


def _float32_columns(table: DeltaTable | None) -> frozenset[str]:
    """The table's float32 columns and arrays of float32 (Connect FLOAT32: REAL / FLOAT, PostgreSQL real[])."""
    if table is None:
        return frozenset()
    return frozenset(
        f.name
        for f in table_schema(table)
        if pa.types.is_float32(f.type)
        or (
            (pa.types.is_list(f.type) or pa.types.is_large_list(f.type))
            and pa.types.is_float32(f.type.value_type)
        )
    )


def _f32(v: Any) -> Any:
    if isinstance(v, list):
        return [_f32(x) for x in v]
    if isinstance(v, str):  # canonical_value's repr of a float ('nan', 'inf' too)
        try:
            return repr(struct.unpack("f", struct.pack("f", float(v)))[0])
        except (ValueError, OverflowError):  # not a number, or outside float32: compared as it is
            pass
    return v


def _as_float32(rep: dict[str, Any], f32: frozenset[str]) -> dict[str, Any]:
    """`rep` with its float32 columns' values (and real[] elements) rounded to float32. A value read back from the table is the
    float32 (repr 1.100000023841858), a before image's is the JSON number Debezium printed (1.1): compared
    as they are, a row written before a DROP COLUMN was never found again by a later update or delete."""
    hit = f32 & rep.keys()
    if not hit:
        return rep
    out = dict(rep)
    for n in hit:
        out[n] = _f32(rep[n])
    return out


def _candidates(table: DeltaTable | None, hashes: set[str], floor: str | None) -> list[_Copy]:
    """Rows of the table whose image hash is one a delete of this batch looks for (only these columns are
    read). Rows a truncate of this batch removes are no candidates."""
    if table is None or not hashes:
        return []
    t = table.to_pyarrow_table(columns=[SEQ, RID, CS, IMG])
    t = t.filter(pc.is_in(t.column(IMG).cast(pa.string()), value_set=pa.array(sorted(hashes), pa.string())))
    rows = zip(*(t.column(c).to_pylist() for c in (SEQ, RID, CS, IMG)))
    return [_Copy(s, r, cs, i) for s, r, cs, i in rows if floor is None or s >= floor]
