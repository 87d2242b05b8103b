"""A table's per-transaction source template and line formats from one format each, made once per Relation.

Within a transaction a table's source block changes only in its LSN (`%d` twice in `PgoutputStream`'s template);
from one transaction to the next in the commit time (ts_ms, ts_us, ts_ns), the last commit LSN in `sequence`
and txId. Making the template and the line formats around it anew per transaction (the source dict, its JSON,
the marker replaced, each line format cut and joined) cost more than the rows of a transaction of a few rows.
So they are made once, with marker values in those five places, and turned into formats one level up (`%` as
`%%`, the markers as `%d` / `%b`): one `%` per format and transaction gives the transaction's.
"""

from __future__ import annotations

from emulator.connectors.postgres import pgoutput as po
from emulator.connectors.postgres.captured import CapturedTable

# never a real value of the place they mark: a commit time in 2100 (µs), a last commit LSN and a txId beside
# the stream's LSN marker (2**64 - 1)
_TS_US = 4_102_444_800_123_456
_LAST_COMMIT = 18446744073709551613
_XID = 18446744073709551612
MARKS = {"ts_us": _TS_US, "last_commit": _LAST_COMMIT, "xid": _XID}

# the marked places as the source block's JSON prints them, in the block's field order, and their slots
_PLACES = (
    (b'"ts_ms":%d,' % (_TS_US // 1000), b'"ts_ms":%d,'),
    (b'"sequence":"[\\"%d\\",' % _LAST_COMMIT, b'"sequence":"[%b,'),
    (b'"ts_us":%d,' % _TS_US, b'"ts_us":%d,'),
    (b'"ts_ns":%d,' % (_TS_US * 1000), b'"ts_ns":%d,'),
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
    """The values of `tx_format`'s places for a transaction, in their order."""
    lc = b"null" if last_commit is None else b'\\"%d\\"' % last_commit
    return ts_us // 1000, lc, ts_us, ts_us * 1000, xid


def table_formats(ct: CapturedTable, marked_source: bytes, lsn_mark: bytes) -> tuple | bool:
    """`ct`'s source template and its "c" and "u" line formats (None without the line path) one level up
    (`tx_format`), from its source block's JSON made with `MARKS` and `lsn_mark` as the LSN (the stream's); False
    where that cannot be done (a name holding a mark)."""
    if marked_source.count(lsn_mark) != 2:
        return False
    tmpl = marked_source.replace(b"%", b"%%").replace(lsn_mark, b"%d")
    src = tx_format(tmpl)
    if src is None:
        return False
    if ct.parse_line is None:
        return src, None, None
    formats = ct.env._after_formats
    vfmt = ct.parse_json.value_format
    lines = [po.line_format(formats[op][0], vfmt, tmpl) for op in ("c", "u")]
    lines = [tx_format(f) if f is not None else None for f in lines]
    return (src, *lines) if None not in lines else (src, None, None)


def old_line_formats(ct: CapturedTable, epoch: int) -> None:
    """The transaction's (`epoch`) line formats of `ct`'s UPDATEs with their old row (REPLICA IDENTITY FULL:
    the rows' JSON as `%b`) and of its DELETEs (FULL: the old tuple, 'O', read as an INSERT's row; DEFAULT /
    USING INDEX: the old key, 'K', once its reader is made) around its source template `ct.src`, None where the
    JSON path serves. Made on the transaction's first such change: most see none."""
    tmpl = ct.src
    ct.line_uo = ct.line_d = None
    ct.line_old_epoch = epoch
    if ct.gate_old is None:
        return
    formats = ct.env._old_formats
    if ct.parse_old is not None:  # FULL (the JSON parser reads old tuples only then)
        ct.line_uo = po.line_format_old(formats["u"][0], None, None, tmpl)
        tag, reader, vfmt = 79, ct.parse_line, ct.parse_json.value_format
    else:
        reader = getattr(ct.parse_key, "line", None)  # None until the first DELETE made it
        if reader is None:
            return
        tag, vfmt = 75, ct.parse_key.value_format
    fmt = po.line_format_old(formats["d"][0], vfmt, b"null", tmpl) if ct.gate_line_d is not None else None
    if fmt is not None:
        ct.line_d = (tag, reader, fmt)
