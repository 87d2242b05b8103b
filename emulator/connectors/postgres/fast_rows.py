"""The stream's row changes written whole in C (emulator/fastpg_msg.c, `pgmsg`): which changes may be, and the
entries that say so.

Why: after session 21 put a tuple's line in C, a streamed row change still cost ~10k instructions of Python per
message around it (the loop's slice and copy of the message, the dispatch, the handler's bookkeeping and checks).
`pgmsg` takes the CopyData message as psycopg gives it and does all of that for the common case.

How it stays the handler's path (common.md: a fast path must decline whenever state its handler reads is in
play): an entry is put in only by the handler itself, right after it wrote a change of the same relation and
operation through the same C line and gate (`keep`), so every check it made held for that change; the stream
clears the entries at every message it hands to a handler but a row change (BEGIN, COMMIT, Relation, Type,
Truncate, a logical message...) and whenever signals are polled, and `pgmsg` drops a relation's entries at any
change of it that it leaves to the handler. What the handler checks per change and may change between two of
them without such a message is checked by `pgmsg` itself (the tuple kind, the tuple's shape through the C line's
own None) or by the gate (an incremental snapshot window: a gate that does not take the line puts everything
back). A FULL UPDATE's entry (`keep_full`) reads both tuples and leaves a key change to the handler; an INSERT's or
UPDATE's entry into the directory output carries what its line gate does (`_direct`), which `pgmsg` then does
without the gate's and `write_line`'s Python frames. Never used with transaction metadata (the line's block is the
monitor's, made in Python), with `skip_until` (a restart inside a transaction), or where the handlers are wrapped on
the instance (failed_changes: `event.processing.failure.handling.mode` warn|skip)."""

from __future__ import annotations

from collections.abc import Callable
from functools import partial

from emulator import linefill
from emulator.connectors.postgres import pgoutput as po
from emulator.connectors.postgres.tx_formats import line_uof

INSERT, UPDATE, DELETE = 0, 1, 2
_OPS = ("c", "u", "d")
_N = ord("N")
_O = ord("O")  # an UPDATE's old row (REPLICA IDENTITY FULL)
_HANDLERS = ("_on_insert", "_on_update", "_on_delete")


def message_writer(conn) -> Callable[[object], bool] | None:
    """`pgmsg` bound to a new entries dict (`conn.fast_rels`), or None where it may not serve (see the top)."""
    pg = linefill.PG
    conn.fast_rels = None
    if pg is None or "msg" not in pg or conn.tx.enabled or any(n in vars(conn) for n in _HANDLERS):
        return None
    conn.fast_rels = {}
    return partial(pg["msg"], conn.fast_rels, conn)


def keep(conn, msg: bytes, slot: int, reader, fmt: bytes, gate, kind: int = _N) -> None:
    """The handler wrote `msg` (an Insert/Update/Delete of its relation) by `reader(msg, 6, fmt, ...)` into
    `gate`: the relation's next such changes may go through `pgmsg` (until the stream clears the entries).
    `kind`: the tuple kind byte at msg[5] the entry is for."""
    rels = conn.fast_rels
    if rels is None or conn.skip_until is not None:
        return
    if (
        reader.__class__ is not partial
        or reader.func is not linefill.PG["line"]
        or fmt.__class__ is not bytes
    ):
        return
    relid = po.U32(msg, 1)[0]
    ents = rels.get(relid)
    if ents is None:
        ents = rels[relid] = [None, None, None]
    ents[slot] = (
        reader.args[0],
        fmt,
        _direct(gate, _OPS[slot]) if slot != DELETE else gate,
        kind,
        _OPS[slot],
    )


def _direct(gate, op: str):
    """The line gate of the directory output (dispatcher `_LINE_GATE` "line") as what `pgmsg` does in its place
    without a Python call: (the incremental snapshot, the metrics, the counter `op` adds to, the engine, the topic
    file's `write`, the output's `unflushed`, the file): a window open refuses the line as the gate does, else the
    counter, the write, the file marked unflushed, `engine.records` (DirectoryOutput.line_sink). The gate itself
    where its writer is not the output's own `write_line` (a hook) or it is another gate."""
    direct = getattr(gate, "direct", None)
    if direct is None:
        return gate
    inc, metrics, engine, write, topic = direct
    sink = getattr(getattr(write, "__self__", None), "line_sink", None)
    got = sink(write, topic) if sink is not None else None
    if got is None:
        return gate
    return (inc, metrics, "creates" if op == "c" else "updates", engine, *got)


def keep_full(conn, msg: bytes, ct, skip_unchanged: bool) -> None:
    """`keep` for an UPDATE with its old row (REPLICA IDENTITY FULL) the handler read by the JSON readers
    (`parse_old`, then `parse_json` of the new tuple: the same body as the table's C line plan `parse_line`) and
    wrote into `line_uo`: `pgmsg` reads both tuples with the plan into `line_uof`, the same fields. Not where the
    old reader is wrapped (a key field printing its default for NULL: table_parsers.old_parser_for, whose equal key
    JSON is no proof of the same key) nor where skip.messages.without.change compares the two rows."""
    if skip_unchanged or ct.parse_old is not getattr(ct.parse_json, "old", None):
        return
    fmt = ct.line_uof
    if fmt is False:
        fmt = line_uof(ct)
    if fmt is not None:
        keep(conn, msg, UPDATE, ct.parse_line, fmt, ct.gate_line, _O)
