"""CPU per event of the PostgreSQL connector's per-event path, without the network.

Records real pgoutput messages of the `bench_pg.py` workload (INSERTs, then UPDATEs of the same rows, then
DELETEs of them)
with `pg_logical_slot_get_binary_changes`, then replays them in this process through the connector's
own handlers (parse -> row -> envelope -> JsonConverter bytes -> the directory output) and reports
CPU µs per event (`time.process_time`, best of `--repeat`), with a breakdown by stage. Everything but
the socket read is the code `python -m emulator run` runs; the reference for the read itself is
`bench_pg.py`'s bare CopyData reader. A benchmark, not a test.

    .venv/bin/python bench/bench_pg_path.py --rows 20000 --repeat 5
    .venv/bin/python bench/bench_pg_path.py --table nullable --replica-identity full   # other table shapes
    valgrind --tool=callgrind --dump-before=getppid --callgrind-out-file=/tmp/cg.out \
        .venv/bin/python bench/bench_pg_path.py --rows 3000 --callgrind-markers
    # instructions per event: the total of /tmp/cg.out.2 (INSERT), /tmp/cg.out.3 (UPDATE) and
    # /tmp/cg.out.4 (DELETE) / events
    # per-transaction costs: the same with --tx-rows 1 or 3 (against 1000), and --tx-metadata
    # the Kafka output in place of the directory output: --kafka fast (emulator.fastkafka) or --kafka pure
    # (confluent-kafka's producer); no broker (librdkafka queues the records, no delivery report comes)
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))
sys.path.insert(0, str(HERE))

import psycopg  # noqa: E402
from bench_pg import COLUMNS, ROW_EXPR, TABLE  # noqa: E402
from bench_pg import backlog_sql as bench_pg_backlog_sql  # noqa: E402
from pgharness.workload import NULLABLE_ROW_EXPR, table_ddl  # noqa: E402

from emulator.config import from_dict  # noqa: E402
from emulator.connectors.postgres import pgoutput as po  # noqa: E402
from emulator.connectors.postgres.connector import PostgresConnector  # noqa: E402
from emulator.connectors.postgres.stream import ROW_TAGS, TICK_ROWS_MASK  # noqa: E402
from emulator.engine import Engine  # noqa: E402
from emulator.offsets import MemoryOffsetStore  # noqa: E402
from emulator.outputs.directory import DirectoryOutput  # noqa: E402
from emulator.testing.pg_copystream import CopyStream, copy_messages  # noqa: E402
from emulator.testing.pgserver import PgServer  # noqa: E402

# `--toast`: a text column holding a 3.2 KB value PostgreSQL keeps out of line (md5 hex does not compress),
# which the UPDATEs leave alone: their new tuples mark it unchanged (`u`)
TOAST_DOC = "(SELECT string_agg(md5(i::text), '') FROM generate_series(1, 100) i) || id"


def record(
    pg: PgServer,
    rows: int,
    nullable: bool = False,
    full: bool = False,
    toast: bool = False,
    key_default: bool = False,
    tx_rows: int = 1000,
    wide: bool = False,
) -> list[list[tuple[int, bytes]]]:
    """(lsn, message) lists of the INSERT, the UPDATE and the DELETE backlog (`nullable`: bench_pg's
    `--table nullable`; `full`: REPLICA IDENTITY FULL, each UPDATE and DELETE carries the old row, else a
    DELETE carries the key; `toast`: a TOASTed column the UPDATEs do not change, set between the INSERTs and
    the UPDATEs; `key_default`: city gets a column default, see KEY_DEFAULT_DDL; `tx_rows`: rows per transaction; `wide`:
    WIDE_DDL's table)."""
    with psycopg.connect(
        host="127.0.0.1", port=pg.port, user="postgres", dbname="postgres", autocommit=True
    ) as c:
        c.execute("SET synchronous_commit = on")  # logical decoding reads only flushed WAL
        c.execute(WIDE_DDL if wide else table_ddl(nullable))
        if toast:
            c.execute(f"ALTER TABLE {TABLE} ADD COLUMN doc text")
        if key_default:
            c.execute(KEY_DEFAULT_DDL)
        if full:
            c.execute(f"ALTER TABLE {TABLE} REPLICA IDENTITY FULL")
        c.execute(f"CREATE PUBLICATION p FOR TABLE {TABLE}")
        c.execute("SELECT pg_create_logical_replication_slot('s', 'pgoutput')")
        out = []
        for kind in ("insert", "update", "delete"):
            c.execute(
                backlog_sql(kind, rows, nullable, tx_rows, wide)
                if kind != "delete"
                else delete_sql(rows, tx_rows)
            )
            cur = c.execute(
                "SELECT lsn::text, data FROM pg_logical_slot_get_binary_changes("
                "'s', NULL, NULL, 'proto_version', '1', 'publication_names', 'p')"
            )
            out.append([(po.lsn_to_int(lsn), bytes(data)) for lsn, data in cur])
            if toast and kind == "insert":  # the values set, their changes read and left out
                c.execute(f"UPDATE {TABLE} SET doc = {TOAST_DOC}")
                c.execute(
                    "SELECT count(*) FROM pg_logical_slot_get_binary_changes("
                    "'s', NULL, NULL, 'proto_version', '1', 'publication_names', 'p')"
                )
        return out


def delete_sql(n: int, tx_rows: int = 1000) -> str:
    """The n rows deleted in `tx_rows`-row transactions (as bench_pg's backlogs are written)."""
    return _batched(f"DELETE FROM {TABLE} WHERE id BETWEEN {{lo}} AND {{hi}};", n, tx_rows)


def backlog_sql(kind: str, n: int, nullable: bool, tx_rows: int, wide: bool = False) -> str:
    """bench_pg's INSERT or UPDATE backlog in `tx_rows`-row transactions (bench_pg: 1000); `wide`: of WIDE_DDL's
    table."""
    if tx_rows == 1000 and not wide:
        return bench_pg_backlog_sql(kind, n, nullable)
    if kind == "insert" and wide:
        body = f"INSERT INTO {TABLE} ({WIDE_COLUMNS}) SELECT {WIDE_ROW_EXPR} FROM generate_series({{lo}}, {{hi}}) g;"
    elif kind == "insert":
        body = f"INSERT INTO {TABLE} ({COLUMNS}) SELECT {NULLABLE_ROW_EXPR if nullable else ROW_EXPR} "
        body += "FROM generate_series({lo}, {hi}) g;"
    else:
        body = f"UPDATE {TABLE} SET qty = qty + 1, amount = amount + 1, active = NOT active, client_ns = b "
        body += "WHERE id BETWEEN {lo} AND {hi};"
    return _batched(body, n, tx_rows)


def _batched(body: str, n: int, tx_rows: int) -> str:
    """`body` ({lo}, {hi}: the batch's ids) once per `tx_rows` ids, each batch its own transaction."""
    body = body.format(lo=f"b * {tx_rows} + 1", hi=f"least(b * {tx_rows} + {tx_rows}, {n})")
    return f"DO $$ BEGIN FOR b IN 0..{(n + tx_rows - 1) // tx_rows - 1} LOOP {body} COMMIT; END LOOP; END $$;"


# `--table wide`: 30 columns of mixed types (the UPDATE backlog's qty, amount, active and client_ns among them),
# every one but the key NULL in ~20 % of the rows in varying combinations (as bench_pg's nullable table)
_WIDE = [
    ("qty", "integer", "(g % 1000)::int"),
    ("amount", "numeric(12,2)", "((g % 1000000) / 100.0 + 0.25)::numeric(12,2)"),
    ("active", "boolean", "g % 3 = 0"),
    ("client_ns", "bigint", "g * 1000"),
    ("c1", "integer", "(g * 7) % 100000"),
    ("c2", "bigint", "g::bigint * 1000003"),
    ("c3", "smallint", "(g % 32000)::smallint"),
    ("c4", "text", "'text-' || g"),
    ("c5", "varchar(40)", "'customer-' || g"),
    ("c6", "numeric(10,3)", "((g % 100000) / 7.0)::numeric(10,3)"),
    ("c7", "timestamptz", "timestamptz '2024-01-01 00:00:00+00' + g * interval '1 second'"),
    ("c8", "timestamp", "timestamp '2024-01-01 00:00:00' + g * interval '1 minute'"),
    ("c9", "date", "date '2024-01-01' + (g % 1000)::int"),
    ("c10", "double precision", "g / 3.0::float8"),
    ("c11", "real", "(g / 7.0)::real"),
    ("c12", "boolean", "g % 2 = 0"),
    ("c13", "jsonb", "jsonb_build_object('g', g, 's', 'x' || g)"),
    ("c14", "uuid", "md5(g::text)::uuid"),
    ("c15", "text", "left(repeat(md5(g::text), 2), 60)"),
    ("c16", "integer", "g % 97"),
    ("c17", "bigint", "-g::bigint"),
    ("c18", "numeric(18,4)", "(g * 1.0001)::numeric(18,4)"),
    ("c19", "timestamptz", "timestamptz '2020-06-01 12:00:00+00' + g * interval '1 hour'"),
    ("c20", "varchar(80)", "'city-' || (g % 50)"),
    ("c21", "time", "time '00:00' + (g % 86400) * interval '1 second'"),
    ("c22", "double precision", "g * 1.5::float8"),
    ("c23", "text", "'note ' || g"),
    ("c24", "integer", "g % 5"),
    ("c25", "bytea", "decode(md5(g::text), 'hex')"),
]
WIDE_DDL = f"CREATE TABLE {TABLE} (id bigint PRIMARY KEY, " + ", ".join(f"{n} {t}" for n, t, _ in _WIDE) + ")"
WIDE_COLUMNS = "id, " + ", ".join(n for n, _, _ in _WIDE)
WIDE_ROW_EXPR = "g, " + ", ".join(
    f"CASE WHEN (g * 7 + {k * 13}) % 97 < 20 THEN NULL ELSE {e} END" for k, (_, _, e) in enumerate(_WIDE)
)


# `--key-default`: the key is (id, city) (message.key.columns) and city has a column default, so a NULL in it
# would print the default (TableEnvelope.key_defaults): under FULL "same key" is then decided on the raw key
KEY_DEFAULT_DDL = f"ALTER TABLE {TABLE} ALTER COLUMN city SET DEFAULT 'nowhere'"
KEY_DEFAULT_PROPS = {"message.key.columns": f"public.{TABLE}:id,city"}


KAFKA: list[str] = []  # --kafka fast|pure


def connector(pg: PgServer, out: Path, extra: dict | None = None) -> PostgresConnector:
    cfg = from_dict(
        {
            **(extra or {}),
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
        }
    )
    if KAFKA:
        from emulator.outputs.kafka import kafka_output

        # nothing listens on the discard port: the records stay queued (1 GiB of room, no BufferError)
        kcfg = from_dict(
            {**cfg.props, "producer.compression.type": "lz4", "producer.buffer.memory": str(1 << 30)}
        )
        output = kafka_output(kcfg, "127.0.0.1:9", fast=KAFKA[0] == "fast")
    else:
        output = DirectoryOutput(out / "topics")
    # Kafka: no periodic offset commit (each would wait offset.flush.timeout.ms for reports no broker sends)
    engine = Engine(output, MemoryOffsetStore(), **({"flush_interval_ms": 1 << 40} if KAFKA else {}))
    conn = PostgresConnector(cfg, engine)
    conn.conn = psycopg.connect(conn.conninfo, autocommit=True)
    return conn


def _events(msgs: list[tuple[int, bytes]]) -> int:
    return sum(1 for _, m in msgs if m[0] in (73, 85, 68))


def replay(
    conn: PostgresConnector, msgs: list[tuple[int, bytes]], events: int | None = None
) -> tuple[float, int]:
    """CPU seconds for the whole list through the connector's handlers (and the engine's tick), events (`events`:
    counted ahead, outside callgrind's marks)."""
    if LOOP:
        return loop_replay(conn, msgs, events)
    handlers = {
        ord("B"): conn._on_begin,
        ord("C"): conn._on_commit,
        ord("R"): conn._on_relation,
        ord("I"): conn._on_insert,
        ord("U"): conn._on_update,
        ord("D"): conn._on_delete,
    }
    tick = conn.engine.tick
    events = _events(msgs) if events is None else events
    busy = 0
    t = time.process_time()
    for lsn, msg in msgs:  # the stream loop's ticks: after every message but a row change (then every 32nd)
        busy += 1
        tag = msg[0]
        handlers[tag](msg, lsn)
        if tag in ROW_TAGS and busy & TICK_ROWS_MASK:
            continue
        tick()
    cpu = time.process_time() - t
    conn.engine.output.flush()
    return cpu, events


_PREPARED: dict[
    int, list
] = {}  # copy_messages' lists made ahead (outside callgrind's marks), by id of the list


def loop_replay(
    conn: PostgresConnector, msgs: list[tuple[int, bytes]], events: int | None = None
) -> tuple[float, int]:
    """`replay` through the connector's own read loop (`_stream`) over `CopyStream` (emulator.testing.pg_copystream):
    the per-message work of the loop (the CopyData header, the dispatch) counted too."""
    events = _events(msgs) if events is None else events
    conn.stream = CopyStream(_PREPARED.pop(id(msgs), None) or copy_messages(msgs), conn.engine.stop_event.set)
    conn.engine.stop_event.clear()
    t = time.process_time()
    conn._stream(0)
    cpu = time.process_time() - t
    conn.engine.output.flush()
    return cpu, events


LOOP: list[bool] = []  # --stream-loop: replays through loop_replay


def stages(conn: PostgresConnector, msgs: list[tuple[int, bytes]]) -> dict[str, float]:
    """CPU µs per INSERT event of each stage alone (cumulative: each includes the ones before). `parse` is
    the generic TupleData -> list parser (the fallback); `parse+row (dict)` the per-table parser to the row
    dict (`CapturedTable.parse_row`), which the handlers use when the row is needed as a dict; without the
    data plane they parse straight to the JSON of `after` and the key (`CapturedTable.parse_json`), which
    is `parse -> JSON`. `output write` is the directory output's `write` instead of `line` (the line, the
    buffered file and the kernel's share); the rest of INSERT's figure is the handlers' and the
    dispatcher's bookkeeping."""
    ct = next(iter(conn.by_id.values()))
    env = ct.env
    row = ct.parse_row
    pj = ct.parse_json
    ins = [(lsn, m) for lsn, m in msgs if m[0] == 73]
    n = len(ins)
    res = {}
    t = time.process_time()
    for _, m in ins:
        po.parse_insert(m)
    res["parse (generic, list)"] = time.process_time() - t
    t = time.process_time()
    for _, m in ins:
        row(m, 6)
    res["parse+row (dict)"] = time.process_time() - t
    if pj is None:  # the dict path (data plane)

        def record(lsn: int, m: bytes):
            after = row(m, 6)
            return env.change("c", None, after, conn._src_of(ct, lsn), None, env.key_of(after))
    else:
        t = time.process_time()
        for _, m in ins:
            pj(m, 6)
        res["parse -> JSON"] = time.process_time() - t

        def record(lsn: int, m: bytes):
            after, key = pj(m, 6)
            return env.change_json("c", after, conn._src_of(ct, lsn), None, key)

    t = time.process_time()
    for lsn, m in ins:
        record(lsn, m)
    res["... + envelope bytes"] = time.process_time() - t
    t = time.process_time()
    line = None
    for lsn, m in ins:
        line = record(lsn, m).line()
    res["... + line"] = time.process_time() - t
    assert line is not None
    write = conn.engine.output.write
    t = time.process_time()
    for lsn, m in ins:
        write(record(lsn, m))
    conn.engine.output.flush()
    res["... + output write (file)"] = time.process_time() - t
    return {k: v / n * 1e6 for k, v in res.items()}


def marked_replay(
    pg: PgServer, tmp: Path, ins: list, upd: list, dels: list, extra: dict | None = None
) -> int:
    """Instruction counts per event without other load's noise: the messages once to warm up (Relation
    messages, generated parsers), then again, Relation messages left out, between two `os.getppid()`
    calls, INSERTs, UPDATEs and DELETEs apart. `valgrind --tool=callgrind --dump-before=getppid` writes the
    INSERT replay to `<out>.2`, the UPDATE replay to `<out>.3` and the DELETE replay to `<out>.4`; a dump's
    total divided by the events printed here is the figure."""
    conn = connector(pg, tmp, extra)
    for msgs in (ins, upd, dels):
        replay(conn, msgs)
    counts = []
    kept = [[m for m in msgs if m[1][0] != 82] for msgs in (ins, upd, dels)]
    # the CopyData messages of all three made before the first mark (made between two marks, the next list's were
    # counted in the previous dump: session 23's INSERT and UPDATE figures held them, ~5.6k instructions an event)
    if LOOP:
        for msgs in kept:
            _PREPARED[id(msgs)] = copy_messages(msgs)
    events = [_events(msgs) for msgs in kept]  # (counting them between the marks cost ~0.7k an event)
    for msgs, n in zip(kept, events):
        os.getppid()
        counts.append(replay(conn, msgs, n)[1])
    os.getppid()
    if KAFKA:
        conn.engine.output.reset()  # drop the queued records: no broker will take them
    conn.engine.output.close()
    conn.conn.close()
    print(
        f"marked replay: {counts[0]} INSERT events (<out>.2), {counts[1]} UPDATE events (<out>.3), "
        f"{counts[2]} DELETE events (<out>.4)"
    )
    return 0


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--rows", type=int, default=20000)
    ap.add_argument("--repeat", type=int, default=5)
    ap.add_argument(
        "--kafka",
        choices=("fast", "pure"),
        help="the Kafka output (no broker) in place of the directory output: fast = emulator.fastkafka, pure = "
        "confluent-kafka's producer",
    )
    ap.add_argument(
        "--stream-loop",
        action="store_true",
        help="replay through the connector's read loop (_stream) over recorded CopyData messages, not the handlers "
        "alone: the loop's per-message work counted too",
    )
    ap.add_argument(
        "--callgrind-markers",
        action="store_true",
        help="only replay (warm), then replay again between two os.getppid() calls: run under "
        "`valgrind --tool=callgrind --dump-before=getppid` and the second dump holds that replay alone",
    )
    ap.add_argument(
        "--table",
        choices=("notnull", "nullable", "wide"),
        default="notnull",
        help="bench_pg's table with NOT NULL columns (default), or nullable with ~20 %% NULLs, or 30 columns of "
        "mixed types with ~20 %% NULLs (WIDE_DDL)",
    )
    ap.add_argument(
        "--replica-identity",
        choices=("default", "full"),
        default="default",
        help="FULL: each UPDATE and DELETE message carries the whole old row (DEFAULT: a DELETE the key)",
    )
    ap.add_argument(
        "--key-default",
        action="store_true",
        help="the key (id, city) by message.key.columns, city with a column default (a key printing a default "
        "for NULL; with FULL, UPDATEs compare the raw keys)",
    )
    ap.add_argument(
        "--toast",
        action="store_true",
        help="a 3.2 KB TOASTed text column the UPDATEs leave unchanged (DEFAULT: the placeholder in `after`; "
        "FULL: the old row's value)",
    )
    ap.add_argument(
        "--tx-rows",
        type=int,
        default=1000,
        help="rows per transaction of each backlog (bench_pg: 1000); small ones weigh the per-transaction work "
        "(BEGIN, COMMIT, a table's source template and line formats)",
    )
    ap.add_argument(
        "--tx-metadata",
        action="store_true",
        help="provide.transaction.metadata=true: BEGIN/END records and each event's transaction block (formatted "
        "into the event's line, tx_formats.tx_block)",
    )
    args = ap.parse_args(argv)
    KAFKA[:] = [args.kafka] if args.kafka else []
    LOOP[:] = [True] if args.stream_loop else []
    with PgServer() as pg, tempfile.TemporaryDirectory(prefix="bench-pg-path-") as tmp:
        full = args.replica_identity == "full"
        ins, upd, dels = record(
            pg,
            args.rows,
            args.table == "nullable",
            full,
            args.toast,
            args.key_default,
            args.tx_rows,
            args.table == "wide",
        )
        extra = dict(KEY_DEFAULT_PROPS) if args.key_default else {}
        if args.tx_metadata:
            extra["provide.transaction.metadata"] = "true"
        if args.callgrind_markers:
            return marked_replay(pg, Path(tmp), ins, upd, dels, extra)
        ncols = len(_WIDE) + 1 if args.table == "wide" else COLUMNS.count(",") + 2
        print(
            f"recorded {len(ins):,} + {len(upd):,} + {len(dels):,} pgoutput messages ({ncols} columns; "
            f"row {ROW_EXPR[:20]}...; table {args.table}, replica identity {args.replica_identity}"
            f"{', TOAST column' if args.toast else ''})"
        )
        best: dict[str, float] = {}
        for i in range(args.repeat):
            conn = connector(pg, Path(tmp) / str(i), extra)
            for what, msgs in (("INSERT", ins), ("UPDATE", upd), ("DELETE", dels)):
                cpu, n = replay(conn, msgs)
                best[what] = min(best.get(what, 1e9), cpu / n * 1e6)
            for k, v in stages(conn, ins).items():
                best[k] = min(best.get(k, 1e9), v)
            if KAFKA:
                conn.engine.output.reset()  # as marked_replay: no broker will take the queued records
            conn.engine.output.close()
            conn.conn.close()
        for k, v in best.items():
            print(f"{k:32s} {v:7.2f} CPU-µs/event")
    return 0


if __name__ == "__main__":
    sys.exit(main())
