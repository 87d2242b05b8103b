"""Spark's Python daemon (`spark.python.daemon.module`), importing pyspark from its installed files.

Spark puts `$SPARK_HOME/python/lib/pyspark.zip` (and py4j's zip) first on every Python worker's PYTHONPATH. The
zip holds only sources and Python caches no bytecode for zip imports, so each daemon, each forked worker that
imports its worker module, and each planning worker compiled pyspark's modules again: 0.98 s of CPU against
0.35 s to import `pyspark.daemon` and a planner's module from a pip-installed pyspark's own files, nine times
per run (docs/sink.md, "Performance"). When the zips are the packaged copy of the very pyspark that is
importable without them (a pip install: the zips live inside that package's directory), they are dropped from
`sys.path` before pyspark is imported, so the same code is loaded from the installed files and their bytecode;
otherwise (a Spark distribution, where the zip is the only copy) nothing changes. Then pyspark's own daemon
runs, unchanged.
"""

from __future__ import annotations

import importlib
import sys

# the same test the Python processes started from the driver make at their start (sink/boot/sitecustomize.py);
# this module needs no environment of ours: it still holds where sink/boot is not on the workers' PYTHONPATH
# (executors whose machine has the project elsewhere, a user's own worker settings)
from sink.boot.sitecustomize import packaged_zips
from sink.nopandas import at_pyarrow_import


def main() -> None:
    drop = packaged_zips(sys.path)
    if drop:
        sys.path[:] = [p for p in sys.path if p not in drop]
        importlib.invalidate_caches()
    # the workers it forks import pyarrow, whose first array imported pandas for nothing (sink/nopandas.py)
    at_pyarrow_import()
    from pyspark.daemon import manager

    manager()


if __name__ == "__main__":
    main()
