"""A block of directory-output lines split column-wise (numpy + pyarrow kernels): no Python per record but one
`bytes.find` per line for the line ends (`newlines`).

`sink.split` splits one line at a time in Python; on executors that loop was most of a batch's CPU. Here a
block of complete lines is split at once: the byte positions of the parts of every line are found with
`find_substring` on arrays whose values start at per-row positions (each value runs on into the next line;
a match past the line's end counts as not found), the parts become Arrow arrays by reference (binary-view
arrays over the block, cast to strings), and the schema texts are fingerprinted per distinct text
(`dictionary_encode`, then `sink.split.fingerprint` of the few distinct ones). The fast form is the one
`sink.split.split_line` accepts, checked as strictly (a key schema naming a field "value", a value schema
naming "headers", a "payload" name inside a schema: not fast); every other line goes through
`sink.split.Batcher.add_line` (orjson, Avro).

With the optional C scanner (`sink/fastscan.c`, built by setup.py) the line parts are found in one pass over the
block instead (same rules, same batches: `tests/test_sink_fastscan.py`); `DBZ_SINK_PURE_PYTHON=1` or a build
without it takes the kernels.
"""

from __future__ import annotations

import os

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from sink.split import ARROW, Batcher, fingerprint

try:
    from sink import fastscan
except ImportError:  # not built (no compiler): the numpy/pyarrow kernels below
    fastscan = None
PURE = os.environ.get("DBZ_SINK_PURE_PYTHON", "") in ("1", "true")

_KEY = b'{"key":{"schema":'
_NOKEY = b'{"key":null,"value":'
_PAY = b',"payload":'
_VAL = b'},"value":'
_HDR = b'},"headers":['
_NULL_HDR = b',"headers":['
_VIEW = np.dtype([("len", "<i4"), ("prefix", "V4"), ("buf", "<i4"), ("off", "<i4")])


# lines shorter than this on average (over the first SHORT_AFTER lines) are found with one numpy pass instead
SHORT_LINE = 256
SHORT_AFTER = 256


def newlines(data: bytes) -> np.ndarray:
    """The positions of the newlines in `data`. One `bytes.find` (memchr) per line: for Debezium's records with
    schemas (1-5 KB) about a third of numpy's compare and `flatnonzero` over every byte (3.5 against 10.8 ms
    for a 16 MB block of bench_sink.py's records, load ~12); blocks of short lines take the numpy pass."""
    out = []
    find = data.find
    i = find(b"\n")
    while i >= 0:
        out.append(i)
        if len(out) == SHORT_AFTER and i < SHORT_LINE * SHORT_AFTER:
            return np.flatnonzero(np.frombuffer(data, np.uint8) == 10)
        i = find(b"\n", i + 1)
    return np.array(out, np.int64)


class Block:
    """One block of complete lines (`data` ends with a newline) of one file."""

    def __init__(self, data: bytes) -> None:
        self.data = data
        self.buf = np.frombuffer(data, np.uint8)
        self.pa_buf = pa.py_buffer(data)
        nl = newlines(data)
        self.n = len(nl)
        self.starts = np.empty(self.n, np.int64)
        if self.n:
            self.starts[0] = 0
            self.starts[1:] = nl[:-1] + 1
        self.ends = nl.astype(np.int64)  # exclusive: the newline

    def find(self, at: np.ndarray, pattern: bytes) -> np.ndarray:
        """Per row, the first position >= at[i] of pattern within the row's line, else -1; at must be
        non-decreasing and within each row's line."""
        offs = np.empty(self.n + 1, np.int32)
        offs[:-1] = at
        offs[-1] = len(self.data)
        arr = pa.Array.from_buffers(pa.binary(), self.n, [None, pa.py_buffer(offs), self.pa_buf])
        r = pc.find_substring(arr, pattern).to_numpy(zero_copy_only=False).astype(np.int64)
        found = at + r
        return np.where((r >= 0) & (found + len(pattern) <= self.ends), found, -1)

    def locate(self, lo: np.ndarray, valid: np.ndarray, pattern: bytes) -> np.ndarray:
        """Per valid row, the first position >= lo[i] of pattern in its line (else -1), for long texts that
        repeat (schemas): a text length found in one row is tried on all rows at once. A row where the
        pattern also occurs earlier gets the later position; its text then contains the pattern, which the
        callers' per-text check rejects."""
        out = np.full(self.n, -1, np.int64)
        todo = valid.copy()
        for _ in range(16):
            if not todo.any():
                return out
            i = int(np.argmax(todo))
            p = self.data.find(pattern, int(lo[i]), int(self.ends[i]))
            if p < 0:
                todo[i] = False
                continue
            guess = lo + (p - lo[i])
            hit = todo & self.has(guess, pattern)
            out[hit] = guess[hit]
            todo &= ~hit
        for i in np.flatnonzero(todo).tolist():
            out[i] = self.data.find(pattern, int(lo[i]), int(self.ends[i]))
        return out

    def has(self, at: np.ndarray, pattern: bytes) -> np.ndarray:
        """Per row: pattern starts at at[i] (within the row's line)."""
        k = len(pattern)
        ok = at + k <= self.ends
        idx = np.minimum(np.clip(at, 0, None)[:, None] + np.arange(k), len(self.data) - 1)
        return ok & (self.buf[idx] == np.frombuffer(pattern, np.uint8)).all(axis=1)

    def byte(self, at: np.ndarray, c: bytes) -> np.ndarray:
        return self.buf[np.clip(at, 0, len(self.data) - 1)] == c[0]

    def views(self, lo: np.ndarray, hi: np.ndarray, valid: np.ndarray) -> pa.Array:
        """Binary-view array of data[lo:hi] per row (null where not valid), no copy of the bytes."""
        n = len(lo)
        ln = np.where(valid, hi - lo, 0).astype(np.int32)
        raw = np.zeros((n, 16), np.uint8)
        raw[:, :4] = ln.view(np.uint8).reshape(n, 4)
        lo_c = np.where(valid, lo, 0)
        head = self.buf[np.minimum(lo_c[:, None] + np.arange(12), len(self.data) - 1)]
        short = ln <= 12
        inline = np.where(np.arange(12) < ln[:, None], head, 0)
        raw[:, 4:] = np.where(short[:, None], inline, 0)
        long_ = ~short
        raw[long_, 4:8] = head[long_, :4]
        raw[long_, 12:16] = lo[long_].astype(np.int32).view(np.uint8).reshape(-1, 4)
        bitmap = pa.py_buffer(np.packbits(valid, bitorder="little"))
        return pa.Array.from_buffers(
            pa.binary_view(), n, [bitmap, pa.py_buffer(raw), self.pa_buf], null_count=int(n - valid.sum())
        )


def split_block(
    data: bytes, base: int, topic: str, part: str, slow: Batcher, positions: np.ndarray | None = None
) -> tuple[pa.RecordBatch | None, list[int]]:
    """The block's fast-form lines as one RecordBatch of `sink.split.SCHEMA` (None if none), and the
    other non-empty lines handed to `slow` (its `add_line`). A line's position is `base` + its offset in
    `data` (a file), or `positions[i]` for the i-th line (Kafka offsets). Schema texts are sent once per
    partition: `slow.sent` / `slow.known` are shared with the slow path."""
    if fastscan is not None and not PURE:
        got = _split_c(data, base, topic, part, slow, positions)
        if got is not None:
            return got
    b = Block(data)
    if b.n == 0:
        return None, []
    s, e = b.starts, b.ends
    pos = base + s if positions is None else positions
    last = b.byte(e - 1, b"}")
    is_k = last & b.has(s, _KEY)
    is_n = last & ~is_k & b.has(s, _NOKEY)
    # key part (keyed lines): schema [s+17, p1), payload [p1+11, v); the key schema is checked per distinct
    # text below (a "payload" name inside it, or a field named "value", would make the split ambiguous)
    ks_lo = s + len(_KEY)
    p1 = b.locate(ks_lo, is_k, _PAY)
    key_ok = is_k & (p1 >= 0)
    kp_lo = p1 + len(_PAY)
    v = b.find(np.where(key_ok, kp_lo, s), _VAL)
    key_ok &= v >= 0
    # value part: at `at`, either null or {"schema":VS,"payload":VP}
    at = np.where(key_ok, v + len(_VAL), np.where(is_n, s + len(_NOKEY), s))
    live = key_ok | is_n
    v_null = live & b.has(at, b"null")
    v_doc = live & ~v_null & b.has(at, b'{"schema":')
    vs_lo = at + 10
    j2 = b.locate(vs_lo, v_doc, _PAY)
    v_doc &= j2 >= 0
    vp_lo = j2 + len(_PAY)
    # headers: the line ends with `]}`; they start at the first `},"headers":[` after the payload (the
    # payload has none unless the value schema names a field "headers", checked below)
    tail_h = b.byte(e - 2, b"]")
    doc_h = v_doc & tail_h
    h = np.full(b.n, -1, np.int64)
    rows_h = np.flatnonzero(doc_h)
    if len(rows_h):
        region = b.views(vp_lo[rows_h], e[rows_h], np.ones(len(rows_h), bool)).cast(pa.binary())
        r = pc.find_substring(region, _HDR).to_numpy(zero_copy_only=False).astype(np.int64)
        h[rows_h] = np.where(r >= 0, vp_lo[rows_h] + r, -1)
    doc_h &= h >= 0
    doc_nh = v_doc & ~tail_h & b.byte(e - 2, b"}")
    vp_hi = np.where(doc_h, h, e - 2)
    hdr_lo = np.where(doc_h, h + len(_HDR) - 1, 0)
    # a null value: `null}` or `null,"headers":[...]}`
    rest = at + 4
    null_plain = v_null & (e == rest + 1)
    null_h = v_null & b.has(rest, _NULL_HDR) & tail_h
    hdr_lo = np.where(null_h, rest + len(_NULL_HDR) - 1, hdr_lo)
    fast = doc_h | doc_nh | null_plain | null_h
    has_val = doc_h | doc_nh
    has_key = fast & key_ok
    kfp, kbad = _fingerprints(b, ks_lo, p1, has_key, slow, (b'"payload"', b'"field":"value"'))
    vfp, vbad = _fingerprints(b, vs_lo, j2, has_val, slow, (b'"payload"', b'"field":"headers"'))
    fast &= ~kbad & ~vbad
    has_hdr = (doc_h | null_h) & fast

    slow_rows = _to_slow(data, s, e, fast, pos, slow, topic, part)
    rows = np.flatnonzero(fast)
    if len(rows) == 0:
        return None, slow_rows
    n = len(rows)
    sel = pa.array(rows)
    arrays = {
        "topic": pa.repeat(pa.scalar(topic, pa.string()), n),
        "part": pa.repeat(pa.scalar(part, pa.string()), n),
        "pos": pa.array(pos[rows], pa.int64()),
        "kfp": kfp.take(sel),
        "kschema": _first_texts(b.data, ks_lo[rows], p1[rows], has_key[rows], kfp.take(sel), slow),
        "kp": b.views(kp_lo[rows], v[rows], has_key[rows]).cast(pa.string()),
        "vfp": vfp.take(sel),
        "vschema": _first_texts(b.data, vs_lo[rows], j2[rows], has_val[rows], vfp.take(sel), slow),
        "vp": b.views(vp_lo[rows], vp_hi[rows], has_val[rows]).cast(pa.string()),
        "hdr": b.views(hdr_lo[rows], e[rows] - 1, has_hdr[rows]).cast(pa.string()),
    }
    return pa.RecordBatch.from_arrays([arrays[f.name] for f in ARROW], schema=ARROW), slow_rows


def _fingerprints(b: Block, lo, hi, valid, slow: Batcher, ambiguous) -> tuple[pa.Array, np.ndarray]:
    """(fingerprint per row, rows whose text contains an ambiguous name): per distinct text."""
    n = len(lo)
    bad = np.zeros(n, bool)
    if not valid.any():
        return pa.nulls(n, pa.int64()), bad
    d = pc.dictionary_encode(b.views(lo, hi, valid))
    fps, worse = [], []
    for j, text in enumerate(d.dictionary.to_pylist()):
        fp = slow.known.get(text)
        if fp is None:
            fp = slow.known[text] = fingerprint(text)
        fps.append(fp)
        if any(a in text for a in ambiguous):
            worse.append(j)
    if worse:
        bad = pc.is_in(d.indices, pa.array(worse, d.indices.type)).to_numpy(zero_copy_only=False)
        bad &= valid
    return pa.array(fps, pa.int64()).take(d.indices), bad


def _first_texts(data: bytes, lo, hi, valid, fps: pa.Array, slow: Batcher) -> pa.Array:
    """The schema text at the first row of each fingerprint not yet sent in this partition, else null."""
    texts = [None] * len(lo)
    if valid.any():
        f = fps.to_numpy(zero_copy_only=False)
        for fp in pc.unique(fps.drop_null()).to_pylist():
            if fp not in slow.sent:
                slow.sent.add(fp)
                i = int(np.flatnonzero(f == fp)[0])
                texts[i] = data[lo[i] : hi[i]].decode()
    return pa.array(texts, pa.string())


_AMBIGUOUS_K = (b'"payload"', b'"field":"value"')
_AMBIGUOUS_V = (b'"payload"', b'"field":"headers"')


def _group_fps(
    data: bytes, lo, hi, first: list[int], slow: Batcher, ambiguous
) -> tuple[np.ndarray, np.ndarray]:
    """(fingerprint, contains an ambiguous name) per distinct schema text (`fastscan.split`'s groups)."""
    fps = np.zeros(len(first) + 1, np.int64)  # the last entry: rows without a text (group -1)
    bad = np.zeros(len(first) + 1, bool)
    for j, i in enumerate(first):
        text = data[lo[i] : hi[i]]
        fp = slow.known.get(text)
        if fp is None:
            fp = slow.known[text] = fingerprint(text)
        fps[j] = fp
        bad[j] = any(a in text for a in ambiguous)
    return fps, bad


def _column(data: bytes, lo: np.ndarray, hi: np.ndarray, valid: np.ndarray) -> pa.Array:
    """data[lo:hi] per valid row as a string column (one copy of those bytes; the block is valid UTF-8)."""
    n = len(lo)
    spans = np.empty((n, 2), np.int64)
    spans[:, 0] = np.where(valid, lo, -1)
    spans[:, 1] = hi
    offs, vals = fastscan.gather(data, spans)
    bitmap = pa.py_buffer(np.packbits(valid, bitorder="little"))
    nulls = int(n - np.count_nonzero(valid))
    return pa.Array.from_buffers(pa.string(), n, [bitmap, pa.py_buffer(offs), pa.py_buffer(vals)], nulls)


def _split_c(data: bytes, base: int, topic: str, part: str, slow: Batcher, positions) -> tuple | None:
    """`split_block` with the line parts from `fastscan.split` (None: the block is not valid UTF-8, or holds
    more distinct schema texts than the scanner tracks; the kernels then split it)."""
    got = fastscan.split(data)
    if got is None:
        return None
    n, raw, kfirst, vfirst = got
    if n == 0:
        return None, []
    m = np.frombuffer(raw, np.int64).reshape(n, fastscan.NCOL)
    s, e, flags = m[:, 0], m[:, 1], m[:, 2]
    kg, vg = m[:, 12], m[:, 13]
    kfps, kbad = _group_fps(data, m[:, 3], m[:, 4], kfirst, slow, _AMBIGUOUS_K)
    vfps, vbad = _group_fps(data, m[:, 7], m[:, 8], vfirst, slow, _AMBIGUOUS_V)
    fast = ((flags & 1) != 0) & ~kbad[kg] & ~vbad[vg]  # group -1 indexes the last entry: False
    pos = base + s if positions is None else positions
    slow_rows = _to_slow(data, s, e, fast, pos, slow, topic, part)
    rows = np.flatnonzero(fast)
    if len(rows) == 0:
        return None, slow_rows
    r = m[rows]
    nr = len(rows)
    f = r[:, 2]
    has_key, has_val, has_hdr = (f & 2) != 0, (f & 4) != 0, (f & 8) != 0
    kfp = pa.array(kfps[r[:, 12]], pa.int64(), mask=~has_key)
    vfp = pa.array(vfps[r[:, 13]], pa.int64(), mask=~has_val)
    arrays = {
        "topic": pa.repeat(pa.scalar(topic, pa.string()), nr),
        "part": pa.repeat(pa.scalar(part, pa.string()), nr),
        "pos": pa.array(pos[rows], pa.int64()),
        "kfp": kfp,
        "kschema": _first_texts(data, r[:, 3], r[:, 4], has_key, kfp, slow),
        "kp": _column(data, r[:, 5], r[:, 6], has_key),
        "vfp": vfp,
        "vschema": _first_texts(data, r[:, 7], r[:, 8], has_val, vfp, slow),
        "vp": _column(data, r[:, 9], r[:, 10], has_val),
        "hdr": _column(data, r[:, 11], r[:, 1] - 1, has_hdr),
    }
    return pa.RecordBatch.from_arrays([arrays[f.name] for f in ARROW], schema=ARROW), slow_rows


def _to_slow(data, s, e, fast, pos, slow, topic, part) -> list[int]:
    """The non-empty lines the fast columns do not cover, handed to the per-line path; their row numbers."""
    slow_rows = np.flatnonzero((e > s) & ~fast).tolist()
    for i in slow_rows:
        line = data[s[i] : e[i]]
        if line.strip():
            slow.add_line(topic, part, int(pos[i]), line)
    return slow_rows
