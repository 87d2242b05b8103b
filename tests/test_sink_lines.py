"""sink.lines: a block of directory-output lines split column-wise gives the per-line split (sink.split).

Expected values: hand-written splits of hand-written lines, and the per-line splitter's output (an independent
implementation, tested through every sink test) on lines of every form, including the ones the block split must
hand to the slow path (other layouts, ambiguous field names, blank lines, CRLF). No Spark here.
"""

from __future__ import annotations

import orjson

from sink.lines import split_block
from sink.split import Batcher, fingerprint

KS = b'{"type":"struct","fields":[{"type":"int32","optional":false,"field":"id"}],"optional":false}'
VS = (
    b'{"type":"struct","fields":[{"type":"struct","fields":[{"type":"int32","optional":false,"field":"id"},'
    b'{"type":"string","optional":true,"field":"NAME"}],"optional":true,"field":"after"},'
    b'{"type":"string","optional":false,"field":"op"}],"optional":false}'
)


def line(k: int, payload: bytes | None, headers: bytes | None = None, key: bool = True) -> bytes:
    kd = b'{"schema":' + KS + b',"payload":{"id":' + str(k).encode() + b"}}" if key else b"null"
    vd = b"null" if payload is None else b'{"schema":' + VS + b',"payload":' + payload + b"}"
    tail = b"" if headers is None else b',"headers":' + headers
    return b'{"key":' + kd + b',"value":' + vd + tail + b"}"


def by_line(data: bytes) -> list[dict]:
    b, pos = Batcher(), 0
    for ln in data.split(b"\n")[:-1]:
        if ln.strip():
            b.add_line("t", "t.jsonl", pos, ln)
        pos += len(ln) + 1
    return b.flush().to_pylist() if b.rows else []


def by_block(data: bytes, base: int = 0) -> tuple[list[dict], list[int]]:
    b = Batcher()
    rb, slow = split_block(data, base, "t", "t.jsonl", b)
    rows = rb.to_pylist() if rb is not None else []
    return rows + (b.flush().to_pylist() if b.rows else []), slow


def norm(rows: list[dict]) -> tuple[list[dict], dict]:
    """Rows by position without the schema texts, and {fingerprint: text} (a text is sent once per partition,
    at whichever row of its fingerprint comes first in the output)."""
    texts: dict = {}
    out = []
    for r in rows:
        for f, s in (("kfp", "kschema"), ("vfp", "vschema")):
            if r[s] is not None:
                assert texts.setdefault(r[f], r[s]) == r[s]
        out.append({k: v for k, v in r.items() if k not in ("kschema", "vschema")})
    return sorted(out, key=lambda r: r["pos"]), texts


def test_fast_forms_by_hand():
    p1 = b'{"after":{"id":1,"NAME":"a"},"op":"c"}'
    hdr = b'[["__debezium.oldkey",{"schema":null,"payload":{"id":0}}]]'
    lines = [line(1, p1), line(2, None), line(3, p1, hdr), line(4, None, b"[]"), line(5, p1, key=False)]
    data = b"\n".join(lines) + b"\n"
    rows, slow = by_block(data, base=100)
    assert slow == []
    got = {r["pos"] - 100: r for r in rows}
    starts = [0]
    for ln in lines[:-1]:
        starts.append(starts[-1] + len(ln) + 1)
    kfp, vfp = fingerprint(KS), fingerprint(VS)
    expect = [
        ('{"id":1}', p1.decode(), None, kfp, vfp),
        ('{"id":2}', None, None, kfp, None),
        ('{"id":3}', p1.decode(), hdr.decode(), kfp, vfp),
        ('{"id":4}', None, "[]", kfp, None),
        (None, p1.decode(), None, None, vfp),
    ]
    for at, (kp, vp, h, kf, vf) in zip(starts, expect):
        r = got[at]
        assert (r["kp"], r["vp"], r["hdr"], r["kfp"], r["vfp"]) == (kp, vp, h, kf, vf)
        assert (r["topic"], r["part"]) == ("t", "t.jsonl")
    # each schema text once, at the first row of its fingerprint
    assert [r["kschema"] for r in rows if r["kschema"]] == [KS.decode()]
    assert [r["vschema"] for r in rows if r["vschema"]] == [VS.decode()]


def test_other_forms_take_the_slow_path_and_agree():
    p = b'{"after":{"id":1,"NAME":"x"},"op":"u"}'
    spaced = orjson.dumps(orjson.loads(line(9, p)), option=orjson.OPT_INDENT_2).replace(b"\n", b" ")
    value_key = line(6, p).replace(b'"field":"id"', b'"field":"value"').replace(b'{"id":6}', b'{"value":6}')
    headers_col = line(7, p).replace(b'"field":"NAME"', b'"field":"headers"').replace(b'"NAME"', b'"headers"')
    payload_col = line(8, p).replace(b'"field":"NAME"', b'"field":"payload"').replace(b'"NAME"', b'"payload"')
    lines = [
        line(1, p),
        spaced,
        b"",
        b"   ",
        line(2, p) + b"\r",
        value_key,
        headers_col,
        payload_col,
        line(3, p, b'[["h",{"schema":{"type":"string"},"payload":"},\\"headers\\":["}]]'),
        line(4, None),
    ]
    data = b"\n".join(lines) + b"\n"
    rows, slow = by_block(data)
    assert norm(rows) == norm(by_line(data))
    starts = [0]
    for ln in lines[:-1]:
        starts.append(starts[-1] + len(ln) + 1)
    # blank lines are neither rows nor slow rows that yield anything; the fast ones are not in `slow`
    assert sorted(r["pos"] for r in rows) == [s for s, ln in zip(starts, lines) if ln.strip()]
    assert {starts[i] for i in (0, 8, 9)}.isdisjoint({starts[i] for i in slow})
    assert {1, 4, 5, 6, 7} <= set(slow)


def test_many_lines_and_schema_versions():
    """Two value schemas, key lengths of 1-6 digits, mixed with deletes and tombstones: the fingerprints and
    texts agree with the per-line split."""
    vs2 = VS.replace(b'"field":"NAME"', b'"field":"NAME2"')
    out = []
    for k in range(1, 3000, 7):
        p = b'{"after":{"id":' + str(k).encode() + b',"NAME":"n' + b"x" * (k % 13) + b'"},"op":"c"}'
        ln = line(k * 31, p)
        if k % 3 == 0:
            ln = ln.replace(VS, vs2)
        out.append(ln)
        if k % 5 == 0:
            out.append(line(k * 31, None))
    data = b"\n".join(out) + b"\n"
    rows, slow = by_block(data, base=7)
    assert slow == []
    expect = by_line(data)
    for r in expect:
        r["pos"] += 7
    assert norm(rows) == norm(expect)
    assert len(norm(rows)[1]) == 3


def test_kafka_records_as_lines():
    """Kafka records joined into lines give the per-record split (`Batcher.add_record`), offsets as positions;
    Avro-framed records and bytes with a newline take the per-record path."""
    from sink.sources import KafkaLines

    p = b'{"after":{"id":1,"NAME":"k"},"op":"c"}'
    kdoc = b'{"schema":' + KS + b',"payload":{"id":1}}'
    vdoc = b'{"schema":' + VS + b',"payload":' + p + b"}"
    oldkey = [("__debezium.context.x", b'"y"'), ("__debezium.oldkey", b'{"schema":null,"payload":{"id":0}}')]
    records = [
        (kdoc, vdoc, None),
        (kdoc, None, None),
        (kdoc, vdoc, oldkey),
        (None, vdoc, [("other", b"{}")]),
        (kdoc, b'{"schema": ' + VS + b', "payload": ' + p + b"}", None),  # another layout
        (b'{"id":5}', b'{"a":\n1}', None),  # schemaless, a newline inside
    ]
    ref, b = Batcher(), Batcher()
    lines = KafkaLines("t", "t:0", b)
    for off, (k, v, h) in enumerate(records, start=40):
        ref.add_record("t", "t:0", off, k, v, h)
        lines.add(off, k, v, h)
    got = [r for rb in lines.flush() for r in rb.to_pylist()] + b.flush().to_pylist()
    assert norm(got) == norm(ref.flush().to_pylist())
    assert sorted(r["pos"] for r in got) == list(range(40, 46))


def test_partition_reader_blocks_cut_at_line_ends(tmp_path, monkeypatch):
    """The directory source's partition reader reads a range block by block, each block cut at its last line
    end: with blocks smaller than some lines (so a line spans blocks), ranges starting and ending anywhere on
    a line start, and a last line without its newline, it gives what the per-line split of the same bytes
    gives."""
    import sink.sources as sources
    from sink.stats import Survey

    out = []
    for k in range(1, 400):
        p = b'{"after":{"id":' + str(k).encode() + b',"NAME":"' + b"y" * (k * 37 % 2500) + b'"},"op":"u"}'
        out.append(line(k, p) if k % 11 else b"   ")
        if k % 7 == 0:
            out.append(line(k, None))
    data = b"\n".join(out) + b"\n" + line(9999, b'{"after":null,"op":"d"}')  # no newline at the end
    f = tmp_path / "t.jsonl"
    f.write_bytes(data)
    starts = [0] + [i + 1 for i, c in enumerate(data) if c == 10]
    monkeypatch.setattr(sources, "READ_BLOCK", 2000)  # lines run up to ~3 KB
    reader = sources.DirReader(str(tmp_path), 1 << 30, 1 << 30)
    for lo, hi in (
        (0, len(data)),
        (starts[50], starts[300]),
        (starts[3], starts[4]),
        (starts[300], len(data)),
    ):
        got = [r for rb in reader._read(sources.FileRange(str(f), lo, hi), Survey()) for r in rb.to_pylist()]
        expect = by_line(data[lo:hi] + (b"" if data[lo:hi].endswith(b"\n") else b"\n"))
        for r in expect:
            r["pos"] += lo
        assert norm(got) == norm(expect), (lo, hi)
        assert [r["pos"] for r in norm(got)[0]] == [
            s for s in starts if lo <= s < hi and data[s : s + 1] == b"{"
        ]


def test_newlines_long_and_short_lines():
    """Both ways of finding the line ends (a find per line; one numpy pass for short lines) give every
    newline, with empty lines, a last line without its newline, and no newline at all."""
    import numpy as np

    from sink.lines import SHORT_AFTER, SHORT_LINE, newlines

    for data in (
        b"",
        b"no newline",
        b"\n\n",
        b"a\n" * (SHORT_AFTER + 10) + b"tail",  # short lines: the numpy pass
        (b"x" * SHORT_LINE + b"\n") * (SHORT_AFTER + 10) + b"\n\nend",  # long lines: a find per line
        (b"x" * SHORT_LINE + b"\n") * 3 + b"a\n" * (SHORT_AFTER * 2),
    ):
        want = [i for i, c in enumerate(data) if c == 10]
        got = newlines(data)
        assert got.dtype == np.int64 and got.tolist() == want
