"""The recorder's quiet wait holds while the emulator still works, not only while its files grow.

diffcamp14 (session 17) saw a campaign's emulator write ~150k records over 100 s on a loaded machine: a starved
emulator writes nothing for seconds while changes wait in its socket, and `wait_quiet` (no file growth for
QUIET_S) passed with records still to come; the recorder then stopped it and the comparison missed them. Here the
starvation is made certain: the emulator is stopped (SIGSTOP) before a step and continued only after twice the
quiet time. A stopped (or runnable, starved) emulator now counts as work; an idle one waits in state S.

The connect recorder (oracle_connect, the data-plane campaign) runs the same EmulatorCapture with its own record
log, ConnectLog: the wait is checked through it too (session 19), so that a ConnectLog that counted only its own
records as activity would fail here.
"""

from __future__ import annotations

import os
import signal
import sys
import threading

import pytest

from emulator.testing import oracle_capture as capture
from emulator.testing.differential import backend
from emulator.testing.oracle_connect import ConnectLog

QUIET_S = 1.0
ROWS = 300


@pytest.mark.parametrize("log_class", [capture.RecordLog, ConnectLog], ids=["capture", "connect"])
def test_wait_quiet_waits_for_a_stopped_emulator(tmp_path, log_class):
    be = backend("pg")
    rl = log_class()
    out = tmp_path / "out"
    out.mkdir()
    cap = capture.EmulatorCapture(
        rl, [sys.executable, "-m", "emulator"], out, tmp_path / "emulator.log", tmp_path
    )
    with be.server() as pg:
        be.run_sql(
            pg,
            "CREATE TABLE public.t (id integer PRIMARY KEY, v text); INSERT INTO public.t VALUES (0, 'x');",
        )
        props = be.base_props(pg, tmp_path)
        be.emulator_props(props)
        cont = None
        try:
            cap.start(props)
            cap.wait_snapshot(60, be.streaming_sign(pg, props))
            os.kill(cap.proc.pid, signal.SIGSTOP)
            be.run_sql(pg, f"INSERT INTO public.t SELECT g, 'v' || g FROM generate_series(1, {ROWS}) g;")
            cont = threading.Timer(2 * QUIET_S, os.kill, (cap.proc.pid, signal.SIGCONT))
            cont.start()
            cap.wait_quiet(QUIET_S, timeout=60)  # before: returned after QUIET_S, the emulator still stopped
            with rl.lock:
                streamed = [
                    r
                    for r in rl.records
                    if r["topic"] == "dbserver1.public.t"
                    and (r.get("value") or {}).get("payload", {}).get("op") == "c"
                ]
            assert len(streamed) == ROWS
        finally:
            if cont is not None:
                cont.cancel()
            if cap.proc is not None and cap.proc.poll() is None:
                os.kill(cap.proc.pid, signal.SIGCONT)
            cap.stop()
