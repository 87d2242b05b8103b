"""emulator.connectors.postgres.copy_text: a snapshot's COPY read from libpq. Expected column texts are
written by hand (what COPY's text format stands for: NULL is None, escapes resolved); the connection must
be usable afterwards, and a server error or an abandoned read must leave it as psycopg's own `rows()` does."""

from __future__ import annotations

import psycopg
import pytest

from emulator.connectors.postgres.copy_text import copy_rows, parse_escaped
from emulator.testing.pgserver import PgServer


@pytest.fixture(scope="module")
def pg():
    with PgServer() as server:
        server.psql(
            "CREATE TABLE t (id int PRIMARY KEY, s text, a text[], j jsonb);"
            "INSERT INTO t VALUES (1, E'tab\\there\\nnl\\\\bs\\rcr\\bbs\\ffeed', ARRAY['q\"x', 'b\\w', NULL], "
            "'{\"k\": \"v\\\\n\"}'), (2, '\\N', NULL, NULL), (3, 'é€😀', '{}', 'null'), (4, '', NULL, '1')"
        )
        yield server


def test_rows_as_column_texts(pg):
    with pg.connect() as conn:
        got = list(copy_rows(conn, "COPY (SELECT id, s, a, j FROM t ORDER BY id) TO STDOUT"))
        assert got == [
            ["1", "tab\there\nnl\\bs\rcr\bbs\ffeed", '{"q\\"x","b\\\\w",NULL}', '{"k": "v\\\\n"}'],
            ["2", "\\N", None, None],  # the two characters backslash, N - not NULL
            ["3", "é€😀", "{}", "null"],
            ["4", "", None, "1"],
        ]
        assert conn.execute("SELECT 42").fetchone() == (42,)


def test_empty_result(pg):
    with pg.connect() as conn:
        assert list(copy_rows(conn, "COPY (SELECT 1 WHERE false) TO STDOUT")) == []
        assert conn.execute("SELECT 1").fetchone() == (1,)


def test_server_error_is_raised(pg):
    with pg.connect() as conn:
        with pytest.raises(psycopg.errors.DivisionByZero):
            list(copy_rows(conn, "COPY (SELECT 1 / (g - 3) FROM generate_series(1, 5) g) TO STDOUT"))
        assert conn.execute("SELECT 2").fetchone() == (2,)


def test_abandoned_read_cancels_the_copy(pg):
    with pg.connect() as conn:
        rows = copy_rows(conn, "COPY (SELECT g FROM generate_series(1, 2000000) g) TO STDOUT")
        assert next(rows) == ["1"]
        rows.close()  # as a stopped snapshot leaves its generator
        assert conn.pgconn.transaction_status == psycopg.pq.TransactionStatus.IDLE
        assert conn.execute("SELECT 3").fetchone() == (3,)


def test_parse_escaped():
    assert parse_escaped("a\\\\b\t\\N\t\\t\\n\t") == ["a\\b", None, "\t\n", ""]
