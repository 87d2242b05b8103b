"""The binlog stream's rows made straight into their records' directory lines (`row_lines.py`): which tables
take that path, and a rows event's rows through it. A mixin of MySqlBinlogStream (`_on_rows` decides per
event whether its rows go this way or as dicts through the dispatcher's change function)."""

from __future__ import annotations

import time

import orjson

from emulator.connectors.mysql import binlog as bl
from emulator.connectors.mysql.captured import CapturedTable, TableEntry
from emulator.connectors.mysql.row_lines import (
    NS_RANGE,
    TX_ID,
    LineDecoders,
    compile_line_decoders,
    line_formats,
)
from emulator.connectors.mysql.types import EventConversionError

_time_ns = time.time_ns
_header = bl.HEADER.unpack_from
_dumps = orjson.dumps
_NS_LO, _NS_HI = NS_RANGE


class BinlogLines:
    """Rows as records' lines: the line decoders of a table map, and the rows of an event through them."""

    def _on_rows(self, etype: int, body: bytes, checksum: int) -> None:
        """A rows event: `body` is the whole packet (OK byte, 19-byte header, body, checksum): the decoders
        read it in place (no copy of the event body). Its rows as lines the table's way (`_lines`), else
        through the general path (MySqlBinlogStream._rows)."""
        ts, _t, sid, size, next_pos = _header(body, 1)
        self._ts = ts
        self._sid = sid
        self._start = start = next_pos - size if next_pos else 0
        self._next = next_pos
        end = len(body) - checksum
        entry = self.table_ids.get(body[20:26])  # by the table id's bytes (no int made per event)
        # straight into the records' lines the way the table's last event of this type went (its `head`: the
        # bytes after the table id, every column present), when nothing else of this event needs the general
        # path's checks: the same schema epoch, no restart skipping events, no incremental snapshot window
        # open (it reads the rows); the source block's format made again only when its parts changed
        way = entry.ways.get(etype) if entry is not None else None
        if (
            way is not None
            and entry.epoch == self.schema_epoch
            and not (self.skip_events or self.skip_rows)
            and body.startswith(way.head, 26)
            and way.start < end
            and not self.incremental.window_open
        ):
            # the event's second and the commit time as they are (ts_us made only for a new template): a
            # product per event made a new int to compare (~570 of this check's ~1,670 instructions)
            key = (ts, self.commit_ts_us, sid, self.file, self.thread, self.query, self.gtid)
            if key != way.key:
                self._line_source(way, entry.ct, key)
            first = None
            if way.tx is None:
                # without transaction metadata, a statement's one row: `_lines` in this frame (its call and
                # checks were ~40 of the ~330 bytecodes an UPDATE event ran in Python, session 22)
                ns = _time_ns()
                if _NS_LO <= ns < _NS_HI:
                    first = way.decode(body, way.start, way.fmt, start, 0, ns)
                    line, p = first
                    if line is not None and p >= end:
                        way.gate(way.op, line)
                        self.last_row = 0
                        if self.in_tx:  # _event_done, inline
                            self.rows_done = 0
                        else:
                            self.rows_done = 1
                            self.next_pos = next_pos
                            self.query = None
                        self.events_done += 1
                        if ts:
                            self.last_ts_ms = ts * 1000
                        return
            if (first is None or first[0] is not None) and self._lines(way, body, way.start, end, first):
                self.events_done += 1
                if ts:
                    self.last_ts_ms = ts * 1000
                return
        self._rows(etype, body, end, entry)
        if ts:
            self.last_ts_ms = ts * 1000

    def _line_decoders(self, ct: CapturedTable, tm: bl.TableMap, outputs: list) -> LineDecoders | None:
        """The rows of `ct` as records' lines (row_lines.py), or None: as dicts. Refused, as PostgreSQL's line
        path: the data plane (it takes records in their parts), the signal table (its rows are read); and an
        envelope whose format is not the expected one. Also event.processing.failure.handling.mode warn|skip: a
        row that cannot be converted is dropped on the dict path only (failed_rows.py). With transaction
        metadata the lines hold the transaction block (`_lines`), counted by the line gates."""
        if self.settings.structured or ct.line_gate is False or self.failure_mode != "fail":
            return None
        if self.tx.enabled and self.mariadb_server and not self.flavor.mariadb:
            # the MySqlConnector on MariaDB opens no transaction (it does not read MariaDB GTID events, and MariaDB
            # writes no QUERY BEGIN): no block in its rows, and `_lines` would refuse each event (~10% more
            # instructions an UPDATE than the dict path alone)
            return None
        env = ct.env
        formats = getattr(env, "_after_formats", None)  # the envelope's line format per op: its cuts
        if ct.line_gate is None:
            gate = None
            if formats is not None:
                _fmt, vstart, vtail = formats["c"]
                gate = self.dispatcher.table_line(env, ct.data_collection, vstart, vtail)
                ct.line_gate_d = self.dispatcher.table_line_delete(env, ct.data_collection, vstart, vtail)
            ct.line_gate = gate if gate is not None and ct.line_gate_d is not None else False
            if gate is None:
                return None
        value, key = env.json_fields()
        tx = self.tx.enabled
        lines = compile_line_decoders(tm, outputs, value, key, tx)
        if lines is None:
            return None
        engine = self.engine
        # the directory output's gate takes the line alone (Dispatcher.table_line): the key in the line's format
        whole = hasattr(engine, "line_writer") and engine.line_writer() is not None
        formats = line_formats(env, lines.value_format, lines.key_format if whole else None, tx)
        if formats is None:
            return None
        lines.formats = formats
        return lines

    def _line_ops(self, env) -> frozenset[str]:
        """The operations whose rows go as lines for a table with line decoders: INSERT, UPDATE and DELETE
        (with its tombstone), not a skipped one (the dict path drops its whole event, as Debezium's binlog
        reader), not UPDATE with skip.messages.without.change (it compares the rows). A key field whose NULL
        prints its column's default (`env.key_defaults`) is compared NULL-aware by the UPDATE's line decoder
        (NULL -> the default is a key change, for the dict path; mariadb case key_null_default_notx)."""
        d = self.dispatcher
        ops = {"c", "u", "d"} - d.skipped
        if d.skip_unchanged:
            ops.discard("u")
        return frozenset(ops)

    def _line_way(self, entry: TableEntry, ct: CapturedTable, etype: int, op: str, head: bytes) -> LineWay:
        """`entry`'s line way for rows events of type `etype` whose bytes between the table id and the
        first row are `head` (kept in `entry.ways`: `_on_rows` takes it without the general path's checks)."""
        lines = entry.lines
        around = lines.formats.get(op + "k")  # the key in the line's format (LineDecoders.insert_k)
        if around is not None:
            decode = lines.update_k if op == "u" else lines.insert_k
        else:
            decode = lines.update if op == "u" else lines.insert  # a DELETE's one image: `insert`, as before
            around = lines.formats[op]
        way = LineWay(head, op, decode, ct.line_gate_d if op == "d" else ct.line_gate, around)
        if self.tx.enabled:
            way.tx, way.dc = self.tx, ct.data_collection
        entry.ways[etype] = way
        return way

    def _line_source(self, way: LineWay, ct: CapturedTable, key: tuple) -> None:
        """`way.fmt` for the source block of `key` (`MySqlBinlogStream._src_template`'s)."""
        cut = way.cut
        if cut is not None and key[:6] == way.key[:6]:
            # a new transaction within the same second and statement (one-row transactions): only the GTID
            # differs, its JSON put into the whole line's format where the template has it (as _src_template
            # puts it into the template: the same bytes), without the template and a second ~4.5 KB copy
            g = _dumps(key[6])
            if g.find(b"%") < 0:  # (find: see _src_template)
                way.key = key
                way.fmt = g.join(cut)
                return
        src = ct.src if ct.src_key == key else self._src_template(ct, key)
        way.key = key
        if way.tx is not None:
            way.src = src
            self._line_tx_id(way)
            return
        way.fmt = src.join(way.around)  # one copy of the ~4.5 KB line (`pre + src + post` made two)
        # the line's format cut where the GTID's JSON goes, for the next transactions' (ct.src_cut belongs to
        # ct.src_key, here `key`)
        tcut = ct.src_cut
        way.cut = None if tcut is None else (way.around[0] + tcut[0], tcut[1] + way.around[1])

    def _line_tx_id(self, way: LineWay) -> None:
        """`way.fmt` for the transaction block of the open transaction (its id in the text after the source)."""
        pre, post = way.around
        tx_id = way.tx_id = way.tx.begin_id
        idj = _dumps(tx_id).replace(b"%", b"%%") if tx_id is not None else b"null"
        way.fmt = way.src.join((pre, post.replace(TX_ID, idj, 1)))

    def _lines(
        self, way: LineWay, body: bytes, p: int, end: int, first: tuple | None = None, counted: bool = False
    ) -> bool:
        """The rows of an event (`body[p:end]`) made straight into their records' lines (`row_lines.py`) and
        emitted, `way.fmt` made for the event's source; False, nothing emitted, when an UPDATE changes a
        row's key (the dict path makes its delete and create) or the clock is outside row_lines.NS_RANGE.

        With transaction metadata (`way.tx`) each line holds its transaction block, the orders the gate then
        counts (`TransactionMonitor.count`: BEGIN first when due), as the dict path's `event_block`; False also
        outside a transaction (no block: the dict path's null). One body for both (review item D16): the
        decoders differ only in the two orders they take after `ns`. `first`: the first row's decoder result
        (`_on_rows` made it: an event of more rows), not made again. `counted`: the caller (`_rows`) counted
        the event in events_done already (for `_rows_failed`)."""
        tx = way.tx
        if tx is not None:
            if not self.in_tx or tx.begin_id is None:
                return False
            if tx.begin_id is not way.tx_id:
                self._line_tx_id(way)
        decode, fmt = way.decode, way.fmt
        pos = self._start
        try:
            if first is not None:
                line, p = first
            elif (ns := _time_ns()) < _NS_LO or ns >= _NS_HI:
                return False  # a clock whose ns text is not 19 digits (row_lines._TIMES): as dicts
            elif tx is None:
                line, p = decode(body, p, fmt, pos, 0, ns)
            else:
                total = tx.total + 1
                order = tx.per_collection.get(way.dc, 0) + 1
                line, p = decode(body, p, fmt, pos, 0, ns, total, order)
        except (
            EventConversionError
        ):  # the first row: none emitted, the event not done (`counted`: by `_rows`)
            self._rows_failed(0, counted)
            raise
        if line is None:
            return False
        # the gate's answer (False: an incremental snapshot window is open) is not read: the caller checked
        # the window, and nothing between here and the output opens one (signal-table rows never come here)
        if p < end:  # every row of the event is made before any is emitted (an UPDATE of a key: as dicts)
            lines = [line]
            try:
                while p < end:
                    k = len(lines)
                    if tx is None:
                        line, p = decode(body, p, fmt, pos, k, _time_ns())
                    else:
                        line, p = decode(body, p, fmt, pos, k, _time_ns(), total + k, order + k)
                    if line is None:
                        return False
                    lines.append(line)
            except EventConversionError:  # (this way only with failure mode "fail": `_line_decoders`)
                for made in lines:  # the rows before the one Debezium stops at are its records (see `_rows`)
                    way.gate(way.op, made)
                self.last_row = len(lines) - 1
                self._rows_failed(len(lines), counted)
                raise
            gate, op = way.gate, way.op
            for line in lines:
                gate(op, line)
            row = len(lines)
        else:  # one row (a statement's): no list
            way.gate(way.op, line)
            row = 1
        self.last_row = row - 1
        if self.in_tx:  # _event_done, inline (always, with transaction metadata: checked above)
            self.rows_done = 0
        else:
            self.rows_done = row
            self.next_pos = self._next
            self.query = None
        return True


class LineWay:
    """How the rows of one table map's rows events of one type go as lines: the bytes between the table id
    and the first row (`head`, every column present), the operation, the line decoder, the dispatcher's gate
    and the line format around the source block (`around`); `fmt`, the whole format, for the source of
    `key` (and the transaction `tx_id`)."""

    __slots__ = (
        "head",
        "start",
        "op",
        "decode",
        "gate",
        "around",
        "key",
        "fmt",
        "tx",
        "dc",
        "src",
        "tx_id",
        "cut",
    )

    def __init__(self, head: bytes, op: str, decode, gate, around: tuple[bytes, bytes]) -> None:
        self.head, self.op, self.decode, self.gate, self.around = head, op, decode, gate, around
        self.start = 26 + len(head)  # the first row
        self.key: tuple | None = None
        self.fmt = b""
        # without transaction metadata: `fmt` cut where the source block's GTID JSON goes (`_line_source`), or None
        self.cut: tuple[bytes, bytes] | None = None
        # with transaction metadata: the monitor, the table's collection, the source template and the
        # transaction id `fmt` holds (`_line_tx_id`)
        self.tx = None
        self.dc = ""
        self.src = b""
        self.tx_id: str | None = None
