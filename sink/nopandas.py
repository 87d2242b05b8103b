"""Keep pandas out of the executors' Python workers: pyarrow imports it only to ask whether it is installed.

pyarrow imports pandas (when installed) at a process's first array made from a Python object, to ask whether
that object is a pandas one (once per process). The readers never hand it a pandas object, and the import cost
each executor worker 44 MB of RSS and ~0.4 CPU-s (load 15): ~90 MB of a local[2] run's peak (docs/sink.md,
session 23). Here pyarrow's probe runs once with pandas hidden (a meta path finder that raises
ModuleNotFoundError for it), so that it records "no pandas"; then pandas is importable as before, and pyarrow
still imports it where a caller asks for pandas itself (`Table.to_pandas`: it tries the import again on an
explicit use). The driver does the same: its first array from Python values (the one pass's `pc.equal` with a
string) imported pandas (session 24); so did py4j's argument converter, which imports `pyspark.testing.utils` at
the first JVM call with arguments (the `SparkConf`), which imports pandas (~0.4 CPU-s) to set flags that only
pyspark's own tests read: made with pandas hidden. The warm-up job's `mapInArrow` is built without pyspark's
check of pandas' version (sink/prestart.py). No process of a run imports pandas (44 MB of the driver's RSS).
"""

from __future__ import annotations

import sys
from importlib.abc import Loader, MetaPathFinder
from importlib.machinery import PathFinder


class _Hidden(MetaPathFinder):
    def find_spec(self, name, path=None, target=None):
        if name == "pandas" or name.startswith("pandas."):
            raise ModuleNotFoundError(f"No module named {name!r}", name=name)
        return None


def _without_pandas(probe) -> None:
    if "pandas" in sys.modules:  # already imported: nothing left to save
        return
    hidden = _Hidden()
    sys.meta_path.insert(0, hidden)
    try:
        probe()
    finally:
        sys.meta_path.remove(hidden)


def probe() -> None:
    """Run pyarrow's probe now, with pandas hidden."""
    _without_pandas(lambda: __import__("pyarrow").array([0]))


def pyspark_probe() -> None:
    """Import `pyspark.testing.utils` now, with pandas hidden (the driver, before its session)."""
    _without_pandas(lambda: __import__("pyspark.testing.utils"))


class _ThenProbe(Loader):
    """pyarrow.lib's own loader, then pyarrow's probe once the module exists."""

    def __init__(self, loader) -> None:
        self.loader = loader

    def __getattr__(self, name):  # the rest (get_filename, is_package, ...) is the wrapped loader's
        return getattr(self.loader, name)

    def create_module(self, spec):
        return self.loader.create_module(spec)

    def exec_module(self, module) -> None:
        self.loader.exec_module(module)
        _without_pandas(lambda: module.array([0]))


class _AtPyarrow(MetaPathFinder):
    """Finds pyarrow.lib where Python would (once; it stays on the path, inert: removing a finder from
    `sys.meta_path` while the import system iterates it would skip the next one)."""

    done = False

    def find_spec(self, name, path=None, target=None):
        if name != "pyarrow.lib" or self.done:
            return None
        self.done = True
        spec = PathFinder.find_spec(name, path, target)
        if spec is not None and spec.loader is not None:
            spec.loader = _ThenProbe(spec.loader)
        return spec


def at_pyarrow_import() -> None:
    """Run pyarrow's probe, with pandas hidden, when this process (or a process forked from it: the executors'
    daemon forks its workers) imports pyarrow; nothing is imported now."""
    if "pyarrow.lib" in sys.modules:
        probe()
    elif not any(isinstance(f, _AtPyarrow) for f in sys.meta_path):
        sys.meta_path.insert(0, _AtPyarrow())
