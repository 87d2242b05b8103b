"""Per-partition pre-reduction in the reader: of a key's changes only those a mirror table can need.

The winners stage (`sink.executors.winners`) keeps per key the last change by (source position, delivery
position) and the position of the key's last delete. Within one reader partition, per key, the reader keeps
the last change, every delete, and the change just before each delete; the rest is dropped before the JVM sees
it. The deletes and the images before them are kept for the driver path: when a batch holds a key change and
TOAST placeholders in another partition (Kafka partitions by key, so a key change's delete and create can be in
two), the new key's unchanged values are the old key's image before its delete (`sink.mirror._carry_toast`).
Only for mirror tables (SCD type 1; history needs every version) and only in a partition with no TOAST
placeholders (carry-forward needs the earlier images), no key changes and no truncates (the survey, counted
before the cut, says so); events whose op, position or canonical key the reader could not read
(`sink.reader_keys`) are kept as they are, as are events that cannot win.
"""

from __future__ import annotations

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc


def safe(groups: dict) -> bool:
    """The partition's survey groups (`sink.stats.Survey.groups`) allow the cut."""
    return all(not ph and not tr and not hk for _, _, ph, tr, hk, _ in groups.values())


def _kept(kfp, kid, o, pos, op, rows: np.ndarray) -> np.ndarray:
    """Of `rows` (events of a key that can win), per (kfp, key) in source order: the last one, every delete,
    and the event just before each delete."""
    order = np.lexsort((pos[rows], *(x[rows] for x in reversed(o)), kfp[rows], kid[rows]))
    r = rows[order]
    same_next = np.zeros(len(r), bool)
    same_next[:-1] = (kid[r][1:] == kid[r][:-1]) & (kfp[r][1:] == kfp[r][:-1])
    dele = op[r]
    before_del = np.zeros(len(r), bool)
    before_del[:-1] = same_next[:-1] & dele[1:]
    return r[~same_next | dele | before_del]


def reduce(batches: list[pa.RecordBatch]) -> list[pa.RecordBatch]:
    """The batches with only, per key, its last change, its deletes and the changes before them (and every
    event that cannot be cut)."""
    if not batches:
        return batches
    t = pa.Table.from_batches(batches).combine_chunks()
    n = len(t)
    o0 = t.column("o0")
    cand = (
        t.column("rok").fill_null(False).to_numpy(zero_copy_only=False)
        & t.column("kc").is_valid().to_numpy(zero_copy_only=False)
        & o0.is_valid().to_numpy(zero_copy_only=False)
    )
    rows = np.flatnonzero(cand)
    if len(rows) < 2:
        return batches
    kid = np.full(n, -1, np.int64)
    kid[rows] = pc.dictionary_encode(t.column("kc").take(rows)).chunk(0).indices.to_numpy()
    if len(np.unique(kid[rows])) == len(rows):  # no key twice: nothing to cut
        return batches
    kfp = t.column("kfp").fill_null(0).to_numpy()
    o = [t.column(f"o{i}").fill_null(0).to_numpy() for i in range(4)]
    pos = t.column("pos").to_numpy()
    is_d = pc.equal(t.column("op"), "d").fill_null(False).to_numpy(zero_copy_only=False)
    keep = ~cand
    keep[_kept(kfp, kid, o, pos, is_d, rows)] = True
    if keep.all():
        return batches
    return t.filter(pa.array(keep)).to_batches()
