"""Debezium 3.6's DdlNormalizer as the MySqlConnector runs it (emulator/connectors/mysql/ddl_normalize.py), on
forms the recorded case (tests/data/mariadb/cases/ddl_double_quoted_strings) does not write: the expectations are
worked by hand from DdlNormalizer's regular expressions (v3.6.1.Final), not from the code under test."""

from __future__ import annotations

import pytest

from emulator.connectors.mysql.ddl_model import DdlError
from emulator.connectors.mysql.ddl_normalize import ansi_literal_stop, ansi_quotes, for_model, normalize

CASES = [
    # nothing to do: the same string
    ("CREATE TABLE t (id INT)", "CREATE TABLE t (id INT)"),
    # a comment keeps its double quotes; a /*! ... */ is not a comment to the normalizer: its string is rewritten
    ('ALTER TABLE t ADD c INT -- "x"', 'ALTER TABLE t ADD c INT -- "x"'),
    ('ALTER TABLE t ADD c INT /* "x" */', 'ALTER TABLE t ADD c INT /* "x" */'),
    ('/*!50100 ALTER TABLE t COMMENT "x" */', "/*!50100 ALTER TABLE t COMMENT 'x' */"),
    # a single-quoted string with a double quote and an escaped quote stays; a backticked name too
    ("ALTER TABLE t COMMENT 'a\"b\\'c'", "ALTER TABLE t COMMENT 'a\"b\\'c'"),
    ('CREATE TABLE `a"b` (`rank` INT)', 'CREATE TABLE `a"b` (`rank` INT)'),
    # an empty double-quoted string; an unterminated one is left as it is
    ('ALTER TABLE t ALTER c SET DEFAULT ""', "ALTER TABLE t ALTER c SET DEFAULT ''"),
    ('ALTER TABLE t COMMENT "abc', 'ALTER TABLE t COMMENT "abc'),
    # keywords: a table name after INTO / JOIN, case kept, a label; not before a type it does not list
    ("INSERT INTO Lead SELECT 1", "INSERT INTO `Lead` SELECT 1"),
    (
        "CREATE TABLE t (percent_rank\tDOUBLE, ntile INTEGER)",
        "CREATE TABLE t (`percent_rank` DOUBLE, ntile INTEGER)",
    ),
    ("lag: LOOP LEAVE lag; END LOOP", "`lag`: LOOP LEAVE lag; END LOOP"),
]


@pytest.mark.parametrize(("ddl", "expected"), CASES)
def test_normalize(ddl: str, expected: str) -> None:
    assert normalize(ddl) == expected


# (session 24) ANSI_QUOTES: SqlModes.sqlModeFromString's combination modes imply it (v3.6.1.Final, read by hand)
@pytest.mark.parametrize(
    ("mode", "ansi"),
    [
        ("STRICT_TRANS_TABLES,ERROR_FOR_DIVISION_BY_ZERO,NO_AUTO_CREATE_USER,NO_ENGINE_SUBSTITUTION", False),
        ("STRICT_TRANS_TABLES,ANSI_QUOTES", True),
        ("ansi", True),
        ("PIPES_AS_CONCAT,ORACLE", True),
        ("POSTGRESQL", True),
        ("", False),
        (None, False),
    ],
)
def test_ansi_quotes_mode(mode: str | None, ansi: bool) -> None:
    assert ansi_quotes(mode) is ansi


def test_ansi_mode_keeps_double_quotes() -> None:
    ddl = 'CREATE TABLE "a2" ("id" INT, lag INT, "w" VARCHAR(3) DEFAULT \'q\')'
    assert normalize(ddl, True) == 'CREATE TABLE "a2" ("id" INT, `lag` INT, "w" VARCHAR(3) DEFAULT \'q\')'
    # the emulator's own parser gets the identifiers backticked, a doubled quote inside undoubled
    assert for_model('CREATE TABLE "b""8" (id INT)') == 'CREATE TABLE `b"8` (id INT)'


@pytest.mark.parametrize(
    "ddl",
    [  # recorded as unparseable with ANSI_QUOTES (case ansi_quotes_literal_positions)
        'CREATE TABLE b2 (id INT PRIMARY KEY, s VARCHAR(10) DEFAULT "dq")',
        'CREATE TABLE b3 (id INT PRIMARY KEY, s VARCHAR(10) COMMENT "cm")',
        'CREATE TABLE b4 (id INT PRIMARY KEY, e ENUM("a", "b"))',
        'CREATE TABLE b5 (id INT PRIMARY KEY) COMMENT "tc"',
        'ALTER TABLE b1 COMMENT = "t2"',
        "CREATE TABLE b4 (id INT PRIMARY KEY, e SET('a', \"b\"))",
    ],
)
def test_ansi_literal_positions_stop(ddl: str) -> None:
    with pytest.raises(DdlError):
        ansi_literal_stop(normalize(ddl, True))


def test_ansi_identifier_positions_pass() -> None:
    # recorded as parsed (case ansi_quotes_literal_positions)
    for ddl in (
        'CREATE TABLE b6 (id INT PRIMARY KEY, s VARCHAR(10) CHARACTER SET "utf8mb4")',
        "CREATE TABLE \"b7\" (\"id\" INT PRIMARY KEY, \"s\" VARCHAR(10) DEFAULT 'x' COMMENT 'c', \"e\" SET('p', 'q'))",
        'ALTER TABLE "b7" RENAME COLUMN "s" TO "s2", ADD INDEX "ix" ("e")',
    ):
        ansi_literal_stop(normalize(ddl, True))
