"""Debezium 3.6's DdlNormalizer as the MySqlConnector runs it (emulator/connectors/mysql/ddl_normalize.py), on
forms the recorded case (tests/data/mariadb/cases/ddl_double_quoted_strings) does not write: the expectations are
worked by hand from DdlNormalizer's regular expressions (v3.6.1.Final), not from the code under test."""

from __future__ import annotations

import pytest

from emulator.connectors.mysql.ddl_normalize import normalize

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
