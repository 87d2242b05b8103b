"""PostgreSQL draws of session 16 for the workload generator (emulator.testing.workloads), toward what users have
and the earlier draws never wrote:

- `skip.messages.without.change=true`, and a scenario (`nochange`) whose UPDATEs change nothing (`SET v = v`,
  under REPLICA IDENTITY FULL, where Debezium can compare before and after, and DEFAULT, where it cannot), beside
  TRUNCATE ... CASCADE over a foreign key and TRUNCATE ... RESTART IDENTITY inside transactions with row changes;
- `heartbeat.action.query`: `INSERT ... ON CONFLICT DO NOTHING` into a table of its own whose row is there before
  the capture starts, so the query runs at every heartbeat and writes nothing: no record in either engine. A
  query that wrote its row once (the first version) made a record whose place among the workload's transactions
  is heartbeat timing: campaign seed 44706008 had it before the first stream transaction in the emulator and after
  it in Debezium (`source.sequence` and the transaction records differed).

All from a random stream of their own (`extra-<seed>`), drawn after everything else: every older seed keeps its
workload, a drawn seed only gains `-- @set` lines, a scenario and the heartbeat table.
"""

from __future__ import annotations

import random
from typing import Any

HEARTBEAT_TABLE = "public.dbz_heartbeat"
HEARTBEAT_DDL = (
    f"CREATE TABLE {HEARTBEAT_TABLE} (id integer PRIMARY KEY, note text DEFAULT 'hb');\n"
    f"INSERT INTO {HEARTBEAT_TABLE} (id) VALUES (1);\n"
)
HEARTBEAT_QUERY = f"INSERT INTO {HEARTBEAT_TABLE} (id) VALUES (1) ON CONFLICT (id) DO NOTHING"


def nochange(g: Any, name: str) -> None:
    """UPDATEs that change nothing and TRUNCATEs in transactions (see the module's docstring)."""
    full, dflt, child = f"public.{name}_full", f"public.{name}_def", f"public.{name}_child"
    pre = (
        f"CREATE TABLE {full} (id integer PRIMARY KEY, v text, n integer);\n"
        f"ALTER TABLE {full} REPLICA IDENTITY FULL;\n"
        f"INSERT INTO {full} VALUES (1, 'one', 1), (2, 'two', NULL);\n"
        f"CREATE TABLE {dflt} (id serial PRIMARY KEY, v text, n integer);\n"
        f"INSERT INTO {dflt} (v, n) VALUES ('a', 1), ('b', 2);\n"
        f"CREATE TABLE {child} (id integer PRIMARY KEY, pid integer REFERENCES {dflt} (id), w text);\n"
        f"INSERT INTO {child} VALUES (1, 1, 'x');\n"
    )
    steps = [
        f"UPDATE {full} SET v = v WHERE id = 1;\nUPDATE {full} SET n = n WHERE id = 2;\n"
        f"UPDATE {full} SET v = 'deux' WHERE id = 2;\nUPDATE {dflt} SET v = v WHERE id = 1;\n"
        f"UPDATE {full} SET n = NULL WHERE id = 2;",
        f"BEGIN;\nINSERT INTO {dflt} (v, n) VALUES ('c', 3);\nINSERT INTO {child} VALUES (2, 2, 'y');\n"
        f"TRUNCATE {dflt} CASCADE;\nINSERT INTO {dflt} (v, n) VALUES ('d', 4);\nCOMMIT;",
        f"BEGIN;\nUPDATE {full} SET v = 'uno', n = n WHERE id = 1;\nTRUNCATE {dflt}, {child} RESTART IDENTITY;\n"
        f"INSERT INTO {dflt} (v, n) VALUES ('e', 5);\nCOMMIT;\nDELETE FROM {full} WHERE id = 2;",
    ]
    g.snapshot_tables.append(full)
    g.block(name, pre, steps)


def extra_draws(seed: int, g: Any, streaming: bool, n_scenarios: int) -> tuple[dict[str, str], str]:
    """(properties to add, DDL for the pre section's common part); may add the `nochange` scenario to `g`
    (named after the `n_scenarios` before it). `streaming`: the workload's snapshot.mode streams."""
    r = random.Random(f"extra-{seed}")
    add: dict[str, str] = {}
    ddl = ""
    if r.random() < 0.3:
        nochange(g, f"s{n_scenarios}_nochange")
    if r.random() < 0.25:
        add["skip.messages.without.change"] = "true"
    # (initial_only never streams: no heartbeat runs the query in either engine)
    if r.random() < 0.2 and streaming:
        add["heartbeat.action.query"] = HEARTBEAT_QUERY
        ddl = HEARTBEAT_DDL
    return add, ddl
