"""The warm-up job (`sink.prestart`) starts the Python workers that a Python data source's read tasks then take:
the read's tasks run in processes the warm-up job's tasks ran in (Spark keys its idle-worker pool by Python,
worker module, daemon module and environment; a difference in any would start new workers for the read)."""

from __future__ import annotations

import os

import pytest
from sink_checks import spark_fixture  # noqa: F401

pytest.importorskip("pyspark")


def test_read_tasks_take_the_warm_workers(spark, tmp_path, monkeypatch):
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
    seen = tmp_path / "warm"
    seen.mkdir()

    def imports(batches):  # the warm-up's function, also noting the process it ran in
        import os

        open(os.path.join(str(seen), str(os.getpid())), "w").close()
        yield from prestart.imports(batches)

    monkeypatch.setattr(prestart, "imports", imports)
    logged = []
    prestart.start(spark, lambda *a, **k: logged.append(a)).join()
    assert logged == []
    warm = {int(p.name) for p in seen.iterdir()}
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
        "list(prestart.imports(iter([])))\n"
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
