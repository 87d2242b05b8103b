"""Statement text classification and rewriting done before (or instead of) sqlglot: the kind of
object a statement names, MariaDB modifiers sqlglot cannot parse, partitioning clauses, top-level
splitting of lists and qualified names."""

from __future__ import annotations

import re

from emulator.connectors.mysql.ddl_model import Table
from emulator.connectors.mysql.ddl_types import charset_of_collation

_OBJECT = re.compile(
    r"(?is)\s*(?:CREATE|ALTER|DROP|RENAME)\s+(?:OR\s+REPLACE\s+|DEFINER\s*=\s*(?:`[^`]*`|'[^']*'|[^\s@]+)"
    r"(?:@(?:`[^`]*`|'[^']*'|\S+))?\s+|ALGORITHM\s*=\s*\w+\s+|SQL\s+SECURITY\s+\w+\s+|ONLINE\s+|OFFLINE\s+|"
    r"IGNORE\s+|TEMPORARY\s+|UNIQUE\s+|FULLTEXT\s+|SPATIAL\s+|AGGREGATE\s+)*(\w+)"
)


def object_kind(text: str) -> str:
    """The kind of object a CREATE/ALTER/DROP/RENAME statement names (TABLE, INDEX, EVENT, USER, ...)."""
    m = _OBJECT.match(text)
    return m.group(1).upper() if m else ""


# CREATE/ALTER/DROP statements that may touch the table model (after any modifiers MariaDB allows)
TABLE_OR_DB = re.compile(
    r"(?is)\s*(?:CREATE|ALTER|DROP)\s+(?:OR\s+REPLACE\s+)?(?:ONLINE\s+|OFFLINE\s+|IGNORE\s+|TEMPORARY\s+)*"
    r"(?:(?:UNIQUE|FULLTEXT|SPATIAL)\s+)?(?:TABLE|DATABASE|SCHEMA|INDEX)\b"
)
NAME_RE = r"(?:`(?:[^`]|``)+`|[\w$]+)(?:\s*\.\s*(?:`(?:[^`]|``)+`|[\w$]+))?"
PARTITION_MAINTENANCE = re.compile(
    r"(?is)\s*ALTER\s+(?:ONLINE\s+|IGNORE\s+)*TABLE\s+(" + NAME_RE + r")\s+(?:(?:WAIT\s+\d+|NOWAIT)\s+)?"
    r"(?:(?:ADD|DROP|REORGANIZE|TRUNCATE|COALESCE|EXCHANGE|ANALYZE|CHECK|OPTIMIZE|REBUILD|REPAIR|DISCARD|"
    r"IMPORT|CONVERT)\s+PARTITION\b|REMOVE\s+PARTITIONING\b|PARTITION\s+BY\b|(?:DISABLE|ENABLE)\s+KEYS\s*$)"
)  # (and mysqldump's `ALTER TABLE t DISABLE KEYS`: an unchanged ALTER too, case dml_forms_executable_comments)
ALTER_MODIFIERS = re.compile(r"(?is)^\s*ALTER\s+(?:(?:ONLINE|IGNORE)\s+)+TABLE\b")
WAIT_RE = re.compile(r"(?i)\s+(?:WAIT\s+\d+|NOWAIT)\b(?=(?:[^'`\"]|'[^']*'|`[^`]*`|\"[^\"]*\")*$)")
# MariaDB's system-versioned tables: WITH/WITHOUT/ADD/DROP SYSTEM VERSIONING, PERIOD FOR SYSTEM_TIME, AS ROW START/END
SYSTEM_VERSIONED = re.compile(
    r"(?i)\bSYSTEM\s+VERSIONING\b|\bPERIOD\s+FOR\s+SYSTEM_TIME\b|\bAS\s+ROW\s+(?:START|END)\b"
)
MODIFY_IF_EXISTS = re.compile(r"(?i)\b((?:MODIFY|CHANGE)(?:\s+COLUMN)?)\s+IF\s+EXISTS\s+")
PERSISTENT = re.compile(r"(?i)(?<=\))\s*\bPERSISTENT\b")
# sqlglot has no unsigned FLOAT ("Cannot convert FLOAT to unsigned"): parsed without the word, which the
# column's type name gets back from the statement text (FLOAT_UNSIGNED_OF)
FLOAT_UNSIGNED = re.compile(
    r"(?i)\b(FLOAT|REAL)(\s*\(\s*\d+\s*(?:,\s*\d+\s*)?\))?\s+UNSIGNED\b"
    r"(?=(?:[^'`\"]|'[^']*'|`[^`]*`|\"[^\"]*\")*$)"  # outside quotes and identifiers
)


def written_modifiers(text: str, column: str) -> list[str]:
    """The SIGNED / UNSIGNED / ZEROFILL / BINARY words written after `column`'s type in the statement, in
    order (sqlglot drops ZEROFILL, SIGNED and BINARY, and cannot parse FLOAT UNSIGNED)."""
    m = re.search(
        r"(?i)(?:^|[\s,(])`?" + re.escape(column) + r"`?\s+\w+(?:\s+PRECISION)?(?:\s*\([^)]*\))?"
        r"((?:\s+(?:UNSIGNED|SIGNED|ZEROFILL|BINARY)\b)+)",
        text,
    )
    return m.group(1).upper().split() if m else []


COLUMN_SPEC = re.compile(
    r"(?is)\s*(?:ADD|DROP|MODIFY|CHANGE|RENAME|ALTER)\b(?!\s+(?:INDEX|KEY|UNIQUE|FULLTEXT|SPATIAL|"
    r"FOREIGN|CONSTRAINT|CHECK|PARTITION|PERIOD|SYSTEM)\b)"
)


def top_level_index(s: str, pattern: re.Pattern) -> int:
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


def strip_partitioning(text: str) -> str:
    """CREATE/ALTER TABLE without its partitioning clause (it comes last and the model ignores it)."""
    i = top_level_index(text, _PARTITION_BY)
    return text if i < 0 else text[:i].rstrip().rstrip(",")


def add_unique(table: Table, cols: list[str]) -> None:
    """A UNIQUE key added to a table without a primary key becomes its primary key when all its columns
    are NOT NULL (Debezium's parser does so at that moment; recorded with ALTER TABLE ... ADD UNIQUE KEY)."""
    table.unique_keys.append(cols)
    if not table.pk and cols:
        found = [table.column(n) for n in cols]
        if all(c is not None and not c.optional for c in found):
            table.pk = [c.name for c in found]


def split_top(s: str) -> list[str]:
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


def split_name(s: str, database: str | None) -> tuple[str, str]:
    parts = re.findall(r"`((?:[^`]|``)*)`|([^.\s`]+)", s.strip())
    names = [(a.replace("``", "`") if a else b) for a, b in parts]
    if len(names) >= 2:
        return names[0], names[1]
    return database or "", names[0] if names else s.strip()


# a MySQL string literal as written: quotes doubled or backslash-escaped inside
_LITERAL = r"'(?:[^'\\]|\\.|'')*'|\"(?:[^\"\\]|\\.|\"\")*\""
_COMMENT = re.compile(r"(?is)\bCOMMENT\s*=?\s*(" + _LITERAL + ")")
_ALTER_HEAD = re.compile(r"(?is)^\s*ALTER\s+(?:(?:ONLINE|IGNORE)\s+)*TABLE\s+" + NAME_RE + r"\s*")
_COMMENT_OPTION = re.compile(r"(?is)^\s*COMMENT\s*=?\s*(" + _LITERAL + r")\s*$")


def comment_as_written(text: str, value: str | None) -> str | None:
    """A COMMENT as Debezium keeps it: the literal's text between its quotes, escapes as written (its
    withoutQuotes; recorded: `'it''s'` stays `it''s`, mariadb case schema_comments). sqlglot hands the value
    with the quote's escapes undone: the statement's first COMMENT literal that undoes to it is the one."""
    if value is None:
        return None
    for m in _COMMENT.finditer(text):
        lit = m.group(1)
        q, body = lit[0], lit[1:-1]
        if body.replace(q + q, q).replace("\\" + q, q) == value:
            return body
    return value


def altered_table_comment(text: str) -> str | None:
    """The table option COMMENT [=] '...' of an ALTER TABLE statement, as written (sqlglot drops it), or None."""
    pieces = split_top(_ALTER_HEAD.sub("", text, count=1))
    for piece in pieces:
        m = _COMMENT_OPTION.match(piece)
        if m:
            return m.group(1)[1:-1]
    return None


# a spec of table options (ENGINE=..., [DEFAULT] CHARSET=..., ...) and the charset or collation one of them names
_TABLE_OPTIONS = re.compile(
    r"(?is)^\s*(?:DEFAULT\s+)?(?:CHARACTER\s+SET|CHARSET|COLLATE|ENGINE|ROW_FORMAT|AUTO_INCREMENT)\b"
)
_OPTION_CHARSET = re.compile(r"(?is)\b(?:CHARACTER\s+SET|CHARSET)\s*=?\s*`?(\w+)|\bCOLLATE\s*=?\s*`?(\w+)")


def table_option_charset(text: str) -> str | None:
    """The charset an ALTER TABLE's table options set ([DEFAULT] CHARACTER SET / CHARSET / COLLATE; sqlglot drops
    them), lower case, or None. CONVERT TO and column attributes are not table options."""
    for piece in split_top(_ALTER_HEAD.sub("", text, count=1)):
        if _TABLE_OPTIONS.match(piece) and not re.match(r"(?is)\s*CONVERT\b", piece):
            m = _OPTION_CHARSET.search(piece)
            if m:
                return (m.group(1) or charset_of_collation(m.group(2))).lower()
    return None


# a quoted string or identifier (skipped), or the start of a block comment
_QUOTE_OR_COMMENT = re.compile(r"'(?:[^'\\]|\\.)*'|\"(?:[^\"\\]|\\.)*\"|`[^`]*`|/\*(!?)(\d*)", re.S)
# MySqlLexerBase.serverVersion: a `/*!NNNNN` comment's inside is code when NNNNN (5 digits or more) is at most this
_GRAMMAR_VERSION = 80200


def executable_comments(text: str) -> tuple[str, str]:
    """A statement's block comments, `/*!NNNNN ... */` executable ones (mysqldump writes them) above all -> (the text
    Debezium's records show, the text the emulator parses).

    Debezium's MySQL lexer (MySqlLexer.g4, MySqlLexerBase) hides `/* ... */` and the `/*!NNNNN` / `*/` markers, and
    reads the inside of `/*!` as code when there is no number or a number of 5 digits or more up to 80200; otherwise
    the whole comment is hidden. A statement's `ddl` runs from its first code character to its last, so a leading
    marker, a trailing `*/` or a trailing comment are not shown, inner ones are (recorded: mariadb cases
    dml_forms_executable_comments, executable_comment_versions).

    The emulator parses the inside of every `/*!` comment still in the binlog: MariaDB writes the ones it did not run
    as plain `/* NNNNN ... */` (recorded), so what is left ran on the server. Debezium hides a MariaDB-style
    `/*!100100 DEFAULT CHARSET=latin1 */` the server ran, and then decodes that table's text with the wrong
    character set (data lost: a deliberate difference, case executable_comment_versions). Text in quotes is
    left alone."""
    if "/*" not in text:
        return text, text
    shown_code: list[tuple[int, int]] = []  # the parts of `text` Debezium's lexer reads as code
    parsed: list[str] = []
    at = 0
    for m in _QUOTE_OR_COMMENT.finditer(text):
        if m.start() < at or not m.group(0).startswith("/*"):
            continue
        end = text.find("*/", m.end())
        if end < 0:
            break
        shown_code.append((at, m.start()))
        parsed.append(text[at : m.start()])
        if m.group(1):  # /*!
            digits = m.group(2)
            if not digits or (len(digits) >= 5 and int(digits) <= _GRAMMAR_VERSION):
                shown_code.append((m.end(), end))
            parsed += [" ", text[m.end() : end], " "]
        else:  # a plain comment: no code for either
            parsed.append(" ")
        at = end + 2
    shown_code.append((at, len(text)))
    parsed.append(text[at:])
    code = [
        (a + len(text[a:b]) - len(text[a:b].lstrip()), b - len(text[a:b]) + len(text[a:b].rstrip()))
        for a, b in shown_code
        if text[a:b].strip()
    ]
    shown = text[code[0][0] : code[-1][1]] if code else ""
    return shown, "".join(parsed).strip()


# ALTER {DATABASE|SCHEMA} [name] options: the name, when there is one, and the options' text
_ALTER_DB = re.compile(r"(?is)^\s*ALTER\s+(?:DATABASE|SCHEMA)\s+(?:(`(?:[^`]|``)+`|[\w$]+)\s*)?(.*)$")
_DB_OPTION = re.compile(r"(?i)^(?:DEFAULT|CHARACTER|CHARSET|COLLATE|COMMENT|ENCRYPTION|READ)\b")
_DB_CHARSET = re.compile(r"""(?i)\b(?:CHARACTER\s+SET|CHARSET)\s*(?:=\s*)?(`[^`]+`|'[^']*'|"[^"]*"|\w+)""")


def alter_database(text: str) -> tuple[str | None, str | None] | None:
    """(database named or None, the CHARACTER SET option's charset or None) of an ALTER DATABASE statement; None for
    other statements. A COLLATE option alone names no charset: Debezium's CreateAndAlterDatabaseParserListener keeps a
    database's charset only from a charset option (recorded, case alter_database_charset)."""
    m = _ALTER_DB.match(text)
    if not m:
        return None
    name, rest = m.group(1), m.group(2)
    if name is not None and not name.startswith("`") and _DB_OPTION.match(name):
        name, rest = None, text[m.start(1) :]  # no name: the first word is an option's
    if name is not None and name.startswith("`"):
        name = name[1:-1].replace("``", "`")
    cs = _DB_CHARSET.search(rest)
    return name, (cs.group(1).strip("`'\"") if cs else None)
