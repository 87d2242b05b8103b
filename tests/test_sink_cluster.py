"""The sink as users run Spark: against a real standalone cluster (master + 2 workers, separate JVMs started
from the pyspark package's own `spark-class`, loopback, shared local paths) it writes the same tables as in
local mode, with the decoding done by the cluster's executors."""

from __future__ import annotations

import json
import os
import re
import shutil
import time
from pathlib import Path

import pytest

pytest.importorskip("pyspark", reason="pyspark not installed (pip install -e '.[sink]')")
pytest.importorskip("deltalake", reason="deltalake not installed (pip install -e '.[sink]')")
if shutil.which("java") is None and not os.environ.get("JAVA_HOME"):
    pytest.skip("no Java runtime for PySpark", allow_module_level=True)

from sink_checks import SparkStandalone, run_sink  # noqa: E402

from sink.read import read_arrow, topics  # noqa: E402

DATA = Path(__file__).parent / "data" / "pg" / "pg_public.jsonl"


def _directory_output(dest: Path) -> None:
    """The recording as the emulator's directory output: DIR/<topic>.jsonl, `{"key":K,"value":V}` lines."""
    dest.mkdir(parents=True)
    for line in DATA.read_text().splitlines():
        r = json.loads(line)
        rec = {"key": r["key"], "value": r["value"]}
        if r.get("headers"):
            rec["headers"] = r["headers"]
        with open(dest / f"{r['topic']}.jsonl", "a") as f:
            f.write(json.dumps(rec, separators=(",", ":")) + "\n")


def _tables(path: Path) -> dict[str, list[str]]:
    return {t: sorted(map(repr, read_arrow(str(path / t)).to_pylist())) for t in topics(str(path))}


def test_standalone_cluster_gives_the_same_tables_as_local_mode(tmp_path):
    src = tmp_path / "in"
    _directory_output(src)
    t0 = time.time()
    local = run_sink(src, tmp_path / "local", tmp_path / "ck-local", None, "--master", "local[2]")
    t1 = time.time()
    assert local.returncode == 0, local.stdout[-2000:] + local.stderr[-2000:]
    # the micro-batch's line (one batch: the input is far below a batch's bytes): every record read but the
    # heartbeats (no table; skipped before they are counted), the tables written, the lag behind the newest
    # event's ts_ms as the wall clock stood when the batch ended
    lines = [json.loads(x) for x in DATA.read_text().splitlines()]
    lines = [r for r in lines if not r["topic"].startswith("__debezium-heartbeat")]
    newest = max(r["value"]["payload"]["ts_ms"] for r in lines if r["value"])
    m = re.search(
        r"^batch 0: (\d+) records read, \d+ changes applied to (\d+) tables .*lag behind newest event ts "
        r"(\d+) ms",
        local.stdout,
        re.M,
    )
    assert m, local.stdout
    assert int(m[1]) == len(lines) and int(m[2]) == len(topics(str(tmp_path / "local")))
    assert (t0 * 1000 - newest) <= int(m[3]) <= (t1 * 1000 - newest)
    with SparkStandalone(tmp_path / "cluster") as cluster:
        env = {
            "PYTHONPATH": os.pathsep.join(
                [str(Path(__file__).parent.parent), os.environ.get("PYTHONPATH", "")]
            ),
            "SPARK_LOCAL_IP": "127.0.0.1",
            # settings the way users give them to pyspark: the workers offer 768 MB each; the executors of a
            # short run start cheaper with the C1 compiler and the serial collector (as the sink's local mode)
            "PYSPARK_SUBMIT_ARGS": "--conf spark.executor.memory=512m --conf "
            "'spark.executor.extraJavaOptions=-XX:TieredStopAtLevel=1 -XX:+UseSerialGC' pyspark-shell",
        }
        r = run_sink(
            src, tmp_path / "remote", tmp_path / "ck-remote", env, "--master", cluster.url, timeout=600
        )
        assert r.returncode == 0, r.stdout[-3000:] + r.stderr[-3000:]
        # the executors of both workers ran tasks (their work dirs hold the application's executor logs)
        apps = [p for w in ("w0", "w1") for p in (tmp_path / "cluster" / w).glob("app-*/*/stderr")]
        assert len(apps) >= 2, apps
    assert "executors: " in r.stdout and "batch 0:" in r.stdout
    a, b = _tables(tmp_path / "local"), _tables(tmp_path / "remote")
    assert a.keys() == b.keys() and len(a) >= 5
    for t in a:
        assert a[t] == b[t], t
