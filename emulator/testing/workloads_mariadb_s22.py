"""(session 22) MariaDB draws for the workload generator (emulator.testing.workloads_mariadb): DDL an application
runs while the connector streams, composed at random instead of picked from fixed lists, from random streams of
their own (`s22-<seed>`), so every older seed keeps its lines (a seed that draws them only gains the blocks):

* `alter22x` (~55 % of seeds): a table whose columns the generator tracks, then 4-9 ALTER TABLE statements of
  1-3 clauses each (ADD/DROP/MODIFY/CHANGE/RENAME COLUMN with FIRST/AFTER, SET/DROP DEFAULT, CHECK constraints,
  table COMMENT/charset options, a trailing ALGORITHM=/LOCK=), the columns' types drawn from ENUM/SET with odd
  literals (commas, quotes, backslashes, non-ASCII, the empty string), charset/collation clauses, expression
  defaults, generated VIRTUAL/STORED and INVISIBLE columns, COMMENTs with quotes; a MODIFY widens within a type
  family (the rows written so far stay valid). Each ALTER is followed by an INSERT naming every visible column
  written to and an UPDATE, so the rows show the schema Debezium holds after it;
* `part22x` (~35 %): a RANGE/LIST/HASH/KEY partitioned table and 3-6 drawn statements on it (ADD/DROP/REORGANIZE/
  TRUNCATE/COALESCE/EXCHANGE/REBUILD/ANALYZE PARTITION, REMOVE PARTITIONING, re-partitioning, ADD COLUMN on the
  partitioned table), rows in several partitions between them;
* `misc22x` (~40 %): 3-6 forms from: CREATE TABLE IF NOT EXISTS ... LIKE, CREATE TABLE ... (own columns) AS SELECT
  with expressions, RENAME TABLE swapping two tables through a third name, `/*!NNNNN ... */` executable
  comments holding an ALTER, DROP TABLE IF EXISTS of several tables, a view, a trigger and a procedure (DDL to
  skip), a table with charset/collation on its columns and as table options.

Only MySQL-grammar syntax (Debezium's MySqlConnector is the oracle): no sequences, no `/*M!` comments, no
`IF [NOT] EXISTS` on columns (MariaDB-only forms the MySqlConnector stops on: recorded cases instead).
"""

from __future__ import annotations

import random
from typing import Any

# type families: a MODIFY moves a column to a later type of its own family (no value written before breaks)
FAMILIES: dict[str, list[str]] = {
    "int": ["TINYINT", "SMALLINT", "INT", "BIGINT"],
    "uint": ["TINYINT UNSIGNED", "INT UNSIGNED", "BIGINT UNSIGNED"],
    "dec": ["DECIMAL(6,2)", "DECIMAL(10,2)", "DECIMAL(20,4)"],
    "str": ["VARCHAR(12)", "VARCHAR(40)", "VARCHAR(40) CHARACTER SET utf8mb4 COLLATE utf8mb4_bin", "TEXT"],
    "latin": ["CHAR(6) CHARACTER SET latin1", "VARCHAR(30) CHARACTER SET latin1 COLLATE latin1_bin"],
    "enum": [
        "ENUM('a,b','c''d','')",
        "ENUM('a,b','c''d','','e\\\\f')",
        "ENUM('a,b','c''d','','e\\\\f','ü x')",
    ],
    "set": ["SET('x','y z')", "SET('x','y z','w''v')", "SET('x','y z','w''v','é')"],
    "time": ["DATE", "DATETIME", "DATETIME(3)"],
    "bin": ["VARBINARY(8)", "VARBINARY(32)", "BLOB"],
}
# values each family takes in every one of its types (literals as SQL)
VALUES: dict[str, list[str]] = {
    "int": ["0", "-7", "100", "NULL"],
    "uint": ["0", "200", "NULL"],
    "dec": ["0.50", "-12.25", "9999.99", "NULL"],
    "str": ["''", "'it''s'", "'a\\\\b'", "'ñé'", "NULL"],
    "latin": ["'abc'", "'é'", "''", "NULL"],
    "enum": ["'a,b'", "'c''d'", "''", "NULL"],
    "set": ["''", "'x'", "'x,y z'", "NULL"],
    "time": ["'2024-02-29'", "'1999-12-31'", "NULL"],
    "bin": ["X'00FF'", "''", "NULL"],
}
DEFAULTS: dict[str, list[str]] = {
    "int": ["DEFAULT 5", "DEFAULT (2 + 3)", "DEFAULT -1", ""],
    "uint": ["DEFAULT 7", ""],
    "dec": ["DEFAULT 1.50", "DEFAULT (0.25 * 2)", ""],
    "str": ["DEFAULT 'd''q'", "DEFAULT (CONCAT('x', 'y'))", "DEFAULT ''", ""],
    "latin": ["DEFAULT 'l'", ""],
    "enum": ["DEFAULT 'c''d'", "DEFAULT ''", ""],
    "set": ["DEFAULT 'x,y z'", "DEFAULT ''", ""],
    "time": ["DEFAULT '2000-01-01'", ""],
    "bin": ["DEFAULT X'01'", ""],
}
COMMENTS = ["", " COMMENT 'it''s'", " COMMENT 'say \"hi\"'", " COMMENT 'a\\\\b (c'"]
TABLE_OPTIONS = [
    "COMMENT = 'tbl ''q'''",
    "COMMENT 'x \"y\"'",
    "DEFAULT CHARSET = utf8mb4 COLLATE utf8mb4_unicode_ci",
    "ROW_FORMAT = DYNAMIC",
    "AUTO_INCREMENT = 100",
    "ENGINE = InnoDB",
]
# (ALGORITHM=INPLACE/INSTANT and LOCK=NONE refuse some of the drawn clauses: only those every clause takes)
TAILS = [
    ", ALGORITHM=COPY",
    ", ALGORITHM=DEFAULT",
    ", LOCK=SHARED",
    ", LOCK=DEFAULT",
    ", ALGORITHM=COPY, LOCK=EXCLUSIVE",
]


class _Scenario:
    def __init__(self, name: str) -> None:
        self.name, self.pre, self.stream = name, [], []


class _Col:
    def __init__(self, name: str, fam: str, level: int, generated: str = "", invisible: bool = False) -> None:
        self.name, self.fam, self.level, self.generated, self.invisible = (
            name,
            fam,
            level,
            generated,
            invisible,
        )

    def typ(self) -> str:
        return FAMILIES[self.fam][self.level]


def _coldef(rng: random.Random, c: _Col, snapshot: bool = False) -> str:
    if c.generated:
        return f"{c.typ()} AS ({c.generated}) {rng.choice(['VIRTUAL', 'STORED', 'PERSISTENT'][:2])}"
    default = rng.choice(DEFAULTS[c.fam])
    if snapshot and "CONCAT" in default:
        # MariaDB's SHOW CREATE TABLE prints it bare, which stops Debezium's snapshot (case
        # function_default_snapshot_stops): the rest of the workload would go unseen
        default = ""
    if c.fam in ("str", "latin", "bin") and c.level == len(FAMILIES[c.fam]) - 1 and "(" in default:
        default = ""  # (an expression default on TEXT/BLOB is fine; a literal one too, kept simple)
    null = rng.choice(["", " NULL"])
    inv = " INVISIBLE" if c.invisible else ""
    return f"{c.typ()}{null} {default}{inv}{rng.choice(COMMENTS)}".replace("  ", " ").strip()


def _pos(rng: random.Random, draw: str, cols: list[_Col], touched: set[str], own: str) -> str:
    """FIRST / AFTER a column no other clause of this ALTER touches (the target is then kept)."""
    if draw != "after":
        return draw
    others = [c for c in cols if c.name not in touched and c.name != own]
    if not others:
        return ""
    touched.add(after := rng.choice(others).name)
    return f" AFTER {after}"


def alter22(rng: random.Random, s: Any, t: str) -> None:
    """A tracked table and a stream of composed ALTERs, each followed by rows naming its columns."""
    n = 0

    def new_col(gen_ok: bool = True) -> _Col:
        nonlocal n
        n += 1
        if gen_ok and rng.random() < 0.15:
            fam, expr = rng.choice([("int", "id * 2"), ("str", "CONCAT('g', id)"), ("bin", "UNHEX(HEX(id))")])
            return _Col(f"g{n}", fam, len(FAMILIES[fam]) - 1 if fam == "int" else 1, generated=expr)
        fam = rng.choice(list(FAMILIES))
        return _Col(f"c{n}", fam, rng.randrange(len(FAMILIES[fam]) - 1), invisible=rng.random() < 0.1)

    cols = [new_col() for _ in range(rng.randint(2, 4))]
    s.pre.append(
        f"CREATE TABLE {t} (id INT NOT NULL PRIMARY KEY, "
        + ", ".join(f"{c.name} {_coldef(rng, c, snapshot=True)}" for c in cols)
        + rng.choice(["", f", CONSTRAINT {t}_ck0 CHECK (id > -100)"])
        + ")"
        + rng.choice(
            ["", " DEFAULT CHARSET=latin1", " COMMENT='it''s'", " CHARSET utf8mb4 COLLATE utf8mb4_bin"]
        )
        + ";"
    )
    rid = 0

    def row() -> None:
        nonlocal rid
        rid += 1
        plain = [c for c in cols if not c.generated]
        names = ", ".join(["id"] + [c.name for c in plain])
        vals = ", ".join([str(rid)] + [rng.choice(VALUES[c.fam]) for c in plain])
        s.stream.append(f"INSERT INTO {t} ({names}) VALUES ({vals});")

    s.pre.append(f"INSERT INTO {t} (id) VALUES (1000);")
    checks = 0
    for _ in range(rng.randint(4, 9)):
        clauses, touched = [], set()
        for _ in range(rng.randint(1, 3)):
            free = [c for c in cols if c.name not in touched]
            form = rng.choice(
                ["add", "add", "drop", "modify", "change", "rename", "default", "check", "option"]
            )
            if form in ("drop", "modify", "change", "rename", "default") and not free:
                form = "add"
            if form == "drop" and len(cols) <= 1:
                form = "add"
            draw = rng.choice(["", "", " FIRST", "after"])

            if form == "add":
                c = new_col()
                clauses.append(
                    f"ADD COLUMN {c.name} {_coldef(rng, c)}{_pos(rng, draw, cols, touched, c.name)}"
                )
                cols.append(c)
                touched.add(c.name)
            elif form == "drop":
                c = rng.choice(free)
                clauses.append(f"DROP COLUMN {c.name}")
                cols.remove(c)
                touched.add(c.name)
            elif form in ("modify", "change"):
                plain = [
                    c for c in free if not c.generated
                ]  # (VIRTUAL <-> STORED is not an ALTER MariaDB takes)
                if not plain:
                    continue
                c = rng.choice(plain)
                c.level = rng.randrange(c.level, len(FAMILIES[c.fam]))
                old = c.name
                at = _pos(rng, draw, cols, touched, old)
                touched.add(old)
                if form == "change":
                    c.name = f"{old}r"
                    touched.add(c.name)
                    clauses.append(f"CHANGE COLUMN {old} {c.name} {_coldef(rng, c)}{at}")
                else:
                    clauses.append(f"MODIFY COLUMN {c.name} {_coldef(rng, c)}{at}")
                c.invisible = c.invisible and "INVISIBLE" in clauses[-1]
            elif form == "rename":
                c = rng.choice(free)
                touched.add(c.name)
                old, c.name = c.name, f"{c.name}n"
                touched.add(c.name)
                clauses.append(f"RENAME COLUMN {old} TO {c.name}")
            elif form == "default":
                c = rng.choice(free)
                touched.add(c.name)
                if c.generated:
                    continue
                d = rng.choice([x for x in DEFAULTS[c.fam] if x] + ["DROP"])
                clauses.append(
                    f"ALTER COLUMN {c.name} DROP DEFAULT" if d == "DROP" else f"ALTER COLUMN {c.name} SET {d}"
                )
            elif form == "check":
                checks += 1
                clauses.append(f"ADD CONSTRAINT {t}_ck{checks} CHECK (id <> -{checks})")
            else:
                clauses.append(rng.choice(TABLE_OPTIONS))
        if not clauses:
            continue
        tail = rng.choice(TAILS) if rng.random() < 0.3 else ""
        s.stream.append(f"ALTER TABLE {t} " + ", ".join(clauses) + tail + ";")
        row()
        if rid > 1:
            s.stream.append(f"UPDATE {t} SET id = id + 100 WHERE id = {rid - 1};")
    s.stream.append(f"DELETE FROM {t} WHERE id = 1000;")


def part22(rng: random.Random, s: Any, t: str) -> None:
    """A partitioned table of a drawn kind and drawn maintenance between rows of several partitions."""
    kind = rng.choice(["RANGE", "LIST", "HASH", "KEY", "RANGE COLUMNS"])
    n_part = 2
    cols = "id INT NOT NULL, k INT NOT NULL, v VARCHAR(10) DEFAULT 'p', PRIMARY KEY (id, k)"
    if kind == "RANGE":
        parts = (
            "PARTITION BY RANGE (k) (PARTITION p0 VALUES LESS THAN (10), PARTITION p1 VALUES LESS THAN (20))"
        )
    elif kind == "RANGE COLUMNS":
        parts = (
            "PARTITION BY RANGE COLUMNS (k) (PARTITION p0 VALUES LESS THAN (10), "
            "PARTITION p1 VALUES LESS THAN (20))"
        )
    elif kind == "LIST":
        parts = (
            "PARTITION BY LIST (k) (PARTITION p0 VALUES IN (1, 2, 3), PARTITION p1 VALUES IN (11, 12, 13))"
        )
    else:
        n_part = rng.randint(2, 5)
        parts = f"PARTITION BY {kind} (k) PARTITIONS {n_part}"
    s.pre.append(f"CREATE TABLE {t} ({cols}) {parts};")
    s.pre.append(f"INSERT INTO {t} (id, k) VALUES (1, 1), (2, 12);")
    ranged = kind in ("RANGE", "RANGE COLUMNS", "LIST")
    rid, extra_col, upper = 2, 0, 2
    forms = ["add_col", "rebuild", "analyze", "truncate", "exchange"]
    forms += ["add_part", "reorganize", "drop_part"] if ranged else ["coalesce", "add_parts", "repartition"]
    for _ in range(rng.randint(3, 6)):
        form = rng.choice(forms)
        if form == "add_col":
            extra_col += 1
            s.stream.append(
                f"ALTER TABLE {t} ADD COLUMN e{extra_col} INT DEFAULT {extra_col}"
                + rng.choice(["", " FIRST", " AFTER id"])
                + ";"
            )
        elif form == "rebuild":
            s.stream.append(
                f"ALTER TABLE {t} REBUILD PARTITION p0;"
                if ranged
                else f"ALTER TABLE {t} REBUILD PARTITION p0, p1;"
            )
        elif form == "analyze":
            s.stream.append(f"ALTER TABLE {t} {rng.choice(['ANALYZE', 'CHECK', 'OPTIMIZE'])} PARTITION p0;")
        elif form == "truncate":
            s.stream.append(f"ALTER TABLE {t} TRUNCATE PARTITION p0;")
        elif form == "exchange" and ranged:
            x = f"{t}_x{rid}"
            ex = ", ".join(f"e{i} INT DEFAULT {i}" for i in range(1, extra_col + 1))
            # the columns in the partitioned table's order is what EXCHANGE needs: only when no column moved
            if extra_col:
                continue
            s.stream += [
                f"CREATE TABLE {x} ({cols}{', ' + ex if ex else ''});",
                f"INSERT INTO {x} (id, k, v) VALUES ({rid + 500}, 2, 'xx');",
                f"ALTER TABLE {t} EXCHANGE PARTITION p0 WITH TABLE {x};",
                f"INSERT INTO {x} (id, k) VALUES ({rid + 600}, 3);",
            ]
        elif form == "add_part":
            upper += 1
            if kind == "LIST":
                s.stream.append(
                    f"ALTER TABLE {t} ADD PARTITION (PARTITION q{upper} VALUES IN ({upper * 10 + 1}, {upper * 10 + 2}));"
                )
            else:
                s.stream.append(
                    f"ALTER TABLE {t} ADD PARTITION (PARTITION q{upper} VALUES LESS THAN ({upper * 10}));"
                )
        elif form == "reorganize" and kind != "LIST":
            s.stream.append(
                f"ALTER TABLE {t} REORGANIZE PARTITION p1 INTO (PARTITION p1a VALUES LESS THAN (15), "
                "PARTITION p1b VALUES LESS THAN (20));"
            )
            forms.remove("reorganize")
        elif form == "drop_part" and upper > 2:
            s.stream.append(f"ALTER TABLE {t} DROP PARTITION q{upper};")
            upper -= 1
        elif form == "coalesce" and n_part > 2:
            s.stream.append(f"ALTER TABLE {t} COALESCE PARTITION 1;")
            n_part -= 1
        elif form == "add_parts":
            s.stream.append(f"ALTER TABLE {t} ADD PARTITION PARTITIONS 1;")
            n_part += 1
        elif form == "repartition":
            n_part = rng.randint(2, 4)
            s.stream.append(
                f"ALTER TABLE {t} PARTITION BY {rng.choice(['HASH', 'KEY'])} (id) PARTITIONS {n_part};"
            )
        rid += 1
        k = rng.choice([1, 2, 11, 12]) if ranged else rng.randint(0, 50)
        s.stream.append(f"INSERT INTO {t} (id, k) VALUES ({rid}, {k});")
        s.stream.append(f"UPDATE {t} SET v = 'u{rid}' WHERE id <= {rid} AND k = {k};")
    s.stream.append(f"DELETE FROM {t} WHERE id = 2;")


def misc22(rng: random.Random, s: Any, t: str) -> None:
    """Table-level forms: LIKE / AS SELECT, a swap by RENAME, executable comments, DDL to skip."""
    s.pre += [
        f"CREATE TABLE {t} (id INT NOT NULL PRIMARY KEY, "
        "n VARCHAR(20) CHARACTER SET latin1 COLLATE latin1_german1_ci DEFAULT 'ä', "
        "u VARCHAR(20) CHARACTER SET utf8mb4 COLLATE utf8mb4_unicode_ci, "
        "e ENUM('', ' x', 'x''y', 'a\\\\b') NOT NULL DEFAULT ' x') "
        "ENGINE=InnoDB DEFAULT CHARSET=utf8mb3 COLLATE=utf8mb3_general_ci COMMENT='m \"q\" ''s''';",
        f"INSERT INTO {t} (id, n, u, e) VALUES (1, 'ö', 'ü', 'x''y'), (2, NULL, '', '');",
    ]
    rid = 2
    forms = ["like", "as_select", "swap", "versioned", "drops", "skip", "charset"]
    for form in rng.sample(forms, k=rng.randint(3, 6)):
        rid += 1
        if form == "like":
            s.stream += [
                f"CREATE TABLE IF NOT EXISTS {t}_l LIKE {t};",
                f"INSERT INTO {t}_l (id, n, e) VALUES ({rid}, 'l', 'a\\\\b');",
                f"CREATE TABLE IF NOT EXISTS {t}_l LIKE {t};",
                f"ALTER TABLE {t}_l ADD COLUMN z INT DEFAULT 3 FIRST;",
                f"INSERT INTO {t}_l (id) VALUES ({rid + 100});",
            ]
        elif form == "as_select":
            s.stream += [
                f"CREATE TABLE {t}_s (id INT NOT NULL PRIMARY KEY, extra VARCHAR(5) DEFAULT 'e') "
                f"AS SELECT id, CONCAT(n, '!') AS n2, id * 2 AS d, e FROM {t};",
                f"INSERT INTO {t}_s (id, n2, d) VALUES ({rid + 200}, 'n', 4);",
                f"UPDATE {t}_s SET extra = 'u' WHERE id = 1;",
            ]
        elif form == "swap":
            s.stream += [
                f"CREATE TABLE {t}_w (id INT NOT NULL PRIMARY KEY, w DOUBLE);",
                f"INSERT INTO {t}_w VALUES (1, 1.5);",
                f"RENAME TABLE {t} TO {t}_tmp, {t}_w TO {t}, {t}_tmp TO {t}_w;",
                f"INSERT INTO {t} VALUES ({rid}, 2.5);",
                f"INSERT INTO {t}_w (id, n) VALUES ({rid}, 'w');",
                f"RENAME TABLE {t} TO {t}_tmp, {t}_w TO {t}, {t}_tmp TO {t}_w;",
                f"INSERT INTO {t} (id, u) VALUES ({rid + 300}, 'back');",
            ]
        elif form == "versioned":
            s.stream += [
                f"/*!50100 ALTER TABLE {t} ADD COLUMN vc{rid} INT DEFAULT {rid} */;",
                f"INSERT INTO {t} (id) VALUES ({rid + 400});",
                f"ALTER TABLE {t} /*!50100 ADD COLUMN vd{rid} VARCHAR(3) DEFAULT 'v' AFTER id */;",
                f"INSERT INTO {t} (id) VALUES ({rid + 450});",
            ]
        elif form == "drops":
            s.stream += [
                f"CREATE TABLE {t}_d1 (id INT PRIMARY KEY);",
                f"CREATE TABLE {t}_d2 (id INT PRIMARY KEY, v TEXT);",
                f"INSERT INTO {t}_d2 VALUES (1, 'x');",
                f"DROP TABLE IF EXISTS {t}_d0, {t}_d1, {t}_d2;",
                f"CREATE TABLE {t}_d2 (id BIGINT PRIMARY KEY, w DATE);",
                f"INSERT INTO {t}_d2 VALUES (2, '2020-01-01');",
            ]
        elif form == "skip":
            s.stream += [
                f"CREATE OR REPLACE VIEW {t}_v AS SELECT id, n FROM {t} WHERE id > 0;",
                f"CREATE TRIGGER {t}_tr BEFORE INSERT ON {t} FOR EACH ROW SET NEW.u = CONCAT('t:', "
                "COALESCE(NEW.u, ''));",
                f"INSERT INTO {t} (id, u) VALUES ({rid + 500}, 'trig');",
                "DELIMITER //",
                f"CREATE PROCEDURE {t}_p(IN x INT)\nBEGIN\n  DECLARE y INT DEFAULT 0;\n  SET y = x + 1;\n"
                f"  UPDATE {t} SET n = 'p' WHERE id = y;\nEND //",
                "DELIMITER ;",
                f"CALL {t}_p(0);",
                f"DROP TRIGGER {t}_tr;",
                f"DROP PROCEDURE {t}_p;",
                f"DROP VIEW {t}_v;",
                f"INSERT INTO {t} (id, u) VALUES ({rid + 550}, 'after');",
            ]
        else:
            s.stream += [
                f"CREATE TABLE {t}_c (id INT NOT NULL PRIMARY KEY, "
                "a CHAR(3) CHARACTER SET ascii COLLATE ascii_bin, b TEXT CHARACTER SET utf8mb4, "
                "c VARCHAR(5) COLLATE latin1_swedish_ci) CHARACTER SET = latin2 COLLATE = latin2_general_ci;",
                f"INSERT INTO {t}_c VALUES (1, 'abc', 'ünï', 'åäö'), (2, NULL, '', NULL);",
                f"ALTER TABLE {t}_c MODIFY c VARCHAR(8) CHARACTER SET utf8mb4, DEFAULT CHARSET = utf8mb4;",
                f"INSERT INTO {t}_c VALUES (3, 'x', 'y', 'žz');",
            ]
    s.stream.append(f"UPDATE {t} SET id = id + 1000 WHERE id = 1;")


def draws(seed: int, props: dict[str, str], scenarios: list[Any]) -> None:
    r = random.Random(f"s22-{seed}")
    for name, share, make in (
        ("alter22x", 0.55, alter22),
        ("part22x", 0.35, part22),
        ("misc22x", 0.4, misc22),
    ):
        if r.random() < share:
            s = _Scenario(name)
            make(r, s, name)
            scenarios.append(s)
