"""(session 23) MariaDB draws for the workload generator (emulator.testing.workloads_mariadb): column types, DEFAULTs
and DDL forms no earlier draw made, from a random stream of their own (`s23-<seed>`), so every older seed keeps its
lines (a seed that draws them only gains the block):

* `types23x` (~50 % of seeds): a table of 4-8 columns drawn from YEAR / YEAR(4), BIT(n) with `b'...'` defaults,
  DECIMAL(65,30), INT(n) UNSIGNED ZEROFILL / DECIMAL ZEROFILL, DEFAULT literals on TEXT / BLOB / JSON (MariaDB
  takes them), DATETIME(n) / TIMESTAMP(n) `DEFAULT CURRENT_TIMESTAMP(n) ON UPDATE CURRENT_TIMESTAMP(n)` (the
  session's `timestamp` fixed around the writes: the oracle and the replay run at different times), NOT NULL
  DATE / DATETIME columns; rows in the snapshot and the stream with edge values, zero and partial-zero dates
  written with `sql_mode` relaxed for the statement's session part (restored after);
* `forms23x` (~45 %): a table with ENUM / SET / TEXT columns and indexes, then 3-6 drawn statements: ALTER ...
  CONVERT TO CHARACTER SET (with or without COLLATE), a MODIFY changing an ENUM / SET / TEXT column's charset,
  RENAME INDEX / RENAME KEY, ADD COLUMN with a TEXT / BLOB / JSON DEFAULT, ADD COLUMN of a BIT with a `b'...'`
  DEFAULT, a YEAR or ZEROFILL column; a row after each;
* `event.converting.failure.handling.mode` fail / skip / warn in ~20 % (a property line only).

Only MySQL-grammar syntax (the oracle is Debezium's MySqlConnector); no double-quoted strings (the MySqlConnector
rewrites them in its `ddl` text, the MariaDbConnector does not: the mapped replay could not tell; recorded case
ddl_double_quoted_strings instead).
"""

from __future__ import annotations

import random
from typing import Any

# (column type with its DEFAULT, values as SQL literals: each valid for the type)
TYPES: list[tuple[str, list[str]]] = [
    ("YEAR", ["0", "1901", "2155", "69", "70", "NULL"]),
    ("YEAR(4) NOT NULL DEFAULT 2000", ["1999", "0", "2024"]),
    ("BIT(5) DEFAULT b'101'", ["b'0'", "b'11111'", "NULL", "3"]),
    ("BIT(12) NOT NULL DEFAULT b'000011110000'", ["b'111100001111'", "0", "4095"]),
    ("BIT(1) DEFAULT b'1'", ["0", "1", "NULL"]),
    (
        "DECIMAL(65,30)",
        [
            "0.000000000000000000000000000001",
            "-99999999999999999999999999999999999.999999999999999999999999999999",
            "12345.678",
            "NULL",
        ],
    ),
    ("DECIMAL(65,30) NOT NULL DEFAULT 1.5", ["0", "-0.000000000000000000000000000009"]),
    ("INT(5) UNSIGNED ZEROFILL DEFAULT 42", ["0", "7", "4294967295", "NULL"]),
    # (not 999999.99: all M-D integer digits stop the MySqlConnector's snapshot, case decimal_zerofill_snapshot_stops,
    # where the MariaDbConnector replay, another driver, reads on: a difference the mapped replay cannot tell)
    ("DECIMAL(8,2) UNSIGNED ZEROFILL", ["1.5", "0", "99999.99", "NULL"]),
    ("BIGINT UNSIGNED ZEROFILL NOT NULL DEFAULT 1", ["18446744073709551615", "0"]),
    ("TEXT DEFAULT 'it''s'", ["'t'", "''", "NULL"]),
    ("BLOB DEFAULT 'ab'", ["X'00FF'", "''", "NULL"]),
    ("JSON DEFAULT '{\"k\": [1, 2]}'", ["'[]'", "'{\"a\": null}'", "NULL"]),
    ("TINYTEXT CHARACTER SET latin1 DEFAULT 'é'", ["'x'", "NULL"]),
    ("DATE NOT NULL DEFAULT '2000-01-01'", ["'2024-02-29'", "'1000-01-01'"]),
    (
        "DATETIME(2) NOT NULL DEFAULT '1970-01-01 00:00:01'",
        ["'2038-01-19 03:14:07.99'", "'9999-12-31 23:59:59.99'"],
    ),
]
ON_UPDATE = [
    "DATETIME(3) NOT NULL DEFAULT CURRENT_TIMESTAMP(3) ON UPDATE CURRENT_TIMESTAMP(3)",
    "TIMESTAMP(6) NOT NULL DEFAULT CURRENT_TIMESTAMP(6) ON UPDATE CURRENT_TIMESTAMP(6)",
    "DATETIME DEFAULT CURRENT_TIMESTAMP ON UPDATE CURRENT_TIMESTAMP",
    "TIMESTAMP(2) NULL DEFAULT NULL ON UPDATE CURRENT_TIMESTAMP(2)",
]
# zero and partial-zero dates: written with sql_mode relaxed (MariaDB's default refuses them)
ZERO_DATES = ["'0000-00-00'", "'2020-00-15'", "'2020-05-00'"]
ZERO_DATETIMES = ["'0000-00-00 00:00:00'", "'2020-00-15 01:02:03'", "'2020-05-00 00:00:00.5'"]
RELAX = "SET SESSION sql_mode = '';"
RESTORE = "SET SESSION sql_mode = @@GLOBAL.sql_mode;"
FIXED_TS = ["1700000000.123456", "1600000000.5", "2000000000"]


class _Scenario:
    def __init__(self, name: str) -> None:
        self.name, self.pre, self.stream = name, [], []


def types23(r: random.Random, s: _Scenario, t: str) -> None:
    cols = r.sample(range(len(TYPES)), r.randint(4, 8))
    names = [f"c{i}" for i in range(len(cols))]
    defs = [f"{n} {TYPES[i][0]}" for n, i in zip(names, cols, strict=True)]
    on_update = r.choice(ON_UPDATE) if r.random() < 0.6 else None
    zero = r.random() < 0.6
    extra = ""
    if on_update:
        extra += f", u {on_update}"
    if zero:
        extra += ", zd DATE NOT NULL DEFAULT '2001-01-01', zt DATETIME(1) NULL"
    ts = r.choice(FIXED_TS)
    s.pre.append(f"CREATE TABLE {t} (id INT PRIMARY KEY, {', '.join(defs)}{extra}, n INT);")

    def row(rid: int) -> str:
        vals = [r.choice(TYPES[i][1]) for i in cols]
        return f"INSERT INTO {t} (id, {', '.join(names)}, n) VALUES ({rid}, {', '.join(vals)}, {rid});"

    s.pre += [f"SET timestamp = {ts};", *(row(i) for i in (1, 2, 3))]
    s.pre.append(f"INSERT INTO {t} (id) VALUES (4);")
    if zero:
        zeros = [
            f"INSERT INTO {t} (id, zd, zt) VALUES (5, {r.choice(ZERO_DATES)}, {r.choice(ZERO_DATETIMES)});",
        ]
        s.pre += [RELAX, *zeros, RESTORE]
    s.pre.append("SET timestamp = DEFAULT;")
    s.stream += [f"SET timestamp = {ts};", *(row(i) for i in (11, 12))]
    s.stream.append(f"INSERT INTO {t} (id) VALUES (13);")
    s.stream.append(f"UPDATE {t} SET n = n + 100 WHERE id IN (1, 11);")
    if zero:
        s.stream += [
            RELAX,
            f"INSERT INTO {t} (id, zd, zt) VALUES (14, {r.choice(ZERO_DATES)}, {r.choice(ZERO_DATETIMES)});",
            f"UPDATE {t} SET zd = {r.choice(ZERO_DATES)}, zt = {r.choice(ZERO_DATETIMES)} WHERE id = 2;",
            RESTORE,
        ]
    s.stream.append(f"DELETE FROM {t} WHERE id = 3;")
    s.stream.append("SET timestamp = DEFAULT;")


FORMS = ["convert", "modify_charset", "rename_index", "lob_default", "bit_default", "year_zerofill"]


def forms23(r: random.Random, s: _Scenario, t: str) -> None:
    # ASCII members and text: CONVERT TO latin1 / utf8mb3 of what the client wrote must not truncate
    s.pre += [
        f"CREATE TABLE {t} (id INT PRIMARY KEY, e ENUM('a','b e','c''d') DEFAULT 'a', "
        "st SET('x','y','u2') DEFAULT 'x,y', tx TEXT, v VARCHAR(20), KEY k_v (v), KEY k_e (e)) "
        "DEFAULT CHARSET = utf8mb4;",
        f"INSERT INTO {t} VALUES (1, 'b e', 'x,u2', 'text', 'v1'), (2, 'c''d', '', NULL, NULL);",
    ]
    rid = 10
    added = 0
    for form in r.sample(FORMS, r.randint(3, 6)):
        if form == "convert":
            cs = r.choice(
                [
                    "CONVERT TO CHARACTER SET latin1",
                    "CONVERT TO CHARACTER SET utf8mb4 COLLATE utf8mb4_bin",
                    "CONVERT TO CHARACTER SET utf8mb3",
                    "CONVERT TO CHARSET latin1 COLLATE latin1_general_ci",
                ]
            )
            s.stream.append(f"ALTER TABLE {t} {cs};")
        elif form == "modify_charset":
            s.stream.append(
                r.choice(
                    [
                        f"ALTER TABLE {t} MODIFY e ENUM('a','b e','c''d','z') CHARACTER SET latin1 DEFAULT 'z';",
                        f"ALTER TABLE {t} MODIFY st SET('x','y','u2') CHARACTER SET utf8mb4 COLLATE utf8mb4_bin;",
                        f"ALTER TABLE {t} MODIFY tx MEDIUMTEXT CHARACTER SET latin1 COLLATE latin1_bin;",
                        f"ALTER TABLE {t} CHANGE tx tx2 TEXT CHARACTER SET utf8mb4 DEFAULT 'n';",
                    ]
                )
            )
        elif form == "rename_index":
            which = r.choice(["INDEX", "KEY"])
            s.stream += [
                f"ALTER TABLE {t} RENAME {which} k_v TO k_v2;",
                f"ALTER TABLE {t} RENAME INDEX k_v2 TO k_v;",
            ]
        else:
            added += 1
            col = f"a{added}"
            typ = {
                "lob_default": r.choice(
                    [
                        "TEXT DEFAULT 'dflt'",
                        "BLOB DEFAULT 'bb'",
                        "JSON DEFAULT '[1]'",
                        "LONGTEXT NOT NULL DEFAULT ''",
                    ]
                ),
                "bit_default": r.choice(
                    ["BIT(3) DEFAULT b'010'", "BIT(64) DEFAULT b'1'", "BIT(9) NOT NULL DEFAULT 0"]
                ),
                "year_zerofill": r.choice(
                    ["YEAR DEFAULT 1999", "SMALLINT(4) UNSIGNED ZEROFILL DEFAULT 7", "FLOAT(7,3) ZEROFILL"]
                ),
            }[form]
            pos = r.choice(["", " FIRST", " AFTER id", " AFTER v"])
            s.stream.append(f"ALTER TABLE {t} ADD COLUMN {col} {typ}{pos};")
        rid += 1
        s.stream.append(f"INSERT INTO {t} (id, v) VALUES ({rid}, 'r{rid}');")
    s.stream.append(f"UPDATE {t} SET v = 'upd' WHERE id = 1;")


def draws(seed: int, props: dict[str, str], scenarios: list[Any]) -> None:
    r = random.Random(f"s23-{seed}")
    for name, share, make in (("types23x", 0.5, types23), ("forms23x", 0.45, forms23)):
        if r.random() < share:
            s = _Scenario(name)
            make(r, s, name)
            scenarios.append(s)
    # event.converting.failure.handling.mode (fail implemented this session; with s20's time modes it stops where
    # a converter throws)
    if r.random() < 0.2:
        props["event.converting.failure.handling.mode"] = r.choice(["fail", "fail", "skip", "warn"])
