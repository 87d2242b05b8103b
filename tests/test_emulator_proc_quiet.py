"""The tests' quiet wait (`EmulatorProcess.wait_quiet`, which the conformance cases run between steps and
`wait_counts` at their end) holds while the emulator still works, not only while its files grow: on a loaded
machine a starved emulator writes nothing for seconds while changes wait in its socket. Here the starvation is
made certain: the emulator is stopped (SIGSTOP) before a change and continued only after twice the quiet time.
Before, the wait returned after the quiet time with none of the rows written."""

from __future__ import annotations

import os
import signal
import threading

from emulator_proc import EmulatorProcess, snapshot_done

from emulator.testing.pgserver import PgServer

QUIET_S = 1.0
ROWS = 300


def test_wait_quiet_waits_for_a_stopped_emulator(tmp_path):
    with PgServer() as pg:
        pg.psql(
            "CREATE TABLE public.t (id integer PRIMARY KEY, v text); INSERT INTO public.t VALUES (0, 'x');"
        )
        emu = EmulatorProcess(pg.connector_properties(), tmp_path)
        cont = None
        try:
            emu.start().wait_for(snapshot_done, 120, "the snapshot")
            assert pg.wait_slot_sent("debezium", pg.wal_lsn()), "the emulator never streamed"
            os.kill(emu.proc.pid, signal.SIGSTOP)
            pg.psql(f"INSERT INTO public.t SELECT g, 'v' || g FROM generate_series(1, {ROWS}) g;")
            cont = threading.Timer(2 * QUIET_S, os.kill, (emu.proc.pid, signal.SIGCONT))
            cont.start()
            recs = emu.wait_quiet(QUIET_S, timeout=60)
            streamed = [
                r for r in recs if r["topic"] == "dbserver1.public.t" and r["value"]["payload"]["op"] == "c"
            ]
            assert len(streamed) == ROWS
        finally:
            if cont is not None:
                cont.cancel()
            if emu.proc is not None and emu.proc.poll() is None:
                os.kill(emu.proc.pid, signal.SIGCONT)
            assert emu.stop() == 0
