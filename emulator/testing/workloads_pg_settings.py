"""Connector properties Debezium users commonly set that the PostgreSQL generator's first draws never set.

Drawn from a random stream of their own (`settings-<seed>`), after everything else, so every older seed keeps
its workload and a drawn seed only gains `-- @set` lines (session 14). Only properties the emulator
implements, each with values whose records the harness can compare:

- `replica.identity.autoset.values`: FULL on the scenario tables at start (never DEFAULT: a keyless table would
  then refuse its UPDATEs under the publication);
- `incremental.snapshot.chunk.size`: chunks of 2-3 rows, so an incremental snapshot takes several windows
  (only when the workload signals one);
- `time.precision.mode`: `microseconds` / `nanoseconds` (the first draws know only the other four);
- `topic.transaction`: another transaction topic name (the comparison knows transaction records by their
  key schema, not by the topic's name);
- `schema.refresh.mode=columns_diff_exclude_unchanged_toast`.
"""

from __future__ import annotations

import random

SHARE = 0.35  # of seeds that gain one or two of these


def _choices(props: dict[str, str], incremental: bool) -> list[tuple[str, list[str]]]:
    out: list[tuple[str, list[str]]] = [
        ("replica.identity.autoset.values", ["public\\.s[0-9]_.*:FULL", "public\\.s0_.*:FULL"]),
        ("time.precision.mode", ["microseconds", "nanoseconds"]),
        ("schema.refresh.mode", ["columns_diff_exclude_unchanged_toast"]),
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
