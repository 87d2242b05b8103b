"""The readers' C scanner (`sink/fastscan.c`) gives the same batches as the numpy/pyarrow kernels it replaces
(`sink.lines.split_block`, `sink.reader_keys.columns`): bench_sink.py's records, the hand-written lines of the
three connector families and of the line forms (`tests/test_sink_reader_keys.py`, `tests/test_sink_lines.py`),
and thousands of mutations of them (a byte inserted, removed or replaced where the scanners look: quotes,
braces, commas, colons, digits, backslashes, names), each block split and read by both. No Spark.
"""

from __future__ import annotations

import random

import pyarrow as pa
import pytest

pytest.importorskip("pyspark", reason="pyspark not installed (pip install -e '.[sink]')")

from sink import lines, reader_keys  # noqa: E402
from sink.split import Batcher  # noqa: E402
from sink.stats import Survey, counted  # noqa: E402
from tests import test_sink_lines as tl  # noqa: E402
from tests import test_sink_reader_output as ro  # noqa: E402

pytestmark = pytest.mark.skipif(
    lines.fastscan is None, reason="sink.fastscan is not built (setup.py build_ext)"
)


class Lenient(Batcher):
    """The per-line split, noting the lines it refuses (a mutated line is seldom JSON) instead of failing."""

    def __init__(self) -> None:
        super().__init__()
        self.bad: list[int] = []

    def add_line(self, topic: str, part: str, pos: int, line: bytes) -> None:
        try:
            super().add_line(topic, part, pos, line)
        except ValueError:
            self.bad.append(pos)


def _read(data: bytes, pure: bool, monkeypatch) -> tuple[list[pa.RecordBatch], list, list]:
    """The block as the directory reader gives it (split, then the survey's reader columns, then the slow rows),
    the slow rows and the lines refused."""
    with monkeypatch.context() as m:
        if pure:
            m.setattr(lines, "fastscan", None)
            m.setattr(reader_keys, "fastscan", None)
        b = Lenient()
        s = Survey()
        s.known = b.known
        slow = []

        def batches():
            rb, rows = lines.split_block(data, 1000, "t", "t.jsonl", b)
            slow.extend(rows)
            if rb is not None:
                yield rb
            if b.rows:
                yield b.flush()

        return list(counted(batches(), s)), slow, b.bad


def _outcome(data: bytes, pure: bool, monkeypatch):
    try:
        return _read(data, pure, monkeypatch)
    except Exception as e:  # a mutated schema text: both must fail alike
        return type(e).__name__, str(e)


def _same(data: bytes, monkeypatch) -> bool:
    """Both give the same batches (True), or fail alike (False)."""
    got, want = _outcome(data, False, monkeypatch), _outcome(data, True, monkeypatch)
    if isinstance(want[0], str):
        assert got == want
        return False
    (fast, fslow, fbad), (pure, pslow, pbad) = got, want
    assert (fslow, fbad) == (pslow, pbad)
    assert [rb.num_rows for rb in fast] == [rb.num_rows for rb in pure]
    for f, p in zip(fast, pure):
        assert f.schema == p.schema
        for name in f.schema.names:
            assert f.column(name).to_pylist() == p.column(name).to_pylist(), name
    return True


def _corpus(tmp_path) -> list[bytes]:
    p = b'{"after":{"id":1,"NAME":"x"},"op":"u"}'
    forms = [
        tl.line(1, p),
        tl.line(2, None),
        tl.line(3, p, b'[["__debezium.oldkey",{"schema":null,"payload":{"id":0}}]]'),
        tl.line(4, None, b"[]"),
        tl.line(5, p, key=False),
        tl.line(6, p).replace(b'"field":"id"', b'"field":"value"'),
        tl.line(7, p) + b"\r",
        b"",
        b"   ",
    ]
    return ro._bench_lines(tmp_path)[::7] + ro._hand_lines() + forms


def test_same_batches_as_the_kernels(tmp_path, monkeypatch):
    corpus = _corpus(tmp_path)
    assert _same(b"\n".join(corpus) + b"\n", monkeypatch)
    # one line at a time too (a block's first and last bytes are the line's)
    for ln in corpus:
        assert _same(ln + b"\n", monkeypatch)


SPOTS = b'"{},:\\[]0123456789.nul '


def test_same_batches_on_mutated_lines(tmp_path, monkeypatch):
    """Each mutation is one byte at a random place (mostly in the payloads and the envelope's tail, where the
    scanners decide; a mutated schema text makes both fail alike) inserted, removed or replaced by a byte the
    scanners look at."""
    rnd = random.Random(18)
    corpus = [ln for ln in _corpus(tmp_path) if len(ln) > 40]
    compared = 0
    for _ in range(300):
        block = []
        for _ in range(8):
            ln = bytearray(rnd.choice(corpus))
            for _ in range(rnd.choice((1, 1, 2, 3))):
                u = rnd.random()
                near = ln.rfind(b'"source":{') if u < 0.5 else ln.rfind(b',"payload":') if u < 0.9 else -1
                at = rnd.randrange(max(near, 0), len(ln)) if near >= 0 else rnd.randrange(len(ln))
                what = rnd.random()
                c = SPOTS[rnd.randrange(len(SPOTS))]
                if what < 0.35:
                    ln.insert(at, c)
                elif what < 0.7:
                    del ln[at]
                else:
                    ln[at] = c
            block.append(bytes(ln).replace(b"\n", b" "))
        compared += _same(b"\n".join(block) + b"\n", monkeypatch)
    assert compared > 150  # most blocks compared batch by batch, not only failing alike


def test_not_utf8_falls_back(monkeypatch):
    """A block that is not valid UTF-8 takes the kernels (which fail on it as before)."""
    bad = tl.line(1, b'{"after":{"id":1,"NAME":"\xff"},"op":"c"}') + b"\n"
    assert lines.fastscan.split(bad) is None
    with pytest.raises(pa.ArrowInvalid):
        lines.split_block(bad, 0, "t", "t.jsonl", Batcher())
