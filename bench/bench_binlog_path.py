"""CPU per row event of the MySQL/MariaDB connector's per-event path, without a server or the network.

Builds binlog packets in MySQL's shapes (as tests/test_mysql_flavour.py does: table map, WRITE_ROWS v2,
UPDATE_ROWS v2 and DELETE_ROWS v2 (each delete with its tombstone) of a 4-column table, 10 rows per event,
BEGIN/XID around every event) and feeds them to `MySqlConnector.handle_event` with the engine's `tick`,
into a `DirectoryOutput`: decode -> row dicts -> dispatcher -> envelope -> JsonConverter bytes -> output. Reports CPU µs per row (`time.process_time`, best
of `--repeat`). Compare two trees in one sitting:

    PYTHONPATH=/work/main /work/main/.venv/bin/python bench/bench_binlog_path.py --rows 50000
    PYTHONPATH=$PWD       /work/main/.venv/bin/python bench/bench_binlog_path.py --rows 50000

`--dicts` also replays with the line path refused (every row as dicts through the dispatcher, what the data
plane and the signal table still take), interleaved with it, and prints the ratio.

`--mariadb --save F` keeps the real packets (and the connector properties) in F; `--load F` replays them
without a server. Instructions per row, load-independent (the replay once to warm up, then again between
two `os.getppid()` calls; the second dump holds that replay alone):

    valgrind --tool=callgrind --dump-before=getppid --callgrind-out-file=/tmp/cg.out \
        .venv/bin/python bench/bench_binlog_path.py --load F --callgrind-markers UPDATE  # /tmp/cg.out.2 / rows

`--catchup` measures the whole catch-up instead, socket reads and stream loop included (`binlog_catchup.py`:
a throwaway MariaDB, the connector in this process on bench_mariadb.py's INSERT, UPDATE then DELETE backlog of
`--rows` events): CPU µs per event, user and system, best of `--repeat`; with `--callgrind-markers` the
second dump holds that drain alone:

    valgrind --tool=callgrind --dump-before=getppid --callgrind-out-file=/tmp/cg.out \
        .venv/bin/python bench/bench_binlog_path.py --catchup --rows 20000 --callgrind-markers INSERT

`--catchup --tx-rows K`: the backlogs' statements K per transaction (default 1000): 1 is a catch-up of one-row
transactions, where each transaction's GTID and XID events weigh as much as its row.

`--tx-metadata` (with `--catchup`, `--mariadb` or `--load`): the connector with provide.transaction.metadata=true
(BEGIN/END records, each event's transaction block).
"""

from __future__ import annotations

import argparse
import contextlib
import os
import pickle
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from types import SimpleNamespace

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent / "tests"))
sys.path.insert(0, str(HERE))

from bench_mariadb import line_path  # noqa: E402
from binlog_events import plain  # noqa: E402  (the attributes the handlers read: picklable, for --save)
from test_mysql_flavour import CUSTOMER_META, CUSTOMER_TYPES, customers_row, packet, rows_v2, table_map  # noqa: E402

from emulator.config import load_config  # noqa: E402
from emulator.connectors.mysql import binlog as bl  # noqa: E402
from emulator.connectors.mysql import stream as stream_module  # noqa: E402
from emulator.connectors.mysql.connector import MariaDbConnector, MySqlConnector  # noqa: E402
from emulator.connectors.mysql.stream import MySqlBinlogStream  # noqa: E402
from emulator.engine import Engine  # noqa: E402
from emulator.offsets import MemoryOffsetStore  # noqa: E402
from emulator.outputs.directory import DirectoryOutput  # noqa: E402

DDL = (
    "CREATE TABLE customers (id INT NOT NULL AUTO_INCREMENT PRIMARY KEY, first_name VARCHAR(255) NOT NULL, "
    "last_name VARCHAR(255) NOT NULL, email VARCHAR(255) NOT NULL) DEFAULT CHARSET=utf8mb4"
)
PER_EVENT = 10


def connector(work: Path) -> MySqlConnector:
    props = {
        "name": "bench",
        "connector.class": "io.debezium.connector.mysql.MySqlConnector",
        "database.hostname": "127.0.0.1",
        "database.port": "3306",
        "database.user": "u",
        "database.server.id": "184054",
        "topic.prefix": "bench",
        "database.include.list": "inventory",
        "schema.history.internal.file.filename": str(work / "h.dat"),
    }
    p = work / "c.properties"
    p.write_text("".join(f"{k}={v}\n" for k, v in props.items()))
    engine = Engine(DirectoryOutput(work / "topics"), MemoryOffsetStore())
    c = MySqlConnector(load_config(str(p)), engine)
    c.mariadb_server = False
    c.server_version = "8.0.36"
    c.snapshot_done = True
    c.file, c.next_pos = "mysql-bin.000003", 4
    c.parser.apply(DDL, "inventory")
    return c


def events(rows: int, update: bool | str, per_event: int = PER_EVENT, per_tx: int = 1) -> list[tuple]:
    """(etype, packet, event object): TABLE_MAP and a rows event per `per_event` rows, BEGIN and XID around
    every `per_tx` rows events (1 row per event, 1000 events per transaction: a backlog of single-row
    statements, as bench_mariadb.py writes)."""
    out, pos = [], 4
    tm = table_map(91, "inventory", "customers", CUSTOMER_TYPES, CUSTOMER_META)
    begin = SimpleNamespace(query="BEGIN", schema=b"inventory", slave_proxy_id=42)
    for k, start in enumerate(range(0, rows, per_event)):
        ids = range(start, min(start + per_event, rows))
        if update == "DELETE":  # the INSERT's rows as a DELETE's images
            body = rows_v2(91, 4, [customers_row(i, "Sarah", "Connor", "sarah@skynet.com") for i in ids])
            etype = bl.DELETE_V2
        elif update:
            body = rows_v2(
                91,
                4,
                [
                    customers_row(i, "Anne", "Kretchmar", "a@x.org")
                    + customers_row(i, "Anne", "K", "a@x.org")
                    for i in ids
                ],
                images=2,
            )
            etype = bl.UPDATE_V2
        else:
            body = rows_v2(91, 4, [customers_row(i, "Sarah", "Connor", "sarah@skynet.com") for i in ids])
            etype = bl.WRITE_V2
        seq = [(bl.TABLE_MAP, tm, None), (etype, body, None)]
        if k % per_tx == 0:
            seq.insert(0, (bl.QUERY, b"", begin))
        if k % per_tx == per_tx - 1 or start + per_event >= rows:
            seq.append((bl.XID, b"", SimpleNamespace()))
        for et, b, ev in seq:
            p = packet(et, b, pos)
            pos += len(p) - 1
            out.append((et, p, ev))
    return out


def mariadb_events(
    rows: int,
    save: str | None = None,
    load: str | None = None,
    tx_rows: int = 1000,
    extra: dict | None = None,
) -> tuple[list[tuple], list[tuple], Callable[[Path], MySqlConnector], int]:
    """`--mariadb`: real packets, read once from a throwaway MariaDB with the emulator's own reader:
    bench_mariadb.py's 11-column table, `rows` single-row INSERT statements then as many UPDATEs, 1000 per
    transaction (`tx_rows`). -> (INSERT events, UPDATE events, connector factory, checksum length); `extra`:
    connector properties added."""
    import bench_mariadb as bm

    checksum = [0]
    if load:
        with open(load, "rb") as f:
            inserts, updates, props, checksum[0] = pickle.load(f)
    else:
        inserts, updates, props = capture_all(rows, checksum, tx_rows)
        if save:
            with open(save, "wb") as f:
                pickle.dump((inserts, updates, props, checksum[0]), f)

    def make(work: Path) -> MySqlConnector:
        cfg = dict(props, **{"schema.history.internal.file.filename": str(work / "h.dat")}, **(extra or {}))
        p = work / "c.properties"
        p.write_text("".join(f"{k}={v}\n" for k, v in cfg.items()))
        # the properties' connector (bench_mariadb.py's: MariaDbConnector, whose source blocks carry the GTID;
        # until session 15 this replay ran MySqlConnector, gtid null)
        cls = MariaDbConnector if "mariadb" in props["connector.class"] else MySqlConnector
        c = cls(load_config(str(p)), Engine(DirectoryOutput(work / "topics"), MemoryOffsetStore()))
        c.mariadb_server = True
        c.server_version = "10.11.0-MariaDB"
        c.snapshot_done = True
        c.file, c.next_pos = "binlog.000001", 4
        c.parser.apply(bm.TABLE, "benchdb")
        return c

    return inserts, updates, make, checksum[0]


def capture_all(rows: int, checksum: list[int], tx_rows: int) -> tuple[list[tuple], list[tuple], dict]:
    import bench_mariadb as bm
    from binlog_catchup import LOAD_TX

    from emulator.testing.mariadbserver import MariaDbServer

    def capture(db, file: str, pos: int) -> list[tuple]:
        r = bl.BinlogReader(
            {"host": "127.0.0.1", "port": db.port, "user": db.user, "passwd": db.password},
            server_id=77,
            blocking=False,
            resume_stream=True,
            log_file=file,
            log_pos=pos,
            enable_logging=False,
            mariadb_server=True,
        )
        r.connect()
        out, n = [], 0
        while n < rows:
            etype, data, ev = r.read()
            out.append((etype, data, plain(ev)))
            n += etype in bl.ROW_EVENTS
        checksum[0] = 4 if r.checksum else 0
        r.close()
        return out

    with MariaDbServer() as db:
        db.sql("CREATE DATABASE benchdb")
        db.sql(bm.TABLE, "benchdb")
        db.sql(LOAD_TX, "benchdb")
        f1, p1 = db.query("SHOW MASTER STATUS")[0][:2]
        db.sql(f"CALL load_tx(1, {rows}, 0, {tx_rows})", "benchdb")
        f2, p2 = db.query("SHOW MASTER STATUS")[0][:2]
        db.sql(f"CALL load_tx(1, {rows}, 1, {tx_rows})", "benchdb")
        inserts, updates = capture(db, f1, int(p1)), capture(db, f2, int(p2))
        props = bm.props(db, Path("/nonexistent"))
    return inserts, updates, props


def replay(c: MySqlConnector, evs: list[tuple], checksum: int = 0) -> float:
    handle, tick = c.handle_event, c.engine.tick
    tm = bl.TABLE_MAP
    rows_events = bl.ROW_EVENTS
    mask = getattr(stream_module, "TICK_ROWS_MASK", 0)  # a tree without it ticks after every event
    busy = 0
    t = time.process_time()
    for et, p, ev in evs:  # as MySqlBinlogStream._stream
        handle(et, p, ev, checksum)
        if et != tm:
            busy += 1
            if et not in rows_events or not busy & mask:
                tick()
    cpu = time.process_time() - t
    c.engine.output.flush()
    if c.engine.records < sum(1 for et, _, _ in evs if et in bl.ROW_EVENTS):
        raise SystemExit(f"only {c.engine.records} records written: the replay did not reach the output")
    return cpu


def marked_replay(args, make, checksum: int, evs: list) -> int:
    """Instruction counts per row without other load's noise (see the module's docstring)."""
    with tempfile.TemporaryDirectory() as tmp:
        c = make(Path(tmp))
        replay(c, evs, checksum)  # warm: table maps parsed, decoders generated, caches filled
        os.getppid()
        replay(c, evs, checksum)
        os.getppid()
    print(f"marked replay: {args.rows} rows ({args.callgrind_markers})")
    return 0


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--rows", type=int, default=50000)
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--per-event", type=int, default=PER_EVENT, help="rows per rows event (default 10)")
    ap.add_argument("--per-tx", type=int, default=1, help="rows events per transaction (default 1)")
    ap.add_argument(
        "--mariadb",
        action="store_true",
        help="replay real packets of bench_mariadb.py's table read from a throwaway MariaDB instead",
    )
    ap.add_argument("--save", help="with --mariadb: also keep the packets read in this file")
    ap.add_argument(
        "--load", help="replay the packets a --mariadb --save run kept (no server; --rows unused)"
    )
    ap.add_argument(
        "--callgrind-markers",
        choices=("INSERT", "UPDATE", "DELETE"),
        help="replay those events once (warm), then again between two os.getppid() calls: run under "
        "`valgrind --tool=callgrind --dump-before=getppid` and the second dump holds that replay alone",
    )
    ap.add_argument(
        "--dicts",
        action="store_true",
        help="also replay with the line path refused (rows as dicts), interleaved, and print the ratio",
    )
    ap.add_argument(
        "--catchup",
        action="store_true",
        help="the whole catch-up from a throwaway MariaDB, socket reads included (binlog_catchup.py)",
    )
    ap.add_argument(
        "--tx-rows",
        type=int,
        default=1000,
        help="with --catchup or --mariadb: statements per transaction in the backlogs (default 1000)",
    )
    ap.add_argument(
        "--tx-metadata",
        action="store_true",
        help="with --catchup, --mariadb or --load: provide.transaction.metadata=true",
    )
    args = ap.parse_args(argv)
    extra = {"provide.transaction.metadata": "true"} if args.tx_metadata else None
    print(f"line path: {line_path()}", flush=True)
    if args.catchup:
        from binlog_catchup import catchup

        markers = args.callgrind_markers is not None
        runs = catchup(
            args.rows, args.callgrind_markers, markers, 1 if markers else args.repeat, args.tx_rows, extra
        )
        for name, results in runs.items():
            best = min(results, key=lambda r: r["cpu_us"])
            print(
                f"{name:<8} {best['cpu_us']:8.2f} CPU-µs/event (user {best['user_us']:.2f}, system "
                f"{best['system_us']:.2f}; {args.rows:,} events, {args.tx_rows} per transaction, the whole catch-up; runs "
                f"{', '.join(str(r['cpu_us']) for r in results)})"
            )
        return 0
    if args.mariadb or args.load:
        inserts, updates, make, checksum = mariadb_events(
            args.rows, args.save, args.load, args.tx_rows, extra
        )
        args.rows = sum(1 for et, _, _ in inserts if et in bl.ROW_EVENTS)
        shape = "1 per event, bench_mariadb.py's 11-column table"
    else:
        make, checksum = connector, 0
        shape = f"{args.per_event} per event, {args.per_tx} events per transaction"
    if args.callgrind_markers:
        update = {"UPDATE": True, "DELETE": "DELETE"}.get(args.callgrind_markers, False)
        if args.mariadb or args.load:
            if update == "DELETE":
                raise SystemExit(
                    "--mariadb/--load replay INSERTs and UPDATEs; DELETE: --catchup or synthetic"
                )
            evs = updates if update else inserts
        else:
            evs = events(args.rows, update, args.per_event, args.per_tx)
        return marked_replay(args, make, checksum, evs)
    ops = (("INSERT", False), ("UPDATE", True))
    if not (args.mariadb or args.load):
        ops += (("DELETE", "DELETE"),)  # (--mariadb: the captured drains are INSERT and UPDATE)
    for name, update in ops:
        if args.mariadb or args.load:
            evs = updates if update else inserts
        else:
            evs = events(args.rows, update, args.per_event, args.per_tx)
        best = {"lines": float("inf"), "dicts": float("inf")}
        paths = ("lines", "dicts") if args.dicts else ("lines",)
        for _ in range(args.repeat):
            for path in paths:  # interleaved: both see the same load
                with tempfile.TemporaryDirectory() as tmp, row_path(path):
                    best[path] = min(best[path], replay(make(Path(tmp)), evs, checksum))
        print(f"{name:<8} {best['lines'] / args.rows * 1e6:8.2f} CPU-µs/row ({args.rows:,} rows, {shape})")
        if args.dicts:
            print(
                f"{name:<8} {best['dicts'] / args.rows * 1e6:8.2f} CPU-µs/row with rows as dicts "
                f"(lines/dicts {best['lines'] / best['dicts']:.3f})"
            )
    return 0


@contextlib.contextmanager
def row_path(path: str):
    """`dicts`: the binlog rows' line path refused (every row as dicts through the dispatcher)."""
    if path == "lines":
        yield
        return
    orig = MySqlBinlogStream._line_decoders
    MySqlBinlogStream._line_decoders = lambda *a: None
    try:
        yield
    finally:
        MySqlBinlogStream._line_decoders = orig


if __name__ == "__main__":
    sys.exit(main())
