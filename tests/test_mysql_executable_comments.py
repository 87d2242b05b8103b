"""Executable comments `/*!NNNNN ... */` as Debezium's MySQL grammar reads them (MySqlLexer.g4's
VERSION_COMMENT_START / MYSQL_COMMENT_START / VERSION_COMMENT_END, MySqlLexerBase.checkMySQLVersion with
serverVersion 80200): the inside is code for no number or a number of at least 5 digits up to 80200, else the whole
comment is hidden (the emulator's model still takes what the server ran); a statement's text runs from its first code
token to its last. Recorded beside it: mariadb cases dml_forms_executable_comments, executable_comment_versions."""

from __future__ import annotations

import pytest

from emulator.connectors.mysql.ddl import Catalog, DdlParser
from emulator.connectors.mysql.ddl_text import executable_comments


@pytest.mark.parametrize(
    ("text", "shown", "code"),
    [
        ("CREATE TABLE t (a INT)", "CREATE TABLE t (a INT)", "CREATE TABLE t (a INT)"),
        (
            "/*!40000 ALTER TABLE t DISABLE KEYS */",
            "ALTER TABLE t DISABLE KEYS",
            "ALTER TABLE t DISABLE KEYS",
        ),
        (
            "CREATE TABLE t (a INT) /*!40101 DEFAULT CHARSET=latin1 */",
            "CREATE TABLE t (a INT) /*!40101 DEFAULT CHARSET=latin1",
            "DEFAULT CHARSET=latin1",
        ),
        (
            "CREATE TABLE t (a INT) /*! DEFAULT CHARSET=latin1 */",
            "CREATE TABLE t (a INT) /*! DEFAULT CHARSET=latin1",
            "DEFAULT CHARSET=latin1",
        ),
        # a number above the grammar's 80200, or of fewer than 5 digits: the whole comment is hidden
        (
            "CREATE TABLE t (a INT) /*!90000 DEFAULT CHARSET=latin1 */",
            "CREATE TABLE t (a INT)",
            "CREATE TABLE t (a INT)",
        ),
        (
            "CREATE TABLE t (a INT) /*!100100 DEFAULT CHARSET=latin1 */",
            "CREATE TABLE t (a INT)",
            "CREATE TABLE t (a INT)",
        ),
        # a plain comment is no code for either; quoted text is left alone
        ("/* x */ CREATE TABLE t (a INT) /* 90000 y */", "CREATE TABLE t (a INT)", "CREATE TABLE t (a INT)"),
        (
            "CREATE TABLE t (a INT COMMENT 'p /* q */') /*!40101 */",
            "CREATE TABLE t (a INT COMMENT 'p /* q */')",
            "'p /* q */'",
        ),
        (
            "CREATE TABLE t (a INT) /*!4010 DEFAULT CHARSET=latin1 */",
            "CREATE TABLE t (a INT)",
            "CREATE TABLE t (a INT)",
        ),
    ],
)
def test_shown_and_parsed_text(text: str, shown: str, code: str) -> None:
    got_shown, got_code = executable_comments(text)
    assert got_shown == shown
    assert code in got_code and "/*!" not in got_code


def test_what_the_server_ran_changes_the_table() -> None:
    """MariaDB writes the `/*!` comments it did not run as plain `/* NNNNN ... */` (recorded: case
    executable_comment_versions), so the emulator's model takes the inside of every `/*!` left, while the text shown
    is Debezium's (which hides a 6-digit MariaDB version)."""
    parser = DdlParser(Catalog())
    (latin,) = parser.apply("CREATE TABLE t1 (a VARCHAR(3)) /*!40101 DEFAULT CHARSET=latin1 */", "d")
    (maria,) = parser.apply("CREATE TABLE t2 (a VARCHAR(3)) /*!100100 DEFAULT CHARSET=latin1 */", "d")
    (plain,) = parser.apply("CREATE TABLE t3 (a VARCHAR(3)) /* 90000 DEFAULT CHARSET=latin1 */", "d")
    assert latin.ddl == "CREATE TABLE t1 (a VARCHAR(3)) /*!40101 DEFAULT CHARSET=latin1"
    assert latin.table.charset == "latin1"
    assert maria.ddl == "CREATE TABLE t2 (a VARCHAR(3))"
    assert maria.table.charset == "latin1"
    assert plain.ddl == "CREATE TABLE t3 (a VARCHAR(3))"
    assert plain.table.charset != "latin1"
