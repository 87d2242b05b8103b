"""The entry point: one column's `ColumnDef` (schema, converters, default) for the stream and the snapshot."""

from __future__ import annotations

from emulator.connectors.postgres.types.defaults import default_value
from emulator.connectors.postgres.types.mappings import empty_string, type_mapping
from emulator.connectors.postgres.types.model import Converter, PgType, TypeConfig
from emulator.connectors.postgres.types.toast import unavailable_value
from emulator.model import ColumnDef

# pgjdbc's character JDBC types (CHAR, VARCHAR; an enum is VARCHAR): Debezium's column.mask.* replace only these
# values, json/uuid/xml/inet/bytea/arrays keep theirs (recorded: pg case mapper_non_text_types)
CHAR_JDBC_TYPES = frozenset({"text", "varchar", "bpchar", "name", "char"})


def char_jdbc_type(t: PgType) -> bool:
    while t.typtype == "d" and t.base is not None:  # a domain: pgjdbc's getColumns reports its base type
        t = t.base
    return t.typtype == "e" or t.name in CHAR_JDBC_TYPES


def column_def(
    name: str,
    pgtype: PgType,
    typmod: int,
    not_null: bool,
    default_expr: str | None,
    cfg: TypeConfig,
) -> ColumnDef | None:
    """The ColumnDef for one column, or None when the type is not supported (and
    `include_unknown_datatypes` is off): the caller logs a warning and drops the column.

    `convert` follows the pgoutput (streaming) path; see `column_def_ex` for the snapshot one."""
    got = column_def_ex(name, pgtype, typmod, not_null, default_expr, cfg)
    return None if got is None else got[0]


def column_def_ex(
    name: str,
    pgtype: PgType,
    typmod: int,
    not_null: bool,
    default_expr: str | None,
    cfg: TypeConfig,
) -> tuple[ColumnDef, Converter] | None:
    """`column_def` plus the converter for the JDBC snapshot path (text from a query or COPY), which
    differs from the pgoutput one for a few values: date +/-infinity, `name` columns."""
    m = type_mapping(pgtype, typmod, cfg)
    if m is None:
        return None
    default = default_value(pgtype, default_expr, m) if default_expr else None
    schema = m.schema.with_(optional=not not_null, default=default)
    convert = m.convert
    if not_null and pgtype.name == "name" and not cfg.include_unknown_datatypes:
        # streamed `name` values resolve to null; a NOT NULL field then gets the converter's fallback
        # "" (tests/data/pg/cases/name_not_null)
        convert = empty_string
    elif cfg.converting_fail and getattr(convert, "strict", None) is not None:
        convert = convert.strict(name)  # event.converting.failure.handling.mode=fail: a failure stops
    elif not_null and getattr(convert, "required", None) is not None:
        convert = convert.required(name)  # precise numeric: NaN / Infinity stop, as in Debezium
    col = ColumnDef(
        name=name,
        schema=schema,
        convert=convert,
        type_name=pgtype.name,
        unavailable=unavailable_value(m, cfg),
        length=m.length,
        scale=m.scale,
        text_type=char_jdbc_type(pgtype),
    )
    snap = m.snapshot_convert or m.convert
    if cfg.converting_fail and getattr(snap, "strict", None) is not None:
        snap = snap.strict(name)
    elif not_null and getattr(snap, "required", None) is not None:
        snap = snap.required(name)
    return col, snap
