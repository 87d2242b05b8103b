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
JDBC_SINK_DATA_TYPES = (
    "io.debezium.connector.binlog.converters.JdbcSinkDataTypesConverter",
    "io.debezium.connector.mysql.converters.JdbcSinkDataTypesConverter",
)
SUPPORTED_CLASSES = TINYINT_ONE_TO_BOOLEAN + JDBC_SINK_DATA_TYPES

Patterns = tuple[re.Pattern[str], ...]


def selects(patterns: Patterns, table_id: str, column: str) -> bool:
    """Debezium's ``Predicates.includes`` on ``<db>.<table>.<column>``: whole-name, case-insensitive."""
    name = f"{table_id}.{column}"
    return any(p.match(name) for p in patterns)


@dataclass(frozen=True, slots=True)
class TinyIntToBoolean:
    """TinyIntOneToBooleanConverter: TINYINT / TINYINT UNSIGNED columns (of length 1 unless
    ``length.checker=false``) whose name matches ``selector`` become BOOLEAN fields."""

    alias: str
    selector: Patterns | None  # None: every column
    length_checker: bool = True


@dataclass(frozen=True, slots=True)
class JdbcSinkTypes:
    """JdbcSinkDataTypesConverter: columns matching ``selector.boolean`` become INT16 1/0, else matching
    ``selector.real`` FLOAT64 (FLOAT32 with ``treat.real.as.double=false``), else matching ``selector.string``
    STRING with the column's character set as a parameter. Unset selectors match nothing."""

    alias: str
    boolean: Patterns
    real: Patterns
    string: Patterns
    real_as_double: bool = True


CustomConverter = TinyIntToBoolean | JdbcSinkTypes


def _patterns(config: Any, alias: str, option: str) -> Patterns | None:
    """A selector option, None when unset or blank (``Strings.isNullOrBlank``)."""
    name = f"{alias}.{option}"
    value = config.props.get(name)
    if value is None or not value.strip():
        return None
    return tuple(compile_anchored(name, p) for p in split_regex_list(name, value.strip()))


def _flag(config: Any, alias: str, option: str, default: bool) -> bool:
    # Strings.isNullOrEmpty, then Boolean.parseBoolean: "true" in any case is true, any other text false
    value = config.props.get(f"{alias}.{option}")
    return default if not value else value.lower() == "true"


def custom_converters(config: Any, name: str) -> tuple[CustomConverter, ...]:
    """The configured converters in ``converters`` order (Debezium's CustomConverterRegistry asks each in
    turn; the first that registers for a column wins). The classes were checked at validation."""
    out: list[CustomConverter] = []
    for alias in (a.strip() for a in (config.props.get(name) or "").split(",")):
        if not alias:
            continue
        cls = (config.props.get(f"{alias}.type") or "").strip()
        if cls in TINYINT_ONE_TO_BOOLEAN:
            checker = _flag(config, alias, "length.checker", True)
            out.append(TinyIntToBoolean(alias, _patterns(config, alias, "selector"), checker))
        elif cls in JDBC_SINK_DATA_TYPES:
            out.append(
                JdbcSinkTypes(
                    alias,
                    _patterns(config, alias, "selector.boolean") or (),
                    _patterns(config, alias, "selector.real") or (),
                    _patterns(config, alias, "selector.string") or (),
                    _flag(config, alias, "treat.real.as.double", True),
                )
            )
    return tuple(out)
