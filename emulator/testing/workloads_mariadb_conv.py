"""MariaDB draws of Debezium's shipped binlog custom converters (``converters=``) for the workload generator
(emulator.testing.workloads_mariadb): TinyIntOneToBooleanConverter (selector, length.checker),
JdbcSinkDataTypesConverter (selector.boolean/real/string, treat.real.as.double), ZeroDateFallbackConverter
(target.types, selector, NULL and literal fallbacks, a per-column fallback), one to three of them in a random
order (the first that registers for a column wins), with and without provide.transaction.metadata (the
emulator's binlog line path is taken only without it).

`convs(rng, s, t)` is a scenario like workloads_mariadb's, and fills ``s.props`` with the converter
properties. Selectors either name this scenario's table or match every table (TINYINT / temporal
converters only): a JdbcSinkDataTypesConverter selector that reached a column type it has no recorded values
for would be refused by the emulator (documented), so its selectors stay on columns of the types it takes,
and so do the ALTERs here. A literal zero-date fallback is drawn only with a selector naming NOT NULL columns
(a nullable one is refused: Debezium prints the literal for a NULL too).
"""

from __future__ import annotations

import random
from typing import Any

_PKG = ("io.debezium.connector.binlog.converters.", "io.debezium.connector.mysql.converters.")

# id, then the columns each converter may take; c1/c2 are reached by workloads_mariadb's column mask /
# truncate / hash draws (".+\.c1[0-9]?", ".+\.c[0-9]", ".+\.c2"), so the mappers run on converted fields
_TABLE = (
    "id INT PRIMARY KEY, b1 TINYINT(1), b2 BOOLEAN NOT NULL DEFAULT TRUE, b3 TINYINT(2) UNSIGNED DEFAULT 0, "
    "b4 TINYINT(1) UNSIGNED DEFAULT 1, b5 SMALLINT DEFAULT -3, b6 TINYINT(1) NOT NULL DEFAULT -1, "
    "r1 REAL, r2 FLOAT DEFAULT 1.1, r3 DOUBLE NOT NULL DEFAULT 2.5, r4 FLOAT(7,2), "
    "c1 VARCHAR(20), c2 CHAR(5) CHARACTER SET latin1 DEFAULT 'ab', s3 TEXT, s4 VARCHAR(10) NOT NULL DEFAULT 'x', "
    "s5 TINYTEXT CHARACTER SET cp1251, "
    "d1 DATE, d2 DATE NOT NULL DEFAULT '0000-00-00', dt1 DATETIME, dt2 DATETIME(6) NOT NULL DEFAULT "
    "'0000-00-00 00:00:00', dt3 DATETIME(3) NOT NULL DEFAULT '2001-02-03 04:05:06.789', ts1 TIMESTAMP NULL, "
    "ts2 TIMESTAMP(3) NOT NULL DEFAULT '0000-00-00 00:00:00', tm TIME, n INT"
)
_COLS = (
    "id, b1, b2, b3, b4, b5, b6, r1, r2, r3, r4, c1, c2, s3, s4, s5, d1, d2, dt1, dt2, dt3, ts1, ts2, tm, n"
)
_ROWS = [  # every column but id
    "1, 0, 2, 1, 5, -1, 1.1, 1.1, 1.1, 1.15, 'héllo', 'ça', 'text ü', 'v', 'жд', '2021-03-04', "
    "'1969-12-31', '2021-03-04 05:06:07', '2021-03-04 05:06:07.123456', '1970-01-01 00:00:00.5', "
    "'2021-03-04 05:06:07', '2038-01-01 00:00:00.125', '10:11:12', 1",
    "-1, 1, 255, 0, 0, 127, -0.5, 3.4e38, 1e-300, -99999.99, '', '', '', '', '', '0000-00-00', "
    "'0000-00-00', '0000-00-00 00:00:00', '0000-00-00 00:00:00', '0000-00-00 00:00:00', "
    "'0000-00-00 00:00:00', '0000-00-00 00:00:00', '-01:00:00', 2",
    "NULL, 1, NULL, NULL, NULL, -128, NULL, NULL, 0, NULL, NULL, NULL, NULL, 'z', NULL, NULL, "
    "'2020-00-15', NULL, '2020-05-00 01:02:03', '1999-12-31 23:59:59.999', NULL, '1970-01-01 00:00:01', NULL, NULL",
    "2, 0, 128, 1, 32767, 0, 1e20, -1.5e-7, -0.0, 0.01, 'a\\'b', 'ÿ', REPEAT('é', 40), 'ab', 'ёЖ', "
    "'9999-12-31', '1000-01-01', '1000-01-01 00:00:00', '9999-12-31 23:59:59.999999', '2020-02-29 12:00:00.001', "
    "'2001-01-01 00:00:00', '2020-02-29 12:00:00.999', '838:59:59', 4",
]


def _tinyint(rng: random.Random, alias: str, t: str) -> dict[str, str]:
    out = {f"{alias}.type": rng.choice(_PKG) + "TinyIntOneToBooleanConverter"}
    selector = rng.choice(
        [
            None,  # every TINYINT(1) of every table
            f"inventory\\.{t}\\.b.*",
            f"INVENTORY\\.{t.upper()}\\.B[146]",
            f"inventory.{t}.b1,.*\\.b3",
            "nomatch\\..*",
        ]
    )
    if selector is not None:
        out[f"{alias}.selector"] = selector
    checker = rng.choice([None, "true", "false", "FALSE", "no"])
    if checker is not None:
        out[f"{alias}.length.checker"] = checker
    return out


def _jdbc(rng: random.Random, alias: str, t: str) -> dict[str, str]:
    out = {f"{alias}.type": rng.choice(_PKG) + "JdbcSinkDataTypesConverter"}
    tab = f"inventory\\.{t}\\."
    options = {
        "selector.boolean": [f"{tab}b.*", f"{tab}b[1-3]", f".*\\.{t}\\.B5", f"{tab}b1,{tab}b6"],
        "selector.real": [f"{tab}r.*", f"{tab}r[24]", f"{tab}R1"],
        "selector.string": [f"{tab}(c1|c2|s3|s4|s5)", f"{tab}s.*", f"{tab}c.*", f"{tab}s5,{tab}c2"],
    }
    for option, choices in options.items():
        if rng.random() < 0.75:
            out[f"{alias}.{option}"] = rng.choice(choices)
    if rng.random() < 0.5:
        out[f"{alias}.treat.real.as.double"] = rng.choice(["true", "false"])
    return out


def _zero_date(rng: random.Random, alias: str, t: str) -> dict[str, str]:
    out = {f"{alias}.type": _PKG[0] + "ZeroDateFallbackConverter"}
    targets = rng.choice([None, "DATE", "DATE,DATETIME", "datetime, TIMESTAMP", "DATE,DATETIME,TIMESTAMP"])
    if targets is not None:
        out[f"{alias}.target.types"] = targets
    # Debezium's first-call bug (docs/differential-mariadb.md, deliberate differences): the first value after each
    # schema build of a column whose default is NULL or converts to null prints the fallback. The emulator prints
    # the value, so the draws keep to columns whose default converts to a value, or that have none
    if rng.random() < 0.5:
        # NULL fallbacks: a NOT NULL column with a real default, a NOT NULL key column without one
        out[f"{alias}.selector"] = rng.choice(
            [f"inventory\\.{t}\\.dt3", f"inventory\\.{t}_k\\.d", f"inventory\\.({t}\\.dt3|{t}_k\\.d)"]
        )
        if rng.random() < 0.3:
            out[f"{alias}.fallback.date"] = "NULL"
        return out
    # literal fallbacks, all three (a zero default then converts to a value): NOT NULL columns only
    out[f"{alias}.selector"] = rng.choice(
        [f"inventory\\.{t}\\.(d2|dt2|dt3|ts2)", f"inventory\\.{t}\\.(d2|ts2)"]
    )
    out[f"{alias}.fallback.date"] = rng.choice(["2000-01-01", "1969-12-31", " 1970-01-01 "])
    out[f"{alias}.fallback.datetime"] = rng.choice(["1999-12-31 23:59:59", "1970-01-01 00:00:00"])
    out[f"{alias}.fallback.timestamp"] = rng.choice(
        ["2000-01-01T01:30:00.250+01:00", "1970-01-01T00:00:00Z", "2020-06-01T12:00:00-05:30"]
    )
    if rng.random() < 0.4:
        out[f"{alias}.column.inventory.{t}.d2.fallback"] = rng.choice(["2010-10-10", "1999-09-09"])
    return out


_KINDS = {"boolean": _tinyint, "jdbc": _jdbc, "zd": _zero_date}


def conv_props(rng: random.Random, t: str) -> dict[str, str]:
    kinds = rng.sample(list(_KINDS), k=rng.randint(1, 3))
    out: dict[str, str] = {}
    aliases = []
    for kind in kinds:
        alias = rng.choice([kind, kind + "x", kind.upper()])
        aliases.append(alias)
        out.update(_KINDS[kind](rng, alias, t))
    out["converters"] = rng.choice([",", ", "]).join(aliases)
    if rng.random() < 0.5:
        out["provide.transaction.metadata"] = "false"
    return out


def convs(rng: random.Random, s: Any, t: str) -> None:
    """A table with a column of every type the three converters take, zero and partial-zero dates, TINYINT
    edges (-128, -1, 2, 128 unsigned), floats, latin1/cp1251 text; then the stream's rows, UPDATE/DELETE
    and ALTERs within each converter's types. Runs with sql_mode '' (zero dates), restored after."""
    s.pre.append("SET SESSION sql_mode = '';")
    s.pre.append(f"CREATE TABLE {t} ({_TABLE}) DEFAULT CHARSET=utf8mb4;")
    s.pre.append(
        f"INSERT INTO {t} ({_COLS}) VALUES "
        + ", ".join(f"({i}, {r})" for i, r in enumerate(_ROWS[:3], 1))
        + ";"
    )
    s.pre.append(f"INSERT INTO {t} (id) VALUES (5);")
    if rng.random() < 0.4:
        # converted columns in a primary key
        s.pre.append(
            f"CREATE TABLE {t}_k (b TINYINT(1) NOT NULL, d DATE NOT NULL, r DOUBLE, PRIMARY KEY (b, d));"
        )
        s.pre.append(f"INSERT INTO {t}_k VALUES (1, '0000-00-00', 1.5), (0, '2020-01-01', NULL);")
        s.stream += [
            "SET SESSION sql_mode = '';",
            f"INSERT INTO {t}_k VALUES (-1, '2020-00-00', 2.5);",
            f"UPDATE {t}_k SET b = 2 WHERE b = 1;",
            f"DELETE FROM {t}_k WHERE b = 0;",
        ]
    s.pre.append("SET SESSION sql_mode = DEFAULT;")
    s.stream.append("SET SESSION sql_mode = '';")
    s.stream.append(
        f"INSERT INTO {t} ({_COLS}) VALUES " + ", ".join(f"({i}, {r})" for i, r in enumerate(_ROWS, 11)) + ";"
    )
    s.stream += [
        f"INSERT INTO {t} (id) VALUES (15);",
        f"UPDATE {t} SET b1 = 0, r1 = 2.25, c1 = 'new', d1 = '0000-00-00', ts2 = '2022-02-02 02:02:02' WHERE id = 1;",
        f"UPDATE {t} SET b6 = 1, d2 = '2020-01-01', s5 = 'Ђ' WHERE id = 2;",
        f"DELETE FROM {t} WHERE id = 3;",
    ]
    alters = [
        f"ALTER TABLE {t} ADD COLUMN b7 BOOL DEFAULT FALSE, ADD COLUMN r5 REAL NOT NULL DEFAULT 0.25, "
        "ADD COLUMN s6 VARCHAR(8) CHARACTER SET latin1, ADD COLUMN d3 DATE NOT NULL DEFAULT '0000-00-00';",
        f"ALTER TABLE {t} MODIFY COLUMN b1 INT, MODIFY COLUMN c1 VARCHAR(30) CHARACTER SET latin1;",
        f"ALTER TABLE {t} MODIFY COLUMN b3 TINYINT(1) UNSIGNED DEFAULT 1, MODIFY COLUMN r2 DOUBLE;",
        f"ALTER TABLE {t} CHANGE COLUMN b4 n4 TINYINT(1), MODIFY COLUMN dt1 DATETIME(4);",
        f"ALTER TABLE {t} MODIFY COLUMN b6 TINYINT(1) NOT NULL DEFAULT 1 FIRST, DROP COLUMN r4;",
    ]
    for alter in rng.sample(alters, k=rng.randint(1, 3)):
        s.stream.append(alter)
        s.stream.append(f"INSERT INTO {t} (id, b6, d2) VALUES ({20 + len(s.stream)}, 1, '0000-00-00');")
    s.stream.append(f"UPDATE {t} SET n = n + 1;")
    s.stream.append("SET SESSION sql_mode = DEFAULT;")
    s.props.update(conv_props(rng, t))
