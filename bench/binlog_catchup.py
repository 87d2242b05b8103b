"""The MariaDB connector's whole catch-up, in this process: `bench_binlog_path.py --catchup` (which see).

A throwaway MariaDB with bench_mariadb.py's table; the connector snapshots it (one sentinel row) and is
stopped; `rows` single-row INSERT statements (1000 per transaction, or `per_tx`) are written; a new connector on the same
offsets reads them, as bench_mariadb.py's INSERT drain, but in this process (a `Runner` into a directory
output): the binlog socket reads, packet framing, the stream loop, rows to lines and the output's writes, all
counted. Then the same for `rows` UPDATEs, then `rows` DELETEs (each a delete and its tombstone: per event is
per row event, two lines). CPU (`getrusage`, user and system) from the first record to the
last, per event; with `markers`, `os.getppid()` at both ends for `valgrind --tool=callgrind
--dump-before=getppid` (the second dump holds the drain alone)."""

from __future__ import annotations

import os
import resource
import shutil
import tempfile
import threading
import time
from pathlib import Path

import bench_mariadb as bm

from emulator.config import from_dict
from emulator.outputs.directory import DirectoryOutput
from emulator.runner import Runner
from emulator.testing.mariadbserver import MariaDbServer

TOPIC = "bench.benchdb.bench"
# single-row DELETE statements, `per_tx` per transaction (1000: as bench_mariadb.py's load_bench writes its backlogs)
DELETES = """
DROP PROCEDURE IF EXISTS delete_bench;
DELIMITER //
CREATE PROCEDURE delete_bench(IN first BIGINT, IN n BIGINT, IN per_tx INT)
BEGIN
  DECLARE i BIGINT DEFAULT 0;
  START TRANSACTION;
  WHILE i < n DO
    DELETE FROM bench WHERE id = first + i;
    SET i = i + 1;
    IF i % per_tx = 0 THEN COMMIT; START TRANSACTION; END IF;
  END WHILE;
  COMMIT;
END //
DELIMITER ;
"""
# bench_mariadb.py's INSERT and UPDATE statements, `per_tx` of them per transaction (`catchup(per_tx=)`: small
# transactions, where the GTID and XID events of each weigh as much as its rows)
LOAD_TX = """
DROP PROCEDURE IF EXISTS load_tx;
DELIMITER //
CREATE PROCEDURE load_tx(IN first BIGINT, IN n BIGINT, IN upd INT, IN per_tx INT)
BEGIN
  DECLARE i BIGINT DEFAULT 0;
  START TRANSACTION;
  WHILE i < n DO
    IF upd = 1 THEN
      UPDATE bench SET c_int = c_int + 1, c_v2 = CONCAT('u', i) WHERE id = first + i;
    ELSE
      INSERT INTO bench VALUES (first + i, i, i * 1000, i % 30000, CONCAT('name-', i), CONCAT('v', i),
        i / 100, '2024-01-02 03:04:05.123456', i % 2, REPEAT('x', 100), NULL);
    END IF;
    SET i = i + 1;
    IF i % per_tx = 0 THEN COMMIT; START TRANSACTION; END IF;
  END WHILE;
  COMMIT;
END //
DELIMITER ;
"""


def drain(props: dict, n: int, markers: bool = False, lines_per_event: int = 1) -> dict | None:
    """Run the connector until it has written `n` lines -> CPU µs per event (`lines_per_event` lines) from the
    first line to the n-th; `n` 0: until it streams (its snapshot complete and stored)."""
    times: list = []

    class Counting(DirectoryOutput):
        def write_line(self, topic: str, line: bytes, _write=DirectoryOutput.write_line) -> None:
            _write(self, topic, line)
            if topic != TOPIC:  # transaction metadata's BEGIN/END
                return
            self.count += 1
            if self.count == 1 or self.count == n:
                self.mark()

        def write(self, record, _write=DirectoryOutput.write) -> None:  # the snapshot's, schema changes
            _write(self, record)
            if record.topic == TOPIC:
                self.count += 1
                if self.count == 1 or self.count == n:
                    self.mark()

        def mark(self) -> None:
            times.append(resource.getrusage(resource.RUSAGE_SELF))
            if markers:
                os.getppid()
            if self.count == n:
                runner.stop()

    out = Counting(Path(props["offset.storage.file.filename"]).parent / "out")
    out.count = 0
    runner = Runner(from_dict(props), out, progress_interval_s=None)
    if not n:

        def stop_when_streaming() -> None:
            while not getattr(runner.connector, "streaming", False):
                time.sleep(0.05)
            time.sleep(0.5)  # (the snapshot's offsets are committed before streaming starts)
            runner.stop()

        threading.Thread(target=stop_when_streaming, daemon=True).start()
    runner.run()
    shutil.rmtree(out.dir, ignore_errors=True)
    if not n:
        return None
    if len(times) != 2:
        raise SystemExit(f"the drain wrote {out.count} lines, not {n}")
    a, b = times
    per = 1e6 * lines_per_event / max(n - 1, 1)
    return {
        "events": n // lines_per_event,
        "cpu_us": round((b.ru_utime + b.ru_stime - a.ru_utime - a.ru_stime) * per, 2),
        "user_us": round((b.ru_utime - a.ru_utime) * per, 2),
        "system_us": round((b.ru_stime - a.ru_stime) * per, 2),
    }


def catchup(
    rows: int,
    only: str | None = None,
    markers: bool = False,
    repeat: int = 1,
    per_tx: int = 1000,
    extra: dict[str, str] | None = None,
) -> dict[str, list[dict]]:
    """-> {"INSERT": [drain results], "UPDATE": [...], "DELETE": [...]} (`only`: one of them; the others'
    backlogs are still written, UPDATEs and DELETEs need the rows), `per_tx` statements per transaction, `extra`
    connector properties for the drains. Each repeat starts from the same offsets, on a fresh output."""
    work = Path(tempfile.mkdtemp(prefix="bench-catchup-"))
    results: dict[str, list[dict]] = {}
    try:
        with MariaDbServer(extra_args=["--innodb-buffer-pool-size=512M"]) as db:
            db.sql("CREATE DATABASE benchdb")
            db.sql(bm.TABLE, "benchdb")
            db.sql(LOAD_TX, "benchdb")
            db.sql(DELETES, "benchdb")
            db.sql(
                "INSERT INTO bench VALUES (0, 0, 0, 0, 'sentinel', NULL, 0, '2024-01-01', 0, NULL, NULL)",
                "benchdb",
            )
            start = work / "start"
            start.mkdir()
            drain(bm.props(db, start), 0)  # the snapshot's one record; offsets and history kept
            for name, call, per in (
                ("INSERT", f"load_tx(1, {rows}, 0, {per_tx})", 1),
                ("UPDATE", f"load_tx(1, {rows}, 1, {per_tx})", 1),
                ("DELETE", f"delete_bench(1, {rows}, {per_tx})", 2),  # a delete and its tombstone
            ):
                db.sql(f"CALL {call}", "benchdb")
                runs = results[name] = []
                for k in range(repeat if only in (None, name) else 1):
                    d = work / f"{name}{k}"
                    shutil.copytree(start, d)
                    runs.append(
                        drain(bm.props(db, d, **(extra or {})), rows * per, markers and only == name, per)
                    )
                start = d  # the next backlog starts where this drain ended
                if only not in (None, name):
                    del results[name]
    finally:
        shutil.rmtree(work, ignore_errors=True)
    return results
