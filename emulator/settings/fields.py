"""How a settings field names its property and how the property's value is read, once, from a Config.

A field declared with :func:`prop` carries its property name in the dataclass field metadata; :func:`build`
fills every such field from the validated :class:`~emulator.config.Config`, typed by the property's row in
the PROPERTIES table (so the default, the type and the allowed values come from the table only).  A field
that needs more than the table's type (a set of operations, parsed column mappers) passes ``parse``.
The metadata is also what the coverage test reads: every implemented property is read by some field.
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Callable
from typing import Any, TypeVar

from emulator.settings.spec import BOOL, DOUBLE, ENUM, INT_RANGES, LIST, REGEX_LIST
from emulator.settings.table import property_spec
from emulator.settings.values import compile_anchored, parse_bool, parse_int, split_regex_list

T = TypeVar("T")

PROPERTY = "property"  # field metadata key: the property name
PARSE = "parse"  # field metadata key: (config, name) -> value, instead of the type's reader
ALSO = "also"  # field metadata key: further properties the parse function reads (templated families)

Parse = Callable[[Any, str], Any]


def prop(name: str, *, parse: Parse | None = None, also: tuple[str, ...] = (), secret: bool = False) -> Any:
    """A settings field read from property ``name`` (its table row gives the type and the default);
    ``also`` names the other properties a ``parse`` function reads into the same field; a ``secret`` is
    left out of ``repr`` (a settings object may reach a log line or a traceback)."""
    return dataclasses.field(metadata={PROPERTY: name, PARSE: parse, ALSO: also}, repr=not secret)


def read(config: Any, name: str, connector: str | None = None) -> Any:
    """The typed value of ``name`` for ``config``'s connector: the configured value or the table default.

    Integers, enums and strings without a value and without a default are ``None``; lists are tuples;
    regex lists are compiled (anchored, case-insensitive, as Debezium matches them).  The configuration is
    validated, so values parse; ``connector`` saves looking the connector kind up again for every field.
    """
    spec = property_spec(name, connector if connector is not None else config.connector)
    value = config.props.get(name)
    if value is None and spec is not None:
        value = spec.default_for(config)
    kind = spec.type if spec is not None else None
    if kind == LIST:
        return tuple(item.strip() for item in value.split(",") if item.strip()) if value else ()
    if kind == REGEX_LIST:
        return tuple(config.regex_list(name)) if value else ()
    if value is None:
        return None
    if kind == BOOL:
        return parse_bool(name, value)
    if kind in INT_RANGES:
        return parse_int(name, value, kind)
    if kind == DOUBLE:
        return float(value.strip().rstrip("dDfF"))
    if kind == ENUM:
        return value.strip().lower()
    return value


def build(cls: type[T], config: Any, **given: Any) -> T:
    """An instance of the settings dataclass ``cls``: its :func:`prop` fields read from ``config``, the
    others passed in ``given`` (nested groups, derived values)."""
    values = dict(given)
    connector = config.connector
    for f in dataclasses.fields(cls):  # type: ignore[arg-type]
        name = f.metadata.get(PROPERTY)
        if name is None or f.name in values:
            continue
        parse = f.metadata.get(PARSE)
        values[f.name] = parse(config, name) if parse is not None else read(config, name, connector)
    return cls(**values)


def properties_of(settings: Any) -> dict[str, str]:
    """``{property name: field path}`` read by a settings instance, nested groups included."""
    out: dict[str, str] = {}
    for f in dataclasses.fields(settings):
        name = f.metadata.get(PROPERTY)
        if name is not None:
            for each in (name, *f.metadata.get(ALSO, ())):
                out.setdefault(each, f.name)
            continue
        if not f.compare:
            continue  # the Config kept for pass-through readers is not a settings group
        value = getattr(settings, f.name)
        if dataclasses.is_dataclass(value) and not isinstance(value, type):
            for p, path in properties_of(value).items():
                out.setdefault(p, f"{f.name}.{path}")
    return out


def int_or(default: int) -> Parse:
    """A pass-through property (not in the table: a worker's or a JDBC driver's): its integer value, or
    ``default`` (that program's own default) when unset or blank."""

    def parse(config: Any, name: str) -> int:
        text = (config.props.get(name) or "").strip()
        return parse_int(name, text, "int") if text else default  # ConfigError naming the property

    return parse


def blank_is_default(config: Any, name: str) -> str | None:
    """A string property whose blank value means its table default (``publication.name`` left blank names
    the default publication, never an empty one)."""
    value = config.get(name)
    if value:
        return value
    spec = property_spec(name, config.connector)
    return spec.default_for(config) if spec is not None else None


def stripped(config: Any, name: str) -> str | None:
    """A string property trimmed; blank is ``None`` (Debezium treats a blank value as unset)."""
    value = config.get(name)
    if value is None:
        return None
    value = value.strip()
    return value or None


def patterns(value: str | None) -> tuple[re.Pattern[str], ...]:
    """Debezium regex list text, compiled anchored and case-insensitive (for values not in the table)."""
    if not value:
        return ()
    return tuple(compile_anchored("", item) for item in split_regex_list("", value))
