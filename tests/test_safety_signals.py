"""Signal filters cannot inject SQL, on a real PostgreSQL and a real MariaDB (issue 14 item 1).

Whoever can write a signal row sends `execute-snapshot` signals whose `additional-conditions` try to sleep,
read other tables (mysql.user, pg_authid), read files, stack statements, hide text in comments or break out
of a string literal. Each one must be refused - no query runs, streaming goes on, a notification of the
refused scan is sent - or, where the trick only builds an odd string value, run harmlessly as that value.
A `leak()` function that writes to an `audit` table (callable by the connector's user) makes any executed
payload visible. Legitimate conditions - `LIKE 'n1%'`, quotes, IN lists - work on both databases.
"""

from __future__ import annotations

import json
import logging

import pytest
from incremental_checks import Run
from test_incremental import Db as PgDb
from test_incremental_mariadb import Db as MariaDb

from emulator.testing import mariadbserver
from emulator.testing.mariadbserver import MariaDbServer
from emulator.testing.pgserver import PgServer

NOTES = "notes"
NOTIFY = {"notification.enabled.channels": "sink", "notification.sink.topic.name": NOTES}

# names n1..n20, then values with quotes and metacharacters
ROWS = [(i, f"n{i}") for i in range(1, 21)] + [
    (21, "it's"),
    (22, "x%y"),
    (23, "back\\slash"),
    (24, "a' OR '1"),
]

REFUSED_COMMON = [
    "1=1; DELETE FROM victim",
    "id > 0; SELECT 1",
    "id > 0 -- comment",
    "id > 0 /* comment */",
    "leak() = 1",
    "id = 1 OR leak() = 1",
    "id IN (SELECT id FROM victim)",
    "EXISTS (SELECT 1)",
    "id = (SELECT 1)",
    "id > 0) OR (1=1",
    "nosuchcolumn = 1",
    "other.id > 0",
    "name = \u2019x\u2019 OR leak() = 1",  # unicode quotes are no quotes
    "name = \u02bcx\u02bc",
    "",
]
REFUSED = {
    "mysql": REFUSED_COMMON
    + [
        "SLEEP(5) = 0",
        "id = 1 OR SLEEP(5)",
        "BENCHMARK(50000000, MD5('a')) = 0",
        "id = 1 UNION SELECT authentication_string FROM mysql.user",
        "id IN (SELECT 1 FROM mysql.user)",
        "(SELECT COUNT(*) FROM mysql.user) > 0",
        "LOAD_FILE('/etc/passwd') IS NOT NULL",
        "id > 0 # comment",
        "id > 0 -- ",
        "id = @@version",
        "GET_LOCK('x', 10) = 1",
        "id > 0 INTO OUTFILE '/tmp/dbz_pwned'",
        "mysql.user.host IS NOT NULL",
        "name = 'a\\' OR leak() = 1 -- '' OR leak() = 1",
    ],
    "postgres": REFUSED_COMMON
    + [
        "pg_sleep(5) IS NULL",
        "id = 1 OR pg_sleep(5) IS NULL",
        "id = 1 UNION SELECT rolpassword FROM pg_authid",
        "id IN (SELECT oid::int FROM pg_authid)",
        "pg_read_file('/etc/passwd') = ''",
        "pg_ls_dir('.') IS NOT NULL",
        "query_to_xml('select public.leak()', true, true, '') IS NOT NULL",
        "set_config('log_statement', 'all', false) = 'all'",
        "current_setting('data_directory') = ''",
        "name::regclass IS NOT NULL",
        "U&'\\0027' = name",
        "$$x$$ = name",
        "id = E'\\'' OR leak() = 1",
        "pg_authid.rolname IS NOT NULL",
        "name = 'a\\' OR leak() = 1 -- '' OR '''",  # standard strings: the backslash escapes nothing
    ],
}
# tricks that only make an odd string value: accepted, run with that value, match nothing, do nothing
HARMLESS = {
    "mysql": [
        "name = 'a\\' OR leak() = 1 -- '",
        "name = 'z'' OR leak() = 1 OR ''z'",
        'name = "q\\" OR 1=1 -- "',
    ],
    "postgres": ["name = 'z'' OR leak() = 1 OR ''z'", "name = 'a\\'' OR leak() = 1 -- '"],
}
LEGIT = {  # condition -> ids it selects (by hand)
    "mysql": {
        "name LIKE 'n1%'": [1, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19],
        "name IN ('it''s', 'x%y') OR name = 'back\\\\slash'": [21, 22, 23],
        "name = 'a\\' OR \\'1' AND id % 2 = 0": [24],
    },
    "postgres": {
        "name LIKE 'n1%'": [1, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19],
        "name IN ('it''s', 'x%y') OR name = 'back\\slash'": [21, 22, 23],
        "name = 'a'' OR ''1' AND id % 2 = 0": [24],
    },
}


def _values(dialect: str) -> str:
    def quoted(v: str) -> str:
        if dialect == "mysql":
            v = v.replace("\\", "\\\\")
        return "'" + v.replace("'", "''") + "'"

    return ", ".join(f"({i}, {quoted(n)})" for i, n in ROWS)


def _notes(run: Run) -> list[dict]:
    return [r["value"]["payload"] for r in run.records if r["topic"] == NOTES]


def _exercise(db, run: Run, dialect: str, audit_count, victim_count) -> None:
    """Every refused payload is refused (notified, no query), every harmless one reads nothing, every
    legitimate one reads its rows; afterwards the stream still streams."""
    for i, flt in enumerate(REFUSED[dialect] + HARMLESS[dialect]):
        db.signal(
            "execute-snapshot",
            {
                "data-collections": [db_table(db, "victim")],
                "additional-conditions": [{"data-collection": db_table(db, "victim"), "filter": flt}],
            },
            sid=f"bad-{i}",
        )
    run.sync()
    run.wait(lambda r: r.snapshot_done(), 60, "the harmless snapshots")
    assert run.reads("victim") == []
    assert audit_count() == 0, "a payload ran"
    assert victim_count() == len(ROWS)
    # the refused ones: Debezium's notifications of a scan that failed, and a log line (checked by callers)
    failed = [
        n
        for n in _notes(run)
        if n["type"] == "TABLE_SCAN_COMPLETED" and n["additional_data"]["status"] == "SQL_EXCEPTION"
    ]
    assert sorted(n["id"] for n in failed) == sorted(f"bad-{i}" for i in range(len(REFUSED[dialect])))
    # legitimate conditions: exactly their rows
    for j, (flt, ids) in enumerate(LEGIT[dialect].items()):
        since = len(run.records)
        db.signal(
            "execute-snapshot",
            {
                "data-collections": [db_table(db, "victim")],
                "additional-conditions": [{"data-collection": db_table(db, "victim"), "filter": flt}],
            },
            sid=f"good-{j}",
        )
        run.wait(
            lambda r, j=j: (
                r.snapshot_done()
                and any(n["type"] == "COMPLETED" and n["id"] == f"good-{j}" for n in _notes(r))
            ),
            60,
            flt,
        )
        got = sorted(r["key"]["payload"]["id"] for r in run.reads("victim", since))
        assert got == ids, flt
    # streaming goes on
    db.run(f"INSERT INTO {db_table(db, 'victim')} VALUES (100, 'later')")
    topic = db.topic("victim")
    run.wait(
        lambda r: any(
            x["topic"] == topic and x["value"] and x["value"]["payload"]["op"] == "c" for x in r.records
        ),
        30,
        "a streamed insert",
    )
    assert audit_count() == 0


def db_table(db, table: str) -> str:
    return db.table_id(table) if hasattr(db, "table_id") else f"public.{table}"


# -- PostgreSQL ---------------------------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def pg():
    with PgServer() as server:
        yield server


def test_postgres_injection_payloads_are_refused_and_legit_filters_work(pg, caplog):
    caplog.set_level(logging.INFO, logger="emulator")
    db = PgDb(
        pg,
        f"""
        CREATE TABLE public.victim (id int PRIMARY KEY, name text);
        INSERT INTO public.victim VALUES {_values("postgres")};
        CREATE TABLE public.other (id int PRIMARY KEY);
        CREATE TABLE public.audit (at timestamptz);
        CREATE FUNCTION public.leak() RETURNS int LANGUAGE sql AS
          'INSERT INTO public.audit VALUES (now()) RETURNING 1';
    """,
    )
    run = Run(db, db.props(**NOTIFY, **{"table.exclude.list": "public.audit"})).start()
    try:
        run.sync()
        _exercise(
            db,
            run,
            "postgres",
            lambda: db.query("SELECT count(*) FROM public.audit")[0][0],
            lambda: db.query("SELECT count(*) FROM public.victim")[0][0],
        )
    finally:
        run.stop()
    refused = [m for m in caplog.messages if "ignored" in m and "bad-" in m]
    assert len(refused) == len(REFUSED["postgres"]), refused


# -- MariaDB ------------------------------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def maria():
    if not mariadbserver.available():
        pytest.skip("MariaDB server binaries not installed (scripts/setup.sh installs them)")
    with MariaDbServer() as s:
        yield s


def test_mariadb_injection_payloads_are_refused_and_legit_filters_work(maria, tmp_path, caplog):
    caplog.set_level(logging.INFO, logger="emulator")
    db = MariaDb(
        maria,
        f"""
        CREATE TABLE victim (id INT PRIMARY KEY, name VARCHAR(64));
        INSERT INTO victim VALUES {_values("mysql")};
        CREATE TABLE other (id INT PRIMARY KEY);
        CREATE TABLE audit (at DATETIME(6));
        DELIMITER //
        CREATE FUNCTION leak() RETURNS INT DETERMINISTIC MODIFIES SQL DATA BEGIN INSERT INTO audit VALUES (NOW(6)); RETURN 1; END//
        DELIMITER ;
    """,
        tmp_path,
    )
    maria.sql(f"GRANT EXECUTE ON {db.name}.* TO 'debezium'@'127.0.0.1'")  # a payload could call it
    hashes = [r[0] for r in maria.query("SELECT authentication_string FROM mysql.user") if r[0]]
    run = Run(db, db.props(**NOTIFY, **{"table.exclude.list": f"{db.name}.audit"})).start()
    try:
        run.sync()
        _exercise(
            db,
            run,
            "mysql",
            lambda: int(maria.query("SELECT count(*) FROM audit", db.name)[0][0]),
            lambda: int(maria.query("SELECT count(*) FROM victim WHERE id < 100", db.name)[0][0]),
        )
    finally:
        run.stop()
    refused = [m for m in caplog.messages if "ignored" in m and "bad-" in m]
    assert len(refused) == len(REFUSED["mysql"]), refused
    assert hashes and not any(h in caplog.text for h in hashes)


def test_condition_grammar_is_the_sources_own():
    """The same text means different things in the two grammars: each is checked and rendered with its own."""
    from emulator.incremental.conditions import ConditionError, check_condition

    cols = ["id", "name"]
    # MariaDB: a backslash escapes the quote, the whole thing is one string value
    p = check_condition("name = 'a\\' OR 1=1 -- '", cols, ("db", "t"), "mariadb")
    assert p.values == ("a' OR 1=1 -- ",)
    # PostgreSQL (standard strings): the backslash is a character, the rest a comment -> refused
    with pytest.raises(ConditionError):
        check_condition("name = 'a\\' OR 1=1 -- '", cols, ("public", "t"), "postgres")
    # `#` starts a comment only in MariaDB
    with pytest.raises(ConditionError):
        check_condition("id > 0 # x", cols, ("db", "t"), "mariadb")
    # values are rendered by the given escaping, never spliced
    seen = []
    text = check_condition("name LIKE 'n1%' AND id = 3", cols, ("db", "t"), "mysql").render(
        lambda v: seen.append(v) or "?"
    )
    assert text == "`name` LIKE ? AND `id` = 3" and seen == ["n1%"]
    assert json.dumps(check_condition("NAME = 'x'", cols, ("db", "t"), "mysql").template) == json.dumps(
        ["`name` = ", "0", ""]
    )


def test_mariadb_blocking_snapshot_filters_use_the_mysql_grammar(maria, tmp_path) -> None:
    """A blocking snapshot's SELECT is checked and rendered the same way: `%` and quotes work, a payload
    hidden in it is refused and the stream goes on."""
    db = MariaDb(
        maria,
        f"CREATE TABLE victim (id INT PRIMARY KEY, name VARCHAR(64)); "
        f"INSERT INTO victim VALUES {_values('mysql')};",
        tmp_path,
    )
    run = Run(db, db.props()).start()
    try:
        run.sync()
        for flt in [
            "SELECT * FROM victim WHERE SLEEP(3) = 0",
            "SELECT * FROM victim; DELETE FROM victim",
            "SELECT * FROM victim WHERE id IN (SELECT 1 FROM mysql.user)",
            "SELECT * FROM victim # comment",
        ]:
            db.signal(
                "execute-snapshot",
                {
                    "type": "blocking",
                    "data-collections": [db.table_id("victim")],
                    "additional-conditions": [{"data-collection": db.table_id("victim"), "filter": flt}],
                },
            )
        db.signal(
            "execute-snapshot",
            {
                "type": "blocking",
                "data-collections": [db.table_id("victim")],
                "additional-conditions": [
                    {
                        "data-collection": db.table_id("victim"),
                        "filter": "SELECT * FROM victim WHERE name LIKE 'n1%' OR name = 'it''s'",
                    }
                ],
            },
        )
        run.wait(lambda r: len(r.reads("victim")) >= 12, 60, "the blocking snapshot")
        run.sync()
    finally:
        run.stop()
    assert sorted(r["key"]["payload"]["id"] for r in run.reads("victim")) == [1, *range(10, 20), 21]
    assert int(maria.query("SELECT count(*) FROM victim", db.name)[0][0]) == len(ROWS)
