"""Run the emulator with a per-transaction timing trace, for finding where commit -> event time goes.

    python bench/latency_trace.py TRACE.json run CONFIG --out DIR      (the arguments of `python -m emulator`)

TRACE.json `auto`: `DIR.trace.json` beside the output directory (what bench_pg.py reads).

Bench-only: it wraps, in this process only, the points an idle-then-one-event record passes and writes
`TRACE.json` at exit; the product has no trace code, so nothing is added to its per-event path.
All times are `time.time()` (the bench process compares them with its own clock, same machine).

Per pgoutput transaction, keyed by the data change's LSN (`source.lsn` of its record):
  wake    the last return of the replication socket's select() before the transaction's BEGIN was read
          (absent when none happened since the previous BEGIN: the stream was busy). The walsender
          often sends a keepalive right before a transaction, so this may be that keepalive's wake-up.
  begin   the BEGIN message handed to its handler (received)
  emit    the record handed to the output (`Engine.emit` entered: decoded, envelope built)
  written the output's `write` returned
  flushed the output's `flush` that made the line visible to readers returned
And, separately, every `Engine.commit` as [start, end] (the streaming thread does nothing else meanwhile;
a background commit only takes the commit point there) and every `DirectoryOutput.make_durable` (its
fsyncs, on whichever thread runs them).

`bench/bench_pg.py --latency-trace` runs the emulator through this and prints the breakdown.
"""

from __future__ import annotations

import atexit
import json
import select as _select
import sys
import time
from pathlib import Path

now = time.time


def install(trace_path: Path) -> None:
    from emulator import engine as engine_mod
    from emulator.connectors.postgres import replication
    from emulator.connectors.postgres import stream as pg_stream
    from emulator.outputs import directory

    txs: list[dict] = []
    commits: list[list[float]] = []
    state: dict = {"wake": None, "cur": None, "unflushed": []}

    class TracedSelect:
        """Stands in for the `select` module inside replication.py: notes when the socket became readable."""

        @staticmethod
        def select(r, w, x, timeout=None):
            res = _select.select(r, w, x, timeout)
            if res[0]:
                state["wake"] = now()
            return res

    replication.select = TracedSelect

    Stream = pg_stream.PgoutputStream
    on_begin, on_insert, on_update = Stream._on_begin, Stream._on_insert, Stream._on_update

    def traced_begin(self, msg, lsn):
        t = now()
        state["cur"] = cur = {"begin": t}
        if state["wake"] is not None:
            cur["wake"] = state["wake"]
            state["wake"] = None
        txs.append(cur)
        return on_begin(self, msg, lsn)

    def traced_change(orig):
        def change(self, msg, lsn):
            cur = state["cur"]
            if cur is not None and "lsn" not in cur:
                cur["lsn"] = lsn
                cur["recv"] = now()
            return orig(self, msg, lsn)

        return change

    Stream._on_begin = traced_begin
    Stream._on_insert = traced_change(on_insert)
    Stream._on_update = traced_change(on_update)

    Engine = engine_mod.Engine
    emit, commit = Engine.emit, Engine.commit

    def traced_emit(self, record):
        cur = state["cur"]
        if cur is not None and "emit" not in cur:
            cur["emit"] = now()
            emit(self, record)
            cur["written"] = now()
            state["unflushed"].append(cur)
            return None
        return emit(self, record)

    def traced_commit(self, force=False):
        t = now()
        try:
            return commit(self, force)
        finally:
            commits.append([t, now()])

    Engine.emit = traced_emit
    Engine.commit = traced_commit

    Out = directory.DirectoryOutput
    flush = Out.flush
    durable: list[list[float]] = []
    make_durable = Out.make_durable

    def traced_make_durable(fds):
        t = now()
        try:
            return make_durable(fds)
        finally:
            durable.append([t, now()])

    Out.make_durable = staticmethod(traced_make_durable)

    def traced_flush(self):
        flush(self)
        pending = state["unflushed"]
        if pending:
            t = now()
            for cur in pending:
                cur["flushed"] = t
            pending.clear()

    Out.flush = traced_flush

    def dump() -> None:
        trace_path.write_text(json.dumps({"transactions": txs, "commits": commits, "durable": durable}))

    atexit.register(dump)


def main() -> int:
    if len(sys.argv) < 3:
        print(__doc__, file=sys.stderr)
        return 2
    path, args = sys.argv[1], sys.argv[2:]
    if path == "auto":
        out = args[args.index("--out") + 1].rstrip("/")
        path = f"{out}.trace.json"
    install(Path(path))
    from emulator.cli import main as emulator_main

    return emulator_main(args)


if __name__ == "__main__":
    sys.exit(main())
