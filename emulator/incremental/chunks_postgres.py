"""PostgreSQL's chunk and maximum-key queries (emulator.incremental.chunks describes a chunk)."""

from __future__ import annotations

from typing import Any

from psycopg import sql

from emulator.incremental.chunks import Literal
from emulator.incremental.conditions import Predicate


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
