import json, sys, tempfile
from pathlib import Path
sys.path[:0] = ["/work/shared/golden/pg", "/work/shared/golden"]
import record, capture
out = Path(sys.argv[1]); out.mkdir(parents=True, exist_ok=True)
pg = record.Postgres(); work = Path(tempfile.mkdtemp())
try:
    pg.psql("CREATE TABLE zeta (id int PRIMARY KEY); CREATE TABLE alpha (id int PRIMARY KEY); CREATE TABLE mid (id int PRIMARY KEY);"
            "CREATE TABLE debezium_signal (id varchar(64) PRIMARY KEY, type varchar(32), data varchar(2048));")
    props = record.connector_props(pg, work, ["heartbeat.interval.ms=0", "snapshot.mode=no_data"])
    rl = capture.RecordLog(); cap = capture.DebeziumCapture(rl, work); cap.start(props)
    import time; time.sleep(8)
    pg.psql("BEGIN; INSERT INTO zeta VALUES (1); INSERT INTO alpha VALUES (1); INSERT INTO mid VALUES (1); INSERT INTO zeta VALUES (2); COMMIT;")
    cap.wait_for(lambda: any(r['topic'].endswith('transaction') and r['value']['payload']['status']=='END' for r in rl.records), 60, "END")
    cap.stop()
    with open(out / "run.jsonl", "w") as f:
        for r in rl.records: f.write(json.dumps(r) + "\n")
finally:
    pg.stop()
import os; os._exit(0)
