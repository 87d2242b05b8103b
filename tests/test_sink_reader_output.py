"""The readers' output batches on fixed inputs are the ones the readers gave before session 22's speed-ups of
`sink.lines` / `sink.reader_keys` (digests of every column's values, recorded from main bbe25d0 with
`--record`): a change of one value of one field in any batch fails, naming the batch and the column.

Inputs: bench_sink.py's records (a 10-column PostgreSQL table: snapshot, then updates, inserts, deletes and
tombstones) read by the directory source's partition reader (small blocks and partitions, so that blocks and
partitions are cut inside the file) and as Kafka records (`sink.sources.KafkaLines`, their offsets as
positions, one with an old-key header, one with a newline that takes the per-record split); and the
hand-written lines of the three connector families of `tests/test_sink_reader_keys.py` (transactions, MySQL's
file numbers, MongoDB, lines the reader leaves to the JVM, lines in another layout). No Spark, no broker.

    PYTHONPATH=. .venv/bin/python tests/test_sink_reader_output.py --record   # rewrite the digests
"""

from __future__ import annotations

import hashlib
import json
import sys
from pathlib import Path

import orjson
import pytest

pytest.importorskip("pyspark", reason="pyspark not installed (pip install -e '.[sink]')")

import bench.bench_sink as bs  # noqa: E402
from sink import sources  # noqa: E402
from sink.split import Batcher  # noqa: E402
from sink.stats import Survey, counted  # noqa: E402
from tests import test_sink_reader_keys as rk  # noqa: E402

DIGESTS = Path(__file__).parent / "data" / "sink" / "reader_output.json"


def _bench_lines(tmp: Path) -> list[bytes]:
    m = bs.Model()
    bs.gen_snapshot(tmp / "snap.jsonl", 300, m)
    clock = bs.time.time
    bs.time.time = lambda: 1_765_000_000.0  # the changes' ts_ms start at the clock's time
    try:
        bs.gen_changes(tmp / "chg.jsonl", 300, m, seed=7)
    finally:
        bs.time.time = clock
    return (tmp / "snap.jsonl").read_bytes().splitlines() + (tmp / "chg.jsonl").read_bytes().splitlines()


def _hand_lines() -> list[bytes]:
    return [c[0] for cases in (rk.CASES, rk.MY, rk.MG) for c in cases]


def _digest(batches) -> list[dict[str, str]]:
    return [
        {
            name: hashlib.sha256(orjson.dumps(rb.column(name).to_pylist())).hexdigest()[:16]
            for name in rb.schema.names
        }
        for rb in batches
    ]


def _dir(tmp: Path, name: str, lines: list[bytes], monkeypatch) -> list[dict[str, str]]:
    d = tmp / name
    d.mkdir()
    f = d / "t.jsonl"
    f.write_bytes(b"\n".join(lines) + b"\n")
    monkeypatch.setattr(sources, "READ_BLOCK", 200_000)  # several blocks per partition
    r = sources.DirReader(str(d), 1 << 40, 700_000)  # several partitions
    parts = r.partitions({}, r.latestOffset({}))
    assert len(parts) > 1 or len(lines) < 100
    return [x for p in parts for x in _digest(r.read(p))]


def _kafka(lines: list[bytes]) -> list[dict[str, str]]:
    s = Survey()
    b = Batcher()
    s.known = b.known
    kl = sources.KafkaLines("t", "t:0", b)

    def batches():
        for i, ln in enumerate(lines):
            d = orjson.loads(ln)
            key = None if d["key"] is None else orjson.dumps(d["key"])
            value = None if d["value"] is None else orjson.dumps(d["value"])
            headers = None
            if i == 5 and key is not None:
                headers = [("__debezium.oldkey", key)]
            if i == 7 and value is not None:
                value = value.replace(b',"payload":', b',\n"payload":', 1)  # a newline: per record
            kl.add(1000 + i, key, value, headers)
            if kl.size >= 300_000:
                yield from kl.flush()
        yield from kl.flush()
        if b.rows:
            yield b.flush()

    return _digest(counted(batches(), s))


def _all(tmp: Path, monkeypatch) -> dict[str, list]:
    bench = _bench_lines(tmp)
    hand = _hand_lines()
    return {
        "dir bench": _dir(tmp, "bench", bench, monkeypatch),
        "dir hand": _dir(tmp, "hand", hand, monkeypatch),
        "kafka bench": _kafka(bench),
        "kafka hand": _kafka(hand),
    }


def test_reader_output_is_unchanged(tmp_path, monkeypatch):
    got = _all(tmp_path, monkeypatch)
    want = json.loads(DIGESTS.read_text())
    assert set(got) == set(want)
    for src, batches in want.items():
        assert len(got[src]) == len(batches), f"{src}: {len(got[src])} batches, recorded {len(batches)}"
        for i, (g, w) in enumerate(zip(got[src], batches)):
            diff = sorted(c for c in set(g) | set(w) if g.get(c) != w.get(c))
            assert not diff, f"{src}, batch {i}: columns {diff} differ from the recorded output"


if __name__ == "__main__" and "--record" in sys.argv:
    import tempfile

    class _MP:
        def setattr(self, obj, name, value):
            setattr(obj, name, value)

    with tempfile.TemporaryDirectory() as t:
        out = _all(Path(t), _MP())
    DIGESTS.parent.mkdir(parents=True, exist_ok=True)
    DIGESTS.write_text(json.dumps(out, indent=1) + "\n")
    print({k: len(v) for k, v in out.items()})
