"""The warm-up job (`sink.prestart`) starts the Python workers that a Python data source's read tasks then take:
the read's tasks run in processes the warm-up job's tasks ran in (Spark keys its idle-worker pool by Python,
worker module, daemon module and environment; a difference in any would start new workers for the read)."""

from __future__ import annotations

import os

import pytest
from sink_checks import spark_fixture  # noqa: F401

pytest.importorskip("pyspark")


def test_read_tasks_take_the_warm_workers(spark):
    from pyspark.sql.datasource import DataSource, DataSourceReader, InputPartition

    from sink import prestart

    class Pids(DataSource):  # defined here: pickled by value, as the sink's own sources are not
        @classmethod
        def name(cls) -> str:
            return "prestart_pids"

        def schema(self) -> str:
            return "pid long"

        def reader(self, schema):
            return PidReader()

    class PidReader(DataSourceReader):
        def partitions(self):
            return [InputPartition(i) for i in range(2)]

        def read(self, partition):
            import os

            yield (os.getpid(),)

    spark.dataSource.register(Pids)
    logged = []
    t = prestart.start(spark, lambda *a, **k: logged.append(a))
    t.join()
    assert logged == []
    warm = t.pids
    read = {r.pid for r in spark.read.format("prestart_pids").load().collect()}
    assert warm and os.getpid() not in warm
    assert read & warm, (read, warm)


def test_warm_up_loads_what_the_first_read_loads():
    """A fresh process that ran the warm-up's function has loaded what a reader's first `pa.array` loads
    (pyarrow imports pandas then, when installed): before, each worker did that inside its first read task."""
    import subprocess
    import sys

    code = (
        "import sys\n"
        "from sink import prestart\n"
        "prestart.load()\n"
        "after = set(sys.modules)\n"
        "import pyarrow as pa\n"
        "pa.array([1, 2])\n"
        "print(sorted(set(sys.modules) - after))\n"
    )
    env = dict(os.environ, PYTHONPATH=os.getcwd())
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, check=True)
    assert out.stdout.strip() == "[]", out.stdout[:400]


def test_first_batch_waits_for_the_warm_up(tmp_path, monkeypatch):
    """The first batch's reads start once the warm-up job has ended: while its workers are still busy (a
    loaded machine), Spark forks two more for the read tasks instead of taking them. Later batches do not
    wait."""
    import threading

    import sink.microbatch
    from sink import job

    ended = threading.Event()
    warm = threading.Thread(target=lambda: ended.wait(30))
    warm.start()
    seen = []

    def run_batch(df, tables, app, batch_id, opts):
        seen.append((batch_id, warm.is_alive()))
        from sink.batch import BatchStats

        return BatchStats()

    monkeypatch.setattr(sink.microbatch, "run_batch", run_batch)
    (tmp_path / "metadata").write_text('{"id": "x"}')
    threading.Timer(1.0, ended.set).start()
    fn = job.make_batch_fn(str(tmp_path), str(tmp_path), "", lambda *a, **k: None, warm=[warm])
    fn(None, 0)
    fn(None, 1)
    assert seen == [(0, False), (1, False)]


PLANNING = (
    "import os, sys\n"
    "from sink import prestart\n"
    "from sink.job import driver_jvm_pid, run, spark_session\n"
    "w = []\n"
    "s = spark_session('planners', master='local[1]', started=lambda s: w.append(prestart.start(s)))\n"
    "w[0].join()\n"
    "jvm = driver_jvm_pid(s)\n"
    "def daemons():\n"
    "    out = {}\n"
    "    for d in filter(str.isdigit, os.listdir('/proc')):\n"
    "        try:\n"
    "            ppid = int(open(f'/proc/{d}/stat').read().rsplit(')', 1)[1].split()[1])\n"
    "            args = open(f'/proc/{d}/cmdline').read().split(chr(0))\n"
    "        except OSError:\n"
    "            continue\n"
    "        if ppid == jvm and 'pyspark.daemon' in args:\n"
    "            out[args[-2]] = out.get(args[-2], set()) | {int(d)}\n"
    "    return out\n"
    "before = daemons()\n"
    "rc = run(sys.argv[1], sys.argv[2], sys.argv[3], True, spark=s)\n"
    "after = daemons()\n"
    "import json\n"
    "print(json.dumps([rc, *({k: sorted(v) for k, v in d.items()} for d in (before, after))]))\n"
    "s.stop()\n"
)


def test_the_stream_plans_in_the_warm_up_daemons(tmp_path):
    """The warm-up job (a batch read of `dbz_warm`) starts the planning daemons that the stream's own planning
    then uses: the source's creation and its read function are planned without starting a daemon (a Python
    process importing pyspark, on the path to the first batch). Before session 24 the warm-up was a
    `mapInArrow`, and both daemons started during the stream's planning."""
    import json
    import subprocess
    import sys

    from sink.warm import TOPIC, records

    src = tmp_path / "in"
    src.mkdir()
    (src / f"{TOPIC}.jsonl").write_bytes(records())
    env = dict(os.environ, PYTHONPATH=os.getcwd())
    args = [str(src), str(tmp_path / "t"), str(tmp_path / "c")]
    out = subprocess.run(
        [sys.executable, "-c", PLANNING, *args], capture_output=True, text=True, env=env, timeout=900
    )
    assert out.returncode == 0, out.stderr[-2000:]
    rc, before, after = json.loads(out.stdout.strip().splitlines()[-1])
    assert rc == 0
    for mod in ("pyspark.sql.worker.create_data_source", "pyspark.sql.worker.plan_data_source_read"):
        assert before.get(mod), (before, after)
        assert after[mod] == before[mod], (mod, before, after)
