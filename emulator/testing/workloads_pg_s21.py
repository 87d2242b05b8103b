"""PostgreSQL draws of session 21 for the workload generator (emulator.testing.workloads):

- properties the emulator accepts since session 21 (each recorded against Debezium 3.6.3, pg cases
  snapshot_locking_shared, snapshot_order_by_row_count_*, converting_*): `snapshot.locking.mode=shared`,
  `snapshot.tables.order.by.row.count` ascending/descending, `event.converting.failure.handling.mode` skip/fail
  (`fail` only without snapshot threads or multipliers: which snapshot records precede a stop with threads is not
  comparable), `event.processing.failure.handling.mode` warn/skip (not beside threads: refused there);
- `colkeys` again (session 20's, here under `s21_colkeys`): a key column the column filters leave out, the
  harness's recognition of `key_column_excluded_snapshot` / `_lost`; drawn where no column filter was drawn before
  (session 20 drew it in 3 of 34 workloads);
- `julian`: what README's deliberate differences kept out of every draw, now recognized by the harness
  (emulator.testing.deliberate_julian): timestamp[] / timestamptz[] / date[] elements and snapshot date scalars before
  1582-10-15 (BC, the 1582 gap), which Debezium reads in the Julian calendar. No BC year past 1581 where Debezium
  drops the era (timestamptz[] elements, dates): 4713-01-01 BC would land in 4713 AD, which the harness does not take
  for a Julian reading.

From a random stream of their own (`s21-<seed>`), drawn after everything else: every older seed keeps its workload;
a drawn seed gains `-- @set` lines and the scenarios' blocks (named `s21_<kind>`). None of these tables is in
`g.snapshot_tables`: no signal or snapshot override names them.
"""

from __future__ import annotations

import random
from typing import Any

from emulator.testing.workloads_pg_s20 import COLUMN_PROPS, colkeys

TS = [
    "'0044-03-15 12:00:00.5 BC'",
    "'4713-01-01 00:00:00 BC'",
    "'1582-10-10 08:30:00'",
    "'1000-03-01 00:00:00'",
]
TS += ["'1582-10-15 00:00:00'", "'2024-02-29 10:00:00.123456'", "'infinity'"]
TZ = ["'0300-06-01 10:00:00+05:30 BC'", "'0001-01-01 00:00:00+00 BC'", "'1582-10-04 23:59:59+00'"]
TZ += ["'0900-12-31 23:00:00-03'", "'1582-10-15 00:00:00+00'", "'2020-01-01 00:00:00+00'", "'-infinity'"]
DATES = ["'0044-03-15 BC'", "'0001-01-01 BC'", "'1582-10-10'", "'1582-10-04'", "'0800-12-25'", "'1582-10-15'"]
DATES += ["'2024-02-29'", "'infinity'"]


def julian(g: Any, name: str, r: random.Random) -> None:
    t = f"public.{name}"

    def val(vals: list[str]) -> str:
        return "NULL" if r.random() < 0.1 else r.choice(vals)

    def arr(vals: list[str], cast: str) -> str:
        if r.random() < 0.15:
            return "NULL"
        return "ARRAY[" + ", ".join(r.choice(vals) for _ in range(r.randint(1, 3))) + f"]::{cast}[]"

    def row(i: int) -> str:
        return f"({i}, {val(DATES)}, {arr(TS, 'timestamp')}, {arr(TZ, 'timestamptz')}, {arr(DATES, 'date')})"

    pre = (
        f"CREATE TABLE {t} (id integer PRIMARY KEY, d date, tsa timestamp[], tza timestamptz[], da date[]);\n"
    )
    pre += f"INSERT INTO {t} VALUES {', '.join(row(i) for i in range(1, r.randint(3, 6)))};\n"
    if r.random() < 0.5:
        pre += f"ALTER TABLE {t} REPLICA IDENTITY FULL;\n"
    steps = [
        f"INSERT INTO {t} VALUES {row(10)}, {row(11)};",
        f"UPDATE {t} SET tsa = {arr(TS, 'timestamp')}, d = {r.choice(DATES)} WHERE id = 1;\n"
        f"UPDATE {t} SET tza = {arr(TZ, 'timestamptz')}, da = {arr(DATES, 'date')} WHERE id = 10;\n"
        f"DELETE FROM {t} WHERE id = 2;",
    ]
    g.block(name, pre, steps)


THREADS = "snapshot.max.threads"  # (and its multipliers, global or per table)


def s21_draws(seed: int, g: Any, props: dict[str, str]) -> dict[str, str]:
    """Properties to add; may add up to two scenarios to `g`. `props`: the workload's properties so far (not
    changed)."""
    r = random.Random(f"s21-{seed}")
    add: dict[str, str] = {}
    if r.random() >= 0.55:
        return add
    if r.random() < 0.35 and "snapshot.locking.mode" not in props:
        add["snapshot.locking.mode"] = "shared"
    if r.random() < 0.35:
        add["snapshot.tables.order.by.row.count"] = r.choice(["ascending", "descending"])
    x = r.random()
    if x < 0.2:
        add["event.converting.failure.handling.mode"] = "skip"
    elif x < 0.3 and not any(k.startswith(THREADS) for k in props):
        add["event.converting.failure.handling.mode"] = "fail"
    if r.random() < 0.25 and not any(k.startswith(THREADS) for k in props):
        add["event.processing.failure.handling.mode"] = r.choice(["warn", "skip"])
    for kind in sorted(r.sample(["colkeys", "julian"], k=r.randint(1, 2))):
        name = f"s21_{kind}"
        if kind == "julian":
            julian(g, name, r)
        elif not any(k in props for k in COLUMN_PROPS):
            add.update(colkeys(g, name, r))
    return add
