"""The in-memory table model DDL builds: columns, tables, the catalog of every table and the
change records (`Change`) that DDL statements produce; JSON forms for the schema history."""

from __future__ import annotations

import copy
import re
from dataclasses import dataclass, field
from typing import Any


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
    # the charset the server stores the column in where it differs from `charset` (Debezium's, which every record
    # shows): a column added after ALTER TABLE ... CHARSET=x; its values are decoded with it (deliberate difference)
    value_charset: str | None = None
    comment: str | None = None
    has_default: bool = False
    default: str | None = None  # defaultValueExpression
    enum_values: list[str] | None = None  # members as written, quoted: "'a'"

    @property
    def unsigned(self) -> bool:
        return " UNSIGNED" in self.type_name

    @property
    def base_type(self) -> str:
        # Debezium's modifiers as written: [UNSIGNED [ZEROFILL] | SIGNED] [BINARY]
        t = self.type_name.removesuffix(" BINARY").removesuffix(" ZEROFILL")
        return t.removesuffix(" UNSIGNED").removesuffix(" SIGNED")

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
        if self.value_charset:
            d["valueCharsetName"] = (
                self.value_charset
            )  # ours (history only; a deliberate difference, ddl_alter)
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
            value_charset=d.get("valueCharsetName"),
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
    # the server's default charset where an ALTER TABLE ... [DEFAULT] CHARSET=x changed it and Debezium's model did
    # not (`charset` stays Debezium's); in no record, only in the emulator's history (deliberate difference, ddl_alter)
    value_charset: str | None = None

    @property
    def id(self) -> str:
        return f"{self.db}.{self.name}"

    @property
    def quoted_id(self) -> str:
        return dq_id(self.db, self.name)

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
        if self.value_charset:
            d["valueCharsetName"] = self.value_charset  # ours, as the columns'
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
            d.get("valueCharsetName"),
        )


def _dq(part: str) -> str:
    # TableId.quote: a part starting or ending with `"` is taken for quoted already and left as it is
    if part and (part[0] == '"' or part[-1] == '"'):
        return part
    return '"' + part.replace('"', '""') + '"'


def dq_id(db: str, name: str) -> str:
    """TableId.toDoubleQuotedString, the `id` of a table change (a `"` inside a name doubled: recorded, case
    ansi_quotes_literal_positions's table b"8)."""
    return _dq(db) + "." + _dq(name)


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
