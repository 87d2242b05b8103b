"""Tables with a key: the SCD type 1 mirror, one delta-rs MERGE per topic and micro-batch.

Order by source position, drop what a truncate (in this batch or recorded earlier) supersedes, carry TOAST
placeholders forward (from earlier events of the key, else from the table), keep the last event per key,
drop events older than a recorded delete of their key (the tombstone log, so late events never resurrect a
row), then one MERGE guarded by `t.__seq < s.__seq`. The commit carries the application transaction
(app_id, batch_id): a replayed batch finds its version already there and is skipped.
"""

from __future__ import annotations

import os

import orjson
import pyarrow as pa
import pyarrow.compute as pc
from deltalake import DeltaTable

from sink import fills, tombstones
from sink.batch import Event, Options, TopicBatch, tombstone_path, truncate_floor
from sink.delta import (
    OP,
    RID,
    SEQ,
    already_applied,
    backfill,
    commit,
    create_or_evolve,
    open_table,
    plan_columns,
    q,
    table_schema,
)
from sink.types import PLACEHOLDER, decoder, is_placeholder


def _carry_toast(evs: list[Event]) -> tuple[dict[str, Event], dict[str, set[str]]]:
    """The last event per key, with TOAST placeholders filled from earlier images of the key in this batch;
    and per key the columns still unresolved (to be read from the table)."""
    last: dict[str, Event] = {}
    last_image: dict[str, Event] = {}
    unresolved: dict[str, set[str]] = {}
    for e in evs:
        if e.row is not None:
            prev = last.get(e.key)
            if prev is None and e.oldkey is not None and e.oldkey in last_image:
                prev = last_image[e.oldkey]  # key change: the unchanged TOAST values live under the old key
            miss, fill = set(), {}
            for c, v in e.row.items():
                if is_placeholder(v):
                    if prev is not None and prev.row is not None and not is_placeholder(prev.row.get(c)):
                        e.row[c] = prev.row.get(c)
                        fill[c] = (prev.fills or {}).get(c, prev.seq)
                    elif (
                        prev is not None
                        and prev.row is not None
                        and (
                            c in unresolved.get(e.key, ())
                            or (prev.key != e.key and is_placeholder(prev.row.get(c)))
                        )
                    ):
                        # still a placeholder in the old key's image too (its delete popped its entry): the
                        # table's value under the old key (`_fill_from_table`), not null (pg seed 15)
                        miss.add(c)
                    elif prev is None:
                        miss.add(c)
                    else:
                        e.row[c] = None
                        fill[c] = prev.seq
            e.fills = fill or None
            if miss:
                unresolved[e.key] = miss
                if e.oldkey is None and prev is not None and prev.key == e.key and prev.oldkey is not None:
                    # a later change of a key change's new key: its placeholders are still the old key's values
                    # in the table (`_fill_from_table` looks there by the oldkey; pg seed 25, Kafka input)
                    e.oldkey = prev.oldkey
            else:
                unresolved.pop(e.key, None)
            last_image[e.key] = e
        else:
            unresolved.pop(e.key, None)
        last[e.key] = e
    return last, unresolved


def apply_topic(tables: str, topic: str, tb: TopicBatch, app_id: str, batch_id: int, opts: Options) -> int:
    path = os.path.join(tables, topic)
    tpath = tombstone_path(tables, topic)
    dt = open_table(path)
    if already_applied(dt, app_id, batch_id):
        return -1
    if dt is not None and RID in table_schema(dt).names:
        opts.say(f"{topic}: {len(tb.events)} events with a key for a table mirrored without one: skipped")
        return 0
    evs = sorted((e for e in tb.events if e.key is not None or e.op == "t"), key=lambda e: (e.seq, e.tie))
    trunc = max((e.seq for e in evs if e.op == "t"), default=None)
    tombs = tombstones.load(tpath, {e.key for e in evs if e.key is not None})
    floor = truncate_floor(trunc, tombs)
    evs = [e for e in evs if e.op != "t" and (floor is None or e.seq >= floor)]
    last, unresolved = _carry_toast(evs)
    fpath = fills.path_of(tables, topic)
    # a delete is not superseded by its own entry in the log: a replay after a crash between the log's write and
    # the MERGE finds it there, and must still delete the row
    final = [
        e
        for e in last.values()
        if e.seq > tombs.get(e.key, "") or (e.op == "d" and e.seq == tombs.get(e.key))
    ]
    new_tombs = {e.key: e.seq for e in evs if e.op == "d"}
    if trunc is not None:
        new_tombs[tombstones.TRUNCATE_KEY] = trunc
    tombstones.write(tpath, new_tombs, app_id, batch_id, opts.now_ms)
    if not final:
        if trunc is not None and dt is not None:  # only a truncate: delete what it supersedes
            dt.delete(f"{SEQ} < '{trunc}'", commit_properties=commit(app_id, batch_id))
        return 0

    plan = plan_columns(dt, tb.cols, tb.key_cols, [pa.field(SEQ, pa.string(), nullable=False)])
    log = fills.load(fpath, {k for e in final for k in (e.key, e.oldkey) if k is not None})
    from_table = _fill_from_table(dt, tb.key_cols, tb.cols, final, unresolved, log)
    late, entries = fills.settle(
        fills.finals_of(
            [e.key for e in final],
            [e.seq for e in final],
            [e.op for e in final],
            [e.fills for e in final],
            from_table,
            plan.cols,
        ),
        log,
    )
    fills.write(fpath, entries, app_id, batch_id, opts.now_ms)
    # a delete carries only its key (decoded by the key's schema); the values of its other columns do not matter
    rows = [
        e.row if e.row is not None else {c: _key_value(kr, c, tb.cols.get(c)) for c in kr}
        for e, kr in ((e, orjson.loads(e.key)) for e in final)
    ]
    data = plan.arrays(rows)
    data[SEQ] = pa.array([e.seq for e in final], pa.string())
    data[OP] = pa.array([e.op for e in final], pa.string())
    if late:
        data.update(fills.late_arrays([e.key for e in final], late))
    src = pa.table(data)

    lcols = fills.late_cols(late)
    merge(create_or_evolve(path, dt, plan), plan, tb.key_cols, src, trunc, app_id, batch_id, lcols)
    return len(final)


def merge(
    dt,
    plan,
    key_cols: list[str],
    src: pa.Table,
    trunc: str | None,
    app_id: str,
    batch_id: int,
    lcols: list[str] = (),
) -> None:
    """One MERGE of the final rows (`SEQ`, `OP` and the plan's columns; `fills.LATE_AT`/`LATE` where late
    events give the columns `lcols`), guarded by source position."""
    pred = " AND ".join(f"t.{q(k)} = s.{q(k)}" for k in key_cols)
    sets = {q(c): f"s.{q(c)}" for c in [*plan.cols, SEQ]}
    m = (
        dt.merge(src, pred, source_alias="s", target_alias="t", commit_properties=commit(app_id, batch_id))
        .when_matched_delete(predicate=f"s.{OP} = 'd' AND t.{SEQ} < s.{SEQ}")
        .when_matched_update(sets, predicate=f"s.{OP} <> 'd' AND t.{SEQ} < s.{SEQ}")
        .when_not_matched_insert(sets, predicate=f"s.{OP} <> 'd'")
    )
    texts = [c for c in plan.cols if pa.types.is_string(plan.schema.field(c).type) and c not in key_cols]
    # a TOAST update delivered before its base image left the placeholder: an older image fills it in
    ph = f"'{PLACEHOLDER}'"
    older = {q(c): f"CASE WHEN t.{q(c)} = {ph} THEN s.{q(c)} ELSE t.{q(c)} END" for c in texts}
    # the columns this batch adds: the source gave every row already there the default, also a row this
    # batch matches with an older event only (a late event, a re-delivery; pg seed 31, w101.s.t0 key k1005)
    fill = backfill(plan) if trunc is None else {}
    older.update(fill)
    if fills.LATE in src.column_names:
        # an older event gives the columns a placeholder of the row took from an older source (`sink.fills`)
        late = dict(older)
        for i, c in enumerate(lcols):
            late[q(c)] = (
                f"CASE WHEN strpos(s.{fills.LATE}, ',{i},') > 0 THEN s.{q(c)} ELSE {older.get(q(c), f't.{q(c)}')} END"
            )
        m = m.when_matched_update(
            late,
            predicate=f"s.{OP} <> 'd' AND t.{SEQ} > s.{SEQ} AND t.{SEQ} = s.{fills.LATE_AT}",
        )
    if older:
        m = m.when_matched_update(older, predicate=f"s.{OP} <> 'd' AND t.{SEQ} > s.{SEQ}")
    if fill:  # the rows matched by an older delete or the same position
        m = m.when_matched_update(fill, predicate=f"t.{SEQ} >= s.{SEQ}")
    if trunc is not None:
        m = m.when_not_matched_by_source_delete(predicate=f"t.{SEQ} < '{trunc}'")
    if fill:
        m = m.when_not_matched_by_source_update(fill)
    m.execute()


def _fill_from_table(
    dt: DeltaTable | None,
    key_cols: list[str],
    fields: dict[str, dict],
    final: list[Event],
    unresolved: dict[str, set[str]],
    log: dict,
) -> dict[str, dict[str, str]]:
    """Unresolved TOAST columns take the table's value (under the old key for a key change); when the table
    never had the row (a TOAST update delivered before its base image) the placeholder stays. Per key, the
    position those values came from (`sink.fills.table_src`, "" where the placeholder stays)."""
    need = {e.key: unresolved[e.key] for e in final if e.key in unresolved and e.row is not None}
    if not need:
        return {}
    look = dict(need)
    for e in final:
        if e.key in need and e.oldkey is not None:
            look[e.oldkey] = need[e.key]
    prev = rows_by_key(dt, key_cols, look, fields) if dt is not None else {}
    srcs: dict[str, dict[str, str]] = {}
    for e in final:
        at = e.key
        if e.key in need and e.key not in prev and e.oldkey in prev:
            prev[e.key] = prev[e.oldkey]
            at = e.oldkey
        for c in need.get(e.key, ()):
            if e.key in prev:
                e.row[c] = prev[e.key].get(c)
            srcs.setdefault(e.key, {})[c] = fills.table_src(prev.get(e.key), SEQ, log, at, c)
    return srcs


def _key_value(keyrow: dict, c: str, f: dict | None):
    if c not in keyrow:
        return None
    return decoder(f)(keyrow[c]) if f is not None else keyrow[c]


def rows_by_key(
    dt: DeltaTable, key_cols: list[str], need: dict[str, set[str]], fields: dict[str, dict]
) -> dict[str, dict]:
    """The table's rows of the keys in `need` (Debezium's key JSON texts), by key text. A key's JSON is not the
    table's value (a Decimal is base64 or text, a timestamp a number): each key column is decoded by its schema
    (`fields`) into the table's type, as the rows were written, and compared as values."""
    types = {f.name: f.type for f in table_schema(dt)}
    if any(c not in types for c in key_cols):
        return {}
    texts = list(need)
    keyrows = [orjson.loads(k) for k in texts]
    want = {
        c: pa.array([_key_value(kr, c, fields.get(c)) for kr in keyrows], types[c]).to_pylist()
        for c in key_cols
    }
    cols = sorted({c for s in need.values() for c in s} | set(key_cols) | {SEQ})
    k0 = key_cols[0]
    t = dt.to_pyarrow_table(columns=[c for c in cols if c in types])
    t = t.filter(pc.is_in(t.column(k0), value_set=pa.array(want[k0], types[k0])))
    rows = {tuple(r[c] for c in key_cols): r for r in t.to_pylist()}
    found = ((k, rows.get(tuple(want[c][i] for c in key_cols))) for i, k in enumerate(texts))
    return {k: r for k, r in found if r is not None}
