"""Records a connector stopped INSIDE a transaction and started again: what `source.sequence` the rest of it carries.

`python record_inside_tx.py --engine debezium|emulator --mode first|later -o OUT.jsonl` (Debezium: the oracle
venv's python, with PYTHONPATH at the project's root). A throwaway PostgreSQL 15; `public.r` snapshotted (one row);
`--mode later` first streams one committed change and waits 3 s (keepalives move the server's position); then one
transaction of 400 inserts, the capture stopped after 120 records of it (max.batch.size=20, offsets flushed at the
stop), started again from its offsets until the transaction's END and one more autocommit insert. OUT keeps a
summary line per record (`run`, topic, op, id, txId, lsn, sequence; the transaction topic's status/id) and, last,
`{"stored_offset": ...}` (what the first run left in offsets.dat). Recorded from /work/oracle's Debezium 3.6.3:
`inside_first_tx.jsonl`, `inside_later_tx.jsonl`; the emulator's side is tests/test_pg_restart_sequence.py."""

from __future__ import annotations

import argparse
import json
import re
import sys
import tempfile
from pathlib import Path

from emulator.testing import oracle_capture as capture
from emulator.testing.differential_pg import PgBackend
from emulator.testing.pgserver import PgServer

PRE = "CREATE TABLE public.r (id int PRIMARY KEY, v text);\nINSERT INTO public.r VALUES (0, 'a');"
LATER = "INSERT INTO public.r VALUES (1, 'l');"
BIG = "BEGIN; INSERT INTO public.r SELECT g, 'x' FROM generate_series(10, 409) g; COMMIT;"
AFTER = "INSERT INTO public.r VALUES (5000, 'after');"


def summary(rec: dict, run: int) -> dict:
    p = (rec.get("value") or {}).get("payload") or {}
    if rec["topic"].endswith(".transaction"):
        return {"run": run, "topic": "transaction", "status": p["status"], "id": p["id"]}
    src = p.get("source") or {}
    row = p.get("after") or p.get("before") or {}
    return {
        "run": run,
        "topic": rec["topic"].rsplit(".", 1)[-1],
        "op": p.get("op"),
        "id": row.get("id"),
        "txId": src.get("txId"),
        "lsn": src.get("lsn"),
        "sequence": src.get("sequence"),
    }


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--engine", choices=["debezium", "emulator"], default="debezium")
    ap.add_argument("--mode", choices=["first", "later"], default="first")
    ap.add_argument("-o", "--out", type=Path, required=True)
    a = ap.parse_args()
    work = Path(tempfile.mkdtemp(prefix="dbz-restart-tx-"))
    be = PgBackend()
    rl = capture.RecordLog()

    def engine(n: int) -> capture.Capture:
        if a.engine == "debezium":
            return capture.DebeziumCapture(rl, work / f"d{n}")
        out = work / f"out{n}"
        out.mkdir()
        return capture.EmulatorCapture(
            rl, [sys.executable, "-m", "emulator"], out, work / f"emu{n}.log", work
        )

    (work / "d1").mkdir()
    (work / "d2").mkdir()
    n_tx = lambda: sum(1 for r in rl.records if r["topic"].endswith(".r") and summary(r, 0)["id"] >= 10)  # noqa: E731
    with PgServer() as pg:
        props = be.base_props(pg, work)
        props.update(
            {
                "offset.flush.interval.ms": "0",
                "heartbeat.interval.ms": "0",
                "max.batch.size": "20",
                "max.queue.size": "40",
            }
        )
        props.pop("signal.data.collection")
        pg.psql(PRE)
        cap = engine(1)
        cap.start(props)
        cap.wait_snapshot(180, be.streaming_sign(pg, props))
        if a.mode == "later":
            pg.psql(LATER)
            cap.wait_quiet(3.0)
        pg.psql(BIG)
        cap.wait_for(lambda: n_tx() >= 120, 180, "120 records of the transaction")
        cap.stop()
        first = len(rl.records)
        found = [m.decode() for m in re.findall(rb"\{[^{}]*\}", (work / "offsets.dat").read_bytes())]
        stored = json.loads(found[-1]) if found else None
        cap = engine(2)
        cap.start(props)
        cap.wait_for(
            lambda: any(summary(r, 0).get("status") == "END" for r in rl.records[first:]), 180, "END"
        )
        pg.psql(AFTER)
        cap.wait_for(lambda: any(summary(r, 0).get("id") == 5000 for r in rl.records[first:]), 180, "5000")
        cap.wait_quiet(2.0)
        cap.stop()
    with open(a.out, "w") as f:
        for i, rec in enumerate(rl.records):
            f.write(json.dumps(summary(rec, 1 if i < first else 2), separators=(",", ":")) + "\n")
        f.write(json.dumps({"stored_offset": stored}, separators=(",", ":")) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
