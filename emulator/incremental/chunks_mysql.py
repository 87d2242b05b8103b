"""MySQL/MariaDB's chunk and maximum-key queries (emulator.incremental.chunks describes a chunk)."""

from __future__ import annotations

from typing import Any

from emulator.incremental.chunks import Literal
from emulator.incremental.conditions import Predicate


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
