"""Delta table plumbing shared by the table writers: opening, idempotent commits, and the column plan that
turns a batch's Connect schemas into the table's (evolving) Arrow schema."""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass, field
from decimal import Decimal
from typing import Any

import orjson
import pyarrow as pa
from deltalake import DeltaTable, Field
from deltalake.exceptions import TableNotFoundError
from deltalake.transaction import CommitProperties, Transaction
from pyspark.sql import types as T

from sink.types import arrow_type, decoder, spark_type

SEQ = "__seq"  # source position of the event that wrote the row (sink.position)
RID = "__rid"  # keyless tables: the row's own id (one physical row per source row, duplicates included)
IMG = "__img"  # keyless tables: hash of the row image as inserted, to find it again from a before image
CS = "__cs"  # keyless tables: id of the column set that image covers
META = (SEQ, RID, IMG, CS)
OP = "__op"  # MERGE source only
AUX_PREFIX = "_sink_"  # <tables>/_sink_*: the sink's own tables, not mirrors
DEFAULT_PROP = "dbz.sink.default."  # table property: a column's Connect schema when it has a default


def canon(v: Any) -> str:
    return orjson.dumps(v, option=orjson.OPT_SORT_KEYS).decode()


def canonical_value(v: Any) -> Any:
    """A JSON-able canonical form of a decoded value (equal values, equal forms)."""
    if v is None or isinstance(v, bool | int | str):
        return v
    if isinstance(v, float):
        return repr(v)
    if isinstance(v, Decimal):
        return str(v)
    if isinstance(v, dt.datetime | dt.date | dt.time):
        return v.isoformat()
    if isinstance(v, bytes):
        return v.hex()
    if isinstance(v, dict):
        return {k: canonical_value(x) for k, x in v.items()}
    if isinstance(v, list | tuple):
        return [canonical_value(x) for x in v]
    return str(v)


def open_table(path: str) -> DeltaTable | None:
    try:
        return DeltaTable(path)
    except TableNotFoundError:
        return None


def table_schema(dt: DeltaTable) -> pa.Schema:
    return pa.schema(dt.schema().to_arrow())


def already_applied(dt: DeltaTable | None, app_id: str, batch_id: int) -> bool:
    """A commit of this micro-batch (or a later one) of this query is already in the table."""
    if dt is None:
        return False
    v = dt.transaction_version(app_id)
    return v is not None and v >= batch_id


def commit(app_id: str, batch_id: int) -> CommitProperties:
    return CommitProperties(app_transactions=[Transaction(app_id, batch_id)])


def sql_lit(v: Any) -> str | None:
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, int | float):
        return repr(v)
    if isinstance(v, str):
        return "'" + v.replace("'", "''") + "'"
    if isinstance(v, Decimal):
        return str(v)
    # a default of these types was left out of the backfill: rows written before ADD COLUMN stayed null
    if isinstance(v, dt.datetime):  # aware (ZonedTimestamp, UTC) or naive (timestamp_ntz): the column casts
        return f"CAST('{v.isoformat()}' AS TIMESTAMP)"
    if isinstance(v, dt.date):
        return f"CAST('{v.isoformat()}' AS DATE)"
    if isinstance(v, bytes):
        return f"X'{v.hex()}'"
    if isinstance(v, list) and v:
        items = ["NULL" if x is None else sql_lit(x) for x in v]
        return None if None in items else "make_array(" + ", ".join(items) + ")"
    return None


def q(c: str) -> str:
    return "`" + c.replace("`", "``") + "`"


@dataclass
class ColumnPlan:
    cols: list[str]  # data columns in table order
    schema: pa.Schema  # data columns, then the metadata columns
    defaults: dict[str, Any] = field(default_factory=dict)  # column -> decoded Connect default
    props: dict[str, str] = field(default_factory=dict)  # table properties to set
    existing: dict[str, pa.Field] = field(default_factory=dict)

    @property
    def added(self) -> list[str]:
        return [c for c in self.cols if c not in self.existing] if self.existing else []

    def arrays(self, rows: list[dict]) -> dict[str, pa.Array]:
        """Columns of `rows` in this plan's types; a column missing from a row gets its default (rows written
        before an ADD COLUMN ... DEFAULT hold the default in the source too)."""
        out = {}
        for c in self.cols:
            dflt = self.defaults.get(c)
            out[c] = pa.array([r[c] if c in r else dflt for r in rows], type=self.schema.field(c).type)
        return out


def plan_columns(
    dt: DeltaTable | None, tb_cols: dict[str, dict], key_cols: list[str], meta: list[pa.Field]
) -> ColumnPlan:
    """Existing table columns first (their types kept), then new ones in Connect order. Column defaults
    (Connect `default`) are remembered in the table's configuration, so that events written before an
    ADD COLUMN ... DEFAULT get the value the source gives those rows, in any later batch too."""
    existing = {f.name: f for f in table_schema(dt)} if dt is not None else {}
    own = set(META) | {f.name for f in meta}  # the sink's columns, not the source's
    cols = [c for c in existing if c not in own]
    cols += [c for c in tb_cols if c not in existing]
    stored = dict(dt.metadata().configuration) if dt is not None else {}
    stypes: dict[str, T.DataType] = {}
    defaults: dict[str, Any] = {}
    props: dict[str, str] = {}
    for c in cols:
        f = tb_cols.get(c)
        if f is not None:
            stypes[c] = spark_type(f)
        pk = DEFAULT_PROP + c
        if f is not None and f.get("default") is not None:
            if stored.get(pk) != canon(f):
                props[pk] = canon(f)
        elif f is None and pk in stored:
            f = orjson.loads(stored[pk])
        if f is not None and f.get("default") is not None:
            defaults[c] = decoder(f)(f["default"])
    afields = []
    for c in cols:
        at = arrow_type(stypes[c]) if c in stypes else existing[c].type
        if c in existing and existing[c].type != at:
            at = existing[c].type  # keep the table's type; values are cast on write
        afields.append(pa.field(c, at, nullable=c not in key_cols))
    return ColumnPlan(cols, pa.schema([*afields, *meta]), defaults, props, existing)


def create_or_evolve(path: str, dt: DeltaTable | None, plan: ColumnPlan) -> DeltaTable:
    """The table with the plan's columns and properties (created on first write; new columns added)."""
    if dt is None:
        DeltaTable.create(
            path,
            schema=plan.schema,
            mode="ignore",
            configuration=plan.props or None,
            raise_if_key_not_exists=False,
        )
        return DeltaTable(path)
    if plan.added:
        dt.alter.add_columns([Field.from_arrow(plan.schema.field(c)) for c in plan.added])
        dt = DeltaTable(path)
    if plan.props:
        dt.alter.set_table_properties(plan.props, raise_if_not_exists=False)
        dt = DeltaTable(path)
    return dt


def backfill(plan: ColumnPlan) -> dict[str, str]:
    """SET clauses giving rows already in the table the default of each column added in this batch."""
    return {q(c): lit for c in plan.added if (lit := sql_lit(plan.defaults.get(c))) is not None}
