"""CPU per row of the PostgreSQL snapshot's per-row path, by stage, in this process (no start-up, no fork).

    PYTHONPATH=$PWD .venv/bin/python bench/bench_snapshot_path.py --rows 100000 --repeat 3
    PYTHONPATH=$PWD .venv/bin/python bench/bench_snapshot_path.py --port 5432 --repeat 3   # a server with
                                                                     # bench_pg.py's `bench` table loaded

The connector's own snapshot session (`PostgresConnector.snapshot_session`, one connection, the code
`python -m emulator run` runs with snapshot.max.threads=1) over bench_pg.py's table, stage by stage:

  read      the session's `rows_of` (COPY from the server, rows as column texts), rows dropped
  values    `snapshot_row` over rows already in memory (the column converters)
  envelope  the session's `emit` over rows in memory into an output that drops the record
  write     the same into a DirectoryOutput (`--out DIR`, default a temporary directory: put it on tmpfs,
            e.g. /dev/shm, to leave the disk out). (envelope and write hand `emit` the table of the first session,
            which the session's per-table records do not know: they measure `TableEnvelope.change`, the generic
            path, not the snapshot's own ReadRecords / C lines, which `total` runs)
  total     `run_snapshot` as the coordinator calls it (markers included) into the DirectoryOutput
  reader-py a forked reader's own work with 2 readers and the directory output (snapshot.max.threads=2): the
            rows read by COPY (copy_rows) into their compact lines (ReadRecords.line) in batches (renderer)
  reader-c  the same from COPY's messages (copy_raw) through the C lines (snapshot_lines.raw_line; skipped
            where the extension is not built)
  lines-py, lines-c  the two readers' line making alone, over the rows already in memory

CPU µs per row (`time.process_time`, best of `--repeat`). A benchmark, not a test.
"""

from __future__ import annotations

import argparse
import collections
import os
import shutil
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))
sys.path.insert(0, str(HERE))

from bench_pg import COLUMNS, DDL, ROW_EXPR, TABLE  # noqa: E402

from emulator import linefill  # noqa: E402
from emulator.config import from_dict  # noqa: E402
from emulator.connectors.postgres.connector import PostgresConnector  # noqa: E402
from emulator.connectors.postgres.copy_text import copy_raw, copy_rows  # noqa: E402
from emulator.connectors.postgres.snapshot_lines import raw_line  # noqa: E402
from emulator.engine import Engine  # noqa: E402
from emulator.offsets import MemoryOffsetStore  # noqa: E402
from emulator.outputs.base import Output  # noqa: E402
from emulator.outputs.directory import DirectoryOutput  # noqa: E402
from emulator.pipeline.snapshot_chunks import Piece, renderer  # noqa: E402
from emulator.pipeline.snapshot_records import ReadRecords  # noqa: E402
from emulator.snapshot import run_snapshot  # noqa: E402
from emulator.testing.pgserver import PgServer  # noqa: E402


class DropOutput(Output):
    def write(self, record) -> None:
        pass

    def flush(self) -> None:
        pass

    def commit(self) -> None:
        pass

    def close(self) -> None:
        pass


def connector(port: int, output: Output) -> PostgresConnector:
    cfg = from_dict(
        {
            "name": "bench-pg",
            "connector.class": "io.debezium.connector.postgresql.PostgresConnector",
            "plugin.name": "pgoutput",
            "database.hostname": "127.0.0.1",
            "database.port": str(port),
            "database.user": "postgres",
            "database.password": "postgres",
            "database.dbname": "postgres",
            "topic.prefix": "bench",
            "table.include.list": f"public.{TABLE}",
            "offset.storage.file.filename": "/dev/null",
        }
    )
    conn = PostgresConnector(cfg, Engine(output, MemoryOffsetStore()))
    conn.connect()
    conn._exported = None  # a session of its own (SERIALIZABLE DEFERRABLE), no slot
    conn._start_lsn = None
    return conn


MARKERS: list[str] = []  # --callgrind-markers: the stages measured, in order


def cpu(fn, name: str = "") -> float:
    """fn's CPU time; with --callgrind-markers between two os.getppid() calls (`valgrind --tool=callgrind
    --dump-before=getppid`: the stage's instructions alone in a dump of their own)."""
    if MARKERS:
        os.getppid()
        MARKERS.append(name)
    t = time.process_time()
    fn()
    t = time.process_time() - t
    if MARKERS:
        os.getppid()
    return t


def stages(port: int, out: Path) -> dict[str, float]:
    drop = connector(port, DropOutput())
    res: dict[str, float] = {}
    with drop.snapshot_session(True) as s:
        (ct,) = s.tables
        res["read"] = cpu(lambda: collections.deque(s.rows_of(ct), maxlen=0))
    with drop.snapshot_session(True) as s:
        rows = list(s.rows_of(ct))
    n = len(rows)
    env = ct.env
    res["values"] = cpu(lambda: [env.snapshot_row(r) for r in rows])
    with drop.snapshot_session(True) as s:
        emit = s.emit
        res["envelope"] = cpu(lambda: [emit(ct, r, "true") for r in rows])
    shutil.rmtree(out, ignore_errors=True)
    d = DirectoryOutput(out)
    direct = connector(port, d)
    with direct.snapshot_session(True) as s:
        emit = s.emit
        res["write"] = cpu(lambda: ([emit(ct, r, "true") for r in rows], d.flush()))
    shutil.rmtree(out, ignore_errors=True)
    d = DirectoryOutput(out)
    direct = connector(port, d)
    with direct.snapshot_session(True) as s:
        res["total"] = cpu(
            lambda: (run_snapshot(s.tables, s.rows_of, s.emit, markers=s.markers), d.flush()), "total"
        )
    d.close()
    shutil.rmtree(out, ignore_errors=True)
    res.update(reader_stages(drop, ct, rows))
    for c in (drop, direct):
        c.conn.close()
    return {k: v / n * 1e6 for k, v in res.items()}


def reader_stages(conn: PostgresConnector, ct, rows: list) -> dict[str, float]:
    """A forked reader's per-row work (snapshots.py `_parallel_reads`' open_reader with the lines), Python and C."""
    env = ct.env
    t = env.table
    src = conn.source(time.time_ns() // 1000, "true", None, t.namespace, t.name, 1, 1)
    rr = ReadRecords(env, lambda mark: {**src, "snapshot": mark})
    query = f"COPY (SELECT {', '.join(c.name for c in t.columns)} FROM {t.name}) TO STDOUT"
    pieces, by_table = [Piece(ct)], {t.id: [0]}
    res = {}
    paths = [("py", rr.line, copy_rows, list)]
    if linefill.PG is not None:
        paths.append(("c", raw_line(rr, "utf-8"), copy_raw, bytes))
    for name, line, read, held in paths:
        render = renderer([ct], lambda *a: "true", lambda env, line=line: line, held, True)

        def one(render=render, read=read) -> None:
            collections.deque(render(pieces, by_table, 0, read(conn.conn, query)), maxlen=0)

        res[f"reader-{name}"] = cpu(one, f"reader-{name}")
        mem = list(read(conn.conn, query)) if read is copy_raw else rows
        res[f"lines-{name}"] = cpu(lambda line=line, mem=mem: [line(r, "true") for r in mem], f"lines-{name}")
    return res


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--rows", type=int, default=100_000)
    ap.add_argument("--port", type=int, help="use this server's loaded `bench` table")
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--out", help="directory for the DirectoryOutput (default: a temporary one)")
    ap.add_argument(
        "--callgrind-markers",
        action="store_true",
        help="each of the stages total, reader-py, lines-py, reader-c, lines-c between two os.getppid() calls "
        "(run under `valgrind --tool=callgrind --dump-before=getppid`; with --port: the server outside "
        "valgrind); prints the stages in the order of their dumps",
    )
    args = ap.parse_args()
    if args.callgrind_markers:
        MARKERS.append("start")
    with tempfile.TemporaryDirectory(prefix="bench-snapshot-path-", dir=args.out) as tmp:
        out = Path(tmp) / "topics"
        if args.port:
            runs = [stages(args.port, out) for _ in range(args.repeat)]
        else:
            with PgServer() as pg:
                pg.psql(
                    DDL
                    + f"INSERT INTO {TABLE} ({COLUMNS}) SELECT {ROW_EXPR} FROM generate_series(1, {args.rows}) g;"
                    f"VACUUM (ANALYZE) {TABLE}; CHECKPOINT;"
                )
                runs = [stages(pg.port, out) for _ in range(args.repeat)]
    best = {k: min(r[k] for r in runs) for k in runs[0]}
    print("CPU-µs per row, best of", len(runs), ":", ", ".join(f"{k} {v:.2f}" for k, v in best.items()))
    if MARKERS:  # dump 1: the start; then per stage its own dump and the steps to the next one
        print("callgrind dumps:", ", ".join(f"{2 * k}: {m}" for k, m in enumerate(MARKERS[1:], 1)))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
