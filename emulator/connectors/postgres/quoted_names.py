"""Names Debezium's snapshot query cannot quote (PostgreSQL).

Debezium 3.6.3 names a table in its snapshot's SELECT with TableId.toDoubleQuotedString, whose quote() leaves a
part that starts or ends with `"` as it is (taken for quoted already) and doubles the `"` of any other: a schema or
table named `s "q"` (or `"x`) is written bare, `SELECT ... FROM s "q"."t"`, and PostgreSQL refuses it ("syntax error
at or near"). The error is retriable: the snapshot is abandoned, nothing of it is committed, and the task restarts
every 10 s, forever by default (recorded: pg case snapshot_quoted_name_stops, campaign seed 44770003). A name with a
`"` inside only (`a"b`) is quoted correctly. The emulator stops before its snapshot's first record, as for the keys
Debezium's chunk query cannot bind (chunk_bind.py): the part of Debezium's failed attempts that precedes the table
is not compared (emulator.testing.lost_batch)."""

from __future__ import annotations

import logging

log = logging.getLogger("emulator.postgres")

# what the emulator's error line says (the differential harness knows the stop by it)
STOP_MARK = "Debezium's snapshot query"


def misquoted(part: str) -> bool:
    """TableId.quote leaves this part unquoted and unescaped."""
    return bool(part) and (part[0] == '"' or part[-1] == '"')


def stop_if_misquoted(table_ids: list[tuple[str, str]]) -> None:
    """(schema, table) of each table the snapshot reads with Debezium's own SELECT (no override): the first one
    Debezium cannot name stops the emulator."""
    for schema, name in table_ids:
        bad = next((p for p in (schema, name) if misquoted(p)), None)
        if bad is not None:
            raise RuntimeError(
                f"{STOP_MARK} over {schema}.{name} fails: TableId.toDoubleQuotedString leaves the name part {bad!r} "
                'unquoted (it starts or ends with a double quote), PostgreSQL answers "ERROR: syntax error at or near" and the snapshot '
                "restarts every 10 s without end; the emulator stops here (nothing written or committed)"
            )


# -- the stream: TableId.parse of the name toDoubleQuotedString wrote ---------------------------------------------
# Debezium's pgoutput decoder hands every INSERT/UPDATE/DELETE/TRUNCATE of a captured table on as the string
# TableId.toDoubleQuotedString() (PgOutputMessageDecoder), which PostgresStreamingChangeEventSource turns back into a
# TableId with TableId.parse (PostgresSchema.parse) before the dispatcher sees it (so whatever
# event.processing.failure.handling.mode says). A part left bare (misquoted above) makes TableIdParser throw
# IllegalArgumentException ("Unexpected input", "Invalid identifier"): not retriable, the connector stops (recorded:
# pg cases stream_quoted_name_stops, truncate_quoted_name_stops; its last poll batch is lost, as on a value: the
# line says "Debezium stops here too" for emulator.testing.lost_batch). The parser's port below decides, character
# for character. A name it reads back as another table (`a''b` -> a'b, `s''q`.t -> s'q.t: every doubled quote
# character collapsed) is dispatched under that id: where no such table exists, PostgresChangeRecordEmitter.newTable
# refreshes it from the database, finds none, warns "cannot load schema for table" and the change is dropped (its
# transaction's BEGIN/END still sent, counting nothing); where the filters leave it out, the dispatcher filters the
# change: both are what a table out of the filters gives here (recorded: pg case misread_name_changes_dropped).
# Where that other table exists and is captured, Debezium would write the change under its schema: not modelled,
# the emulator stops, saying so. (Decided at the Relation message: a table of the read-back name created later is
# not looked for again.)

STREAM_STOP_MARK = "Debezium's TableId.parse"
_QUOTING = "\"'`"
_NOT_JAVA_WS = "\u00a0\u2007\u202f\u0085"  # str.isspace() says yes, Character.isWhitespace no


def _ws(c: str) -> bool:
    return c.isspace() and c not in _NOT_JAVA_WS


def double_quoted(schema: str, table: str) -> str:
    """TableId(null, schema, table).toDoubleQuotedString()."""

    def quote(part: str) -> str:
        if not part:
            return '""'
        if part[0] != '"' and part[-1] != '"':
            return '"' + part.replace('"', '""') + '"'
        return part

    return (quote(schema) + "." if schema else "") + quote(table)


def parse_parts(text: str) -> list[str]:
    """io.debezium.relational.TableIdParser.parse with the default predicates (quoting chars `"`, `'`, backtick; no
    delimiters); ValueError where Debezium throws IllegalArgumentException."""
    parts: list[str] = []
    state, quoting, escaped, start, end = "initial", "", False, 0, 0
    for i, c in enumerate(text):
        new = state
        if state in ("initial", "after"):
            if _ws(c):
                pass
            elif c == ".":
                raise ValueError(f"Unexpected input: {c}")
            elif c in _QUOTING:
                quoting, new = c, "quoted"
            else:
                new = "ident"
        elif state == "ident":
            if _ws(c):
                new = "before"
            elif c == ".":
                new = "after"
            else:
                end = i
        elif state == "before":
            if c == ".":
                new = "after"
            elif not _ws(c):
                raise ValueError(f"Unexpected input: {c}")
        elif c == quoting:  # quoted
            if escaped:
                escaped = False
            elif text[i + 1 : i + 2] == quoting:
                escaped = True
            else:
                end, new = i, "before"
        if new != state:
            if state == "ident":
                parts.append(text[start : end + 1])
            elif state == "quoted":
                parts.append(text[start + 1 : end])
                quoting = ""
            if new in ("ident", "quoted"):
                start = end = i
            state = new
    if state == "ident":
        parts.append(text[start : end + 1])
    if state not in ("before", "ident"):
        raise ValueError(f"Invalid identifier: {text}")
    return [p.replace("''", "'").replace('""', '"').replace("``", "`") for p in parts]


def parses(text: str) -> bool:
    try:
        parse_parts(text)
    except ValueError:
        return False
    return True


def read_back(schema: str, table: str) -> tuple[str, str] | str:
    """The (schema, table) Debezium's stream reads this table's changes as, or the line the emulator stops with where
    TableId.parse throws."""
    text = double_quoted(schema, table)
    try:
        parts = parse_parts(text)
    except ValueError as e:
        return (
            f"{STREAM_STOP_MARK} of {text} fails ({e}): a change of {schema}.{table} stops Debezium's streaming "
            "(IllegalArgumentException, not retriable); the emulator stops here: Debezium stops here too"
        )
    n = len(parts)
    return (parts[-2] if n >= 2 else "public", parts[-1]) if n <= 2 else (parts[1], parts[2])


def stream_stop_line(schema: str, table: str, other_captured: bool = True) -> str | None:
    """The line the emulator stops with at a change of this captured table, or None when Debezium names it right or
    drops its changes (read back as another table that is not captured: `other_captured` False)."""
    got = read_back(schema, table)
    if isinstance(got, str):
        return got
    if got != (schema, table) and other_captured:
        return (
            f"{STREAM_STOP_MARK} of {double_quoted(schema, table)} gives {'.'.join(got)}, another captured table than "
            f"{schema}.{table}: Debezium would write its changes under that table's schema (not modelled); the "
            "emulator stops here"
        )
    return None


_EXISTS = "SELECT 1 FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace WHERE n.nspname = %s AND c.relname = %s"


def unparsable(stream, rel, conn) -> bool:
    """A Relation message (`rel`) of a captured table whose name Debezium does not read back as itself: the stream
    (`stream`, a PgoutputStream) keeps it as a stale relation whose next change stops (its TRUNCATE too:
    `stream._on_truncate`), or as a table out of the filters whose changes are dropped (True either way). `conn`:
    the catalog as of the message."""
    got = read_back(rel.namespace, rel.name)
    if not isinstance(got, str):
        if got == (rel.namespace, rel.name):
            return False
        if not stream.filters.table_included(*got) or conn.execute(_EXISTS, got).fetchone() is None:
            log.warning(
                "cannot load schema for table '%s.%s' (the changes of %s.%s)", *got, rel.namespace, rel.name
            )
            stream.by_oid[rel.oid] = None  # as a table out of the filters: dropped, its BEGIN/END still sent
            return True
    line = stream_stop_line(rel.namespace, rel.name)
    stream.by_oid[rel.oid] = None
    stream.stale[rel.oid] = line
    return True
