"""A table's per-transaction source template and line formats from one format each, made once per Relation.

Within a transaction a table's source block changes only in its LSN (`%d` twice in `PgoutputStream`'s template);
from one transaction to the next in the commit time (ts_ms, ts_us, ts_ns), the last commit LSN in `sequence`
and txId. Making the template and the line formats around it anew per transaction (the source dict, its JSON,
the marker replaced, each line format cut and joined) cost more than the rows of a transaction of a few rows.
So the source template is made once, with marker values in those five places, and turned into a format one level
up (`%` as `%%`, the markers as `%d` / `%b`): one `%` per transaction gives the transaction's. The line formats are
made once as the text before and after that template: a transaction's is its template joined between them, made on
the transaction's first change that needs it (a transaction of INSERTs makes no UPDATE or DELETE format). With
transaction metadata each change's block goes into its line as one `%` (`tx_block`).
"""

from __future__ import annotations

from emulator.connectors.postgres import pgoutput as po
from emulator.connectors.postgres.captured import CapturedTable
from emulator.pipeline.transactions import TransactionMonitor

# never a real value of the place they mark: a commit time in 2100 (µs), a last commit LSN and a txId beside
# the stream's LSN marker (2**64 - 1)
_TS_US = 4_102_444_800_123_456
_LAST_COMMIT = 18446744073709551613
_XID = 18446744073709551612
MARKS = {"ts_us": _TS_US, "last_commit": _LAST_COMMIT, "xid": _XID}

# the marked places as the source block's JSON prints them, in the block's field order, and their slots: the
# three times as bytes (one number formatted per transaction, `tx_args`)
_PLACES = (
    (b'"ts_ms":%d,' % (_TS_US // 1000), b'"ts_ms":%b,'),
    (b'"sequence":"[\\"%d\\",' % _LAST_COMMIT, b'"sequence":"[%b,'),
    (b'"ts_us":%d,' % _TS_US, b'"ts_us":%b,'),
    (b'"ts_ns":%d,' % (_TS_US * 1000), b'"ts_ns":%b,'),
    (b'"txId":%d,' % _XID, b'"txId":%d,'),
)


def tx_format(marked: bytes) -> bytes | None:
    """`marked`, a format made around the source template with the marks (`%` already escaped for its own
    arguments), one level up: `tx_format(marked) % tx_args(...)` is the format a transaction's values give. None
    when a place is not found exactly once, or not in the block's order (the caller makes it per transaction)."""
    at = []
    for place, _slot in _PLACES:
        if marked.count(place) != 1:
            return None
        at.append(marked.index(place))
    if at != sorted(at):
        return None
    out = marked.replace(b"%", b"%%")
    for place, slot in _PLACES:
        out = out.replace(place, slot)
    return out


def tx_args(ts_us: int, last_commit: int | None, xid: int) -> tuple:
    """The values of `tx_format`'s places for a transaction, in their order: ts_ms and ts_ns are ts_us's digits
    less its last three and followed by three zeros: one number formatted, not three."""
    lc = b"null" if last_commit is None else b'\\"%d\\"' % last_commit
    us = b"%d" % ts_us
    if ts_us < 1000:  # not a date after 1970: the digits would not do
        return b"%d" % (ts_us // 1000), lc, us, b"%d" % (ts_us * 1000), xid
    return us[:-3], lc, us, us + b"000", xid


# a change's transaction block (`tx_block`), the `id` its transaction's xid and the change's LSN
_TX_BLOCK = b'{"id":"%d:%d","total_order":%d,"data_collection_order":%d}'

# stands for the source template in a line format made once (its pieces around it); JSON text never holds a NUL
_SOURCE_MARK = b"\x00source\x00"


class TxFormats:
    """`ct`'s formats made once per Relation: its source template one level up (`src`, `tx_format`), and each line
    format as the (text before, text after) its source template, None without that line path. A transaction's
    line format is then its template between the two (`line_c` ...: one copy, on the transaction's first change that
    needs it), where a `%` one level up scanned the whole line (~4 KB of schema) again per transaction."""

    __slots__ = ("src", "c", "u", "uo", "uf", "d")

    def __init__(self, src: bytes, c: tuple | None, u: tuple | None) -> None:
        self.src = src
        self.c = c
        self.u = u
        self.uo: tuple | None | bool = False  # False: not made yet (old_line_formats, on first need)
        self.uf: tuple | None | bool = False
        self.d: tuple | None | bool = False


def _around(fmt: bytes | None) -> tuple[bytes, bytes] | None:
    """A line format made with `_SOURCE_MARK` as its source template, cut at it: (before, after)."""
    if fmt is None or fmt.count(_SOURCE_MARK) != 1:
        return None
    before, _, after = fmt.partition(_SOURCE_MARK)
    return before, after


def table_formats(ct: CapturedTable, marked_source: bytes, lsn_mark: bytes) -> TxFormats | bool:
    """`ct`'s `TxFormats` from its source block's JSON made with `MARKS` and `lsn_mark` as the LSN (the stream's);
    False where that cannot be done (a name holding a mark)."""
    if marked_source.count(lsn_mark) != 2:
        return False
    tmpl = marked_source.replace(b"%", b"%%").replace(lsn_mark, b"%d")
    src = tx_format(tmpl)
    if src is None:
        return False
    if ct.gate_line is None:  # no INSERT or UPDATE lines (post.processors may read them again; no line path)
        return TxFormats(src, None, None)
    formats = ct.env._after_formats
    vfmt = ct.parse_json.value_format
    c, u = (_around(po.line_format(formats[op][0], vfmt, _SOURCE_MARK)) for op in ("c", "u"))
    return TxFormats(src, c, u) if c is not None and u is not None else TxFormats(src, None, None)


def _joined_old(
    ct: CapturedTable, slot: str, old: bytes, before: bytes | None, after: bytes | None
) -> bytes | None:
    """A transaction's line format with the old row (`po.line_format_old(old, before, after, template)`) around its
    source template `ct.src`. With `TxFormats` the text around the template is cut once per Relation (kept in
    `slot`; False: not made yet) and joined with it, as `line_c`; without them (a name holding a mark) it is made
    around `ct.src` directly."""
    fmts = ct.tx_formats
    if not fmts:
        return po.line_format_old(old, before, after, ct.src)
    around = getattr(fmts, slot)
    if around is False:
        around = _around(po.line_format_old(old, before, after, _SOURCE_MARK))
        setattr(fmts, slot, around)
    return ct.src.join(around) if around is not None else None


def line_c(ct: CapturedTable) -> bytes:
    """The transaction's "c" line format (its source template `ct.src` in `TxFormats.c`), made on its first INSERT."""
    fmt = ct.line_c = ct.src.join(ct.tx_formats.c)
    return fmt


def line_u(ct: CapturedTable) -> bytes:
    """As `line_c`, for UPDATEs without an old row."""
    fmt = ct.line_u = ct.src.join(ct.tx_formats.u)
    return fmt


def line_uo(ct: CapturedTable) -> bytes | None:
    """The transaction's line format of an UPDATE with its old row (REPLICA IDENTITY FULL: both rows' JSON as `%b`),
    None where the JSON path serves; made on the transaction's first such UPDATE (most see none)."""
    fmt = None
    if ct.gate_old is not None and ct.parse_old is not None:  # FULL (only then are old tuples read)
        fmt = _joined_old(ct, "uo", ct.env._old_formats["u"][0], None, None)
    ct.line_uo = fmt
    return fmt


def line_uof(ct: CapturedTable) -> bytes | None:
    """`line_uo` with both rows' fields in place of their `%b` (the JSON reader's value format, as `line_d` puts the
    old row's for FULL): the format `pgmsg` fills from an UPDATE's old and new tuple with the table's C line plan
    (fast_rows.keep_full); made on the transaction's first such UPDATE the handler wrote through the line."""
    vfmt = ct.parse_json.value_format
    fmt = ct.line_uof = _joined_old(ct, "uf", ct.env._old_formats["u"][0], vfmt, vfmt)
    return fmt


def line_d(ct: CapturedTable) -> tuple | None:
    """The transaction's DELETE line as (the old tuple's kind byte, its reader into the line, the format): FULL,
    the old tuple ('O') read as an INSERT's row; DEFAULT / USING INDEX, the old key ('K'), once its reader is made
    (None until the first DELETE made it: the JSON path serves the rest of that transaction). As `line_uo`."""
    ct.line_d = None
    if ct.gate_old is None or ct.gate_line_d is None:
        return None
    if ct.parse_old is not None:  # FULL
        tag, reader, vfmt = 79, ct.parse_line, ct.parse_json.value_format
    else:
        reader = getattr(ct.parse_key, "line", None)
        if reader is None:
            return None
        tag, vfmt = 75, ct.parse_key.value_format
    fmt = _joined_old(ct, "d", ct.env._old_formats["d"][0], vfmt, b"null")
    if fmt is None:
        return None
    ld = ct.line_d = (tag, reader, fmt)
    return ld


def tx_block(tx: TransactionMonitor, xid: int, dc: str, lsn: int) -> bytes:
    """With transaction metadata, the block of a change of `dc` at `lsn` in its line: the orders the table's line
    gate then counts (`TransactionMonitor.count`), as orjson prints `event_block`'s dict; null outside a
    transaction, as `event_block`."""
    if tx.begin_id is None:
        return b"null"
    return _TX_BLOCK % (xid, lsn, tx.total + 1, tx.per_collection.get(dc, 0) + 1)
