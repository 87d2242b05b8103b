"""``converters``: the custom converters Debezium ships in its binlog connector jars, parsed once.

A user lists aliases (``converters=boolean``) and gives each a class (``boolean.type=...``) and options
(``boolean.selector=...``). Only the classes below are emulated (MySQL and MariaDB connectors); any other
class is refused at start by :mod:`emulator.settings.validate`, naming ``<alias>.type``.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from emulator.settings.values import compile_anchored, split_regex_list

TINYINT_ONE_TO_BOOLEAN = (
    "io.debezium.connector.binlog.converters.TinyIntOneToBooleanConverter",
    # the class's old name, kept by Debezium as a subclass of the binlog one
    "io.debezium.connector.mysql.converters.TinyIntOneToBooleanConverter",
)
SUPPORTED_CLASSES = TINYINT_ONE_TO_BOOLEAN


@dataclass(frozen=True, slots=True)
class TinyIntToBoolean:
    """TinyIntOneToBooleanConverter: TINYINT / TINYINT UNSIGNED columns (of length 1 unless
    ``length.checker=false``) whose ``<db>.<table>.<column>`` matches ``selector`` become BOOLEAN fields."""

    alias: str
    selector: tuple[re.Pattern[str], ...]  # empty: every column
    length_checker: bool = True

    def selects(self, table_id: str, column: str) -> bool:
        if not self.selector:
            return True
        name = f"{table_id}.{column}"
        return any(p.match(name) for p in self.selector)


CustomConverter = TinyIntToBoolean


def _option(config: Any, alias: str, option: str) -> str | None:
    value = config.props.get(f"{alias}.{option}")
    return value.strip() if value is not None and value.strip() else None


def custom_converters(config: Any, name: str) -> tuple[CustomConverter, ...]:
    """The configured converters in ``converters`` order (Debezium's CustomConverterRegistry asks each in
    turn; the first that registers for a column wins). The classes were checked at validation."""
    out: list[CustomConverter] = []
    for alias in (a.strip() for a in (config.props.get(name) or "").split(",")):
        if not alias:
            continue
        cls = (config.props.get(f"{alias}.type") or "").strip()
        if cls in TINYINT_ONE_TO_BOOLEAN:
            selector = _option(config, alias, "selector")
            # Predicates.includes: comma-separated regexes, case-insensitive, whole-name matches
            patterns = (
                tuple(
                    compile_anchored(f"{alias}.selector", p)
                    for p in split_regex_list(f"{alias}.selector", selector)
                )
                if selector
                else ()
            )
            checker = _option(config, alias, "length.checker")
            # Boolean.parseBoolean: "true" in any case is true, any other text false; unset keeps true
            length_checker = True if checker is None else checker.lower() == "true"
            out.append(TinyIntToBoolean(alias, patterns, length_checker))
    return tuple(out)
