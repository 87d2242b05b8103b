"""No process of a sink run imports pandas (`sink/nopandas.py`): pyarrow imported it in the executors' workers
at a process's first array from a Python object, though the readers never hand it a pandas object (44 MB of RSS
per worker), and the driver imported it for the warm-up job (pyspark's `mapInArrow` checks pandas' version:
`sink.prestart.map_in_arrow` does without). Before session 23 both workers of a local[2] run imported it, before
session 24 the driver; pandas stays importable for a caller that asks for it."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest
from sink_checks import run_sink

pytest.importorskip("pandas")
pytest.importorskip("deltalake", reason="deltalake not installed (pip install -e '.[sink]')")

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

# a sitecustomize after the sink's (sink/boot chains to the next one): every process of the run that imports
# pandas writes its command line into SPY_DIR
SPY = """import os, sys
class _Spy:
    def find_spec(self, name, path=None, target=None):
        if name == "pandas":
            with open(os.path.join(os.environ["SPY_DIR"], str(os.getpid())), "w") as f:
                f.write(" ".join(sys.argv))
        return None
sys.meta_path.insert(0, _Spy())
"""


def _py(code: str) -> str:
    env = dict(os.environ, PYTHONPATH=ROOT)
    return subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, env=env, check=True, cwd=ROOT
    ).stdout.strip()


ARRAYS = (
    "import datetime, sys\n"
    "import pyarrow as pa\n"
    "pa.array([1]); pa.array(['x', None]); pa.array([{'a': 1}]); pa.array([datetime.datetime(2024, 1, 1)])\n"
    "pa.table({'a': [1, 2]})\n"
    "print('pandas' in sys.modules, end=' ')\n"
    "import pandas\n"
    "print(type(pa.table({'a': [1]}).to_pandas()).__name__)\n"
)


def test_pyarrow_probe_at_its_import_then_pandas_on_request():
    assert _py("from sink import nopandas\nnopandas.at_pyarrow_import()\n" + ARRAYS) == "False DataFrame"
    assert _py(ARRAYS) == "True DataFrame"  # what pyarrow does by itself


def test_probe_now():
    assert _py("import pyarrow\nfrom sink import nopandas\nnopandas.probe()\n" + ARRAYS) == "False DataFrame"


def test_no_process_of_a_run_imports_pandas(tmp_path):
    from sink.warm import TOPIC, records

    src = tmp_path / "in"
    src.mkdir()
    (src / f"{TOPIC}.jsonl").write_bytes(records())
    spy, seen = tmp_path / "spy", tmp_path / "seen"
    spy.mkdir()
    seen.mkdir()
    (spy / "sitecustomize.py").write_text(SPY)
    path = os.pathsep.join([str(spy), *filter(None, [os.environ.get("PYTHONPATH")]), *sys.path[:1]])
    r = run_sink(src, tmp_path / "t", tmp_path / "c", {"PYTHONPATH": path, "SPY_DIR": str(seen)}, timeout=600)
    assert r.returncode == 0, r.stdout + r.stderr
    assert "batch 0:" in r.stdout
    imported = {p.name: p.read_text()[:200] for p in seen.iterdir()}
    assert imported == {}, imported
    # the spy works: a process with the same path that imports pandas is seen
    env = dict(os.environ, PYTHONPATH=path, SPY_DIR=str(seen))
    subprocess.run([sys.executable, "-c", "import pandas"], env=env, check=True, cwd=ROOT)
    assert len(list(seen.iterdir())) == 1


def test_the_session_and_the_warm_up_leave_pandas_out():
    """`spark_session` does not import pandas (pyspark's probe in `pyspark.testing.utils`, at the SparkConf),
    nor does the warm-up job (`DataFrame.mapInArrow` checked pandas' version: "True" there before session 24)."""
    code = (
        "import sys\n"
        "from sink.job import spark_session\n"
        "s = spark_session('nopandas', master='local[1]')\n"
        "print('pandas' in sys.modules, end=' ')\n"
        "from sink import prestart\n"
        "prestart.start(s).join()\n"
        "print('pandas' in sys.modules)\n"
        "s.stop()\n"
    )
    assert _py(code) == "False False"
