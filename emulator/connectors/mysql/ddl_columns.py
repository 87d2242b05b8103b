"""Column definitions and table elements of CREATE/ALTER TABLE: a sqlglot ColumnDef -> `Column`
(Debezium's type name, JDBC type, length, scale, default, charset), keys and column placement.

A mixin of DdlParser (ddl.py)."""

from __future__ import annotations

import re
from typing import Any

from sqlglot import exp

from emulator.connectors.mysql.ddl_model import Column, DdlError, Table
from emulator.connectors.mysql.ddl_text import (
    add_unique,
    comment_as_written,
    written_modifiers,
)
from emulator.connectors.mysql.ddl_types import (
    CHAR_TYPES,
    DOUBLE,
    OTHER,
    TYPE_SYNONYMS,
    TYPES,
    charset_of_collation,
    default_text,
    ident,
    literal_text,
    quoted_as_written,
)


class ColumnDefinitions:
    """DdlParser's column and table-element parsing."""

    def _column(self, cd: exp.ColumnDef, position: int, table_charset: str | None) -> tuple[Column, dict]:
        name = ident(cd.this)
        kind = cd.args.get("kind")
        info = {"pk": False, "unique": False}
        if kind is None:
            raise DdlError(f"column {name} has no type")
        dtype = kind.this.name if hasattr(kind.this, "name") else str(kind.this)
        type_name, jdbc = TYPES.get(dtype, (dtype, OTHER))
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
        modifiers = written_modifiers(self._text, name)
        if ("UNSIGNED" in modifiers or "ZEROFILL" in modifiers) and "U" + dtype in TYPES:
            # FLOAT UNSIGNED (parsed without the word) and ZEROFILL, which implies UNSIGNED
            type_name, jdbc = TYPES["U" + dtype]
        synonym = self._written_type(name)
        if synonym is not None:
            syn_name, syn_jdbc = TYPE_SYNONYMS[synonym]
            type_name = syn_name + (" UNSIGNED" if type_name.endswith(" UNSIGNED") else "")
            jdbc = syn_jdbc
        if "ZEROFILL" in modifiers:  # Debezium's type name: "<type> UNSIGNED ZEROFILL"
            type_name = type_name.removesuffix(" UNSIGNED") + " UNSIGNED ZEROFILL"
        else:  # the last signedness written, spelled out
            sign = [w for w in modifiers if w.endswith("SIGNED")]
            if sign and sign[-1] == "SIGNED":
                type_name = type_name.removesuffix(" UNSIGNED") + " SIGNED"
        if "BINARY" in modifiers:  # CHAR(4) BINARY: "CHAR BINARY"
            type_name += " BINARY"
        params = kind.expressions or []
        length = scale = None
        enum_values = None
        base = type_name.removesuffix(" BINARY").removesuffix(" ZEROFILL").removesuffix(" UNSIGNED")
        base = base.removesuffix(" SIGNED")
        if base in ("ENUM", "SET"):
            enum_values = [quoted_as_written(p, self._source) for p in params]
            length = 1 if base == "ENUM" else max(0, len(enum_values) * 2 - 1)
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
            elif isinstance(k, (exp.AutoIncrementColumnConstraint, exp.OnUpdateColumnConstraint)):
                # both grammars' autoIncrementColumnConstraint: AUTO_INCREMENT | ON UPDATE currentTimestamp
                col.auto_incremented = col.generated = True
            elif isinstance(k, exp.PrimaryKeyColumnConstraint):
                info["pk"] = True
                col.optional = False
            elif isinstance(k, exp.UniqueColumnConstraint):
                info["unique"] = True
            elif isinstance(k, exp.DefaultColumnConstraint):
                if self.mysql_grammar and _bare_function(k.this):
                    # Debezium's MySQL grammar takes DEFAULT NOW()/CURRENT_TIMESTAMP and its synonyms, a literal or
                    # an expression in parentheses (columnAttribute: nowOrSignedLiteral | exprWithParentheses); MariaDB's
                    # SHOW CREATE TABLE prints a function default without them (`DEFAULT concat('x','y')`): the
                    # MySqlConnector stops on it (recorded: case function_default_snapshot_stops)
                    raise DdlError(
                        f"DEFAULT {k.this.sql('mysql')} is not in the MySQL grammar: {self._text!r}"
                    )
                col.has_default = True
                col.default = default_text(k.this, self._source)
            elif isinstance(k, exp.CharacterSetColumnConstraint):
                charset = ident(k.this).lower()
            elif isinstance(k, exp.CollateColumnConstraint):
                if charset is None:
                    charset = charset_of_collation(ident(k.this))
            elif isinstance(k, exp.CommentColumnConstraint):
                col.comment = (
                    comment_as_written(self._text, literal_text(k.this)) if self.keep_comments else None
                )
            elif isinstance(k, (exp.ComputedColumnConstraint, exp.GeneratedAsIdentityColumnConstraint)):
                # `generated` stays false on GENERATED ALWAYS AS (recorded with the MySQL grammar; the MariaDB
                # listener sets it only for AUTO_INCREMENT and SERIAL)
                col.generated = False
        if base in CHAR_TYPES and base != "JSON":
            col.charset = charset or table_charset
            if charset is None and self._value_default not in (None, col.charset):
                col.value_charset = self._value_default
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

    def _table_element(
        self, table: Table, item: exp.Expression, charset: str | None, position: Any = None
    ) -> None:
        if isinstance(item, exp.ColumnDef):
            col, info = self._column(item, len(table.columns) + 1, charset)
            self._place(table, col, position)
            if info["pk"]:
                table.pk = [col.name]
            elif info["unique"]:
                add_unique(table, [col.name])
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
            add_unique(table, [self._key_part(table, e) for e in cols])
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
            name = ident(e.this) if not isinstance(e, exp.Anonymous) else str(e.this)
        else:
            name = ident(e)
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
            after = ident(position.this)
            for i, c in enumerate(table.columns):
                if c.name.lower() == after.lower():
                    table.columns.insert(i + 1, col)
                    return
            table.columns.append(col)
        else:
            table.columns.append(col)


_NOW = (exp.CurrentTimestamp, exp.Localtime, exp.Localtimestamp)


def _bare_function(node: exp.Expression | None) -> bool:
    """A function call not in parentheses other than NOW() and its synonyms."""
    if not isinstance(node, exp.Func) or isinstance(node, _NOW):
        return False
    return not (
        isinstance(node, exp.Anonymous) and node.name.lower() in ("now", "current_timestamp", "localtime")
    )
