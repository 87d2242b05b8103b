"""A captured table as the pgoutput stream sees it: its envelope, the pgoutput tuple -> row mapping, and the
values a column missing from an old-key tuple shows."""

from __future__ import annotations

from typing import Any

import orjson

from emulator.connectors.postgres.pgoutput import UNCHANGED_TOAST as UNCHANGED
from emulator.envelope import TableEnvelope

_FALLBACK = {
    "int8": 0,
    "int16": 0,
    "int32": 0,
    "int64": 0,
    "float": 0.0,
    "double": 0.0,
    "boolean": False,
    "string": "",
    "bytes": "",
}


# the zero value Debezium's converters fall back to, as PostgreSQL text, for types whose fallback is not
# the Connect type's zero (decimals as 0, zoned times at the epoch, hstore "{}", interval "P0Y...")
_ZERO_TEXT = {
    "numeric": "0",
    "money": "$0.00",
    "interval": "00:00:00",
    "timetz": "00:00:00+00",
    "hstore": "",
    "date": "1970-01-01",
    "time": "00:00:00",
    "timestamp": "1970-01-01 00:00:00",
    "point": "(0,0)",
}


def _fallback(col) -> Any:
    """What a column missing from an old-key tuple shows in `before`: NULL when optional, else the
    schema default, else the value Debezium's converter falls back to for NULL."""
    schema = col.schema
    if schema.optional:
        return None
    if schema.default is not None:
        return schema.default
    if schema.type == "array":
        return []
    if col.type_name == "timestamptz":
        # ZonedTimestamp's fallback is formatted without the column's fraction digits, unlike streamed values
        # (recorded: tests/data/pg/cases/fallback_timestamptz_old_key)
        return "1970-01-01T00:00:00Z"
    zero = _ZERO_TEXT.get(col.type_name)
    if zero is not None:
        try:
            return col.convert(zero)
        except Exception:  # noqa: BLE001 - a converter that cannot read the zero: the type's zero
            pass
    if schema.type == "map":
        return {}
    return _FALLBACK.get(schema.type)


class CapturedTable:
    """A table as the stream sees it: its envelope plus how to map pgoutput tuples onto it."""

    __slots__ = (
        "env",
        "keep",
        "relation_names",
        "key_set",
        "fallbacks",
        "data_collection",
        "gate",
        "parse_row",
        "parse_json",
        "gate_json",
        "src",
        "src_epoch",
        "src_first",
        "parse_line",
        "gate_line",
        "line_c",
        "line_u",
        "line_epoch",
        "line_uo",
        "line_uof",
        "line_d",
        "tx_formats",
        "gate_line_d",
        "parse_old",
        "gate_old",
        "parse_key",
        "parse_toast",
        "parse_toast_full",
        "toast_first",
        "toast_line",
    )

    def __init__(self, env: TableEnvelope, keep: list[int] | None) -> None:
        self.env = env
        self.keep = keep
        self.key_set = frozenset(env.key_idx)
        self.fallbacks = [_fallback(c) for c in env.table.columns]
        self.data_collection = env.table.id
        self.gate: Any = None  # the dispatcher's change function for this table, made on first use
        # pgoutput TupleData -> row in one pass (pgoutput.row_parser), made per Relation message
        self.parse_row: Any = None
        # ... straight to the JSON of `after` and the key (pgoutput.row_json_parser) and the dispatcher's
        # change function for that form; None where the row is needed as a dict (data plane, signal table)
        self.parse_json: Any = None
        self.gate_json: Any = None
        # the source block of this table's changes in the current transaction, but for sequence and lsn
        self.src: dict = {}
        self.src_epoch = -1  # the stream's transaction count `src` was made in
        self.src_first = -1  # ... in which its first change was given a source block without the template
        # without transaction metadata: the tuple parsed straight into the record's line
        # (pgoutput.row_json_parser's `line`) with the per-transaction formats of "c" and "u" that hold the
        # source template (`line_epoch`: the transaction they are for; each False until its first use in it,
        # tx_formats.line_c ...), and the dispatcher's change function for such lines
        self.parse_line: Any = None
        self.gate_line: Any = None
        self.line_c: bytes | bool | None = None
        self.line_u: bytes | bool | None = None
        self.line_epoch = -1
        # ... and of the same transaction: an UPDATE with its old row (both rows as `%b`), a DELETE as
        # (the old tuple's kind byte, its reader into the line, the format), None where the JSON path serves;
        # and the dispatcher's change function for DELETE lines (`gate_line` takes the UPDATEs)
        self.line_uo: bytes | bool | None = None
        self.line_uof: bytes | bool | None = None  # ... with both rows' fields in place (tx_formats.line_uof)
        self.line_d: tuple | bool | None = None
        # the source template one level up and the line formats' text around it (tx_formats.TxFormats), made
        # once per Relation; False where they cannot be made
        self.tx_formats: Any = None
        self.gate_line_d: Any = None
        # an UPDATE's old row (REPLICA IDENTITY FULL) as JSON (the JSON parser's `old`), and the dispatcher's
        # change function for UPDATEs with their old row and DELETEs as JSON
        self.parse_old: Any = None
        self.gate_old: Any = None
        # a DELETE's old-key tuple (REPLICA IDENTITY DEFAULT / USING INDEX) as JSON, made on the first such
        # DELETE (`old_key_json_fields`)
        self.parse_key: Any = None
        # UPDATEs the readers above refuse (an unchanged TOAST value; under FULL also a key field printing a
        # default for NULL) read straight to JSON all the same (pgoutput_toast), made on first use: the new
        # tuple alone (no old row: the placeholder) and the old + new tuples of REPLICA IDENTITY FULL
        self.parse_toast: Any = None
        self.parse_toast_full: Any = None
        # the last of these UPDATEs held an unchanged TOAST value: the next one is read by them first (a large
        # value an UPDATE leaves alone mostly stays so; a wrong guess costs one slower read)
        self.toast_first = False
        self.toast_line: Any = None  # parse_toast's reader into the record's line (once parse_toast is made)

    def old_key_json_fields(self, identity: list[bool]) -> tuple[list, list | None]:
        """`env.json_fields()` for an old-key tuple ('K': the replica-identity columns, `identity[j]` for row
        field j, the others NULL), as `old_row` reads it: a field outside the identity is a
        constant, its fallback (`fallbacks`) as `change` prints it (a NULL fallback: the column's default,
        replace.null.with.default) or its mask; in the key (message.key.columns) the fallback or null."""
        value, key = self.env.json_fields()
        fb = self.fallbacks

        def const(j: int, null_json: bytes) -> bytes:
            return orjson.dumps(fb[j]) if fb[j] is not None else null_json

        value = [(n, j, nj, fx if fx is not None or identity[j] else const(j, nj)) for n, j, nj, fx in value]
        if key is not None:
            key = [(n, j, nj, fx if fx is not None or identity[j] else const(j, nj)) for n, j, nj, fx in key]
        return value, key

    def row_toast(self, raw: list, old: dict | None) -> dict:
        """The row of `raw` values holding unchanged TOAST values: the old row's value (REPLICA IDENTITY FULL) where
        it has one, else the placeholder."""
        env = self.env
        vals = []
        for i, (conv, v) in enumerate(zip(env.converters, raw)):
            if v is None:
                vals.append(None)
            elif v is UNCHANGED:
                name = env.names[i]
                if old is not None and old.get(name) is not None and old[name] != env.unavailable[i]:
                    vals.append(old[name])
                else:
                    vals.append(env.unavailable[i])
            else:
                vals.append(conv(v))
        return env.fill_nulls(dict(zip(env.names, vals)))

    def old_row(self, kind: str, raw: list) -> dict:
        """The `before` row of an old tuple (`kind` 'O': the whole row, 'K': the replica identity's columns)."""
        env = self.env
        if kind == "O":
            return env.row(raw) if UNCHANGED not in raw else self.row_toast(raw, None)
        # 'K': only the replica-identity columns are sent; the rest are NULL in the tuple
        vals = []
        for i, (conv, v) in enumerate(zip(env.converters, raw)):
            if v is None or v is UNCHANGED:
                vals.append(self.fallbacks[i])
            else:
                vals.append(conv(v))
        vals += self.fallbacks[len(vals) : len(env.names)]  # a narrower tuple (envelope_rows.row_builder)
        return env.fill_nulls(dict(zip(env.names, vals)))

    def raw(self, values: list) -> list:
        keep = self.keep
        return values if keep is None else [values[i] for i in keep]
