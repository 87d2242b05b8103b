"""Debezium's lost last poll batch: when both engines stop on a value neither can convert, Debezium also
loses the records it had queued in its last poll window; the differential comparison cuts the emulator's
matching tail (docs/differential.md, a deliberate difference in README)."""

from __future__ import annotations

from pathlib import Path

# The emulator's last line when it stops on a value Debezium's converter cannot make into a record (as a
# required Connect Time outside a day): `error: ValueError: column ...; Debezium stops here too`.
_STOPPED_ON_VALUE = "Debezium stops here too"
# Debezium's ChangeEventQueue.poll gathers up to max.batch.size records (or poll.interval.ms) and, when the
# producer failed meanwhile, throws instead of returning them: the records queued in the last window
# before the failing value are never delivered. How many depends on timing (recorded: rows of an earlier
# autocommit INSERT and of the same transaction lost, tests/differential/data/poll_batch_lost).
_MAX_BATCH = 2048


def _last_log_line(workdir: Path) -> str:
    """The emulator's last log line (where it says why it stopped), "" without a log."""
    log_file = workdir / "emulator.emulator.log"
    lines = log_file.read_text(errors="replace").strip().splitlines() if log_file.exists() else []
    return lines[-1] if lines else ""


def stopped_on_a_value(workdir: Path) -> bool:
    return _STOPPED_ON_VALUE in _last_log_line(workdir)


def stopped_before_chunked_snapshot(workdir: Path) -> bool:
    """The emulator stopped before its snapshot's first record where Debezium's chunk query cannot bind a key
    (emulator.connectors.postgres.chunk_bind). Debezium's failed attempt still delivers part of the tables
    its threads read before the failing chunk (recorded: 1,897, 2,285 and 2,048 of one 3,000-row table in
    three attempts), a part that depends on its threads' timing: only "both stopped" is compared."""
    from emulator.connectors.postgres.chunk_bind import STOP_MARK
    from emulator.connectors.postgres.quoted_names import STOP_MARK as QUOTE_MARK  # (a name it cannot quote)

    last = _last_log_line(workdir)
    return STOP_MARK in last or QUOTE_MARK in last


def _run_id(rec: dict) -> str | None:
    for h in rec.get("headers") or []:
        if h and h[0] == "__debezium.context.runId":
            return h[1].get("payload") if isinstance(h[1], dict) else h[1]
    return None


def cut_retried_snapshot(golden: dict[str, list[dict]]) -> int:
    """Debezium's task restarted after a snapshot failed on a value and snapshotted again, delivering its records
    again (recorded, campaign seeds 88002, 89005: the failure's cleanup meets Connector/J's "Streaming result set
    ... is still active" SQLException, which Debezium's error handler retries, forever by default). A restart
    carries a new `__debezium.context.runId` header: each topic's records from the first one of another run than
    the recording's first record (`golden` holds the topics in the order their first records came) are cut; -> how
    many were cut. The emulator stops at the first failure."""
    first = next((_run_id(rs[0]) for rs in golden.values() if rs), None)
    if first is None:
        return 0
    cut = 0
    for rs in golden.values():
        i = next((i for i, rec in enumerate(rs) if _run_id(rec) not in (first, None)), None)
        if i is not None:
            cut += len(rs) - i
            del rs[i:]
    return cut


def drop_lost_batch(golden: dict[str, list[dict]], ours: dict[str, list[dict]]) -> int:
    """Both engines stopped on a value neither can convert: the emulator delivered everything before it,
    Debezium lost its last poll batch. Cut the emulator's records of each topic past Debezium's count (a
    tail only: a record extra or missing earlier still shifts every later one and is reported) when
    together they fit in one batch; -> how many were cut. A snapshot Debezium retried is cut to its first
    attempt first (`cut_retried_snapshot`, said on stdout)."""
    if retried := cut_retried_snapshot(golden):
        print(
            f"accepted: {retried} records of Debezium's retried snapshot (its second attempt) cut", flush=True
        )
    extra = {t: len(rs) - len(golden.get(t, [])) for t, rs in ours.items() if not t.startswith("__debezium")}
    extra = {t: n for t, n in extra.items() if n > 0}
    total = sum(extra.values())
    if not total or total > _MAX_BATCH:
        return 0
    for t, n in extra.items():
        del ours[t][-n:]
    return total
