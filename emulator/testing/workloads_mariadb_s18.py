"""(session 18) MariaDB draws for the workload generator (emulator.testing.workloads_mariadb) that no older draw
makes, each from a random stream of its own (`s18-<seed>`), so every older seed keeps its workload:

* `ddl18`: DDL forms no older draw writes: `ALGORITHM=INSTANT/INPLACE/COPY` and `LOCK=` clauses, `RENAME KEY`,
  CHECK constraints added and dropped, column and table COMMENTs with quotes, backslashes and non-ASCII text,
  identifiers that need backquotes (a space, a reserved word, a leading digit, non-ASCII, a backquote), `ALTER
  DATABASE ... CHARACTER SET` followed by a table created without its own charset, a TEMPORARY table (not in the
  binlog under ROW format) whose rows reach a captured table;
* `dml18`: XA transactions (committed after PREPARE, `ONE PHASE`, rolled back after PREPARE), `LOAD DATA INFILE` of
  a file the same workload wrote with `SELECT ... INTO OUTFILE` (in the database's directory: each run's server has
  its own), session `time_zone` changes around TIMESTAMP/DATETIME writes and `ON UPDATE CURRENT_TIMESTAMP` columns
  under a fixed session `timestamp` (deterministic), numeric edges (DOUBLE/FLOAT limits and subnormals, `-0`,
  `FLOAT(p)`, BIT of several widths, DECIMAL(65,30), YEAR limits) and `binlog_row_metadata` set to MINIMAL or
  NO_LOG for the later sessions (the server runs with FULL).

Only MySQL-grammar syntax (Debezium's MySqlConnector is the oracle here), every statement valid on MariaDB 10.11.
The stream section is one client session: every session setting a draw changes is set back at its end.
"""

from __future__ import annotations

import random
from typing import Any


class _Scenario:
    def __init__(self, name: str) -> None:
        self.name, self.pre, self.stream, self.props = name, [], [], {}


def ddl18(rng: random.Random, s: Any, t: str) -> None:
    s.pre += [
        f"CREATE TABLE {t} (id INT PRIMARY KEY, v INT, w VARCHAR(20), KEY k_v (v)) COMMENT 'plain';",
        f"INSERT INTO {t} VALUES (1, 1, 'a'), (2, 2, 'b');",
    ]
    if rng.random() < 0.5:  # a table whose names need backquotes, in the snapshot
        s.pre += [
            f"CREATE TABLE `{t} sp` (`id` INT PRIMARY KEY, `select` INT, `1col` VARCHAR(5), `é` INT, `a``b` INT);",
            f"INSERT INTO `{t} sp` VALUES (1, 2, 'x', 3, 4);",
        ]
        s.stream += [
            f"INSERT INTO `{t} sp` VALUES (2, 5, 'y', 6, 7);",
            f"UPDATE `{t} sp` SET `select` = `select` + 1, `a``b` = 0 WHERE `id` = 1;",
            f"ALTER TABLE `{t} sp` ADD COLUMN `order` INT DEFAULT 1, CHANGE `é` `ü ß` INT;",
            f"INSERT INTO `{t} sp` VALUES (3, 8, 'z', 9, 10, 11);",
            f"DELETE FROM `{t} sp` WHERE `id` = 2;",
        ]
    forms: list[tuple[list[str], str | None, str | None]] = [
        ([f"ALTER TABLE {t} ADD COLUMN a1 INT DEFAULT 5, ALGORITHM=INSTANT;"], "a1", "6"),
        (
            [f"ALTER TABLE {t} ADD COLUMN a2 VARCHAR(5) DEFAULT 'x', ALGORITHM=INPLACE, LOCK=NONE;"],
            "a2",
            "'yz'",
        ),
        ([f"ALTER TABLE {t} ALGORITHM=COPY, LOCK=SHARED, ADD COLUMN a3 BIGINT;"], "a3", "-7"),
        (
            [f"ALTER TABLE {t} MODIFY w VARCHAR(30), ALGORITHM=DEFAULT, LOCK=DEFAULT;"],
            "w",
            "'longer text here'",
        ),
        ([f"ALTER TABLE {t} RENAME KEY k_v TO k_v2;"], "v", "12"),
        ([f"ALTER TABLE {t} RENAME INDEX k_v TO k_v3, ALGORITHM=INPLACE;"], "v", "13"),
        ([f"ALTER TABLE {t} ADD CONSTRAINT chk_{t} CHECK (v >= 0);"], "v", "14"),
        (
            [
                f"ALTER TABLE {t} ADD CONSTRAINT chk2_{t} CHECK (v < 1000);",
                f"ALTER TABLE {t} DROP CONSTRAINT chk2_{t};",
            ],
            "v",
            "15",
        ),
        ([f"ALTER TABLE {t} ADD COLUMN ck INT DEFAULT 1 CHECK (ck <> 3);"], "ck", "4"),
        ([f"ALTER TABLE {t} ADD COLUMN cm INT COMMENT 'it''s a \"quoted\" ✓ ñ comment';"], "cm", "16"),
        (
            [f"ALTER TABLE {t} MODIFY w VARCHAR(20) COMMENT 'back\\\\slash, ''quote'' and `tick`';"],
            "w",
            "'c'",
        ),
        ([f"ALTER TABLE {t} COMMENT = 'table ✓ comment ''quoted''';"], "v", "17"),
        (
            [
                f"CREATE TABLE `2{t}` (`id` INT PRIMARY KEY, `from` VARCHAR(5) COMMENT 'reserved', `key` INT);",
                f"INSERT INTO `2{t}` VALUES (1, 'f', 1);",
                f"UPDATE `2{t}` SET `key` = 2 WHERE `id` = 1;",
            ],
            None,
            None,
        ),
        (
            [
                f"CREATE TABLE `{t}_ü` (id INT PRIMARY KEY, `ü` VARCHAR(5));",
                f"INSERT INTO `{t}_ü` VALUES (1, 'ü');",
            ],
            None,
            None,
        ),
        (
            [
                f"CREATE TEMPORARY TABLE {t}_tmp (id INT PRIMARY KEY, v INT);",
                f"INSERT INTO {t}_tmp VALUES (101, 10), (102, 20);",
                f"UPDATE {t}_tmp SET v = v + 1;",
                f"INSERT INTO {t} (id, v, w) SELECT id, v, 'from tmp' FROM {t}_tmp;",
                f"DROP TEMPORARY TABLE {t}_tmp;",
            ],
            None,
            None,
        ),
    ]
    rid = 10
    for stmts, col, val in rng.sample(forms, k=rng.randint(4, 8)):
        if " k_v TO " in stmts[0] and any(" k_v TO " in x for x in s.stream):
            continue  # (both forms rename k_v)
        s.stream += stmts
        if col:
            s.stream.append(f"INSERT INTO {t} (id, {col}) VALUES ({rid}, {val});")
            s.stream.append(f"UPDATE {t} SET id = {rid + 1} WHERE id = {rid};")
        rid += 5
    if rng.random() < 0.4:
        # Debezium's model of the database's default charset after ALTER DATABASE: the next CREATE TABLE without a
        # charset of its own takes it on the server (ASCII values: a value decoded with the wrong charset would be
        # a lost value, see alter_table_charset_added_columns)
        s.stream += [
            "ALTER DATABASE inventory CHARACTER SET latin1 COLLATE latin1_swedish_ci;",
            f"CREATE TABLE {t}_dbcs (id INT PRIMARY KEY, v VARCHAR(10), x TEXT);",
            f"INSERT INTO {t}_dbcs VALUES (1, 'ascii', 'text');",
            "ALTER DATABASE inventory CHARACTER SET utf8mb4 COLLATE utf8mb4_general_ci;",
            f"CREATE TABLE {t}_dbcs2 (id INT PRIMARY KEY, v VARCHAR(10));",
            f"INSERT INTO {t}_dbcs2 VALUES (1, 'ñé ✓');",
        ]
    s.stream.append(f"DELETE FROM {t} WHERE id = 1;")


def dml18(rng: random.Random, s: Any, t: str) -> None:
    s.pre += [
        f"CREATE TABLE {t} (id INT PRIMARY KEY, v INT, w VARCHAR(20));",
        f"INSERT INTO {t} VALUES (1, 1, 'a'), (2, 2, 'b'), (3, 3, 'c');",
    ]
    if rng.random() < 0.35:
        s.pre.insert(0, f"SET GLOBAL binlog_row_metadata = {rng.choice(['MINIMAL', 'NO_LOG'])};")
    parts = []
    if rng.random() < 0.7:
        xa = [
            "XA START 'xa1';",
            f"INSERT INTO {t} VALUES (10, 10, 'xa');",
            f"UPDATE {t} SET v = v + 100 WHERE id = 1;",
            "XA END 'xa1';",
            "XA PREPARE 'xa1';",
            "XA COMMIT 'xa1';",
        ]
        if rng.random() < 0.6:
            xa += [
                "XA START 'xa2';",
                f"DELETE FROM {t} WHERE id = 2;",
                "XA END 'xa2';",
                "XA COMMIT 'xa2' ONE PHASE;",
            ]
        if rng.random() < 0.6:
            xa += [
                "XA START X'7861',X'62',3;",
                f"DELETE FROM {t} WHERE id = 3;",
                f"INSERT INTO {t} VALUES (11, 11, 'rolled back');",
                "XA END X'7861',X'62',3;",
                "XA PREPARE X'7861',X'62',3;",
                "XA ROLLBACK X'7861',X'62',3;",
            ]
        parts.append(xa)
    if rng.random() < 0.6:
        f = f"{t}_out.txt"
        parts.append(
            [
                f"CREATE TABLE {t}_l (id INT PRIMARY KEY, v INT, w VARCHAR(20));",
                f"SELECT id + 100, v, w INTO OUTFILE '{f}' FIELDS TERMINATED BY ',' FROM {t} WHERE id <= 3;",
                f"LOAD DATA INFILE '{f}' INTO TABLE {t}_l FIELDS TERMINATED BY ',';",
                f"LOAD DATA INFILE '{f}' REPLACE INTO TABLE {t}_l FIELDS TERMINATED BY ',' (id, @v, w) SET v = @v * 2;",
                f"LOAD DATA INFILE '{f}' IGNORE INTO TABLE {t}_l FIELDS TERMINATED BY ',';",
            ]
        )
    if rng.random() < 0.7:
        ts = rng.choice(["1700000000.25", "1600000000", "946684799.999999"])
        s.pre += [
            f"CREATE TABLE {t}_tz (id INT PRIMARY KEY, ts TIMESTAMP(3) NULL, dt DATETIME(3) NULL, "
            "u TIMESTAMP(6) NOT NULL DEFAULT CURRENT_TIMESTAMP(6) ON UPDATE CURRENT_TIMESTAMP(6), n INT);",
            f"SET timestamp = {ts};",
            "SET time_zone = '+09:00';",
            f"INSERT INTO {t}_tz (id, ts, dt, n) VALUES (1, '2020-06-01 12:00:00.5', '2020-06-01 12:00:00.5', 1);",
            "SET time_zone = DEFAULT;",
            "SET timestamp = DEFAULT;",
        ]
        parts.append(
            [
                f"SET timestamp = {ts};",
                # (MariaDB takes offsets from -12:59 to +13:00: campaign seed 93000 drew +14:00 and its client failed)
                f"SET time_zone = '{rng.choice(['+05:30', '-08:00', '+13:00'])}';",
                f"INSERT INTO {t}_tz (id, ts, dt, n) VALUES (2, '2021-03-14 02:30:00.25', '2021-03-14 02:30:00.25', 2);",
                f"UPDATE {t}_tz SET n = n + 10 WHERE id = 1;",
                "SET time_zone = '-03:00';",
                f"INSERT INTO {t}_tz (id, ts, dt, n) VALUES (3, '1970-01-01 00:00:01', '1970-01-01 00:00:01', 3);",
                f"UPDATE {t}_tz SET ts = dt WHERE id = 2;",
                "SET time_zone = DEFAULT;",
                "SET timestamp = DEFAULT;",
            ]
        )
    if rng.random() < 0.6:
        s.pre += [
            f"CREATE TABLE {t}_num (id INT PRIMARY KEY, d DOUBLE, f FLOAT, fp FLOAT(30), fq FLOAT(10), "
            "b2 BIT(2), b17 BIT(17), b33 BIT(33), b63 BIT(63), dm DECIMAL(65,30), y YEAR);",
            f"INSERT INTO {t}_num VALUES (1, -0.0, -0.0, 1.5, 2.5, b'11', b'1', b'1', b'1', 0, 1901);",
        ]
        rows = [
            "(2, 1.7976931348623157e308, 3.4028234e38, 1e300, 1.17549435e-38, b'01', b'10000000000000001', "
            "b'100000000000000000000000000000001', b'111111111111111111111111111111111111111111111111111111111111111', "
            "99999999999999999999999999999999999.999999999999999999999999999999, 2155)",
            "(3, 2.2250738585072014e-308, -3.4028234e38, -1e-300, 0.1, b'10', b'0', b'0', b'0', "
            "-0.000000000000000000000000000001, 0)",
            "(4, 1e-310, 1e-40, 123456789.123456789, -16777217, NULL, NULL, NULL, NULL, "
            "-12345678901234567890123456789012345.123456789012345678901234567890, 2000)",
        ]
        parts.append(
            [
                f"INSERT INTO {t}_num VALUES {', '.join(rows)};",
                f"UPDATE {t}_num SET d = -d, f = -f, dm = -dm WHERE id IN (2, 3);",
                f"UPDATE {t}_num SET y = 1999, b17 = b'11111111111111111' WHERE id = 1;",
                f"DELETE FROM {t}_num WHERE id = 4;",
            ]
        )
    rng.shuffle(parts)
    for p in parts:
        s.stream += p
    s.stream.append(f"UPDATE {t} SET w = 'end' WHERE id = 1;")


def trg18(rng: random.Random, s: Any, t: str) -> None:
    """Rows written by triggers and procedures: AFTER INSERT/UPDATE and BEFORE DELETE triggers copying each change into
    an audit table (one statement's rows events for two tables), a procedure looping over INSERTs then an UPDATE (each
    statement its own transaction under autocommit, or one inside START TRANSACTION), a rolled-back CALL."""
    s.pre += [
        f"CREATE TABLE {t} (id INT PRIMARY KEY, v INT);",
        f"CREATE TABLE {t}_audit (aid INT AUTO_INCREMENT PRIMARY KEY, op CHAR(1), rid INT, old_v INT, new_v INT);",
        f"INSERT INTO {t} VALUES (1, 10);",
    ]
    n = rng.randint(2, 6)
    s.stream += [
        "DELIMITER //",
        f"CREATE TRIGGER {t}_ai AFTER INSERT ON {t} FOR EACH ROW\nBEGIN\n  INSERT INTO {t}_audit (op, rid, new_v) "
        "VALUES ('c', NEW.id, NEW.v);\nEND //",
        f"CREATE TRIGGER {t}_au AFTER UPDATE ON {t} FOR EACH ROW\nBEGIN\n  INSERT INTO {t}_audit (op, rid, old_v, new_v) "
        "VALUES ('u', NEW.id, OLD.v, NEW.v);\nEND //",
        f"CREATE TRIGGER {t}_bd BEFORE DELETE ON {t} FOR EACH ROW\nBEGIN\n  INSERT INTO {t}_audit (op, rid, old_v) "
        "VALUES ('d', OLD.id, OLD.v);\nEND //",
        f"CREATE PROCEDURE {t}_fill(IN base INT, IN n INT)\nBEGIN\n  DECLARE i INT DEFAULT 0;\n  WHILE i < n DO\n"
        f"    INSERT INTO {t} VALUES (base + i, i);\n    SET i = i + 1;\n  END WHILE;\n"
        f"  UPDATE {t} SET v = v + 1 WHERE id >= base;\nEND //",
        "DELIMITER ;",
        f"INSERT INTO {t} VALUES (2, 20), (3, 30);",
        f"UPDATE {t} SET v = v * 2 WHERE id <= 2;",
        f"DELETE FROM {t} WHERE id = 3;",
        f"CALL {t}_fill(100, {n});",
    ]
    if rng.random() < 0.6:
        s.stream += [
            "START TRANSACTION;",
            f"CALL {t}_fill(200, {n});",
            f"DELETE FROM {t} WHERE id = 200;",
            "COMMIT;",
        ]
    if rng.random() < 0.5:
        s.stream += ["START TRANSACTION;", f"CALL {t}_fill(300, 2);", "ROLLBACK;"]
    s.stream += [
        f"DROP TRIGGER {t}_bd;",
        f"DELETE FROM {t} WHERE id = 1;",
        f"DROP TRIGGER {t}_ai;",
        f"DROP TRIGGER {t}_au;",
        f"DROP PROCEDURE {t}_fill;",
    ]


SCENARIOS = {"ddl18": ddl18, "dml18": dml18}


def draws(seed: int, props: dict[str, str], scenarios: list[Any]) -> None:
    """One or both of SCENARIOS in ~50 % of seeds, a random stream of its own; `trg18` (added after this session's
    first campaigns, seeds 92-95) in ~30 % from another, so a seed only gains its block."""
    r = random.Random(f"s18-{seed}")
    if r.random() < 0.5:
        for kind in r.sample(sorted(SCENARIOS), k=r.randint(1, 2)):
            s = _Scenario(
                f"{kind}x"
            )  # (not numbered by position: another draw before it leaves its names alone)
            SCENARIOS[kind](r, s, s.name)
            scenarios.append(s)
    t = random.Random(f"s18t-{seed}")
    if t.random() < 0.3:
        s = _Scenario("trg18x")
        trg18(t, s, s.name)
        scenarios.append(s)
