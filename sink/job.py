"""The Structured Streaming job: source → foreachBatch(decode, dedupe, delta-rs MERGE) with a checkpoint."""

from __future__ import annotations

import json
import os
import signal
import sys
import threading
import time

import orjson


def spark_session(app: str = "dbz-sink", cores: int = 2):
    os.environ.setdefault("SPARK_LOCAL_IP", "127.0.0.1")
    os.environ.setdefault("PYSPARK_PYTHON", sys.executable)
    os.environ.setdefault("PYSPARK_DRIVER_PYTHON", sys.executable)
    from pyspark.sql import SparkSession

    spark = (
        SparkSession.builder.master(f"local[{cores}]")
        .appName(app)
        .config("spark.sql.shuffle.partitions", "2")
        .config("spark.ui.enabled", "false")
        .config("spark.ui.showConsoleProgress", "false")
        .config("spark.sql.session.timeZone", "UTC")
        .config("spark.driver.memory", "2g")
        .getOrCreate()
    )
    spark.sparkContext.setLogLevel("ERROR")
    from sink.sources import DirSource, KafkaSource

    spark.dataSource.register(DirSource)
    spark.dataSource.register(KafkaSource)
    return spark


def _app_id(checkpoint: str) -> str:
    with open(os.path.join(checkpoint, "metadata")) as f:
        return "dbz-sink-" + json.load(f)["id"]


def _records(batch_df):
    t = batch_df.toArrow()
    cols = [t.column(n).to_pylist() for n in ("topic", "key", "value", "line", "part", "pos")]
    for topic, k, v, line, part, pos in zip(*cols):
        if line is not None:
            d = orjson.loads(line)
            yield topic, d.get("key"), d.get("value"), (part, pos), d.get("headers")
        else:
            yield (
                topic,
                None if k is None else orjson.loads(k),
                None if v is None else orjson.loads(v),
                (part, pos),
            )


def make_batch_fn(tables: str, checkpoint: str, source: str, log=print, opts=None):
    from sink.apply import Options, apply_batch
    from sink.sources import complete_ends

    opts = opts or Options()
    if opts.log is None:
        opts.log = log

    state = {"app": None, "records": 0}

    def fn(batch_df, batch_id: int) -> None:
        t0 = time.time()
        if state["app"] is None:
            state["app"] = _app_id(checkpoint)
        recs = list(_records(batch_df))
        st = apply_batch(tables, recs, state["app"], batch_id, opts)
        now = time.time()
        state["records"] += st.records
        lag = f"{now * 1000 - st.max_ts_ms:.0f} ms" if st.max_ts_ms else "-"
        backlog = ""
        if not source.startswith("kafka:"):
            backlog = f", source files {sum(complete_ends(source).values()) / 1e6:.2f} MB"
        msg = (
            f"batch {batch_id}: {st.records} records, {sum(max(0, n) for n in st.applied.values())} rows merged "
            f"into {len(st.applied)} tables in {now - t0:.2f} s; newest-event lag {lag}; "
            f"total {state['records']} records{backlog}"
        )
        if st.pruned:
            msg += f"; {st.pruned} expired tombstones pruned"
        if st.skipped_replay:
            msg += f"; replayed batch already in {len(st.skipped_replay)} tables (skipped)"
        log(msg, flush=True)
        crash = os.environ.get("DBZ_SINK_CRASH_AFTER_WRITE")
        if crash is not None and int(crash) == batch_id:
            log(f"batch {batch_id}: crash injected after the write, before the checkpoint commit", flush=True)
            os._exit(17)

    return fn


def run(
    source: str,
    tables: str,
    checkpoint: str,
    once: bool,
    log=print,
    spark=None,
    trigger_ms: int = 500,
    opts=None,
) -> int:
    """Run the query; with `spark` given (tests), that session is used and left running. `opts`:
    sink.apply.Options (tombstone retention)."""
    if spark is None:
        spark = spark_session()
    else:
        from sink.sources import DirSource, KafkaSource

        spark.dataSource.register(DirSource)
        spark.dataSource.register(KafkaSource)
    os.makedirs(tables, exist_ok=True)
    if source.startswith("kafka:"):
        reader = spark.readStream.format("dbz_kafka").option("bootstrap", source[len("kafka:") :])
    else:
        reader = spark.readStream.format("dbz_dir").option("path", os.path.abspath(source))
    w = (
        reader.load()
        .writeStream.foreachBatch(make_batch_fn(tables, checkpoint, source, log, opts))
        .option("checkpointLocation", checkpoint)
    )
    w = w.trigger(availableNow=True) if once else w.trigger(processingTime=f"{trigger_ms} milliseconds")
    q = w.start()
    if once:
        q.awaitTermination()
    else:
        _keep_running(q, log)
    if q.exception() is not None:
        log(f"sink failed: {q.exception()}", file=sys.stderr, flush=True)
        return 1
    return 0


def _keep_running(q, log) -> None:
    """Wait for the query, logging progress every 30 s; SIGTERM/SIGINT stop it. The signal only sets a flag:
    raising inside a py4j call (the default handler's KeyboardInterrupt) breaks the gateway connection."""
    stop = threading.Event()
    if threading.current_thread() is threading.main_thread():
        for sig in (signal.SIGTERM, signal.SIGINT):
            signal.signal(sig, lambda *_: stop.set())
    last = time.monotonic()
    while q.isActive and not stop.is_set():
        q.awaitTermination(0.5)
        if time.monotonic() - last >= 30:
            last = time.monotonic()
            p = q.lastProgress
            if p:
                src = p["sources"][0] if p.get("sources") else {}
                log(
                    f"progress: batch {p['batchId']}, {p['numInputRows']} rows, "
                    f"offset {str(src.get('endOffset'))[:200]}",
                    flush=True,
                )
    if stop.is_set():
        log("stopping: signal received", flush=True)
        q.stop()
