"""The pgoutput stream: the replication loop, one handler per message type (bound once per stream),
the position kept per change, and logical decoding messages."""

from __future__ import annotations

import logging
import time

import orjson
import psycopg

from emulator.connectors.postgres import fast_rows
from emulator.connectors.postgres import pgoutput as po
from emulator.connectors.postgres import table_parsers as tp
from emulator.connectors.postgres.captured import CapturedTable
from emulator.connectors.postgres.catalog import load_relation_table
from emulator.connectors.postgres.quoted_names import STREAM_STOP_MARK, unparsable
from emulator.connectors.postgres.relation_stale import stale_message
from emulator.connectors.postgres.source import (
    sequence,
)
from emulator.connectors.postgres.stream_message import on_message
from emulator.connectors.postgres.tx_formats import MARKS as TX_MARKS
from emulator.connectors.postgres.tx_formats import (
    line_c,
    line_d,
    line_u,
    line_uo,
    table_formats,
    tx_args,
    tx_block,
)
from emulator.connectors.postgres.type_prime import unresolvable
from emulator.model import TableDef

log = logging.getLogger("emulator.postgres")


_time_ns = time.time_ns
_U32 = po.U32
_XLOG_START = po.XLOG_START  # an XLogData message's start LSN (offset 1)
_BEGIN = po.BEGIN
_COMMIT = po.COMMIT
_PG_EPOCH_US = po.PG_EPOCH_US

# never a real LSN: marks where `lsn` goes in a source-block template
_LSN_MARK = 18446744073709551615
_LSN_MARK_TEXT = b"%d" % _LSN_MARK

# the offset's messageType: Debezium's ReplicationMessage.Operation name of what was processed at lsn_proc
MESSAGE_TYPE = {
    "B": "BEGIN",
    "C": "COMMIT",
    "c": "INSERT",
    "u": "UPDATE",
    "d": "DELETE",
    "t": "TRUNCATE",
    "m": "MESSAGE",
}
MESSAGE_OP = {name: op for op, name in MESSAGE_TYPE.items()}

# The engine's tick (time-driven work: linger flush, heartbeats, periodic commits) runs after every message
# but a row change, and after a row change only when the message count is a multiple of 32: a clock read
# and a call per event (~0.3 of ~8 CPU-µs; ~1 % of the instructions callgrind counts); 31 rows are ~0.3 ms,
# well inside the 5 ms linger. BEGIN, COMMIT and every other message still tick (tests/test_pg_restart.py
# stops after a BEGIN; tests/stop_hooks.py stops on the output's write).
ROW_TAGS = frozenset(b"IUD")
TICK_ROWS_MASK = 31


def _ignore(msg: bytes, lsn: int) -> None:
    return None


class PgoutputStream:
    """pgoutput decoding into the dispatcher (a mixin of PostgresConnector)."""

    tx_epoch = 0  # BEGINs seen: per-table source templates are valid for one transaction
    _tx_args: tuple = ()  # tx_formats.tx_args of the transaction `_tx_args_epoch`
    _tx_args_epoch = -1
    fast_rels: dict | None = None  # fast_rows: the entries of the relations whose changes pgmsg writes whole

    # -- streaming -----------------------------------------------------------------------------------------
    def _stream(self, start_lsn: int) -> None:
        stream = self.stream
        stream.start(start_lsn)
        self.streaming = True
        self.metrics.connected = True
        log.info("streaming from %s", po.int_to_lsn(start_lsn))
        engine = self.engine
        read = stream.read
        handlers = {
            ord("B"): self._on_begin,
            ord("C"): self._on_commit,
            ord("R"): self._on_relation,
            ord("I"): self._on_insert,
            ord("U"): self._on_update,
            ord("D"): self._on_delete,
            ord("T"): self._on_truncate,
            ord("M"): self._on_message,
            ord("Y"): _ignore,
            ord("O"): _ignore,
        }
        hb_next = time.monotonic()
        flush = engine.output.flush
        stopping = engine.stop_event.is_set
        signals = self.signals
        busy = 0
        get = stream.pgconn.get_copy_data  # what `read` does first, without its call per message
        fast = fast_rows.message_writer(self)  # a row change written whole in C, or None (fast_rows)
        rels = self.fast_rels if fast is not None else {}
        while not stopping():
            n, data = get(1)
            if n <= 0:  # nothing buffered (read waits, flushing first), or the end (read raises)
                data = read(0.1, flush)
            if data is None:
                if not self.in_tx and stream.server_wal_end > (self.lsn_commit or 0):
                    # nothing of ours is in flight: everything up to the server's position is done
                    self.lsn_commit = stream.server_wal_end
                engine.idle()
                now = time.monotonic()
                if stream.status_due(self.status_interval_s):
                    stream.send_status(self._confirmed())
                if self.heartbeat_query and engine.heartbeat and now >= hb_next:
                    hb_next = now + engine.heartbeat.interval_s
                    self._run_heartbeat_query()
                rels.clear()  # (fast_rows: what the handlers' checks rest on may change from here)
                self.signals.poll()
                continue
            busy += 1
            if fast is not None and fast(data):  # written whole (fast_rows)
                if busy & TICK_ROWS_MASK:
                    continue  # see TICK_ROWS_MASK
            elif (kind := data[0]) == 119:  # 'w': the message after the 25-byte header, copied once out of it
                tag = data[25]
                if tag not in ROW_TAGS:
                    rels.clear()
                handlers[tag](bytes(data[25:]), _XLOG_START(data, 1)[0])
                if tag in ROW_TAGS and busy & TICK_ROWS_MASK:
                    continue  # see TICK_ROWS_MASK
            elif kind == 107:  # 'k'
                stream.handle_keepalive(data, self._confirmed())
            # looked up each time: the stop points of tests/test_pg_restart.py hook it
            engine.tick()
            if busy >= 512:  # signals, resumed snapshots and read-only windows also progress under load
                busy = 0
                rels.clear()
                signals.poll()

    def _confirmed(self) -> int:
        """What the server may forget: only what our committed offsets already cover."""
        return self.confirmed_lsn

    def _run_heartbeat_query(self) -> None:
        try:
            self.conn.execute(self.heartbeat_query)
        except psycopg.Error as e:
            log.warning("heartbeat.action.query failed: %s", e)

    # pgoutput handlers: (message bytes, XLogData start LSN) ------------------------------------------------
    def _on_begin(self, msg: bytes, lsn: int) -> None:
        _final, ts, xid = _BEGIN(msg, 1)  # po.parse_begin without its call
        ts_us = ts + _PG_EPOCH_US
        self.xid = xid
        self.ts_us = ts_us
        self.tx_epoch += 1
        self.in_tx = True
        self.lsn_proc = lsn
        self.proc_op = "B"
        self.lsn_events = 0
        if self.tx.enabled:  # without transaction metadata BEGIN writes nothing: no id to format
            self.dispatcher.begin(f"{xid}:{lsn}", ts_us // 1000)
        if self._resume_tx is not None:
            if self._resume_tx[0] == xid:
                self.tx.resume(self._resume_tx[1])
            self._resume_tx = None

    def _on_commit(self, msg: bytes, lsn: int) -> None:
        _flags, _commit_lsn, end_lsn, ts = _COMMIT(msg, 1)  # po.parse_commit without its call
        ts_ms = (ts + _PG_EPOCH_US) // 1000
        if self.tx.enabled:  # as in _on_begin: END only with transaction metadata
            self.dispatcher.commit(f"{self.xid}:{lsn}", ts_ms)
        self.metrics.committed(ts_ms, self.xid, True)  # counted only with events
        self.last_commit_lsn = lsn
        self.lsn_commit = end_lsn
        self.lsn_proc = lsn
        self.proc_op = "C"
        self.in_tx = False
        if self.skip_until is not None and self.skip_until[0] == self.xid:
            self.skip_until = None
        inc = self.incremental
        if inc.read_only:
            xids = self._ro_xids
            if len(xids) > 100_000:
                xids.clear()
            xids.add(self.xid)
            if inc.window_mark is not None:
                inc.on_commit()

    def _on_relation(self, msg: bytes, lsn: int) -> None:
        rel = po.parse_relation(msg)
        # the schema in force here is the Relation message's, not the catalog's now (once that shows the commit)
        conn = self.visible_conn()  # once the transaction's commit shows (PostgresConnector.visible_conn)
        if line := unresolvable(conn, [c.type_oid for c in rel.columns]):  # any table's (type_prime)
            self._stop(line, None)
        if not self.filters.table_included(rel.namespace, rel.name):
            kept = self.by_oid.setdefault(rel.oid, None)  # moved out of the filters: kept, under its old name
            if kept is not None and len(rel.columns) > self.rel_columns[rel.oid]:
                # ... with its old columns: the next change's tuple is wider (relation_stale)
                self.by_oid[rel.oid] = None
                self.stale[rel.oid] = stale_message(kept.env.table.id, rel, self.rel_columns[rel.oid])
            return
        self.stale.pop(rel.oid, None)
        if unparsable(self, rel, conn):  # Debezium does not read its name back (quoted_names): stops or drops
            return
        self.rel_columns[rel.oid] = len(rel.columns)
        td = load_relation_table(conn, rel, self.type_cfg, column_included=self.filters.column_included)
        stream_keep = td.extra["stream_keep"]
        old = self.by_id.get(td.id)
        ct = self._capture(td)
        if len(stream_keep) != len(rel.columns):
            inner = ct.keep
            ct.keep = [stream_keep[i] for i in inner] if inner is not None else stream_keep
        if (
            old is not None
            and old.env.value_schema.to_json() == ct.env.value_schema.to_json()
            and old.env.key_names == ct.env.key_names
            and (old.env.key_schema.to_json() if old.env.key_schema else None)
            == (ct.env.key_schema.to_json() if ct.env.key_schema else None)
            and old.keep == ct.keep
        ):
            ct = old  # unchanged: keep the precomputed frames
            self.by_id[td.id] = ct
        self.by_oid[rel.oid] = ct
        tp.wire(ct, rel, self.dispatcher, self.settings.structured)
        if old is not None and ct is not old and self.incremental.running:
            self.incremental.on_schema_change(td.id)

    def _change_target(self, msg: bytes, op: str, lsn: int) -> CapturedTable | None:
        """Bookkeeping common to every row change (`msg` an Insert/Update/Delete message); the captured
        table, or None when nothing is emitted."""
        self.lsn_events = self.lsn_events + 1 if lsn == self.lsn_proc else 1
        self.lsn_proc = lsn
        self.proc_op = op
        if self.skip_until is not None and self._skip(lsn):
            return None
        ct = self.by_oid.get(_U32(msg, 1)[0])  # the relation id
        d = self.dispatcher
        if ct is not None and not (d.eager_begin and not self.tx.started) and op not in d.skipped:
            # what admit() answers then, without the call (skipped.operations defaults to 't'; BEGIN is out)
            return ct
        if ct is None and self.stale:
            self._stop_if_stale(msg, op)
        return ct if d.admit(op, ct is not None) else None

    def _stop_if_stale(self, msg: bytes, op: str) -> None:
        """A change of a table Debezium decodes with columns it no longer has (relation_stale): stop before it."""
        line = self.stale.get(_U32(msg, 1)[0])
        if line is not None:
            self._stop(line, op)

    def _stop(self, line: str, op: str | None) -> None:
        """Debezium's decoder fails here: stop, after the transaction's BEGIN record (Debezium's comes first)."""
        if self.dispatcher.eager_begin and op not in self.dispatcher.skipped:
            self.tx.touch()
        raise RuntimeError(line)

    def _gate(self, ct: CapturedTable):
        ct.gate = self.dispatcher.table(ct.env, ct.data_collection)
        return ct.gate

    def _skip(self, lsn: int) -> bool:
        su = self.skip_until
        if su is None or su[0] != self.xid or lsn > su[1]:
            return False
        if lsn < su[1]:
            return True
        if su[2] > 0:  # one of the changes at the stored LSN that were emitted
            su[2] -= 1
            return True
        return False

    def _src(self, t: TableDef, lsn: int) -> dict:
        return self.source(
            self.ts_us, "false", sequence(self.last_commit_lsn, lsn), t.namespace, t.name, self.xid, lsn
        )

    def _src_of(self, ct: CapturedTable, lsn: int) -> dict | bytes:
        """`_src(ct.env.table, lsn)` from the table's per-transaction template. Without the data plane the
        template is the block's JSON with two places for the LSN (`TableEnvelope.change` puts such bytes
        into the value as they are); with it, a dict copy and two values."""
        tmpl = ct.src if ct.src_epoch == self.tx_epoch else None
        if tmpl is None:
            return self._src_miss(ct, lsn)
        return tmpl % (lsn, lsn) if tmpl.__class__ is bytes else self._src_dict(tmpl, lsn)

    def _src_miss(self, ct: CapturedTable, lsn: int) -> dict | bytes:
        """`_src_of` without a bytes template for this transaction: the table's first change in it gets its
        block made directly (one dump; a one-row transaction, the common case at high transaction rates,
        never pays for the template's three), the second makes the template."""
        epoch = self.tx_epoch
        if ct.src_epoch == epoch:  # a dict template (data plane, or a name holding the marker)
            return self._src_dict(ct.src, lsn)
        if ct.src_first != epoch and not ct.tx_formats:  # (with them the template costs one `%`)
            ct.src_first = epoch
            t = ct.env.table
            src = self.source(
                self.ts_us, "false", sequence(self.last_commit_lsn, lsn), t.namespace, t.name, self.xid, lsn
            )
            return src if self.settings.structured else orjson.dumps(src)
        tmpl = self._src_template(ct)
        return tmpl % (lsn, lsn) if tmpl.__class__ is bytes else self._src_dict(tmpl, lsn)

    def _src_dict(self, tmpl: dict, lsn: int) -> dict:
        src = tmpl.copy()
        lc = self.last_commit_lsn
        src["sequence"] = f'["{lc}","{lsn}"]' if lc is not None else f'[null,"{lsn}"]'  # source.sequence
        src["lsn"] = lsn
        return src

    def _src_template(self, ct: CapturedTable) -> bytes | dict:
        """The source block of `ct`'s changes in this transaction (`tx_epoch`) but for the LSN: as JSON
        bytes with `%d` at the LSN's two places (in `sequence` and `lsn`), or a dict for the data plane
        (which takes payloads as dicts) and for names that happen to contain the marker. With it the
        transaction's line formats, from the table's formats one level up (`tx_formats`) where they could be
        made."""
        epoch = ct.src_epoch = self.tx_epoch
        ct.line_d = None  # the DELETE line; False where `line_d` can make it (on the first DELETE)
        fmts = ct.tx_formats
        if fmts is None and self.xid is not None:
            if self.settings.structured:  # the data plane takes dicts: no formats (`_src_miss` serves)
                fmts = ct.tx_formats = False
            else:
                t = ct.env.table
                seq = sequence(TX_MARKS["last_commit"], _LSN_MARK)
                marked = self.source(
                    TX_MARKS["ts_us"], "false", seq, t.namespace, t.name, TX_MARKS["xid"], _LSN_MARK
                )
                fmts = ct.tx_formats = table_formats(ct, orjson.dumps(marked), _LSN_MARK_TEXT)
        if fmts:
            if self._tx_args_epoch != epoch:
                self._tx_args = tx_args(self.ts_us, self.last_commit_lsn, self.xid)
                self._tx_args_epoch = epoch
            ct.src = tmpl = fmts.src % self._tx_args
            if fmts.c is not None:  # the line formats, each made on its first use in it (`line_c`...)
                ct.line_c = ct.line_u = ct.line_uo = ct.line_uof = False
                ct.line_epoch = epoch
            if ct.gate_line_d is not None:
                ct.line_d = False
            return tmpl
        t = ct.env.table
        src = self.source(self.ts_us, "false", None, t.namespace, t.name, self.xid, None)
        if not self.settings.structured:
            marked = dict(src, sequence=sequence(self.last_commit_lsn, _LSN_MARK), lsn=_LSN_MARK)
            raw = orjson.dumps(marked)
            if raw.count(_LSN_MARK_TEXT) == 2:
                ct.src = tmpl = raw.replace(b"%", b"%%").replace(_LSN_MARK_TEXT, b"%d")
                if ct.gate_line is not None:  # this transaction's line formats around the template
                    formats = ct.env._after_formats
                    vfmt = ct.parse_json.value_format
                    ct.line_c = po.line_format(formats["c"][0], vfmt, tmpl)
                    ct.line_u = po.line_format(formats["u"][0], vfmt, tmpl)
                    if ct.line_c is not None and ct.line_u is not None:
                        ct.line_uo = ct.line_uof = False  # as with `tx_formats`: made on first use
                        ct.line_epoch = self.tx_epoch
                if ct.gate_line_d is not None:
                    ct.line_d = False
                return tmpl
        ct.src = src
        return src

    def _on_insert(self, msg: bytes, lsn: int) -> None:
        # _change_target and _src_of inlined: the most frequent message of a catch-up, two calls fewer
        self.lsn_events = self.lsn_events + 1 if lsn == self.lsn_proc else 1
        self.lsn_proc = lsn
        self.proc_op = "c"
        if self.skip_until is not None and self._skip(lsn):
            return
        ct = self.by_oid.get(_U32(msg, 1)[0])  # the relation id
        if ct is None and self.stale:
            self._stop_if_stale(msg, "c")
        d = self.dispatcher
        if (ct is None or (d.eager_begin and not self.tx.started) or "c" in d.skipped) and (
            not d.admit("c", ct is not None) or ct is None
        ):
            return
        # the table's first change in the transaction: its source template (its formats once per Relation)
        if ct.src_epoch != self.tx_epoch and ct.tx_formats is not False:
            self._src_template(ct)
        if ct.line_epoch == self.tx_epoch:  # straight into the record's line (this transaction's format)
            fmt = ct.line_c or line_c(ct)  # False until the transaction's first INSERT made it
            blk = tx_block(self.tx, self.xid, ct.data_collection, lsn) if self.tx.enabled else b"null"
            line = ct.parse_line(msg, 6, fmt, lsn, blk, _time_ns())  # byte 5 is 'N'
            if line is not None and ct.gate_line("c", line):
                if self.fast_rels is not None:  # the next ones in C (fast_rows)
                    fast_rows.keep(self, msg, 0, ct.parse_line, fmt, ct.gate_line)
                return
        if ct.gate_json is not None:  # the row as JSON text, no dict (the bytes source template then)
            row = ct.parse_json(msg, 6)
            if row is not None:
                tmpl = ct.src if ct.src_epoch == self.tx_epoch else None  # _src_of inlined
                src = tmpl % (lsn, lsn) if tmpl.__class__ is bytes else self._src_miss(ct, lsn)
                if src.__class__ is bytes and ct.gate_json(
                    "c", row, src, f"{self.xid}:{lsn}" if self.tx.enabled else None
                ):
                    return
        parse_row = ct.parse_row
        after = parse_row(msg, 6) if parse_row is not None else None  # byte 5 is 'N'
        if after is None:  # unchanged TOAST, binary, another column count: the generic path
            _relid_, values, toast = po.parse_insert(msg)
            raw = ct.raw(values) if ct.keep is not None else values
            after = ct.row_toast(raw, None) if toast else ct.env.row(raw)
        (ct.gate or self._gate(ct))(
            "c", None, after, self._src_of(ct, lsn), f"{self.xid}:{lsn}" if self.tx.enabled else None
        )

    def _on_update(self, msg: bytes, lsn: int) -> None:
        # skipped updates are dropped whole, key changes included (as Debezium); _change_target inlined
        # as in _on_insert
        self.lsn_events = self.lsn_events + 1 if lsn == self.lsn_proc else 1
        self.lsn_proc = lsn
        self.proc_op = "u"
        if self.skip_until is not None and self._skip(lsn):
            return
        ct = self.by_oid.get(_U32(msg, 1)[0])  # the relation id
        if ct is None and self.stale:
            self._stop_if_stale(msg, "u")
        d = self.dispatcher
        if (ct is None or (d.eager_begin and not self.tx.started) or "u" in d.skipped) and (
            not d.admit("u", ct is not None) or ct is None
        ):
            return
        if ct.src_epoch != self.tx_epoch and ct.tx_formats is not False:  # as in _on_insert
            self._src_template(ct)
        if msg[5] == 78 and ct.line_epoch == self.tx_epoch:  # 'N': no old tuple; as in _on_insert
            blk = tx_block(self.tx, self.xid, ct.data_collection, lsn) if self.tx.enabled else b"null"
            if not ct.toast_first:
                fmt = ct.line_u or line_u(ct)
                line = ct.parse_line(msg, 6, fmt, lsn, blk, _time_ns())
                if line is not None and ct.gate_line("u", line):
                    if self.fast_rels is not None:  # as in _on_insert
                        fast_rows.keep(self, msg, 1, ct.parse_line, fmt, ct.gate_line)
                    return
            elif ct.toast_line is not None:  # as parse_toast below, into the line
                got = ct.toast_line(msg, 6, ct.line_u or line_u(ct), lsn, blk, _time_ns())
                if got is not None:
                    ct.toast_first = got[2]
                    if ct.gate_line("u", got[:2]):
                        return
        env = ct.env
        parse_row = ct.parse_row
        if msg[5] == 78 and parse_row is not None:  # 'N': no old tuple (REPLICA IDENTITY DEFAULT, key same)
            if ct.gate_json is not None:  # as in _on_insert
                row = ct.parse_json(msg, 6) if not ct.toast_first else None
                if row is None and ct.parse_toast is not None:  # an unchanged TOAST value: the placeholder
                    row = ct.parse_toast(msg, 6)
                    if row is not None:  # tried first (the faster readers fail) while UPDATEs keep one
                        ct.toast_first = row[2]
                        row = row[:2]
                if row is not None:
                    tmpl = ct.src if ct.src_epoch == self.tx_epoch else None
                    src = tmpl % (lsn, lsn) if tmpl.__class__ is bytes else self._src_miss(ct, lsn)
                    if src.__class__ is bytes and ct.gate_json(
                        "u", row, src, f"{self.xid}:{lsn}" if self.tx.enabled else None
                    ):
                        return
            after = parse_row(msg, 6)
            if after is not None:
                (ct.gate or self._gate(ct))(
                    "u", None, after, self._src_of(ct, lsn), f"{self.xid}:{lsn}" if self.tx.enabled else None
                )
                return
        if msg[5] == 79 and ct.gate_json is not None:  # 'O': the old row (FULL); not a table reselected
            new = before = None
            if ct.parse_old is not None and not ct.toast_first:
                old = ct.parse_old(msg, 6)
                if old is not None and msg[old[2] : old[2] + 1] == b"N":
                    new = ct.parse_json(msg, old[2] + 1)
                    if new is not None and new[1] == old[1]:  # the same key JSON: no key change
                        before, after, key = old[0], new[0], new[1]
            if new is None and ct.parse_toast_full is not None:
                # not read (an unchanged TOAST value in the new tuple; a key field printing a default for NULL):
                # the slower reader of both tuples, which also tells a key change (None)
                upd = ct.parse_toast_full(msg, 6)
                if upd is not None:
                    ct.toast_first = upd[3]  # as for the new tuple alone above
                    before, after, key = upd[0], upd[1], upd[2]
            if before is not None and ct.line_epoch == self.tx_epoch:
                fmt = ct.line_uo
                if fmt is False:  # the transaction's first such UPDATE
                    fmt = line_uo(ct)
                # skip.messages.without.change with the same rows: table() compares them
                if fmt is not None and not (d.skip_unchanged and before == after):
                    t = b"%d" % _time_ns()  # into the record's line, as _on_insert's
                    blk = tx_block(self.tx, self.xid, ct.data_collection, lsn) if self.tx.enabled else b"null"
                    if key is None:
                        line = (fmt % (before, after, lsn, lsn, blk, t[:-6], t[:-3], t), 0)
                    else:
                        line = (fmt % (key, before, after, lsn, lsn, blk, t[:-6], t[:-3], t), len(key))
                    if ct.gate_line("u", line):
                        if new is not None and self.fast_rels is not None:  # the next ones in C (fast_rows)
                            fast_rows.keep_full(self, msg, ct, d.skip_unchanged)
                        return
            if before is not None:
                tmpl = ct.src if ct.src_epoch == self.tx_epoch else None  # as in _on_insert
                src = tmpl % (lsn, lsn) if tmpl.__class__ is bytes else self._src_miss(ct, lsn)
                if src.__class__ is bytes and ct.gate_old(
                    "u", before, after, key, src, f"{self.xid}:{lsn}" if self.tx.enabled else None
                ):
                    return
        _relid_, old_vals, old_kind, new_vals, toast = po.parse_update(msg)
        before = ct.old_row(old_kind, ct.raw(old_vals)) if old_vals is not None else None
        raw = ct.raw(new_vals)
        after = ct.row_toast(raw, before) if toast else env.row(raw)
        (ct.gate or self._gate(ct))(
            "u", before, after, self._src_of(ct, lsn), f"{self.xid}:{lsn}" if self.tx.enabled else None
        )

    def _on_delete(self, msg: bytes, lsn: int) -> None:
        ct = self._change_target(msg, "d", lsn)
        if ct is None:
            return
        if ct.src_epoch != self.tx_epoch and ct.tx_formats is not False:  # as in _on_insert
            self._src_template(ct)
        if ct.src_epoch == self.tx_epoch:  # as _on_insert's line (a reselected table's too)
            ld = ct.line_d
            if ld is False:  # the transaction's first DELETE
                ld = line_d(ct)
            if ld is not None and msg[5] == ld[0]:
                blk = tx_block(self.tx, self.xid, ct.data_collection, lsn) if self.tx.enabled else b"null"
                line = ld[1](msg, 6, ld[2], lsn, blk, _time_ns())
                if line is not None and ct.gate_line_d("d", line):
                    if self.fast_rels is not None:  # as in _on_insert
                        fast_rows.keep(self, msg, 2, ld[1], ld[2], ct.gate_line_d, ld[0])
                    return
        old = None
        if msg[5] == 79 and ct.gate_old is not None:  # 'O': the whole old row (FULL), read as an insert's row
            old = ct.parse_json(msg, 6)
        elif msg[5] == 75 and ct.parse_key is not None:  # 'K': the key's columns (DEFAULT, USING INDEX)
            old = ct.parse_key(msg, 6)
        if old is not None:
            tmpl = ct.src if ct.src_epoch == self.tx_epoch else None  # as in _on_insert
            src = tmpl % (lsn, lsn) if tmpl.__class__ is bytes else self._src_miss(ct, lsn)
            if src.__class__ is bytes and ct.gate_old(
                "d", old[0], b"null", old[1], src, f"{self.xid}:{lsn}" if self.tx.enabled else None
            ):
                return
        _relid_, kind, old_vals = po.parse_delete(msg)
        before = ct.old_row(kind, ct.raw(old_vals))
        (ct.gate or self._gate(ct))(
            "d", before, None, self._src_of(ct, lsn), f"{self.xid}:{lsn}" if self.tx.enabled else None
        )

    def _on_truncate(self, msg: bytes, lsn: int) -> None:
        relids, _options = po.parse_truncate(msg)
        self.lsn_proc = lsn
        self.proc_op = "t"
        self.lsn_events = 1
        if self._skip(lsn) or not self.dispatcher.admit("t", True):
            return
        tx_id = f"{self.xid}:{lsn}" if self.tx.enabled else None
        for relid in relids:
            ct = self.by_oid.get(relid)
            if ct is None and STREAM_STOP_MARK in self.stale.get(relid, ""):  # (quoted_names.unparsable)
                self._stop(self.stale[relid], "t")
            if ct is not None:
                self.dispatcher.truncate(ct.env, ct.data_collection, self._src(ct.env.table, lsn), tx_id)

    _on_message = on_message  # a logical decoding message (stream_message.py)
