"""The incremental-snapshot window machine on its own (emulator/incremental/machine.py), DBLog style: a
table held as a list of rows behind the ChunkReader surface, stream events fed by hand, and the records the
machine emits compared with what the DBLog algorithm (Debezium's AbstractIncrementalSnapshotChangeEventSource)
prescribes, written out by hand. The database side of the same scenarios runs against real servers in
tests/test_incremental.py and tests/test_incremental_mariadb.py.
"""

from __future__ import annotations

import ast
from pathlib import Path

from emulator.incremental import state, watermarks
from emulator.incremental.conditions import SqlFilters
from emulator.incremental.machine import IncrementalSnapshot
from emulator.settings import Incremental

ROOT = Path(__file__).resolve().parent.parent


class Env:
    """The part of a TableEnvelope the machine uses: column names, key names, rows, change records."""

    names = ["id", "v"]
    key_names = ["id"]

    @staticmethod
    def snapshot_row(raw: list) -> dict:
        return {"id": raw[0], "v": raw[1]}

    @staticmethod
    def change(op, before, after, src, block, key, headers=None):
        return (op, key["id"], after["v"], src)


class Table:
    def __init__(self, rows: dict[int, str]) -> None:
        self.env = Env()
        self.rows = rows


class Source:
    """The connector side: an in-memory table, the watermark rows written, the chunk reads asked for."""

    def __init__(self, rows: dict[int, str]) -> None:
        self.table = Table(rows)
        self.watermarks: list[tuple[str, str]] = []  # (kind, row id suffix)
        self.reads: list[tuple] = []

    def captured_table_ids(self) -> list[str]:
        return ["s.t"]

    def table_by_id(self, table_id: str):
        return self.table if table_id == "s.t" else None

    def max_key(self, ct, key_cols, condition):
        return [max(ct.rows)] if ct.rows else None

    def read_chunk(self, ct, key_cols, after, upto, limit, condition):
        self.reads.append((after, upto, limit))
        keys = [k for k in sorted(ct.rows) if (after is None or k > after[0]) and k <= upto[0]]
        return [[k, ct.rows[k]] for k in keys[:limit]]

    def read_source(self, ct) -> str:
        return "src"

    def keep_alive(self) -> None:
        pass

    def write_watermark(self, row_id: str, kind: str, data: str) -> None:
        self.watermarks.append(("write", kind, row_id.rsplit("-", 1)[1]))

    def delete_watermark(self, row_id: str) -> None:
        self.watermarks.append(("delete", row_id.rsplit("-", 1)[1]))


class Engine:
    stopping = False

    def __init__(self) -> None:
        self.emitted: list[tuple] = []

    def emit(self, rec) -> None:
        self.emitted.append(rec)

    def tick(self) -> None:
        pass


def machine(
    rows: dict[int, str], strategy: str = "insert_insert"
) -> tuple[IncrementalSnapshot, Source, Engine]:
    inc = Incremental(
        chunk_size=2, watermarking_strategy=strategy, allow_schema_changes=False, read_only=False
    )
    source, engine = Source(rows), Engine()
    m = IncrementalSnapshot(
        source,
        engine,
        incremental=inc,
        signal_table="s.signal",
        filters=SqlFilters("postgres"),
        retriable=lambda e: False,
    )
    return m, source, engine


def open_and_close(m: IncrementalSnapshot, between=()) -> None:
    """The stream delivers the window's open row, then `between` (changes), then the close row."""
    cid = m.chunk_id
    m.on_watermark(f"{cid}-open", watermarks.OPEN)
    for table_id, key in between:
        m.on_stream_event(table_id, {"id": key}, None)
    m.on_watermark(f"{cid}-close", watermarks.CLOSE)


def test_insert_insert_windows_drop_keys_changed_inside_them():
    m, source, engine = machine({1: "a", 2: "b", 3: "c", 4: "d", 5: "e"})
    m.start("sig-1", [state.entry("s.t", None, None)])
    # open row written, chunk 1..2 read up to the maximum key 5, close row written; nothing emitted yet
    assert source.watermarks == [
        ("write", "snapshot-window-open", "open"),
        ("write", "snapshot-window-close", "close"),
    ]
    assert source.reads == [(None, [5], 2)]
    assert engine.emitted == [] and m.running
    # a change of key 2 before the window opens is older than the chunk: the read of 2 stays
    m.on_stream_event("s.t", {"id": 2}, None)
    # inside the window: key 1 changes (its read is dropped), another table's key 2 does not matter
    open_and_close(m, [("s.t", 1), ("s.other", 2)])
    assert engine.emitted == [("r", 2, "b", "src")]
    assert m.offset()[state.PRIMARY_KEY] == [2]
    # the close emitted the window and opened the next one: keys 3..4
    assert source.reads[-1] == ([2], [5], 2)
    open_and_close(m)
    open_and_close(m)  # key 5; the table is done inside the next window, which is the last, empty one
    assert [e[1] for e in engine.emitted] == [2, 3, 4, 5]
    open_and_close(m)
    assert not m.running and m.offset() is None
    assert len(source.reads) == 4  # 1..2, 3..4, 5, and the empty read that finishes the table


def test_insert_delete_emits_each_chunk_at_once_and_leaves_no_rows():
    m, source, engine = machine({1: "a", 2: "b", 3: "c"}, "insert_delete")
    m.start("sig-1", [state.entry("s.t", None, None)])
    assert [e[1] for e in engine.emitted] == [1, 2, 3]
    assert source.watermarks == [("write", "snapshot-window-open", "open"), ("delete", "open")] * 3
    assert not m.running


def test_restart_resumes_after_the_last_emitted_chunk():
    m, source, engine = machine({1: "a", 2: "b", 3: "c", 4: "d", 5: "e"})
    m.start("sig-1", [state.entry("s.t", None, None)])
    open_and_close(m)  # 1..2 emitted; 3..4 read, its window not yet closed
    stored = m.offset()
    assert stored[state.PRIMARY_KEY] == [2] and stored[state.MAXIMUM_KEY] == [5]
    assert stored[state.CORRELATION_ID] == "sig-1"

    m2, source2, engine2 = machine({1: "a", 2: "b", 3: "c", 4: "d", 5: "e"})
    m2.restore(stored)
    assert engine2.emitted == [] and source2.reads == []  # nothing happens before the stream polls
    m2.poll()
    assert source2.reads == [([2], [5], 2)]  # the unfinished window's rows are read again
    open_and_close(m2)
    assert [e[1] for e in engine2.emitted] == [3, 4]


def test_schema_change_reads_the_window_again_and_ignores_the_old_close_row():
    m, source, engine = machine({1: "a", 2: "b", 3: "c"})
    m.start("sig-1", [state.entry("s.t", None, None)])
    old = m.chunk_id
    m.on_watermark(f"{old}-open", watermarks.OPEN)
    m.on_schema_change("s.t")
    assert m.chunk_id != old and source.reads[-1] == (None, [3], 2)
    m.on_watermark(f"{old}-close", watermarks.CLOSE)  # the discarded window's close row
    assert engine.emitted == []
    open_and_close(m)
    assert [e[1] for e in engine.emitted] == [1, 2]


def test_pause_and_resume_hold_the_next_window():
    m, source, engine = machine({1: "a", 2: "b", 3: "c"})
    m.start("sig-1", [state.entry("s.t", None, None)])
    m.pause("p")
    open_and_close(m)
    assert [e[1] for e in engine.emitted] == [1, 2]
    assert m.chunk_id is None and len(source.reads) == 1  # no new window while paused
    m.resume("r")
    assert len(source.reads) == 2
    open_and_close(m)
    assert [e[1] for e in engine.emitted] == [1, 2, 3]


# -- layering -------------------------------------------------------------------------------------------------

FORBIDDEN = (
    "emulator.runner",
    "emulator.connectors",
    "emulator.preflight",
    "emulator.api",
    "emulator.engine",
    "emulator.pipeline",
    "emulator.worker",
)


def _imports(path: Path) -> set[str]:
    out = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.ImportFrom) and node.module:
            out.add(node.module)
        elif isinstance(node, ast.Import):
            out.update(a.name for a in node.names)
    return out


def test_signals_and_incremental_import_no_connector_runner_or_pipeline():
    for pkg in ("incremental", "signals"):
        for path in sorted((ROOT / "emulator" / pkg).glob("*.py")):
            bad = sorted(m for m in _imports(path) if m.startswith(FORBIDDEN))
            assert not bad, f"{path.relative_to(ROOT)} imports {bad}"


def test_the_machine_does_no_sql_and_no_io():
    mods = _imports(ROOT / "emulator" / "incremental" / "machine.py")
    assert not mods & {"psycopg", "pymysql", "pymongo", "sqlglot", "os", "socket", "confluent_kafka"}
    assert "emulator.signals.processor" not in mods and "emulator.signals.channels" not in mods
