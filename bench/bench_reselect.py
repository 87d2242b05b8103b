"""What `post.processors` (Debezium's ReselectColumnsPostProcessor) costs on the PostgreSQL per-event path.

Replays bench_pg_path's recorded pgoutput backlog (INSERTs, UPDATEs, DELETEs of the bench table) through the
connector's handlers under three configurations, interleaved, and prints CPU per event (`time.process_time`,
best of `--repeat`) as ratios to the configuration without the property in the same run:

* `other`: a processor whose include list selects no column of the bench table: the table keeps every path;
* `all`: a processor selecting every column: the table's rows go through row dicts, and each event whose
  `after` holds a NULL (the bench INSERTs leave `client_ns` NULL) pays one query. The backlog's rows are
  deleted by then, so each query finds nothing (a warning, as Debezium logs): a round trip on the loopback.

    .venv/bin/python bench/bench_reselect.py --rows 5000 --repeat 3

A benchmark, not a test.
"""

from __future__ import annotations

import argparse
import logging
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))
sys.path.insert(0, str(HERE))

import bench_pg_path as path  # noqa: E402

from emulator.testing.pgserver import PgServer  # noqa: E402

RESELECT = "io.debezium.processors.reselect.ReselectColumnsPostProcessor"
VARIANTS = {
    "none": {},
    "other": {
        "post.processors": "r",
        "r.type": RESELECT,
        "r.reselect.columns.include.list": "public.other:.*",
    },
    "all": {"post.processors": "r", "r.type": RESELECT},
}


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--rows", type=int, default=5000)
    ap.add_argument("--repeat", type=int, default=3)
    args = ap.parse_args(argv)
    logging.getLogger("emulator.reselect").setLevel(logging.ERROR)  # one "not found" warning per query
    with PgServer() as pg, tempfile.TemporaryDirectory(prefix="bench-reselect-") as tmp:
        ins, upd, dels = path.record(pg, args.rows)
        best: dict[tuple[str, str], float] = {}
        for i in range(args.repeat):
            for variant, props in VARIANTS.items():  # interleaved: load drifts hit every variant alike
                conn = path.connector(pg, Path(tmp) / f"{variant}{i}", props)
                for what, msgs in (("INSERT", ins), ("UPDATE", upd), ("DELETE", dels)):
                    cpu, n = path.replay(conn, msgs)
                    key = (variant, what)
                    best[key] = min(best.get(key, 1e9), cpu / n * 1e6)
                conn.engine.output.close()
                conn.conn.close()
        for what in ("INSERT", "UPDATE", "DELETE"):
            ref = best[("none", what)]
            cells = "  ".join(f"{v} {best[(v, what)]:7.2f} ({best[(v, what)] / ref:5.2f}x)" for v in VARIANTS)
            print(f"{what:6s} CPU-µs/event: {cells}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
