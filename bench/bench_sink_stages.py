"""The Spark sink's winners stage, step by step: the driver JVM's CPU per step over one cached micro-batch.

Input: `bench_sink.py`'s table, N snapshot rows then N changes, in one micro-batch of `python -m sink`'s
directory source. Each step (a prefix of the stage: reading the cache, `from_json` of the payload, the source
position, the canonical key, the last change per key, decoding the winners) is run to Spark's `noop` sink
REPS times; printed: the JVM's CPU seconds (all threads, /proc) per run and the minimum per snapshot row or
change (tombstones not counted).
Steps are cumulative where the name says `+`; subtract to get one expression's cost. `ingest` and
`ingest+cache` read the batch again from the source (the JVM's side of the readers' Arrow batches; the
readers' Python CPU is not in these figures). First, the readers'
Python CPU per record (block split, then `sink.reader_keys`' columns), measured in this process.

    .venv/bin/python bench/bench_sink_stages.py [--n 80000] [--reps 3] [--only winners,winners+decode]
"""

from __future__ import annotations

import argparse
import os
import shutil
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from pyspark import StorageLevel  # noqa: E402
from pyspark.sql import functions as F  # noqa: E402

import bench.bench_sink as bs  # noqa: E402
from sink import executors as X  # noqa: E402
from sink import position_expr as PE  # noqa: E402
from sink import winners as W  # noqa: E402


def _ev(recs, fast):
    fps = [g.vfp for tp in fast for g in tp.keyed()]
    return recs.where(
        F.col("topic").isin([tp.topic for tp in fast]) & F.col("vfp").isin(fps) & F.col("vp").isNotNull()
    )


def _scan(recs, fast):
    return _ev(recs, fast).select(F.length("vp").alias("n"), "kp", "part", "pos")


def _from_json(recs, fast):
    return _ev(recs, fast).select(F.from_json("vp", W.STAGE1).alias("p"))


def _position(recs, fast):
    e = _ev(recs, fast).select(F.from_json("vp", W.STAGE1).alias("p"))
    order, text = PE.position(F.col("p.source"), F.col("p.op"), PE.connector_of(fast))
    return e.select(text(order).alias("s"), "p.after")


def _key(recs, fast):
    ks = fast[0].keyed()[0].kschema
    k = F.to_json(F.from_json("kp", W.key_phys(ks, True)), {"ignoreNullFields": "false"})
    return _ev(recs, fast).select(k.alias("kc"))


def _winners(recs, fast):
    return W.winners(recs, fast, {})


def _candidates(recs, fast):
    return W.candidates(recs, fast, {})[0]


def _shuffled(recs, fast):
    return W.candidates(recs, fast, {})[0].repartition("topic", "kc")


def _unhashed(recs, fast):
    """`winners` grouped by (topic, key) alone (before session 18: no hash ahead of them)."""
    ev, text, conn, cut = W.candidates(recs, fast, {})
    return W.reduced(ev, text, conn, cut, hashed=False)


def _parsed(recs, fast):
    """The winners' `after` parsed with the row schema, no logical types, no Arrow."""
    from sink.decode import physical
    from sink.plan import after_fields

    w = W.winners(recs, fast, {})
    g = fast[0].keyed()[0]
    return w.select(F.from_json("w.after", physical({"type": "struct", "fields": after_fields(g.vschema)})))


def _decoded_noop(recs, fast):
    """The winners decoded (logical types), written to `noop` instead of brought to the driver as Arrow."""
    w = W.winners(recs, fast, {})
    return X.decoded(w, fast[0], fast[0].keyed()[0])


def _decoded(recs, fast):
    w = W.winners(recs, fast, {})
    return lambda: [X.decoded_winners(w, tp, g) for tp in fast for g in tp.keyed()]


def _expr_winners(recs, fast):
    """`winners` with the position's text made by the Spark expression (before session 19)."""
    ev, text, conn, cut = W.candidates(recs, fast, {})
    return W.reduced(ev, lambda o: text(o), conn, cut)  # a function without `widths`


def _decoded_expr(recs, fast):
    """`winners+decode` with every Decimal and the position's text made by Spark expressions (before session
    19's Arrow-side decoding, `sink.arrow_decode`)."""
    w = _expr_winners(recs, fast)
    return lambda: [X.decoded(w, tp, g).toArrow() for tp in fast for g in tp.keyed()]


def _decoded_seq_expr(recs, fast):
    """`winners+decode` with the position's text made by the Spark expression, Decimals from Arrow."""
    w = _expr_winners(recs, fast)
    return lambda: [X.decoded_winners(w, tp, g) for tp in fast for g in tp.keyed()]


def _decoded_whole(recs, fast):
    """`winners+decode` with the whole payload carried and parsed (before the readers' `after` ranges)."""
    cut = W.after_ranges
    W.after_ranges = lambda plans, conn: False
    try:
        w = W.winners(recs, fast, {})
    finally:
        W.after_ranges = cut
    return lambda: [X.decoded_winners(w, tp, g) for tp in fast for g in tp.keyed()]


def _decoded_exprs(recs, fast):
    """`winners+decode` with the winners' `after` read by `from_json` and Spark expressions (before session 20's
    driver-side reading, `sink.arrow_json`)."""
    w = W.winners(recs, fast, {})

    def run():
        readable = X.json_readable
        X.json_readable = lambda *a: False
        try:
            return [X.decoded_winners(w, tp, g) for tp in fast for g in tp.keyed()]
        finally:
            X.json_readable = readable

    return run


def _events(recs, fast):
    """SCD type 2's events of the batch (`sink.executors.events`: every change event's row), their images
    parsed on the driver (`sink.arrow_json.images`, session 21), then as Python rows (`pyrows`, as
    `topic_events` makes them)."""

    def run():
        for tp in fast:
            for g in tp.keyed():
                X.pyrows(X.events(recs, tp, g, False).column("row"), X.after_fields(g.vschema))

    return run


def _events_exprs(recs, fast):
    """`events` with the images decoded by `from_json` and Spark expressions on executors (before session 21)."""

    def run():
        read = X.events_read
        X.events_read = lambda *a: None
        try:
            _events(recs, fast)()
        finally:
            X.events_read = read

    return run


_RAW = []  # the micro-batch's DataFrame before the cache (set per batch)


def _ingest(recs, fast):
    """The batch read again from the source (the readers on executors, Arrow into the JVM), no cache."""
    return _RAW[0]


def _ingest_cache(recs, fast):
    """The same, filling a cache as `run_batch` does (`persist`, then the survey's job)."""

    def run():
        c = _RAW[0].persist()
        c.write.format("noop").mode("overwrite").save()
        c.unpersist()

    return run


def reader_cpu(path: Path) -> tuple[int, float, float]:
    """(records, CPU s of the block split, CPU s of the reader's op/position/key columns) of one file, in this
    process: the executors' Python per record that the JVM steps above no longer do."""
    from sink.lines import split_block
    from sink.reader_keys import columns
    from sink.split import Batcher

    b, n, t_split, t_keys = Batcher(), 0, 0.0, 0.0
    data = path.read_bytes()
    at = 0
    while at < len(data):
        end = data.rfind(b"\n", at, at + (16 << 20)) + 1 or len(data)
        c0 = time.process_time()
        rb, _ = split_block(data[at:end], at, "t", path.name, b)
        c1 = time.process_time()
        if rb is not None:
            texts = {fp: t.decode() if isinstance(t, bytes) else t for t, fp in b.known.items()}
            columns(rb.column("vp"), rb.column("vfp"), rb.column("kp"), rb.column("kfp"), texts)
            n += rb.num_rows
        t_split += c1 - c0
        t_keys += time.process_time() - c1
        at = end
    return n, t_split, t_keys


def _cached_batch(recs, fast):
    """`sink.microbatch.cached_batch` up to the winners decoded (no write): the cache's fill by the survey's job,
    the plan, the winners job over the cache (before session 21's one pass)."""
    from sink.batch import Options
    from sink.plan import classify, records, survey

    def run():
        c = _RAW[0].persist(StorageLevel.DISK_ONLY)
        plans = survey(c)
        for tp in plans.values():
            classify(tp, _RAW[1], Options())
        ok = [tp for tp in plans.values() if tp.fast]
        w = W.winners(records(c), ok, {})
        out = [X.decoded_winners(w, tp, g) for tp in ok for g in tp.keyed()]
        c.unpersist()
        return out

    return run


def _one_pass(recs, fast):
    """`sink.onepass.winners_of`: the same in one job, no cache (session 21)."""
    from sink import onepass
    from sink.batch import Options

    def run():
        assert onepass.winners_of(_RAW[0], _RAW[1], Options()) is not None

    return run


RAW_STEPS = ("ingest", "ingest+cache", "cached batch", "one pass")
STEPS = {
    "ingest": _ingest,
    "ingest+cache": _ingest_cache,
    "cached batch": _cached_batch,
    "one pass": _one_pass,
    "scan": _scan,
    "+from_json": _from_json,
    "+from_json+position text": _position,
    "canonical key": _key,
    "winners input": _candidates,
    "winners input+shuffle": _shuffled,
    "winners": _winners,
    "winners unhashed": _unhashed,
    "winners+parse": _parsed,
    "winners+decode noop": _decoded_noop,
    "winners+decode": _decoded,
    "winners+decode expr": _decoded_expr,
    "winners+decode seq expr": _decoded_seq_expr,
    "winners+decode whole": _decoded_whole,
    "winners+decode exprs": _decoded_exprs,
    "events": _events,
    "events exprs": _events_exprs,
}


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--n", type=int, default=80_000)
    ap.add_argument("--reps", type=int, default=3)
    ap.add_argument("--only", help="comma-separated step names")
    ap.add_argument("--explain", action="store_true", help="print each step's physical plan once")
    a = ap.parse_args()
    only = a.only.split(",") if a.only else list(STEPS)
    work = Path(tempfile.mkdtemp(prefix="bench-sink-stages-"))
    src = work / "in"
    src.mkdir()
    m = bs.Model()
    f = src / f"{bs.TOPIC}.jsonl"
    bs.gen_snapshot(f, a.n, m)
    bs.gen_changes(work / "c.jsonl", a.n, m)
    with open(f, "ab") as out:
        out.write((work / "c.jsonl").read_bytes())
    from sink.batch import Options
    from sink.job import driver_jvm_pid, spark_session
    from sink.plan import classify, records, survey

    n, t_split, t_keys = reader_cpu(f)
    print(
        f"reader (Python, this process): block split {t_split / n * 1e6:.1f} µs, op/position/key columns "
        f"{t_keys / n * 1e6:.1f} µs per record ({n} records)",
        flush=True,
    )
    spark = spark_session(master=os.environ.get("SINK_MASTER", "local[2]"))
    pid = driver_jvm_pid(spark)

    def jvm_cpu() -> float:
        s = open(f"/proc/{pid}/stat").read().rsplit(")", 1)[1].split()
        return (int(s[11]) + int(s[12])) / os.sysconf("SC_CLK_TCK")

    def workers_cpu() -> float:
        """The CPU of the JVM's descendants (the executors' Python daemon and workers, with their reaped
        children): the readers' Python for the steps that read the source."""
        kids: dict[int, list[int]] = {}
        stats: dict[int, list[str]] = {}
        for d in os.listdir("/proc"):
            if d.isdigit():
                try:
                    s = open(f"/proc/{d}/stat").read().rsplit(")", 1)[1].split()
                except OSError:
                    continue
                stats[int(d)] = s
                kids.setdefault(int(s[1]), []).append(int(d))
        total, todo = 0, list(kids.get(pid, []))
        while todo:
            p = todo.pop()
            s = stats[p]
            total += int(s[11]) + int(s[12]) + int(s[13]) + int(s[14])
            todo += kids.get(p, [])
        return total / os.sysconf("SC_CLK_TCK")

    res: dict[str, list[float]] = {}
    py: dict[str, list[float]] = {}  # this process's CPU (the driver's Python: Arrow-side decoding)
    wk: dict[str, list[float]] = {}  # the executors' Python workers' CPU (`workers_cpu`)
    n_records = [0]

    def run(name: str, rep: int, q) -> None:
        c0, t0, p0, w0 = jvm_cpu(), time.time(), time.process_time(), workers_cpu()
        q() if callable(q) else q.write.format("noop").mode("overwrite").save()
        c, p, w = jvm_cpu() - c0, time.process_time() - p0, workers_cpu() - w0
        res.setdefault(name, []).append(c)
        py.setdefault(name, []).append(p)
        wk.setdefault(name, []).append(w)
        print(
            f"rep {rep} {name:26s} JVM CPU {c:6.2f} s, this process {p:5.2f} s, workers {w:5.2f} s, "
            f"wall {time.time() - t0:6.2f} s",
            flush=True,
        )

    def batch(df, _bid):
        # the source read again, before the batch's cache exists (a cached plan would be read instead)
        _RAW[:] = [df, str(work / "t")]
        for rep in range(a.reps):
            for name in [x for x in only if x in RAW_STEPS]:
                run(name, rep, STEPS[name](None, None))
        # on disk, as `run_batch` keeps it (session 13)
        cached = df.persist(StorageLevel.DISK_ONLY)
        plans = survey(cached)
        recs = records(cached)
        for tp in plans.values():
            classify(tp, str(work / "t"), Options())
        fast = [tp for tp in plans.values() if tp.fast]
        n_records[0] = sum(tp.records for tp in plans.values())
        if a.explain:
            for name in [x for x in only if x in ("winners", "winners unhashed")]:
                STEPS[name](recs, fast).explain()
        for rep in range(a.reps):
            for name in [x for x in only if x not in RAW_STEPS]:
                run(name, rep, STEPS[name](recs, fast))
        cached.unpersist()

    q = (
        spark.readStream.format("dbz_dir")
        .option("path", str(src))
        .option("maxBytesPerBatch", str(1 << 34))
        .load()
        .writeStream.foreachBatch(batch)
        .option("checkpointLocation", str(work / "ck"))
        .trigger(availableNow=True)
        .start()
    )
    q.awaitTermination()
    spark.stop()
    shutil.rmtree(work, ignore_errors=True)
    print(
        f"{n_records[0]} records ({a.n} snapshot rows + {a.n} changes and their tombstones); load {bs.load_average()}"
    )
    for name, v in res.items():
        med = sorted(v)[len(v) // 2]
        print(
            f"  {name:26s} min {min(v):6.2f} s JVM CPU = {min(v) / (2 * a.n) * 1e6:6.1f} µs per row/change "
            f"(median {med:5.2f} s); this process min {min(py[name]):5.2f} s; workers min {min(wk[name]):5.2f} s "
            f"(median {sorted(wk[name])[len(v) // 2]:5.2f})"
        )


if __name__ == "__main__":
    main()
