"""The delete log (`<tables>/_sink_tombstones/<topic>`): the source position of each key's latest delete,
and the table's latest truncate, so that events older than those, delivered late, never resurrect rows.

Like AutoCDC's tombstones it is pruned: a delete recorded more than `retention` ago (wall clock, when the
sink wrote it) is forgotten, so the log holds the keys deleted within the retention instead of every key
ever deleted. The truncate watermark is one row per table and is kept forever.
"""

from __future__ import annotations

import math
import time

import pyarrow as pa
import pyarrow.compute as pc
from deltalake import DeltaTable, Field

from sink.delta import already_applied, commit, open_table, table_schema

TRUNCATE_KEY = ""  # the row holding the table's truncate watermark
AT = "at_ms"  # when the sink recorded the delete (null for the truncate watermark: never pruned)
DEFAULT_RETENTION_S = 7 * 86400  # Kafka's default log retention: older events cannot be replayed from it


def now_ms() -> int:
    return int(time.time() * 1000)


def cutoff_ms(retention_s: float, at_ms: int | None = None) -> float:
    """Entries recorded before this wall-clock time (ms) are expired."""
    return (now_ms() if at_ms is None else at_ms) - retention_s * 1000


def load(path: str, keys: set[str]) -> dict[str, str]:
    """{key: seq of its latest recorded delete} for `keys`, plus the truncate watermark under TRUNCATE_KEY."""
    dt = open_table(path)
    if dt is None:
        return {}
    want = pa.array(sorted(keys | {TRUNCATE_KEY}), pa.string())
    t = dt.to_pyarrow_table(columns=["key", "seq"])  # (a pushed-down isin filter trips on string_view)
    t = t.filter(pc.is_in(t.column("key").cast(pa.string()), value_set=want))
    return dict(zip(t.column("key").to_pylist(), t.column("seq").to_pylist()))


def write(path: str, rows: dict[str, str], app_id: str, batch_id: int, at_ms: int | None = None) -> None:
    """Record deletes (key -> seq); a key keeps its highest seq. Idempotent per micro-batch."""
    dt = open_table(path)
    if already_applied(dt, app_id, batch_id) or not rows:
        return
    at = now_ms() if at_ms is None else at_ms
    src = pa.table(
        {
            "key": pa.array(list(rows), pa.string()),
            "seq": pa.array(list(rows.values()), pa.string()),
            AT: pa.array([None if k == TRUNCATE_KEY else at for k in rows], pa.int64()),
        }
    )
    if dt is None:
        DeltaTable.create(path, schema=src.schema, mode="ignore")
        dt = DeltaTable(path)
    elif AT not in table_schema(dt).names:  # a log written before retention existed
        dt.alter.add_columns([Field.from_arrow(src.schema.field(AT))])
        dt = DeltaTable(path)
    (
        dt.merge(
            src,
            "t.key = s.key",
            source_alias="s",
            target_alias="t",
            commit_properties=commit(app_id, batch_id),
        )
        .when_matched_update({"seq": "s.seq", AT: f"s.{AT}"}, predicate="t.seq < s.seq")
        .when_not_matched_insert_all()
        .execute()
    )


def prune(path: str, retention_s: float, at_ms: int | None = None) -> int:
    """Forget deletes recorded more than `retention_s` ago; the number forgotten. Cheap when nothing is due:
    the decision is made from the Delta log's per-file minimum of `at_ms`. Deleting expired rows is
    idempotent, so this commit carries no application transaction (it must not, or a replayed batch would
    take it for its own tombstone write)."""
    if math.isinf(retention_s):
        return 0
    dt = open_table(path)
    if dt is None or AT not in table_schema(dt).names:
        return 0
    cutoff = int(cutoff_ms(retention_s, at_ms))
    stats = pa.table(dt.get_add_actions(flatten=True))  # an Arrow C-stream table: wrap it in pyarrow
    name = f"min.{AT}"
    mins = stats.column(name).to_pylist() if name in stats.column_names else [cutoff - 1]  # no stats: check
    if not any(m is not None and m < cutoff for m in mins):
        return 0
    return int(dt.delete(f"{AT} < {cutoff}").get("num_deleted_rows", 0))
