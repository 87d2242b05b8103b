"""What each signal type does (Debezium's SignalAction implementations): `log`, `execute-snapshot`
(`incremental` or `blocking`), `stop-snapshot`, `pause-snapshot`, `resume-snapshot`.

An action gets the processor (its machine, its source, its deferred work; typed here as the small
`SignalContext` protocol so this module never imports the processor that imports it) and the signal's id
and parsed data. Anything wrong with the signal raises SignalError (or ConditionError for a refused filter); the
processor logs it and skips the signal.

`additional-conditions` filters are checked by the machine's filter policy (SQL: one boolean expression over
the table's columns, emulator/incremental/conditions.py; MongoDB: a JSON query document). A refused filter
refuses the whole signal, so no query runs at all; with notifications enabled it gets the notifications of a
table scan that failed (STARTED, TABLE_SCAN_COMPLETED with status SQL_EXCEPTION, COMPLETED).
`data-collections` never reach SQL text (they select among the captured tables), and `surrogate-key` must
name a column of the table.
"""

from __future__ import annotations

import logging
import re
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, Protocol

from emulator.incremental import state
from emulator.incremental.conditions import ConditionError
from emulator.signals.record import SignalError

if TYPE_CHECKING:
    from emulator.incremental.machine import IncrementalSnapshot

log = logging.getLogger("emulator.signals")


class SignalContext(Protocol):
    """What an action uses of the SignalProcessor."""

    source: Any  # the connector: offset, captured_table_ids, table_by_id, blocking_snapshot
    machine: IncrementalSnapshot
    deferred: list[Callable[[], None]]


def log_message(proc: SignalContext, sid: str, data: dict) -> None:
    """Debezium's Log action: the message, its first `{}` replaced by the connector's offset."""
    message = data.get("message")
    if not message:
        log.warning(
            "Logging signal '%s' has arrived but the requested field 'message' is missing from data", sid
        )
        return
    off = proc.source.offset()
    logging.getLogger("emulator.signal").info(str(message).replace("{}", str(off), 1))


def _snapshot_type(data: dict) -> str:
    stype = str(data.get("type") or "incremental").strip().lower()
    if stype not in ("incremental", "blocking"):
        raise SignalError(f"snapshot type {stype!r} is not incremental or blocking")
    return stype


def expand(proc: SignalContext, names: list[str]) -> list[str]:
    """Debezium's expandDataCollectionIds: each name is a regex over the captured tables' ids; a name
    matching nothing is kept as it is (and skipped, with a warning, when its turn comes)."""
    ids = proc.source.captured_table_ids()
    out: list[str] = []
    for n in names:
        n = str(n).strip()
        plain = n.replace('"', "")
        pat = re.compile(plain)
        hits = [t for t in ids if t == plain or pat.fullmatch(t)]
        out.extend(hits if hits else [plain])
    return out


def _parsed(proc: SignalContext, names: list[str], tables: list[str]) -> list[str]:
    """An incremental snapshot's tables as Debezium reads them back: AbstractIncrementalSnapshotContext reads each
    name its expansion (a regex over the tables' identifiers, quotes kept) gives with TableId.parse and skips, with
    a warning, one that throws (a schema `s "q"`; recorded: pg case incremental_unparsable_name_skipped); a name it
    reads as another table (`a''b` as a'b) is snapshotted under that name, which no table has: skipped at its turn
    without a window (pg case misread_name_incremental_skipped). Only where the connector says how Debezium parses
    (PostgreSQL)."""
    read_back = getattr(proc.source, "collection_read_back", None)
    if read_back is None:
        return tables
    ids = proc.source.captured_table_ids()
    bad: set[str] = set()
    renamed: dict[str, str] = {}
    for n in names:
        n = n.strip()
        try:
            rx = re.compile(n)
        except re.error:
            continue
        for e in [t for t in ids if rx.fullmatch(t)] or [n]:
            got = read_back(e)
            if got is None:
                log.warning("Unable to parse table identifier from %s. Skipping it.", e)
                bad.update((e, e.replace('"', "")))
            elif got != e:
                renamed[e] = renamed[e.replace('"', "")] = got
    return [renamed.get(t, t) for t in tables if t not in bad]


def execute_snapshot(proc: SignalContext, sid: str, data: dict) -> None:
    stype = _snapshot_type(data)
    names = data.get("data-collections")
    if not isinstance(names, list) or not names or not all(isinstance(n, str) for n in names):
        raise SignalError("execute-snapshot needs a non-empty 'data-collections' array of names")
    tables = expand(proc, names)
    conds = data.get("additional-conditions") or []
    if not isinstance(conds, list):
        raise SignalError("'additional-conditions' must be an array")
    if data.get("additional-condition"):  # the pre-2.5 form: one filter for every table
        conds = [{"data-collection": ".*", "filter": data["additional-condition"]}, *conds]
    filters = proc.machine.filters
    matchers = []
    for ac in conds:
        if not isinstance(ac, dict) or not ac.get("data-collection") or ac.get("filter") is None:
            raise SignalError("additional-conditions items need 'data-collection' and 'filter'")
        matchers.append(
            (
                re.compile(str(ac["data-collection"]).replace('"', ""), re.IGNORECASE),
                filters.text(ac["filter"]),
            )
        )
    surrogate = data.get("surrogate-key") if filters.surrogate_keys else None
    surrogate = str(surrogate).strip() if surrogate else None
    if stype == "blocking":
        _blocking(proc, sid, tables, matchers)
        return
    machine = proc.machine
    if not machine.read_only and not machine.signal_table:
        raise SignalError(
            "incremental snapshots need signal.data.collection (the watermark table or "
            "collection), or read.only=true"
        )
    if machine.strategy is None:
        raise SignalError("this connector has no read-only incremental snapshots")
    tables = _parsed(proc, names, tables)
    if not tables and not machine.queue:  # Debezium's snapshot starts with nothing to read, and ends never
        machine.correlation_id = sid
        machine.notify("STARTED", data_collections="")
        return
    entries = []
    for t in tables:
        ct = proc.source.table_by_id(t)
        cond = next((f for rx, f in matchers if rx.fullmatch(t)), None)
        if ct is not None:
            try:
                if cond is not None:
                    cond = filters.checked(t, cond, ct.env.names)
                if surrogate and surrogate not in ct.env.names:
                    raise SignalError(f"surrogate-key {surrogate!r} is not a column of {t}")
            except (ConditionError, SignalError):
                _notify_refused(proc, sid, tables)
                raise
        entries.append(state.entry(t, cond, surrogate))
    log.info(
        "Requested 'INCREMENTAL' snapshot of data collections %s (signal '%s')%s%s",
        [e[state.COLLECTION_ID] for e in entries],
        sid,
        "" if not any(e[state.COLLECTION_CONDITION] for e in entries) else " with additional conditions",
        f", surrogate key {surrogate!r}" if surrogate else "",
    )
    machine.start(sid, entries)


def _notify_refused(proc: SignalContext, sid: str, tables: list[str]) -> None:
    """A refused filter: the notifications Debezium sends when a table's chunk query fails (its scan
    completes with status SQL_EXCEPTION), without any query having run; a snapshot in progress goes on."""
    machine = proc.machine
    n = machine.notifier
    if n is None or not n.enabled:
        return
    alone = not machine.queue
    keep = machine.correlation_id
    machine.correlation_id = sid
    if alone:
        machine.notify("STARTED", data_collections=",".join(tables))
    for t in tables:
        machine.notify(
            "TABLE_SCAN_COMPLETED",
            data_collections=",".join(tables),
            scanned_collection=t,
            total_rows_scanned=0,
            status="SQL_EXCEPTION",
        )
    if alone:
        machine.notify("COMPLETED")
    machine.correlation_id = keep


def _blocking(proc: SignalContext, sid: str, tables: list[str], matchers) -> None:
    """A blocking snapshot runs once the signal's own event is out (Debezium pauses the stream after it)."""
    filters: dict[str, Any] = {}
    known = []
    policy = proc.machine.filters
    for t in tables:
        ct = proc.source.table_by_id(t)
        if ct is None:
            log.warning("blocking snapshot: table %s is not known; skipped", t)
            continue
        known.append(t)
        flt = next((f for rx, f in matchers if rx.fullmatch(t)), None)
        if flt is not None:
            filters[t] = policy.blocking(t, flt, ct.env.names)
    log.info("Requested 'BLOCKING' snapshot of data collections %s (signal '%s')", known, sid)
    run = proc.source.blocking_snapshot
    proc.deferred.append(lambda: run(known, filters))


def stop_snapshot(proc: SignalContext, sid: str, data: dict) -> None:
    if _snapshot_type(data) == "blocking":
        log.warning("Stopping a blocking snapshot is not supported (signal '%s')", sid)
        return
    machine = proc.machine
    if not machine.queue:
        log.warning("No active incremental snapshot, stop ignored (signal '%s')", sid)
        return
    names = data.get("data-collections")
    if not names:
        log.info("Stopping incremental snapshot (signal '%s')", sid)
        machine.stop_all()
        return
    if not isinstance(names, list):
        raise SignalError("'data-collections' must be an array")
    machine.stop_tables([str(n) for n in names], set(expand(proc, [str(n) for n in names])), sid)


def pause_snapshot(proc: SignalContext, sid: str, data: dict) -> None:
    proc.machine.pause(sid)


def resume_snapshot(proc: SignalContext, sid: str, data: dict) -> None:
    proc.machine.resume(sid)


ACTIONS: dict[str, Callable[[SignalContext, str, dict], None]] = {
    "log": log_message,
    "execute-snapshot": execute_snapshot,
    "stop-snapshot": stop_snapshot,
    "pause-snapshot": pause_snapshot,
    "resume-snapshot": resume_snapshot,
}
