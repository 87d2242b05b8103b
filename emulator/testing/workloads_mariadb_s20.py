"""(session 20) MariaDB draws for the workload generator (emulator.testing.workloads_mariadb) that no older draw
makes, from random streams of their own (`s20-<seed>`), so every older seed keeps its lines (a seed that draws
this only gains the block and its `time.precision.mode` line):

* `time20`: `time.precision.mode` set to microseconds, nanoseconds or isostring (the modes the emulator accepts
  since this session; in a third of them `enable.time.adjuster=false` too) over a table of every temporal type: DATE, TIME(0-6), DATETIME(0-6), TIMESTAMP(0-6), YEAR,
  nullable columns with edge values (zero dates, negative and out-of-day TIME, 24:00:00, years 0001-0099,
  DATETIMEs outside NanoTimestamp's range, NULL) and NOT NULL columns with DEFAULTs and values every mode can
  carry (an out-of-range value there stops both connectors: recorded as cases, not drawn), in the snapshot and
  the stream, an ALTER adding temporal columns with defaults, UPDATE and DELETE.

Only MySQL-grammar syntax; the stream's session sql_mode is set back at the block's end.
"""

from __future__ import annotations

import random
from typing import Any

MODES = ("microseconds", "nanoseconds", "isostring")

DATES = ["'2021-03-04'", "'0000-00-00'", "'1000-01-01'", "'9999-12-31'", "'1969-12-31'", "'0069-12-31'",
         "'0070-01-01'", "'2020-00-15'", "NULL"]  # fmt: skip
TIMES = ["'12:34:56.789012'", "'-838:59:59'", "'838:59:59'", "'24:00:00'", "'-00:00:00.000001'", "'00:00:00'",
         "'23:59:59.999999'", "'100:00:00.5'", "NULL"]  # fmt: skip
DATETIMES = ["'2021-03-04 05:06:07.123456'", "'0000-00-00 00:00:00'", "'1000-01-01 00:00:00'",
             "'9999-12-31 23:59:59.999999'", "'1969-12-31 23:59:59.999999'", "'1677-09-21 00:12:43'",
             "'2262-04-11 23:47:16.854775'", "'2262-04-12 00:00:00'", "'0001-01-01 00:00:00.5'",
             "'2020-00-15 00:00:00'", "NULL"]  # fmt: skip
TIMESTAMPS = ["'2021-03-04 05:06:07.5'", "'1970-01-01 00:00:01'", "'2038-01-19 03:14:07.999999'",
              "'0000-00-00 00:00:00'", "NULL"]  # fmt: skip
YEARS = ["0", "1901", "2155", "70", "NULL"]
# NOT NULL columns: values every mode converts (plus zero dates, read as the default)
DATES_NN = ["'2021-03-04'", "'0000-00-00'", "'1970-01-01'", "'0050-05-05'"]
TIMES_NN = ["'00:00:00'", "'23:59:59.5'", "'24:00:00'", "'12:00:00.000001'"]
DATETIMES_NN = ["'2021-03-04 05:06:07.654321'", "'0000-00-00 00:00:00'", "'1969-12-31 23:59:59.999999'",
                "'2200-01-01 00:00:00'"]  # fmt: skip


class _Scenario:
    def __init__(self, name: str) -> None:
        self.name, self.pre, self.stream = name, [], []


def time20(rng: random.Random, s: Any, t: str) -> None:
    ft, fd, fs, fn = (rng.randint(0, 6) for _ in range(4))
    cols = (
        f"id INT PRIMARY KEY, d DATE, t0 TIME, t1 TIME({ft}), dt0 DATETIME, dt1 DATETIME({fd}), "
        f"ts TIMESTAMP({fs}) NULL, y YEAR, dn DATE NOT NULL DEFAULT '2020-01-02', tn TIME NOT NULL DEFAULT "
        f"'01:02:03', dtn DATETIME({fn}) NOT NULL DEFAULT '2001-02-03 04:05:06.5'"
    )

    def row(i: int) -> str:
        vals = [
            str(i),
            rng.choice(DATES),
            rng.choice(TIMES),
            rng.choice(TIMES),
            rng.choice(DATETIMES),
            rng.choice(DATETIMES),
            rng.choice(TIMESTAMPS),
            rng.choice(YEARS),
            rng.choice(DATES_NN),
            rng.choice(TIMES_NN),
            rng.choice(DATETIMES_NN),
        ]
        return "(" + ", ".join(vals) + ")"

    s.pre += [
        "SET SESSION sql_mode = '';",
        f"CREATE TABLE {t} ({cols});",
        f"INSERT INTO {t} VALUES {', '.join(row(i) for i in range(1, rng.randint(3, 6)))};",
        f"INSERT INTO {t} (id) VALUES (99);",
        "SET SESSION sql_mode = DEFAULT;",
    ]
    stream = ["SET SESSION sql_mode = '';"]
    for i in range(10, 10 + rng.randint(2, 4)):
        stream.append(f"INSERT INTO {t} VALUES {row(i)};")
    stream += [
        f"UPDATE {t} SET t1 = {rng.choice(TIMES)}, dt1 = {rng.choice(DATETIMES)} WHERE id = 1;",
        f"ALTER TABLE {t} ADD COLUMN da DATE DEFAULT {rng.choice(DATES_NN)}, ADD COLUMN ta TIME({rng.randint(0, 6)}) "
        f"DEFAULT {rng.choice(TIMES[:-1])}, ADD COLUMN dta DATETIME({rng.randint(0, 6)}) DEFAULT "
        f"{rng.choice(DATETIMES_NN)};",
        f"INSERT INTO {t} (id, d, t1, dt1) VALUES (20, {rng.choice(DATES)}, {rng.choice(TIMES)}, "
        f"{rng.choice(DATETIMES)});",
        f"INSERT INTO {t} (id) VALUES (21);",
        f"DELETE FROM {t} WHERE id = 2;",
        "SET SESSION sql_mode = DEFAULT;",
    ]
    s.stream += stream


def draws(seed: int, props: dict[str, str], scenarios: list[Any]) -> None:
    """`time20` in ~35 % of seeds, with one of MODES as time.precision.mode (replacing an older draw's); a third
    of those (another stream, `s20a-<seed>`: added after the block) with enable.time.adjuster=false (its years
    0001-0099 kept as stored)."""
    r = random.Random(f"s20-{seed}")
    if r.random() < 0.35:
        props["time.precision.mode"] = r.choice(MODES)
        s = _Scenario("time20x")
        time20(r, s, s.name)
        scenarios.append(s)
        if random.Random(f"s20a-{seed}").random() < 0.33:
            props["enable.time.adjuster"] = "false"
