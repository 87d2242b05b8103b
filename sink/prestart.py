"""Start the executors' Python workers while the query plans its first micro-batch (issue 18's serial start).

Before its first batch a run is mostly serial: the three planning workers (data-source lookup, create, plan) and
the offset runner start one after another at about half a core, and only then do the first batch's read tasks
start the executors' daemon and workers (pyspark, pyarrow, numpy and `sink.sources`' imports, ~0.45 CPU-s
each). Here a job of one task per core, started from a thread right after the session (before the data sources'
registration, whose lookup worker it overlaps), runs those imports on the otherwise idle core(s) during the
planning. Spark keys a pool of idle workers by (Python, worker module, daemon module, environment), and a
`mapInArrow` task (the job until session 23) and a Python data source's read task share all four
(`pyspark.worker`, `sink.daemon`, `SparkContext.environment`), so the first batch's read tasks take these
workers instead of starting their own. The CPU is the same (the imports happen once per worker either way);
what it moves is wall time, on a machine with an idle core (docs/sink.md, session 18's design, session 19).
A failure of this job only costs the warm start: it is logged, the run goes on.

Since session 24 the job is a batch read of a Python data source of its own (`dbz_warm`, one partition per
slot), not a `mapInArrow`: besides the executors' workers, it starts the JVM's two planning daemons that the
stream's own planning then finds running (`create_data_source` for the source's creation and
`plan_data_source_read` for its read function: a daemon importing pyspark and a worker each, ~0.3 CPU-s
apiece, one after another on the path to the first batch before), and `mapInArrow` imported pandas into the
driver (pyspark's `pandas_udf` checks its version: 44 MB of RSS, ~0.4 CPU-s). The JVM keys those daemons and
the read tasks' workers by (Python, module, daemon module, environment): a Python data source registered in
the same session has the sink's sources' environment (`SparkContext.environment`, captured at registration).
"""

from __future__ import annotations

import os
import sys
import threading

from pyspark.sql.datasource import DataSource, DataSourceReader, InputPartition


def load() -> None:
    """What a reader task loads before its first record: `sink.sources` and what its read path imports, and
    pyarrow's look for pandas at its first `pa.array` (once per process; made with pandas hidden, since pyarrow
    imported it for nothing: sink/nopandas.py)."""
    import numpy  # noqa: F401
    import pyarrow  # noqa: F401

    import sink.lines  # noqa: F401
    import sink.reader_keys  # noqa: F401
    import sink.sources  # noqa: F401
    from sink import nopandas

    nopandas.probe()


class WarmSource(DataSource):
    """`n` partitions, each read in an executor's Python worker: `load()`, then one row, the worker's pid."""

    @classmethod
    def name(cls) -> str:
        return "dbz_warm"

    def schema(self) -> str:
        return "pid long"

    def reader(self, schema):
        return WarmReader(int(self.options.get("n", "1")))


class WarmReader(DataSourceReader):
    def __init__(self, n: int) -> None:
        self.n = n

    def partitions(self):
        return [InputPartition(i) for i in range(self.n)]

    def read(self, partition):
        load()
        yield (os.getpid(),)


def start(spark, log=print) -> threading.Thread:
    """Run the warm-up job in a daemon thread (one task per default parallelism slot); returns the thread, whose
    `pids` are then the workers' process ids."""
    n = max(1, spark.sparkContext.defaultParallelism)

    def job() -> None:
        try:
            spark.sparkContext.setLocalProperty("spark.job.description", "sink: start the executors' workers")
            spark.dataSource.register(WarmSource)
            rows = spark.read.format(WarmSource.name()).option("n", str(n)).load().collect()
            t.pids = {r.pid for r in rows}
        except Exception as e:  # only the warm start is lost
            log(
                f"sink: starting the executors' workers early failed ({type(e).__name__}): {e}",
                file=sys.stderr,
            )

    t = threading.Thread(target=job, name="sink-prestart", daemon=True)
    t.pids = set()
    t.start()
    return t
