"""A micro-batch: first in one pass (`sink.onepass`) when the previous batch's plan says it fits, else (or when
the batch's own survey says it does not) with the batch's cache, its survey job and the per-path plan
(`sink.executors`, `sink.apply`)."""

from __future__ import annotations

from pyspark import StorageLevel

from sink import onepass
from sink.apply import prune_if_due
from sink.batch import BatchStats, Options
from sink.executors import apply_topic, slow_records, topic_events, truncates
from sink.plan import classify, records, survey
from sink.winners import winners


def run_batch(df, tables: str, app_id: str, batch_id: int, opts: Options) -> BatchStats:
    """The whole micro-batch: executor path for what it can do, driver path for the rest."""
    if opts.one_pass and opts.scd == 1:
        st = onepass.run(df, tables, app_id, batch_id, opts)
        if st is not None:
            return st
    return cached_batch(df, tables, app_id, batch_id, opts)


def cached_batch(df, tables: str, app_id: str, batch_id: int, opts: Options) -> BatchStats:
    """The batch read once into a cache, surveyed, then each topic by its path."""
    from sink.apply import apply_topics
    from sink.batch import collect

    st = BatchStats()
    # the batch's cache on local disk, not in the JVM's heap, where its blocks filled the old generation: the
    # JVM at a 200k run's peak 590-618 MB on disk against 710-778 MB in memory, for ~1 JVM-µs per record more
    # (its one fill and one or two reads; session 13, docs/sink.md)
    cached = df.persist(StorageLevel.DISK_ONLY)
    try:
        plans = survey(cached)
        df = records(cached)
        st.records = sum(tp.records for tp in plans.values())
        for tp in plans.values():
            classify(tp, tables, opts)
        if opts.one_pass is not None:  # the next batch's guess: this one would have fitted
            opts.one_pass = onepass.fits(plans, opts) is None
        ordered = sorted(plans.values(), key=lambda t: t.topic)
        fast = [tp for tp in ordered if tp.fast]
        evs = [tp for tp in ordered if tp.events]
        slow = [tp for tp in ordered if not tp.fast and not tp.events]
        truncs = truncates(df, fast + evs)
        if evs:
            apply_topics(
                tables,
                {tp.topic: topic_events(df, tp, truncs.get(tp.topic), tables) for tp in evs},
                app_id,
                batch_id,
                opts,
                st,
            )
        if fast:
            w = winners(df, fast, truncs) if any(tp.keyed() for tp in fast) else None
            many = w is not None and sum(len(tp.keyed()) for tp in fast) > 1
            if many:
                w = w.persist()
            try:
                for tp in fast:
                    apply_topic(w, tp, tables, app_id, batch_id, opts, st, truncs.get(tp.topic))
                    st.pruned += prune_if_due(tables, tp.topic, opts)
            finally:
                if many:
                    w.unpersist()
        if slow:
            apply_topics(tables, collect(slow_records(df, slow)), app_id, batch_id, opts, st)
    finally:
        cached.unpersist()
    st.fast = [tp.topic for tp in fast + evs]
    st.driver = {tp.topic: tp.why for tp in slow}
    return st
