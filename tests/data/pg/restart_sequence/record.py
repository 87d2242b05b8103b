"""Records a connector restart mid-stream: what `source.sequence` the first changes after the restart carry.

`python record.py --engine debezium|emulator -o OUT.jsonl` (Debezium: the oracle venv's python, with
PYTHONPATH at the project's root). A throwaway PostgreSQL 15; the table `public.r` snapshotted, three
autocommit changes streamed, the capture stopped once its offsets are flushed (offset.flush.interval.ms=200,
then 3 s), started again from them, two more changes streamed (`--at-snapshot`: all five after the restart,
which then resumes from the snapshot's offset). Each record line gets `"run": 1|2` (which start emitted it):
`debezium.jsonl` and `debezium_at_snapshot.jsonl` here, from /work/oracle's Debezium 3.6.3. The emulator side is `tests/test_pg_restart_sequence.py`; this file the record
of what real Debezium does (`tests/data/pg/restart_sequence/`)."""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
import time
from pathlib import Path

from emulator.testing import oracle_capture as capture
from emulator.testing.differential_pg import PgBackend
from emulator.testing.pgserver import PgServer

PRE = "CREATE TABLE public.r (id int PRIMARY KEY, v text);\nINSERT INTO public.r VALUES (1, 'a');"
FIRST = [
    "UPDATE public.r SET v = 'b' WHERE id = 1;",
    "INSERT INTO public.r VALUES (2, 'x');",
    "UPDATE public.r SET v = 'b2' WHERE id = 1;",
]
SECOND = ["UPDATE public.r SET v = 'c' WHERE id = 1;", "UPDATE public.r SET v = 'y' WHERE id = 2;"]


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--engine", choices=["debezium", "emulator"], default="debezium")
    ap.add_argument("-o", "--out", type=Path, required=True)
    ap.add_argument("--at-snapshot", action="store_true", help="restart before any streamed change")
    a = ap.parse_args()
    first, second = ([], FIRST + SECOND) if a.at_snapshot else (FIRST, SECOND)
    work = Path(tempfile.mkdtemp(prefix="dbz-restart-"))
    be = PgBackend()
    rl = capture.RecordLog()
    runs: list[int] = []

    def engine(n: int) -> capture.Capture:
        if a.engine == "debezium":
            return capture.DebeziumCapture(rl, work / f"d{n}")
        out = work / "out"
        out.mkdir(exist_ok=True)
        return capture.EmulatorCapture(
            rl, [sys.executable, "-m", "emulator"], out, work / f"emu{n}.log", work
        )

    (work / "d1").mkdir()
    (work / "d2").mkdir()
    with PgServer() as pg:
        props = be.base_props(pg, work)
        props.update({"offset.flush.interval.ms": "200", "heartbeat.interval.ms": "0"})
        props.pop("signal.data.collection")
        pg.psql(PRE)
        cap = engine(1)
        cap.start(props)
        cap.wait_snapshot(180, be.streaming_sign(pg, props))
        for sql in first:
            pg.psql(sql)
            cap.wait_quiet(2.0)
        time.sleep(3.0)  # the offsets of the last change flushed
        cap.stop()
        runs.append(len(rl.records))
        cap = engine(2)
        cap.start(props)
        be.wait_streaming(pg, cap, props, 180)
        for sql in second:
            pg.psql(sql)
            cap.wait_quiet(2.0)
        cap.stop()
    with open(a.out, "w") as f:
        for i, rec in enumerate(rl.records):
            f.write(json.dumps({**rec, "run": 1 if i < runs[0] else 2}, separators=(",", ":")) + "\n")
    for i, rec in enumerate(rl.records):
        p = (rec.get("value") or {}).get("payload") or {}
        src = p.get("source") or {}
        print(1 if i < runs[0] else 2, rec["topic"], p.get("op"), src.get("lsn"), src.get("sequence"))
    return 0


if __name__ == "__main__":
    sys.exit(main())
