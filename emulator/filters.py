"""Which tables, columns and operations are captured, and which columns form the key.

Debezium semantics: every list is comma-separated anchored regexes; include and exclude lists of one
level are mutually exclusive (config validation enforces that); key columns are never filtered out.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from typing import Any

from emulator.model import ColumnDef, TableDef
from emulator.settings import Settings, settings_for
from emulator.settings.errors import ConfigError

Pattern = re.Pattern[str]


def _match_any(patterns: Sequence[Pattern], name: str) -> bool:
    return any(p.fullmatch(name) for p in patterns)


class Filters:
    """The table, column and message filters of a relational connector, read from its typed settings
    (:func:`emulator.settings.settings_for`; a validated Config is turned into them)."""

    def __init__(self, settings: Any, system_namespaces: tuple[str, ...] = ()) -> None:
        if not isinstance(settings, Settings):
            settings = settings_for(settings)
        rel = settings.relational
        pg = getattr(settings, "postgres", None)  # schemas and logical decoding messages: PostgreSQL only
        binlog = getattr(settings, "binlog", None)  # databases: MySQL and MariaDB
        self.ns_include = list(pg.schema_include if pg else binlog.database_include)
        self.ns_exclude = list(pg.schema_exclude if pg else binlog.database_exclude)
        self.table_include = list(rel.table_include)
        self.table_exclude = list(rel.table_exclude)
        self.col_include = list(rel.column_include)
        self.col_exclude = list(rel.column_exclude)
        self.system_namespaces = system_namespaces
        # message.key.columns as Debezium's CustomKeyMapper reads it: one pattern "<table regex>.<column regex>"
        # per listed column, matched whole and case-insensitively against "<table id>.<column>"
        self.key_patterns = [
            re.compile(f"{table.pattern}.{col}", re.IGNORECASE)
            for table, cols in rel.message_key_columns
            for col in cols
        ]
        self.signal_table = settings.signals.data_collection
        self.skipped_ops = settings.common.skipped_operations
        self.msg_include = list(pg.message_prefix_include) if pg else []
        self.msg_exclude = list(pg.message_prefix_exclude) if pg else []
        self._table_cache: dict[tuple[str, str], bool] = {}
        # Debezium's ColumnMappers.create registers truncate, then mask, then (propagate), then hash rules and
        # applies only the first rule a column matches (mapperFor: findFirst)
        order = {"truncate": 0, "mask": 1, "hash": 2}
        self.column_transforms = sorted(
            ((m.patterns, m.kind, m.arg) for m in rel.column_mappers), key=lambda t: order[t[1]]
        )
        self._mapper_props = {(m.kind, id(m.patterns)): m.property for m in rel.column_mappers}
        # column.propagate.source.type (<table>.<column>) / datatype.propagate.source.type (<table>.<type>)
        self.propagate_cols = list(rel.column_propagate_source_type)
        self.propagate_types = list(rel.datatype_propagate_source_type)

    def table_included(self, namespace: str, table: str) -> bool:
        key = (namespace, table)
        hit = self._table_cache.get(key)
        if hit is None:
            hit = self._table_included(namespace, table)
            self._table_cache[key] = hit
        return hit

    def _table_included(self, namespace: str, table: str) -> bool:
        full = f"{namespace}.{table}"
        if self.signal_table and full == self.signal_table:
            return True  # the signal table is always captured: watermarks travel through it
        if namespace in self.system_namespaces:
            return False
        if self.ns_include and not _match_any(self.ns_include, namespace):
            return False
        if self.ns_exclude and _match_any(self.ns_exclude, namespace):
            return False
        if self.table_include and not _match_any(self.table_include, full):
            return False
        if self.table_exclude and _match_any(self.table_exclude, full):
            return False
        return True

    def column_included(self, table_id: str, column: str) -> bool:
        full = f"{table_id}.{column}"
        if self.col_include and not _match_any(self.col_include, full):
            return False
        if self.col_exclude and _match_any(self.col_exclude, full):
            return False
        return True

    def message_prefix_included(self, prefix: str) -> bool:
        if self.msg_include and not _match_any(self.msg_include, prefix):
            return False
        if self.msg_exclude and _match_any(self.msg_exclude, prefix):
            return False
        return True

    def shape(self, table: TableDef) -> tuple[TableDef, list[int] | None]:
        """Apply message.key.columns and the column filters. Returns the table as captured and the
        indexes of the kept columns in the source row (None when every column is kept)."""
        key = self._message_key(table)
        # the table's own key, which post.processors' reselect queries use whatever message.key.columns says, and
        # its columns before the column mappers: Debezium converts a value read again without them
        table.extra["primary_key"] = list(table.key_columns)
        table.extra["unmapped"] = {c.name: c for c in table.columns}
        included = {c.name for c in table.columns if self.column_included(table.id, c.name)}
        keep = [i for i, c in enumerate(table.columns) if c.name in key or c.name in included]
        key_only = frozenset(k for k in key if k not in included)
        columns = [self._transformed(table.id, table.columns[i]) for i in keep]
        self._refuse_mapped_key(table.id, key, [table.columns[i] for i in keep], columns)
        if (
            len(keep) == len(table.columns)
            and key == table.key_columns
            and not key_only
            and all(a is b for a, b in zip(columns, table.columns))
        ):
            return table, None
        shaped = TableDef(table.namespace, table.name, columns, key, table.extra, key_only)
        return shaped, (keep if len(keep) != len(table.columns) else None)

    def _message_key(self, table: TableDef) -> list[str]:
        """The key columns: for each message.key.columns pattern in order, the table's columns it matches (in
        the table's order); none matched: the primary key (Debezium's CustomKeyMapper, recorded: pg case
        message_key_columns_regex, mariadb case message_key_columns_regex)."""
        if not self.key_patterns:
            return list(table.key_columns)
        key = [
            c.name for p in self.key_patterns for c in table.columns if p.fullmatch(f"{table.id}.{c.name}")
        ]
        return key or list(table.key_columns)

    def _transformed(self, table_id: str, col: ColumnDef) -> ColumnDef:
        """The one column mapper Debezium applies: the first rule the column matches, in the order truncate,
        mask, column.propagate.source.type, datatype.propagate.source.type, hash (ColumnMappers.mapperFor;
        recorded: mariadb case column_mapper_first_rule). Truncation and masking mark the field schema
        (`truncateLength`, `masked`); a masked NULL prints as the mask."""
        full = f"{table_id}.{col.name}"
        for patterns, kind, arg in self.column_transforms:
            if kind == "hash":
                break
            if _match_any(patterns, full):
                self._one_of_kind(full, kind, patterns)
                return self._masked(col, kind, arg)
        if self.propagate_cols or self.propagate_types:
            shaped = self._propagated(table_id, col, col)
            if shaped is not col:
                return shaped
        for patterns, kind, arg in self.column_transforms:
            if kind == "hash" and _match_any(patterns, full):
                self._one_of_kind(full, kind, patterns)
                return self._masked(col, kind, arg)
        return col

    def _refuse_mapped_key(
        self, table_id: str, key: list[str], before: list[ColumnDef], after: list[ColumnDef]
    ) -> None:
        """Stop on a key column whose values a truncate / mask / hash rule changes. Debezium's TableSchemaBuilder
        gives the column mappers to the value converters only: the key field keeps the column's whole value
        (recorded by the connect campaign, session 15: message.key.columns naming a hashed and a truncated
        column, connect case pg_mapped_key_columns). Our keys are cut from the mapped row, so they would print
        the mapped value, and a truncated key could hide a key change: not emulated, one line instead. A rule
        that only marks the field (a non-text mask, a truncation of a number) is emulated: `key_schema` keeps
        the key field without the parameter."""
        for orig, col in zip(before, after):
            if col.name in key and (col.convert is not orig.convert or col.null_value != orig.null_value):
                full = f"{table_id}.{col.name}"
                prop = next(
                    self._mapper_props[(k, id(p))]
                    for p, k, _ in self.column_transforms
                    if _match_any(p, full)
                )
                raise ConfigError(
                    f"{prop} maps key column {full}: Debezium keeps key fields unmapped (whole value, no"
                    " masked/truncateLength parameter); not emulated, give the rule a regex that leaves key"
                    " columns out",
                    prop,
                )

    def _one_of_kind(self, full: str, kind: str, first: tuple) -> None:
        """Refuse a column matched by two rules of one kind (two column.truncate.to.N.chars, two
        column.mask.with.N.chars, two column.mask.hash.*): Debezium applies the first in the iteration order
        of its configuration's HashMap keys, which depends on every key of the deployment (recorded: pg case
        mapper_non_text_types' workload, where truncate.to.5 won over truncate.to.3 but mask.with.4 over
        mask.with.7), so we cannot choose it identically."""
        others = [
            self._mapper_props[(k, id(p))]
            for p, k, _ in self.column_transforms
            if k == kind and p is not first and _match_any(p, full)
        ]
        if others:
            prop = self._mapper_props[(kind, id(first))]
            raise ConfigError(
                f"{prop} and {others[0]} both match column {full}: Debezium's choice between two rules of one"
                " kind depends on its configuration's hash order; give each column one such rule",
                prop,
            )

    def _propagated(self, table_id: str, orig: ColumnDef, col: ColumnDef) -> ColumnDef:
        """Debezium's PropagateSourceMetadataToSchemaParameter: the source type (upper case), length,
        scale and column name as schema parameters, after the other column mappers' parameters."""
        if not (
            (self.propagate_cols and _match_any(self.propagate_cols, f"{table_id}.{orig.name}"))
            or (self.propagate_types and _match_any(self.propagate_types, f"{table_id}.{orig.type_name}"))
        ):
            return col
        params = dict(col.schema.parameters or {})
        params["__debezium.source.column.type"] = orig.type_name.upper()
        length, scale = orig.source_size or (orig.length, orig.scale)
        if length is not None:
            params["__debezium.source.column.length"] = str(length)
        if scale is not None:
            params["__debezium.source.column.scale"] = str(scale)
        params["__debezium.source.column.name"] = orig.name
        return ColumnDef(
            col.name,
            col.schema.with_(parameters=params),
            col.convert,
            col.type_name,
            col.unavailable,
            col.length,
            col.scale,
            col.snapshot_convert,
            col.null_value,
            col.key_schema or orig.schema,
            col.source_size,
            col.text_type,
        )

    def _masked(self, col: ColumnDef, kind: str, arg: Any) -> ColumnDef:
        string = col.schema.type == "string"
        # Debezium's MaskStrings marks every matched field `masked` but replaces only the values of character
        # JDBC types (recorded: a MySQL BLOB, BINARY and TIMESTAMP keep their values, mariadb case
        # mask_non_text_columns); where the JDBC type is unknown the string schema decides
        text = col.text_type if col.text_type is not None else string
        convert, snap, null_value = col.convert, col.snapshot_convert, col.null_value
        params = dict(col.schema.parameters or {})
        if kind == "truncate":
            # TruncateColumn: only where the column may be longer (length unknown or above N); it cuts Strings
            # and byte buffers and passes other values (an INT UNSIGNED gets the parameter alone, recorded:
            # mariadb case column_mapper_first_rule)
            if col.length is not None and 0 <= col.length <= arg:
                return col
            if string:
                convert, snap = _truncating(convert, arg), (_truncating(snap, arg) if snap else None)
            elif col.schema.type == "bytes" and not col.schema.name:  # (a Decimal is a BigDecimal there)
                convert, snap = _truncating_b64(convert, arg), (_truncating_b64(snap, arg) if snap else None)
            params["truncateLength"] = str(arg)
        elif kind == "mask":
            if text:
                convert = snap = lambda _v, m=arg: m
                null_value = arg
            params["masked"] = "true"
        else:  # hash
            if text:
                convert, snap = (
                    _hashing(convert, arg, col.length),
                    (_hashing(snap, arg, col.length) if snap else None),
                )
            params["masked"] = "true"
        return ColumnDef(
            col.name,
            col.schema.with_(parameters=params or None),
            convert,
            col.type_name,
            col.unavailable,
            col.length,
            col.scale,
            snap,
            null_value,
            # the mappers shape the value's field only: a key field keeps the schema without the parameter
            key_schema=col.key_schema or col.schema,
            text_type=col.text_type,
        )


def _truncating(conv: Callable, n: int) -> Callable:
    """Java's substring(0, n): n UTF-16 code units, not code points."""
    limit = 2 * n

    def truncated(v):
        s = conv(v)
        if s is None:  # a converter's null (a streamed PG `name`: pg case mapper_non_text_types)
            return s
        if len(s) <= n and s.isascii():
            return s
        u = s.encode("utf-16-le")
        return s if len(u) <= limit else u[:limit].decode("utf-16-le", "ignore")

    return truncated


def _truncating_b64(conv: Callable, n: int) -> Callable:
    """A bytes field's value (base64 text in the payload) cut to its first n bytes."""
    import base64

    def truncated(v):
        b64 = conv(v)
        if not isinstance(b64, str) or len(b64) <= (n * 4 + 2) // 3:
            return b64
        raw = base64.b64decode(b64)
        return b64 if len(raw) <= n else base64.b64encode(raw[:n]).decode("ascii")

    return truncated


def _hashing(conv: Callable, spec: tuple[str, bytes, bool], width: int | None) -> Callable:
    import hashlib  # here: only column.mask.hash.* needs OpenSSL's digests (importing them costs a start ~6 ms)

    algo, salt, v2 = spec
    to_bytes = str.encode if v2 else _java_serialized_string

    def masked(v):
        v = conv(v)
        if v is None:
            return v
        h = hashlib.new(algo, salt + to_bytes(str(v))).hexdigest()
        return h[:width] if width else h

    return masked


def _java_serialized_string(s: str) -> bytes:
    """The bytes Debezium hashes (HashingByteArrayStrategy V1, the default: ObjectOutputStream.writeObject of
    the String): stream header, TC_STRING / TC_LONGSTRING, length, modified UTF-8 (NUL as C0 80, characters
    beyond the BMP as two 3-byte surrogates). Recorded: mariadb case mask_non_text_columns."""
    if s.isascii() and "\0" not in s:
        body = s.encode("ascii")
    else:
        # UTF-16 code units, each encoded on its own (a character beyond the BMP: two 3-byte surrogates)
        units = s.encode("utf-16-be", "surrogatepass")
        body = b"".join(
            chr(int.from_bytes(units[i : i + 2], "big")).encode("utf-8", "surrogatepass")
            for i in range(0, len(units), 2)
        ).replace(b"\x00", b"\xc0\x80")
    if len(body) < 0x10000:
        return b"\xac\xed\x00\x05\x74" + len(body).to_bytes(2, "big") + body
    return b"\xac\xed\x00\x05\x7c" + len(body).to_bytes(8, "big") + body


def include_list_order(
    items: list, include_list: Sequence[Pattern] | str | None, name: Callable[[Any], str]
) -> list:
    """Debezium snapshots the tables in the order of `table.include.list` (the first pattern a table
    matches; case-insensitive), keeping the given order among tables of one pattern (pg_json_plain:
    products before customers; mariadb_order).  `include_list`: the compiled patterns
    (`settings.relational.table_include`), or the property's text."""
    if include_list is None or isinstance(include_list, str):
        include_list = [
            re.compile(p.strip(), re.IGNORECASE) for p in (include_list or "").split(",") if p.strip()
        ]
    patterns = list(include_list)
    if len(patterns) < 2:
        return items

    def rank(item: Any) -> int:
        n = name(item)
        return next((i for i, p in enumerate(patterns) if p.fullmatch(n)), len(patterns))

    return sorted(items, key=rank)
