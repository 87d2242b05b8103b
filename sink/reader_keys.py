"""Per record, what the winners stage groups and orders by, computed by the readers (per Arrow batch: pyarrow's
`find_substring` for where things are, numpy over the payloads' bytes for what is there; no Python per record).

The winners stage used to `from_json` every payload in the JVM before the winners were known (op, `source`
position fields, `after` as text), then group by `to_json(from_json(key))`. The readers now give, per record:
`op`; the source position as longs `o0..o3` in `sink.position_expr`'s parts (PostgreSQL: last commit LSN,
LSN, phase; MySQL/MariaDB: binlog file number, pos, phase, row; MongoDB: ts_ms, ord, phase), null when the event
cannot win (not a change, an update without its image); the event's `ts` (lag); `rok` when all of that was
read; and `kc`, the canonical key (`to_json` of the key with sorted fields), null where the reader is not sure
that the key text is already in that form (the JVM computes it then); `a0`/`a1`, the byte range of a
relational `after` object in the payload (`sliceable` schemas; null where `after` is null), so that the JVM
parses only that.

Only the payload's envelope tail is read: `"source":{...}` (a flat object: no `{`/`}` inside, else not `rok`),
an optional `"transaction"`, then `"op"` and `ts_ms`. A quote inside a JSON string is escaped, so these
patterns cannot match inside a value; a row column named `source` (a struct) or `after` could, so records of
such value schemas are not `rok`. Whether `after` is null is read from the bytes just before `"source"` (a
relational envelope prints before, after, source in that order), for MongoDB from the whole payload.

With the optional C scanner (`sink/fastscan.c` `keys`) each payload is read once by the same rules instead of
~40 kernel passes per batch (`tests/test_sink_fastscan.py` compares both); `DBZ_SINK_PURE_PYTHON=1` or a build
without it takes the kernels.
"""

from __future__ import annotations

import re

import numpy as np
import orjson
import pyarrow as pa
import pyarrow.compute as pc

from sink.lines import PURE, fastscan

COLUMNS = [
    ("op", pa.string()),
    ("o0", pa.int64()),
    ("o1", pa.int64()),
    ("o2", pa.int64()),
    ("o3", pa.int64()),
    ("ts", pa.int64()),
    ("kc", pa.string()),
    ("a0", pa.int64()),
    ("a1", pa.int64()),
    ("rok", pa.bool_()),
]
SCHEMA = ", ".join(
    f"{n} {'string' if t == pa.string() else 'boolean' if t == pa.bool_() else 'long'}" for n, t in COLUMNS
)
CHANGE_OPS = ("c", "u", "d", "r")

# a key field's value as Spark's to_json prints it again unchanged (only \" and \\ escapes)
_KEY_VALUE = {
    "int8": r"-?(?:0|[1-9]\d*)",
    "int16": r"-?(?:0|[1-9]\d*)",
    "int32": r"-?(?:0|[1-9]\d*)",
    "int64": r"-?(?:0|[1-9]\d*)",
    "boolean": r"true|false",
    "string": r'"(?:[^"\\\x00-\x1f]|\\["\\])*"',
}


def eligible(vschema: str | None) -> bool:
    """Records of this value schema can be read here: no row column named `source` or `after` (the
    envelope's own are the only ones)."""
    return (
        vschema is not None
        and vschema.count('"field":"source"') == 1
        and vschema.count('"field":"after"') == 1
    )


def sliceable(vschema: str | None) -> bool:
    """The readers give the byte range of `after`'s object (`a0`, `a1`) in payloads of this value schema: a
    relational envelope (`eligible`) with no map column (a map's keys are data: one named `after` would
    match first)."""
    return eligible(vschema) and '"type":"map"' not in vschema and '"field":"before"' in vschema


def key_pattern(kschema: str | None) -> str | None:
    """A regex the key payload text matches only when it is already its canonical form (fields in name order,
    as `to_json` prints them), or None (the JVM computes the canonical key)."""
    if kschema is None:
        return None
    fields = orjson.loads(kschema).get("fields") or []
    names = [f.get("field") for f in fields]
    if not fields or names != sorted(names) or len(set(names)) != len(names):
        return None
    parts = []
    for f in fields:
        v = _KEY_VALUE.get(f.get("type"))
        if v is None or not re.fullmatch(r"\w+", f["field"]):
            return None
        parts.append(f'"{f["field"]}":(?:{v}|null)')
    return r"^\{" + ",".join(parts) + r"\}$"


def _mask(a) -> np.ndarray:
    """A boolean array as numpy, null = False."""
    return a.fill_null(False).to_numpy(zero_copy_only=False)


class _Bytes:
    """The payloads' bytes (one string array's data buffer), read at per-row absolute positions."""

    def __init__(self, vp: pa.StringArray) -> None:
        n = len(vp)
        self.n = n
        self.offs = np.frombuffer(vp.buffers()[1], np.int32, n + 1, vp.offset * 4).astype(np.int64)
        self.pa_buf = vp.buffers()[2] or pa.py_buffer(b" ")
        self.buf = np.frombuffer(self.pa_buf, np.uint8)
        self.top = len(self.buf) - 1

    def at(self, pos: np.ndarray, k: int) -> np.ndarray:
        """The k bytes from each position, as a (k, n) array (clipped to the buffer: callers check lengths)."""
        p = np.clip(pos, 0, self.top)
        return np.stack([self.buf[np.minimum(p + j, self.top)] for j in range(k)])

    def find(self, lo: np.ndarray, hi: np.ndarray, valid: np.ndarray, pattern: bytes) -> np.ndarray:
        """Per valid row, the offset from lo of the first `pattern` wholly in [lo, hi), else -1 (lo and hi in
        the row's own bytes). One `find_substring` over a binary array whose values start at each lo and run
        on to the next row's (a match past hi does not count): no copy of the bytes and no UTF-8 check."""
        s, e = self.offs[:-1], self.offs[1:]
        at = np.minimum(np.maximum(lo, s), e)  # non-decreasing: a row's values end where the next begins
        offs = np.empty(self.n + 1, np.int32)
        offs[:-1] = at
        offs[-1] = self.offs[-1]
        arr = pa.Array.from_buffers(pa.binary(), self.n, [None, pa.py_buffer(offs), self.pa_buf])
        r = pc.find_substring(arr, pattern).to_numpy(zero_copy_only=False).astype(np.int64)
        hit = valid & (r >= 0) & (at + r + len(pattern) <= hi)
        return np.where(hit, at + r - lo, -1)

    def key_in(self, src: np.ndarray, lo: np.ndarray, hi: np.ndarray, pattern: str) -> np.ndarray:
        """`find(lo, hi, src, pattern)` for a key of the flat source object [lo, hi) of the rows in `src`:
        found in one row, the key is tried at the same distance from lo, then from hi, on every row at once
        (`has`: a few byte comparisons per row instead of a scan of each object); the rows no guess fits are
        searched. A key occurs once in the object and never inside a value (a quote in a JSON string is
        escaped, so `"name":` inside one would end a string followed by `:`, a key), so a fitting guess is
        the first occurrence."""
        pat = pattern.encode()
        k = len(pat)
        out = np.full(self.n, -1, np.int64)
        todo = src.copy()
        tried = 0
        while todo.any() and tried < 4:
            i = int(np.argmax(todo))
            p = bytes(self.buf[lo[i] : hi[i]]).find(pat)
            if p < 0:  # not in this row: left to the search
                break
            tried += 1
            for guess in (lo + p, hi - (hi[i] - lo[i] - p)):
                hit = todo & (guess >= lo) & (guess + k <= hi) & self.has(guess, pat)
                out[hit] = guess[hit] - lo[hit]
                todo &= ~hit
        if todo.any():
            out = np.where(todo, self.find(lo, hi, todo, pat), out)
        return out

    def has(self, pos: np.ndarray, pattern: bytes) -> np.ndarray:
        p = np.clip(pos, 0, self.top)
        out = self.buf[p] == pattern[0]
        for j in range(1, len(pattern)):
            out &= self.buf[np.minimum(p + j, self.top)] == pattern[j]
        return out

    def views(self, lo: np.ndarray, hi: np.ndarray, valid: np.ndarray) -> pa.Array:
        """Per valid row the bytes [lo, hi) as a string array (views, then one copy of those bytes)."""
        n = self.n
        ln = np.where(valid, hi - lo, 0).astype(np.int32)
        lo = np.where(valid, lo, 0)
        raw = np.zeros((n, 16), np.uint8)
        raw[:, :4] = ln.view(np.uint8).reshape(n, 4)
        head = self.at(lo, 12).T
        short = ln <= 12
        raw[:, 4:] = np.where(short[:, None] & (np.arange(12) < ln[:, None]), head, 0)
        long_ = ~short
        raw[long_, 4:8] = head[long_, :4]
        raw[long_, 12:16] = lo[long_].astype(np.int32).view(np.uint8).reshape(-1, 4)
        bitmap = pa.py_buffer(np.packbits(valid, bitorder="little"))
        v = pa.Array.from_buffers(
            pa.string_view(), n, [bitmap, pa.py_buffer(raw), self.pa_buf], null_count=int(n - valid.sum())
        )
        return v.cast(pa.string())

    def number(self, pos: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """(value, end, ok) of `null` (0) or 1-18 digits at each position (the caller checks what follows
        at `end`)."""
        p = np.clip(pos, 0, self.top)
        val = np.zeros(len(p), np.int64)
        ln = np.zeros(len(p), np.int64)
        alive = np.ones(len(p), bool)
        for j in range(19):
            d = self.buf[np.minimum(p + j, self.top)] - np.uint8(48)  # wraps below '0': not a digit
            alive &= d <= 9
            if not alive.any():
                break
            val = np.where(alive, val * 10 + d, val)
            ln += alive
        null = self.has(pos, b"null")
        ok = ((ln >= 1) & (ln <= 18)) | null
        return np.where(null, 0, val), pos + np.where(null, 4, ln), ok


def _find(arr: pa.Array, pattern: str) -> np.ndarray:
    return pc.find_substring(arr, pattern).fill_null(-1).to_numpy(zero_copy_only=False).astype(np.int64)


def columns(
    vp: pa.Array, vfp: pa.Array, kp: pa.Array, kfp: pa.Array, texts: dict[int, str]
) -> list[pa.Array]:
    """The `COLUMNS` arrays of one batch; `texts`: fingerprint -> schema text (the partition's)."""
    n = len(vp)
    vp = vp.cast(pa.string())
    if fastscan is not None and not PURE and n:
        return _columns_c(vp, vfp, kp, kfp, texts)
    ok = _mask(pc.is_valid(vp)) & ~_mask(pc.is_null(vfp))
    bad_fps = [fp for fp in pc.unique(vfp.drop_null()).to_pylist() if not eligible(texts.get(fp))]
    if bad_fps:
        ok &= ~_mask(pc.is_in(vfp, pa.array(bad_fps, pa.int64())))
    B = _Bytes(vp)
    start, end = B.offs[:-1], B.offs[1:]
    # the source object: from the first `"source":{` (`eligible`) to its first `}`, with no `{` inside
    s_at = _find(vp, '"source":{')
    ok &= s_at >= 0
    lo = start + np.maximum(s_at, 0) + 10  # inside the source object
    close = B.find(lo, end, ok, b"}")
    ok &= close >= 0
    se = lo + close  # the source's `}`
    src = ok.copy()  # the rows whose source object [lo, se) is read below
    ok &= B.find(lo, se, src, b"{") < 0
    # then op, directly or after a transaction block
    direct = B.has(se, b'},"op":"')
    tx = ~direct & B.has(se, b'},"transaction":')
    tx_null = B.has(se + 16, b'null,"op":"')
    # `,"transaction":{...}` searched only where it is an object (a null one is read in place above)
    tx_any = ok & tx & ~tx_null
    rest = B.views(se + 1, end, tx_any) if tx_any.any() else None
    r_op = _find(rest, ',"op":"') if rest is not None else np.full(n, -1, np.int64)
    tx_obj = B.has(se + 16, b"{") & (r_op > 0)
    if rest is not None:
        tx_obj &= r_op == _find(rest, "}") + 1
    op_at = np.where(direct, se + 1, np.where(tx & tx_null, se + 20, se + 1 + r_op))  # at `,"op":"`
    ok &= direct | (tx & (tx_null | tx_obj))
    op_c, op_q = B.at(op_at + 7, 2)
    ok &= (op_q == ord('"')) & (op_c >= ord("a")) & (op_c <= ord("z"))
    op = pa.array(np.where(ok, op_c, ord(" ")).astype(np.uint8).view("S1").astype(str), pa.string())

    def field(name: str) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """(value or 0, ok, present) of a number field of the source object."""
        f = B.key_in(src, lo, se, f'"{name}":')
        there = f >= 0
        v, e, good = B.number(lo + f + len(name) + 3)
        good &= B.has(e, b",") | B.has(e, b"}")
        return np.where(there & good, v, 0), ~there | good, there

    c_at = B.key_in(src, lo, se, '"connector":"')
    c_at, found = lo + c_at + 13, ok & (c_at >= 0)
    pg = found & B.has(c_at, b'postgresql"')
    my = found & (B.has(c_at, b'mysql"') | B.has(c_at, b'mariadb"'))
    mg = found & B.has(c_at, b'mongodb"')
    ok &= pg | my | mg
    o = [np.zeros(n, np.int64) for _ in range(4)]
    phase = (op_c != ord("r")).astype(np.int64)
    if pg.any():
        lsn, lsn_ok, _ = field("lsn")
        q = B.key_in(src, lo, se, '"sequence":')
        q, found = lo + q + 11, q >= 0
        has_seq = found & B.has(q, b'"[')
        # `"sequence":"[\"a\",\"b\"]"`, either number may be null; `null` or `""`: the LSN alone
        seq_ok = found & (has_seq | B.has(q, b"null") | B.has(q, b'""'))
        parts, nulls = [], []
        q = q + 2
        for sep in (b",", b']"'):
            quoted = B.has(q, b'\\"')
            nulls.append(~quoted)
            v, e, good = B.number(q + np.where(quoted, 2, 0))
            e = np.where(quoted, e + 2, e)
            good &= np.where(quoted, B.has(e - 2, b'\\"') & ~B.has(q + 2, b"null"), B.has(q, b"null"))
            good &= B.has(e, sep)
            seq_ok &= ~has_seq | good
            parts.append(v)
            q = e + len(sep)
        # a null lastCommitLsn (the first commit after a connector (re)start) of a streamed change: its own
        # LSN, as `sink.position.seq`
        first = np.where(nulls[0] & (op_c != ord("r")), parts[1], parts[0])
        o[0] = np.where(pg & has_seq, first, o[0])
        o[1] = np.where(pg & has_seq, parts[1], np.where(pg, lsn, o[1]))
        o[2] = np.where(pg, phase, o[2])
        ok &= ~pg | (seq_ok & (has_seq | lsn_ok))
    if my.any():
        pos, pos_ok, _ = field("pos")
        row, row_ok, _ = field("row")
        f_at = B.key_in(src, lo, se, '"file":')
        fl = B.views(lo + f_at + 7, se + 1, my & (f_at >= 0))
        # the file's number: digits after its last dot, before the closing quote (else 0)
        fm = pc.extract_regex(fl, r'^(?:null|"[^"\\]*?(?:\.(?P<v>\d{1,18}))?")[,}]')
        fv = pc.struct_field(fm, "v")
        fnum = pc.cast(pc.if_else(pc.equal(fv, ""), "0", fv).fill_null("0"), pa.int64()).to_numpy(
            zero_copy_only=False
        )
        file_ok = (f_at < 0) | _mask(pc.is_valid(fm))
        o[0] = np.where(my, fnum, o[0])
        o[1] = np.where(my, pos, o[1])
        o[2] = np.where(my, phase, o[2])
        o[3] = np.where(my, row, o[3])
        ok &= ~my | (file_ok & pos_ok & row_ok)
    if mg.any():
        ts_ms, ts_ok, _ = field("ts_ms")
        ordv, ord_ok, _ = field("ord")
        o[0] = np.where(mg, ts_ms, o[0])
        o[1] = np.where(mg, ordv, o[1])
        o[2] = np.where(mg, phase, o[2])
        ok &= ~mg | (ts_ok & ord_ok)
    # events that cannot win get no position (as `sink.winners.winners` does)
    change = np.isin(op_c, np.frombuffer(b"cudr", np.uint8))
    # a relational envelope prints after directly before source; MongoDB's may have updateDescription between
    no_after = B.has(start + s_at - 13, b'"after":null,')
    if mg.any():
        no_after |= mg & _mask(pc.match_substring(vp, '"after":null'))
    # `after`'s value, for the winners' decoding: from `"after":` to the comma before `"source":{` (the
    # envelope's order); in a `sliceable` schema the first `,"after":` is the envelope's. Not found there: the
    # record is left to the JVM (`rok` false), so a batch that uses the ranges has them for every change
    cut = ok & (pg | my)
    cut_fps = [fp for fp in pc.unique(vfp.drop_null()).to_pylist() if sliceable(texts.get(fp))]
    cut &= _mask(pc.is_in(vfp, pa.array(cut_fps, pa.int64()))) if cut_fps else False
    lead = B.has(start, b'{"before":null,"after":')
    a_find = _find(vp, ',"after":') if (cut & ~lead).any() else np.full(n, -1, np.int64)
    a_val = np.where(lead, start + 23, start + a_find + 9)
    a_end = start + s_at - 1  # the comma before `"source":{`
    ok &= ~cut | ((lead | (a_find >= 0)) & B.has(a_end, b",") & (a_val < a_end))
    has_after = cut & ok & ~no_after
    wins = ok & change & ((op_c == ord("d")) | ~no_after)
    # the event's ts_ms, else the source's (`coalesce(ts_ms, source.ts_ms, 0)`)
    src_ts, _, _ = field("ts_ms")
    t_at = op_at + 9
    has_ts = B.has(t_at, b',"ts_ms":')
    ev_ts, e, good = B.number(t_at + 9)
    has_ts &= good & ~B.has(t_at + 9, b"null") & (B.has(e, b",") | B.has(e, b"}"))
    ts = np.where(has_ts, ev_ts, src_ts)
    width = np.where(my, 4, np.where(pg | mg, 3, 0))
    return [
        pc.if_else(pa.array(ok), op, pa.nulls(n, pa.string())),
        *(pa.array(o[i], pa.int64(), mask=~(wins & (width > i))) for i in range(4)),
        pa.array(ts, pa.int64(), mask=~ok),
        canonical_keys(kp, kfp, texts),
        pa.array(a_val - start, pa.int64(), mask=~has_after),
        pa.array(a_end - start, pa.int64(), mask=~has_after),
        pa.array(ok, pa.bool_()),
    ]


def _columns_c(vp: pa.Array, vfp: pa.Array, kp: pa.Array, kfp: pa.Array, texts: dict[int, str]) -> list:
    """`columns` with each payload read by `fastscan.keys` (the per-schema tests stay here)."""
    n = len(vp)
    fps = pc.unique(vfp.drop_null()).to_pylist()
    elig = [fp for fp in fps if eligible(texts.get(fp))]
    flags = np.zeros(n, np.uint8)
    if elig:
        flags |= _mask(pc.is_in(vfp, pa.array(elig, pa.int64()))) & _mask(pc.is_valid(vp))
        cut = [fp for fp in elig if sliceable(texts.get(fp))]
        if cut:
            flags |= _mask(pc.is_in(vfp, pa.array(cut, pa.int64()))).astype(np.uint8) << 1
    bufs = vp.buffers()
    data = bufs[2] or pa.py_buffer(b" ")  # as `_Bytes`: a test past the end reads the last byte
    offs = np.frombuffer(bufs[1], np.int32, n + 1, vp.offset * 4)
    m = np.frombuffer(fastscan.keys(data, offs, flags), np.int64).reshape(n, fastscan.KCOL)
    f = m[:, 0]
    ok, wins, has_after = (f & 1) != 0, (f & 2) != 0, (f & 4) != 0
    width = m[:, 9]
    op = pa.array(m[:, 1].astype(np.uint8).view("S1").astype(str), pa.string(), mask=~ok)
    return [
        op,
        *(pa.array(m[:, 2 + i], pa.int64(), mask=~(wins & (width > i))) for i in range(4)),
        pa.array(m[:, 6], pa.int64(), mask=~ok),
        canonical_keys(kp, kfp, texts),
        pa.array(m[:, 7], pa.int64(), mask=~has_after),
        pa.array(m[:, 8], pa.int64(), mask=~has_after),
        pa.array(ok, pa.bool_()),
    ]


def canonical_keys(kp: pa.Array, kfp: pa.Array, texts: dict[int, str]) -> pa.Array:
    """The key text where it is already canonical (`key_pattern`), else null."""
    n = len(kp)
    kp = kp.cast(pa.string())
    keep = np.zeros(n, bool)
    for fp in pc.unique(kfp.drop_null()).to_pylist():
        pat = key_pattern(texts.get(fp))
        if pat is None:
            continue
        mine = pc.equal(kfp, fp).fill_null(False)
        keep |= pc.and_(mine, pc.match_substring_regex(kp, pat).fill_null(False)).to_numpy(
            zero_copy_only=False
        )
    return pc.if_else(pa.array(keep), kp, pa.nulls(n, pa.string()))
