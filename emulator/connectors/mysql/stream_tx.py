"""The binlog stream's per-transaction events in one frame each (a mixin of MySqlBinlogStream): a MariaDB GTID
event and an XID in the plain case, what most transactions of an OLTP workload are (1-3 rows each).

Why: through the general handlers a one-row transaction's GTID took seven Python frames (`handle_event`,
`_on_mariadb_gtid`, `mariadb_gtid`, `_begin_position`, `_begin`, `Dispatcher.begin`, `TransactionMonitor.begin`)
and its XID six, ~380 of the ~860 bytecodes the connector ran for a one-row UPDATE transaction next to its row
(bench/README.md, "Session 21"). The plain case is every check of those handlers answered the usual way: the
MariaDB connector (its source blocks and offsets carry the GTID), no transaction metadata (nothing is written
at BEGIN or END), no GTID source filter, no XA group or restart being passed (`xa_done`, `skip_gtid`,
`_resume_tx`), the previous group closed by its XID. Anything else returns False and the caller takes the general handler, which does the
same work step by step (the same state afterwards: tests/test_binlog*.py, test_xa*.py and the MariaDB
differential campaign run both)."""

from __future__ import annotations

from emulator.connectors.mysql import binlog as bl
from emulator.connectors.mysql.xa_hold import XA_FLAGS

_header = bl.HEADER.unpack_from
_gtid_body = bl.MARIADB_GTID_BODY.unpack_from


class PlainTx:
    """`_plain_handlers`: etype -> a handler of the whole event (header included) returning False when the event
    is not the plain case (then nothing was changed)."""

    def _plain_tx_handlers(self) -> dict:
        """The handlers for this connector: none but for the MariaDB connector without transaction metadata and
        without a GTID source filter (`_on_mariadb_gtid` decides `dml_skip` per transaction from the GTID)."""
        if not self.flavor.mariadb or self.tx.enabled or self.dml_source is not None:
            return {}
        return {bl.MARIADB_GTID: self._plain_gtid, bl.XID: self._plain_xid}

    def _plain_gtid(self, data: bytes, ev) -> bool:
        """`handle_event` -> `_on_mariadb_gtid` -> `_begin_position` -> `_begin` -> `Dispatcher.begin` in one
        frame: the group's position and GTID, the transaction opened (no BEGIN record: metadata is off)."""
        if (
            ev is not None  # a caller's event object (the stream's reader gives none for a GTID): as it says
            or self.in_tx
            or self.xa_done is not None
            or self.skip_gtid is not None
            or self._resume_tx is not None
        ):
            return False
        seq, domain, flags = _gtid_body(data, 20)
        if flags & XA_FLAGS:
            return False
        ts, _t, sid, size, next_pos = _header(data, 1)
        self._ts = ts
        self._sid = sid
        start = self._start = next_pos - size if next_pos else 0
        self._next = next_pos
        gtid = f"{domain}-{sid}-{seq}"  # binlog.mariadb_gtid's
        self.tx_standalone = bool(flags & 1)
        self.event_server_id = sid
        self.pos_gtid = self.gtid = gtid
        self.in_tx = True  # _begin_position
        self.tx_file = self.file
        self.tx_pos = start
        self.events_done = 0
        self.rows_done = 0
        # Dispatcher.begin(gtid, last_ts_ms, eager=True) with metadata off: the monitor's state, nothing written;
        # last_ts_ms before this event's, as handle_event sets it after its handler
        self.tx.begin(gtid, self.last_ts_ms)
        if ts:
            self.last_ts_ms = ts * 1000
        return True

    def _plain_xid(self, data: bytes, ev) -> bool:
        """`handle_event` -> `_on_xid` -> `Dispatcher.commit` in one frame: the transaction closed (no END
        record: metadata is off), counted in the metrics, the position moved past it (`_complete`)."""
        if not self.in_tx:
            return False
        ts, _t, sid, size, next_pos = _header(data, 1)
        self._ts = ts
        self._sid = sid
        self._start = next_pos - size if next_pos else 0
        self._next = next_pos
        tx = self.tx
        tx.end(tx.begin_id or "", ts * 1000)  # Dispatcher.commit's
        # (the transaction id after end(): None, as _on_xid reads it)
        self.metrics.committed(self.commit_ts_us // 1000 or ts * 1000, self.gtid or tx.begin_id)
        self._complete()
        self.query = None
        if ts:
            self.last_ts_ms = ts * 1000
        return True
