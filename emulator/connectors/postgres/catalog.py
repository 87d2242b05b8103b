"""Reading table definitions from the PostgreSQL catalog.

Two round trips for any number of tables: one query for every column (with its default expression,
not-null flag and primary-key position) of all ordinary and partitioned tables in non-system schemas,
and one recursive query for the types those columns use (array element and domain base types
included, enum labels in sort order). Types are cached per connection in a `TypeRegistry`.

Generated (STORED) columns are read like any other for the snapshot, as Debezium's SELECT * does, with their
generation expression as the default expression: pgjdbc's getColumns gives it as COLUMN_DEF and Debezium parses it
as any default (`(a * 10)` is no integer: no default; `(upper(s) || '!'::text)` calls a function: the text
placeholder ""; pg case generated_column_expression_default). pgoutput leaves them out of Relation messages, so
streamed changes have none.
"""

from __future__ import annotations

import logging
import time
import weakref
from collections.abc import Callable, Iterable
from typing import Any

from emulator.connectors.postgres.types import PgType, TypeConfig, column_def_ex, source_length_scale
from emulator.model import TableDef

log = logging.getLogger(__name__)

__all__ = ["TypeRegistry", "load_relation_table", "load_table", "load_tables"]

# pgjdbc's getColumns names an integer column whose default calls nextval( by its serial pseudo-type, and
# Debezium's snapshot schema takes that name (column/datatype.propagate.source.type); the Relation messages
# of the stream carry the type oid, so streamed changes say INT4 again (tests/data/pg/cases/propagate_serial_*)
_SERIAL_NAMES = {"int4": "serial", "int8": "bigserial", "int2": "smallserial"}

_COLUMNS_SQL = """
SELECT c.oid, n.nspname, c.relname, c.relreplident,
       a.attnum, a.attname, a.atttypid, a.atttypmod, a.attnotnull,
       pg_get_expr(d.adbin, d.adrelid) AS default_expr,
       array_position(k.indkey::int2[], a.attnum) AS pk_pos
FROM pg_catalog.pg_class c
JOIN pg_catalog.pg_namespace n ON n.oid = c.relnamespace
JOIN pg_catalog.pg_attribute a ON a.attrelid = c.oid AND a.attnum > 0 AND NOT a.attisdropped
LEFT JOIN pg_catalog.pg_attrdef d ON d.adrelid = c.oid AND d.adnum = a.attnum
LEFT JOIN LATERAL (
    -- the key: the primary key, else (as Debezium's readPrimaryKeyOrUniqueIndexNames) the unique index
    -- that sorts first by name, expression indexes left out
    SELECT i.indkey FROM pg_catalog.pg_index i JOIN pg_catalog.pg_class ic ON ic.oid = i.indexrelid
    WHERE i.indrelid = c.oid AND (i.indisprimary OR (i.indisunique AND 0 <> ALL (i.indkey::int2[])))
    ORDER BY i.indisprimary DESC, ic.relname
    LIMIT 1
) k ON true
WHERE c.relkind IN ('r', 'p')
  AND c.relpersistence <> 't'
  AND n.nspname <> 'information_schema'
  AND n.nspname !~ '^pg_'
  {extra}
ORDER BY c.oid, a.attnum
"""

_TYPES_SQL = """
WITH RECURSIVE need(oid) AS (
    SELECT unnest(%s::oid[])
  UNION
    SELECT x.oid
    FROM need
    JOIN pg_catalog.pg_type t ON t.oid = need.oid
    CROSS JOIN LATERAL (VALUES (t.typelem), (t.typbasetype)) AS x(oid)
    WHERE x.oid <> 0
)
SELECT t.oid, t.typname, t.typtype, t.typelem, t.typbasetype, t.typtypmod, t.typcategory,
       ARRAY(SELECT e.enumlabel FROM pg_catalog.pg_enum e
             WHERE e.enumtypid = t.oid ORDER BY e.enumsortorder) AS labels
FROM pg_catalog.pg_type t
JOIN need ON need.oid = t.oid
"""


class TypeRegistry:
    """PgType objects by oid, loaded on demand (with their element/base types) and cached."""

    def __init__(self) -> None:
        self.types: dict[int, PgType] = {}

    def resolve(self, conn: Any, oids: Iterable[int], refresh: bool = False) -> dict[int, PgType]:
        wanted = set(oids)
        missing = wanted if refresh else {o for o in wanted if o not in self.types}
        if missing:
            self._load(conn, missing, refresh)
        return self.types

    def _load(self, conn: Any, oids: set[int], refresh: bool = False) -> None:
        arr = "{" + ",".join(str(o) for o in sorted(oids)) + "}"
        rows = conn.execute(_TYPES_SQL, (arr,)).fetchall()
        links: list[tuple[PgType, int, int]] = []
        for oid, name, typtype, elem, base, typmod, category, labels in rows:
            t = self.types.get(oid)
            if t is None:
                t = PgType(oid, name, typtype)
                self.types[oid] = t
            elif not refresh:  # an element/base type already known keeps its labels (Debezium's TypeRegistry)
                continue
            else:  # refresh in place so existing references see new enum labels
                t.name, t.typtype = name, typtype
            t.enum_labels = tuple(labels or ())
            t.category = category or ""
            t.typmod = typmod if typmod is not None else -1
            t.elem = t.base = None
            links.append((t, elem or 0, base or 0))
        for t, elem, base in links:
            if elem:
                t.elem = self.types.get(elem)
            if base:
                t.base = self.types.get(base)


_registries: weakref.WeakKeyDictionary[Any, TypeRegistry] = weakref.WeakKeyDictionary()


def registry_for(conn: Any) -> TypeRegistry:
    """The TypeRegistry cached for this connection."""
    try:
        reg = _registries.get(conn)
    except TypeError:  # not weak-referenceable
        return TypeRegistry()
    if reg is None:
        reg = TypeRegistry()
        _registries[conn] = reg
    return reg


def _build_tables(
    rows: list[tuple], types: dict[int, PgType], cfg: TypeConfig, include: Callable[[str, str], bool] | None
) -> list[TableDef]:
    tables: list[TableDef] = []
    current_oid = None
    table: TableDef | None = None
    pk: list[tuple[int, str]] = []
    skip = False

    def finish() -> None:
        if table is not None and not skip:
            table.key_columns = [name for _, name in sorted(pk)]
            tables.append(table)

    for oid, nsp, rel, replident, _attnum, attname, typid, typmod, notnull, default_expr, pk_pos in rows:
        if oid != current_oid:
            finish()
            current_oid = oid
            pk = []
            skip = include is not None and not include(nsp, rel)
            table = TableDef(
                nsp,
                rel,
                [],
                extra={
                    "oid": oid,
                    "typmods": [],
                    "type_oids": [],
                    "snapshot_convert": [],
                    "replica_identity": replident,
                },
            )
        if skip:
            continue
        assert table is not None
        pgtype = types.get(typid)
        got = None
        if pgtype is not None:
            got = column_def_ex(attname, pgtype, typmod, bool(notnull), default_expr, cfg)
        if got is None:
            log.warning(
                "Column %s.%s.%s has unsupported type (oid %s%s); it is dropped",
                nsp,
                rel,
                attname,
                typid,
                f", {pgtype.name}" if pgtype is not None else "",
            )
            continue
        col, snapshot_convert = got
        if snapshot_convert is not col.convert:
            col.snapshot_convert = snapshot_convert
        col.source_size = source_length_scale(pgtype, typmod, stream=False)
        if default_expr and pgtype.name in _SERIAL_NAMES and "nextval(" in default_expr:
            col.type_name = _SERIAL_NAMES[pgtype.name]
        table.columns.append(col)
        table.extra["snapshot_convert"].append(snapshot_convert)
        table.extra["typmods"].append(typmod)
        table.extra["type_oids"].append(typid)
        if pk_pos is not None:
            pk.append((pk_pos, attname))
    finish()
    tables.sort(key=lambda t: (t.namespace, t.name))
    return tables


def load_tables(
    conn: Any,
    cfg: TypeConfig,
    include: Callable[[str, str], bool],
    types: TypeRegistry | None = None,
) -> list[TableDef]:
    """Every captured (ordinary or partitioned) table `include(schema, table)` accepts, sorted by
    (schema, table). `types` defaults to the registry cached for `conn`."""
    rows = conn.execute(_COLUMNS_SQL.format(extra="")).fetchall()
    reg = types if types is not None else registry_for(conn)
    verdicts: dict[tuple[str, str], bool] = {}

    def included(nsp: str, rel: str) -> bool:
        v = verdicts.get((nsp, rel))
        if v is None:
            v = verdicts[(nsp, rel)] = bool(include(nsp, rel))
        return v

    wanted = {r[6] for r in rows if included(r[1], r[2])}
    known = reg.resolve(conn, wanted)
    return _build_tables(rows, known, cfg, included)


def load_table(
    conn: Any, schema: str, table: str, cfg: TypeConfig, types: TypeRegistry | None = None
) -> TableDef | None:
    """One table, re-read from the catalog (types of its columns refreshed: a schema change can come
    with new enum labels), or None when it does not exist."""
    rows = conn.execute(
        _COLUMNS_SQL.format(extra="AND n.nspname = %s AND c.relname = %s"), (schema, table)
    ).fetchall()
    if not rows:
        return None
    reg = types if types is not None else registry_for(conn)
    known = reg.resolve(conn, {r[6] for r in rows}, refresh=True)
    tables = _build_tables(rows, known, cfg, None)
    return tables[0] if tables else None


# the longest wait for a decoded transaction's commit to become visible (`await_commit_visible`): past it the
# xid is taken to be some other transaction's (wraparound), and the catalog read as it is
_COMMIT_WAIT_S = 5.0


_XID_LOCK_SQL = "SELECT 1 FROM pg_locks WHERE locktype = 'transactionid' AND transactionid = %s::text::xid"
# the slot's walsender is a synchronous standby (synchronous_standby_names names its application_name, or '*')
_SYNC_SQL = """
SELECT 1 FROM pg_replication_slots s JOIN pg_stat_replication r ON r.pid = s.active_pid
WHERE s.slot_name = %s AND r.sync_state IN ('sync', 'quorum')
"""


def await_commit_visible(conn: Any, xid: int | None, slot: str | None = None) -> None:
    """Wait until transaction `xid`'s commit is visible to a new snapshot on `conn`. pgoutput sends a
    transaction once its commit record is flushed, but the committing backend leaves the proc array (its
    commit becomes visible to others) only after that: a catalog read made in between still sees the
    catalog from before the transaction (a primary key dropped in it still there). The transaction holds
    the lock on its own xid until after it left the proc array, so once no lock on `xid` is left, the
    next statement's snapshot sees the commit. Not when `slot`'s walsender is a synchronous standby: the
    commit may then wait for this very stream to confirm it, which it does only after the transaction
    (the wait would always run to its deadline; the read sees what Debezium's, as fast, would)."""
    if xid is None or conn.execute(_XID_LOCK_SQL, (str(xid),)).fetchone() is None:
        return
    if slot is not None and conn.execute(_SYNC_SQL, (slot,)).fetchone() is not None:
        return
    deadline = time.monotonic() + _COMMIT_WAIT_S
    while conn.execute(_XID_LOCK_SQL, (str(xid),)).fetchone() is not None and time.monotonic() < deadline:
        time.sleep(0.001)


def load_relation_table(
    conn: Any,
    rel: Any,
    cfg: TypeConfig,
    types: TypeRegistry | None = None,
    column_included: Callable[[str, str], bool] | None = None,
) -> TableDef:
    """The table as a pgoutput Relation message describes it, the way Debezium's PgOutputMessageDecoder
    builds it: columns, their order, type oids and typmods from the message (the schema in force at the
    change's position); from the catalog, read now, only what the message lacks — NOT NULL (a column the
    catalog no longer has is optional), the default expression and the key (the primary key, else the
    first unique index), the key cut down to the message's columns. The decoder's catalog read applies
    the column filter (readColumnForDecoder): a column column.include/exclude.list leaves out, which the key
    may still hold, is optional and has no default (pg case key_column_excluded)."""
    rows = conn.execute(
        _COLUMNS_SQL.format(extra="AND n.nspname = %s AND c.relname = %s"), (rel.namespace, rel.name)
    ).fetchall()
    by_name = {r[5]: r for r in rows}
    reg = types if types is not None else registry_for(conn)
    # types already known keep what was read first (enum labels included), as Debezium's TypeRegistry
    known = reg.resolve(conn, {c.type_oid for c in rel.columns})
    names = {c.name for c in rel.columns}
    table = TableDef(
        rel.namespace,
        rel.name,
        [],
        extra={
            "oid": rel.oid,
            "typmods": [],
            "type_oids": [],
            "snapshot_convert": [],
            "replica_identity": rel.replica_identity,
            "stream_keep": [],  # positions in the Relation's tuples of the columns kept
        },
    )
    tid = f"{rel.namespace}.{rel.name}"
    for pos, rc in enumerate(rel.columns):
        r = by_name.get(rc.name)
        if column_included is not None and not column_included(tid, rc.name):
            r = None
        pgtype = known.get(rc.type_oid)
        got = None
        if pgtype is not None:
            got = column_def_ex(rc.name, pgtype, rc.typmod, bool(r and r[8]), r[9] if r else None, cfg)
        if got is None:
            log.warning(
                "Column %s.%s.%s has unsupported type (oid %s%s); it is dropped",
                rel.namespace,
                rel.name,
                rc.name,
                rc.type_oid,
                f", {pgtype.name}" if pgtype is not None else "",
            )
            continue
        col, snapshot_convert = got
        if snapshot_convert is not col.convert:
            col.snapshot_convert = snapshot_convert
        col.source_size = source_length_scale(pgtype, rc.typmod, stream=True)
        table.columns.append(col)
        table.extra["snapshot_convert"].append(snapshot_convert)
        table.extra["typmods"].append(rc.typmod)
        table.extra["type_oids"].append(rc.type_oid)
        table.extra["stream_keep"].append(pos)
    pk = sorted((r[10], r[5]) for r in rows if r[10] is not None)
    table.key_columns = [name for _, name in pk if name in names]
    return table
