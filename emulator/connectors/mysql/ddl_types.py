"""DDL type tables: java.sql.Types codes, sqlglot data types -> Debezium's type names and JDBC
types, and the readers of sqlglot nodes (literals, identifiers, collations) the column parser uses."""

from __future__ import annotations

import re
from typing import Any

from sqlglot import exp

# java.sql.Types
BIT, TINYINT, SMALLINT, INTEGER, BIGINT = -7, -6, 5, 4, -5
FLOAT, REAL, DOUBLE, NUMERIC, DECIMAL = 6, 7, 8, 2, 3
CHAR, VARCHAR, NCHAR, NVARCHAR = 1, 12, -15, -9
DATE, TIME, TIMESTAMP, TIMESTAMP_TZ = 91, 92, 93, 2014
BINARY, VARBINARY, BLOB, OTHER, BOOLEAN = -2, -3, 2004, 1111, 16
# the character types whose values Debezium's column.mask.* replace (MaskStrings.create): CHAR, VARCHAR,
# LONGVARCHAR, CLOB, NCHAR, NVARCHAR, LONGNVARCHAR, NCLOB, DATALINK
TEXT_JDBC_TYPES = frozenset({CHAR, VARCHAR, -1, 2005, NCHAR, NVARCHAR, -16, 2011, 70})


# -- types ---------------------------------------------------------------------------------------------
# sqlglot DataType -> (Debezium type name, JDBC type)
TYPES: dict[str, tuple[str, int]] = {
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
TYPE_SYNONYMS: dict[str, tuple[str, int]] = {
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
SPATIAL_TYPES = re.compile(
    r"\b(POINT|LINESTRING|POLYGON|MULTIPOINT|MULTILINESTRING|MULTIPOLYGON|"
    r"GEOMETRYCOLLECTION)\b(?=\s*(?:NOT\b|NULL\b|DEFAULT\b|COMMENT\b|SRID\b|,|\)|$))",
    re.IGNORECASE,
)


def charset_of_collation(collation: str) -> str:
    c = collation.lower()
    for cs in ("utf8mb4", "utf8mb3", "utf16le", "utf16", "utf32"):
        if c.startswith(cs + "_"):
            return cs
    return c.split("_", 1)[0]


def literal_text(node: exp.Expression | None) -> str | None:
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
    if isinstance(node, exp.Boolean):  # DEFAULT TRUE stays TRUE in defaultValueExpression (recorded)
        return "TRUE" if node.this else "FALSE"
    if isinstance(node, (exp.CurrentTimestamp, exp.CurrentDate, exp.CurrentTime)):
        return "CURRENT_TIMESTAMP"
    if isinstance(node, exp.Paren):
        return literal_text(node.this)
    return node.sql("mysql")


def default_text(node: exp.Expression | None, source: str | None = None) -> str | None:
    """A column's DEFAULT as Debezium's MySQL grammar records it: an expression default in parentheses
    (`DEFAULT (1 + 2)`, `(CONCAT(...))`, even `(5)`) has no value expression (recorded: mariadb case
    expression_defaults; MariaDB's SHOW CREATE TABLE prints a constant one without them). A string literal is
    the text between its quotes as written (`'it''s'` stays it''s, `'it\\'s'` it\\'s, `"x""y"` x""y: recorded,
    mariadb case defaults_literal_forms), read from `source` (the text sqlglot parsed) at the literal's
    offsets; where those do not give it back, sqlglot's unescaped value escaped the SHOW CREATE TABLE way."""
    if isinstance(node, exp.Paren):
        return None
    if isinstance(node, (exp.HexString, exp.BitString)) and source is not None and "start" in node.meta:
        # Debezium's DefaultValueParserListener.unquoteBinary: the token's text without its first two characters
        # and its last, X'01' -> 01 and b'101' -> 101 but 0x0A -> 0 and 0b11 -> 1 (recorded: mariadb case
        # hex_bin_defaults_as_digits)
        raw = source[node.meta["start"] : node.meta["end"] + 1]
        return raw[2:-1] if len(raw) > 2 else raw
    if isinstance(node, exp.Literal) and node.is_string:
        raw = _raw_literal(node, source)
        if raw is not None:
            return raw
        return "".join(_SQL_ESCAPES.get(c, c) for c in str(node.this))
    return literal_text(node)


# the escapes MariaDB's SHOW CREATE TABLE writes in a string literal
_SQL_ESCAPES = {"'": "''", "\\": "\\\\", "\x00": "\\0", "\n": "\\n", "\r": "\\r", "\x1a": "\\Z"}
# MySQL's backslash escapes (\\% and \\_ keep their backslash; any other \\x is x)
_UNESCAPE = {"0": "\x00", "b": "\b", "n": "\n", "r": "\r", "t": "\t", "Z": "\x1a", "%": "\\%", "_": "\\_"}
_ESCAPE_RE = re.compile(r"\\(.)", re.S)


def _raw_literal(node: exp.Literal, source: str | None) -> str | None:
    meta = node.meta
    if source is None or "start" not in meta or "end" not in meta:
        return None
    raw = source[meta["start"] : meta["end"] + 1]
    if len(raw) < 2 or raw[0] not in "'\"" or raw[-1] != raw[0]:
        return None
    inner = raw[1:-1]
    value = _ESCAPE_RE.sub(lambda m: _UNESCAPE.get(m.group(1), m.group(1)), inner.replace(raw[0] * 2, raw[0]))
    return inner if value == str(node.this) else None


def quoted_as_written(node: exp.Expression, source: str | None) -> str:
    """An ENUM/SET member as Debezium's grammar keeps it (`enumValues`): the literal's text with its quotes, as
    written (`'e\\\\f'` keeps both backslashes, `'x''y'` its doubled quote: recorded, campaign seed 190000); where the
    offsets do not give it back, the member escaped the SHOW CREATE TABLE way."""
    if isinstance(node, exp.Literal) and node.is_string and _raw_literal(node, source) is not None:
        return source[node.meta["start"] : node.meta["end"] + 1]  # type: ignore[index]
    value = literal_text(node) or ""
    return "'" + "".join(_SQL_ESCAPES.get(c, c) for c in value) + "'"


def enum_option(written: str) -> str:
    """Debezium 3.6's ENUM/SET option from the member as written (MySqlAntlrDdlParser/MariaDbAntlrDdlParser
    extractEnumAndSetOptions: withoutQuotes, then escapeOption): a comma becomes `\\,`, `\\'` and `''` become `'`,
    any other escape stays as written. The stream's values are these options (binlog index -> option) and the
    schema's `allowed` joins them with commas; the snapshot's values are the server's strings."""
    if len(written) >= 2 and written[0] in "'\"`" and written[-1] == written[0]:
        written = written[1:-1]
    return written.replace(",", "\\,").replace("\\'", "'").replace("''", "'")


def ident(node: Any) -> str:
    if isinstance(node, exp.Identifier):
        return node.this
    if isinstance(node, (exp.Column, exp.Var)):
        return node.name
    if isinstance(node, exp.Expression):
        return node.name
    return str(node)
