"""The MariaDB harness's sign that a capture streams, which must not hold while its snapshot reads.

Before, the MariaDB backend had none (`streaming_sign` None): a snapshot that writes no record marked `last` could
end only by the harness's timeout (PostgreSQL's harness takes its walsender's state). The sign is a binlog dump
thread on the server, which an engine opens only after its snapshot. Here the emulator's snapshot is held by a
table lock another session keeps: while it waits the sign must not hold; once the lock goes the snapshot ends
and the sign must hold.
"""

from __future__ import annotations

import sys
import tempfile
import time
from pathlib import Path

from emulator.testing import oracle_capture as capture
from emulator.testing.differential_mariadb import MariaDbBackend

PRE = """CREATE DATABASE inventory;
USE inventory;
CREATE TABLE debezium_signal (id VARCHAR(42) PRIMARY KEY, type VARCHAR(32) NOT NULL, data VARCHAR(2048) NULL);
CREATE TABLE t (id INT PRIMARY KEY, v VARCHAR(10));
INSERT INTO t VALUES (1, 'one');
"""


def _until(cond, timeout: float, what: str) -> None:
    end = time.monotonic() + timeout
    while not cond():
        assert time.monotonic() < end, f"timed out waiting for {what}"
        time.sleep(0.1)


def test_the_sign_holds_once_the_snapshot_is_over_and_not_while_it_reads(tmp_path):
    be = MariaDbBackend()
    with be.server() as db:
        be.run_sql(db, PRE)
        workdir = Path(tempfile.mkdtemp(dir=tmp_path))
        props = be.base_props(db, workdir)
        sign = be.streaming_sign(db, props)
        assert sign is not None
        assert not sign()
        locker = db.connect()
        cap = None
        try:
            locker.cursor().execute("LOCK TABLES inventory.t WRITE")
            rl = capture.RecordLog()
            out = tmp_path / "out"
            out.mkdir()
            cmd = [sys.executable, "-m", "emulator"]
            cap = capture.EmulatorCapture(rl, cmd, out, tmp_path / "emulator.log", workdir)
            cap.start(props)

            def snapshot_waits() -> bool:
                assert not cap.ended(), cap.ended()
                rows = db.query(
                    "SELECT COUNT(*) FROM information_schema.processlist WHERE state LIKE 'Waiting for%'"
                )
                return rows[0][0] != "0"

            _until(snapshot_waits, 60, "the snapshot to wait for the table lock")
            for _ in range(10):  # a second of polls while the snapshot still waits
                assert not sign()
                time.sleep(0.1)
            assert "snapshot_last_record" not in rl.marks
            locker.cursor().execute("UNLOCK TABLES")
            _until(sign, 60, "the binlog dump")
            _until(lambda: "snapshot_last_record" in rl.marks, 30, "the snapshot's last record")
        finally:
            locker.close()
            if cap is not None:
                cap.stop()
