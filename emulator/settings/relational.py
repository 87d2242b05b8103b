"""Settings shared by the relational connectors (PostgreSQL, MySQL, MariaDB): connection, table and column
filters, column mappers, type handling modes, snapshot statements and locking."""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from types import MappingProxyType
from typing import Any

from emulator.settings.common import Patterns
from emulator.settings.errors import ConfigError
from emulator.settings.fields import prop
from emulator.settings.values import split_regex_list

_TRUNCATE = re.compile(r"column\.truncate\.to\.(\d+)\.chars")
_MASK = re.compile(r"column\.mask\.with\.(\d+)\.chars")
_HASH = re.compile(r"column\.mask\.hash\.(v2\.)?(.+?)\.with\.salt\.(.*)")
_OVERRIDE = "snapshot.select.statement.overrides."


@dataclass(frozen=True, slots=True)
class ColumnMapper:
    """One ``column.truncate.to.N.chars`` / ``column.mask.with.N.chars`` / ``column.mask.hash.*`` entry.

    ``kind``: ``truncate`` (``arg`` the length), ``mask`` (``arg`` the mask text) or ``hash`` (``arg`` the
    ``(algorithm, salt bytes)``); ``patterns`` match ``<table id>.<column>`` with ``fullmatch``."""

    property: str
    kind: str
    arg: Any
    patterns: tuple[re.Pattern[str], ...]


def _column_mappers(config: Any, _name: str) -> tuple[ColumnMapper, ...]:
    out: list[ColumnMapper] = []
    for name, value in config.props.items():
        if not name.startswith("column."):
            continue
        m_trunc, m_mask, m_hash = _TRUNCATE.fullmatch(name), _MASK.fullmatch(name), _HASH.fullmatch(name)
        if not (m_trunc or m_mask or m_hash):
            continue  # only these three properties hold regexes; other values (passwords...) are text
        # Debezium's Strings.setOfRegex: RegExSplitter (``\\,`` a literal comma), case-insensitive, whole name
        pats = tuple(re.compile(p, re.IGNORECASE) for p in split_regex_list(name, str(value)))
        if not pats:
            continue
        if m_trunc:
            out.append(ColumnMapper(name, "truncate", int(m_trunc.group(1)), pats))
        elif m_mask:
            out.append(ColumnMapper(name, "mask", "*" * int(m_mask.group(1)), pats))
        elif m_hash:
            import hashlib  # here: a start without column.mask.hash.* needs none of OpenSSL's digests

            algo = m_hash.group(2).replace("-", "").lower()
            try:
                hashlib.new(algo)
            except ValueError:
                raise ConfigError(f"{name}: unknown hash algorithm {m_hash.group(2)!r}", name) from None
            # v2: HashingByteArrayStrategy V2 hashes the text's bytes, V1 (the default) the Java-serialized String
            out.append(
                ColumnMapper(name, "hash", (algo, m_hash.group(3).encode(), bool(m_hash.group(1))), pats)
            )
    return tuple(out)


def split_statements(value: str | None) -> tuple[str, ...]:
    """``database.initial.statements``: ``;``-separated statements, ``;;`` standing for a literal semicolon
    (Debezium's ``JdbcConfiguration`` parsing); blank statements dropped."""
    if not value:
        return ()
    stmts: list[str] = []
    cur: list[str] = []
    i = 0
    while i < len(value):
        if value[i] == ";":
            if value[i + 1 : i + 2] == ";":
                cur.append(";")
                i += 2
                continue
            stmts.append("".join(cur).strip())
            cur = []
        else:
            cur.append(value[i])
        i += 1
    stmts.append("".join(cur).strip())
    return tuple(s for s in stmts if s)


def _initial_statements(config: Any, name: str) -> tuple[str, ...]:
    return split_statements(config.get(name))


def _key_columns(config: Any, name: str) -> tuple[tuple[re.Pattern[str], tuple[str, ...]], ...]:
    """``message.key.columns``: ``<table regex>:<col>,<col>;...`` (validated by the table's check)."""
    out = []
    for entry in (config.get(name) or "").split(";"):
        entry = entry.strip()
        if not entry:
            continue
        table, _, cols = entry.rpartition(":")
        out.append((re.compile(table.strip()), tuple(c.strip() for c in cols.split(",") if c.strip())))
    return tuple(out)


def _overrides(config: Any, name: str) -> tuple[str, ...]:
    """``snapshot.select.statement.overrides``: the table ids, trimmed."""
    return tuple(x.strip() for x in (config.get(name) or "").split(",") if x.strip())


def _override_statements(config: Any, _name: str) -> Mapping[str, str]:
    """``snapshot.select.statement.overrides.<table id>``: the statement per table id (``;`` dropped)."""
    return MappingProxyType(
        {
            key[len(_OVERRIDE) :]: value.strip().rstrip(";")
            for key, value in config.props.items()
            if key.startswith(_OVERRIDE) and value.strip()
        }
    )


@dataclass(frozen=True, slots=True)
class Relational:
    hostname: str = prop("database.hostname")
    port: int = prop("database.port")
    user: str = prop("database.user")
    password: str | None = prop("database.password", secret=True)
    query_timeout_ms: int = prop("database.query.timeout.ms")
    initial_statements: tuple[str, ...] = prop("database.initial.statements", parse=_initial_statements)
    table_include: Patterns = prop("table.include.list")
    table_exclude: Patterns = prop("table.exclude.list")
    column_include: Patterns = prop("column.include.list")
    column_exclude: Patterns = prop("column.exclude.list")
    table_ignore_builtin: bool = prop("table.ignore.builtin")
    message_key_columns: tuple[tuple[re.Pattern[str], tuple[str, ...]], ...] = prop(
        "message.key.columns", parse=_key_columns
    )
    column_propagate_source_type: Patterns = prop("column.propagate.source.type")
    datatype_propagate_source_type: Patterns = prop("datatype.propagate.source.type")
    decimal_handling_mode: str = prop("decimal.handling.mode")
    binary_handling_mode: str = prop("binary.handling.mode")
    time_precision_mode: str = prop("time.precision.mode")
    include_schema_comments: bool = prop("include.schema.comments")
    unavailable_value_placeholder: str = prop("unavailable.value.placeholder")
    column_mappers: tuple[ColumnMapper, ...] = prop(
        "column.truncate.to.<N>.chars",
        parse=_column_mappers,
        also=("column.mask.with.<N>.chars", "column.mask.hash.<algorithm>.with.salt.<salt>"),
    )
    snapshot_select_overrides: tuple[str, ...] = prop("snapshot.select.statement.overrides", parse=_overrides)
    snapshot_select_statements: Mapping[str, str] = prop(
        "snapshot.select.statement.overrides.<table>", parse=_override_statements
    )
    snapshot_locking_mode: str = prop("snapshot.locking.mode")
    snapshot_locking_mode_custom_name: str | None = prop("snapshot.locking.mode.custom.name")
    snapshot_query_mode: str = prop("snapshot.query.mode")
    snapshot_query_mode_custom_name: str | None = prop("snapshot.query.mode.custom.name")
    snapshot_lock_timeout_ms: int = prop("snapshot.lock.timeout.ms")
    snapshot_tables_order_by_row_count: str = prop("snapshot.tables.order.by.row.count")
