"""PostgreSQL draws of session 20 for the workload generator (emulator.testing.workloads), toward what no campaign drew:

- `colkeys`: column filters that leave out a key column (`column.exclude.list`, or a `column.include.list` that
  keeps every other table whole): the harness's recognition of the deliberate `key_column_excluded_snapshot` /
  `key_columns_excluded_snapshot_lost` (emulator.testing.deliberate) and the streamed keys beside it, sometimes with
  `message.key.columns` naming an excluded column;
- `gonedrop`: a captured table renamed into a name `table.exclude.list` leaves out, a column dropped there, written,
  renamed back and written again (session 19's `hidden` widened it; here it narrows);
- `snaperas`: far-future (year > 9999, up to 294276), `infinity`/`-infinity`, BC and 1582-gap timestamp/timestamptz
  values and timestamp[]/timestamptz[] IN THE SNAPSHOT (and streamed). No BC or gap `date` and no date[]: a date
  read over JDBC is the deliberate `date_bc_jdbc_lost`; far-future and infinite dates are safe (checked, session 20);
  array elements are never before 1582-10-15 (the deliberate `timestamp_array_bc_jdbc_lost`).

From a random stream of their own (`s20-<seed>`), drawn after everything else: every older seed keeps its workload;
a drawn seed gains `-- @set` lines and the scenarios' blocks (named `s20_<kind>`). None of these tables is in
`g.snapshot_tables`: no signal or snapshot override names them.
"""

from __future__ import annotations

import random
from typing import Any

TS = [
    "'10000-01-01 00:00:00'",
    "'12345-06-07 08:09:10.5'",
    "'294276-12-31 23:59:59.999999'",
    "'294247-01-10 04:00:54.775808'",
    "'infinity'",
    "'-infinity'",
    "'0044-03-15 12:00:00.5 BC'",
    "'4713-01-01 00:00:00 BC'",
    "'1582-10-10 08:30:00'",
    "'0001-01-01 00:00:00'",
]
TZ = [
    "'10000-01-01 00:00:00+00'",
    "'20000-01-01 00:00:00-08'",
    "'294276-12-31 23:59:59.999999+00'",
    "'infinity'",
    "'-infinity'",
    "'0001-01-01 00:00:00+00 BC'",
    "'0300-06-01 10:00:00+05:30 BC'",
    "'1582-10-10 12:00:00+01'",
]
# array elements: none before 1582-10-15 (Debezium reads them through the Julian calendar: the deliberate
# timestamp_array_bc_jdbc_lost)
TS_ARR = [v for v in TS if " BC" not in v and "1582-10-10" not in v and "0001-01-01" not in v]
TZ_ARR = [v for v in TZ if " BC" not in v and "1582-10-10" not in v]
DATES = ["'infinity'", "'-infinity'", "'10000-01-01'", "'5874897-12-31'", "'1582-10-15'", "'2024-02-29'"]


def snaperas(g: Any, name: str, r: random.Random) -> None:
    t = f"public.{name}"

    def val(vals: list[str]) -> str:
        return "NULL" if r.random() < 0.1 else r.choice(vals)

    def arr(vals: list[str], cast: str) -> str:
        if r.random() < 0.15:
            return "NULL"
        return "ARRAY[" + ", ".join(r.choice(vals) for _ in range(r.randint(1, 3))) + f"]::{cast}[]"

    def row(i: int) -> str:
        return (
            f"({i}, {val(TS)}, {val(TS)}, {val(TZ)}, {val(DATES)}, {arr(TS_ARR, 'timestamp')}, "
            f"{arr(TZ_ARR, 'timestamptz')})"
        )

    pre = (
        f"CREATE TABLE {t} (id integer PRIMARY KEY, ts timestamp, ts3 timestamp(3), tz timestamptz, d date, "
        "tsa timestamp[], tza timestamptz[]);\n"
        f"INSERT INTO {t} VALUES {', '.join(row(i) for i in range(1, r.randint(3, 6)))};\n"
    )
    if r.random() < 0.5:
        pre += f"ALTER TABLE {t} REPLICA IDENTITY FULL;\n"
    steps = [
        f"INSERT INTO {t} VALUES {row(10)}, {row(11)};",
        f"UPDATE {t} SET ts = {r.choice(TS)}, tza = {arr(TZ_ARR, 'timestamptz')} WHERE id = 1;\n"
        f"UPDATE {t} SET tz = {r.choice(TZ)}, tsa = {arr(TS_ARR, 'timestamp')} WHERE id = 10;\n"
        f"DELETE FROM {t} WHERE id = 2;",
    ]
    g.block(name, pre, steps)


def colkeys(g: Any, name: str, r: random.Random) -> dict[str, str]:
    """A table whose key column `k` the column filters leave out (rows in the snapshot and streamed); returns the
    properties. A default on `k` in half (Debezium's snapshot keys then hold it)."""
    t, n = f"public.{name}", f"public.{name}_nk"
    default = " DEFAULT 7" if r.random() < 0.5 else ""
    pre = (
        f"CREATE TABLE {t} (k integer{default}, id integer NOT NULL, v text, x text, PRIMARY KEY (k, id));\n"
        f"INSERT INTO {t} VALUES (1, 1, 'one', 'a'), (2, 2, 'two', 'b'), (3, 3, 'three', 'c');\n"
        f"CREATE TABLE {n} (id integer NOT NULL, code varchar(8), v text);\n"
        f"ALTER TABLE {n} REPLICA IDENTITY FULL;\n"
        f"INSERT INTO {n} VALUES (1, 'a', 'one'), (2, 'b', 'two');\n"
    )
    steps = [
        f"INSERT INTO {t} VALUES (4, 4, 'four', 'd');\nUPDATE {t} SET v = 'uno' WHERE k = 1;\n"
        f"INSERT INTO {n} VALUES (3, 'c', 'three');",
        f"DELETE FROM {t} WHERE k = 2;\nUPDATE {n} SET code = 'bb' WHERE id = 2;",
    ]
    g.block(name, pre, steps)
    props: dict[str, str] = {}
    if r.random() < 0.5:
        props["column.exclude.list"] = f"public\\.{name}\\.(k|x),public\\.{name}_nk\\.code"
    else:  # every other table's columns kept whole (a negative lookahead, as Java's and Python's regexes read it)
        props["column.include.list"] = (
            f"(?!public\\.{name}(_nk)?\\.).*,public\\.{name}\\.(id|v),public\\.{name}_nk\\.(id|v)"
        )
    if r.random() < 0.5:
        props["message.key.columns"] = f"public\\.{name}_nk:code"
    return props


def gonedrop(g: Any, name: str, r: random.Random) -> None:
    """Debezium decodes the narrower tuples with the old columns by position (case
    table_renamed_out_of_filters_narrowed); text columns only: a shifted value that does not parse as its old
    column's type stops both engines, which the harness would count as Debezium's lost last batch."""
    t, h = f"public.{name}", f"public.{name}_gone"
    pre = f"CREATE TABLE {t} (id integer PRIMARY KEY, a text, b text, c text);\n"
    pre += f"INSERT INTO {t} VALUES (1, 'a1', 'b1', 'c1'), (2, 'a2', 'b2', 'c2');\n"
    if r.random() < 0.5:
        pre += f"ALTER TABLE {t} REPLICA IDENTITY FULL;\n"
    dropped = r.choice(["a", "b", "c"])
    left = ", ".join(f"'{c}5'" for c in "abc" if c != dropped)
    steps = [
        f"INSERT INTO {t} VALUES (3, 'a3', 'b3', 'c3');",
        f"ALTER TABLE {t} RENAME TO {name}_gone;\nINSERT INTO {h} VALUES (4, 'a4', 'b4', 'c4');",
        f"ALTER TABLE {h} DROP COLUMN {dropped};\nINSERT INTO {h} VALUES (5, {left});\n"
        f"UPDATE {h} SET id = 7 WHERE id = 4;\nDELETE FROM {h} WHERE id = 2;",
        f"ALTER TABLE {h} RENAME TO {name};\nINSERT INTO {t} VALUES (6, {left.replace('5', '6')});\n"
        f"UPDATE {t} SET id = 8 WHERE id = 3;",
    ]
    g.block(name, pre, steps)


TABLE_FILTERS = ("table.include.list", "table.exclude.list")
COLUMN_PROPS = ("column.include.list", "column.exclude.list", "message.key.columns")


def s20_draws(seed: int, g: Any, props: dict[str, str]) -> dict[str, str]:
    """Properties to add; may add up to three scenarios to `g`. `props`: the workload's properties so far (not
    changed)."""
    r = random.Random(f"s20-{seed}")
    add: dict[str, str] = {}
    if r.random() >= 0.5:
        return add
    kinds = r.sample(["colkeys", "gonedrop", "snaperas"], k=r.randint(1, 2))
    for kind in sorted(kinds):
        name = f"s20_{kind}"
        if kind == "snaperas":
            snaperas(g, name, r)
        elif kind == "colkeys" and not any(k in props for k in COLUMN_PROPS):
            add.update(colkeys(g, name, r))
        elif kind == "gonedrop" and not any(k in props for k in TABLE_FILTERS):
            gonedrop(g, name, r)
            add["table.exclude.list"] = "public\\..*_gone"
    return add
