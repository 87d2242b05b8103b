"""What the comparison with Debezium accepts of MariaDB XA transactions, and nothing more (docs/differential-mariadb.md
"XA"; the emulator's emulator/connectors/mysql/xa_hold.py).

Debezium emits an XA transaction's rows when MariaDB writes them, at XA PREPARE; the emulator holds them until XA
COMMIT and drops them at XA ROLLBACK. So, for a workload with such statements only:

* `xa_commit_order`: the emulator's records of a committed XA transaction come later in their topics than
  Debezium's (at the COMMIT), with the same bytes. The candidate's stream records are put back into binlog order
  (source file, pos, row: a held record keeps its PREPARE group's position), accepted only when the candidate's
  order has at most as many descents per topic as the workload has two-phase XA COMMITs (each held group put in
  at its COMMIT makes one);
* `xa_rolled_back`: Debezium's records of a rolled-back XA transaction are not the emulator's: golden stream
  records at binlog positions the candidate has no record at (the two servers write the same binlog for the same
  workload, up to an incremental snapshot's first watermark) and not among the candidate's records as compared
  (masked) are dropped - row changes and tombstones only, accepted only when their positions form at most as many
  runs (no record of the candidate's inside one) as the workload has XA ROLLBACKs, the candidate having records
  past the last.

Both answer a note for the log (None when nothing was accepted); what they do not accept is left for the
comparison to report.
"""

from __future__ import annotations

import bisect
import json
import re
from collections import Counter
from typing import Any

from emulator.testing.conformance import Masker

_COMMIT_2PC = re.compile(r"(?im)\bXA\s+COMMIT\b(?![^;]*\bONE\s+PHASE\b)")
_ROLLBACK = re.compile(r"(?im)\bXA\s+ROLLBACK\b")


def _position(r: dict) -> tuple[str, int, int] | None:
    """A stream record's binlog position (snapshot reads, schema changes without one, tombstones: None)."""
    v = r.get("value")
    p = v.get("payload") if isinstance(v, dict) else None
    src = p.get("source") if isinstance(p, dict) else None
    if not isinstance(src, dict) or src.get("snapshot") not in ("false", False) or "pos" not in src:
        return None
    return (str(src.get("file")), int(src["pos"]), int(src.get("row") or 0))


def _keyed(rs: list[dict]) -> list[tuple[int, tuple]]:
    """(index, sort key) of the stream records and their tombstones (a tombstone stays after its delete)."""
    out: list[tuple[int, tuple]] = []
    last = None
    for i, r in enumerate(rs):
        pos = _position(r)
        if pos is not None:
            last = pos
            out.append((i, pos))
        elif r.get("value") is None and last is not None and out and out[-1][0] == i - 1:
            # its delete's position: a key change's delete, tombstone and create share one (a stable sort keeps
            # their order; a key of its own sorted the tombstone after the create: campaign seed 98006)
            out.append((i, last))
    return out


def _masked(m: Masker, rs: list[dict]) -> list[str]:
    return [json.dumps(m.record(r)) for r in rs]


def xa_commit_order(candidate: dict[str, list[dict]], workload: str) -> str | None:
    allowed = len(_COMMIT_2PC.findall(workload))
    if not allowed:
        return None
    moved = []
    for topic, rs in candidate.items():
        keyed = _keyed(rs)
        descents = sum(1 for a, b in zip(keyed, keyed[1:]) if b[1] < a[1])
        if not descents or descents > allowed:
            continue
        ordered = [rs[i] for i, _k in sorted(keyed, key=lambda t: t[1])]
        for (i, _k), r in zip(keyed, ordered):
            rs[i] = r
        moved.append(f"{topic} ({descents})")
    return (
        f"XA COMMIT: records held until the commit put back in binlog order in {', '.join(moved)}"
        if moved
        else None
    )


def _row_change(r: dict) -> bool:
    """A row's change record or a tombstone (what an XA transaction's rows make; not a schema change)."""
    v = r.get("value")
    return v is None or (isinstance(v.get("payload"), dict) and v["payload"].get("op") in ("c", "u", "d"))


def xa_rolled_back(
    golden: dict[str, list[dict]], candidate: dict[str, list[dict]], workload: str
) -> str | None:
    allowed = len(_ROLLBACK.findall(workload))
    if not allowed:
        return None
    gone: dict[str, list[int]] = {}
    for topic, rs in golden.items():
        theirs = candidate.get(topic, [])
        ours = {k[:3] for _i, k in _keyed(theirs)}
        # and not among the candidate's records as compared (masked): after an incremental snapshot's first
        # watermark the positions differ (the emulator's watermark INSERT is not Debezium's text)
        mine, left = Masker(True), Counter(_masked(Masker(True), theirs))
        masked = _masked(mine, rs)
        for i, k in _keyed(rs):
            if k[:3] in ours or not _row_change(rs[i]):
                continue
            if left[masked[i]]:
                left[masked[i]] -= 1
                continue
            gone.setdefault(topic, []).append(i)
    if not gone:
        return None
    # an XA transaction's rows are one stretch of the binlog: the missing records' positions, across topics, form
    # at most one run per XA ROLLBACK with no record of the candidate's inside a run
    missing = sorted({_keyed_pos(golden[t], i) for t, idx in gone.items() for i in idx})
    present = sorted({k[:2] for rs in candidate.values() for _i, k in _keyed(rs)})
    runs = 1 + sum(1 for a, b in zip(missing, missing[1:]) if _any_between(present, a, b))
    # and the candidate went on past them (an emulator that stopped early misses a tail, not a stretch)
    if runs > allowed or not present or present[-1] < missing[-1]:
        return None
    for topic, idx in gone.items():
        drop = set(idx)
        golden[topic] = [r for i, r in enumerate(golden[topic]) if i not in drop]
    return (
        "XA ROLLBACK (deliberate difference): Debezium's records of rolled-back XA transactions in "
        + ", ".join(f"{t} ({len(idx)})" for t, idx in gone.items())
    )


def _keyed_pos(rs: list[dict], i: int) -> tuple[str, int]:
    return dict(_keyed(rs))[i][:2]


def _any_between(present: list[tuple[str, int]], a: tuple[str, int], b: tuple[str, int]) -> bool:
    lo = bisect.bisect_right(present, a)
    return lo < len(present) and present[lo] < b


def accept_xa(golden: dict[str, list[dict]], candidate: dict[str, list[dict]], workload: str) -> list[str]:
    """Both, in place: the notes of what was accepted."""
    notes: list[Any] = [xa_commit_order(candidate, workload), xa_rolled_back(golden, candidate, workload)]
    return [n for n in notes if n]
