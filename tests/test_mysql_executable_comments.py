"""Executable comments `/*!NNNNN ... */` as Debezium's MySQL grammar reads them (MySqlLexer.g4's VERSION_COMMENT_START /
MYSQL_COMMENT_START / VERSION_COMMENT_END, MySqlLexerBase.checkMySQLVersion with serverVersion 80200): the inside is
code for no number or a number of at least 5 digits up to 80200, else the whole comment is hidden; a statement's text
runs from its first code token to its last. Recorded beside it: mariadb case dml_forms_executable_comments."""

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


def test_the_inside_of_a_version_comment_changes_the_table() -> None:
    parser = DdlParser(Catalog())
    (latin,) = parser.apply("CREATE TABLE t1 (a VARCHAR(3)) /*!40101 DEFAULT CHARSET=latin1 */", "d")
    (other,) = parser.apply("CREATE TABLE t2 (a VARCHAR(3)) /*!90000 DEFAULT CHARSET=latin1 */", "d")
    assert latin.ddl == "CREATE TABLE t1 (a VARCHAR(3)) /*!40101 DEFAULT CHARSET=latin1"
    assert latin.table.charset == "latin1"
    assert other.ddl == "CREATE TABLE t2 (a VARCHAR(3))"
    assert other.table.charset != "latin1"
