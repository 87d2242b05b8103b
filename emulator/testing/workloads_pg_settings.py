"""Connector properties Debezium users commonly set that the PostgreSQL generator's first draws never set.

Drawn from a random stream of their own (`settings-<seed>`), after everything else, so every older seed keeps
its workload and a drawn seed only gains `-- @set` lines (session 14). Only properties the emulator
implements, each with values whose records the harness can compare:

- `incremental.snapshot.chunk.size`: chunks of 2-3 rows, so an incremental snapshot takes several windows
  (only when the workload signals one);
- `time.precision.mode`: `microseconds` / `nanoseconds` (the first draws know only the other four);
- `topic.transaction`: another transaction topic name (the comparison knows transaction records by their
  key schema, not by the topic's name).

Not drawn: `replica.identity.autoset.values`. Debezium runs its ALTER TABLE ... REPLICA IDENTITY when streaming
starts (PostgresReplicationConnection, after the snapshot), while the harness starts the stream statements once the
slot is active (it already is during the snapshot, held by the walsender that exported it): seed 44602001 matched
once and mismatched on a second run (Debezium's changes all with the old identity). The emulator now applies it
when streaming starts too. Nor `schema.refresh.mode=columns_diff_exclude_unchanged_toast`: the emulator refuses it at start
(campaign seed 44603006).
"""

from __future__ import annotations

import random

SHARE = 0.35  # of seeds that gain one or two of these


def _choices(props: dict[str, str], incremental: bool) -> list[tuple[str, list[str]]]:
    out: list[tuple[str, list[str]]] = [
        ("time.precision.mode", ["microseconds", "nanoseconds"]),
        # (no effect where provide.transaction.metadata=false: harmless)
        ("topic.transaction", ["txn", "tx.meta"]),
    ]
    if incremental:
        out.append(("incremental.snapshot.chunk.size", ["2", "3"]))
    return [(k, v) for k, v in out if k not in props]


def user_settings(seed: int, props: dict[str, str], incremental: bool) -> dict[str, str]:
    """The properties to add to a generated workload's `props` (which it does not change)."""
    r = random.Random(f"settings-{seed}")
    if r.random() >= SHARE:
        return {}
    choices = _choices(props, incremental)
    picked = r.sample(choices, k=min(len(choices), r.randint(1, 2)))
    return {k: r.choice(vals) for k, vals in picked}
