"""The MySqlConnector's DDL normalizer (Debezium 3.6's `DdlNormalizer`, run by MySqlAntlrDdlParser.parse on every
statement before its MySQL grammar sees it; the MariaDbConnector's parser has none).

Its grammar reads double quotes as identifiers (ANSI_QUOTES), so the normalizer rewrites each double-quoted
string as a single-quoted one: the delimiters replaced and each `'` inside doubled, nothing else touched
(`"d\\"q"` -> `'d\\"q'`, `"x'y"` -> `'x''y'`, `"b""c"` -> `'b""c'`, which to MySQL is another string: Debezium
parses what it made). Comments (not `/*! */`), single-quoted strings and backticked names are kept; in the
text between them twelve window-function names used as a table name, a column name before its type or a label
get backticks. The statement Debezium parses is the text its schema change records carry (recorded: case
ddl_double_quoted_strings; session 22 saw `'d\\"q'` in a `ddl` first).

Debezium skips the quote rewrite when its system variables hold an sql_mode with ANSI_QUOTES (MySqlAntlrDdlParser.
isAnsiQuotesMode): BinlogSnapshotChangeEventSource sets them from the server's sql_mode (`SHOW VARIABLES` on its
connection, i.e. the global value when it connected) as its schema snapshot starts, not for a blocking snapshot
and not on a restart that takes no snapshot (they are not in the schema history). The double-quoted text is then
kept, an identifier to the grammar: the records carry it as written, and where the grammar wants a string there
(`DEFAULT "x"` from a session without ANSI_QUOTES) the statement does not parse (recorded: cases
ansi_quotes_snapshot_mode, ansi_quotes_literal_positions). `ansi_quotes` reads the mode, `for_model` gives the
emulator's parser the same statement with those identifiers backticked.
"""

from __future__ import annotations

import re

from emulator.connectors.mysql.ddl_model import DdlError

_QUOTED = re.compile(
    r"(--[^\n]*|#[^\n]*|/\*(?!!).*?\*/)|('(?:''|[^'\\]|\\.)*')|\"((?:[^\"\\]|\\.|\"\")*)\"|(`(?:``|[^`])*`)",
    re.S,
)
_S = r"[ \t\n\x0b\f\r]"  # Java's \s (ASCII)
_WORDS = "CUME_DIST|DENSE_RANK|FIRST_VALUE|JSON_TABLE|LAG|LAST_VALUE|LEAD|NTH_VALUE|NTILE|PERCENT_RANK|RANK|ROW_NUMBER"
_AFTER = (
    rf"CREATE{_S}+TABLE|ALTER{_S}+TABLE|DROP{_S}+TABLE|FROM|JOIN|LEFT{_S}+JOIN|RIGHT{_S}+JOIN|INNER{_S}+JOIN"
    rf"|OUTER{_S}+JOIN|INTO"
)
_TYPES = (
    "(?:VAR)?CHAR|INT|BIGINT|DECIMAL|NUMERIC|FLOAT|DOUBLE|JSON|TEXT|BLOB|DATE|DATETIME|TIMESTAMP|TIME|YEAR|ENUM|SET"
    "|BINARY|VARBINARY|BIT|BOOL|BOOLEAN"
)
_TABLE_NAME = re.compile(rf"(?i)\b({_AFTER}){_S}+({_WORDS})\b")
_COLUMN_NAME = re.compile(rf"(?i)\b({_WORDS}){_S}+({_TYPES})\b")
_LABEL = re.compile(rf"(?i)\b({_WORDS}){_S}*:")


def _keywords(text: str) -> str:
    if not text:
        return text
    text = _TABLE_NAME.sub(r"\1 `\2`", text)
    text = _COLUMN_NAME.sub(r"`\1` \2", text)
    return _LABEL.sub(r"`\1`:", text)


def normalize(ddl: str, ansi: bool = False) -> str:
    """DdlNormalizer.normalize(ddl, ansi)."""
    if not ddl or ('"' not in ddl and not _has_word(ddl)):
        return ddl  # nothing either step changes (most statements): no rebuilding
    out = []
    last = 0
    for m in _QUOTED.finditer(ddl):
        out.append(_keywords(ddl[last : m.start()]))
        inner = m.group(3)
        out.append(m.group(0) if inner is None or ansi else "'" + inner.replace("'", "''") + "'")
        last = m.end()
    out.append(_keywords(ddl[last:]))
    return "".join(out)


# SqlModes.sqlModeFromString: these modes each imply ANSI_QUOTES
_ANSI_MODES = {"ANSI_QUOTES", "ANSI", "DB2", "MAXDB", "MSSQL", "ORACLE", "POSTGRESQL"}


def ansi_quotes(sql_mode: str | None) -> bool:
    """Whether Debezium's parser reads double quotes as identifiers under this sql_mode."""
    return any(m.strip() in _ANSI_MODES for m in (sql_mode or "").upper().split(","))


def for_model(ddl: str) -> str:
    """A statement normalized in ANSI_QUOTES mode, its double-quoted identifiers backticked for the emulator's own
    parser (whose MySQL dialect reads double quotes as strings)."""
    if '"' not in ddl:
        return ddl
    out = []
    last = 0
    for m in _QUOTED.finditer(ddl):
        out.append(ddl[last : m.start()])
        inner = m.group(3)
        if inner is None:
            out.append(m.group(0))
        else:
            out.append("`" + inner.replace('""', '"').replace("`", "``") + "`")
        last = m.end()
    out.append(ddl[last:])
    return "".join(out)


_ANY_WORD = re.compile(rf"(?i)\b(?:{_WORDS})\b")


def _has_word(ddl: str) -> bool:
    return _ANY_WORD.search(ddl) is not None


# where Debezium's MySQL grammar wants a string and finds a double-quoted identifier in ANSI_QUOTES mode: a DEFAULT,
# a column or table COMMENT (`=` or not), an ENUM/SET member (recorded with skip.unparseable.ddl: case
# ansi_quotes_literal_positions; `CHARACTER SET "utf8mb4"` parses)
_LITERAL_BEFORE = re.compile(r"(?is)(?:\bDEFAULT|\bCOMMENT\s*=?)\s*$|\b(?:ENUM|SET)\s*\([^()]*$")


def ansi_literal_stop(ddl: str) -> None:
    """Raise DdlError where the statement (normalized in ANSI_QUOTES mode) has a double-quoted text in a place the
    grammar takes a string only: Debezium cannot parse it ("DDL statement couldn't be parsed")."""
    for m in _QUOTED.finditer(ddl):
        if m.group(3) is not None and _LITERAL_BEFORE.search(ddl, 0, m.start()):
            raise DdlError(
                f"Debezium's MySQL grammar cannot parse {m.group(0)} where it wants a string: the server's sql_mode "
                "has ANSI_QUOTES (read by the snapshot), so double quotes delimit an identifier"
            )
