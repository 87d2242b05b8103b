"""The directory source's byte budget per micro-batch: batches cut at line ends, and a line longer than the
budget is taken whole (it once stalled the stream: every batch skipped it and `--once` ended early)."""

from __future__ import annotations

import pytest

pytest.importorskip("pyspark", reason="pyspark not installed (pip install -e '.[sink]')")

from sink.sources import DirReader  # noqa: E402


def _batches(reader: DirReader) -> list[dict]:
    out, start = [], {}
    for _ in range(100):
        end = reader.latestOffset(start)
        if end == start:
            return out
        out.append(end)
        start = end
    raise AssertionError("the source never stopped advancing")


def test_a_line_longer_than_the_budget_is_read_whole(tmp_path):
    lines = [b"a" * 10, b"b" * 5000, b"c" * 10, b"d" * 10]
    (tmp_path / "t.jsonl").write_bytes(b"".join(x + b"\n" for x in lines))
    ends = [d["t.jsonl"] for d in _batches(DirReader(str(tmp_path), max_bytes=3000, part_bytes=1 << 20))]
    # by hand: 11 (the short line fits), 5012 (the long one alone), 5034 (the last two)
    assert ends == [11, 5012, 5034]


def test_batches_cut_at_line_ends_within_the_budget(tmp_path):
    (tmp_path / "a.jsonl").write_bytes(b"x" * 99 + b"\n" + b"y" * 99 + b"\n")
    (tmp_path / "b.jsonl").write_bytes(b"z" * 49 + b"\n")
    got = _batches(DirReader(str(tmp_path), max_bytes=150, part_bytes=1 << 20))
    assert got == [{"a.jsonl": 100, "b.jsonl": 50}, {"a.jsonl": 200, "b.jsonl": 50}]


def test_batches_are_bounded_by_lines_too(tmp_path):
    # five 10-byte lines in a.jsonl, two in b.jsonl; 2 lines per batch, bytes unbounded; files in name order
    (tmp_path / "a.jsonl").write_bytes(b"".join(b"a" * 9 + b"\n" for _ in range(5)))
    (tmp_path / "b.jsonl").write_bytes(b"b" * 9 + b"\n" + b"c" * 9 + b"\n")
    got = _batches(DirReader(str(tmp_path), max_bytes=1 << 20, part_bytes=1 << 20, max_records=2))
    # by hand: a's lines 1-2, 3-4, then a's line 5 and b's line 1 (the budget is shared), then b's line 2
    assert got == [
        {"a.jsonl": 20},
        {"a.jsonl": 40},
        {"a.jsonl": 50, "b.jsonl": 10},
        {"a.jsonl": 50, "b.jsonl": 20},
    ]


def test_a_long_range_is_cut_where_its_sampled_density_reaches_the_limit(tmp_path, monkeypatch):
    import sink.sources

    # ranges over 4 * 8 bytes are sampled in 4 windows of 8 bytes; 40 lines of 4 bytes: every window sees 2
    # lines, so the density is exact and the cuts fall after every 10th line (40 bytes)
    monkeypatch.setattr(sink.sources, "SAMPLES", 4)
    monkeypatch.setattr(sink.sources, "SAMPLE_BYTES", 8)
    (tmp_path / "t.jsonl").write_bytes(b"".join(b"%03d\n" % i for i in range(40)))
    got = _batches(DirReader(str(tmp_path), max_bytes=1 << 20, part_bytes=1 << 20, max_records=10))
    assert [d["t.jsonl"] for d in got] == [40, 80, 120, 160]


def test_a_sampled_cut_lands_on_a_line_start(tmp_path, monkeypatch):
    import sink.sources

    # lines of 3 and 7 bytes alternating: the estimate falls inside a line, the cut moves back to its start
    monkeypatch.setattr(sink.sources, "SAMPLES", 4)
    monkeypatch.setattr(sink.sources, "SAMPLE_BYTES", 8)
    data = b"".join(b"ab\n" + b"abcdef\n" for _ in range(20))
    (tmp_path / "t.jsonl").write_bytes(data)
    starts = {0} | {i + 1 for i, b in enumerate(data) if b == 10}
    got = _batches(DirReader(str(tmp_path), max_bytes=1 << 20, part_bytes=1 << 20, max_records=7))
    ends = [d["t.jsonl"] for d in got]
    assert ends[-1] == len(data) and all(e in starts for e in ends) and ends == sorted(set(ends))
