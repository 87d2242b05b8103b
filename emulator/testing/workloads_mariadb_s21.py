"""(session 21) MariaDB draws for the workload generator (emulator.testing.workloads_mariadb) that no older draw
makes, from random streams of their own (`s21-<seed>`, `s21p-<seed>`), so every older seed keeps its lines (a
seed that draws this only gains the block and its property lines):

* `incons21x` (~25 % of seeds without a `table.include.list`): `inconsistent.schema.handling.mode` warn, skip or
  ignore with `schema.history.internal.store.only.captured.tables.ddl=true` and a table left out of the
  snapshot's schema by `table.exclude.list`, then renamed to a captured name: its rows (inserts, updates,
  deletes, alone, in a transaction with a known table's rows, after an ALTER of it) have no known schema and are
  skipped; the known table's rows go on (recorded: cases inconsistent_schema_skip / _warn);
* `event.deserialization.failure.handling.mode` (deprecated, read by nothing in Debezium 3.6.3),
  `gtid.source.filter.dml.events=false` (no GTID source list is set: nothing filtered) and
  `event.processing.failure.handling.mode` warn/skip/ignore, each in ~15 % of seeds.

Only MySQL-grammar syntax.
"""

from __future__ import annotations

import random
from typing import Any

INCONSISTENT_MODES = ("warn", "skip", "ignore")
FAILURE_MODES = ("fail", "warn", "skip", "ignore")


class _Scenario:
    def __init__(self, name: str) -> None:
        self.name, self.pre, self.stream = name, [], []


def incons21(rng: random.Random, s: Any, t: str) -> None:
    """`{t}_k` captured from the snapshot on, `{t}_h` excluded (so not in the history), renamed to `{t}_t`."""
    k, h, u = f"{t}_k", f"{t}_h", f"{t}_t"
    s.pre += [
        f"CREATE TABLE {k} (id INT PRIMARY KEY, a INT);",
        f"CREATE TABLE {h} (id INT PRIMARY KEY, a VARCHAR(10));",
        f"INSERT INTO {k} VALUES (1, 1), (2, 2);",
        f"INSERT INTO {h} VALUES (1, 'one'), (2, 'two');",
    ]
    stream = [f"INSERT INTO {k} VALUES (3, 3);", f"RENAME TABLE {h} TO {u};"]
    n = 10
    for _ in range(rng.randint(3, 7)):
        n += 1
        form = rng.choice(["ins_t", "ins_k", "upd_t", "del_t", "tx", "alter", "upd_k"])
        if form == "ins_t":
            stream.append(f"INSERT INTO {u} (id, a) VALUES ({n}, 'v{n}'), ({n + 100}, NULL);")
        elif form == "ins_k":
            stream.append(f"INSERT INTO {k} VALUES ({n}, {n});")
        elif form == "upd_t":
            stream.append(f"UPDATE {u} SET a = 'u{n}' WHERE id <= 2;")
        elif form == "del_t":
            stream.append(f"DELETE FROM {u} WHERE id = 1;")
        elif form == "upd_k":
            stream.append(f"UPDATE {k} SET a = a + 1 WHERE id = 1;")
        elif form == "tx":
            stream += [
                "BEGIN;",
                f"INSERT INTO {k} VALUES ({n}, {n});",
                f"INSERT INTO {u} (id, a) VALUES ({n}, 'tx');",
                f"UPDATE {k} SET a = -1 WHERE id = {n};",
                "COMMIT;",
            ]
        else:
            stream.append(f"ALTER TABLE {u} ADD COLUMN c{n} INT DEFAULT {n};")
    stream.append(f"INSERT INTO {k} VALUES (99, 99);")
    s.stream += stream


def draws(seed: int, props: dict[str, str], scenarios: list[Any]) -> None:
    r = random.Random(f"s21-{seed}")
    if r.random() < 0.25 and "table.include.list" not in props:
        s = _Scenario("incons21x")
        incons21(r, s, s.name)
        scenarios.append(s)
        props["inconsistent.schema.handling.mode"] = r.choice(INCONSISTENT_MODES)
        props["schema.history.internal.store.only.captured.tables.ddl"] = "true"
        hidden = "inventory\\.incons21x_h"
        props["table.exclude.list"] = ",".join(x for x in (props.get("table.exclude.list"), hidden) if x)
    p = random.Random(f"s21p-{seed}")
    if p.random() < 0.15:
        props["event.deserialization.failure.handling.mode"] = p.choice(FAILURE_MODES)
    if p.random() < 0.15:
        props["gtid.source.filter.dml.events"] = "false"
    if (
        p.random() < 0.15
    ):  # (added after seeds 161-163 ran) the failures it drops are recorded cases, not drawn
        props["event.processing.failure.handling.mode"] = p.choice(("warn", "skip", "ignore"))
