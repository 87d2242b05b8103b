"""The Structured Streaming job: source → foreachBatch(decode, dedupe, delta-rs MERGE) with a checkpoint."""

from __future__ import annotations

import json
import os
import signal
import sys
import threading
import time

# Defaults for settings the user did not give (spark-submit --conf, PYSPARK_SUBMIT_ARGS, spark-defaults.conf):
# start fast and keep small micro-batches from spreading over 200 shuffle partitions.
DEFAULTS = {
    "spark.ui.enabled": "false",
    "spark.ui.showConsoleProgress": "false",
    "spark.sql.adaptive.enabled": "true",
    "spark.sql.adaptive.coalescePartitions.enabled": "true",
    "spark.sql.shuffle.partitions": None,  # the cluster's default parallelism (set after start)
    "spark.sql.execution.arrow.pyspark.enabled": "true",
    # a Python worker that takes longer than 15 s to start (a busy machine) would fail the query
    "spark.python.authenticate.socketTimeout": "120s",
    # the rule rewrites `from_json(x).a, from_json(x).b, ...` into one pruned from_json per field: the payload
    # was parsed once per column (15 times for the benchmark's 10 columns); without it, subexpression
    # elimination parses it once per row (-30 % CPU in the final rows' decoding)
    "spark.sql.optimizer.enableJsonExpressionOptimization": "false",
    # Python workers import pyspark from its installed files, not from the zip Spark puts first on their path
    # (compiled again by every worker: ~0.6 s of CPU each, nine per run; sink/daemon.py)
    "spark.python.daemon.module": "sink.daemon",
    # the batch's cache (`run_batch`) holds mostly distinct payload texts: compressing it tried a dictionary
    # on every value (hashing and copying each payload) for nothing; filling it cost 15-16 JVM-µs per record
    # compressed against 7-8 uncompressed (bench_sink_stages.py `ingest+cache` - `ingest`), reading it the same
    "spark.sql.inMemoryColumnarStorage.compressed": "false",
}
# local mode: the JVM's optimizing compiler (C2) competes with the work for the cores during the first minutes
# and had not paid off after three 20k-row batches (2.3 s CPU warm with C1 only, 3.0 s with C2, and half the
# first batch's CPU); the serial collector keeps the heap small (the JVM's share of a 50k-row run 537 MB PSS
# against 857 MB with G1, the same CPU time); executors of a cluster keep their own settings. The metaspace's
# first GC threshold (21 MB by default) was crossed during the first batch of every run, a full collection
# (a 0.6-1.7 s pause at load 15-19) for nothing: the run's metaspace stays at 22-23 MB (most classes come from
# the class cache), so 64 MB leaves that collection out (docs/sink.md, session 16)
LOCAL_JVM = "-XX:TieredStopAtLevel=1 -XX:+UseSerialGC -XX:MetaspaceSize=64m"
# local mode: the heap's initial size, fixed rather than the JVM's default 1/64 of the machine's memory. The
# serial collector keeps the heap at its initial size while the live data fits (~90-170 MB between young
# collections at the 150k-record batch bound), so the JVM's share of the peak followed the machine: 365 MB of
# heap here (24 GB), the 1 GB maximum from 64 GB on (the 200k benchmark with -Xms1g: JVM 828 MB at the peak,
# the tree 1.56 GB). With 256 MB the small-record run (3 columns, 1M changes) peaked at 1.39 GB against
# 1.50-1.51 (JVM 625 against 741-763 MB), for 8 full collections against 1 (docs/sink.md, session 17)
LOCAL_HEAP = "-Xms256m"


def spark_session(app: str = "dbz-sink", master: str | None = None, started=None):
    """The session as users run Spark: the master comes from `master` (--master), else from spark-submit /
    PYSPARK_SUBMIT_ARGS / spark-defaults.conf, else `local[*]`. Only the session time zone is fixed (UTC:
    timestamps are decoded as UTC instants). `started(spark)` is called once the session and its Python
    workers' environment exist, before the data sources are registered."""
    os.environ.setdefault("PYSPARK_PYTHON", sys.executable)
    os.environ.setdefault("PYSPARK_DRIVER_PYTHON", sys.executable)
    from pyspark.sql import SparkSession

    from sink.nopandas import at_pyarrow_import, pyspark_probe

    pyspark_probe()  # pyspark's own look for pandas, with pandas hidden (sink/nopandas.py)
    at_pyarrow_import()  # and pyarrow's, at the driver's first array from Python values (the one pass's)

    given = given_settings()
    b = SparkSession.builder.appName(app)
    if master:
        b = b.master(master)
    elif "spark.master" not in given and not os.environ.get("PYSPARK_GATEWAY_PORT"):
        b = b.master("local[*]")
    for k, v in DEFAULTS.items():
        if v is not None and k not in given:
            b = b.config(k, v)
    if "spark.master" not in given and (master or "local").startswith("local"):
        os.environ.setdefault("SPARK_LOCAL_IP", "127.0.0.1")
    if "spark.driver.extraJavaOptions" not in given and not os.environ.get("PYSPARK_GATEWAY_PORT"):
        from sink.jvm_cache import java_options

        opts = [java_options()]
        if (master or "local").startswith("local") and "spark.master" not in given:
            opts.append(LOCAL_JVM)
            if "spark.driver.memory" not in given:  # a user's size wins
                opts.append(LOCAL_HEAP)
        if os.environ.get("DBZ_SINK_SPARK_LOG") != "WARN":
            conf = os.path.join(os.path.dirname(os.path.abspath(__file__)), "log4j2.properties")
            opts.append(f"-Dlog4j2.configurationFile=file:{conf}")
        if any(opts):
            b = b.config("spark.driver.extraJavaOptions", " ".join(o for o in opts if o))
    b = b.config("spark.sql.session.timeZone", "UTC")
    if os.environ.get("PYSPARK_GATEWAY_PORT"):  # spark-submit started the JVM: its environment is not ours
        spark = b.getOrCreate()
    else:
        saved = os.environ.get("PYTHONPATH")
        os.environ["PYTHONPATH"] = with_boot(saved)  # the JVM's environment: every Python process it starts
        try:
            spark = b.getOrCreate()
        finally:
            if saved is None:
                del os.environ["PYTHONPATH"]
            else:
                os.environ["PYTHONPATH"] = saved
    # the data source's own worker environment (its planners, the offset runner, the executors' readers): also
    # reached under spark-submit; not the data-source lookup, which Spark starts with the JVM's environment only
    env = spark.sparkContext.environment
    env["PYTHONPATH"] = with_boot(env.get("PYTHONPATH"))
    if "spark.sql.shuffle.partitions" not in given:
        spark.conf.set("spark.sql.shuffle.partitions", str(max(1, spark.sparkContext.defaultParallelism)))
    spark.sparkContext.setLogLevel(os.environ.get("DBZ_SINK_SPARK_LOG", "OFF"))
    if started is not None:
        # before the registration: its first one starts the JVM's data-source lookup (a Python daemon and
        # worker, ~0.4 CPU-s), which the warm-up job's workers then overlap instead of following
        started(spark)
    from sink.sources import DirSource, KafkaSource

    spark.dataSource.register(DirSource)
    spark.dataSource.register(KafkaSource)
    return spark


# Put first on the PYTHONPATH of the Python processes Spark starts: its sitecustomize drops Spark's pyspark zip
# from their path, so that they import the installed pyspark's compiled files (sink/boot/sitecustomize.py)
BOOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "boot")


def with_boot(path: str | None) -> str:
    """`path` (a PYTHONPATH value) with BOOT first (once)."""
    rest = [p for p in (path or "").split(os.pathsep) if p and p != BOOT]
    return os.pathsep.join([BOOT, *rest])


def given_settings() -> set[str]:
    """Setting names the user gave outside this program: PYSPARK_SUBMIT_ARGS (--conf k=v, --master) and
    $SPARK_CONF_DIR/spark-defaults.conf."""
    import shlex

    out: set[str] = set()
    args = shlex.split(os.environ.get("PYSPARK_SUBMIT_ARGS", ""))
    for i, a in enumerate(args):
        if a == "--master":
            out.add("spark.master")
        elif a == "--conf" and i + 1 < len(args):
            out.add(args[i + 1].split("=", 1)[0])
        elif a.startswith("--conf="):
            out.add(a[len("--conf=") :].split("=", 1)[0])
        elif a == "--driver-memory":
            out.add("spark.driver.memory")
    conf_dir = os.environ.get("SPARK_CONF_DIR") or (
        os.path.join(os.environ["SPARK_HOME"], "conf") if os.environ.get("SPARK_HOME") else None
    )
    if conf_dir and os.path.exists(os.path.join(conf_dir, "spark-defaults.conf")):
        with open(os.path.join(conf_dir, "spark-defaults.conf")) as f:
            for line in f:
                if line.strip() and not line.lstrip().startswith("#"):
                    out.add(line.split()[0])
    return out


def check_source(source: str, registry_url: str | None = None) -> None:
    """Refuse at once (one line, exit 2) what cannot work: a missing directory, an unreachable Kafka, files
    whose first record is not a Debezium record, Avro records without a schema registry."""
    from sink.errors import UsageError

    if registry_url and not registry_url.startswith(("http://", "https://", "mock://")):
        raise UsageError(f"--schema-registry-url {registry_url}: not an http(s):// or mock:// URL")
    if source.startswith("kafka:"):
        if registry_url and registry_url.startswith("mock://"):
            raise UsageError(
                f"--schema-registry-url {registry_url}: a mock:// registry lives in the process that wrote the "
                "records; reading Kafka needs the registry's http(s) URL"
            )
        from confluent_kafka import KafkaError
        from confluent_kafka.admin import AdminClient

        bootstrap = source[len("kafka:") :]
        errors: list = []
        admin = AdminClient(
            {
                "bootstrap.servers": bootstrap,
                "socket.timeout.ms": 5000,
                "log_level": 0,
                "error_cb": errors.append,
            }
        )
        # up to 10 s, but a refused connection is reported within a second: give up once every broker has been
        # down for 2 s (a broker that is still starting gets that long) instead of waiting out the 10 s
        start = time.monotonic()
        while True:
            try:
                admin.list_topics(timeout=0.5)
                return
            except Exception as e:
                admin.poll(0)  # serves error_cb
                waited = time.monotonic() - start
                down = any(x.code() == KafkaError._ALL_BROKERS_DOWN for x in errors)
                if waited >= 10 or (down and waited >= 2):
                    first = errors[0].str() if errors else str(e)
                    raise UsageError(f"Kafka at {bootstrap} is unreachable ({first})") from None
    if not os.path.isdir(source):
        raise UsageError(f"--source {source}: no such directory (the emulator's --out directory)")
    import orjson

    from sink.batch import UNWRAPPED_KEYLESS, unwrapped_payload

    for n in sorted(os.listdir(source)):
        if not n.endswith(".jsonl") or n.startswith((".", "_")):
            continue
        with open(os.path.join(source, n), "rb") as f:
            line = f.readline(1 << 24)
        if not line.strip():
            continue
        try:
            d = orjson.loads(line)
        except orjson.JSONDecodeError:
            d = None
        if not (isinstance(d, dict) and "key" in d and "value" in d):
            raise UsageError(
                f"{os.path.join(source, n)}: line 1 is not a Debezium record "
                '(expected the emulator\'s directory output, {"key": ..., "value": ...} per line)'
            )
        v = d["value"]
        if any(isinstance(x, dict) and set(x) == {"b64"} for x in (d["key"], v)):
            has_file = os.path.exists(os.path.join(source, "registry.json"))
            if not has_file and not (registry_url and not registry_url.startswith("mock://")):
                raise UsageError(
                    f"{os.path.join(source, n)}: Avro records (AvroConverter) need their schema registry: "
                    "--schema-registry-url URL (schema.registry.url), or registry.json in the directory"
                )
            continue
        if v is not None and not (isinstance(v, dict) and "payload" in v and "schema" in v):
            raise UsageError(
                f"{os.path.join(source, n)}: line 1 has no Connect schema (the sink reads JsonConverter "
                "records with schemas.enable=true)"
            )
        if v is not None and d["key"] is None and unwrapped_payload(v["payload"]):
            raise UsageError(f"{os.path.join(source, n)}: {UNWRAPPED_KEYLESS}")


def _app_id(checkpoint: str) -> str:
    with open(os.path.join(checkpoint, "metadata")) as f:
        return "dbz-sink-" + json.load(f)["id"]


# How long the first batch waits for the warm-up job (sink/prestart.py) before its read tasks start. Still
# busy with its imports (a loaded machine), the job holds its workers, and Spark forked two more for the
# read tasks (4 workers instead of 2 at local[2]: each ~90 MB and ~0.5 CPU-s of imports); once it has ended
# they take its workers. Bounded: a warm-up that hangs (a cluster without executors yet) costs only this.
WARM_WAIT_S = 60


# Python processes that only plan a query: they look up data sources, create ours and plan its reads before
# the first micro-batch, then stay idle in the JVM's worker pools for the rest of the run (a daemon and a worker
# each, ~375 MB RSS of a run's ~1.6 GB). The JVM starts a daemon again if a later query needs one (it restarts a
# daemon it cannot reach), so ending them once the first batch is planned costs nothing.
PLANNERS = (
    b"pyspark.sql.worker.lookup_data_sources",
    b"pyspark.sql.worker.create_data_source",
    b"pyspark.sql.worker.plan_data_source_read",
)


def end_planners(jvm_pid: int) -> int:
    """SIGTERM the planning workers' daemons among the JVM's children (each ends its workers); how many."""
    import signal as sig

    n = 0
    try:
        pids = [d for d in os.listdir("/proc") if d.isdigit()]
    except OSError:  # no /proc: nothing to free
        return 0
    for d in pids:
        try:
            with open(f"/proc/{d}/stat", "rb") as f:
                if int(f.read().rsplit(b")", 1)[1].split()[1]) != jvm_pid:
                    continue
            with open(f"/proc/{d}/cmdline", "rb") as f:
                args = f.read().split(b"\0")
        except (OSError, ValueError, IndexError):
            continue
        if b"pyspark.daemon" in args and any(a in PLANNERS for a in args):
            try:
                os.kill(int(d), sig.SIGTERM)
                n += 1
            except OSError:
                pass
    return n


def driver_jvm_pid(spark) -> int | None:
    """The driver JVM's pid when this process started it (not under spark-submit)."""
    proc = getattr(getattr(spark.sparkContext, "_gateway", None), "proc", None)
    return proc.pid if proc is not None else None


def make_batch_fn(tables: str, checkpoint: str, source: str, log=print, opts=None, jvm_pid=None, warm=None):
    from sink.apply import Options
    from sink.microbatch import run_batch

    opts = opts or Options()
    if opts.log is None:
        opts.log = log

    state = {"app": None, "records": 0}

    def fn(batch_df, batch_id: int) -> None:
        t0 = time.time()
        if state["app"] is None:
            state["app"] = _app_id(checkpoint)
            if jvm_pid is not None:  # the query is planned: its planning workers are done
                end_planners(jvm_pid)
            if (
                warm
            ):  # the read tasks take the warm-up job's workers once that job has ended (sink/prestart.py)
                warm[0].join(WARM_WAIT_S)
        st = run_batch(batch_df, tables, state["app"], batch_id, opts)
        now = time.time()
        state["records"] += st.records
        el = max(now - t0, 1e-6)
        lag = f"{now * 1000 - st.max_ts_ms:.0f} ms" if st.max_ts_ms else "-"
        msg = (
            f"batch {batch_id}: {st.records} records read, {sum(max(0, n) for n in st.applied.values())} "
            f"changes applied to {len(st.applied)} tables in {el:.2f} s ({st.records / el:.0f} records/s); "
            f"lag behind newest event ts {lag}; total {state['records']} records"
        )
        if st.fast or st.driver:
            msg += f"; executors: {len(st.fast)} tables"
        if st.driver:
            msg += "; driver: " + ", ".join(f"{t} ({why})" for t, why in sorted(st.driver.items()))
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
    master: str | None = None,
    read_options: dict | None = None,
    schema_registry_url: str | None = None,
) -> int:
    """Run the query; with `spark` given (tests), that session is used and left running. `opts`:
    sink.apply.Options (tombstone retention)."""
    jvm_pid = None
    warm: list = []
    if spark is None:
        # the executors' Python workers start on the idle core(s) while the query plans (sink/prestart.py)
        from sink import prestart

        spark = spark_session(master=master, started=lambda s: warm.append(prestart.start(s, log)))
        jvm_pid = driver_jvm_pid(spark)
    else:
        from sink.sources import DirSource, KafkaSource

        spark.dataSource.register(DirSource)
        spark.dataSource.register(KafkaSource)
    os.makedirs(tables, exist_ok=True)
    if source.startswith("kafka:"):
        reader = spark.readStream.format("dbz_kafka").option("bootstrap", source[len("kafka:") :])
    else:
        reader = spark.readStream.format("dbz_dir").option("path", os.path.abspath(source))
    if schema_registry_url:
        reader = reader.option("schemaRegistryUrl", schema_registry_url)
    for k, v in (read_options or {}).items():
        reader = reader.option(k, str(v))
    w = (
        reader.load()
        .writeStream.foreachBatch(make_batch_fn(tables, checkpoint, source, log, opts, jvm_pid, warm))
        .option("checkpointLocation", checkpoint)
    )
    w = w.trigger(availableNow=True) if once else w.trigger(processingTime=f"{trigger_ms} milliseconds")
    for attempt in range(RESTARTS + 1):
        q = w.start()
        try:
            if once:
                q.awaitTermination()
            else:
                _keep_running(q, log)
        except Exception:
            if q.exception() is None:
                raise
        if q.exception() is None or CONNECT_BACK not in str(q.exception()) or attempt == RESTARTS:
            break
        log(
            f"sink: {CONNECT_BACK} within Spark's fixed 10 s (a busy machine): restarting the query from its "
            f"checkpoint ({attempt + 1}/{RESTARTS})",
            file=sys.stderr,
            flush=True,
        )
    for t in warm:  # long done, but the session must not stop under it
        t.join()
    if q.exception() is not None:
        from sink.errors import one_line

        if os.environ.get("DBZ_SINK_SPARK_LOG") == "WARN":  # --debug
            log(f"sink failed: {q.exception()}", file=sys.stderr, flush=True)
        else:
            log(f"sink: error: {one_line(q.exception())}", file=sys.stderr, flush=True)
        return 1
    return 0


# Spark starts the streaming source's Python runner as a plain worker that must connect back within a fixed 10 s
# (PythonWorkerFactory.createSimpleWorker, no setting); on a busy machine its imports take longer and the query
# fails before its first batch ("Python worker failed to connect back", seen at load 10-20 on two cores in tests
# and benchmarks). Restarting the query from its checkpoint is what a user would do, and is safe: a batch that
# ran is replayed idempotently (app-transaction ids), offsets are committed after the writes.
CONNECT_BACK = "Python worker failed to connect back"
RESTARTS = 3


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
