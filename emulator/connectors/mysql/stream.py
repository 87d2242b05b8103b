"""The MySQL connector's binlog stream: the reader, one handler per event type (rotate, GTID, XID,
table map, rows), transaction boundaries and the source block of each row.

A mixin of MySqlConnector; the handlers are bound once when the stream starts (`_stream`), so the
split adds nothing to the per-event path."""

from __future__ import annotations

import logging
import time
from typing import Any

import orjson
import pymysql

from emulator.connectors.mysql import binlog as bl
from emulator.connectors.mysql.captured import CapturedTable, TableEntry
from emulator.connectors.mysql.failed_rows import decode_dropping
from emulator.connectors.mysql.row_decoders import compile_row_decoders
from emulator.connectors.mysql.source import source_block
from emulator.connectors.mysql.stream_lines import BinlogLines
from emulator.connectors.mysql.stream_tx import PlainTx
from emulator.connectors.mysql.types import EventConversionError
from emulator.connectors.mysql.values import identity
from emulator.connectors.mysql.xa_hold import XA_FLAGS, XaHold

log = logging.getLogger("emulator.mysql")

# bound once: the per-event path reads them as module globals, not attributes of `bl`
_header = bl.HEADER.unpack_from
_rows_body_start = bl.rows_body_start
_ROW_EVENTS = bl.ROW_EVENTS
_TABLE_MAP = bl.TABLE_MAP
_POS_ROW = b'"pos":0,"row":0'
_XID = bl.XID
_mariadb_gtid = bl.mariadb_gtid
# The engine's tick (time-driven work: linger flush, heartbeats, periodic commits) runs after every event
# but a rows event, and after a rows event only when the event count is a multiple of 32, as PostgreSQL's
# stream does: a clock read and a call per event (~4k of ~87k instructions an UPDATE row); 31 rows events
# are ~0.3 ms, well inside the 5 ms linger. GTID, XID, QUERY and every other event still tick
# (tests/test_binlog_restart.py stops after a BEGIN; tests/stop_hooks.py stops on the output's write).
TICK_ROWS_MASK = 31
_OPS = {t: "c" for t in bl.WRITES} | {t: "u" for t in bl.UPDATES} | {bl.DELETE_V1: "d", bl.DELETE_V2: "d"}


class MySqlBinlogStream(BinlogLines, PlainTx, XaHold):
    """The MySQL connector's binlog stream: the reader, one handler per event type (rotate, GTID, XID,"""

    # -- streaming -----------------------------------------------------------------------------------------
    def _reader(self) -> bl.BinlogReader:
        settings = dict(self._conn_settings())
        settings["read_timeout"] = 60
        kw: dict[str, Any] = {
            "blocking": True,
            "slave_heartbeat": 0.1,
            "enable_logging": False,
            "report_slave": None,
        }
        gset = self.gtids.filtered(self.gtid_includes, self.gtid_excludes) if self.gtids is not None else None
        if gset is not None and self.mariadb_server:
            # MariaDB: by GTID state (the completed transactions), also to resume inside a transaction: the
            # server starts at its GTID event and the events already emitted are skipped
            kw.update(
                is_mariadb=True,
                auto_position=str(gset),
                annotate_rows_event=self.include_query and self.flavor.mariadb,
            )
        elif gset is not None and str(gset) and not (self.skip_events or self.skip_rows or self.tx_file):
            kw.update(auto_position=str(gset))  # MySQL: COM_BINLOG_DUMP_GTID
        else:
            kw.update(
                log_file=self.tx_file or self.file, log_pos=self.tx_pos or self.next_pos, resume_stream=True
            )
        return bl.BinlogReader(settings, self.server_id, mariadb_server=self.mariadb_server, **kw)

    def _stream(self) -> None:
        self.reader = self._reader()
        self.reader.connect()
        self.streaming = True
        self.metrics.connected = True
        log.info(
            "streaming from %s:%s (gtids %s)",
            self.tx_file or self.file,
            self.tx_pos or self.next_pos,
            self.gtids,
        )
        engine = self.engine
        read = self.reader.frames()  # its `read`, the packet framed in C where built (fastframe.c)
        handle = self.handle_event
        on_table_map = self._on_table_map  # handle_event's cases without its call
        on_rows = self._on_rows
        plain = self._plain  # a plain GTID / XID in one frame (stream_tx.py), without handle_event's
        checksum = 4 if self.reader.checksum else 0
        hb_next = time.monotonic()
        busy = 0
        stopping = engine.stop_event.is_set  # engine.stopping without the property call per event
        more = self.reader.more  # more of the log already here? (docs/latency.md)
        while not stopping():
            etype, data, ev = read()
            while etype == _TABLE_MAP:  # its rows event follows at once: no stop check or tick between
                # _on_table_map's first test without its call: the last table map again (a backlog of one
                # table's statements) leaves table_ids as it is
                if data[20 : len(data) - checksum] != self.tm_last:
                    on_table_map(data, ev, checksum)
                etype, data, ev = read()
            if etype in _ROW_EVENTS:
                on_rows(etype, data, checksum)
                busy += 1
                if busy & TICK_ROWS_MASK:  # see TICK_ROWS_MASK
                    continue
                engine.tick()  # looked up each time: tests hook it (tests/test_binlog_restart.py)
            elif etype == bl.HEARTBEAT:
                engine.idle()
                now = time.monotonic()
                if self.heartbeat_query and engine.heartbeat and now >= hb_next:
                    hb_next = now + engine.heartbeat.interval_s
                    self._run_heartbeat_query()
                self.signals.poll()
                continue
            else:
                h = plain.get(etype)
                if h is None or not h(data, ev):
                    handle(etype, data, ev, checksum)
                busy += 1
                if etype == _XID and not more():
                    engine.idle()  # a transaction ended and nothing more arrived: readers see it now, not
                    # at the server's next heartbeat (100 ms after the last event)
                else:
                    engine.tick()
            if busy >= 512:  # signals, resumed snapshots and deferred work also progress under load
                busy = 0
                self.signals.poll()

    def handle_event(self, etype: int, data: bytes, ev: Any, checksum: int) -> None:
        """One binlog event: `data` is the packet (OK byte, 19-byte header, body, checksum), `ev` the
        library's event object for events other than table maps and rows."""
        if etype == _TABLE_MAP:  # its rows event follows at once and sets the position and time
            self._on_table_map(data, ev, checksum)
            return
        if etype in _ROW_EVENTS:
            self._on_rows(etype, data, checksum)
            return
        plain = self._plain.get(etype)  # a plain GTID / XID: the whole event in one frame (stream_tx.py)
        if plain is not None and plain(data, ev):
            return
        ts, _t, sid, size, next_pos = _header(data, 1)
        self._ts = ts
        self._sid = sid
        self._start = next_pos - size if next_pos else 0
        self._next = next_pos
        h = self._handlers.get(etype)
        if h is not None:
            h(data, ev, checksum)
        if ts:
            self.last_ts_ms = ts * 1000

    def _run_heartbeat_query(self) -> None:
        try:
            self._q(self.heartbeat_query)
        except pymysql.err.MySQLError as e:
            log.warning("heartbeat.action.query failed: %s", e)

    # event handlers ------------------------------------------------------------------------------------
    def _on_rotate(self, data: bytes, ev, checksum: int) -> None:
        if ev is None:
            return
        if self._ts:  # a real rotation (not the stream's first, fake one): table ids restart
            self.table_ids.clear()
            self.tm_last = b""
        elif ev.next_binlog == self.file and ev.position <= 4:
            return  # GTID positioning: the fake rotation names the file, not the position we resume at
        self.file = ev.next_binlog
        self.next_pos = ev.position

    def _begin_position(self) -> None:
        """A transaction (or standalone DDL) starts here: the restart position until it completes."""
        self.in_tx = True
        self.tx_file, self.tx_pos = self.file, self._start
        self.events_done = 0
        self.rows_done = 0
        if self.skip_gtid is not None and self.pos_gtid != self.skip_gtid:
            self.skip_events = self.skip_rows = 0
            self.skip_gtid = None

    def _begin(self, tx_id: str) -> None:
        if not self.in_tx:
            self._begin_position()
        resumed = self._resume_tx
        if resumed is not None:
            self._resume_tx = None
            if resumed[0] == tx_id:  # the transaction a restart stopped inside: its BEGIN was delivered
                self.dispatcher.begin(tx_id, self.last_ts_ms)
                self.tx.resume(resumed[1])
                return
        # BEGIN is written when the transaction starts, captured changes or not
        self.dispatcher.begin(tx_id, self.last_ts_ms, eager=True)

    def _complete(self) -> None:
        if self.pos_gtid is not None and self.gtids is not None:
            self.gtids.add(self.pos_gtid)
        self.in_tx = False
        self.tx_file = self.tx_pos = None
        self.next_pos = self._next
        self.events_done = self.rows_done = 0
        self.skip_events = self.skip_rows = 0
        self.skip_gtid = None
        self.thread = None
        self.pos_gtid = None
        self.commit_ts_us = 0
        if not self.flavor.mariadb:
            self.gtid = None
        inc = self.incremental
        if inc.read_only and inc.window_mark is not None:
            inc.on_commit()

    def _on_mariadb_gtid(self, data: bytes, ev, checksum: int) -> None:
        # from the packet: BinlogReader.read gives no library event for it (a caller's event object is read)
        gtid, flags = _mariadb_gtid(data, self._sid) if ev is None else (ev.gtid, ev.flags)
        if self.in_tx:  # the previous group ended without COMMIT/XID (e.g. a rolled-back statement)
            self._complete()
        # an XA group (held until its XA COMMIT), or a group a restart passes again: xa_hold.py
        if (flags & XA_FLAGS or self.xa_done is not None) and self._xa_group(data, gtid, flags, checksum):
            return
        self.tx_standalone = bool(flags & 1)
        self.event_server_id = self._sid
        self.pos_gtid = gtid
        self._begin_position()
        if self.flavor.mariadb:
            self.gtid = gtid
            if self.dml_source is not None:  # its source: domain-server (gtid.source_filter)
                self.dml_skip = not self.dml_source(gtid.rsplit("-", 1)[0])
            self._begin(gtid)
        else:
            self.gtid = None  # the MySQL connector does not read MariaDB GTID events: no transaction, no gtid

    def _on_mysql_gtid(self, data: bytes, ev, checksum: int) -> None:
        if ev is None:
            return
        self.event_server_id = self._sid
        self.gtid = self.pos_gtid = ev.gtid
        if self.dml_source is not None:  # its source: the server UUID (gtid.source_filter)
            self.dml_skip = not self.dml_source(str(ev.gtid).split(":", 1)[0])
        self.tx_standalone = True  # until a BEGIN follows (a DDL follows its GTID directly)
        self._begin_position()
        self.commit_ts_us = mysql_original_commit_us(data)

    def _on_annotate(self, data: bytes, ev, checksum: int) -> None:
        if ev is not None and self.include_query:
            q = ev.sql_statement
            self.query = q.decode("utf-8", "replace") if isinstance(q, bytes) else q

    def _on_rows_query(self, data: bytes, ev, checksum: int) -> None:
        if ev is not None and self.include_query:
            q = ev.query
            self.query = q.decode("utf-8", "replace") if isinstance(q, bytes) else q

    def _on_xid(self, data: bytes, ev, checksum: int) -> None:
        if self.in_tx:
            self.dispatcher.commit(self.tx.begin_id or "", self._ts * 1000)
        self.metrics.committed(self.commit_ts_us // 1000 or self._ts * 1000, self.gtid or self.tx.begin_id)
        self._complete()
        self.query = None

    def _tx_id(self) -> str | None:
        """The transaction block's id, or None when no block is due (metadata off, no transaction)."""
        tx = self.tx
        return tx.begin_id if tx.enabled and self.in_tx else None

    def _on_table_map(self, data: bytes, ev, checksum: int) -> None:
        whole = data[20 : len(data) - checksum]  # the table id and the map
        if whole == self.tm_last:
            return  # the last table map again (a backlog of one table's statements): table_ids has it
        self.tm_last = whole
        key = whole[6:]
        entry = self.tm_cache.get(key)
        if entry is None:
            entry = TableEntry(bl.parse_table_map(whole))
            if len(self.tm_cache) > 10000:
                self.tm_cache.clear()
            self.tm_cache[key] = entry
        self.table_ids[data[20:26]] = entry

    def _src(self, ct: CapturedTable, row: int) -> dict:
        t = ct.env.table
        return source_block(
            self.prefix,
            self.flavor.name,
            self.commit_ts_us or self._ts * 1_000_000,
            "false",
            t.namespace,
            t.name,
            self._sid,
            self.gtid,
            self.file,
            self._start,
            row,
            self.thread,
            self.query,
        )

    def _decoder(self, ct: CapturedTable, tm: bl.TableMap):
        dec = ct.decoders.get(tm.key)
        if dec is None:
            n = len(tm.types)
            if n != ct.ncols:
                # Debezium's validateChangeEventWithTable stops whatever inconsistent.schema.handling.mode
                raise RuntimeError(
                    f"binlog row of {ct.data_collection} at {self.file}:{self._start} has {n} columns, the "
                    f"schema has {ct.ncols}: the schema history does not match the binlog; Debezium stops here too"
                )
            cols = ct.env.table.columns
            # outputs keyed by the field names as printed (field.name.adjustment.mode)
            by_name = {c.name: (c, field) for c, field in zip(cols, ct.env.names)}
            outputs: list[Any] = []
            keep = ct.keep
            kept = set(keep) if keep is not None else None
            for i, c in enumerate(ct.table.columns):
                if kept is not None and i not in kept:
                    outputs.append(None)
                    continue
                cd, field = by_name[c.name]
                outputs.append((field, None if cd.convert is identity else cd.convert))
            dec = ct.decoders[tm.key] = (
                *compile_row_decoders(tm, outputs),
                self._line_decoders(ct, tm, outputs),
            )
        return dec

    def _resolve(self, entry: TableEntry) -> None:
        """(Re)bind a table map to its captured table and row decoder for the current schema."""
        entry.epoch = self.schema_epoch
        entry.ct = entry.dec = entry.dec2 = entry.lines = None
        entry.line_ops = frozenset()
        entry.ways = {}
        tm = entry.tm
        ct = self._captured(tm.schema, tm.table)
        if ct is None:
            if (
                (tm.schema, tm.table) not in self.catalog.tables
                and self._db_included(tm.schema)
                and self.filters.table_included(tm.schema, tm.table)
            ):
                msg = f"no schema for table {tm.schema}.{tm.table} at {self.file}:{self._start}"
                if self.inconsistent_mode == "fail":
                    raise RuntimeError(msg + " (inconsistent.schema.handling.mode=fail)")
                log.warning("%s; its events are skipped", msg)
            return
        decs = self._decoder(ct, tm)
        if decs is not None:
            entry.ct = ct
            entry.dec, entry.dec2, entry.lines = decs
            if entry.lines is not None:
                entry.line_ops = self._line_ops(ct.env)

    def _rows(self, etype: int, body: bytes, end: int, entry: TableEntry | None) -> None:
        """`_on_rows` (stream_lines.py) past its line way: any rows event, its rows ending at `end` (before the
        checksum)."""
        # what follows the table id (flags, extra data, column count, column bitmaps) as the table's last
        # event of this type had it, all columns present: no parse of it again
        head = entry.heads.get(etype) if entry is not None else None
        if head is not None and body.startswith(head, 26):
            p = 26 + len(head)
            full = True
        else:
            _table_id, p, _n, full = _rows_body_start(body, etype, 20)
            if full and entry is not None:
                entry.heads[etype] = body[26:p]
        events_done = self.events_done
        self.events_done = events_done + 1
        skip_rows = 0
        if self.skip_events or self.skip_rows:
            if events_done < self.skip_events:
                return
            if events_done == self.skip_events:
                skip_rows = self.skip_rows
        if entry is None:
            return
        if entry.epoch != self.schema_epoch:
            try:
                self._resolve(entry)
            except Exception:  # no schema (inconsistent.schema.handling.mode=fail), a column count not the
                self._rows_failed(0, True)  # schema's: Debezium stops with this event not done
                raise
        dec = entry.dec
        if dec is None:  # a table not captured: one filtered event per rows event, as Debezium's binlog
            self.dispatcher.admit(_OPS[etype], False)
            return
        ct = entry.ct
        if not full:
            # binlog_row_image MINIMAL/NOBLOB set by a session: Debezium compares the row's size with its
            # schema's and stops ("Error processing row in T, internal schema size N, but row size M"), the
            # event not done: a restart reads it again (and stops again)
            self._rows_failed(0, True)
            raise ValueError(
                f"rows event of {ct.data_collection} at {self.file}:{self._start} lacks columns "
                "(binlog_row_image is not FULL for the session that wrote it); Debezium stops here too"
            )
        op = _OPS[etype]
        key = (self._ts, self.commit_ts_us, self._sid, self.file, self.thread, self.query, self.gtid)
        src = ct.src if ct.src_key == key else self._src_template(ct, key)
        d = self.dispatcher
        # straight into the records' lines (`entry.line_ops`: the operations a table with line decoders
        # takes that way), unless a restart skips rows of this event or an incremental snapshot window is
        # open (it reads the rows); the way kept for the next events of this type (`_on_rows`)
        if (
            op in entry.line_ops
            and not skip_rows
            and src.__class__ is bytes
            and p < end
            and (d.incremental is None or not d.incremental.window_open)
        ):
            way = entry.ways.get(etype)
            if way is None or not body.startswith(way.head, 26) or way.start != p:
                way = self._line_way(entry, ct, etype, op, body[26:p])
            if key != way.key:
                self._line_source(way, ct, key)
            if self._lines(way, body, p, end, None, True):
                return
        pos = self._start
        tx = self.tx
        tx_id = tx.begin_id if tx.enabled and self.in_tx else None  # self._tx_id() inlined
        change = ct.gate
        if change is None:
            change = ct.gate = d.table(ct.env, ct.data_collection)
        # skipped.operations drops the whole event, as Debezium's binlog reader (admit() is True, with
        # nothing to do, unless the BEGIN is eager or the operation skipped)
        failed = None
        rows: Any = ()
        dropped = (d.eager_begin or op in d.skipped) and not d.admit(op, True)
        if not dropped and p < end:
            p0 = p
            try:
                if op == "u":
                    before, after, p = entry.dec2(body, p)
                elif op == "c":
                    before = None
                    after, p = dec(body, p)
                else:
                    after = None
                    before, p = dec(body, p)
                rows = ((before, after),)
                if p < end:  # more than one row
                    rows = list(rows)
                    add = rows.append
                    while p < end:
                        if op == "u":
                            before, after, p = entry.dec2(body, p)
                        elif op == "c":
                            after, p = dec(body, p)
                        else:
                            before, p = dec(body, p)
                        add((before, after))
            except EventConversionError as e:
                if self.failure_mode != "fail":
                    # event.processing.failure.handling.mode=warn|skip: that row dropped (it keeps its row number)
                    rows, change = decode_dropping(
                        ct, entry, op, body, p0, end, self.failure_mode == "warn", change
                    )
                else:
                    # a value Debezium cannot convert (a required TIME outside a day) stops it at that row: it
                    # converts and queues an event's rows one by one, so the rows before it (`rows` so far) are
                    # its records, delivered unless its last poll batch is lost (both recorded: seed 5 of
                    # tests/test_mariadb_workloads.py delivered it 7 times in 9; case
                    # time_connect_required_fails_mid_event, tests/differential/data/failing_event_row_lost)
                    failed = e
        env = ct.env
        fill = env.null_fill
        # the offsets read rows_done only at a commit inside the event, which only a signal row causes
        track = ct.data_collection == self.signal_table
        row = 0
        try:
            for before, after in rows:
                if row < skip_rows:
                    row += 1
                    self.rows_done = row
                    continue
                if fill:
                    if before is not None:
                        env.fill_nulls(before)
                    if after is not None:
                        env.fill_nulls(after)
                if src.__class__ is bytes:
                    block = src % (pos, row)
                else:
                    block = src.copy()
                    block["pos"] = pos
                    block["row"] = row
                row += 1
                if track:
                    self.last_row = row - 1
                    self.rows_done = row
                change(op, before, after, block, tx_id)
        except Exception:
            # a record the data plane cannot deliver (a transform or converter raising, errors.tolerance=none;
            # only `change` raises, past `row += 1`): the rows before it done, it and the rest not, as Connect
            # commits no offset of a failing record; a restart with the transform fixed delivers them
            self._rows_failed(row - 1, True)
            raise
        if row > skip_rows:
            self.last_row = row - 1
        if failed is not None:
            self._rows_failed(row, True)
            raise failed
        self._event_done(row)

    def _rows_failed(self, rows: int, counted: bool) -> None:
        """A rows event stopped after its first `rows` rows were emitted (at a value it cannot convert; with
        `rows` 0 also before any: a row image not full, a schema that does not match) (`counted`: events_done
        counts the event, as `_rows` does from its start). The offset committed on the way out (the
        engine's close) must have a restart read the event again, skipping those rows as
        Debezium's offset of the last row it delivered: inside a transaction the position is its BEGIN and
        the events and rows done, and an event counted with no row done was skipped whole (a restart with
        the failure's cause fixed lost its rows). Outside a transaction the position is the event's own."""
        if self.in_tx:
            n = self.events_done if counted else self.events_done + 1
            self.events_done = n if rows else n - 1
            self.rows_done = rows

    def _event_done(self, rows: int) -> None:
        """After the `rows` rows of a rows event (either path): where a restart resumes. Inside a transaction
        only its commit moves the position; outside one the next event does, and the statement is over."""
        if self.in_tx:
            self.rows_done = 0
        else:
            self.rows_done = rows
            self.next_pos = self._next
            self.query = None

    def _src_template(self, ct: CapturedTable, key: tuple) -> bytes | dict:
        """The source block of `ct`'s rows for `key` (the event's second, the commit time in µs or 0, server
        id, file, thread, query, GTID: what a transaction or statement sets; the GTID last, see below) but for the event's `pos` and the `row`: as JSON bytes with `%d` at
        their places (`TableEnvelope.change` puts such bytes into the value as they are), or a dict for the
        data plane (which takes payloads as dicts)."""
        old = ct.src_key
        cut = ct.src_cut
        # a new transaction within the same second and statement (a small transaction's rows): the last
        # template with the GTID's JSON put in (~6k instructions less a transaction than the dict, its JSON
        # and the escapes made again); only the GTID differs, so the bytes are those a new build makes
        # (the GTID last in the key: one slice of each to compare, not two, ~500 instructions a transaction)
        if cut is not None and key[:6] == old[:6]:
            g = orjson.dumps(key[6])
            # find, not `b"%" not in g`: CPython 3.11's bytes `in` first reads its operand as an int, and the
            # TypeError it makes and clears for bytes cost ~2k instructions, a transaction
            if g.find(b"%") < 0:
                ct.src_key = key
                ct.src = src = g.join(cut)
                return src
        ts, commit_us, sid, file, thread, query, gtid = key
        ts_us = commit_us or ts * 1_000_000
        t = ct.env.table
        src = source_block(
            self.prefix,
            self.flavor.name,
            ts_us,
            "false",
            t.namespace,
            t.name,
            sid,
            gtid,
            file,
            0,
            0,
            thread,
            query,
        )
        ct.src_key = key
        ct.src = src
        ct.src_cut = None
        if not self.settings.structured:
            # "pos" and "row" are adjacent keys: their text cannot occur inside a JSON string (quotes escaped)
            raw = orjson.dumps(src)
            if raw.count(_POS_ROW) == 1:
                ct.src = raw.replace(b"%", b"%%").replace(_POS_ROW, b'"pos":%d,"row":%d')
                # where the GTID's JSON is: between `"gtid":` and `,"file":` (adjacent keys, as pos and row)
                mark = b'"gtid":' + orjson.dumps(gtid) + b',"file":'
                if b"%" not in mark and ct.src.count(mark) == 1:
                    at = ct.src.index(mark)
                    ct.src_cut = (ct.src[: at + 7], ct.src[at + len(mark) - 8 :])
        return ct.src


def mysql_original_commit_us(data: bytes) -> int:
    """The original_commit_timestamp of a MySQL (>= 8.0.1) GTID event, truncated to milliseconds, in µs;
    0 when the event has none. Body: flags(1) sid(16) gno(8) lt_type(1) last_committed(8) sequence(8)
    immediate_commit_timestamp(7, top bit: original follows) [original_commit_timestamp(7)]."""
    body = data[20:]
    if len(body) < 49 or body[25] != 2:
        return 0
    immediate = int.from_bytes(body[42:49], "little")
    original = immediate
    if immediate >> 55 and len(body) >= 56:
        immediate &= (1 << 55) - 1
        original = int.from_bytes(body[49:56], "little")
    return original // 1000 * 1000
