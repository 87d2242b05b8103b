"""Start the executors' Python workers while the query plans its first micro-batch (issue 18's serial start).

Before its first batch a run is mostly serial: the three planning workers (data-source lookup, create, plan) and
the offset runner start one after another at about half a core, and only then do the first batch's read tasks
start the executors' daemon and workers (pyspark, pyarrow, numpy and `sink.sources`' imports, ~0.45 CPU-s
each). Here a job of one task per core, started from a thread right after the session (before the data sources'
registration, whose lookup worker it overlaps), runs those imports on
the otherwise idle core(s) during the planning. Spark keys a pool of idle workers by (Python, worker module,
daemon module, environment), and a `mapInArrow` task and a Python data source's read task share all four
(`pyspark.worker`, `sink.daemon`, `SparkContext.environment`), so the first batch's read tasks take these
workers instead of starting their own. The CPU is the same (the imports happen once per worker either way);
what it moves is wall time, on a machine with an idle core (docs/sink.md, session 18's design, session 19).
A failure of this job only costs the warm start: it is logged, the run goes on.

The job is a `mapInArrow` built without `DataFrame.mapInArrow`'s `pandas_udf`, whose check of pandas' version
imported pandas into the driver (44 MB of RSS, ~0.4 CPU-s) for this job alone: nothing else of a run on the
driver imports it (docs/sink.md, session 24).
"""

from __future__ import annotations

import sys
import threading


def imports(batches):
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
    yield from batches


def map_in_arrow(df, func, schema: str):
    """`df.mapInArrow(func, schema)`, the same plan and Python function (a SQL_MAP_ARROW_ITER_UDF), made
    through pyspark's `vectorized_udf` rather than `pandas_udf` (which imports pandas to check its version);
    `df.mapInArrow` itself where this pyspark has not those internals."""
    try:
        from pyspark.sql import DataFrame
        from pyspark.sql.pandas.functions import vectorized_udf
        from pyspark.util import PythonEvalType

        udf = vectorized_udf(func, schema, PythonEvalType.SQL_MAP_ARROW_ITER_UDF, "pandas")
        jdf = df._jdf.mapInArrow(udf(*[df[c] for c in df.columns])._jc, False, None)
    except (ImportError, AttributeError, TypeError):
        return df.mapInArrow(func, schema)
    return DataFrame(jdf, df.sparkSession)


def start(spark, log=print) -> threading.Thread:
    """Run the warm-up job in a daemon thread (one task per default parallelism slot); returns the thread."""
    n = max(1, spark.sparkContext.defaultParallelism)

    def job() -> None:
        try:
            spark.sparkContext.setLocalProperty("spark.job.description", "sink: start the executors' workers")
            df = map_in_arrow(spark.range(0, n, 1, n), imports, "id long")
            df.write.format("noop").mode("overwrite").save()
        except Exception as e:  # only the warm start is lost
            log(
                f"sink: starting the executors' workers early failed ({type(e).__name__}): {e}",
                file=sys.stderr,
            )

    t = threading.Thread(target=job, name="sink-prestart", daemon=True)
    t.start()
    return t
