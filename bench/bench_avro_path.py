"""CPU per event of the PostgreSQL catch-up through a data-plane chain (Avro by default), without the network.

`bench_pg_path.py`'s replay with a data plane: real pgoutput messages of the `bench_pg.py` INSERT backlog
(1000-row transactions), replayed through the connector's handlers, the dispatcher, the data plane (the
fused Avro path for `--variant avro`) and the directory output, in this process. Reports CPU µs per event
(`time.process_time`, best of `--repeat`); with `--callgrind-markers` the replay runs once warm, then again
between two `os.getppid()` calls, so that

    valgrind --tool=callgrind --dump-before=getppid --callgrind-out-file=/tmp/cg.out \
        .venv/bin/python bench/bench_avro_path.py --rows 3000 --callgrind-markers   # /tmp/cg.out.2 / events

gives instructions per event free of other load's noise (callgrind_annotate /tmp/cg.out.2 for the split).
A benchmark, not a test.
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))
sys.path.insert(0, str(HERE))

import psycopg  # noqa: E402
from bench_converters import VARIANTS  # noqa: E402
from bench_pg_path import record, replay  # noqa: E402

from emulator.config import from_dict  # noqa: E402
from emulator.connect import dataplane  # noqa: E402
from emulator.connectors.postgres.connector import PostgresConnector  # noqa: E402
from emulator.engine import Engine  # noqa: E402
from emulator.offsets import MemoryOffsetStore  # noqa: E402
from emulator.outputs.directory import DirectoryOutput  # noqa: E402
from emulator.testing.pgserver import PgServer  # noqa: E402


def connector(pg: PgServer, out: Path, variant: str) -> PostgresConnector:
    cfg = from_dict(
        {
            "name": "bench-pg",
            "connector.class": "io.debezium.connector.postgresql.PostgresConnector",
            "plugin.name": "pgoutput",
            "database.hostname": "127.0.0.1",
            "database.port": str(pg.port),
            "database.user": "postgres",
            "database.password": "postgres",
            "database.dbname": "postgres",
            "topic.prefix": "bench",
            "offset.storage.file.filename": str(out / "offsets.dat"),
            **VARIANTS[variant],
        }
    )
    plane = dataplane.build(cfg)
    if plane is not None and plane is not dataplane.NONE:
        cfg = dataplane.internal_config(cfg)
    else:
        plane = None
    engine = Engine(DirectoryOutput(out / "topics"), MemoryOffsetStore(), dataplane=plane)
    conn = PostgresConnector(cfg, engine)
    conn.conn = psycopg.connect(conn.conninfo, autocommit=True)
    return conn


def marked(conn: PostgresConnector, msgs: list[tuple[int, bytes]]) -> int:
    """The whole replay, then its parts alone, each between two `os.getppid()` calls (callgrind dumps
    2, 3, ...): the pgoutput row parser, the data plane's `apply` on the records the connector handed it,
    the directory lines of its output, the directory output's `write` of them."""
    plane = conn.engine.dataplane
    records: list = []
    outs: list = []
    if plane is not None:
        apply = plane.apply

        def capture(r):
            records.append(r)
            out = apply(r)
            outs.append(out)
            return out

        plane.apply = capture
    replay(conn, msgs)
    if plane is not None:
        plane.apply = apply
    ct = next(iter(conn.by_id.values()))
    rows = [m for _, m in msgs if m[0] == 73]
    parse = ct.parse_row
    write = conn.engine.output.write
    os.getppid()
    n = replay(conn, msgs)[1]
    os.getppid()
    for m in rows:
        parse(m, 6)
    os.getppid()
    for r in records:
        apply(r)
    os.getppid()
    for o in outs:
        o.line()
    os.getppid()
    for o in outs:
        write(o)
    conn.engine.output.flush()
    os.getppid()
    print(f"marked: {n} events; dumps .2 replay, .3 parse_row, .4 plane.apply, .5 line, .6 output.write")
    return 0


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--rows", type=int, default=20000)
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--variant", default="avro", choices=sorted(VARIANTS))
    ap.add_argument(
        "--callgrind-markers",
        action="store_true",
        help="replay once (warm), then again between two os.getppid() calls: run under "
        "`valgrind --tool=callgrind --dump-before=getppid`; the second dump holds that replay alone",
    )
    args = ap.parse_args(argv)
    with PgServer() as pg, tempfile.TemporaryDirectory(prefix="bench-avro-path-") as tmp:
        ins, _ = record(pg, args.rows)
        conn = connector(pg, Path(tmp), args.variant)
        try:
            replay(conn, ins)  # warm: Relation messages, generated parsers and writers, registry
            msgs = [m for m in ins if m[1][0] != 82]
            if args.callgrind_markers:
                return marked(conn, msgs)
            best = min(replay(conn, msgs) for _ in range(args.repeat))
            print(f"{args.variant}: {best[0] / best[1] * 1e6:.2f} CPU-µs/event ({best[1]:,} events)")
        finally:
            conn.engine.output.close()
            conn.conn.close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
