"""Chunk and maximum-key queries of incremental snapshots, one builder per SQL dialect.

A chunk is the rows after the last key read and up to the table's maximum key (taken when the table's
snapshot starts), in key order, at most `incremental.snapshot.chunk.size` of them (Debezium's
ChunkQueryBuilder). An `additional-conditions` filter arrives as a checked Predicate and is rendered with
the driver's literal escaping (`literal`), never spliced from the signal's text. The connectors run the
queries (a read-only transaction, a consistent snapshot for read.only chunks); this module only builds them.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from psycopg import sql

from emulator.incremental.conditions import Predicate

Literal = Callable[[str], str]


class PostgresChunks:
    """COPY (SELECT ...) TO STDOUT queries (psycopg Composables): the rows come back as the text the
    snapshot parsers read."""

    @staticmethod
    def max_key(
        table: Any, key_cols: list[str], condition: Predicate | None, literal: Literal
    ) -> sql.Composable:
        where = sql.SQL(" WHERE {}").format(sql.SQL(condition.render(literal))) if condition else sql.SQL("")
        order = sql.SQL(", ").join(sql.SQL("{} DESC").format(sql.Identifier(k)) for k in key_cols)
        return sql.SQL("COPY (SELECT {} FROM {}{} ORDER BY {} LIMIT 1) TO STDOUT").format(
            sql.SQL(", ").join(sql.Identifier(k) for k in key_cols),
            sql.Identifier(table.namespace, table.name),
            where,
            order,
        )

    @staticmethod
    def _key_predicate(key_cols: list[str], op: str, values: list) -> sql.Composable:
        cols = sql.SQL(", ").join(sql.Identifier(k) for k in key_cols)
        vals = sql.SQL(", ").join(sql.Literal(v) for v in values)
        return sql.SQL("({}) {} ({})").format(cols, sql.SQL(op), vals)

    @staticmethod
    def _lower_bound(
        key_cols: list[str], required: list[bool], values: list, inclusive_final: bool
    ) -> sql.Composable:
        """Debezium's AbstractChunkQueryBuilder.addLowerBound for keys with nullable columns (NULL sorts
        last in PostgreSQL): (k1 > ?) OR (k1 = ? AND k2 > ?) ..., where `> v` also takes NULL, `> NULL`
        is false and `= NULL` is IS NULL."""
        n = len(key_cols)
        ors = []
        for i in range(n):
            ands = []
            for j in range(i + 1):
                last_j = i == j
                op = "=" if not last_j else (">=" if i == n - 1 and inclusive_final else ">")
                col, v = sql.Identifier(key_cols[j]), values[j]
                if required[j] or (v is not None and not last_j):
                    ands.append(sql.SQL("{} {} {}").format(col, sql.SQL(op), sql.Literal(v)))
                elif v is not None:
                    ands.append(
                        sql.SQL("({} {} {} OR {} IS NULL)").format(col, sql.SQL(op), sql.Literal(v), col)
                    )
                elif not last_j or (i == n - 1 and inclusive_final):
                    ands.append(sql.SQL("{} IS NULL").format(col))
                else:
                    ands.append(sql.SQL("1 = 0"))
            ors.append(sql.SQL("({})").format(sql.SQL(" AND ").join(ands)))
        return sql.SQL("({})").format(sql.SQL(" OR ").join(ors))

    @classmethod
    def chunk(
        cls,
        table: Any,
        key_cols: list[str],
        after: list | None,
        upto: list,
        limit: int,
        condition: Predicate | None,
        literal: Literal,
    ) -> sql.Composable:
        by_name = {c.name: c for c in table.columns}
        required = [k not in by_name or not by_name[k].schema.optional for k in key_cols]
        if all(required):
            preds = [cls._key_predicate(key_cols, "<=", upto)]
            if after is not None:
                preds.insert(0, cls._key_predicate(key_cols, ">", after))
        else:  # a nullable key column (a unique index as the key): row comparisons would drop NULLs
            preds = [sql.SQL("NOT {}").format(cls._lower_bound(key_cols, required, upto, False))]
            if after is not None:
                preds.insert(0, cls._lower_bound(key_cols, required, after, False))
        if condition:  # generated from the checked tree, values escaped by the driver
            preds.append(sql.SQL("({})").format(sql.SQL(condition.render(literal))))
        return sql.SQL("COPY (SELECT {} FROM {} WHERE {} ORDER BY {} LIMIT {}) TO STDOUT").format(
            sql.SQL(", ").join(sql.Identifier(c.name) for c in table.columns),
            sql.Identifier(table.namespace, table.name),
            sql.SQL(" AND ").join(preds),
            sql.SQL(", ").join(sql.Identifier(k) for k in key_cols),
            sql.Literal(limit),
        )


def _qi(name: str) -> str:
    return "`" + name.replace("`", "``") + "`"


class MySqlChunks:
    """MySQL/MariaDB: (SQL text, arguments) for PyMySQL, which interpolates `%s` - a rendered filter has
    its `%` doubled, and the query always goes with an argument tuple."""

    @staticmethod
    def _condition(condition: Predicate, literal: Literal) -> str:
        return condition.render(literal).replace("%", "%%")

    @classmethod
    def max_key(
        cls, table: Any, key_cols: list[str], condition: Predicate | None, literal: Literal
    ) -> tuple[str, tuple]:
        where = f" WHERE {cls._condition(condition, literal)}" if condition else ""
        order = ", ".join(f"{_qi(k)} DESC" for k in key_cols)
        return (
            f"SELECT {', '.join(_qi(k) for k in key_cols)} FROM {_qi(table.namespace)}.{_qi(table.name)}"
            f"{where} ORDER BY {order} LIMIT 1",
            (),
        )

    @staticmethod
    def _key_predicate(key_cols: list[str], op: str, values: list) -> tuple[str, list]:
        cols = ", ".join(_qi(k) for k in key_cols)
        marks = ", ".join(["%s"] * len(values))
        return f"({cols}) {op} ({marks})", list(values)

    @classmethod
    def chunk(
        cls,
        table: Any,
        key_cols: list[str],
        after: list | None,
        upto: list,
        limit: int,
        condition: Predicate | None,
        literal: Literal,
    ) -> tuple[str, list]:
        preds, args = [], []
        if after is not None:
            s, a = cls._key_predicate(key_cols, ">", after)
            preds.append(s)
            args += a
        s, a = cls._key_predicate(key_cols, "<=", upto)
        preds.append(s)
        args += a
        if condition:  # generated from the checked tree, values escaped by the driver
            preds.append(f"({cls._condition(condition, literal)})")
        return (
            f"SELECT {', '.join(_qi(c.name) for c in table.columns)} FROM {_qi(table.namespace)}."
            f"{_qi(table.name)} WHERE {' AND '.join(preds)} ORDER BY {', '.join(_qi(k) for k in key_cols)} "
            f"LIMIT {int(limit)}",
            args,
        )
