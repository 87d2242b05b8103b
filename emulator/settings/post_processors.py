"""``post.processors``: Debezium's ReselectColumnsPostProcessor and its options, parsed once.

A user lists aliases (``post.processors=reselector``) and gives each a class and options, either under the
alias (``reselector.type=...``, ``reselector.reselect.null.values=...``: Debezium's older convention, which it
logs as deprecated) or under ``post.processors.<alias>.`` (the current one). As Debezium's
``PostProcessorRegistryServiceProvider``: when any ``post.processors.<alias>.*`` key exists those options are the
processor's, else the older ones, and an alias with neither a type nor options fails the start.

Only ``io.debezium.processors.reselect.ReselectColumnsPostProcessor`` is emulated (PostgreSQL, MySqlConnector); any other class
is refused at start by :mod:`emulator.settings.validate`, naming ``<alias>.type``.

Options under an alias are not checked by name: Debezium's processor reads only the names it knows and ignores the
rest, so a misspelt one changes no record and is accepted. Reading the settings logs one warning per alias naming
such options (and older-convention ones the current convention shadows) with the known names.
"""

from __future__ import annotations

import logging
import re
from dataclasses import dataclass
from typing import Any

from emulator.settings.errors import ConfigError
from emulator.settings.values import compile_anchored, split_regex_list

log = logging.getLogger(__name__)

RESELECT_COLUMNS = "io.debezium.processors.reselect.ReselectColumnsPostProcessor"
SUPPORTED_CLASSES = (RESELECT_COLUMNS,)
PROPERTY = "post.processors"
# the options ReselectColumnsPostProcessor.configure reads (Debezium 3.6.3), besides the class under ``type``
INCLUDE = "reselect.columns.include.list"
EXCLUDE = "reselect.columns.exclude.list"
UNAVAILABLE = "reselect.unavailable.values"
NULLS = "reselect.null.values"
EVENT_KEY = "reselect.use.event.key"
ERROR_MODE = "reselect.error.handling.mode"
KNOWN_OPTIONS = ("type", INCLUDE, EXCLUDE, UNAVAILABLE, NULLS, EVENT_KEY, ERROR_MODE)


@dataclass(frozen=True, slots=True)
class ReselectColumns:
    """ReselectColumnsPostProcessor's options (Debezium 3.6.3's names and defaults).

    ``include`` / ``exclude``: regexes over ``<schema>.<table>:<column>`` (whole name, case-insensitive); the
    include list wins when both are set, none set selects every column. ``fail``:
    ``reselect.error.handling.mode=fail`` (a missing row or a failed query stops the connector; any other value,
    unknown ones included, only logs a warning, as Debezium's ``ErrorHandlingMode.parse`` answering null)."""

    alias: str
    include: tuple[re.Pattern[str], ...] | None
    exclude: tuple[re.Pattern[str], ...] | None
    unavailable_values: bool = True
    null_values: bool = True
    use_event_key: bool = False
    fail: bool = False

    def selects(self, qualified_column: str) -> bool:
        """Debezium's ReselectColumnsPredicateBuilder on ``<schema>.<table>:<column>``."""
        if self.include is not None:
            return any(p.match(qualified_column) for p in self.include)
        if self.exclude is not None:
            return not any(p.match(qualified_column) for p in self.exclude)
        return True


def _options(props: dict[str, str], alias: str) -> tuple[str, dict[str, str]]:
    """(the property naming the class, the processor's options without their prefix), per convention."""
    new = f"{PROPERTY}.{alias}."
    current = {k[len(new) :]: v for k, v in props.items() if k.startswith(new)}
    if current:
        return f"{new}type", current
    old = f"{alias}."
    return f"{alias}.type", {k[len(old) :]: v for k, v in props.items() if k.startswith(old)}


def _flag(options: dict[str, str], name: str, default: bool) -> bool:
    # Configuration.getBoolean: trimmed "true"/"false" in any case, anything else the default
    value = (options.get(name) or "").strip().lower()
    return True if value == "true" else False if value == "false" else default


def _patterns(options: dict[str, str], name: str) -> tuple[re.Pattern[str], ...] | None:
    value = options.get(name)
    if value is None or not value.strip():
        return None
    return tuple(compile_anchored(name, p) for p in split_regex_list(name, value))


def aliases(props: dict[str, str]) -> list[str]:
    return [a.strip() for a in (props.get(PROPERTY) or "").split(",") if a.strip()]


def problems(props: dict[str, str]) -> list[tuple[str, str]]:
    """Start failures: an alias without class or options (Debezium's "is not configured" error), a class the
    emulator does not emulate. (property, one-line message) pairs."""
    out = []
    for alias in aliases(props):
        type_name, options = _options(props, alias)
        cls = (props.get(type_name) or "").strip()
        if not cls or not options:
            out.append((type_name, f"{type_name}: a value is required for the post processor '{alias}'"))
        elif cls not in SUPPORTED_CLASSES:
            out.append(
                (
                    type_name,
                    f"{type_name}: post processor class {cls!r} is not supported by this emulator; supported: "
                    + ", ".join(SUPPORTED_CLASSES),
                )
            )
    return out


def ignored_options(props: dict[str, str], alias: str) -> list[str]:
    """The properties under ``alias`` no processor reads: unknown option names in the convention in force, and
    every older-convention ``<alias>.*`` key when ``post.processors.<alias>.*`` keys exist (Debezium then reads
    only those). Full property names, sorted."""
    type_name, options = _options(props, alias)
    prefix = type_name[: -len("type")]
    out = [prefix + k for k in options if k not in KNOWN_OPTIONS]
    if prefix != f"{alias}.":
        out += [k for k in props if k.startswith(f"{alias}.")]
    return sorted(out)


def _warn_ignored(props: dict[str, str], alias: str) -> None:
    ignored = ignored_options(props, alias)
    if ignored:
        prefix = _options(props, alias)[0][: -len("type")]
        log.warning(
            "post processor '%s': ignoring %s (not options ReselectColumnsPostProcessor reads; Debezium ignores "
            "them too); known options: %s",
            alias,
            ", ".join(ignored),
            ", ".join(prefix + k for k in KNOWN_OPTIONS),
        )


def owns(props: dict[str, str], name: str) -> bool:
    """Whether ``name`` is one of a configured post processor's own options (not an unknown property)."""
    for alias in aliases(props):
        if name.startswith((f"{alias}.", f"{PROPERTY}.{alias}.")):
            return True
    return False


def post_processors(config: Any, name: str) -> tuple[ReselectColumns, ...]:
    """The configured processors in ``post.processors`` order (Debezium applies each in turn to a record)."""
    props = config.props
    out = []
    for alias in aliases(props):
        type_name, options = _options(props, alias)
        if (props.get(type_name) or "").strip() != RESELECT_COLUMNS:
            raise ConfigError(
                f"{type_name}: not a supported post processor", type_name
            )  # validate refused it
        _warn_ignored(props, alias)
        mode = (options.get(ERROR_MODE) or "warn").strip().lower()
        out.append(
            ReselectColumns(
                alias,
                _patterns(options, INCLUDE),
                _patterns(options, EXCLUDE),
                _flag(options, UNAVAILABLE, True),
                _flag(options, NULLS, True),
                _flag(options, EVENT_KEY, False),
                mode == "fail",
            )
        )
    return tuple(out)
