"""A Debezium envelope's value (and directory line) as one bytes `%` format, made once per table and use.

Every record of a table has the same bytes but for a few parts: the ~4 KB schema head and tail of the value
never change, and within the payload `{"before":B,"after":A,"source":S,"transaction":T,"op":O,"ts_ms":..}`
a use fixes some parts for all its records (a snapshot read: `before` and `transaction` null, op "r", the
source block of its marker; a streamed insert: `before` null, its op). So a record is one `%` of a format
built here - one copy of the schema head - instead of a payload dict serialized and joined to the frames.
The formats print what `orjson.dumps` prints for the dict `TableEnvelope.change` builds (a dict's JSON is its
members' JSON joined), so the bytes are `change`'s (tests/test_envelope_json.py, test_snapshot_records.py).

Built here for: `TableEnvelope.change` with a source block given as JSON (every part a slot),
`TableEnvelope.change_json` (streaming "c"/"u": the whole directory line), snapshot reads
(`pipeline/snapshot_records.py`, `TableEnvelope.snapshot_payloads`).
"""

from __future__ import annotations

import orjson

from emulator.connect.json import Framed

OP_JSON = {op: orjson.dumps(op) for op in ("c", "u", "d", "r", "t")}

_KEY_OPEN = b'{"key":'
_VALUE_OPEN = b',"value":'
_NULL_KEY = b"null"
_NO_HEADERS = b"}\n"


def _esc(b: bytes) -> bytes:
    return b.replace(b"%", b"%%")


def _part(json: bytes | None) -> bytes:
    return b"%b" if json is None else _esc(json)


def payload_format(
    *,
    before: bytes | None = None,
    source: bytes | None = None,
    transaction: bytes | None = None,
    op: str | None = None,
) -> bytes:
    """The payload with `before`, `source` and `transaction` fixed as the JSON given (None: a `%b` slot) and
    `op` fixed (None: a `%b` slot for its JSON). The format's arguments, in order: the slots among before,
    after (always a slot), source, transaction, op; then ts_ms, ts_us, ts_ns (`%d`)."""
    return (
        b'{"before":'
        + _part(before)
        + b',"after":%b,"source":'
        + _part(source)
        + b',"transaction":'
        + _part(transaction)
        + b',"op":'
        + (b"%b" if op is None else OP_JSON[op])
        + b',"ts_ms":%d,"ts_us":%d,"ts_ns":%d}'
    )


def value_format(value_frame: Framed, payload: bytes) -> bytes:
    """The whole value (the converter's schema frame around the payload) for a `payload_format`."""
    return _esc(value_frame.head) + payload + _esc(value_frame.tail)


def line_format(
    key_frame: Framed | None, value_frame: Framed, payload: bytes, headers_tail: bytes | None
) -> tuple[bytes, int, int]:
    """The directory line `{"key":K,"value":V,"headers":[..]}\\n` of a record with a key (a `%b` slot for the
    key's payload in front of the payload's own, when `key_frame`) or without (`null`), and the headers'
    JSON tail (`records.headers_json`; None: no headers). -> (format, where the value starts when the key's
    payload is empty, the length of what follows the value): `LineRecord`'s cuts."""
    tail = headers_tail or _NO_HEADERS
    key = _esc(key_frame.head) + b"%b" + _esc(key_frame.tail) if key_frame is not None else _NULL_KEY
    fmt = _KEY_OPEN + key + _VALUE_OPEN + value_format(value_frame, payload) + _esc(tail)
    kframe = len(key_frame.head) + len(key_frame.tail) if key_frame is not None else len(_NULL_KEY)
    return fmt, len(_KEY_OPEN) + kframe + len(_VALUE_OPEN), len(tail)
