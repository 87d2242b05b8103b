"""MySQL/MariaDB DDL -> the in-memory table model, with sqlglot.

Row events in the binlog carry no column names or types Debezium relies on, so, like Debezium, the
connector keeps a model of every table built from DDL: `SHOW CREATE TABLE` at snapshot time and the DDL
statements read from the binlog afterwards. The model keeps exactly what Debezium's `tableChanges`
report (type name, JDBC type, length, scale, nullability, auto-increment, charset, default expression,
ENUM/SET members), which is also what the type mapping needs.

`DdlParser.apply(sql, database)` parses one statement (or several), applies it to the `Catalog` and
returns the changes it made; a statement sqlglot cannot parse raises `DdlError` quoting it.
"""

from __future__ import annotations

import copy
import logging
import re
from dataclasses import dataclass, field
from typing import Any

import sqlglot
from sqlglot import exp

logging.getLogger("sqlglot").setLevel(logging.ERROR)

# java.sql.Types
BIT, TINYINT, SMALLINT, INTEGER, BIGINT = -7, -6, 5, 4, -5
FLOAT, REAL, DOUBLE, NUMERIC, DECIMAL = 6, 7, 8, 2, 3
CHAR, VARCHAR, NCHAR, NVARCHAR = 1, 12, -15, -9
DATE, TIME, TIMESTAMP, TIMESTAMP_TZ = 91, 92, 93, 2014
BINARY, VARBINARY, BLOB, OTHER, BOOLEAN = -2, -3, 2004, 1111, 16


class DdlError(ValueError):
    pass


@dataclass(slots=True)
class Column:
    name: str
    type_name: str  # Debezium's typeName: "INT", "INT UNSIGNED", "VARCHAR", "ENUM", ...
    jdbc_type: int
    position: int
    length: int | None = None
    scale: int | None = None
    optional: bool = True
    auto_incremented: bool = False
    generated: bool = False
    charset: str | None = None
    comment: str | None = None
    has_default: bool = False
    default: str | None = None  # defaultValueExpression
    enum_values: list[str] | None = None  # members as written, quoted: "'a'"

    @property
    def unsigned(self) -> bool:
        return self.type_name.endswith(" UNSIGNED")

    @property
    def base_type(self) -> str:
        return self.type_name.removesuffix(" UNSIGNED")

    def to_json(self) -> dict[str, Any]:
        """Debezium's history JSON form (JsonTableChangeSerializer)."""
        d: dict[str, Any] = {
            "name": self.name,
            "jdbcType": self.jdbc_type,
            "typeName": self.type_name,
            "typeExpression": self.type_name,
            "charsetName": self.charset,
        }
        if self.length is not None:
            d["length"] = self.length
        if self.scale is not None:
            d["scale"] = self.scale
        d.update(
            {
                "position": self.position,
                "optional": self.optional,
                "autoIncremented": self.auto_incremented,
                "generated": self.generated,
                "comment": self.comment,
                "hasDefaultValue": self.has_default,
            }
        )
        if self.default is not None:
            d["defaultValueExpression"] = self.default
        if self.enum_values:
            d["enumValues"] = list(self.enum_values)
        return d

    @classmethod
    def from_json(cls, d: dict[str, Any]) -> Column:
        return cls(
            name=d["name"],
            type_name=d["typeName"],
            jdbc_type=d["jdbcType"],
            position=d["position"],
            length=d.get("length"),
            scale=d.get("scale"),
            optional=d.get("optional", True),
            auto_incremented=d.get("autoIncremented", False),
            generated=d.get("generated", False),
            charset=d.get("charsetName"),
            comment=d.get("comment"),
            has_default=d.get("hasDefaultValue", False),
            default=d.get("defaultValueExpression"),
            enum_values=d.get("enumValues") or None,
        )

    def change_payload(self) -> dict[str, Any]:
        """The `io.debezium.connector.schema.Column` struct of a schema-change event."""
        return {
            "name": self.name,
            "jdbcType": self.jdbc_type,
            "nativeType": None,
            "typeName": self.type_name,
            "typeExpression": self.type_name,
            "charsetName": self.charset,
            "length": self.length,
            "scale": self.scale,
            "position": self.position,
            "optional": self.optional,
            "autoIncremented": self.auto_incremented,
            "generated": self.generated,
            "comment": self.comment,
            "defaultValueExpression": self.default,
            "enumValues": list(self.enum_values) if self.enum_values else None,
        }


@dataclass(slots=True)
class Table:
    db: str
    name: str
    columns: list[Column]
    pk: list[str] = field(default_factory=list)
    charset: str | None = None
    comment: str | None = None
    unique_keys: list[list[str]] = field(default_factory=list)

    @property
    def id(self) -> str:
        return f"{self.db}.{self.name}"

    @property
    def quoted_id(self) -> str:
        return f'"{self.db}"."{self.name}"'

    def column(self, name: str) -> Column | None:
        low = name.lower()
        for c in self.columns:
            if c.name.lower() == low:
                return c
        return None

    def key_columns(self) -> list[str]:
        """The PRIMARY KEY; else the first UNIQUE key whose columns are all NOT NULL (Debezium's rule)."""
        if self.pk:
            return list(self.pk)
        for uk in self.unique_keys:
            cols = [self.column(n) for n in uk]
            if cols and all(c is not None and not c.optional for c in cols):
                return [c.name for c in cols]
        return []

    def renumber(self) -> None:
        for i, c in enumerate(self.columns, 1):
            c.position = i

    def change_payload(self) -> dict[str, Any]:
        return {
            "defaultCharsetName": self.charset,
            "primaryKeyColumnNames": list(self.pk),
            "columns": [c.change_payload() for c in self.columns],
            "comment": self.comment,
        }

    def to_json(self) -> dict[str, Any]:
        d: dict[str, Any] = {
            "defaultCharsetName": self.charset,
            "primaryKeyColumnNames": list(self.pk),
            "columns": [c.to_json() for c in self.columns],
            "attributes": [],
        }
        if self.unique_keys:
            d["uniqueKeys"] = [list(k) for k in self.unique_keys]  # ours: for the key fallback
        if self.comment is not None:
            d["comment"] = self.comment
        return d

    @classmethod
    def from_json(cls, table_id: str, d: dict[str, Any]) -> Table:
        db, name = parse_quoted_id(table_id)
        return cls(
            db,
            name,
            [Column.from_json(c) for c in d.get("columns", [])],
            list(d.get("primaryKeyColumnNames") or []),
            d.get("defaultCharsetName"),
            d.get("comment"),
            [list(k) for k in d.get("uniqueKeys", [])],
        )


def parse_quoted_id(table_id: str) -> tuple[str, str]:
    m = re.fullmatch(r'"((?:[^"]|"")*)"\."((?:[^"]|"")*)"', table_id)
    if m:
        return m.group(1).replace('""', '"'), m.group(2).replace('""', '"')
    db, _, name = table_id.partition(".")
    return db, name


@dataclass(slots=True)
class Change:
    """One effect of a DDL statement. kind: CREATE / ALTER / DROP (tables), DATABASE (create/drop/alter
    database, USE, SET), TRUNCATE."""

    kind: str
    db: str
    ddl: str
    table: Table | None = None  # the table after the change (None for DROP / DATABASE)
    table_name: str | None = None
    previous: tuple[str, str] | None = None  # RENAME: the old (db, name)


class Catalog:
    """Every known table by (database, name), plus database default charsets."""

    def __init__(self) -> None:
        self.tables: dict[tuple[str, str], Table] = {}
        self.db_charsets: dict[str, str] = {}
        self.server_charset = "utf8mb4"

    def get(self, db: str, name: str) -> Table | None:
        return self.tables.get((db, name))

    def put(self, table: Table) -> None:
        self.tables[(table.db, table.name)] = table

    def remove(self, db: str, name: str) -> Table | None:
        return self.tables.pop((db, name), None)

    def copy(self) -> Catalog:
        c = Catalog()
        c.tables = {k: copy.deepcopy(v) for k, v in self.tables.items()}
        c.db_charsets = dict(self.db_charsets)
        c.server_charset = self.server_charset
        return c

    def db_charset(self, db: str) -> str:
        return self.db_charsets.get(db) or self.server_charset


# -- types ---------------------------------------------------------------------------------------------
# sqlglot DataType -> (Debezium type name, JDBC type)
_TYPES: dict[str, tuple[str, int]] = {
    "TINYINT": ("TINYINT", SMALLINT),
    "UTINYINT": ("TINYINT UNSIGNED", SMALLINT),
    "SMALLINT": ("SMALLINT", SMALLINT),
    "USMALLINT": ("SMALLINT UNSIGNED", SMALLINT),
    "MEDIUMINT": ("MEDIUMINT", INTEGER),
    "UMEDIUMINT": ("MEDIUMINT UNSIGNED", INTEGER),
    "INT": ("INT", INTEGER),
    "UINT": ("INT UNSIGNED", INTEGER),
    "BIGINT": ("BIGINT", BIGINT),
    "UBIGINT": ("BIGINT UNSIGNED", BIGINT),
    "SERIAL": ("BIGINT UNSIGNED", BIGINT),
    "BOOLEAN": ("BOOLEAN", BOOLEAN),
    "DECIMAL": ("DECIMAL", DECIMAL),
    "UDECIMAL": ("DECIMAL UNSIGNED", DECIMAL),
    "DOUBLE": ("DOUBLE", DOUBLE),
    "UDOUBLE": ("DOUBLE UNSIGNED", DOUBLE),
    "FLOAT": ("FLOAT", FLOAT),
    "UFLOAT": ("FLOAT UNSIGNED", FLOAT),
    "BIT": ("BIT", BIT),
    "CHAR": ("CHAR", CHAR),
    "NCHAR": ("NCHAR", NCHAR),
    "VARCHAR": ("VARCHAR", VARCHAR),
    "NVARCHAR": ("NVARCHAR", NVARCHAR),
    "TINYTEXT": ("TINYTEXT", VARCHAR),
    "TEXT": ("TEXT", VARCHAR),
    "MEDIUMTEXT": ("MEDIUMTEXT", VARCHAR),
    "LONGTEXT": ("LONGTEXT", VARCHAR),
    "BINARY": ("BINARY", BINARY),
    "VARBINARY": ("VARBINARY", VARBINARY),
    "TINYBLOB": ("TINYBLOB", BLOB),
    "BLOB": ("BLOB", BLOB),
    "MEDIUMBLOB": ("MEDIUMBLOB", BLOB),
    "LONGBLOB": ("LONGBLOB", BLOB),
    "DATE": ("DATE", DATE),
    "TIME": ("TIME", TIME),
    "DATETIME": ("DATETIME", TIMESTAMP),
    "TIMESTAMP": ("TIMESTAMP", TIMESTAMP_TZ),
    "TIMESTAMPTZ": ("TIMESTAMP", TIMESTAMP_TZ),
    "YEAR": ("YEAR", INTEGER),
    "ENUM": ("ENUM", CHAR),
    "SET": ("SET", CHAR),
    "JSON": ("JSON", OTHER),
    "GEOMETRY": ("GEOMETRY", OTHER),
    "UUID": ("UUID", OTHER),
}
# spellings Debezium keeps (its grammar's token) where sqlglot folds them into one type
_SYNONYMS: dict[str, tuple[str, int]] = {
    "INTEGER": ("INTEGER", INTEGER),
    "BOOL": ("BOOL", BOOLEAN),
    "NUMERIC": ("NUMERIC", NUMERIC),
    "DEC": ("DEC", DECIMAL),
    "FIXED": ("FIXED", DECIMAL),
    "REAL": ("REAL", REAL),
    "DOUBLE PRECISION": ("DOUBLE PRECISION", DOUBLE),
}
CHAR_TYPES = frozenset(
    {
        "CHAR",
        "NCHAR",
        "VARCHAR",
        "NVARCHAR",
        "TINYTEXT",
        "TEXT",
        "MEDIUMTEXT",
        "LONGTEXT",
        "ENUM",
        "SET",
        "JSON",
    }
)
_TIME_TYPES = frozenset({"TIME", "DATETIME", "TIMESTAMP"})
_SPATIAL = re.compile(
    r"\b(POINT|LINESTRING|POLYGON|MULTIPOINT|MULTILINESTRING|MULTIPOLYGON|"
    r"GEOMETRYCOLLECTION)\b(?=\s*(?:NOT\b|NULL\b|DEFAULT\b|COMMENT\b|SRID\b|,|\)|$))",
    re.IGNORECASE,
)


def _charset_of_collation(collation: str) -> str:
    c = collation.lower()
    for cs in ("utf8mb4", "utf8mb3", "utf16le", "utf16", "utf32"):
        if c.startswith(cs + "_"):
            return cs
    return c.split("_", 1)[0]


def _literal_text(node: exp.Expression | None) -> str | None:
    if node is None:
        return None
    if isinstance(node, exp.Null):
        return None
    if isinstance(node, exp.Literal):
        return str(node.this)
    if isinstance(node, exp.BitString):  # b'101': Debezium keeps the digits (recorded)
        return str(node.this)
    if isinstance(node, exp.Neg) and isinstance(node.this, exp.Literal):
        return "-" + str(node.this.this)
    if isinstance(node, exp.Boolean):
        return "1" if node.this else "0"
    if isinstance(node, (exp.CurrentTimestamp, exp.CurrentDate, exp.CurrentTime)):
        return "CURRENT_TIMESTAMP"
    if isinstance(node, exp.Paren):
        return _literal_text(node.this)
    return node.sql("mysql")


def _ident(node: Any) -> str:
    if isinstance(node, exp.Identifier):
        return node.this
    if isinstance(node, (exp.Column, exp.Var)):
        return node.name
    if isinstance(node, exp.Expression):
        return node.name
    return str(node)


class DdlParser:
    def __init__(self, catalog: Catalog, keep_comments: bool = False, mysql_grammar: bool = False) -> None:
        self.catalog = catalog
        # the MySqlConnector's parser (Debezium's MySQL grammar) or the MariaDbConnector's (MariaDB grammar).
        # Their listeners signal the same events (Debezium 3.6: the same signal* calls per statement kind, the
        # same BinlogDatabaseSchema.parseDdl), so the model below is one: recorded with the MySqlConnector,
        # and read off the MariaDB listeners' source where it could not be recorded (docs/differential-mariadb.md)
        self.mysql_grammar = mysql_grammar
        # include.schema.comments: without it Debezium's listeners skip every COMMENT (null in tableChanges)
        self.keep_comments = keep_comments
        self._text = ""

    # -- entry ------------------------------------------------------------------------------------------
    def apply(self, sql: str, database: str | None) -> list[Change]:
        text = sql.strip().rstrip(";").strip()
        if not text:
            return []
        head = text.lstrip("(").split(None, 2)
        word = head[0].upper() if head else ""
        if word in (
            "GRANT",
            "REVOKE",
            "FLUSH",
            "ANALYZE",
            "OPTIMIZE",
            "REPAIR",
            "CHECK",
            "INSTALL",
            "UNINSTALL",
            "SAVEPOINT",
            "RELEASE",
            "XA",
            "BEGIN",
            "COMMIT",
            "ROLLBACK",
            "DO",
            "CALL",
            "LOCK",
            "UNLOCK",
            "KILL",
            "PURGE",
            "RESET",
            "CHANGE",
            "START",
            "STOP",
            "HANDLER",
            "SHOW",
            "DESCRIBE",
            "EXPLAIN",
            "HELP",
        ):
            return []
        second = head[1].upper() if len(head) > 1 else ""
        if word in ("CREATE", "DROP", "ALTER", "RENAME"):
            obj = _object_kind(text)
            # statements recorded as a bare schema change (no table change, source.table ""): events, RENAME
            # USER, CREATE/DROP INDEX, ALTER DATABASE. No listener of either grammar signals them, so
            # BinlogDatabaseSchema.parseDdl emits SchemaChangeEvent.ofDatabase for both connectors
            if (
                obj == "EVENT"
                or (word == "RENAME" and obj == "USER")
                or obj == "INDEX"
                or (word == "ALTER" and obj in ("DATABASE", "SCHEMA"))
            ):
                return [Change("OTHER", database or "", text)]
        if word in ("CREATE", "DROP", "ALTER") and second in (
            "USER",
            "ROLE",
            "SERVER",
            "EVENT",
            "TRIGGER",
            "PROCEDURE",
            "FUNCTION",
            "VIEW",
            "DEFINER",
            "SEQUENCE",
            "TABLESPACE",
            "LOGFILE",
            "ALGORITHM",
            "SQL",
            "AGGREGATE",
            "PACKAGE",
        ):
            return []
        if (
            word == "CREATE"
            and second == "OR"
            and not re.match(r"(?is)\s*CREATE\s+OR\s+REPLACE\s+(TEMPORARY\s+)?TABLE\b", text)
        ):
            return []
        m = re.match(
            r"(?is)\s*ALTER\s+(?:ONLINE\s+|IGNORE\s+)*TABLE\s+(\S+)\s+CONVERT\s+TO\s+(?:CHARACTER\s+SET|CHARSET)"
            r"\s+(\w+)",
            text,
        )
        if m:
            return self._convert_charset(m.group(1), m.group(2).lower(), text, database)
        if word == "RENAME":
            if second not in ("TABLE", "TABLES"):  # RENAME USER ...
                return []
            return self._rename(text, database)
        if word == "USE":
            db = text.split(None, 1)[1].strip().strip("`")
            return [Change("DATABASE", db, text)]
        if word == "SET":
            return [Change("DATABASE", database or "", text)]
        if word in ("INSERT", "UPDATE", "DELETE", "REPLACE", "SELECT"):
            return []
        if word not in ("CREATE", "ALTER", "DROP", "TRUNCATE"):
            # anything else a binlog QUERY event can carry (PREPARE, SIGNAL, a routine body...) leaves the
            # table model alone; Debezium's grammar parses it and its listeners ignore it
            return []
        if word in ("CREATE", "ALTER", "DROP") and not _TABLE_OR_DB.match(text):
            return []  # views, routines, triggers, events, servers, ... whatever the modifiers in front
        self._text = text
        m = _PARTITION_MAINTENANCE.match(text)
        if m:  # partition maintenance: the columns and keys stay; Debezium reports an unchanged ALTER
            tref = sqlglot.parse_one(f"SELECT 1 FROM {m.group(1)}", read="mysql").find(exp.Table)
            return self._touch(tref, text, database) if tref is not None else []
        prepared = _strip_partitioning(_SPATIAL.sub("GEOMETRY", text))
        prepared = _PERSISTENT.sub("STORED", prepared)
        # MariaDB-only clauses that change nothing in the model (or that the model applies by itself)
        prepared = _ALTER_MODIFIERS.sub("ALTER TABLE", prepared)
        prepared = _WAIT.sub("", prepared)
        prepared = _SYSTEM_VERSIONING.sub("", prepared)
        prepared = _MODIFY_IF_EXISTS.sub(r"\1 ", prepared)
        try:
            stmts = sqlglot.parse(prepared, read="mysql")
        except (sqlglot.errors.ParseError, sqlglot.errors.TokenError) as e:
            stmts = self._fallback(prepared)
            if stmts is None:
                raise DdlError(f"cannot parse DDL statement {sql!r}: {str(e).splitlines()[0]}") from None
        out: list[Change] = []
        for st in stmts:
            if st is None:
                continue
            out.extend(self._statement(st, text, database))
        return out

    def _fallback(self, text: str) -> list[exp.Expression] | None:
        """A statement sqlglot rejects as a whole, parsed piece by piece: ALTER TABLE spec by spec, CREATE
        TABLE element by element with its table options reduced to those the model keeps. A piece that
        cannot touch columns or keys (an index, a check, a table option) is dropped when it does not
        parse; one that can leaves the statement unparseable (None)."""
        m = re.match(r"(?is)\s*(ALTER\s+(?:ONLINE\s+|IGNORE\s+)*TABLE\s+" + _NAME + r")\s+(.*)$", text)
        if m:
            head, specs = m.group(1), []
            for spec in _split_top(m.group(2)):
                g = re.match(r"(?is)\s*ADD\s+(?:COLUMN\s+)?\((.*)\)\s*$", spec)
                if g and not re.match(
                    r"(?is)\s*(INDEX|KEY|UNIQUE|PRIMARY|CONSTRAINT|FOREIGN|CHECK)\b", g.group(1)
                ):
                    specs.extend("ADD COLUMN " + c for c in _split_top(g.group(1)))
                else:
                    specs.append(spec)
            actions: list[exp.Expression] = []
            alter = None
            for spec in specs:
                try:
                    one = sqlglot.parse_one(f"{head} {spec}", read="mysql")
                except (sqlglot.errors.ParseError, sqlglot.errors.TokenError):
                    one = None
                if not isinstance(one, exp.Alter):
                    if _COLUMN_SPEC.match(spec) or re.match(r"(?is)\s*(ADD|DROP)\s+PRIMARY\b", spec):
                        return None
                    continue
                alter = alter or one
                actions.extend(one.args.get("actions") or [])
            if alter is None:  # only index/check/option specs, none sqlglot knows: the columns stay
                tref = sqlglot.parse_one(f"SELECT 1 FROM {head.split(None, 2)[-1]}", read="mysql").find(
                    exp.Table
                )
                if tref is None:
                    return None
                return [exp.Alter(this=tref, kind="TABLE", actions=[])]
            alter.set("actions", actions)
            return [alter]
        m = re.match(
            r"(?is)\s*(CREATE\s+(?:OR\s+REPLACE\s+)?(?:TEMPORARY\s+)?TABLE\s+(?:IF\s+NOT\s+EXISTS\s+)?"
            + _NAME
            + r")\s*\((.*)$",
            text,
        )
        if m:
            head, rest = m.group(1), m.group(2)
            close = _top_level_index(rest, re.compile(r"\)"))
            if close < 0:
                return None
            body, options = rest[:close], rest[close + 1 :]
            kept = []
            for opt in re.finditer(
                r"(?i)\b(?:DEFAULT\s+)?(CHARACTER\s+SET|CHARSET|COLLATE)\s*=?\s*(\w+)|\bCOMMENT\s*=?\s*('(?:[^']|'')*')",
                options,
            ):
                kept.append(f"{opt.group(1)} {opt.group(2)}" if opt.group(1) else f"COMMENT {opt.group(3)}")
            elements = []
            for el in _split_top(body):
                try:
                    sqlglot.parse_one(f"{head} ({el})", read="mysql")
                    elements.append(el)
                except (sqlglot.errors.ParseError, sqlglot.errors.TokenError):
                    if not re.match(
                        r"(?is)\s*(INDEX|KEY|UNIQUE|FULLTEXT|SPATIAL|CONSTRAINT|FOREIGN|CHECK|PERIOD)\b", el
                    ):
                        return None
            try:
                return [sqlglot.parse_one(f"{head} ({', '.join(elements)}) {' '.join(kept)}", read="mysql")]
            except (sqlglot.errors.ParseError, sqlglot.errors.TokenError):
                return None
        return None

    def _statement(self, st: exp.Expression, text: str, database: str | None) -> list[Change]:
        if isinstance(st, exp.Create):
            kind = (st.args.get("kind") or "").upper()
            if kind == "TABLE":
                return self._create_table(st, text, database)
            if kind in ("DATABASE", "SCHEMA"):
                return self._create_db(st, text)
            if kind == "INDEX":
                return self._create_index(st, text, database)
            return []
        if isinstance(st, exp.Drop):
            kind = (st.args.get("kind") or "").upper()
            if kind == "TABLE":
                return self._drop_table(st, text, database)
            if kind in ("DATABASE", "SCHEMA"):
                db = st.this.name if st.this is not None else _ident((st.args.get("tables") or [None])[0])
                self.catalog.db_charsets.pop(db, None)
                for key in [k for k in self.catalog.tables if k[0] == db]:
                    del self.catalog.tables[key]
                return [Change("DATABASE", db, text)]
            if kind == "INDEX":
                tbl = st.args.get("cluster") or st.args.get("table")
                if isinstance(tbl, exp.Table):
                    return self._touch(tbl, text, database)
            return []
        if isinstance(st, exp.Alter):
            kind = (st.args.get("kind") or "").upper()
            if kind == "TABLE":
                return self._alter_table(st, text, database)
            if kind in ("DATABASE", "SCHEMA"):
                return [Change("DATABASE", database or "", text)]
            return []
        if isinstance(st, exp.TruncateTable):
            out = []
            for t in st.expressions:
                db, name = self._table_ref(t, database)
                out.append(Change("TRUNCATE", db, text, self.catalog.get(db, name), name))
            return out
        if isinstance(st, exp.Command):
            word = str(st.this).upper()
            if word in ("RENAME",):
                return self._rename(text, database)
            if word in ("CREATE", "ALTER", "DROP") and re.match(
                r"(?is)\s*(CREATE|ALTER|DROP)\s+(TEMPORARY\s+)?"
                r"TABLE\b",
                text,
            ):
                raise DdlError(f"cannot parse DDL statement {text!r}")
            return []
        if isinstance(st, (exp.Set, exp.Use)):
            return [Change("DATABASE", database or "", text)]
        return []

    # -- helpers ---------------------------------------------------------------------------------------
    def _table_ref(self, t: exp.Expression, database: str | None) -> tuple[str, str]:
        if isinstance(t, exp.Schema):
            t = t.this
        db = t.args.get("db")
        name = t.name
        dbname = _ident(db) if db is not None else (database or "")
        return dbname, name

    def _touch(self, tref: exp.Table, text: str, database: str | None) -> list[Change]:
        db, name = self._table_ref(tref, database)
        table = self.catalog.get(db, name)
        if table is None:
            return []
        return [Change("ALTER", db, text, copy.deepcopy(table), name)]

    def _column(self, cd: exp.ColumnDef, position: int, table_charset: str | None) -> tuple[Column, dict]:
        name = _ident(cd.this)
        kind = cd.args.get("kind")
        info = {"pk": False, "unique": False}
        if kind is None:
            raise DdlError(f"column {name} has no type")
        dtype = kind.this.name if hasattr(kind.this, "name") else str(kind.this)
        type_name, jdbc = _TYPES.get(dtype, (dtype, OTHER))
        if dtype == "UUID" and self.mysql_grammar:
            # not a data type of Debezium's MySQL grammar: the MySqlConnector stops on it (recorded, case
            # mysqlconnector_uuid_stops); only the MariaDB grammar has it
            raise DdlError(f"column {name}: type UUID is not in the MySQL grammar of the MySqlConnector")
        if dtype == "GEOMETRY":  # the spatial type as written (sqlglot only knows GEOMETRY)
            m = re.search(
                r"(?i)(?:^|[\s,(])`?" + re.escape(name) + r"`?\s+(POINT|LINESTRING|POLYGON|MULTIPOINT|"
                r"MULTILINESTRING|MULTIPOLYGON|GEOMETRYCOLLECTION|GEOMCOLLECTION|GEOMETRY)\b",
                self._text,
            )
            if m:
                type_name = m.group(1).upper()
        synonym = self._written_type(name)
        if synonym is not None:
            syn_name, syn_jdbc = _SYNONYMS[synonym]
            type_name = syn_name + (" UNSIGNED" if type_name.endswith(" UNSIGNED") else "")
            jdbc = syn_jdbc
        params = kind.expressions or []
        length = scale = None
        enum_values = None
        base = type_name.removesuffix(" UNSIGNED")
        if base in ("ENUM", "SET"):
            members = [_literal_text(p) or "" for p in params]
            enum_values = ["'" + m.replace("'", "''") + "'" for m in members]
            length = 1 if base == "ENUM" else max(0, len(members) * 2 - 1)
        else:
            nums = []
            for p in params:
                v = p.this if isinstance(p, exp.DataTypeParam) else p
                try:
                    nums.append(int(str(v.this if isinstance(v, exp.Literal) else v.name)))
                except (ValueError, AttributeError):
                    pass
            if nums:
                length = nums[0]
                if len(nums) > 1:
                    scale = nums[1]
            elif base == "DECIMAL":
                length, scale = 10, 0
            if base == "FLOAT" and length is not None and scale is None and length > 24:
                type_name, jdbc = "DOUBLE", DOUBLE
        col = Column(
            name=name,
            type_name=type_name,
            jdbc_type=jdbc,
            position=position,
            length=length,
            scale=scale,
            enum_values=enum_values,
        )
        if dtype == "SERIAL":
            col.optional = False
            col.auto_incremented = col.generated = True
            info["unique"] = True
        charset = None
        for c in cd.constraints or []:
            k = c.args.get("kind") if isinstance(c, exp.ColumnConstraint) else c
            if isinstance(k, exp.NotNullColumnConstraint):
                col.optional = bool(k.args.get("allow_null"))
            elif isinstance(k, exp.AutoIncrementColumnConstraint):
                col.auto_incremented = col.generated = True
            elif isinstance(k, exp.PrimaryKeyColumnConstraint):
                info["pk"] = True
                col.optional = False
            elif isinstance(k, exp.UniqueColumnConstraint):
                info["unique"] = True
            elif isinstance(k, exp.DefaultColumnConstraint):
                col.has_default = True
                col.default = _literal_text(k.this)
            elif isinstance(k, exp.CharacterSetColumnConstraint):
                charset = _ident(k.this).lower()
            elif isinstance(k, exp.CollateColumnConstraint):
                if charset is None:
                    charset = _charset_of_collation(_ident(k.this))
            elif isinstance(k, exp.CommentColumnConstraint):
                col.comment = _literal_text(k.this) if self.keep_comments else None
            elif isinstance(k, (exp.ComputedColumnConstraint, exp.GeneratedAsIdentityColumnConstraint)):
                # `generated` stays false on GENERATED ALWAYS AS (recorded with the MySQL grammar; the MariaDB
                # listener sets it only for AUTO_INCREMENT and SERIAL)
                col.generated = False
        if base in CHAR_TYPES and base != "JSON":
            col.charset = charset or table_charset
        if col.default == "CURRENT_TIMESTAMP":
            col.default = "1970-01-01 00:00:00" if base in ("TIMESTAMP", "DATETIME") else None
        elif (
            col.default is not None
            and base in ("TIMESTAMP", "DATETIME", "DATE", "TIME")
            and col.default.upper().startswith(("CURRENT_TIMESTAMP", "NOW(", "LOCALTIME"))
        ):
            col.default = "1970-01-01 00:00:00"
        if info["pk"]:
            col.optional = False
        return col, info

    def _written_type(self, column: str) -> str | None:
        """The type keyword as the statement spells it, when it is a synonym sqlglot normalizes away
        (INTEGER, BOOL, NUMERIC, DEC, FIXED, REAL, DOUBLE PRECISION): Debezium reports the spelling."""
        m = re.search(
            r"(?i)(?:^|[\s,(])`?" + re.escape(column) + r"`?\s+(INTEGER|BOOL|NUMERIC|DEC|FIXED|REAL|"
            r"DOUBLE\s+PRECISION)\b",
            self._text,
        )
        return re.sub(r"\s+", " ", m.group(1).upper()) if m else None

    # -- CREATE ------------------------------------------------------------------------------------------
    def _create_table(self, st: exp.Create, text: str, database: str | None) -> list[Change]:
        target = st.this
        db, name = self._table_ref(target, database)
        props = st.args.get("properties")
        like = None
        charset = None
        comment = None
        for p in props.expressions if props else []:
            if isinstance(p, exp.LikeProperty):
                like = p.this
            elif isinstance(p, exp.CharacterSetProperty):
                charset = _ident(p.this).lower()
            elif isinstance(p, exp.CollateProperty) and charset is None:
                charset = _charset_of_collation(_ident(p.this))
            elif isinstance(p, exp.SchemaCommentProperty) and self.keep_comments:
                comment = _literal_text(p.this)
        if st.args.get("exists") and not st.args.get("replace") and self.catalog.get(db, name) is not None:
            return []
        if like is not None:
            sdb, sname = self._table_ref(like, database)
            src = self.catalog.get(sdb, sname)
            if src is None:
                return []
            table = copy.deepcopy(src)
            table.db, table.name = db, name
            self.catalog.put(table)
            return [Change("CREATE", db, text, copy.deepcopy(table), name)]
        if not isinstance(target, exp.Schema):
            expr = st.args.get("expression")
            if expr is not None:  # CREATE TABLE ... AS SELECT: columns unknown here
                raise DdlError(
                    f"cannot parse DDL statement {text!r}: CREATE TABLE ... SELECT is not supported"
                )
            return []
        table_charset = charset or self.catalog.db_charset(db)
        table = Table(db, name, [], [], table_charset, comment)
        for item in target.expressions:
            self._table_element(table, item, table_charset)
        table.renumber()
        self.catalog.put(table)
        return [Change("CREATE", db, text, copy.deepcopy(table), name)]

    def _table_element(
        self, table: Table, item: exp.Expression, charset: str | None, position: Any = None
    ) -> None:
        if isinstance(item, exp.ColumnDef):
            col, info = self._column(item, len(table.columns) + 1, charset)
            self._place(table, col, position)
            if info["pk"]:
                table.pk = [col.name]
            elif info["unique"]:
                _add_unique(table, [col.name])
            return
        if isinstance(item, exp.PrimaryKey):
            table.pk = [self._key_part(table, e) for e in item.expressions]
            for n in table.pk:
                c = table.column(n)
                if c is not None:
                    c.optional = False
            return
        if isinstance(item, exp.UniqueColumnConstraint):
            sch = item.this
            cols = sch.expressions if isinstance(sch, exp.Schema) else []
            _add_unique(table, [self._key_part(table, e) for e in cols])
            return
        if isinstance(item, exp.Constraint):
            for e in item.expressions:
                self._table_element(table, e, charset)
            return
        if isinstance(item, exp.AddConstraint):
            for e in item.expressions:
                self._table_element(table, e, charset)
            return
        # indexes, foreign keys, checks: nothing the model keeps

    def _key_part(self, table: Table, e: exp.Expression) -> str:
        if isinstance(e, exp.Ordered):
            e = e.this
        if isinstance(e, (exp.Anonymous, exp.Func)) and e.expressions:  # col(10) prefix
            name = _ident(e.this) if not isinstance(e, exp.Anonymous) else str(e.this)
        else:
            name = _ident(e)
        c = table.column(name)
        return c.name if c is not None else name

    def _place(self, table: Table, col: Column, position: Any) -> None:
        if position is None:
            table.columns.append(col)
            return
        where = position.args.get("position")
        if where == "FIRST":
            table.columns.insert(0, col)
        elif where == "AFTER":
            after = _ident(position.this)
            for i, c in enumerate(table.columns):
                if c.name.lower() == after.lower():
                    table.columns.insert(i + 1, col)
                    return
            table.columns.append(col)
        else:
            table.columns.append(col)

    def _create_db(self, st: exp.Create, text: str) -> list[Change]:
        db = _ident(st.this.this) if isinstance(st.this, exp.Table) else _ident(st.this)
        props = st.args.get("properties")
        charset = None
        for p in props.expressions if props else []:
            if isinstance(p, exp.CharacterSetProperty):
                charset = _ident(p.this).lower()
            elif isinstance(p, exp.CollateProperty) and charset is None:
                charset = _charset_of_collation(_ident(p.this))
        if charset is None:
            m = re.search(r"(?i)\bCHARSET\s*=?\s*`?(\w+)|\bCHARACTER\s+SET\s*=?\s*`?(\w+)", text)
            if m:
                charset = (m.group(1) or m.group(2)).lower()
            else:
                m = re.search(r"(?i)\bCOLLATE\s*=?\s*`?(\w+)", text)
                if m:
                    charset = _charset_of_collation(m.group(1))
        self.catalog.db_charsets[db] = charset or self.catalog.server_charset
        return [Change("DATABASE", db, text)]

    def _create_index(self, st: exp.Create, text: str, database: str | None) -> list[Change]:
        idx = st.this
        tbl = idx.args.get("table") if isinstance(idx, exp.Index) else None
        if not isinstance(tbl, exp.Table):
            return []
        db, name = self._table_ref(tbl, database)
        table = self.catalog.get(db, name)
        if table is None:
            return []
        if st.args.get("unique"):
            params = idx.args.get("params")
            cols = [self._key_part(table, c) for c in (params.args.get("columns") or [])] if params else []
            if cols:
                _add_unique(table, cols)
        return [Change("ALTER", db, text, copy.deepcopy(table), name)]

    def _convert_charset(self, name: str, charset: str, text: str, database: str | None) -> list[Change]:
        db, tname = _split_name(name, database)
        table = self.catalog.get(db, tname)
        if table is None:
            return []
        table = copy.deepcopy(table)
        table.charset = charset
        for c in table.columns:
            if c.charset is not None:
                c.charset = charset
        self.catalog.put(table)
        return [Change("ALTER", db, text, copy.deepcopy(table), tname)]

    # -- DROP / RENAME / ALTER ---------------------------------------------------------------------------
    def _drop_table(self, st: exp.Drop, text: str, database: str | None) -> list[Change]:
        m = re.match(r"(?is)\s*(DROP\s+(?:TEMPORARY\s+)?TABLE\s+(?:IF\s+EXISTS\s+)?)", text)
        prefix = re.sub(r"\s+", " ", m.group(1)) if m else "DROP TABLE "
        suffix = " CASCADE" if st.args.get("cascade") else (" RESTRICT" if st.args.get("restrict") else "")
        out = []
        for t in st.args.get("tables") or []:
            db, name = self._table_ref(t, database)
            if self.catalog.remove(db, name) is None and st.args.get("exists"):
                pass
            out.append(Change("DROP", db, f"{prefix}`{db}`.`{name}`{suffix}", None, name))
        return out

    def _rename(self, text: str, database: str | None) -> list[Change]:
        m = re.match(r"(?is)\s*RENAME\s+TABLES?\s+(.*)$", text)
        if not m:
            raise DdlError(f"cannot parse DDL statement {text!r}")
        out = []
        pairs = _split_top(m.group(1))
        for pair in pairs:
            parts = re.split(r"(?i)\s+TO\s+", pair.strip())
            if len(parts) != 2:
                raise DdlError(f"cannot parse DDL statement {text!r}")
            odb, oname = _split_name(parts[0], database)
            ndb, nname = _split_name(parts[1], database)
            table = self.catalog.remove(odb, oname)
            if table is None:
                continue
            table.db, table.name = ndb, nname
            self.catalog.put(table)
            # several pairs: Debezium records one statement per pair
            ddl = text if len(pairs) == 1 else "RENAME TABLE " + pair.strip()
            out.append(Change("ALTER", ndb, ddl, copy.deepcopy(table), nname, (odb, oname)))
        return out

    def _alter_table(self, st: exp.Alter, text: str, database: str | None) -> list[Change]:
        db, name = self._table_ref(st.this, database)
        table = self.catalog.get(db, name)
        if table is None:
            return []
        table = copy.deepcopy(table)
        previous = None
        charset = table.charset
        for action in st.args.get("actions") or []:
            if isinstance(action, exp.ColumnDef):
                if action.args.get("exists") and table.column(_ident(action.this)) is not None:
                    continue  # ADD COLUMN IF NOT EXISTS of a column that exists
                self._table_element(table, action, charset, action.args.get("position"))
            elif isinstance(action, exp.Schema):  # ADD (col1 ..., col2 ...)
                for e in action.expressions:
                    self._table_element(table, e, charset)
            elif isinstance(action, exp.ModifyColumn):
                cd = action.this
                old_name = (
                    _ident(action.args["rename_from"]) if action.args.get("rename_from") else _ident(cd.this)
                )
                old = table.column(old_name)
                new, info = self._column(cd, 0, charset)
                pos = cd.args.get("position") or action.args.get("position")
                if old is not None:
                    idx = table.columns.index(old)
                    if pos is None:
                        table.columns[idx] = new
                    else:
                        table.columns.pop(idx)
                        self._place(table, new, pos)
                    table.pk = [new.name if k.lower() == old.name.lower() else k for k in table.pk]
                    table.unique_keys = [
                        [new.name if k.lower() == old.name.lower() else k for k in uk]
                        for uk in table.unique_keys
                    ]
                else:  # MODIFY/CHANGE [IF EXISTS] of a missing column: MariaDB changed nothing
                    continue
                if info["pk"]:
                    table.pk = [new.name]
                if new.name in table.pk:
                    new.optional = False
            elif isinstance(action, exp.RenameColumn):
                old = table.column(_ident(action.this))
                if old is not None:
                    newname = _ident(action.args["to"])
                    table.pk = [newname if k == old.name else k for k in table.pk]
                    table.unique_keys = [
                        [newname if k == old.name else k for k in uk] for uk in table.unique_keys
                    ]
                    old.name = newname
            elif isinstance(action, exp.Drop):
                kind = (action.args.get("kind") or "").upper()
                for t in action.args.get("tables") or []:
                    if kind in ("COLUMN", ""):
                        c = table.column(_ident(t))
                        if c is not None:
                            table.columns.remove(c)
                            table.pk = [k for k in table.pk if k != c.name]
                            table.unique_keys = [uk for uk in table.unique_keys if c.name not in uk]
                if kind == "PRIMARY KEY" or re.search(r"(?i)DROP\s+PRIMARY\s+KEY", action.sql("mysql")):
                    table.pk = []
            elif isinstance(action, exp.AlterColumn):
                c = table.column(_ident(action.this))
                if c is not None:
                    if action.args.get("drop"):
                        c.has_default, c.default = False, None
                    elif action.args.get("default") is not None:
                        c.has_default = True
                        c.default = _literal_text(action.args["default"])
            elif isinstance(action, exp.AlterRename):
                ndb, nname = self._table_ref(action.this, db)
                previous = (db, name)
                self.catalog.remove(db, name)
                table.db, table.name = ndb, nname
            elif isinstance(action, exp.AddConstraint):
                for e in action.expressions:
                    self._table_element(table, e, charset)
            elif isinstance(action, exp.DropPrimaryKey):
                table.pk = []
            elif isinstance(action, (exp.Command, exp.Var)):
                s = action.sql("mysql") if isinstance(action, exp.Expression) else str(action)
                if re.match(r"(?i)\s*DROP\s+PRIMARY\s+KEY", s):
                    table.pk = []
        # a table option [DEFAULT] CHARSET=x leaves defaultCharsetName as is: recorded with the MySQL grammar;
        # the MariaDB grammar's CreateTableParserListener has no table editor outside CREATE TABLE
        table.renumber()
        self.catalog.put(table)
        return [Change("ALTER", table.db, text, copy.deepcopy(table), table.name, previous)]


_OBJECT = re.compile(
    r"(?is)\s*(?:CREATE|ALTER|DROP|RENAME)\s+(?:OR\s+REPLACE\s+|DEFINER\s*=\s*(?:`[^`]*`|'[^']*'|[^\s@]+)"
    r"(?:@(?:`[^`]*`|'[^']*'|\S+))?\s+|ALGORITHM\s*=\s*\w+\s+|SQL\s+SECURITY\s+\w+\s+|ONLINE\s+|OFFLINE\s+|"
    r"IGNORE\s+|TEMPORARY\s+|UNIQUE\s+|FULLTEXT\s+|SPATIAL\s+|AGGREGATE\s+)*(\w+)"
)


def _object_kind(text: str) -> str:
    """The kind of object a CREATE/ALTER/DROP/RENAME statement names (TABLE, INDEX, EVENT, USER, ...)."""
    m = _OBJECT.match(text)
    return m.group(1).upper() if m else ""


# CREATE/ALTER/DROP statements that may touch the table model (after any modifiers MariaDB allows)
_TABLE_OR_DB = re.compile(
    r"(?is)\s*(?:CREATE|ALTER|DROP)\s+(?:OR\s+REPLACE\s+)?(?:ONLINE\s+|OFFLINE\s+|IGNORE\s+|TEMPORARY\s+)*"
    r"(?:(?:UNIQUE|FULLTEXT|SPATIAL)\s+)?(?:TABLE|DATABASE|SCHEMA|INDEX)\b"
)
_NAME = r"(?:`(?:[^`]|``)+`|[\w$]+)(?:\s*\.\s*(?:`(?:[^`]|``)+`|[\w$]+))?"
_PARTITION_MAINTENANCE = re.compile(
    r"(?is)\s*ALTER\s+(?:ONLINE\s+|IGNORE\s+)*TABLE\s+(" + _NAME + r")\s+(?:(?:WAIT\s+\d+|NOWAIT)\s+)?"
    r"(?:(?:ADD|DROP|REORGANIZE|TRUNCATE|COALESCE|EXCHANGE|ANALYZE|CHECK|OPTIMIZE|REBUILD|REPAIR|DISCARD|"
    r"IMPORT|CONVERT)\s+PARTITION\b|REMOVE\s+PARTITIONING\b|PARTITION\s+BY\b)"
)
_ALTER_MODIFIERS = re.compile(r"(?is)^\s*ALTER\s+(?:(?:ONLINE|IGNORE)\s+)+TABLE\b")
_WAIT = re.compile(r"(?i)\s+(?:WAIT\s+\d+|NOWAIT)\b(?=(?:[^'`\"]|'[^']*'|`[^`]*`|\"[^\"]*\")*$)")
_SYSTEM_VERSIONING = re.compile(r"(?i)\s+WITH(?:OUT)?\s+SYSTEM\s+VERSIONING\b")
_MODIFY_IF_EXISTS = re.compile(r"(?i)\b((?:MODIFY|CHANGE)(?:\s+COLUMN)?)\s+IF\s+EXISTS\s+")
_PERSISTENT = re.compile(r"(?i)(?<=\))\s*\bPERSISTENT\b")
_COLUMN_SPEC = re.compile(
    r"(?is)\s*(?:ADD|DROP|MODIFY|CHANGE|RENAME|ALTER)\b(?!\s+(?:INDEX|KEY|UNIQUE|FULLTEXT|SPATIAL|"
    r"FOREIGN|CONSTRAINT|CHECK|PARTITION|PERIOD|SYSTEM)\b)"
)


def _top_level_index(s: str, pattern: re.Pattern) -> int:
    """Index of the first match of `pattern` outside quotes and parentheses, or -1."""
    depth, q, i = 0, None, 0
    while i < len(s):
        ch = s[i]
        if q:
            if ch == q:
                q = None
        elif ch in "`'\"":
            q = ch
        elif ch == "(":
            depth += 1
        elif ch == ")":
            depth -= 1
        elif depth == 0 and pattern.match(s, i) and (i == 0 or not (s[i - 1].isalnum() or s[i - 1] == "_")):
            return i
        i += 1
    return -1


_PARTITION_BY = re.compile(r"(?i)PARTITION\s+BY\b")


def _strip_partitioning(text: str) -> str:
    """CREATE/ALTER TABLE without its partitioning clause (it comes last and the model ignores it)."""
    i = _top_level_index(text, _PARTITION_BY)
    return text if i < 0 else text[:i].rstrip().rstrip(",")


def _add_unique(table: Table, cols: list[str]) -> None:
    """A UNIQUE key added to a table without a primary key becomes its primary key when all its columns
    are NOT NULL (Debezium's parser does so at that moment; recorded with ALTER TABLE ... ADD UNIQUE KEY)."""
    table.unique_keys.append(cols)
    if not table.pk and cols:
        found = [table.column(n) for n in cols]
        if all(c is not None and not c.optional for c in found):
            table.pk = [c.name for c in found]


def _split_top(s: str) -> list[str]:
    out, depth, cur, q = [], 0, [], None
    for ch in s:
        if q:
            cur.append(ch)
            if ch == q:
                q = None
            continue
        if ch in "`'\"":
            q = ch
        elif ch == "(":
            depth += 1
        elif ch == ")":
            depth -= 1
        elif ch == "," and depth == 0:
            out.append("".join(cur))
            cur = []
            continue
        cur.append(ch)
    out.append("".join(cur))
    return [x for x in out if x.strip()]


def _split_name(s: str, database: str | None) -> tuple[str, str]:
    parts = re.findall(r"`((?:[^`]|``)*)`|([^.\s`]+)", s.strip())
    names = [(a.replace("``", "`") if a else b) for a, b in parts]
    if len(names) >= 2:
        return names[0], names[1]
    return database or "", names[0] if names else s.strip()
