"""Signal filters that reach SQL, made safe: `additional-conditions` predicates and blocking-snapshot SELECTs.

Whoever can write a signal must not be able to read other tables, stall or change the database. A filter
is parsed with the source's own grammar (sqlglot: ``postgres``, or ``mysql`` for MySQL and MariaDB, whose
quoting and comment syntax - ``\\'`` escapes, ``#`` comments - differ) and accepted only as ONE boolean
expression over the table's own columns built from an allow-list of node kinds: literals, comparison,
logical and arithmetic operators, LIKE/IN/BETWEEN/IS NULL, CASE, casts to plain scalar types and a list of
deterministic (or merely clock-reading) scalar functions.  Anything else - subqueries, several statements,
comments, unknown functions (``SLEEP``, ``pg_sleep``, ``LOAD_FILE``, ``pg_read_file``, ``set_config``...),
session variables, other tables' columns - is refused with :class:`ConditionError`.

The SQL that runs is generated from the checked tree, never spliced from the user's text: column references
are replaced by the table's real column names, quoted; string values are rendered by the database driver's
own escaping (``literal``), which knows the session's quoting rules (``NO_BACKSLASH_ESCAPES``,
``standard_conforming_strings``), so ``name LIKE 'n1%'`` and ``name = 'it''s'`` work and a quote can never
end a literal early.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Any

from emulator.incremental.conditions_allowed import CAST_TYPES, FUNCTIONS, NODE_NAMES

__all__ = ["ConditionError", "Predicate", "dialect_of", "check_condition", "check_select"]


class ConditionError(ValueError):
    pass


DIALECTS = {"postgres": "postgres", "mysql": "mysql", "mariadb": "mysql"}


def dialect_of(connector: str | None) -> str:
    """The sqlglot dialect for a connector kind (``postgres``/``mysql``/``mariadb``)."""
    return DIALECTS.get(connector or "postgres", "postgres")


_NUMBER = re.compile(r"[0-9]+(?:\.[0-9]*)?(?:[eE][+-]?[0-9]+)?|\.[0-9]+(?:[eE][+-]?[0-9]+)?")
_MARK = "\x00"
# inline text sqlglot renders itself (interval quantities, JSON path keys): nothing a quote could hide in
_SAFE_INLINE = re.compile(r"[A-Za-z0-9_ .:+\-]*")

_allowed: tuple | None = None


def _allowed_nodes() -> tuple:
    global _allowed
    if _allowed is None:
        from sqlglot import exp

        _allowed = tuple(c for c in (getattr(exp, n, None) for n in NODE_NAMES) if isinstance(c, type))
    return _allowed


@dataclass(frozen=True)
class Predicate:
    """A checked filter: SQL text generated from the checked tree with every string value taken out.

    ``render(literal)`` gives the SQL to run, each value rendered by ``literal`` (the driver's escaping:
    ``pymysql.Connection.escape``, or ``psycopg.sql.Literal(v).as_string(conn)``)."""

    template: tuple[str, ...]  # text, value index, text, value index, ..., text
    values: tuple[str, ...]
    source: str  # the user's text, for messages and offsets

    def render(self, literal: Callable[[str], str]) -> str:
        out = []
        for i, part in enumerate(self.template):
            out.append(literal(self.values[int(part)]) if i % 2 else part)
        return "".join(out)

    def __str__(self) -> str:  # what logs show: the SQL with values as standard literals
        return self.render(lambda v: "'" + v.replace("'", "''") + "'")


def _column_names(columns: Iterable[str], dialect: str) -> tuple[dict[str, str], dict[str, str]]:
    exact = {c: c for c in columns}
    folded: dict[str, str] = {}
    for c in exact:
        # PostgreSQL folds unquoted names to lower case; MySQL/MariaDB column names ignore case always
        key = c.lower() if dialect == "mysql" else c
        folded.setdefault(key, c)
    return exact, folded


def _check_tree(node, columns: Iterable[str], table: tuple[str, str] | None, what: str, dialect: str) -> None:
    """Every node of `node` must be an allowed kind over the table's own columns; column references are
    rewritten in place to the real column name, quoted."""
    from sqlglot import exp

    allowed = _allowed_nodes()
    functions = FUNCTIONS[dialect]
    exact, folded = _column_names(columns, dialect)
    for n in list(node.walk()):
        if n.comments:
            raise ConditionError(f"{what}: comments are not accepted")
        if isinstance(
            n,
            exp.Select
            | exp.Subquery
            | exp.Union
            | exp.Insert
            | exp.Update
            | exp.Delete
            | exp.Command
            | exp.Create
            | exp.Drop
            | exp.Table
            | exp.From
            | exp.Join
            | exp.Exists,
        ):
            raise ConditionError(f"{what} may not contain a subquery or a statement")
        if isinstance(n, exp.ByteString | exp.HexString | exp.BitString) or type(n).__name__ in (
            "UnicodeString",
            "National",
            "RawString",
        ):
            raise ConditionError(f"{what}: only plain '...' string literals are accepted")
        if not isinstance(n, allowed):
            raise ConditionError(f"{what}: {type(n).__name__} expressions are not accepted")
        if isinstance(n, exp.Anonymous) and str(n.name).lower() not in functions:
            raise ConditionError(f"{what}: function {n.name}() is not accepted")
        if isinstance(n, exp.In) and (n.args.get("query") is not None or n.args.get("unnest") is not None):
            raise ConditionError(f"{what} may not contain a subquery")
        if isinstance(n, exp.DataType):
            tname = n.this.name if hasattr(n.this, "name") else str(n.this)
            if tname.upper() not in CAST_TYPES:
                raise ConditionError(f"{what}: cast to {n.sql(dialect=dialect)} is not accepted")
        if isinstance(n, exp.Literal) and not n.is_string and not _NUMBER.fullmatch(str(n.this)):
            raise ConditionError(f"{what}: {n.this!r} is not a number")
        if isinstance(n, exp.JSONPathKey | exp.JSONPathSubscript) and not _SAFE_INLINE.fullmatch(str(n.this)):
            raise ConditionError(f"{what}: JSON path element {str(n.this)!r} is not accepted")
        if (
            isinstance(n, exp.Literal)
            and n.is_string
            and isinstance(n.parent, exp.Interval)
            and not _SAFE_INLINE.fullmatch(str(n.this))
        ):
            raise ConditionError(f"{what}: interval {str(n.this)!r} is not accepted")
        if isinstance(n, exp.Var) and not re.fullmatch(r"[A-Za-z_]+", str(n.this)):
            raise ConditionError(f"{what}: {n.this!r} is not accepted")
        if isinstance(n, exp.Column):
            if isinstance(n.this, exp.Star):
                raise ConditionError(f"{what}: '*' is not a predicate")
            name = n.name
            quoted = bool(n.this.args.get("quoted")) if isinstance(n.this, exp.Identifier) else False
            if dialect == "mysql":
                real = folded.get(name.lower())
            else:
                real = exact.get(name) if quoted else folded.get(name.lower())
            if real is None:
                raise ConditionError(f"{what} names unknown column {name!r}")
            qual = [p for p in (n.args.get("catalog"), n.args.get("db"), n.args.get("table")) if p]
            if qual:
                if table is None:
                    raise ConditionError(f"{what}: qualified column {n.sql(dialect=dialect)!r}")
                parts = [str(p.name) for p in qual]
                schema, tname = table
                same = (lambda a, b: a.lower() == b.lower()) if dialect == "mysql" else (lambda a, b: a == b)
                if not (len(parts) == 1 and same(parts[0], tname)) and not (
                    len(parts) == 2 and same(parts[0], schema) and same(parts[1], tname)
                ):
                    raise ConditionError(
                        f"{what}: column {n.sql(dialect=dialect)!r} belongs to another table"
                    )
            n.replace(exp.column(real, quoted=True))


def _parse(sql_text: str, dialect: str, what: str) -> list:
    import sqlglot

    try:
        return sqlglot.parse(sql_text, read=dialect)
    except (sqlglot.errors.ParseError, sqlglot.errors.TokenError) as e:
        raise ConditionError(f"{what} does not parse: {str(e).splitlines()[0] if str(e) else e}") from None
    except RecursionError:
        raise ConditionError(f"{what} is nested too deeply") from None


def _predicate(tree, dialect: str, source: str, what: str) -> Predicate:
    """Take the string values out of the checked tree and generate its SQL in the source's dialect."""
    import sqlglot
    from sqlglot import exp

    generated = tree.sql(dialect=dialect)
    # what runs is what was checked: the generated text parses back to the same tree
    try:
        again = sqlglot.parse_one(generated, read=dialect)
    except (sqlglot.errors.ParseError, sqlglot.errors.TokenError):
        again = None
    if again != tree:
        raise ConditionError(f"{what} is ambiguous")
    values: list[str] = []
    templ = tree.copy()
    for n in list(templ.walk()):
        if isinstance(n, exp.Literal) and n.is_string and not isinstance(n.parent, exp.Interval):
            values.append(str(n.this))
            n.replace(exp.Var(this=f"{_MARK}{len(values) - 1}{_MARK}"))
    parts = tuple(templ.sql(dialect=dialect).split(_MARK))
    if len(parts) != 2 * len(values) + 1:
        raise ConditionError(f"{what} is ambiguous")
    return Predicate(parts, tuple(values), source)


def check_condition(
    condition: str, columns: Iterable[str], table: tuple[str, str] | None = None, dialect: str = "postgres"
) -> Predicate:
    """An `additional-conditions` filter: one boolean expression over the table's columns, or
    :class:`ConditionError`."""
    from sqlglot import exp

    dialect = DIALECTS.get(dialect, dialect)
    text = (condition or "").strip()
    what = f"filter {text[:200]!r}"
    if not text:
        raise ConditionError("filter is empty")
    if _MARK in text:
        raise ConditionError(f"{what} contains a NUL character")
    stmts = _parse(f"SELECT 1 FROM t WHERE {text}", dialect, what)
    if len(stmts) != 1 or not isinstance(stmts[0], exp.Select):
        raise ConditionError(f"{what} must be a single predicate")
    sel = stmts[0]
    where = sel.args.get("where")
    extra = [k for k, v in sel.args.items() if v and k not in ("expressions", "from", "from_", "where")]
    if where is None or extra or sel.comments:
        raise ConditionError(f"{what} is not a single predicate")
    _check_tree(where, columns, table, what, dialect)
    body = where.this
    return _predicate(body, dialect, text, what)


def check_select(
    flt: str, table: tuple[str, str], columns: Iterable[str], dialect: str = "postgres"
) -> Predicate:
    """A blocking snapshot's filter: as in Debezium a whole `SELECT ... FROM <that table> [WHERE ...]
    [ORDER BY ...] [LIMIT n]` (the form of snapshot.select.statement.overrides), or - an emulator
    convenience - just the predicate. Returns the SELECT to run, generated from the checked tree."""
    import sqlglot
    from sqlglot import exp

    dialect = DIALECTS.get(dialect, dialect)
    columns = list(columns)
    text = (flt or "").strip()
    what = f"blocking snapshot filter {text[:200]!r}"
    schema, name = table
    tbl = exp.Table(this=exp.to_identifier(name, quoted=True), db=exp.to_identifier(schema, quoted=True))
    if not re.match(r"(?is)^\s*select\b", text):
        cond = check_condition(text, columns, table, dialect)
        where = sqlglot.parse_one(f"SELECT 1 FROM t WHERE {cond.source}", read=dialect).args["where"]
        _check_tree(where, columns, table, what, dialect)
        return _predicate(exp.select("*").from_(tbl).where(where.this), dialect, text, what)
    if _MARK in text:
        raise ConditionError(f"{what} contains a NUL character")
    stmts = _parse(text, dialect, what)
    if len(stmts) != 1 or not isinstance(stmts[0], exp.Select):
        raise ConditionError(f"{what} must be one SELECT statement")
    sel = stmts[0]
    allowed_args = {"expressions", "from", "from_", "where", "order", "limit"}
    extra = [k for k, v in sel.args.items() if v and k not in allowed_args]
    if extra:
        raise ConditionError(f"{what}: {', '.join(sorted(extra))} clauses are not accepted")
    if sel.comments:
        raise ConditionError(f"{what}: comments are not accepted")
    src = sel.args.get("from_") or sel.args.get("from")
    src_tbl = src.this if src is not None else None
    if (
        not isinstance(src_tbl, exp.Table)
        or src_tbl.args.get("joins")
        or src_tbl.args.get("alias")
        or src.comments
        or src_tbl.comments
    ):
        raise ConditionError(f"{what} must read from {schema}.{name} only")
    db = src_tbl.args.get("db")
    same = (lambda a, b: a.lower() == b.lower()) if dialect == "mysql" else (lambda a, b: a == b)
    if (
        not same(src_tbl.name, name)
        or (db is not None and not same(db.name, schema))
        or src_tbl.args.get("catalog")
    ):
        raise ConditionError(f"{what} must read from {schema}.{name}")
    out = exp.select()
    for i in range(len(sel.expressions)):
        e = sel.expressions[i]
        if isinstance(e, exp.Star) and not e.comments:
            out = out.select(exp.Star(), copy=False)
            continue
        if not isinstance(e, exp.Column):
            raise ConditionError(f"{what}: select only the table's columns")
        _check_tree(e, columns, table, what, dialect)
        out = out.select(sel.expressions[i].copy(), copy=False)
    out = out.from_(tbl, copy=False)
    if sel.args.get("where") is not None:
        _check_tree(sel.args["where"], columns, table, what, dialect)
        out = out.where(sel.args["where"].this, copy=False)
    order = sel.args.get("order")
    if order is not None:
        for o in order.expressions:
            if o.comments:
                raise ConditionError(f"{what}: comments are not accepted")
            _check_tree(o.this, columns, table, what, dialect)
        out.set("order", order)
    limit = sel.args.get("limit")
    if limit is not None:
        count = limit.expression
        if not (isinstance(count, exp.Literal) and count.is_int) or limit.comments:
            raise ConditionError(f"{what}: LIMIT takes a number")
        out.set("limit", limit)
    return _predicate(out, dialect, text, what)


def sql_literal_pg(conn: Any) -> Callable[[str], str]:
    """psycopg: values rendered as the connection's own escaped literals."""
    from psycopg import sql

    return lambda v: sql.Literal(v).as_string(conn)


def sql_literal_mysql(conn: Any) -> Callable[[str], str]:
    """PyMySQL: `Connection.escape` escapes for the session (NO_BACKSLASH_ESCAPES included)."""
    return lambda v: conn.escape(v)


class SqlFilters:
    """How a SQL source takes the filters of an execute-snapshot signal: `additional-conditions` are checked
    predicates (rendered by the source with its driver's escaping), a blocking snapshot's filter a checked
    SELECT. MongoDB supplies its own policy with the same methods (JSON query documents)."""

    surrogate_keys = True  # `surrogate-key` chunks a keyless table by that column

    def __init__(self, dialect: str) -> None:
        self.dialect = dialect

    def text(self, flt: Any) -> str:
        """A filter as given in the signal, kept as text (checked per table later)."""
        return str(flt)

    def checked(self, table_id: str, condition: str, columns: list[str]) -> str:
        """The filter for one table, checked now (a refused filter refuses the signal); the text is what the
        offsets keep, as Debezium's do, and it is checked again when a chunk query is built from it."""
        self.query(table_id, condition, columns)
        return condition

    def query(self, table_id: str, condition: str, columns: list[str]) -> Predicate:
        """What the chunk queries get: the checked predicate (never the user's text)."""
        schema, _, table = table_id.partition(".")
        return check_condition(condition, columns, (schema, table), self.dialect)

    def blocking(self, table_id: str, flt: str, columns: list[str]) -> Predicate:
        schema, _, table = table_id.partition(".")
        return check_select(flt, (schema, table), columns, self.dialect)


def validate_condition(
    condition: str, columns: list[str], table: tuple[str, str] | None = None, dialect: str = "postgres"
) -> str:
    """An `additional-conditions` filter checked for `dialect`; the SQL generated from the checked tree
    (values shown as standard literals). Raises ConditionError."""
    return str(check_condition(condition, columns, table, dialect))


def validate_blocking_filter(
    flt: str, table: tuple[str, str], columns: list[str], dialect: str = "postgres"
) -> str:
    """A blocking snapshot's filter (a SELECT of that table, or a predicate) checked for `dialect`."""
    return str(check_select(flt, table, columns, dialect))
