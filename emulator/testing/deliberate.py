"""Known deliberate differences (README, "Differences from Debezium") recognized by the differential comparison,
so that a campaign reports them as "deliberate: <case>" and not as mismatches. Each one is recognized narrowly:
only the part of a record the difference is about is taken from Debezium's side, everything else in the record is
still compared.

- `key_column_excluded_snapshot` / `key_columns_excluded_snapshot_lost` (PostgreSQL): a key column (a primary key
  column, or a `message.key.columns` column) that `column.include.list` / `column.exclude.list` leaves out.
  Debezium's snapshot builds the key from the filtered row, so every snapshot read of the table has one and the
  same value in that key field (null, "" for a NOT NULL string, the column's default, or 0); its streamed keys hold
  the rows' values. The emulator's snapshot keys hold the rows' values (data: Debezium's topic, compacted, keeps one
  row of the table).
"""

from __future__ import annotations

import json
from typing import Any

from emulator.testing.parallel_order import is_read, payload

KEY_EXCLUDED = "key_column_excluded_snapshot"
KEY_COLUMNS_EXCLUDED = "key_columns_excluded_snapshot_lost"


def _filters(config: dict[str, Any]) -> Any:
    """The emulator's filters for the recorded configuration; None where it names no column filter (or cannot be
    read: nothing is then accepted)."""
    if not any(k in config for k in ("column.include.list", "column.exclude.list")):
        return None
    if "postgresql" not in str(config.get("connector.class", "")).lower():
        return None  # (a PostgreSQL difference: on MySQL/MariaDB such keys are compared as they are)
    from emulator.config import from_dict
    from emulator.filters import Filters

    try:
        return Filters(from_dict(dict(config)))
    except Exception:  # noqa: BLE001 - a configuration the emulator refuses: nothing to accept
        return None


def _table_id(rec: dict) -> str | None:
    src = payload(rec.get("value")).get("source") or {}
    return f"{src.get('schema')}.{src.get('table')}" if src.get("table") is not None else None


def _excluded_key_fields(filters: Any, gold: list[dict]) -> dict[str, Any]:
    """field -> the one value Debezium's snapshot reads of this topic have in it, for each key field whose column
    the column filters leave out; a field whose snapshot values differ is not taken (not this difference)."""
    values: dict[str, set[str]] = {}
    for rec in gold:
        if not is_read(rec):
            continue
        key, tid = payload(rec.get("key")), _table_id(rec)
        if not isinstance(key, dict) or tid is None:
            continue
        for field, v in key.items():
            if not filters.column_included(tid, field):
                values.setdefault(field, set()).add(json.dumps(v))
    return {f: json.loads(next(iter(vs))) for f, vs in values.items() if len(vs) == 1}


def accept_excluded_key_columns(
    config: dict[str, Any], gold: dict[str, list[dict]], ours: dict[str, list[dict]]
) -> dict[str, int]:
    """In place on `ours`: in each initial-snapshot read (not an incremental snapshot's) of a table, a key field
    whose column the column filters leave out gets the value Debezium's snapshot reads of that table all have.
    Matched without pairing records (with snapshot threads the orders differ until sorted). -> case name -> how
    many of the emulator's keys were changed."""
    filters = _filters(config)
    accepted: dict[str, int] = {}
    if filters is None:
        return accepted
    for topic, recs in gold.items():
        fields = _excluded_key_fields(filters, recs)
        if not fields:
            continue
        for rec in ours.get(topic, []):
            key, tid = payload(rec.get("key")), _table_id(rec) if is_read(rec) else None
            if tid is None or not isinstance(key, dict):
                continue
            changed = False
            for field, v in fields.items():
                if field in key and json.dumps(key[field]) != json.dumps(v):
                    key[field] = v
                    changed = True
            if changed:
                case = KEY_EXCLUDED
                if any(p.fullmatch(f"{tid}.{f}") for p in filters.key_patterns for f in fields):
                    case = KEY_COLUMNS_EXCLUDED
                accepted[case] = accepted.get(case, 0) + 1
    return accepted
