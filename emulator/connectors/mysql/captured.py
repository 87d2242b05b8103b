"""Per-table state shared by the MySQL connector's parts: the captured table, the binlog table-map
entry bound to it, the system databases never captured and SQL identifier quoting."""

from __future__ import annotations

from typing import Any

from emulator.connectors.mysql import binlog as bl
from emulator.connectors.mysql.ddl import Table
from emulator.envelope import TableEnvelope

SYSTEM_DATABASES = ("mysql", "information_schema", "performance_schema", "sys")


class TableEntry:
    """A table-map layout, bound to its captured table and row decoders (one image; an UPDATE's two) for one
    schema epoch."""

    __slots__ = (
        "tm",
        "epoch",
        "ct",
        "dec",
        "dec2",
        "lines",
        "line_ops",
        "ways",
        "heads",
    )

    def __init__(self, tm: bl.TableMap) -> None:
        self.tm = tm
        self.epoch = -1
        self.ct = None
        self.dec = None
        self.dec2 = None
        # the line decoders (row_lines.LineDecoders, None: rows go as dicts), the operations whose rows go
        # as lines, and per rows event type the way they go (stream_lines.LineWay, made when first used)
        self.lines: Any = None
        self.line_ops: frozenset[str] = frozenset()
        self.ways: dict[int, Any] = {}
        # per rows event type: the bytes between the table id and the first row of its last event with
        # every column present (flags, extra data, column count, bitmaps; BinlogLines._on_rows)
        self.heads: dict[int, bytes] = {}


class CapturedTable:
    __slots__ = (
        "env",
        "keep",
        "data_collection",
        "decoders",
        "table",
        "ncols",
        "gate",
        "line_gate",
        "line_gate_d",
        "src",
        "src_key",
        "src_cut",
    )

    def __init__(self, env: TableEnvelope, keep: list[int] | None, table: Table) -> None:
        self.env = env
        self.keep = keep
        self.data_collection = env.table.id
        self.decoders: dict[bytes, Any] = {}
        self.table = table
        self.ncols = len(table.columns)
        self.gate: Any = None  # the dispatcher's change function for this table, made on first use
        # its change function for records made as lines (Dispatcher.table_line; False: refused)
        self.line_gate: Any = None
        self.line_gate_d: Any = None  # ... and for DELETEs (Dispatcher.table_line_delete)
        # the source block of its rows but for `pos` and `row` (MySqlBinlogStream._src_template), and what
        # it was made for
        self.src: Any = None
        self.src_key: tuple | None = None
        # `src` as JSON bytes cut around its GTID's text (None: not cut), for the next transaction's
        self.src_cut: tuple[bytes, bytes] | None = None


def quote_id(name: str) -> str:
    return "`" + name.replace("`", "``") + "`"
