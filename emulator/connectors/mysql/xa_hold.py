"""MariaDB XA transactions held until their XA COMMIT, dropped at XA ROLLBACK (a deliberate difference from
Debezium 3.6.3, docs/differential-mariadb.md "XA").

MariaDB (10.5+) writes an XA transaction's rows at `XA PREPARE`: a GTID group (its GTID event flagged
FL_PREPARED_XA and carrying the xid) ending in an XA_PREPARE event. `XA COMMIT xid` / `XA ROLLBACK xid` is a
group of its own later (a GTID flagged FL_COMPLETED_XA, then the QUERY). Debezium emits the prepared rows when
it reads them (`prepareTransaction` does nothing), so a rolled-back XA transaction appears committed
downstream: a DELETE of a row that still exists, an INSERT of a row that never was (data lost). The emulator
keeps the prepared group's events (the packets as read) and, at its XA COMMIT, hands them to the stream's
handlers as if the group stood right before the COMMIT's group: the same records, bytes as Debezium's (the
source block comes from the packets' headers and the group's file), only later in their topics. At XA ROLLBACK
the events are dropped. `XA COMMIT ... ONE PHASE` is an ordinary transaction in the binlog: not seen here.

Restarts (nothing lost, nothing twice): while a group is held, the offset's `gtids` (where MariaDB's dump
starts) stays before the oldest held group and `xa_reached_gtids` says how far the stream got. A restart
reads again from that group: every group the stream had passed (in `xa_reached_gtids`) is passed again
without emitting anything (DDL is not applied again: the schema history, recovered up to the offset's
file/pos, already has it), prepared groups are held again, and XA COMMIT/ROLLBACK groups of that stretch
release theirs without emitting (emitted before the stop). Held groups beyond HOLD_MEMORY bytes are spilled to
a temporary file (`spill`), so a long-open XA transaction costs disk, not memory.

Only MariaDB servers (the flags are MariaDB's); a MySQL server's XA is left as Debezium has it.
A mixin of MySqlBinlogStream: every method runs only for an XA group or after a restart inside a held stretch,
so the per-event path pays nothing.
"""

from __future__ import annotations

import logging
import os
import pickle
import tempfile
from types import SimpleNamespace
from typing import Any

from emulator.connectors.mysql import binlog as bl

log = logging.getLogger("emulator.mysql")

FL_STANDALONE, FL_GROUP_COMMIT_ID, FL_PREPARED_XA, FL_COMPLETED_XA = 1, 2, 64, 128
XA_FLAGS = FL_PREPARED_XA | FL_COMPLETED_XA
XA_PREPARE = 38  # XA_PREPARE_LOG_EVENT: the end of a prepared group
HOLD_MEMORY = 64 << 20  # bytes of held events kept in memory; more go to a temporary file
# what the handlers change while a held group is handed to them, put back afterwards
_STATE = (
    "file",
    "next_pos",
    "in_tx",
    "tx_file",
    "tx_pos",
    "tx_standalone",
    "gtid",
    "pos_gtid",
    "event_server_id",
    "events_done",
    "rows_done",
    "skip_events",
    "skip_rows",
    "skip_gtid",
    "thread",
    "query",
    "last_ts_ms",
    "last_row",
    "commit_ts_us",
    "tm_last",
    "_ts",
    "_sid",
    "_start",
    "_next",
)


def gtid_xid(data: bytes) -> bytes | None:
    """The xid an XA-flagged MariaDB GTID event carries (formatID, gtrid and bqual lengths, their bytes), as
    one key; None without the XA flags."""
    flags = data[32]  # body at 20: sequence (8), domain (4), flags (1)
    if not flags & XA_FLAGS:
        return None
    p = 33 + (8 if flags & FL_GROUP_COMMIT_ID else 0)
    n = 6 + data[p + 4] + data[p + 5]
    return bytes(data[p : p + n])


class HeldXa:
    """A prepared XA group as read: its GTID packet then every event up to its XA_PREPARE event, as
    (type, packet, text) with the statement text of QUERY and annotate events (their library objects are not
    kept: a spilled group is plain data), and the stream's state at its GTID event."""

    __slots__ = ("gtid", "file", "gtids_before", "thread", "query", "last_ts_ms", "events", "size", "path")

    def __init__(self, gtid: str, file: str, gtids_before: str, thread, query, last_ts_ms: int) -> None:
        self.gtid, self.file, self.gtids_before = gtid, file, gtids_before
        self.thread, self.query, self.last_ts_ms = thread, query, last_ts_ms
        self.events: list[tuple[int, bytes, Any]] = []
        self.size = 0
        self.path: str | None = None  # the temporary file holding `events` once spilled

    def spill(self) -> None:
        fd, path = tempfile.mkstemp(prefix="dbzemu-xa-", suffix=".held")
        with os.fdopen(fd, "wb") as f:
            pickle.dump(self.events, f, protocol=pickle.HIGHEST_PROTOCOL)
        self.path, self.events = path, []
        log.info("prepared XA transaction %s: %d bytes of events spilled to %s", self.gtid, self.size, path)

    def take(self) -> list[tuple[int, bytes, Any]]:
        """The events (read back and the file removed when spilled)."""
        if self.path is None:
            return self.events
        with open(self.path, "rb") as f:
            events = pickle.load(f)
        self.drop()
        return events

    def drop(self) -> None:
        if self.path is not None:
            try:
                os.unlink(self.path)
            except OSError:
                pass
            self.path = None
        self.events = []


def _text(ev: Any, attr: str) -> str | None:
    v = getattr(ev, attr, None) if ev is not None else None
    return v.decode("utf-8", "replace") if isinstance(v, bytes) else v


class XaHold:
    """The held XA groups of a MariaDB binlog stream (see the module's docstring)."""

    xa_held: dict[bytes, HeldXa]
    xa_done: Any  # MariaGtidSet of the groups passed before a restart (offset `xa_reached_gtids`), or None
    _xa_replaying = False

    def _xa_init(self) -> None:
        self.xa_held = {}
        self.xa_done = None
        self._xa_position: dict[str, Any] | None = None  # position() while a held group is handed over

    def _xa_offset(self, off: dict[str, Any]) -> None:
        """`position()` while a group is held or a restart has not yet passed where the stream had been: the
        dump starts before the oldest held group; how far the stream got is kept beside it."""
        if "gtids" not in off:
            return
        reached = str(self.xa_done) if self.xa_done is not None else off["gtids"]
        if self.xa_held:
            off["gtids"] = next(iter(self.xa_held.values())).gtids_before
        if reached != off["gtids"]:
            off["xa_reached_gtids"] = reached

    def _xa_restore(self, stored: dict) -> None:
        reached = stored.get("xa_reached_gtids")
        self.xa_done = self._new_gtid_set(reached) if reached and self.mariadb_server else None

    def _xa_group(self, data: bytes, gtid: str, flags: int, checksum: int) -> bool:
        """At a MariaDB GTID event (the previous group completed): True when this group was handled here (an XA
        group, or a group passed again after a restart), False for the stream's usual handling."""
        if self._xa_replaying or not self.mariadb_server:
            return False
        done = self.xa_done
        if done is not None:
            if done.contains(gtid):
                self._xa_pass(data, gtid, flags, checksum)
                return True
            self.xa_done = None  # past where the stream had been: as usual from here
            log.info("restart: passed again up to %s (held XA transactions: %d)", done, len(self.xa_held))
        if flags & FL_PREPARED_XA:
            self._xa_collect(data, gtid, checksum)
            return True
        if flags & FL_COMPLETED_XA:
            self._xa_complete(data, gtid, flags, checksum, emit=True)
            return True
        return False

    # -- the groups ----------------------------------------------------------------------------------------
    def _xa_collect(self, data: bytes, gtid: str, checksum: int) -> None:
        """A prepared group: every event up to its XA_PREPARE kept; the stream's position moves past it."""
        if self.gtids is None:
            raise RuntimeError(
                f"XA transaction prepared at {self.file}:{self._start}: holding it until its XA COMMIT needs "
                "the GTID position (the offset has none); re-execute the snapshot"
            )
        xid = gtid_xid(data)
        held = HeldXa(gtid, self.file, str(self.gtids), self.thread, self.query, self.last_ts_ms)
        held.events.append((bl.MARIADB_GTID, data, None))
        held.size = len(data)
        read = self.reader.read
        while True:
            etype, pkt, ev = read()
            if etype == bl.HEARTBEAT:
                continue
            if etype in (bl.MARIADB_GTID, bl.ROTATE):
                raise RuntimeError(
                    f"prepared XA group {gtid} at {self.file}:{self._start} has no XA_PREPARE event before "
                    f"event type {etype}; the binlog is not as MariaDB writes it"
                )
            if etype == bl.MARIADB_ANNOTATE:
                ev = SimpleNamespace(sql_statement=_text(ev, "sql_statement"))
            elif etype == bl.QUERY and ev is not None:
                ev = SimpleNamespace(
                    query=_text(ev, "query"), schema=_text(ev, "schema"), slave_proxy_id=ev.slave_proxy_id
                )
            else:
                ev = None
            held.events.append((etype, pkt, ev))
            held.size += len(pkt)
            if etype == XA_PREPARE:
                break
        _ts, _t, _sid, _size, next_pos = bl.HEADER.unpack_from(pkt, 1)
        # the same xid again (a restart's stretch passed its end): newest wins
        old = self.xa_held.pop(xid, None)
        if old is not None:
            old.drop()
        self.xa_held[xid] = held
        self._xa_bound()
        self.gtids.add(gtid)
        if next_pos:
            self.next_pos = next_pos
        self.event_server_id = self._sid
        self.pos_gtid = None
        if not self.flavor.mariadb:
            self.gtid = None

    def _xa_bound(self) -> None:
        """More than HOLD_MEMORY bytes held in memory: the largest groups go to temporary files."""
        total = sum(h.size for h in self.xa_held.values() if h.path is None)
        for h in sorted(self.xa_held.values(), key=lambda h: -h.size):
            if total <= HOLD_MEMORY:
                break
            if h.path is None:
                h.spill()
                total -= h.size

    def _xa_complete(self, data: bytes, gtid: str, flags: int, checksum: int, emit: bool) -> None:
        """An XA COMMIT / XA ROLLBACK group: the held group's events handed to the stream's handlers (a COMMIT,
        `emit`) or dropped; then the group itself as usual (its GTID, its QUERY)."""
        header = (self._ts, self._sid, self._start, self._next)
        qtype, qdata, qev = self._xa_next()
        text = (_text(qev, "query") or "").strip().upper()
        held = self.xa_held.pop(gtid_xid(data), None)
        if held is not None:
            if emit and text.startswith("XA COMMIT"):
                self._xa_replay(held, checksum)
            else:
                held.drop()
        self._ts, self._sid, self._start, self._next = header
        self._xa_replaying = True  # the group's own GTID: the usual handling
        try:
            self._on_mariadb_gtid(data, None, checksum)
        finally:
            self._xa_replaying = False
        self.handle_event(qtype, qdata, qev, checksum)

    def _xa_next(self) -> tuple[int, bytes, Any]:
        while True:
            etype, pkt, ev = self.reader.read()
            if etype != bl.HEARTBEAT:
                return etype, pkt, ev

    def _xa_replay(self, held: HeldXa, checksum: int) -> None:
        """The held group's events through the stream's handlers, at the state its GTID event had; the
        stream's state (position, GTID set, table ids) put back afterwards."""
        # an offset taken while the group's records are made (a signal's blocking snapshot commits) is the one
        # from before: the group is still held there, its COMMIT still ahead
        self.xa_held[b""] = held
        self._xa_position = self.position()
        del self.xa_held[b""]
        saved = {k: getattr(self, k) for k in _STATE}
        gtids = str(self.gtids) if self.gtids is not None else None
        table_ids = dict(self.table_ids)
        self.file, self.thread, self.query, self.last_ts_ms = (
            held.file,
            held.thread,
            held.query,
            held.last_ts_ms,
        )
        self.in_tx = False
        self.skip_events = self.skip_rows = 0
        self.skip_gtid = None
        self._xa_replaying = True
        try:
            for etype, pkt, ev in held.take():
                self.handle_event(etype, pkt, ev, checksum)
        finally:
            self._xa_replaying = False
            self._xa_position = None
            for k, v in saved.items():
                setattr(self, k, v)
            self.gtids = self._new_gtid_set(gtids)
            self.table_ids.clear()
            self.table_ids.update(table_ids)

    def _xa_pass(self, data: bytes, gtid: str, flags: int, checksum: int) -> None:
        """After a restart, a group the stream had passed before the stop: nothing emitted, nothing applied. A
        prepared group is held again (its COMMIT may come later); an XA COMMIT / ROLLBACK releases its group
        (emitted, or not, before the stop)."""
        if flags & FL_PREPARED_XA:
            self._xa_collect(data, gtid, checksum)
            return
        pending = None
        if flags & FL_COMPLETED_XA:
            last = self._xa_next()[1]  # its QUERY
            held = self.xa_held.pop(gtid_xid(data), None)
            if held is not None:
                held.drop()
        else:
            last, pending = self._xa_skip(bool(flags & FL_STANDALONE))
        self.gtids.add(gtid)
        next_pos = bl.HEADER.unpack_from(last, 1)[4] if last else 0
        if next_pos:
            self.next_pos = next_pos
        if pending is not None:  # a group that ended without COMMIT/XID: the next one starts here
            self.handle_event(bl.MARIADB_GTID, pending, None, checksum)

    def _xa_skip(self, standalone: bool) -> tuple[bytes, bytes | None]:
        """The events of a passed group up to its end (XID, COMMIT/ROLLBACK, a standalone group's statement)
        -> (its last event's packet, the next group's GTID packet when the group ended without one of those);
        rotations still move the stream's file."""
        last = b""
        while True:
            etype, pkt, ev = self.reader.read()
            if etype == bl.HEARTBEAT:
                continue
            if etype == bl.MARIADB_GTID:
                return last, pkt
            last = pkt
            if etype == bl.ROTATE:
                self.handle_event(etype, pkt, ev, 0)
                continue
            if etype == bl.XID:
                return last, None
            if etype == bl.QUERY:
                if standalone:
                    return last, None
                text = (
                    _text(ev, "query")
                    if ev is not None
                    else pkt[bl.query_text_start(pkt) :].decode("latin-1")
                )
                if not text.strip().upper().startswith("BEGIN"):
                    return last, None
