"""The bench table, its rows and backlogs, and the connector .properties both engines get."""

from __future__ import annotations

from pathlib import Path

from emulator.testing.pgserver import PgServer

TABLE = "bench"
SMALL_TABLE = "bench_small"
SMALL_ROWS = 20
TOPIC_PREFIX = "bench"


# The bench table: the shape of shared/research/debezium-performance-here.md's (bigint PK, int,
# bigint, smallint, 2x varchar(40), numeric(12,2), a timestamp, boolean, ~100-char text, nullable
# bigint client_ns), with timestamptz as the timestamp.
DDL = f"""
CREATE TABLE {TABLE} (
    id        bigint PRIMARY KEY,
    qty       integer NOT NULL,
    big       bigint NOT NULL,
    small     smallint NOT NULL,
    name      varchar(40) NOT NULL,
    city      varchar(40) NOT NULL,
    amount    numeric(12,2) NOT NULL,
    created   timestamptz NOT NULL,
    active    boolean NOT NULL,
    note      text NOT NULL,
    client_ns bigint
);
"""
COLUMNS = "id, qty, big, small, name, city, amount, created, active, note"
# one row from the bigint g (server-side; also used by the latency writer)
ROW_EXPR = (
    "g, (g % 1000)::int, g::bigint * 1000003, (g % 32000)::smallint, 'customer-' || g, "
    "(ARRAY['Berlin','Lisbon','Oslo','Tallinn','Porto'])[1 + g % 5], "
    "((g % 1000000) / 100.0 + 0.25)::numeric(12,2), "
    "timestamptz '2024-01-01 00:00:00+00' + g * interval '1 second', g % 3 = 0, "
    "left(repeat(md5(g::text), 4), 100)"
)


# The same table as most real schemas have it (`--table nullable`): every column but the key may be NULL,
# and each is NULL in ~20 % of the rows, in varying combinations (column k's NULL rows: (7g + 13k) mod 97
# < 20), so the tuples show many null layouts.
NULLABLE_DDL = DDL.replace(" NOT NULL", "")
_ROW_PARTS = [
    "g",
    "(g % 1000)::int",
    "g::bigint * 1000003",
    "(g % 32000)::smallint",
    "'customer-' || g",
    "(ARRAY['Berlin','Lisbon','Oslo','Tallinn','Porto'])[1 + g % 5]",
    "((g % 1000000) / 100.0 + 0.25)::numeric(12,2)",
    "timestamptz '2024-01-01 00:00:00+00' + g * interval '1 second'",
    "g % 3 = 0",
    "left(repeat(md5(g::text), 4), 100)",
]
assert ", ".join(_ROW_PARTS) == ROW_EXPR
NULLABLE_ROW_EXPR = ", ".join(
    [_ROW_PARTS[0]]
    + [f"CASE WHEN (g * 7 + {k * 13}) % 97 < 20 THEN NULL ELSE {e} END" for k, e in enumerate(_ROW_PARTS[1:])]
)


def table_ddl(nullable: bool = False) -> str:
    return NULLABLE_DDL if nullable else DDL


def backlog_sql(kind: str, n: int, nullable: bool = False, first: int = 0) -> str:
    """n rows in 1000-row transactions, written by a server-side loop (as the research did); INSERTs of ids
    first+1..first+n (UPDATEs: always of ids 1..n)."""
    batches = (n + 999) // 1000
    if kind == "insert":
        body = (
            f"INSERT INTO {TABLE} ({COLUMNS}) SELECT {NULLABLE_ROW_EXPR if nullable else ROW_EXPR} "
            f"FROM generate_series({first} + b * 1000 + 1, {first} + least(b * 1000 + 1000, {n})) g;"
        )
    else:
        body = (
            f"UPDATE {TABLE} SET qty = qty + 1, amount = amount + 1, active = NOT active, "
            f"client_ns = b WHERE id BETWEEN b * 1000 + 1 AND least(b * 1000 + 1000, {n});"
        )
    return f"DO $$ BEGIN FOR b IN 0..{batches - 1} LOOP {body} COMMIT; END LOOP; END $$;"


PROP_ESCAPES = {"\\": "\\\\", "\t": "\\t", "\n": "\\n", "\r": "\\r", "\f": "\\f"}


def _prop_escape(s: str, key: bool) -> str:
    out = []
    for i, ch in enumerate(s):
        if ch in PROP_ESCAPES:
            out.append(PROP_ESCAPES[ch])
        elif ch in "=:#!" or (ch == " " and (key or i == 0)):
            out.append("\\" + ch)
        elif not " " <= ch <= "~":
            out.append(f"\\u{ord(ch):04x}" if ord(ch) < 0x10000 else ch)
        else:
            out.append(ch)
    return "".join(out)


def write_properties(props: dict[str, str], path: Path) -> None:
    lines = ["# connector properties written by bench/bench_pg.py"]
    lines += [f"{_prop_escape(k, True)}={_prop_escape(v, False)}" for k, v in props.items()]
    path.write_text("\n".join(lines) + "\n", encoding="latin-1")


def connector_props(pg: PgServer, offsets: Path, **extra: str) -> dict[str, str]:
    props = {
        "name": "bench-pg",
        "connector.class": "io.debezium.connector.postgresql.PostgresConnector",
        "plugin.name": "pgoutput",
        "database.hostname": "127.0.0.1",
        "database.port": str(pg.port),
        "database.user": "postgres",
        "database.password": "postgres",
        "database.dbname": "postgres",
        "topic.prefix": TOPIC_PREFIX,
        "offset.storage.file.filename": str(offsets),
        "offset.flush.interval.ms": "1000",
    }
    props.update(extra)
    return props


def topic_file(out_dir: Path, table: str) -> Path:
    return out_dir / f"{TOPIC_PREFIX}.public.{table}.jsonl"
