"""The chunk and maximum-key queries of emulator/incremental/chunks_{postgres,mysql}.py, as text: the shape Debezium's
ChunkQueryBuilder gives them (rows after the last key and up to the maximum key, in key order, LIMIT the
chunk size; a nullable key column bounded as AbstractChunkQueryBuilder.addLowerBound does). Expected SQL
written by hand; the queries run against real servers in tests/test_incremental*.py and the
unique_index_nullable_key recording."""

from __future__ import annotations

from types import SimpleNamespace

from emulator.incremental.chunks_mysql import MySqlChunks
from emulator.incremental.chunks_postgres import PostgresChunks
from emulator.incremental.conditions import check_condition


def _col(name: str, optional: bool = False):
    return SimpleNamespace(name=name, schema=SimpleNamespace(optional=optional))


def _table(*cols):
    return SimpleNamespace(namespace="s", name="t", columns=list(cols))


def _pg_literal(v: str) -> str:
    return "'" + v.replace("'", "''") + "'"


def test_postgres_chunk_after_a_key_up_to_the_maximum():
    t = _table(_col("id"), _col("v", optional=True))
    q = PostgresChunks.chunk(t, ["id"], [10], [99], 5, None, _pg_literal).as_string(None)
    assert q == (
        'COPY (SELECT "id", "v" FROM "s"."t" WHERE ("id") > (10) AND ("id") <= (99) ORDER BY "id" LIMIT 5) '
        "TO STDOUT"
    )
    first = PostgresChunks.chunk(t, ["id"], None, [99], 5, None, _pg_literal).as_string(None)
    assert 'WHERE ("id") <= (99) ORDER BY' in first


def test_postgres_chunk_with_a_filter_and_the_maximum_key():
    t = _table(_col("id"), _col("v", optional=True))
    cond = check_condition("v = 'it''s'", ["id", "v"], ("s", "t"), "postgres")
    q = PostgresChunks.chunk(t, ["id"], None, [99], 5, cond, _pg_literal).as_string(None)
    assert q.endswith("""WHERE ("id") <= (99) AND ("v" = 'it''s') ORDER BY "id" LIMIT 5) TO STDOUT""")
    m = PostgresChunks.max_key(t, ["id"], cond, _pg_literal).as_string(None)
    assert m == """COPY (SELECT "id" FROM "s"."t" WHERE "v" = 'it''s' ORDER BY "id" DESC LIMIT 1) TO STDOUT"""


def test_postgres_chunk_of_a_key_with_a_nullable_column():
    """(a NOT NULL, b NULL) after (1, NULL) up to (5, 7): NULL sorts last, so `b > NULL` is nothing and
    `b > 7` also takes NULL."""
    t = _table(_col("a"), _col("b", optional=True))
    q = PostgresChunks.chunk(t, ["a", "b"], [1, None], [5, 7], 3, None, _pg_literal).as_string(None)
    assert q == (
        'COPY (SELECT "a", "b" FROM "s"."t" WHERE (("a" > 1) OR ("a" = 1 AND 1 = 0)) AND '
        'NOT (("a" > 5) OR ("a" = 5 AND ("b" > 7 OR "b" IS NULL))) ORDER BY "a", "b" LIMIT 3) TO STDOUT'
    )


def test_mysql_chunk_and_maximum_key():
    t = _table(_col("id"), _col("n`x", optional=True))
    q, args = MySqlChunks.chunk(t, ["id"], [10], [99], 5, None, _pg_literal)
    assert q == (
        "SELECT `id`, `n``x` FROM `s`.`t` WHERE (`id`) > (%s) AND (`id`) <= (%s) ORDER BY `id` LIMIT 5"
    )
    assert args == [10, 99]
    cond = check_condition("`n``x` LIKE 'a%'", ["id", "n`x"], ("s", "t"), "mysql")
    q, args = MySqlChunks.max_key(t, ["id"], cond, _pg_literal)
    # PyMySQL interpolates %s: the filter's own % is doubled
    assert q == "SELECT `id` FROM `s`.`t` WHERE `n``x` LIKE 'a%%' ORDER BY `id` DESC LIMIT 1"
    assert args == ()
