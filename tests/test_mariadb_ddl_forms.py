"""The DDL model on statement forms real Debezium could not be recorded on here: MariaDB-only syntax
(the MySqlConnector's grammar stops on it; the MariaDbConnector's jars are not available). Capture must
go on and the model must follow what the server did. Expected columns are written by hand from the
statements' meaning in MariaDB 10.11."""

from __future__ import annotations

import pytest

from emulator.connectors.mysql.ddl import Catalog, DdlError, DdlParser
from emulator.connectors.mysql.ddl_model import Table


@pytest.fixture
def parser():
    p = DdlParser(Catalog(), mysql_grammar=False)
    p.apply("CREATE TABLE t (id INT PRIMARY KEY, a INT)", "db")
    return p


def columns(p: DdlParser, name: str = "t") -> list[tuple[str, str]]:
    return [(c.name, c.type_name) for c in p.catalog.get("db", name).columns]


@pytest.mark.parametrize(
    "stmts, expected",
    [
        (["ALTER TABLE t ADD COLUMN IF NOT EXISTS a BIGINT"], [("id", "INT"), ("a", "INT")]),
        (
            ["ALTER TABLE t ADD COLUMN IF NOT EXISTS b VARCHAR(5)"],
            [("id", "INT"), ("a", "INT"), ("b", "VARCHAR")],
        ),
        (["ALTER TABLE t DROP COLUMN IF EXISTS zz"], [("id", "INT"), ("a", "INT")]),
        (["ALTER TABLE t DROP COLUMN IF EXISTS a"], [("id", "INT")]),
        (["ALTER TABLE t MODIFY COLUMN IF EXISTS a BIGINT"], [("id", "INT"), ("a", "BIGINT")]),
        (["ALTER TABLE t MODIFY COLUMN IF EXISTS nope BIGINT"], [("id", "INT"), ("a", "INT")]),
        (["ALTER TABLE t CHANGE COLUMN IF EXISTS a a2 SMALLINT"], [("id", "INT"), ("a2", "SMALLINT")]),
        (
            ["ALTER TABLE t ADD COLUMN g INT AS (a + 1) PERSISTENT"],
            [("id", "INT"), ("a", "INT"), ("g", "INT")],
        ),
        (["ALTER TABLE t WAIT 5 ADD COLUMN w INT"], [("id", "INT"), ("a", "INT"), ("w", "INT")]),
        (["ALTER ONLINE TABLE t ADD COLUMN w INT FIRST"], [("w", "INT"), ("id", "INT"), ("a", "INT")]),
        (["ALTER TABLE t ADD INDEX IF NOT EXISTS ix (a)"], [("id", "INT"), ("a", "INT")]),
        (
            ["ALTER TABLE t ADD (b DATE, c CHAR(2) CHARACTER SET latin1)"],
            [("id", "INT"), ("a", "INT"), ("b", "DATE"), ("c", "CHAR")],
        ),
        (["CREATE OR REPLACE TABLE t (x INT)"], [("x", "INT")]),
        (
            ["CREATE SEQUENCE s1 START WITH 10", "ALTER SEQUENCE s1 RESTART WITH 1", "DROP SEQUENCE s1"],
            [("id", "INT"), ("a", "INT")],
        ),
    ],
)
def test_mariadb_only_alter_forms(parser, stmts, expected):
    for s in stmts:
        parser.apply(s, "db")
    assert columns(parser) == expected


def test_partitioned_tables_and_system_versioning_refused(parser):
    parser.apply(
        "CREATE TABLE p (id INT NOT NULL, d DATE NOT NULL, PRIMARY KEY (id, d)) PARTITION BY RANGE COLUMNS (d) "
        "(PARTITION p0 VALUES LESS THAN ('2020-01-01'), PARTITION p1 VALUES LESS THAN (MAXVALUE))",
        "db",
    )
    assert columns(parser, "p") == [("id", "INT"), ("d", "DATE")]
    assert parser.catalog.get("db", "p").pk == ["id", "d"]
    ch = parser.apply("ALTER TABLE p CONVERT PARTITION p0 TO TABLE p_old", "db")
    assert [(c.kind, c.table_name) for c in ch] == [("ALTER", "p")]
    # (session 17) refused with either grammar: the rows of a system-versioned table carry hidden ROW_START/ROW_END
    # columns no model of its statement has (the MySqlConnector stops on it: cases system_versioning_stops*)
    for s in [
        "CREATE TABLE v (id INT PRIMARY KEY, x INT) WITH SYSTEM VERSIONING",
        "ALTER TABLE p ADD SYSTEM VERSIONING",
        "CREATE TABLE w (id INT, s TIMESTAMP(6) AS ROW START, e TIMESTAMP(6) AS ROW END, PERIOD FOR SYSTEM_TIME(s, e))",
    ]:
        with pytest.raises(
            DdlError, match="system-versioned tables are not emulated with the MariaDbConnector"
        ):
            parser.apply(s, "db")
    assert parser.catalog.get("db", "v") is None
    assert columns(parser, "p") == [("id", "INT"), ("d", "DATE")]


def test_statements_that_leave_the_model_alone(parser):
    for s in [
        "CREATE DEFINER=`root`@`localhost` PROCEDURE p1(IN x INT)\nBEGIN\n  INSERT INTO t VALUES (x, x);\nEND",
        "CREATE DEFINER=`root`@`localhost` TRIGGER tr BEFORE INSERT ON t FOR EACH ROW SET NEW.a = 1",
        "CREATE ALGORITHM=UNDEFINED DEFINER=`root`@`localhost` SQL SECURITY DEFINER VIEW v1 AS SELECT id FROM t",
        "GRANT SELECT ON db.* TO 'b'@'%'",
        "CREATE ROLE r1",
        "SIGNAL SQLSTATE '45000'",
    ]:
        assert parser.apply(s, "db") == []
    assert columns(parser) == [("id", "INT"), ("a", "INT")]


def test_bare_schema_changes_as_recorded_with_the_mysql_grammar(parser):
    """No listener of either grammar signals these: Debezium's shared BinlogDatabaseSchema.parseDdl emits a
    schema change with no table change (recorded with the MySqlConnector, case
    ddl_routines_views_users_indexes)."""
    for s in [
        "RENAME USER 'a'@'%' TO 'b'@'%'",
        "CREATE INDEX ix ON t (a)",
        "ALTER DATABASE db CHARACTER SET latin1",
        "CREATE EVENT e ON SCHEDULE EVERY 1 DAY DO DELETE FROM t",
    ]:
        assert [(c.kind, c.db, c.table) for c in parser.apply(s, "db")] == [("OTHER", "db", None)], s
    assert columns(parser) == [("id", "INT"), ("a", "INT")]


def test_alter_table_charset_option_keeps_the_default_charset(parser):
    parser.apply("CREATE TABLE c (id INT PRIMARY KEY, s VARCHAR(5)) CHARSET=utf8mb4", "db")
    parser.apply("ALTER TABLE c DEFAULT CHARSET=latin1", "db")
    assert parser.catalog.get("db", "c").charset == "utf8mb4"
    parser.apply("ALTER TABLE c CONVERT TO CHARACTER SET latin1", "db")
    assert parser.catalog.get("db", "c").charset == "latin1"


def test_unknown_column_type_is_a_clear_error(parser):
    with pytest.raises(DdlError, match="cannot parse DDL statement"):
        parser.apply("CREATE TABLE x (id INT PRIMARY KEY, i INET6)", "db")


def test_uuid_is_a_mariadb_grammar_type_only():
    """Debezium's MySQL grammar has no UUID type: the MySqlConnector stops on it (recorded, case
    mysqlconnector_uuid_stops); the MariaDB grammar reads it."""
    with pytest.raises(DdlError, match="UUID"):
        DdlParser(Catalog(), mysql_grammar=True).apply("CREATE TABLE u (id INT PRIMARY KEY, u UUID)", "db")
    p = DdlParser(Catalog(), mysql_grammar=False)
    p.apply("CREATE TABLE u (id INT PRIMARY KEY, u UUID)", "db")
    assert columns(p, "u") == [("id", "INT"), ("u", "UUID")]


def test_uuid_column_is_refused_with_the_mariadb_connector():
    from emulator.connectors.mysql.types import TypeConfig, UnsupportedColumn, map_column

    p = DdlParser(Catalog(), mysql_grammar=False)
    p.apply("CREATE TABLE u (id INT PRIMARY KEY, u UUID)", "db")
    col = p.catalog.get("db", "u").columns[1]
    with pytest.raises(UnsupportedColumn, match="connector.class") as e:
        map_column(col, TypeConfig(mariadb_connector=True))
    assert e.value.property == "connector.class"


def test_columns_added_after_a_table_charset_change_keep_the_servers_charset(parser):
    """(session 17) ALTER TABLE ... [DEFAULT] CHARSET=x: Debezium's model keeps the table's charset (recorded, case
    alter_table_charset_added_columns: defaultCharsetName and the added columns' charsetName stay utf8mb4) and so
    loses the latin1 values of the columns added since; the model shows Debezium's charset and decodes with the
    server's (`value_charset`)."""
    from emulator.connectors.mysql.types import TypeConfig, map_column

    parser.apply("CREATE TABLE cs (id INT PRIMARY KEY, v VARCHAR(10))", "db")
    parser.apply("ALTER TABLE cs DEFAULT CHARSET=latin1", "db")
    parser.apply(
        "ALTER TABLE cs ADD COLUMN l VARCHAR(8), ADD COLUMN m VARCHAR(8) CHARACTER SET utf8mb4", "db"
    )
    parser.apply("ALTER TABLE cs CHARACTER SET = utf8mb4, ADD COLUMN n TEXT", "db")  # back: nothing to fix
    t = parser.catalog.get("db", "cs")
    assert t.charset == "utf8mb4" and [(c.name, c.charset, c.value_charset) for c in t.columns[1:]] == [
        ("v", "utf8mb4", None),
        ("l", "utf8mb4", "latin1"),
        ("m", "utf8mb4", None),
        ("n", "utf8mb4", None),
    ]
    assert map_column(t.column("l"), TypeConfig()).convert("ñé".encode("latin1")) == "ñé"
    assert "latin1" not in str(t.change_payload())  # (the schema change records: Debezium's)
    assert Table.from_json(t.quoted_id, t.to_json()) == t  # (the history: ours, kept over a restart)
    parser.apply("ALTER TABLE cs CHARSET latin1, CONVERT TO CHARACTER SET cp1251", "db")
    t = parser.catalog.get("db", "cs")
    assert [(c.name, c.charset, c.value_charset) for c in t.columns[1:]][:2] == [
        ("v", "cp1251", None),
        ("l", "cp1251", None),
    ]


def test_alter_database_charset_is_the_default_of_later_tables():
    """(session 18) ALTER DATABASE's CHARACTER SET (not a COLLATE alone) is the charset a later CREATE TABLE without
    its own takes (recorded with the MySqlConnector: case alter_database_charset). Without a database name the MySQL
    grammar stops (case alter_database_without_name_stops); the MariaDB grammar's name is optional: the session's
    database (its CreateAndAlterDatabaseParserListener: `parser.currentSchema()`)."""
    for grammar in (True, False):
        p = DdlParser(Catalog(), mysql_grammar=grammar)
        p.catalog.server_charset = "utf8mb4"
        p.apply("CREATE DATABASE db", None)
        p.apply("ALTER DATABASE db CHARACTER SET latin1 COLLATE latin1_swedish_ci", "db")
        p.apply("CREATE TABLE a (id INT PRIMARY KEY, v VARCHAR(5))", "db")
        p.apply("ALTER SCHEMA `db` DEFAULT COLLATE utf8mb4_bin", "db")
        p.apply("CREATE TABLE b (id INT PRIMARY KEY, v VARCHAR(5))", "db")
        assert [p.catalog.get("db", t).charset for t in "ab"] == ["latin1", "latin1"]
    with pytest.raises(DdlError, match="ALTER DATABASE without a database name"):
        DdlParser(Catalog(), mysql_grammar=True).apply("ALTER DATABASE CHARACTER SET = utf8mb3", "db")
    p = DdlParser(Catalog(), mysql_grammar=False)
    p.apply("ALTER DATABASE CHARACTER SET = utf8mb3", "db")
    p.apply("CREATE TABLE c (id INT PRIMARY KEY, v VARCHAR(5))", "db")
    assert p.catalog.get("db", "c").charset == "utf8mb3"


@pytest.mark.parametrize(
    "sql",
    [
        "ALTER TABLE t ADD COLUMN IF NOT EXISTS x INT DEFAULT 4",
        "ALTER TABLE t DROP COLUMN IF EXISTS a",
        "ALTER TABLE t MODIFY COLUMN IF EXISTS a BIGINT",
        "CREATE OR REPLACE TABLE t (id INT PRIMARY KEY, w DATE)",
        "CREATE SEQUENCE s1 START WITH 10 INCREMENT BY 5",
    ],
)
def test_mariadb_only_forms_stop_the_mysql_grammar(sql):
    """(session 22) each recorded with Debezium 3.6.3's MySqlConnector on MariaDB 10.11: "DDL statement couldn't be
    parsed" (cases alter_add_column_if_not_exists_stops, create_or_replace_table_stops, create_sequence_stops; the
    DROP/MODIFY forms recorded alike in the session's probes). The MariaDB grammar takes them (above)."""
    p = DdlParser(Catalog(), mysql_grammar=True)
    p.apply("CREATE TABLE t (id INT PRIMARY KEY, a INT)", "db")
    with pytest.raises(DdlError):
        p.apply(sql, "db")
    p.apply("ALTER TABLE t ADD COLUMN b VARCHAR(20) DEFAULT 'if exists' COMMENT 'IF NOT EXISTS'", "db")
    p.apply("CREATE TABLE IF NOT EXISTS u (id INT)", "db")
