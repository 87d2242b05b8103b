"""PostgreSQL draws of session 17 for the workload generator (emulator.testing.workloads), toward what users have
and the earlier draws never wrote:

- a `bulk` scenario: `COPY ... FROM stdin` in text and CSV format (NULLs, escapes, bytea, non-ASCII), a large
  transaction with savepoints (`ROLLBACK TO SAVEPOINT`: those changes are never decoded; `RELEASE SAVEPOINT`:
  they are), a transaction rolled back whole, a plpgsql block whose inner exception undoes a subtransaction, and
  a bulk DELETE;
- `snapshot.select.statement.overrides` naming several tables (the first draws name one);
- several signals in one transaction: two `execute-snapshot`s, or a `log` signal beside one;
- `slot.drop.on.stop=true`.

All from a random stream of their own (`s17-<seed>`), drawn after everything else: every older seed keeps its
workload; a drawn seed gains `-- @set` lines, the `bulk` scenario and (where no signal was drawn) an incremental
section.
"""

from __future__ import annotations

import json
import random
import re
from typing import Any

# the tables the first draws' override may name: no quoted names, no odd or missing `id` columns
_NO_OVERRIDE = ('"', "oddkeys", "keycols")
# execute-snapshot candidates, as workloads_pg_users.signal leaves them out (no key, stored generated columns, ...)
_NO_SIGNAL = ('"', "oddkeys", "keycols", "generated", "_keys")
OVERRIDES = [
    "SELECT * FROM {t} WHERE id > 1",
    "SELECT * FROM {t} ORDER BY id DESC",
    "SELECT * FROM {t} WHERE id % 2 = 1",
]

# COPY's text format: tab-separated, \N a NULL, backslash escapes (\t a tab, \\ a backslash, \\x... bytea hex)
COPY_TEXT = (
    "10\tplain\t1.50\t\\\\x0102ff\t2024-01-02 03:04:05+00\n"
    "11\ttab\\there\t\\N\t\\N\t\\N\n"
    "12\tback\\\\slash ü\t-3.25\t\\\\x\t2024-02-29 12:00:00+05:30\n"
    "13\t\t0\t\\N\tinfinity\n"
    "\\.\n"
)
COPY_CSV = (
    "id,v,n,b,ts\n"
    '10,"comma, and ""quote""",1.50,\\x0102ff,2024-01-02 03:04:05+00\n'
    "11,,,,\n"
    '12,"",-3.25,\\x,2024-02-29 12:00:00+05:30\n'
    '13,"line\nbreak ü",0,,infinity\n'
    "\\.\n"
)


def bulk(g: Any, name: str, r: random.Random) -> None:
    """COPY, savepoints and rollbacks, a large transaction (see the module's docstring)."""
    tbl = f"public.{name}"
    ident = r.choice(["DEFAULT", "FULL"])
    n = r.choice([40, 120, 300])
    pre = (
        f"CREATE TABLE {tbl} (id integer PRIMARY KEY, v text, n numeric(10,2), b bytea, ts timestamptz);\n"
        f"ALTER TABLE {tbl} REPLICA IDENTITY {ident};\n"
        f"INSERT INTO {tbl} (id, v, n) VALUES (1, 'one', 1), (2, 'two', 2);\n"
    )
    if r.random() < 0.5:
        copy = f"COPY {tbl} (id, v, n, b, ts) FROM stdin;\n{COPY_TEXT}"
    else:
        copy = f"COPY {tbl} (id, v, n, b, ts) FROM stdin WITH (FORMAT csv, HEADER true);\n{COPY_CSV}"
    last = 100 + n - 1
    steps = [
        copy + f"UPDATE {tbl} SET v = 'copied' WHERE id = 11;",
        f"BEGIN;\nINSERT INTO {tbl} (id, v, n) SELECT i, 'bulk ' || i, i / 4.0 FROM generate_series(100, {last}) i;\n"
        f"SAVEPOINT sp1;\nUPDATE {tbl} SET v = 'undone' WHERE id < 110;\nINSERT INTO {tbl} (id, v) VALUES (5, 'undone');\n"
        f"ROLLBACK TO SAVEPOINT sp1;\nSAVEPOINT sp2;\nDELETE FROM {tbl} WHERE id > {last - 5};\n"
        f"UPDATE {tbl} SET v = 'in sp2' WHERE id = 1;\nRELEASE SAVEPOINT sp2;\n"
        f"UPDATE {tbl} SET n = n + 1 WHERE id = 100;\nCOMMIT;",
        f"BEGIN;\nINSERT INTO {tbl} (id, v) VALUES (900, 'never');\nUPDATE {tbl} SET v = 'never' WHERE id = 2;\n"
        f"ROLLBACK;\nDO $$ BEGIN INSERT INTO {tbl} (id, v) VALUES (901, 'kept'); BEGIN INSERT INTO {tbl} (id, v) "
        f"VALUES (902, 'undone'); RAISE EXCEPTION 'undo'; EXCEPTION WHEN OTHERS THEN NULL; END; END $$;\n"
        # (not row 100: updated in the large transaction, its live version's place in the heap - so its place among a
        # bulk DELETE's rows - depends on when a page was pruned; campaign seed 44709003 had it first in one run
        # and last in the other)
        f"BEGIN;\nDELETE FROM {tbl} WHERE id BETWEEN 101 AND {100 + n // 2};\nUPDATE {tbl} SET ts = '2020-01-01 00:00:00+00' "
        f"WHERE id = 10;\nCOMMIT;",
    ]
    g.snapshot_tables.append(tbl)
    g.block(name, pre, steps)


def _signals(r: random.Random, tables: list[str]) -> str | None:
    """One transaction of several signals (the first draws send one signal alone)."""
    cands = [t for t in tables if not any(k in t for k in _NO_SIGNAL)]
    if not cands:
        return None

    def row(sid: str, typ: str, data: dict) -> str:
        text = json.dumps(data).replace("'", "''")
        return f"INSERT INTO public.debezium_signal (id, type, data) VALUES ('{sid}', '{typ}', '{text}');\n"

    first = r.choice(cands)
    rows = [row("incr-1", "execute-snapshot", {"data-collections": [first], "type": "incremental"})]
    others = [t for t in cands if t != first]
    if others and r.random() < 0.5:
        rows.append(
            row("incr-2", "execute-snapshot", {"data-collections": [r.choice(others)], "type": "incremental"})
        )
    else:
        rows.insert(r.randint(0, 1), row("log-1", "log", {"message": "signal beside a snapshot"}))
    return "BEGIN;\n" + "".join(rows) + "COMMIT;\n"


def s17_draws(seed: int, g: Any, props: dict[str, str], can_signal: bool) -> dict[str, str]:
    """Properties to add; may add the `bulk` scenario (numbered after the scenarios before it) and a signal
    transaction to `g`. `can_signal`: the workload streams and captures the signal table (as the first draws
    require). `props`: the workload's properties so far (not changed)."""
    r = random.Random(f"s17-{seed}")
    add: dict[str, str] = {}
    if r.random() < 0.3:
        taken = [int(m) for m in re.findall(r"^-- @scenario s(\d+)_", "".join(g.pre + g.stream), re.M)]
        bulk(g, f"s{max(taken, default=-1) + 1}_bulk", r)
    plain = [t for t in g.snapshot_tables if not any(k in t for k in _NO_OVERRIDE)]
    # (not where the first draws named one: their line would change)
    if len(plain) > 1 and r.random() < 0.15 and "snapshot.select.statement.overrides" not in props:
        named = r.sample(plain, k=min(len(plain), r.randint(2, 3)))
        add["snapshot.select.statement.overrides"] = ",".join(named)
        for t in named:
            add[f"snapshot.select.statement.overrides.{t}"] = r.choice(OVERRIDES).format(t=t)
    if can_signal and not g.incremental and r.random() < 0.25:
        sig = _signals(r, g.snapshot_tables)
        if sig:
            g.incremental.append(sig)
    if r.random() < 0.15:
        add["slot.drop.on.stop"] = "true"
    return add
