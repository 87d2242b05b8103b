"""The stream's offset runner connects back to the JVM before its imports (`sink/boot/sitecustomize.py`
`connect_back_early`): Spark waits a fixed 10 s for a plain worker's connection and 10 s for its secret, and the
runner's imports took longer on a loaded machine ("Python worker failed to connect back", the query restarted,
then failed). Here a `sitecustomize` after the sink's delays every plain worker by 25 s after the early connect
(as a starved process would be): the run must succeed without a restart. Before the early connect, the same run
failed all four attempts."""

from __future__ import annotations

import os
import sys
from pathlib import Path

import pytest
from sink_checks import run_sink

pytest.importorskip("deltalake", reason="deltalake not installed (pip install -e '.[sink]')")

SLOW = """import os, time
if os.environ.get("PYTHON_WORKER_FACTORY_PORT"):
    time.sleep(25)
"""


def test_a_runner_slower_than_sparks_10_s_still_connects(tmp_path):
    from sink.warm import TOPIC, records

    src = tmp_path / "in"
    src.mkdir()
    (src / f"{TOPIC}.jsonl").write_bytes(records())
    slow = tmp_path / "slow"
    slow.mkdir()
    (slow / "sitecustomize.py").write_text(SLOW)
    path = os.pathsep.join([str(slow), *filter(None, [os.environ.get("PYTHONPATH")]), *sys.path[:1]])
    r = run_sink(src, tmp_path / "t", tmp_path / "c", {"PYTHONPATH": path}, timeout=600)
    assert r.returncode == 0, r.stdout + r.stderr
    assert "connect back" not in r.stderr
    assert "batch 0:" in r.stdout
    assert (Path(tmp_path / "t") / TOPIC).is_dir()
