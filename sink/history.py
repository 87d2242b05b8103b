"""SCD type 2 (`--scd 2`): every version of every key, as AutoCDC's `STORED AS SCD TYPE 2` keeps them.

Each insert, update or snapshot read of a key is a row whose `__START_AT` is its source position (the sink's
`__seq` string, so it sorts like the source) and whose `__END_AT` is the position of the key's next change
(the next version, its delete, or a truncate of the table), null while it is the current version. A delete
writes no row: it closes the current version. Versions are kept whatever order they arrive in: a late event
becomes a version between its neighbours, and the END of the one before it is moved to its START. The
delete positions needed for that are the ENDs that start no version, plus the delete log (`sink.tombstones`).
A re-delivered event (same START) is not added twice, so a replayed batch changes nothing.
"""

from __future__ import annotations

import os
from bisect import bisect_right
from dataclasses import dataclass, field

import orjson
import pyarrow as pa
from deltalake import DeltaTable

from sink import fills, tombstones
from sink.batch import Event, Options, TopicBatch, tombstone_path
from sink.delta import (
    OP,
    already_applied,
    backfill,
    canon,
    canonical_value,
    commit,
    create_or_evolve,
    open_table,
    plan_columns,
    q,
    table_schema,
)
from sink.types import decoder, is_placeholder

START, END = "__START_AT", "__END_AT"
META_FIELDS = [pa.field(START, pa.string(), nullable=False), pa.field(END, pa.string())]


@dataclass
class _Key:
    versions: dict[str, dict | None] = field(default_factory=dict)  # START -> new row (None: in the table)
    ends: dict[str, str | None] = field(default_factory=dict)  # START -> END as stored in the table
    closes: set[str] = field(default_factory=set)  # delete positions


def _ident(values: dict) -> str:
    return canon({k: canonical_value(v) for k, v in values.items()})


def apply_topic(tables: str, topic: str, tb: TopicBatch, app_id: str, batch_id: int, opts: Options) -> int:
    path = os.path.join(tables, topic)
    tpath = tombstone_path(tables, topic)
    dt = open_table(path)
    if already_applied(dt, app_id, batch_id):
        return -1
    if tb.keyless or (not tb.key_cols and any(e.op != "t" for e in tb.events)):
        opts.say(f"{topic}: SCD type 2 needs a key; the {len(tb.events)} events of this table are skipped")
        return 0
    if dt is not None and START not in table_schema(dt).names:
        opts.say(f"{topic}: the table was written as a mirror (SCD type 1), not as history: skipped")
        return 0
    key_cols = tb.key_cols
    kdec = {k: decoder(tb.cols[k]) for k in key_cols}
    evs = sorted(tb.events, key=lambda e: (e.seq, e.tie))
    trunc = max((e.seq for e in evs if e.op == "t"), default=None)
    idents: dict[str, dict] = {}  # identity -> decoded key values
    by_key: dict[str, list[Event]] = {}
    oldkeys: dict[tuple[str, str], str] = {}  # (identity, START) of a key change's create -> old identity
    for e in evs:
        if e.key is None:
            continue
        kv = {k: kdec[k](v) for k, v in orjson.loads(e.key).items()}
        ident = _ident(kv)
        idents[ident] = kv
        by_key.setdefault(ident, []).append(e)
        old = orjson.loads(e.oldkey) if e.oldkey is not None else None
        if isinstance(old, dict):  # a header that is no key struct carries no old key
            oldkeys[(ident, e.seq)] = _ident({k: kdec[k](v) for k, v in old.items() if k in kdec})
    tombs = tombstones.load(tpath, {e.key for e in evs if e.key is not None})
    truncs = {x for x in (trunc, tombs.get(tombstones.TRUNCATE_KEY)) if x}

    keys = _table_versions(dt, key_cols, set(by_key))
    for ident, kevs in by_key.items():
        k = keys.setdefault(ident, _Key())
        k.closes |= {e.seq for e in kevs if e.op == "d"}
        last_delete = tombs.get(kevs[0].key)
        if last_delete:
            k.closes.add(last_delete)
        for e in kevs:
            if e.op != "d" and e.seq not in k.versions:  # a re-delivered version is there already
                k.versions[e.seq] = e.row
    # which columns of each new version are placeholders, before they are filled (`sink.fills`)
    phs = {
        (i, st): [c for c, v in r.items() if is_placeholder(v)]
        for i, k in keys.items()
        for st, r in k.versions.items()
        if r is not None
    }
    phs = {x: cs for x, cs in phs.items() if cs}
    vpath = fills.versions_path(tables, topic)
    fills.write_versions(vpath, phs, app_id, batch_id, opts.now_ms)
    filled = _fill_toast(dt, key_cols, keys, oldkeys, vpath, phs)

    inserts, updates, rewrites = [], [], []
    for ident, k in keys.items():
        starts = sorted(k.versions)
        points = sorted(set(starts) | k.closes | truncs)
        for s in starts:
            i = bisect_right(points, s)
            end = points[i] if i < len(points) else None
            row = k.versions[s]
            if row is not None:
                inserts.append((ident, s, end, row))
            elif (ident, s) in filled:
                rewrites.append((ident, s, end, filled[(ident, s)]))
            elif k.ends.get(s) != end:
                updates.append((ident, s, end))
    new_tombs = {e.key: e.seq for e in evs if e.op == "d"}
    if trunc is not None:
        new_tombs[tombstones.TRUNCATE_KEY] = trunc
    tombstones.write(tpath, new_tombs, app_id, batch_id, opts.now_ms)
    if not inserts and not updates and not rewrites:
        if trunc is not None and dt is not None:
            dt.update(
                {END: f"'{trunc}'"},
                predicate=f"{END} IS NULL AND {START} < '{trunc}'",
                commit_properties=commit(app_id, batch_id),
            )
        return 0

    plan = plan_columns(dt, tb.cols, [*key_cols, START], META_FIELDS)
    # an update only moves END: its row carries the key (the other columns are not written); a rewrite
    # replaces a stored version whose TOAST placeholders a late earlier version filled
    full = inserts + rewrites
    data = plan.arrays([r for _, _, _, r in full] + [dict(idents[i]) for i, _, _ in updates])
    data[START] = pa.array([s for _, s, _, _ in full] + [s for _, s, _ in updates], pa.string())
    data[END] = pa.array([e for _, _, e, _ in full] + [e for _, _, e in updates], pa.string())
    data[OP] = pa.array(["i"] * len(inserts) + ["r"] * len(rewrites) + ["u"] * len(updates), pa.string())
    src = pa.table(data)
    dt = create_or_evolve(path, dt, plan)
    pred = " AND ".join(f"t.{q(c)} = s.{q(c)}" for c in [*key_cols, START])
    sets = {q(c): f"s.{q(c)}" for c in [*plan.cols, START, END]}
    m = (
        dt.merge(src, pred, source_alias="s", target_alias="t", commit_properties=commit(app_id, batch_id))
        .when_matched_update({END: f"s.{END}"}, predicate=f"s.{OP} = 'u'")
        .when_matched_update(sets, predicate=f"s.{OP} = 'r'")
        .when_not_matched_insert(sets, predicate=f"s.{OP} = 'i'")
    )
    if trunc is not None:  # the truncate closes every version still open before it
        m = m.when_not_matched_by_source_update(
            {END: f"'{trunc}'"}, predicate=f"t.{END} IS NULL AND t.{START} < '{trunc}'"
        )
    fill = backfill(plan)
    if fill and trunc is None:
        m = m.when_not_matched_by_source_update(fill)
    m.execute()
    return len(inserts) + len(updates) + len(rewrites)


def _table_versions(dt: DeltaTable | None, key_cols: list[str], idents: set[str]) -> dict[str, _Key]:
    """The versions (START -> END) already in the table for these keys (only the key and period columns are
    read); the ENDs that start no version are the key's delete (or truncate) positions."""
    out: dict[str, _Key] = {}
    if dt is None or not idents:
        return out
    t = dt.to_pyarrow_table(columns=[*key_cols, START, END])
    k0 = key_cols[0]
    want = {orjson.loads(i)[k0] for i in idents}
    col0 = [canonical_value(v) in want for v in t.column(k0).to_pylist()]
    t = t.filter(pa.array(col0, pa.bool_()))
    for r in t.to_pylist():
        ident = _ident({k: r[k] for k in key_cols})
        if ident not in idents:
            continue
        k = out.setdefault(ident, _Key())
        k.versions[r[START]] = None
        k.ends[r[START]] = r[END]
    for k in out.values():
        k.closes |= {e for e in k.ends.values() if e is not None and e not in k.versions}
    return out


def _late(k: _Key) -> bool:
    """Whether a new version comes before a stored one (whose placeholders it may fill)."""
    new = [s for s, r in k.versions.items() if r is not None]
    stored = [s for s, r in k.versions.items() if r is None]
    return bool(new and stored) and min(new) < max(stored)


def _fill_toast(
    dt: DeltaTable | None,
    key_cols: list[str],
    keys: dict[str, _Key],
    oldkeys: dict[tuple[str, str], str],
    vpath: str,
    phs: dict[tuple[str, str], list[str]],
) -> dict[tuple[str, str], dict]:
    """A TOAST placeholder in a new version takes the value of the version before it (new in this batch, or
    read from the table); for the first version after a key change, the old key's version before it. It
    stays when there is none (the older version has not arrived yet); when that version arrives in a later
    batch, the stored versions after it are filled then: returned as (identity, START) -> the filled row, to
    be written again. So are the stored versions whose placeholders took the value of the version before them
    as it stood then, when a late version comes between (`vpath`: which columns were placeholders, `phs`
    those of the new versions); a placeholder after a delete is left as it is until the version after the
    delete comes."""
    need = {
        i
        for i, k in keys.items()
        if any(r is not None and any(is_placeholder(v) for v in r.values()) for r in k.versions.values())
    }
    late = {i for i, k in keys.items() if _late(k)}
    need |= late
    filled: dict[tuple[str, str], dict] = {}
    if not need:
        return filled
    olds = {oldkeys[(i, s)] for i in need for s in keys[i].versions if (i, s) in oldkeys}
    stored: dict[str, dict[str, dict]] = {}  # ident -> START -> row, for the keys concerned
    if dt is not None:
        for r in dt.to_pyarrow_table().to_pylist():
            ident = _ident({k: r[k] for k in key_cols})
            if ident in need or ident in olds:
                stored.setdefault(ident, {})[r[START]] = r

    def timeline(ident: str) -> list[tuple[str, dict]]:
        k = keys.get(ident, _Key())
        rows = dict(stored.get(ident, {}))
        rows.update({s: r for s, r in k.versions.items() if r is not None})
        return sorted(rows.items(), key=lambda x: x[0])

    was = fills.load_versions(vpath, need | olds)
    was.update(phs)

    def fill(row: dict, prev: dict, cols: list[str]) -> bool:
        changed = False
        for c, v in row.items():
            if (
                (is_placeholder(v) or c in cols)
                and c in prev
                and not is_placeholder(prev[c])
                and v != prev[c]
            ):
                row[c] = prev[c]
                changed = True
        return changed

    for ident in sorted(need, key=lambda i: i not in olds):  # old keys of key changes first
        prev: dict | None = None
        at = ""
        for s, row in timeline(ident):
            if prev is not None and any(at < d < s for d in keys[ident].closes):
                prev = None  # deleted since: the version after the delete has not come yet
            cols = was.get((ident, s), [])
            if keys[ident].versions.get(s) is not None:
                if prev is None and (ident, s) in oldkeys:
                    before = [r for t, r in timeline(oldkeys[(ident, s)]) if t < s]
                    prev = before[-1] if before else None
                if prev is not None:
                    fill(row, prev, cols)
            elif ident in late and prev is not None and fill(row, prev, cols):
                filled[(ident, s)] = row  # a stored version, filled by a late version before it
            prev, at = row, s
    return filled
