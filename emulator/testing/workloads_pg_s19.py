"""PostgreSQL draws of session 19 for the workload generator (emulator.testing.workloads), toward values and DDL the
earlier draws never wrote:

- `eras`: BC dates and dates in the 1582 Julian/Gregorian gap, BC and far-future timestamp/timestamptz, and
  sub-millisecond time/timetz values, written while streaming only (a date read over JDBC loses its era: the
  deliberate difference `date_bc_jdbc_lost`; so the table is never snapshotted with such a date, never signalled,
  and holds no date[]); the keys are integers (a sub-millisecond time as a chunk key with snapshot threads is the
  deliberate `snapshot_threads_time_key_lost`);
- `hidden`: a table renamed into a name `table.exclude.list` leaves out, then altered and written (drawn only where
  no table filter was drawn before; adds the exclude list);
- `parts`: a two-level partitioned table, a partition with rows attached and one detached while streaming, and
  `publish.via.partition.root` drawn either way where no earlier draw set it;
- `genid`: STORED generated columns (added mid-stream too, `DROP EXPRESSION`) and identity columns (`ALWAYS`,
  `BY DEFAULT`, `OVERRIDING SYSTEM VALUE`, an identity added to an existing column);
- `enums`: `ALTER TYPE ... ADD VALUE` (`BEFORE`, `AFTER`) and `RENAME VALUE` on an enum a captured table uses,
  arrays of enums and of domains, a domain over an enum.

From a random stream of their own (`s19-<seed>`), drawn after everything else: every older seed keeps its workload;
a drawn seed gains `-- @set` lines and the scenarios' blocks. None of these tables is in `g.snapshot_tables`: no
signal or snapshot override names them.
"""

from __future__ import annotations

import random
from typing import Any

BC_DATES = [
    "'0044-03-15 BC'",
    "'4713-01-01 BC'",
    "'0001-12-31 BC'",
    "'1582-10-10'",
    "'1582-10-04'",
    "'1582-10-15'",
]
TIMESTAMPS = [
    "'0001-02-29 12:00:00 BC'",
    "'1582-10-10 08:30:00.5'",
    "'9999-12-31 23:59:59.999999'",
    "'12345-06-07 01:02:03'",
    "'294276-12-31 23:59:59.999999'",
    "'4713-01-01 00:00:00 BC'",
]
TIMESTAMPTZ = [
    "'0001-01-01 00:00:00+00 BC'",
    "'1582-10-10 12:00:00+01'",
    "'9999-12-31 23:59:59.999999+00'",
    "'20000-01-01 00:00:00-08'",
    "'0300-06-01 10:00:00+05:30 BC'",
]
TIMES = ["'00:00:00.000001'", "'23:59:59.999999'", "'12:34:56.000500'", "'00:00:00.0005'"]
TIMETZ = [
    "'00:00:00.000001+15:59'",
    "'12:34:56.789012-15:59'",
    "'23:59:59.999999+00'",
    "'08:00:00.0001+05:45'",
]
PLAIN = {
    "d": "'2024-01-02'",
    "ts": "'2024-01-02 03:04:05'",
    "tz": "'2024-01-02 03:04:05+00'",
    "t": "'10:00:00'",
}


def eras(g: Any, name: str, r: random.Random) -> None:
    t = f"public.{name}"
    cols = {"d": BC_DATES, "ts": TIMESTAMPS, "tz": TIMESTAMPTZ, "t": TIMES, "ttz": TIMETZ}

    def row(i: int) -> str:
        return f"({i}, " + ", ".join("NULL" if r.random() < 0.1 else r.choice(v) for v in cols.values()) + ")"

    pre = (
        f"CREATE TABLE {t} (id integer PRIMARY KEY, d date, ts timestamp, tz timestamptz, t time, ttz timetz);\n"
        f"INSERT INTO {t} VALUES (1, {PLAIN['d']}, {PLAIN['ts']}, {PLAIN['tz']}, {PLAIN['t']}, '10:00:00+02');\n"
    )
    if r.random() < 0.5:
        pre += f"ALTER TABLE {t} REPLICA IDENTITY FULL;\n"
    steps = [
        f"INSERT INTO {t} VALUES {row(2)}, {row(3)};\nINSERT INTO {t} VALUES {row(4)};",
        f"UPDATE {t} SET d = {r.choice(BC_DATES)}, ts = {r.choice(TIMESTAMPS)} WHERE id = 1;\n"
        f"UPDATE {t} SET tz = {r.choice(TIMESTAMPTZ)}, t = {r.choice(TIMES)}, ttz = {r.choice(TIMETZ)} WHERE id = 2;\n"
        f"DELETE FROM {t} WHERE id = 3;",
    ]
    g.block(name, pre, steps)


def hidden(g: Any, name: str, r: random.Random) -> None:
    """Renamed out of the filters, written (Debezium keeps it under its old name), then either widened there
    (Debezium stops on the next change: case table_renamed_out_of_filters_widened_stops; drawn last so that it ends
    the workload) or renamed back and widened under its captured name."""
    t = f"public.{name}"
    pre = f"CREATE TABLE {t} (id integer PRIMARY KEY, v text);\nINSERT INTO {t} VALUES (1, 'one'), (2, 'two');\n"
    h = f"public.{name}_gone"
    steps = [
        f"INSERT INTO {t} VALUES (3, 'three');",  # (a rename right after a change of the table races the
        # Relation's catalog read, test_generator_races)
        f"ALTER TABLE {t} RENAME TO {name}_gone;\n"
        f"INSERT INTO {h} VALUES (4, 'four');\nUPDATE {h} SET v = 'uno' WHERE id = 1;\nDELETE FROM {h} WHERE id = 2;",
    ]
    if r.random() < 0.5:
        steps.append(
            f"ALTER TABLE {h} ADD COLUMN n integer DEFAULT 5;\nINSERT INTO {h} VALUES (5, 'five', 6);\n"
            f"UPDATE {h} SET n = 7 WHERE id = 1;"
        )
    else:
        steps.append(f"ALTER TABLE {h} RENAME TO {name};\nINSERT INTO {t} VALUES (6, 'back');")
        steps.append(
            f"ALTER TABLE {t} ADD COLUMN n integer DEFAULT 5;\nINSERT INTO {t} VALUES (7, 'seven', 8);\n"
            f"UPDATE {t} SET n = 9 WHERE id = 1;"
        )
    g.block(name, pre, steps)


def parts(g: Any, name: str, r: random.Random) -> None:
    t = f"public.{name}"
    pre = (
        f"CREATE TABLE {t} (id integer, region text NOT NULL, k integer NOT NULL, v text, PRIMARY KEY (id, region, k))"
        " PARTITION BY LIST (region);\n"
        f"CREATE TABLE public.{name}_eu PARTITION OF {t} FOR VALUES IN ('eu') PARTITION BY RANGE (k);\n"
        f"CREATE TABLE public.{name}_eu_lo PARTITION OF public.{name}_eu FOR VALUES FROM (0) TO (100);\n"
        f"CREATE TABLE public.{name}_eu_hi PARTITION OF public.{name}_eu FOR VALUES FROM (100) TO (MAXVALUE);\n"
        f"CREATE TABLE public.{name}_us PARTITION OF {t} FOR VALUES IN ('us');\n"
        f"INSERT INTO {t} VALUES (1, 'eu', 5, 'a'), (2, 'eu', 150, 'b'), (3, 'us', 1, 'c');\n"
    )
    if r.random() < 0.5:
        pre += f"ALTER TABLE {t} REPLICA IDENTITY FULL;\n"
    steps = [
        f"INSERT INTO {t} VALUES (4, 'eu', 99, 'd'), (5, 'us', 2, 'e');\n"
        f"UPDATE {t} SET k = 120 WHERE id = 4;\nUPDATE {t} SET region = 'us' WHERE id = 1;",
        f"CREATE TABLE public.{name}_ap (id integer, region text NOT NULL, k integer NOT NULL, v text, "
        "PRIMARY KEY (id, region, k));\n"
        f"INSERT INTO public.{name}_ap VALUES (6, 'ap', 1, 'before attach');\n"
        f"ALTER TABLE {t} ATTACH PARTITION public.{name}_ap FOR VALUES IN ('ap');\n"
        f"INSERT INTO {t} VALUES (7, 'ap', 2, 'after attach');\nUPDATE {t} SET v = 'seen' WHERE id = 6;",
        f"ALTER TABLE public.{name}_eu DETACH PARTITION public.{name}_eu_hi;\n"
        f"INSERT INTO public.{name}_eu_hi VALUES (8, 'eu', 500, 'detached');\n"
        f"DELETE FROM public.{name}_eu_hi WHERE id = 2;\nINSERT INTO {t} VALUES (9, 'eu', 7, 'still');",
    ]
    g.block(name, pre, steps)


def genid(g: Any, name: str, r: random.Random) -> None:
    t, i = f"public.{name}", f"public.{name}_id"
    pre = (
        f"CREATE TABLE {t} (id integer GENERATED BY DEFAULT AS IDENTITY (START WITH 10 INCREMENT BY 5) PRIMARY KEY, "
        "a integer, s text NOT NULL DEFAULT 'x', "
        "g integer GENERATED ALWAYS AS (a * 10) STORED, h text GENERATED ALWAYS AS (upper(s) || '!') STORED);\n"
        f"INSERT INTO {t} (a, s) VALUES (1, 'one'), (NULL, 'two');\n"
        f"CREATE TABLE {i} (n integer NOT NULL, v text);\n"
        f"INSERT INTO {i} VALUES (1, 'one');\n"
        f"ALTER TABLE {i} ALTER COLUMN n ADD GENERATED ALWAYS AS IDENTITY (START WITH 100);\n"
        f"ALTER TABLE {i} ADD PRIMARY KEY (n);\n"
    )
    if r.random() < 0.5:
        pre += f"ALTER TABLE {t} REPLICA IDENTITY FULL;\n"
    steps = [
        f"INSERT INTO {t} (a, s) VALUES (2, 'three');\nINSERT INTO {t} (id, a) VALUES (1, 7);\n"
        f"UPDATE {t} SET a = a + 1 WHERE id = 10;\nUPDATE {t} SET s = 'changed' WHERE id = 15;",
        f"INSERT INTO {i} (v) VALUES ('two');\nINSERT INTO {i} OVERRIDING SYSTEM VALUE VALUES (5, 'five');\n"
        f"UPDATE {i} SET v = 'uno' WHERE n = 1;",
        f"ALTER TABLE {t} ADD COLUMN k integer GENERATED ALWAYS AS (coalesce(a, 0) + id) STORED;\n"
        f"INSERT INTO {t} (a) VALUES (9);\nUPDATE {t} SET a = 3 WHERE id = 1;",
        f"ALTER TABLE {t} ALTER COLUMN g DROP EXPRESSION;\nINSERT INTO {t} (a, g) VALUES (4, 44);\n"
        f"ALTER TABLE {i} ALTER COLUMN n SET GENERATED BY DEFAULT;\nINSERT INTO {i} VALUES (7, 'seven');\n"
        f"DELETE FROM {t} WHERE id = 15;",
    ]
    g.block(name, pre, steps)


def enums(g: Any, name: str, r: random.Random) -> None:
    t, e, d = f"public.{name}", f"public.{name}_e", f"public.{name}_d"
    # a domain over an enum (rarely: Debezium's TypeRegistry fails on it at start, "enum_values" is null for a
    # type of category E without labels, so nothing else of the workload is recorded; 3 of session 23's 45 campaign
    # workloads stopped so at 15 %, hence 4 %: the stop itself is pg case
    # enum_domain_type_registry_stops)
    over_enum = r.random() < 0.04
    ed = f"{e}_dom" if over_enum else e
    pre = (
        f"CREATE TYPE {e} AS ENUM ('low', 'high');\n"
        f"CREATE DOMAIN {d} AS text CHECK (VALUE <> '');\n"
        + (f"CREATE DOMAIN {ed} AS {e};\n" if over_enum else "")
        + f"CREATE TABLE {t} (id integer PRIMARY KEY, e {e}, ea {e}[], ed {ed}, da {d}[], pa public.posint[], "
        "ma public.mood[]);\n"
        f"INSERT INTO {t} VALUES (1, 'low', '{{low,high}}', 'high', '{{a,b}}', '{{1,2}}', '{{sad,happy}}'), "
        f"(2, NULL, '{{}}', NULL, '{{\"x y\",NULL}}', NULL, '{{ok}}');\n"
    )
    if r.random() < 0.5:
        pre += f"ALTER TABLE {t} REPLICA IDENTITY FULL;\n"
    steps = [
        f"INSERT INTO {t} VALUES (3, 'high', '{{high}}', 'low', '{{c}}', '{{3}}', NULL);",
        f"ALTER TYPE {e} ADD VALUE 'mid' BEFORE 'high';\nALTER TYPE {e} ADD VALUE IF NOT EXISTS 'top' AFTER 'high';",
        f"INSERT INTO {t} VALUES (4, 'mid', '{{mid,top}}', 'top', '{{d}}', '{{4,5}}', '{{happy}}');\n"
        f"UPDATE {t} SET e = 'top', ea = array_append(ea, 'mid') WHERE id = 1;",
        f"ALTER TYPE {e} RENAME VALUE 'low' TO 'lowest';\n"
        f"INSERT INTO {t} VALUES (5, 'lowest', '{{lowest}}', 'lowest', '{{e}}', '{{6}}', '{{sad}}');\n"
        f"DELETE FROM {t} WHERE id = 2;",
    ]
    g.block(name, pre, steps)


SCENARIOS = {"eras": eras, "hidden": hidden, "parts": parts, "genid": genid, "enums": enums}
TABLE_FILTERS = ("table.include.list", "table.exclude.list")


def s19_draws(seed: int, g: Any, props: dict[str, str]) -> dict[str, str]:
    """Properties to add; may add one or two scenarios to `g`.
    `props`: the workload's properties so far (not changed)."""
    r = random.Random(f"s19-{seed}")
    add: dict[str, str] = {}
    if r.random() < 0.5:
        # named s19_<kind> (not numbered after the others: a seed's s19 lines stay the same whether the s17/s18
        # draws added scenarios or not, which their tests switch off)
        kinds = sorted(r.sample(sorted(SCENARIOS), k=r.randint(1, 2)), key=lambda k: k == "hidden")  # it last
        if "hidden" in kinds and any(k in props for k in TABLE_FILTERS):
            kinds.remove("hidden")  # (its exclude list cannot stand beside a table filter drawn before)
        for kind in kinds:
            SCENARIOS[kind](g, f"s19_{kind}", r)
            if kind == "hidden":
                add["table.exclude.list"] = "public\\..*_gone"
            if kind == "parts" and "publish.via.partition.root" not in props:
                add["publish.via.partition.root"] = r.choice(["true", "false"])
    return add
