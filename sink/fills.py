"""The fill log (`<tables>/_sink_fills/<topic>`): per key, which columns of the mirror's row hold a value that
a TOAST placeholder took, and the source position of the image that value came from (its provenance).

A placeholder takes the value the key held before it: an earlier image of the batch, else the mirror's row.
When the events of a key arrive out of order across batches (a directory source, several partitions), an
older event delivered later than the placeholder may be the one whose value the placeholder stands for; the
MERGE drops it as older than the row. With the log, such an event still gives the columns it is the better
source of: those whose recorded provenance is not newer than the event's own value's. A placeholder that
found no value at all (no earlier image, no row) is recorded with provenance "" (any image gives it).

One row per key: `at` (the `__seq` of the mirror's row the entry describes), `src` (JSON {column: position})
and `at_ms` (when the sink wrote it: pruned after the retention by `sink.tombstones.prune`, as the delete log). A row written over
by a newer event with no fills drops its entry. The log is written before the MERGE; the late values are
given by the MERGE itself, guarded by the row's `__seq` being the entry's `at`. A replay after a crash between
the two finds the entry already advanced to the late event's position, and `settle` gives a value whose
provenance is equal too (the same image: the same value), so the replayed MERGE still writes it.
No log exists until a placeholder is filled: a stream without placeholders never reads one.
"""

from __future__ import annotations

import os
from collections.abc import Iterable
from dataclasses import dataclass

import orjson
import pyarrow as pa
import pyarrow.compute as pc
from deltalake import DeltaTable

from sink.delta import AUX_PREFIX, already_applied, commit, open_table
from sink.tombstones import AT, now_ms

FILLS = AUX_PREFIX + "fills"


def path_of(tables: str, topic: str) -> str:
    return os.path.join(tables, FILLS, topic)


@dataclass
class Final:
    """What `settle` needs of a batch's final row of a key: its position and op, and per TOAST column whose
    value is not the event's own the position that value came from ("" for a placeholder left as it is)."""

    key: str
    seq: str
    op: str
    src: dict[str, str]
    own: set[str]  # the TOAST columns whose value is the event's own (not a placeholder)


def _rows(path: str, keys: set[str]) -> list[tuple[str, str, str]]:
    """(key, at, src) of the log's rows for `keys` (none, without a read, when no log exists): both logs'
    shape."""
    if not keys or not os.path.isdir(path):
        return []
    dt = open_table(path)
    if dt is None:
        return []
    t = dt.to_pyarrow_table(columns=["key", "at", "src"])
    t = t.filter(pc.is_in(t.column("key").cast(pa.string()), value_set=pa.array(sorted(keys), pa.string())))
    return list(zip(t.column("key").to_pylist(), t.column("at").to_pylist(), t.column("src").to_pylist()))


def load(path: str, keys: set[str]) -> dict[str, tuple[str, dict[str, str]]]:
    """{key: (at, {column: position})} for `keys` (nothing, without a read, when no log exists)."""
    return {k: (a, orjson.loads(s)) for k, a, s in _rows(path, keys)}


def settle(
    finals: Iterable[Final], log: dict[str, tuple[str, dict[str, str]]]
) -> tuple[dict[str, tuple[str, list[str]]], dict[str, tuple[str, dict[str, str]]]]:
    """(late, entries): per key whose final event is older than its logged row, the row's `at` and the
    columns the event gives (its value's provenance not older than the logged one); and the log's new rows
    (an empty `src`: the entry is dropped)."""
    late, entries = {}, {}
    for f in finals:
        ent = log.get(f.key)
        if ent is not None and f.seq < ent[0]:
            if f.op == "d":
                continue
            at, srcs = ent
            give, upd = [], dict(srcs)
            for c, p in srcs.items():
                mine = f.seq if c in f.own else f.src.get(c) or None  # "" or absent: no value to give
                if mine is not None and p <= mine:
                    give.append(c)
                    upd[c] = mine
            if give:
                late[f.key] = (at, sorted(give))
                entries[f.key] = (at, upd)
        elif ent is None or f.seq > ent[0]:
            src = {} if f.op == "d" else f.src
            if src or ent is not None:
                entries[f.key] = (f.seq, src)
    return late, entries


def table_src(row: dict | None, seq_col: str, log: dict, key: str, c: str) -> str:
    """The provenance of the mirror's value of `c` in `row` (the key's row, read for a placeholder): the
    log's when the log describes this row, else the row's own position; "" when there is no row."""
    if row is None:
        return ""
    at = row.get(seq_col)
    ent = log.get(key)
    if ent is not None and ent[0] == at and c in ent[1]:
        return ent[1][c]
    return at or ""


def _log_rows(
    path: str, keys: list[str], ats: list[str], srcs: list[str], app_id: str, batch_id: int, at_ms: int | None
) -> tuple[DeltaTable, pa.Table] | None:
    """Both logs' write: the log (created on its first rows) and the rows to merge into it (key, at, src, the
    write's time), None when there is nothing to write or this micro-batch already wrote it."""
    if not keys:
        return None
    dt = open_table(path)
    if already_applied(dt, app_id, batch_id):
        return None
    at = now_ms() if at_ms is None else at_ms
    src = pa.table(
        {
            "key": pa.array(keys, pa.string()),
            "at": pa.array(ats, pa.string()),
            "src": pa.array(srcs, pa.string()),
            AT: pa.array([at] * len(keys), pa.int64()),
        }
    )
    if dt is None:
        DeltaTable.create(path, schema=src.schema, mode="ignore")
        dt = DeltaTable(path)
    return dt, src


def write(
    path: str, rows: dict[str, tuple[str, dict[str, str]]], app_id: str, batch_id: int, at_ms: int | None
) -> None:
    """Record entries (a key keeps the one of its highest `at`; an empty `src` removes it). Idempotent per
    micro-batch."""
    got = _log_rows(
        path,
        list(rows),
        [a for a, _ in rows.values()],
        [orjson.dumps(s).decode() for _, s in rows.values()],
        app_id,
        batch_id,
        at_ms,
    )
    if got is None:
        return
    dt, src = got
    (
        dt.merge(
            src,
            "t.key = s.key",
            source_alias="s",
            target_alias="t",
            commit_properties=commit(app_id, batch_id),
        )
        .when_matched_delete(predicate="s.src = '{}' AND t.at <= s.at")
        .when_matched_update({"at": "s.at", "src": "s.src", AT: f"s.{AT}"}, predicate="t.at <= s.at")
        .when_not_matched_insert_all(predicate="s.src <> '{}'")
        .execute()
    )


LATE_AT = "__late_at"  # MERGE source columns of a late event's row: the logged row's `__seq` it must meet,
LATE = "__late"  # and the columns it gives as ",i,j," (indexes in `late_cols`)


def late_cols(late: dict[str, tuple[str, list[str]]]) -> list[str]:
    return sorted({c for _, cs in late.values() for c in cs})


def late_arrays(keys: list[str], late: dict[str, tuple[str, list[str]]]) -> dict[str, pa.Array]:
    """The MERGE source's `LATE_AT`/`LATE` columns for rows keyed `keys` (null where a row gives nothing)."""
    idx = {c: i for i, c in enumerate(late_cols(late))}
    at = [late[k][0] if k in late else None for k in keys]
    cs = ["," + ",".join(str(idx[c]) for c in late[k][1]) + "," if k in late else None for k in keys]
    return {LATE_AT: pa.array(at, pa.string()), LATE: pa.array(cs, pa.string())}


def finals_of(
    keys: list[str],
    seqs: list[str],
    ops: list[str],
    batch_src: list,
    table_src: dict[str, dict[str, str]],
    cols: Iterable[str],
) -> list[Final]:
    """`Final`s of a batch's rows: `batch_src` per row the columns filled from an earlier image of the batch
    ({column: position} or (column, position) pairs, or None), `table_src` per key those filled from the
    mirror (`table_src()`'s position) or left a placeholder ("")."""
    out = []
    cols = set(cols)
    for k, s, o, b in zip(keys, seqs, ops, batch_src):
        src = dict(b or ())
        src.update(table_src.get(k, {}))
        out.append(Final(k, s, o, src, cols - set(src)))
    return out


# `--scd 2` keeps every version, so no provenance is needed there: a version's TOAST value is the value of the
# last version before it whose column was not a placeholder. What must be kept is which columns of a stored
# version were placeholders (`sink.history` filled them from the version before it as it stood then):
# `<tables>/_sink_toast_versions/<topic>`, one row per such version (key: the key's identity, at: START,
# src: JSON list of the columns), pruned after the retention as the delete log.
VERSIONS = AUX_PREFIX + "toast_versions"


def versions_path(tables: str, topic: str) -> str:
    return os.path.join(tables, VERSIONS, topic)


def load_versions(path: str, idents: set[str]) -> dict[tuple[str, str], list[str]]:
    """{(identity, START): placeholder columns} of the stored versions of these keys."""
    return {(k, a): orjson.loads(s) for k, a, s in _rows(path, idents)}


def write_versions(
    path: str, rows: dict[tuple[str, str], list[str]], app_id: str, batch_id: int, at_ms: int | None
) -> None:
    """Record the placeholder columns of new versions. Idempotent per micro-batch (and per version)."""
    got = _log_rows(
        path,
        [k for k, _ in rows],
        [s for _, s in rows],
        [orjson.dumps(sorted(c)).decode() for c in rows.values()],
        app_id,
        batch_id,
        at_ms,
    )
    if got is None:
        return
    dt, src = got
    m = dt.merge(
        src,
        "t.key = s.key AND t.at = s.at",
        source_alias="s",
        target_alias="t",
        commit_properties=commit(app_id, batch_id),
    )
    m.when_not_matched_insert_all().execute()
