"""One micro-batch of Debezium records → the Delta mirror tables (SCD type 1), topic by topic.

Tables with a key: `sink.mirror` (last event per key, MERGE guarded by source position). Tables without one:
`sink.keyless` (rows found again by their before image). With `--scd 2`: `sink.history` (every version). Both record deletes and truncates in the delete log
(`sink.tombstones`), pruned after the retention. Every table commit carries the application transaction
(app_id, batch_id), so a batch replayed after a crash is skipped table by table.
"""

from __future__ import annotations

import os
import time

from sink import fills, history, keyless, mirror, tombstones
from sink.batch import TOMBSTONES, BatchStats, Options, TopicBatch, collect, tombstone_path
from sink.delta import SEQ

__all__ = ["SEQ", "TOMBSTONES", "BatchStats", "Options", "apply_batch", "collect"]


def apply_batch(tables: str, records, app_id: str, batch_id: int, opts: Options | None = None) -> BatchStats:
    """records: iterable of (topic, key_doc, value_doc, tie[, headers])."""
    opts = opts or Options()
    st = BatchStats()
    recs = list(records)
    st.records = len(recs)
    return apply_topics(tables, collect(recs), app_id, batch_id, opts, st)


def apply_topics(
    tables: str, tbs: dict[str, TopicBatch], app_id: str, batch_id: int, opts: Options, st: BatchStats
) -> BatchStats:
    for topic, tb in sorted(tbs.items()):
        if tb.events:
            st.max_ts_ms = max(st.max_ts_ms, max(e.ts_ms for e in tb.events))
        writer = history if opts.scd == 2 else keyless if tb.keyless else mirror
        n = writer.apply_topic(tables, topic, tb, app_id, batch_id, opts)
        if n < 0:
            st.skipped_replay.append(topic)
        else:
            st.applied[topic] = n
        st.pruned += prune_if_due(tables, topic, opts)
    return st


def prune_if_due(tables: str, topic: str, opts: Options) -> int:
    """After the batch's own tombstone write (whose idempotency check must see that write's transaction),
    at most once a minute per topic: checking costs a Delta log read."""
    now = time.monotonic()
    if now - opts.last_prune.get(topic, -1e18) < opts.prune_every_s:
        return 0
    opts.last_prune[topic] = now
    n = tombstones.prune(tombstone_path(tables, topic), opts.tombstone_retention_s, opts.now_ms)
    for fpath in (fills.path_of(tables, topic), fills.versions_path(tables, topic)):
        if os.path.isdir(fpath):  # the TOAST fill logs (`sink.fills`): their entries expire as the deletes do
            tombstones.prune(fpath, opts.tombstone_retention_s, opts.now_ms)
    return n
