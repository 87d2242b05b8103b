"""The ALTER forms of DDL: ALTER TABLE (columns, keys, charset conversion, renames) and RENAME
TABLE, applied to the catalog.

A mixin of DdlParser (ddl.py)."""

from __future__ import annotations

import copy
import re

from sqlglot import exp

from emulator.connectors.mysql.ddl_model import Change, DdlError, Table
from emulator.connectors.mysql.ddl_text import (
    altered_table_comment,
    split_name,
    split_top,
    table_option_charset,
)
from emulator.connectors.mysql.ddl_types import (
    default_text,
    ident,
)

# ALTER TABLE ... CONVERT TO CHARACTER SET x: somewhere in the statement (a cheap test), and as one spec
CONVERT_TO = re.compile(r"(?is)\bCONVERT\s+TO\s+(?:CHARACTER\s+SET|CHARSET)\b")
_CONVERT_SPEC = re.compile(r"(?is)\s*CONVERT\s+TO\s+(?:CHARACTER\s+SET|CHARSET)\s+(\w+)")
_ALTER_HEAD = re.compile(r"(?is)\s*(ALTER\s+(?:ONLINE\s+|IGNORE\s+)*TABLE\s+(\S+))\s+(.*)$")


class AlterForms:
    """DdlParser's ALTER TABLE and RENAME TABLE."""

    def _convert_charset(self, name: str, charset: str, text: str, database: str | None) -> list[Change]:
        db, tname = split_name(name, database)
        table = self.catalog.get(db, tname)
        if table is None:
            return []
        table = copy.deepcopy(table)
        table.charset, table.value_charset = charset, None
        for c in table.columns:
            if c.charset is not None:
                c.charset, c.value_charset = charset, None
        self.catalog.put(table)
        return [Change("ALTER", db, text, copy.deepcopy(table), tname)]

    def _alter_with_convert(self, text: str, database: str | None) -> list[Change] | None:
        """An ALTER TABLE with a CONVERT TO CHARACTER SET spec among others: the specs in order, the
        conversion where it stands (Debezium's listener sets the table's and every character column's
        charset at that spec), one schema change with the table at the end. None when no spec is one (the
        words in a default or a comment)."""
        m = _ALTER_HEAD.match(text)
        if not m:
            return None
        head, name, body = m.groups()
        specs = split_top(body)
        converts = [_CONVERT_SPEC.match(spec) for spec in specs]
        if not any(converts):
            return None
        db, tname = split_name(name, database)
        if self.catalog.get(db, tname) is None:
            return []
        group: list[str] = []
        for spec, conv in zip(specs, converts):
            if conv is None:
                group.append(spec)
                continue
            if group:
                self.apply(f"{head} {', '.join(group)}", database)  # the catalog follows
                group = []
            self._convert_charset(name, conv.group(1).lower(), text, database)
        if group:
            self.apply(f"{head} {', '.join(group)}", database)
        table = self.catalog.get(db, tname)
        return [Change("ALTER", db, text, copy.deepcopy(table), tname)] if table is not None else []

    def _rename(self, text: str, database: str | None) -> list[Change]:
        m = re.match(r"(?is)\s*RENAME\s+TABLES?\s+(.*)$", text)
        if not m:
            raise DdlError(f"cannot parse DDL statement {text!r}")
        out = []
        pairs = split_top(m.group(1))
        for pair in pairs:
            parts = re.split(r"(?i)\s+TO\s+", pair.strip())
            if len(parts) != 2:
                raise DdlError(f"cannot parse DDL statement {text!r}")
            odb, oname = split_name(parts[0], database)
            ndb, nname = split_name(parts[1], database)
            table = self.catalog.remove(odb, oname)
            # several pairs: Debezium records one statement per pair
            ddl = text if len(pairs) == 1 else "RENAME TABLE " + pair.strip()
            if table is None:
                # a table the model does not know (store.only.captured.tables.ddl leaves the others out): Debezium
                # still signals the rename, a schema change without table changes (recorded: mariadb case
                # store_only_captured_rename_stops); the renamed table stays unknown
                out.append(Change("ALTER", ndb, ddl, None, nname, (odb, oname)))
                continue
            table.db, table.name = ndb, nname
            self.catalog.put(table)
            out.append(Change("ALTER", ndb, ddl, copy.deepcopy(table), nname, (odb, oname)))
        if len(out) > 1:
            # Debezium builds each pair's event after parsing the whole statement (tables().forTable): the
            # table its new name holds at the end, none when a later pair renamed it away (RENAME TABLE b TO
            # tmp, c TO b, tmp TO c: the first event has no table change)
            for ch in out:
                final = self.catalog.get(ch.db, ch.table_name)
                ch.table = copy.deepcopy(final) if final is not None else None
        return out

    def _alter_table(self, st: exp.Alter, text: str, database: str | None) -> list[Change]:
        db, name = self._table_ref(st.this, database)
        table = self.catalog.get(db, name)
        if table is None:
            return []
        table = copy.deepcopy(table)
        charset = table.charset
        # [DEFAULT] CHARSET=x among the specs: the server's new default, for the columns this and later statements
        # add without a charset. Debezium's listener leaves the table's charset (recorded, above), so it decodes
        # their values with the old one (latin1 'ñé' printed as U+FFFD, case alter_table_charset_added_columns):
        # that loses data, so the emulator decodes them with the server's (value_charset; a deliberate difference)
        server = table_option_charset(text) or table.value_charset or charset
        table.value_charset = server if server != charset else None
        self._value_default = table.value_charset
        try:
            previous = self._alter_actions(st, table, charset, db, name)
        finally:
            self._value_default = None
        # a table option [DEFAULT] CHARSET=x leaves defaultCharsetName as is: recorded with the MySQL grammar;
        # the MariaDB grammar's CreateTableParserListener has no table editor outside CREATE TABLE
        if self.keep_comments:  # ALTER TABLE ... COMMENT 'x' (recorded: mariadb case schema_comments)
            comment = altered_table_comment(text)
            if comment is not None:
                table.comment = comment
        table.renumber()
        self.catalog.put(table)
        return [Change("ALTER", table.db, text, copy.deepcopy(table), table.name, previous)]

    def _alter_actions(
        self, st: exp.Alter, table: Table, charset: str | None, db: str, name: str
    ) -> tuple[str, str] | None:
        """The specs of an ALTER TABLE applied to `table` (a copy); -> the old (db, name) of a RENAME TO spec."""
        previous = None
        for action in st.args.get("actions") or []:
            if isinstance(action, exp.ColumnDef):
                if action.args.get("exists") and table.column(ident(action.this)) is not None:
                    continue  # ADD COLUMN IF NOT EXISTS of a column that exists
                self._table_element(table, action, charset, action.args.get("position"))
            elif isinstance(action, exp.Schema):  # ADD (col1 ..., col2 ...)
                for e in action.expressions:
                    self._table_element(table, e, charset)
            elif isinstance(action, exp.ModifyColumn):
                cd = action.this
                old_name = (
                    ident(action.args["rename_from"]) if action.args.get("rename_from") else ident(cd.this)
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
                old = table.column(ident(action.this))
                if old is not None:
                    newname = ident(action.args["to"])
                    table.pk = [newname if k == old.name else k for k in table.pk]
                    table.unique_keys = [
                        [newname if k == old.name else k for k in uk] for uk in table.unique_keys
                    ]
                    old.name = newname
            elif isinstance(action, exp.Drop):
                kind = (action.args.get("kind") or "").upper()
                for t in action.args.get("tables") or []:
                    if kind in ("COLUMN", ""):
                        c = table.column(ident(t))
                        if c is not None:
                            table.columns.remove(c)
                            table.pk = [k for k in table.pk if k != c.name]
                            table.unique_keys = [uk for uk in table.unique_keys if c.name not in uk]
                if kind == "PRIMARY KEY" or re.search(r"(?i)DROP\s+PRIMARY\s+KEY", action.sql("mysql")):
                    table.pk = []
            elif isinstance(action, exp.AlterColumn):
                c = table.column(ident(action.this))
                if c is not None:
                    if action.args.get("drop"):
                        c.has_default, c.default = False, None
                    elif action.args.get("default") is not None:
                        c.has_default = True
                        d = action.args["default"]
                        # Debezium's AlterTableParserListener.extractLiteralValue has no branch for a hex or bit
                        # literal: `sign + null` makes the text "null" (recorded: campaign seed 200002)
                        hexbin = isinstance(d, (exp.HexString, exp.BitString))
                        c.default = "null" if hexbin and self.mysql_grammar else default_text(d, self._source)
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
        return previous
