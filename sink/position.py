"""Source positions → fixed-width sortable strings (`__seq`), never `ts_ms`.

PostgreSQL: `source.sequence` = [lastCommitLsn, lsn] (then `lsn`); MySQL/MariaDB: binlog file number, `pos`,
`row`; MongoDB: `ts_ms`, `ord`. Snapshot reads (`op: r`) sort before streaming events at the same position.
Equal strings mean "same position"; ties are broken by the delivery position (file offset / Kafka offset).
"""

from __future__ import annotations

import json


def _int(v) -> int:
    if v is None:
        return 0
    return int(v)


def seq(source: dict, op: str) -> str:
    phase = 0 if op == "r" else 1
    conn = source.get("connector")
    if conn == "postgresql":
        raw = source.get("sequence")
        if raw:
            first, second = json.loads(raw)
            b = _int(second)
            # lastCommitLsn is null until the connector's first commit after a (re)start: that change is
            # streamed after every one before the restart, not before them (as 0 put it); its own LSN orders it
            a = b if first is None and op != "r" else _int(first)
        else:
            a, b = 0, _int(source.get("lsn"))
        return f"{a:016x}{b:016x}{phase}"
    if conn in ("mysql", "mariadb"):
        f = source.get("file") or ""
        num = int(f.rsplit(".", 1)[1]) if "." in f and f.rsplit(".", 1)[1].isdigit() else 0
        return f"{num:08x}{_int(source.get('pos')):016x}{phase}{_int(source.get('row')):08x}"
    if conn == "mongodb":
        return f"{_int(source.get('ts_ms')):016x}{_int(source.get('ord')):08x}{phase}"
    ts = source.get("ts_ns") or _int(source.get("ts_ms")) * 1_000_000
    return f"{_int(ts):020x}{phase}"
