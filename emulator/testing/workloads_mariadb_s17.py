"""(session 17) MariaDB draws for the workload generator (emulator.testing.workloads_mariadb) that no older draw
makes, each from a random stream of its own (`s17-<seed>`), so every older seed keeps its workload:

* `bigtx`: large transactions over several tables (rows from MariaDB's SEQUENCE engine, `seq_1_to_N`): rows events
  the server splits (binlog_row_event_max_size, 8 KB), multi-table UPDATE/DELETE of hundreds of rows, a keyless and
  an AUTO_INCREMENT table, BLOBs of a few hundred bytes, ROLLBACK TO SAVEPOINT, a rolled-back large transaction,
  and in some draws a MyISAM/Aria table written inside a transaction (non-transactional rows the server logs apart);
* `dbs`: several captured databases (`database.include.list` naming two, or a regex): DML and DDL across them,
  `USE` of the other database (DDL whose tables are unqualified), `RENAME TABLE` moving tables between databases
  (captured to captured, uncaptured to captured), `DROP DATABASE` of a captured database with tables;
* `ddl17`: DDL forms users run on live tables that no older draw writes: ENUM/SET members added, precision and
  character set of a column changed (then rows that need it), VARCHAR to VARBINARY, JSON columns added in the stream
  (MariaDB's LONGTEXT alias), FOREIGN KEYs added/dropped with ON DELETE CASCADE (cascades are not binlogged), the
  engine changed to MyISAM/Aria and back, `ALTER TABLE ... ORDER BY`, table CHARACTER SET changed together with an
  added column, `SERIAL` keys, comments inside statements, qualified and backquoted names, `RENAME TO` with other
  specs.

Only MySQL-grammar syntax (Debezium's MySqlConnector is the oracle here), every statement valid on MariaDB 10.11.
"""

from __future__ import annotations

import random
from typing import Any


class _Scenario:
    def __init__(self, name: str) -> None:
        self.name, self.pre, self.stream, self.props = name, [], [], {}


def bigtx(rng: random.Random, s: Any, t: str) -> None:
    n0, n = rng.randint(5, 40), rng.randint(150, 700)
    blob = rng.choice(["REPEAT(X'AB', 300)", "REPEAT('é', 120)", "NULL"])
    s.pre += [
        f"CREATE TABLE {t} (id INT PRIMARY KEY, v VARCHAR(40), n INT, b BLOB);",
        f"CREATE TABLE {t}_ai (id INT AUTO_INCREMENT PRIMARY KEY, ref INT, txt TEXT);",
        f"CREATE TABLE {t}_nk (a INT, b VARCHAR(20));",
        f"INSERT INTO {t} SELECT seq, CONCAT('r', seq), seq, NULL FROM seq_1_to_{n0};",
    ]
    engine = rng.choice([None, "MyISAM", "Aria"])
    if engine:
        # an Aria table is created while streaming: its SHOW CREATE TABLE ends in PAGE_CHECKSUM=1, MariaDB-only
        # syntax on which the MySqlConnector's snapshot stops (campaign seed 86009; a documented difference)
        (s.stream if engine == "Aria" else s.pre).append(
            f"CREATE TABLE {t}_nt (id INT PRIMARY KEY, v INT) ENGINE={engine};"
        )
    s.stream += [
        "START TRANSACTION;",
        f"INSERT INTO {t} SELECT seq, CONCAT('v', seq), seq % 7, IF(seq % 5 = 0, {blob}, NULL) "
        f"FROM seq_{n0 + 1}_to_{n0 + n};",
        f"INSERT INTO {t}_ai (ref, txt) SELECT id, REPEAT('x', id % 50) FROM {t} WHERE id % 3 = 0;",
    ]
    if engine:
        s.stream.append(f"INSERT INTO {t}_nt SELECT seq, seq FROM seq_1_to_{rng.randint(2, 30)};")
    s.stream += [
        f"INSERT INTO {t}_nk SELECT seq % 10, CONCAT('k', seq) FROM seq_1_to_{rng.randint(20, 300)};",
        f"UPDATE {t} SET n = n + 1, v = CONCAT(v, 'u') WHERE id % 2 = 0;",
        f"DELETE FROM {t}_nk WHERE a = 3;",
        f"UPDATE {t}_ai a JOIN {t} b ON a.ref = b.id SET a.txt = b.v, b.n = -b.n WHERE b.id % 4 = 0;",
        "COMMIT;",
    ]
    if rng.random() < 0.6:
        s.stream += [
            "START TRANSACTION;",
            f"INSERT INTO {t}_ai (ref, txt) VALUES (-1, 'before savepoint');",
            "SAVEPOINT s1;",
            f"UPDATE {t} SET v = 'rolled back' WHERE id <= {n0 + n // 2};",
            f"INSERT INTO {t}_ai (ref, txt) VALUES (-2, 'rolled back');",
            "ROLLBACK TO SAVEPOINT s1;",
            f"DELETE FROM {t} WHERE id % 10 = 1;",
            "COMMIT;",
        ]
    if rng.random() < 0.5:
        s.stream += [
            "START TRANSACTION;",
            f"DELETE FROM {t} WHERE id > 3;",
            f"UPDATE {t}_nk SET b = 'gone';",
            "ROLLBACK;",
        ]
    s.stream += [
        f"UPDATE {t} SET v = CONCAT('all', id) WHERE id > {n0 // 2};",  # one statement, several rows events
        f"DELETE FROM {t}_nk WHERE a < {rng.randint(2, 9)};",
    ]
    if engine:
        s.stream += [
            "START TRANSACTION;",
            f"UPDATE {t} SET n = 0 WHERE id = 1;",
            f"UPDATE {t}_nt SET v = v + 100;",  # logged on its own (non-transactional) or in the transaction
            f"DELETE FROM {t}_ai WHERE id % 2 = 0;",
            "COMMIT;",
        ]
    s.stream.append(f"DELETE FROM {t} WHERE id > {n0 + n - rng.randint(1, 50)};")


def dbs(rng: random.Random, s: Any, t: str) -> None:
    b, c = f"{t}_b", f"{t}_c"  # b captured with inventory, c not
    s.pre += [
        f"CREATE DATABASE {b};",
        f"CREATE TABLE {b}.p (id INT PRIMARY KEY, v VARCHAR(10));",
        f"INSERT INTO {b}.p VALUES (1, 'b1'), (2, 'b2');",
        f"CREATE TABLE {t} (id INT PRIMARY KEY, v VARCHAR(10));",
        f"INSERT INTO {t} VALUES (1, 'a1');",
        f"CREATE TABLE {t}_m (id INT PRIMARY KEY, w INT);",
        f"INSERT INTO {t}_m VALUES (1, 1);",
    ]
    s.props["database.include.list"] = rng.choice(
        [f"inventory,{b}", f"inventory|{t}_[b]", f"INVENTORY,{b.upper()}"]
    )
    s.stream += [
        "START TRANSACTION;",
        f"INSERT INTO {b}.p VALUES (3, 'b3');",
        f"UPDATE {t} SET v = 'a2' WHERE id = 1;",
        f"DELETE FROM {b}.p WHERE id = 1;",
        "COMMIT;",
        f"RENAME TABLE {t}_m TO {b}.m;",
        f"INSERT INTO {b}.m VALUES (2, 2);",
        f"USE {b};",
        "CREATE TABLE q (id INT PRIMARY KEY, x INT);",
        "INSERT INTO q VALUES (1, 1);",
        "ALTER TABLE p ADD COLUMN z INT DEFAULT 3;",
        f"INSERT INTO inventory.{t} VALUES (2, 'from b');",
        f"ALTER TABLE inventory.{t} ADD COLUMN y INT DEFAULT 4;",
        "USE inventory;",
        f"RENAME TABLE {b}.q TO {t}_q;",
        f"INSERT INTO {t}_q VALUES (2, 2);",
        f"UPDATE {b}.p SET z = 5 WHERE id = 2;",
    ]
    if rng.random() < 0.6:
        s.stream += [
            f"CREATE DATABASE {c};",
            f"CREATE TABLE {c}.x (id INT PRIMARY KEY, w VARCHAR(5));",
            f"INSERT INTO {c}.x VALUES (1, 'c');",
            f"RENAME TABLE {c}.x TO {b}.x;",
            f"INSERT INTO {b}.x VALUES (2, 'in b');",
            f"DROP DATABASE {c};",
        ]
    if rng.random() < 0.5:
        s.stream += [
            f"RENAME TABLE {b}.m TO {t}_m2, {t} TO {b}.moved;",
            f"INSERT INTO {b}.moved VALUES (9, 'z', 9);",
        ]
    s.stream.append(f"DROP DATABASE {b};")


def ddl17(rng: random.Random, s: Any, t: str) -> None:
    s.pre += [
        f"CREATE TABLE {t} (id INT PRIMARY KEY, e ENUM('a','b') DEFAULT 'a', st SET('x','y'), d DATETIME, "
        "v VARCHAR(20), u BIGINT UNSIGNED, bl BLOB);",
        f"INSERT INTO {t} VALUES (1, 'b', 'x,y', '2020-01-02 03:04:05', 'one', 7, X'01');",
        f"CREATE TABLE {t}_p (id INT PRIMARY KEY, name VARCHAR(10));",
        f"CREATE TABLE {t}_c (id INT PRIMARY KEY, pid INT, CONSTRAINT fk_{t} FOREIGN KEY (pid) REFERENCES {t}_p (id) "
        "ON DELETE CASCADE ON UPDATE CASCADE);",
        f"INSERT INTO {t}_p VALUES (1, 'p1'), (2, 'p2'), (3, 'p3');",
        f"INSERT INTO {t}_c VALUES (1, 1), (2, 1), (3, 2);",
    ]
    # (statement, the row written after it: columns and values) — the forms are independent of each other
    forms = [
        (f"ALTER TABLE {t} MODIFY e ENUM('a','b','c d','é') NOT NULL DEFAULT 'b';", "e", "'é'"),
        (f"ALTER TABLE {t} MODIFY st SET('x','y','z') DEFAULT 'x,z';", "st", "'y,z'"),
        (f"ALTER TABLE {t} MODIFY d DATETIME(6);", "d", "'2021-02-03 04:05:06.123456'"),
        (f"ALTER TABLE {t} MODIFY v VARCHAR(20) CHARACTER SET latin1;", "v", "'café'"),
        (f"ALTER TABLE {t} CHANGE v v VARBINARY(40);", "v", "X'00FF'"),
        (f"ALTER TABLE {t} ADD COLUMN j JSON DEFAULT NULL AFTER e;", "j", '\'{"k": [1, "two"]}\''),
        (f"ALTER TABLE {t} ADD COLUMN j2 JSON NOT NULL DEFAULT '{{}}';", "j2", "'[1]'"),
        (f"ALTER TABLE {t} ENGINE=MyISAM;", "u", "8"),
        (f"ALTER TABLE {t} ENGINE=Aria, ADD COLUMN ar INT DEFAULT 1;", "u", "9"),
        (f"ALTER TABLE {t} ORDER BY id DESC;", "u", "10"),
        # (ASCII: Debezium decodes such a column's latin1 bytes as UTF-8, a deliberate difference, case
        # alter_table_charset_added_columns)
        (f"ALTER TABLE {t} CHARACTER SET = latin1, ADD COLUMN l VARCHAR(8);", "l", "'n e'"),
        (
            f"ALTER TABLE {t} DEFAULT CHARACTER SET utf8mb4 COLLATE utf8mb4_unicode_ci, ADD COLUMN l2 TEXT;",
            "l2",
            "'✓'",
        ),
        (f"/* lead */ ALTER TABLE {t} ADD COLUMN k1 INT /* mid */ DEFAULT 2 -- tail\n;", "k1", "3"),
        (f"ALTER TABLE `inventory`.`{t}` ADD COLUMN `k2` INT COMMENT 'q' FIRST;", "k2", "4"),
        (
            f"ALTER TABLE {t} ADD COLUMN ts TIMESTAMP(3) NULL DEFAULT NULL, ADD COLUMN yr YEAR DEFAULT 2000 FIRST;",
            "ts",
            "'2022-01-01 00:00:00.5'",
        ),
        (f"ALTER TABLE {t} ADD COLUMN dz DECIMAL(6,2) UNSIGNED ZEROFILL DEFAULT 1.5;", "dz", "12.25"),
        (
            f"ALTER TABLE {t} MODIFY u BIGINT UNSIGNED DEFAULT 18446744073709551615;",
            "u",
            "18446744073709551614",
        ),
        (f"ALTER TABLE {t} DROP COLUMN bl, ADD COLUMN bl2 MEDIUMBLOB AFTER id;", "bl2", "X'CAFE'"),
        (f"CREATE INDEX ix_{t} ON {t} (d) USING BTREE;", "d", "'1999-01-01 00:00:00'"),
        (f"ALTER TABLE {t} ADD UNIQUE INDEX (id, d);", "u", "11"),
        (f"ALTER TABLE {t}_c DROP FOREIGN KEY fk_{t};", None, None),
        (
            f"ALTER TABLE {t}_c DROP FOREIGN KEY fk_{t}, ADD CONSTRAINT fk2_{t} FOREIGN KEY (pid) REFERENCES {t}_p (id) ON DELETE SET NULL "
            "ON UPDATE CASCADE;",
            None,
            None,
        ),
        (f"CREATE TABLE {t}_s (id SERIAL, v INT);", None, None),
        (f"CREATE TABLE {t}_l (id INT PRIMARY KEY, v TEXT) DEFAULT CHARSET=latin1;", None, None),
    ]
    rid = 10
    for stmt, col, val in rng.sample(forms, k=rng.randint(4, 9)):
        if f"DROP FOREIGN KEY fk_{t}" in stmt and any(f"DROP FOREIGN KEY fk_{t}" in x for x in s.stream):
            continue  # (both forms drop it)
        s.stream.append(stmt)
        if f"CREATE TABLE {t}_s " in stmt:
            s.stream += [f"INSERT INTO {t}_s (v) VALUES (1), (2);", f"UPDATE {t}_s SET v = 3 WHERE id = 2;"]
        elif f"CREATE TABLE {t}_l " in stmt:
            s.stream += [
                f"INSERT INTO {t}_l VALUES (1, 'çà');",
                f"ALTER TABLE {t}_l MODIFY v TEXT CHARACTER SET utf8mb4;",
                f"INSERT INTO {t}_l VALUES (2, 'çà ✓');",
            ]
        elif col:
            s.stream.append(f"INSERT INTO {t} (id, {col}) VALUES ({rid}, {val});")
            s.stream.append(f"UPDATE {t} SET id = {rid + 1} WHERE id = {rid};")
        rid += 5
    s.stream += [
        f"DELETE FROM {t}_p WHERE id = 1;",  # ON DELETE CASCADE (or SET NULL): the child rows InnoDB changes
        f"UPDATE {t}_p SET id = 20 WHERE id = 2;",
        f"DELETE FROM {t} WHERE id = 1;",
    ]
    if rng.random() < 0.5:
        s.stream += [
            f"ALTER TABLE {t} RENAME TO {t}_r, ADD COLUMN rr INT DEFAULT 6;",
            f"INSERT INTO {t}_r (id) VALUES (99);",
        ]


SCENARIOS = {"bigtx": bigtx, "dbs": dbs, "ddl17": ddl17}


def draws(seed: int, props: dict[str, str], scenarios: list[Any]) -> None:
    """One or two of SCENARIOS in ~50 % of seeds, a random stream of its own. `dbs` sets database.include.list only
    where no other draw filters databases or tables (else its tables are captured as that filter says)."""
    r = random.Random(f"s17-{seed}")
    if r.random() >= 0.5:
        return
    for kind in r.sample(sorted(SCENARIOS), k=r.randint(1, 2)):
        s = _Scenario(f"{kind}x")  # (not numbered by position: another draw before it leaves its names alone)
        SCENARIOS[kind](r, s, s.name)
        scenarios.append(s)
        if not any(
            k in props for k in ("database.include.list", "database.exclude.list", "table.include.list")
        ):
            props.update(s.props)
