"""Run at the start of every Python process Spark starts from the sink's driver: drop Spark's pyspark/py4j zips.

Spark puts `$SPARK_HOME/python/lib/pyspark.zip` (and py4j's zip) first on the `PYTHONPATH` of every Python
process it starts, and Python caches no bytecode for zip imports: each process compiles pyspark's modules again
(`import pyspark.daemon, pyspark.sql.worker.plan_data_source_read`: 0.75-0.8 CPU-s from the zip against
0.22-0.27 s from a pip install's files). `spark.python.daemon.module=sink.daemon` avoids that for the executors'
workers, but the processes that plan the query (the data-source lookup, create and plan workers, each a daemon
and a forked worker) and the stream's offset runner are started with `pyspark.daemon` / as plain modules
whatever the settings say: they ran one after another before the first micro-batch. Their only other entry
point is the interpreter's own start: Python imports the first `sitecustomize` on `sys.path` during its start,
before the module to run is found, and `sink.job` puts this directory on those processes' `PYTHONPATH`
(the driver JVM's environment when the sink starts it; the data source's worker environment otherwise).

The zips are dropped only when they are the packaged copy of the pyspark importable without them (a pip
install: they live inside that package's directory); a Spark distribution's zip, the only copy, stays. Then this
directory leaves `sys.path` and the next `sitecustomize` on it, if any (a user's), runs as it would have.
"""

from __future__ import annotations

import os
import sys


def packaged_zips(path: list[str]) -> list[str]:
    """The entries of `path` that are zips inside the directory of the pyspark importable without them."""
    zips = [p for p in path if p.endswith(".zip") and os.sep + "python" + os.sep + "lib" + os.sep in p]
    if not zips:
        return []
    rest = [p for p in path if p not in zips]
    for d in rest:
        init = os.path.join(d or ".", "pyspark", "__init__.py")
        if os.path.isfile(init):
            home = os.path.realpath(os.path.dirname(init))
            return [z for z in zips if os.path.realpath(z).startswith(home + os.sep)]
    return []


def start() -> None:
    """Drop the packaged zips, take this directory off `sys.path`, run the next `sitecustomize` if any."""
    drop = packaged_zips(sys.path)
    here = os.path.dirname(os.path.realpath(__file__))
    sys.path[:] = [p for p in sys.path if p not in drop and os.path.realpath(p or os.curdir) != here]
    me = sys.modules.pop("sitecustomize", None)
    try:
        import sitecustomize  # noqa: F401  the next one on the path (a user's), as if this one did not exist
    except ImportError as e:
        if e.name != "sitecustomize":
            raise
        # none: importlib pops the name from sys.modules once this module has run, so it must be there
        if me is not None:
            sys.modules["sitecustomize"] = me


if __name__ == "sitecustomize":
    start()
