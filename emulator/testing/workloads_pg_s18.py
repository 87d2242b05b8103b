"""PostgreSQL draws of session 18 for the workload generator (emulator.testing.workloads), toward what users have
and the earlier draws never wrote:

- `inherit`: table inheritance (`INHERITS`): a parent's snapshot and UPDATE/DELETE reach its child's rows,
  `UPDATE ONLY`, a column added to the parent mid-stream (the child gains it too);
- `multirange`: the multirange types of PostgreSQL 14+ (int4/int8/num/date/ts/tstz), empty, unbounded and NULL;
- `merge`: PostgreSQL 15's `MERGE` (insert, update and delete in one statement), inside a transaction;
- `moves`: a table renamed and moved to another schema mid-stream, and `REPLICA IDENTITY USING INDEX` (a DELETE's
  old tuple then holds only the index's columns);
- `column.propagate.source.type` naming some columns by a regex (the first draws set `.*` only).

All from a random stream of their own (`s18-<seed>`), drawn after everything else: every older seed keeps its
workload; a drawn seed gains `-- @set` lines and the scenarios' blocks.
"""

from __future__ import annotations

import random
import re
from typing import Any


def inherit(g: Any, name: str, r: random.Random) -> None:
    p, c = f"public.{name}_p", f"public.{name}_c"
    pre = (
        f"CREATE TABLE {p} (id integer PRIMARY KEY, v text);\n"
        f"CREATE TABLE {c} (extra text) INHERITS ({p});\n"
        f"ALTER TABLE {c} ADD PRIMARY KEY (id);\n"
        f"INSERT INTO {p} VALUES (1, 'parent');\n"
        f"INSERT INTO {c} VALUES (2, 'child', 'x');\n"
    )
    if r.random() < 0.5:
        pre += f"ALTER TABLE {c} REPLICA IDENTITY FULL;\n"
    steps = [
        f"INSERT INTO {p} VALUES (3, 'p3');\nINSERT INTO {c} VALUES (4, 'c4', 'y');\nUPDATE {p} SET v = v || '!';",
        f"UPDATE ONLY {p} SET v = 'only' WHERE id = 1;\nDELETE FROM {p} WHERE id = 4;",
        f"ALTER TABLE {p} ADD COLUMN n integer DEFAULT 7;\nINSERT INTO {c} (id, v, extra, n) VALUES (5, 'c5', 'z', 8);\n"
        f"UPDATE {p} SET n = n + 1 WHERE id IN (1, 2);",
    ]
    g.block(name, pre, steps)


def multirange(g: Any, name: str, r: random.Random) -> None:
    t = f"public.{name}"
    vals = {
        "a int4multirange": ["'{}'", "'{[1,3), [5,7)}'", "'{(,5), [8,)}'", "'{[-2147483648,0]}'"],
        "b int8multirange": ["'{[1,9223372036854775806]}'", "'{}'", "'{(,)}'"],
        "c nummultirange": ["'{[1.5,2.25), (3,)}'", "'{}'", "'{[0,0]}'"],
        "d datemultirange": ["'{[2024-01-01,2024-02-01), [2024-03-01,infinity)}'", "'{}'"],
        "e tsmultirange": ['\'{["2024-01-01 10:00:00","2024-01-01 11:30:00.5")}\'', "'{}'"],
        "f tstzmultirange": ["'{[\"2024-01-01 10:00:00+02\",)}'", "'{}'"],
    }
    cols = r.sample(sorted(vals), k=r.randint(2, len(vals)))

    def row(i: int) -> str:
        return f"({i}, " + ", ".join("NULL" if r.random() < 0.15 else r.choice(vals[c]) for c in cols) + ")"

    pre = f"CREATE TABLE {t} (id integer PRIMARY KEY, {', '.join(cols)});\n"
    pre += f"INSERT INTO {t} VALUES {row(1)}, {row(2)};\n"
    c0 = cols[0].split()[0]
    steps = [
        f"INSERT INTO {t} VALUES {row(3)};\nUPDATE {t} SET {c0} = {r.choice(vals[cols[0]])} WHERE id = 1;\n"
        f"DELETE FROM {t} WHERE id = 2;"
    ]
    g.block(name, pre, steps)


def merge(g: Any, name: str, r: random.Random) -> None:
    t, s = f"public.{name}", f"public.{name}_src"
    pre = (
        f"CREATE TABLE {t} (id integer PRIMARY KEY, v text, n integer);\n"
        f"INSERT INTO {t} VALUES (1, 'a', 1), (2, 'b', 2), (3, 'c', 3);\n"
        f"CREATE TABLE {s} (id integer PRIMARY KEY, v text, n integer);\n"
    )
    if r.random() < 0.5:
        pre += f"ALTER TABLE {t} REPLICA IDENTITY FULL;\n"
    steps = [
        f"INSERT INTO {s} VALUES (1, 'a2', 10), (2, 'gone', -1), (4, 'd', 4);",
        f"BEGIN;\nMERGE INTO {t} t USING {s} s ON t.id = s.id\n"
        "WHEN MATCHED AND s.n < 0 THEN DELETE\n"
        "WHEN MATCHED THEN UPDATE SET v = s.v, n = t.n + s.n\n"
        "WHEN NOT MATCHED THEN INSERT VALUES (s.id, s.v, s.n);\n"
        f"UPDATE {s} SET n = 0;\nCOMMIT;",
        f"MERGE INTO {t} t USING (VALUES (3, 'c3'), (5, 'e')) AS s(id, v) ON t.id = s.id\n"
        "WHEN MATCHED THEN UPDATE SET v = s.v WHEN NOT MATCHED THEN DO NOTHING;",
    ]
    g.block(name, pre, steps)


def moves(g: Any, name: str, r: random.Random) -> None:
    t, ri = f"public.{name}", f"public.{name}_ri"
    other = f"{name}_schema"
    pre = (
        f"CREATE SCHEMA {other};\n"
        f"CREATE TABLE {t} (id integer PRIMARY KEY, v text);\n"
        f"INSERT INTO {t} VALUES (1, 'one'), (2, 'two');\n"
        f"CREATE TABLE {ri} (id integer PRIMARY KEY, code text NOT NULL, v text);\n"
        f"CREATE UNIQUE INDEX {name}_ri_code ON {ri} (code);\n"
        f"ALTER TABLE {ri} REPLICA IDENTITY USING INDEX {name}_ri_code;\n"
        f"INSERT INTO {ri} VALUES (1, 'c1', 'x'), (2, 'c2', 'y');\n"
    )
    steps = [
        f"ALTER TABLE {t} RENAME TO {name}_renamed;\nINSERT INTO public.{name}_renamed VALUES (3, 'three');\n"
        f"UPDATE public.{name}_renamed SET v = 'uno' WHERE id = 1;",
        f"ALTER TABLE public.{name}_renamed SET SCHEMA {other};\nINSERT INTO {other}.{name}_renamed VALUES (4, 'four');\n"
        f"DELETE FROM {other}.{name}_renamed WHERE id = 2;",
        f"UPDATE {ri} SET v = 'z' WHERE id = 1;\nUPDATE {ri} SET code = 'c9' WHERE id = 2;\nDELETE FROM {ri} WHERE id = 1;",
    ]
    if r.random() < 0.5:
        steps[0] = f"BEGIN;\n{steps[0]}\nCOMMIT;"
    g.block(name, pre, steps)


SCENARIOS = {"inherit": inherit, "multirange": multirange, "merge": merge, "moves": moves}
PROPAGATE = [
    "public\\.s\\d+_\\w+\\.(v|n)",
    ".*\\.(id|a|b|c)",
    "public\\.s\\d+_multirange\\..*",
]


def s18_draws(seed: int, g: Any, props: dict[str, str]) -> dict[str, str]:
    """Properties to add; may add one or two scenarios to `g` (numbered after the scenarios before them).
    `props`: the workload's properties so far (not changed)."""
    r = random.Random(f"s18-{seed}")
    add: dict[str, str] = {}
    if r.random() < 0.45:
        taken = [int(m) for m in re.findall(r"^-- @scenario s(\d+)_", "".join(g.pre + g.stream), re.M)]
        n = max(taken, default=-1) + 1
        for i, kind in enumerate(r.sample(sorted(SCENARIOS), k=r.randint(1, 2))):
            SCENARIOS[kind](g, f"s{n + i}_{kind}", r)
    if r.random() < 0.15 and "column.propagate.source.type" not in props:
        add["column.propagate.source.type"] = r.choice(PROPAGATE)
    return add
