"""The MySqlConnector's DDL normalizer (Debezium 3.6's `DdlNormalizer`, run by MySqlAntlrDdlParser.parse on every
statement before its MySQL grammar sees it; the MariaDbConnector's parser has none).

Its grammar reads double quotes as identifiers (ANSI_QUOTES), so the normalizer rewrites each double-quoted
string as a single-quoted one: the delimiters replaced and each `'` inside doubled, nothing else touched
(`"d\\"q"` -> `'d\\"q'`, `"x'y"` -> `'x''y'`, `"b""c"` -> `'b""c'`, which to MySQL is another string: Debezium
parses what it made). Comments (not `/*! */`), single-quoted strings and backticked names are kept; in the
text between them twelve window-function names used as a table name, a column name before its type or a label
get backticks. The statement Debezium parses is the text its schema change records carry (recorded: case
ddl_double_quoted_strings; session 22 saw `'d\\"q'` in a `ddl` first).

Debezium skips the quote rewrite when its system variables hold an sql_mode with ANSI_QUOTES; those come from
SET statements in the DDL it reads, which a binlog does not carry (a session's SET is not logged), so the
rewrite always runs here.
"""

from __future__ import annotations

import re

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


def normalize(ddl: str) -> str:
    """DdlNormalizer.normalize(ddl, false)."""
    if not ddl or ('"' not in ddl and not _has_word(ddl)):
        return ddl  # nothing either step changes (most statements): no rebuilding
    out = []
    last = 0
    for m in _QUOTED.finditer(ddl):
        out.append(_keywords(ddl[last : m.start()]))
        inner = m.group(3)
        out.append(m.group(0) if inner is None else "'" + inner.replace("'", "''") + "'")
        last = m.end()
    out.append(_keywords(ddl[last:]))
    return "".join(out)


_ANY_WORD = re.compile(rf"(?i)\b(?:{_WORDS})\b")


def _has_word(ddl: str) -> bool:
    return _ANY_WORD.search(ddl) is not None
