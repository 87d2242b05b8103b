"""The harness knows a snapshot has ended when it selected no row (no record marked "last" can come).

pg seed 44707009: `snapshot.select.statement.overrides` (`WHERE id > 1`) and `snapshot.include.collection.list`
selected no row; Debezium's recording and the emulator's held only heartbeats, and both recorders waited 180 s
for a `last` record and failed, so the workload's stream was never run. The connector streams (its slot's
walsender leaves state `startup` at START_REPLICATION) only once its snapshot is over: the harness takes that, and
then 2 s without data records, as the end of the snapshot.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]

WORKLOAD = """-- @set snapshot.select.statement.overrides=public.t
-- @set snapshot.select.statement.overrides.public.t=SELECT * FROM public.t WHERE id > 1
-- @set snapshot.include.collection.list=public\\.t
-- @section pre
CREATE TABLE public.debezium_signal (id VARCHAR(42) PRIMARY KEY, type VARCHAR(32) NOT NULL, data VARCHAR(2048));
CREATE TABLE public.t (id integer PRIMARY KEY, v text);
INSERT INTO public.t VALUES (1, 'one');
"""


def test_a_snapshot_that_selects_no_row_ends_when_the_capture_streams(tmp_path):
    wl = tmp_path / "workload.sql"
    wl.write_text(WORKLOAD)
    out = tmp_path / "emulator"
    cmd = [
        sys.executable,
        "-m",
        "emulator.testing.differential",
        "record",
        "--db",
        "pg",
        "--engine",
        "emulator",
    ]
    # the timeout is the failure before the fix: the wait ran out without a "last" record
    cmd += ["--workload", str(wl), "-o", str(out), "--snapshot-timeout", "25"]
    r = subprocess.run(cmd, cwd=ROOT, capture_output=True, text=True, timeout=120)
    meta = json.loads((tmp_path / "emulator.meta.json").read_text())
    assert "failure" not in meta, (meta.get("failure"), r.stdout[-2000:], r.stderr[-2000:])
    assert r.returncode == 0
    # nothing was snapshotted: no record of public.t, heartbeats at most
    assert not [t for t in meta["topics"] if not t.startswith("__debezium-heartbeat")]
    assert "snapshot_ended_streaming" in meta["timings_s_since_start"]
