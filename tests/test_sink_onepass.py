"""A micro-batch in one pass (`sink.onepass`): the winners and the readers' survey in one job, no batch cache.

The same input through the one-pass path and through the cached path only (`Options.one_pass=None`) gives the
same tables; the one-pass table is also the generator's own model of the final table (bench_sink's records:
a snapshot, then updates with skewed keys, inserts, deletes with tombstones, over several batches). A batch
whose plan the one pass does not fit (columns `sink.arrow_json` does not read, several tables of real
Debezium's recorded PostgreSQL stream) is written by the cached path, with the same tables.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

pytest.importorskip("pyspark", reason="pyspark not installed (pip install -e '.[sink]')")
pytest.importorskip("deltalake", reason="deltalake not installed (pip install -e '.[sink]')")

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from sink_checks import spark_fixture, table_rows  # noqa: E402, F401

import bench.bench_sink as bs  # noqa: E402
from sink import microbatch  # noqa: E402
from sink.batch import Options  # noqa: E402
from sink.read import read_arrow, topics  # noqa: E402

RECORDED = Path(__file__).parent / "data" / "pg" / "pg_public.jsonl"


def _run(spark, src: Path, out: Path, opts: Options, monkeypatch, batch_records: int) -> list:
    """`sink.job.run --once` over `src`; the BatchStats of each micro-batch."""
    from sink.job import run

    seen = []
    batch = microbatch.run_batch

    def spy(*a, **k):
        st = batch(*a, **k)
        seen.append(st)
        return st

    monkeypatch.setattr(microbatch, "run_batch", spy)
    quiet = {"log": lambda *a, **k: None}
    rc = run(
        str(src),
        str(out / "tables"),
        str(out / "ck"),
        True,
        spark=spark,
        opts=opts,
        read_options={"maxRecordsPerBatch": batch_records},
        **quiet,
    )
    monkeypatch.setattr(microbatch, "run_batch", batch)
    assert rc == 0
    return seen


def _tables(out: Path) -> dict[str, list[tuple]]:
    got = {}
    for t in topics(str(out / "tables")):
        cols = read_arrow(str(out / "tables" / t)).column_names
        got[t] = table_rows(out / "tables" / t, cols)
    return got


def test_one_pass_gives_the_cached_paths_tables(tmp_path, spark, monkeypatch):
    src = tmp_path / "in"
    src.mkdir()
    m = bs.Model()
    f = src / f"{bs.TOPIC}.jsonl"
    bs.gen_snapshot(f, 400, m)
    bs.gen_changes(f, 900, m)
    one = _run(spark, src, tmp_path / "one", Options(), monkeypatch, 300)
    cached = _run(spark, src, tmp_path / "cached", Options(one_pass=None), monkeypatch, 300)
    assert len(one) >= 4
    assert [st.one_pass for st in one] == [True] * len(one)
    assert [st.one_pass for st in cached] == [False] * len(cached)
    assert [st.records for st in one] == [st.records for st in cached]
    assert [st.applied for st in one] == [st.applied for st in cached]
    got = _tables(tmp_path / "one")
    assert got == _tables(tmp_path / "cached")
    t = read_arrow(str(tmp_path / "one" / "tables" / bs.TOPIC))
    names = dict(zip(t.column("id").to_pylist(), t.column("name").to_pylist(), strict=True))
    assert names == {k: f"name-{k}-{v}" for k, v in m.rows.items()}  # the generator's model


def test_a_batch_the_one_pass_does_not_fit_takes_the_cached_path(tmp_path, spark, monkeypatch):
    src = tmp_path / "in"
    src.mkdir()
    for line in RECORDED.read_text().splitlines():
        if line.strip():
            r = json.loads(line)
            with open(src / f"{r['topic']}.jsonl", "a") as out:
                out.write(json.dumps({"key": r["key"], "value": r["value"]}) + "\n")
    opts = Options()
    one = _run(spark, src, tmp_path / "one", opts, monkeypatch, 100_000)
    cached = _run(spark, src, tmp_path / "cached", Options(one_pass=None), monkeypatch, 100_000)
    assert [st.one_pass for st in one] == [False]
    assert opts.one_pass is False  # the next batch's guess: this one did not fit
    assert one[0].fast == cached[0].fast and one[0].driver == cached[0].driver
    assert repr(_tables(tmp_path / "one")) == repr(_tables(tmp_path / "cached"))  # NaN != NaN


def _with_nan_score(src: Path) -> None:
    """bench_sink's snapshot of 60 rows with one double printed as "NaN" (JsonConverter's form)."""
    m = bs.Model()
    f = src / f"{bs.TOPIC}.jsonl"
    bs.gen_snapshot(f, 60, m)
    lines = f.read_bytes().splitlines(keepends=True)
    assert b'"score":' in lines[6]
    head, _, rest = lines[6].partition(b'"score":')
    lines[6] = head + b'"score":"NaN"' + rest[rest.index(b",") :]
    f.write_bytes(b"".join(lines))


def test_a_nan_double_stays_on_the_one_pass(tmp_path, spark, monkeypatch):
    """A double printed as "NaN" is read by `sink.arrow_json` (session 21): the batch stays on the one pass,
    with the cached path's table and the NaN written."""
    src = tmp_path / "in"
    src.mkdir()
    _with_nan_score(src)
    opts = Options()
    one = _run(spark, src, tmp_path / "one", opts, monkeypatch, 100_000)
    _run(spark, src, tmp_path / "cached", Options(one_pass=None), monkeypatch, 100_000)
    assert [st.one_pass for st in one] == [True]
    assert repr(_tables(tmp_path / "one")) == repr(_tables(tmp_path / "cached"))  # NaN != NaN
    scores = read_arrow(str(tmp_path / "one" / "tables" / bs.TOPIC)).column("score").to_pylist()
    assert sum(s != s for s in scores) == 1  # the NaN, written


def test_a_text_arrow_json_does_not_read_falls_back_for_the_run(tmp_path, spark, monkeypatch):
    """A text `sink.arrow_json` does not read (here: its reader made to refuse every text, as it refuses
    e.g. a ZonedTimestamp of another form): the one pass writes nothing, the batch takes the cached path,
    and the run stops trying (the next batches likely hold such texts too)."""
    from sink import arrow_json

    def refuse(*_a, **_k):
        raise arrow_json.NotRead("refused by the test")

    src = tmp_path / "in"
    src.mkdir()
    _with_nan_score(src)
    _run(spark, src, tmp_path / "cached", Options(one_pass=None), monkeypatch, 100_000)
    monkeypatch.setattr(arrow_json, "read", refuse)
    opts = Options()
    one = _run(spark, src, tmp_path / "one", opts, monkeypatch, 100_000)
    assert [st.one_pass for st in one] == [False]
    assert opts.one_pass is None
    assert repr(_tables(tmp_path / "one")) == repr(_tables(tmp_path / "cached"))


def test_one_pass_over_two_topics(tmp_path, spark, monkeypatch):
    """Two topics (the directory source names a topic by its file) in each batch: each topic's winners are its
    own (the one pass splits the collected winners by topic and value schema)."""
    src = tmp_path / "in"
    src.mkdir()
    m = bs.Model()
    f = src / f"{bs.TOPIC}.jsonl"
    bs.gen_snapshot(f, 300, m)
    bs.gen_changes(f, 600, m)
    other = bs.Model()
    g = tmp_path / "other.jsonl"
    bs.gen_snapshot(g, 200, other)
    bs.gen_changes(g, 500, other, seed=7)
    (src / "bench.public.u.jsonl").write_bytes(g.read_bytes())
    one = _run(spark, src, tmp_path / "one", Options(), monkeypatch, 400)
    assert [st.one_pass for st in one] == [True] * len(one)
    assert any(len(st.fast) == 2 for st in one)
    for topic, model in ((bs.TOPIC, m), ("bench.public.u", other)):
        t = read_arrow(str(tmp_path / "one" / "tables" / topic))
        names = dict(zip(t.column("id").to_pylist(), t.column("name").to_pylist(), strict=True))
        assert names == {k: f"name-{k}-{v}" for k, v in model.rows.items()}


def test_one_pass_shuffles_only_what_the_driver_reads(spark):
    """The one pass's winners carry only the fields the driver reads (each is copied into the aggregate's
    buffer at every new maximum and carried through the shuffle), and its exchange hashes the 64-bit key hash
    alone (a second hash of the topic and key texts bought nothing: the same rows meet)."""
    import re

    from sink import onepass
    from sink.stats import READ_SCHEMA

    w, q = onepass.query(spark.createDataFrame([], READ_SCHEMA))
    winner = [f.name for f in w.schema["w"].dataType.fields]
    assert winner == ["seq", *onepass.WINNER, "after"]
    assert {"kp", "fill", "part", "pos"}.isdisjoint(winner)
    plan = q._jdf.queryExecution().executedPlan().toString()
    parts = re.findall(r"hashpartitioning\(([^)]*)\)", plan)
    assert len(parts) == 1, plan
    assert re.fullmatch(r"h#\d+L, \d+", parts[0]), plan
