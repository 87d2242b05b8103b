#!/usr/bin/env python3
"""Runs the oracle's pg/record.py for a case with snapshot.mode=no_data.

record.py waits for the snapshot's `"snapshot": "last"` record before it runs the `stream` section; with
no_data there is none. This wrapper changes only that wait: until the connector's replication slot is
active (it streams), then 1 s. It also sets the `snapshot_last_record` timing mark at that moment, which
record.py's .meta.json needs. Everything else (phases, waits, output files) is record.py's.

usage: ORACLE_PG_VENV=... $ORACLE_PG_VENV/bin/python record_nodata.py [record.py arguments]
       (ORACLE_PG_DIR: the folder holding record.py, default /work/shared/golden/pg)
"""

import os
import subprocess
import sys
import time
import traceback

REC = os.environ.get("ORACLE_PG_DIR", "/work/shared/golden/pg")
sys.path[:0] = [REC, os.path.dirname(REC)]
sys.argv[0] = os.path.join(REC, "record.py")

import capture  # noqa: E402
import record  # noqa: E402

_state = {}
_run_phases = record.run_phases


def run_phases(pg, cap, rl, work, props, snapshot_timeout):
    _state.update(pg=pg, slot=props.get("slot.name", "debezium"))
    return _run_phases(pg, cap, rl, work, props, snapshot_timeout)


def wait_streaming(self, timeout):
    pg, slot = _state["pg"], _state["slot"]
    sql = f"SELECT active FROM pg_replication_slots WHERE slot_name = '{slot}'"
    end = time.monotonic() + timeout
    while True:
        out = subprocess.run(["psql", pg.dsn, "-X", "-At", "-c", sql], capture_output=True, text=True)
        if out.stdout.strip() == "t":
            break
        why = self.ended()
        if why:
            raise capture.CaptureEnded(f"{self.name} stopped while waiting for slot {slot}: {why}")
        if time.monotonic() > end:
            raise capture.CaptureError(f"timed out after {timeout:g} s waiting for slot {slot} to be active")
        time.sleep(0.1)
    time.sleep(1.0)
    self.log.mark("snapshot_last_record")


record.run_phases = run_phases
capture.Capture.wait_snapshot = wait_streaming

if __name__ == "__main__":
    try:
        record.main()  # ends with os._exit(0)
    except capture.CaptureError as e:
        print(f"record_nodata.py: error: {e}", file=sys.stderr, flush=True)
        os._exit(1)
    except BaseException:  # noqa: BLE001
        traceback.print_exc()
        sys.stdout.flush()
        os._exit(1)
