"""The binlog stream's rows made straight into their records' directory lines (`row_lines.py`): which tables
take that path, and a rows event's rows through it. A mixin of MySqlBinlogStream (`_on_rows` decides per
event whether its rows go this way or as dicts through the dispatcher's change function)."""

from __future__ import annotations

import time

from emulator.connectors.mysql import binlog as bl
from emulator.connectors.mysql.captured import CapturedTable, TableEntry
from emulator.connectors.mysql.row_lines import LineDecoders, compile_line_decoders, line_formats

_time_ns = time.time_ns


class BinlogLines:
    """Rows as records' lines: the line decoders of a table map, and the rows of an event through them."""

    def _line_decoders(self, ct: CapturedTable, tm: bl.TableMap, outputs: list) -> LineDecoders | None:
        """The rows of `ct` as records' lines (row_lines.py), or None: as dicts. Refused, as PostgreSQL's line
        path: the data plane (it takes records in their parts), transaction metadata (a block per record),
        the signal table (its rows are read); and an envelope whose format is not the expected one. Also
        event.processing.failure.handling.mode warn|skip: a row that cannot be converted is dropped on the
        dict path only (failed_rows.py)."""
        if (
            self.settings.structured
            or self.tx.enabled
            or ct.line_gate is False
            or self.failure_mode != "fail"
        ):
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
        lines = compile_line_decoders(tm, outputs, value, key)
        if lines is None:
            return None
        formats = line_formats(env, lines.value_format)
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

    def _rows_as_lines(
        self, entry: TableEntry, ct: CapturedTable, op: str, body: bytes, p: int, end: int, src: bytes
    ) -> bool:
        """`_on_rows` for rows made straight into their records' lines (`row_lines.py`); False, nothing
        emitted, when an UPDATE changes a row's key (the dict path makes its delete and create)."""
        if entry.line_src is not src:  # a new source template: the line formats are made again when used
            entry.line_src = src
            entry.line_fmts = {}
        fmt = entry.line_fmts.get(op)
        if fmt is None:
            pre, post = entry.lines.formats[op]
            fmt = entry.line_fmts[op] = pre + src + post
        # a DELETE has one image: `insert` decodes it, and the DELETE's format prints it as the before
        decode = entry.lines.update if op == "u" else entry.lines.insert
        gate = ct.line_gate_d if op == "d" else ct.line_gate
        pos = self._start
        # its answer (False: an incremental snapshot window is open) is not read: _on_rows checked the window,
        # and nothing between here and the output opens one (signal-table rows never come this way)
        line, p = decode(body, p, fmt, pos, 0, _time_ns())
        if line is None:
            return False
        if p < end:  # every row of the event is converted before any is emitted (see _on_rows)
            lines = [line]
            while p < end:
                line, p = decode(body, p, fmt, pos, len(lines), _time_ns())
                if line is None:
                    return False
                lines.append(line)
            for line in lines:
                gate(op, line)
            row = len(lines)
        else:  # one row (a statement's): no list
            gate(op, line)
            row = 1
        self.last_row = row - 1
        self._event_done(row)
        return True
