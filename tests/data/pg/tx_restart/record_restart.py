"""Real Debezium 3.6.3: stop inside a large transaction (tx metadata on), restart from the stored offset."""
import json, re, sys, time, tempfile
from pathlib import Path
sys.path[:0] = ["/work/shared/golden/pg", "/work/shared/golden"]
import record, capture

out = Path(sys.argv[1]); out.mkdir(parents=True, exist_ok=True)
stop_after = int(sys.argv[2]) if len(sys.argv) > 2 else 600
pg = record.Postgres()
work = Path(tempfile.mkdtemp())
try:
    pg.psql("CREATE TABLE a (id int PRIMARY KEY, v text); CREATE TABLE b (id int PRIMARY KEY, v text);"
            "CREATE TABLE debezium_signal (id varchar(64) PRIMARY KEY, type varchar(32), data varchar(2048));"
            "INSERT INTO a VALUES (0, 'pre');")
    props = record.connector_props(pg, work, ["offset.flush.interval.ms=0", "max.batch.size=20",
                                              "max.queue.size=40", "heartbeat.interval.ms=0"])
    (out / "props.json").write_text(json.dumps(props, indent=1))
    runs = []
    for run in (1, 2):
        rl = capture.RecordLog()
        cap = capture.DebeziumCapture(rl, work)
        cap.start(props)
        if run == 1:
            cap.wait_snapshot(120)
            pg.psql("BEGIN; INSERT INTO a SELECT g, 'x' FROM generate_series(1, 1500) g;"
                    "INSERT INTO b SELECT g, 'y' FROM generate_series(1, 1500) g; COMMIT;"
                    "INSERT INTO a VALUES (5000, 'after');")
            cap.wait_for(lambda: len(rl.records) >= stop_after, 120, "records")
            cap.stop()
        else:
            cap.wait_quiet(8)
            cap.stop()
        runs.append(list(rl.records))
        raw = (work / "offsets.dat").read_bytes()
        offs = [m.decode() for m in re.findall(rb"\{[^{}]*\}", raw)]
        (out / f"offsets{run}.txt").write_text("\n".join(offs) + "\n")
        with open(out / f"run{run}.jsonl", "w") as f:
            for r in rl.records:
                f.write(json.dumps(r) + "\n")
finally:
    pg.stop()
import os; os._exit(0)
