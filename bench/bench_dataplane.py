#!/usr/bin/env python3
"""The data plane alone: CPU per record of each chain on what the PostgreSQL connector hands it for the
catch-up backlog (bench_pg.py's table and INSERT backlog), fused path against the general one.

    .venv/bin/python bench/bench_dataplane.py [--rows N] [--chains unwrap,unwrap-avro,...] [--passes P]

The records are captured once from a throwaway server (the connector running as the data plane makes it:
`StructuredRecord`s), then every chain's plane (`fused`: `DataPlane.apply` as installed, the fused path where
the chain has one; `general`: the unbound `DataPlane.apply`, the record model + transforms + converters)
converts all of them, P passes, the best pass's process CPU time reported (CPU, not wall: the machine is
shared). No output is written. Compare two trees by running it with each on PYTHONPATH; the end-to-end
figures (process start -> all events written) are bench_converters.py's.
"""

from __future__ import annotations

import argparse
import os
import sys
import threading
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
if not os.environ.get("PYTHONPATH"):  # else the tree on PYTHONPATH is measured (before/after comparisons)
    sys.path.insert(0, str(HERE.parent))

# the emulator is imported before bench_pg, which puts this repository first on sys.path
from emulator.config import from_dict  # noqa: E402
from emulator.connect import dataplane  # noqa: E402
from emulator.connect.dataplane import DataPlane  # noqa: E402
from emulator.offsets import MemoryOffsetStore  # noqa: E402
from emulator.outputs.memory import CallbackOutput  # noqa: E402
from emulator.runner import Runner  # noqa: E402
from emulator.testing.pgserver import PgServer  # noqa: E402

sys.path.insert(0, str(HERE))
from bench_pg import DDL, TABLE, backlog_sql, connector_props  # noqa: E402

UNWRAP = {"transforms": "unwrap", "transforms.unwrap.type": "io.debezium.transforms.ExtractNewRecordState"}
AVRO = {
    "key.converter": "io.confluent.connect.avro.AvroConverter",
    "key.converter.schema.registry.url": "mock://bench",
    "value.converter": "io.confluent.connect.avro.AvroConverter",
    "value.converter.schema.registry.url": "mock://bench",
}
SCHEMALESS = {"key.converter.schemas.enable": "false", "value.converter.schemas.enable": "false"}
CHAINS = {
    "unwrap": {**UNWRAP, **SCHEMALESS},
    "unwrap-schemas": UNWRAP,
    "unwrap-avro": {**UNWRAP, **AVRO},
    "avro": AVRO,
    # the chain of Debezium's docs: deletes rewritten (`__deleted`), op / table / lsn / source.ts_ms added
    "unwrap-rewrite-avro": {
        **UNWRAP,
        **AVRO,
        "transforms.unwrap.delete.tombstone.handling.mode": "rewrite",
        "transforms.unwrap.add.fields": "op,table,lsn,source.ts_ms",
    },
    "schemaless": {**SCHEMALESS, "value.converter.replace.null.with.default": "false"},  # no fused path
}


def capture(rows: int) -> tuple[list, dict]:
    """The records the connector hands the data plane for an INSERT backlog of `rows` rows."""
    records: list = []
    with PgServer() as pg:
        pg.psql(f"DROP TABLE IF EXISTS {TABLE}; {DDL}")
        props = connector_props(
            pg, Path("/nonexistent"), **{"slot.name": "bench_dp", "snapshot.mode": "no_data", **UNWRAP}
        )
        props.pop("offset.storage.file.filename")
        config = from_dict(props)
        plane = dataplane.build(config)
        plane.apply = lambda r: records.append(r)  # only the records before the plane are wanted
        runner = Runner(config, CallbackOutput(lambda r: None), MemoryOffsetStore(), plane=plane)
        thread = threading.Thread(target=runner.run, daemon=True)
        thread.start()
        try:
            deadline = time.monotonic() + 120 + rows / 1000
            while True:
                with pg.connect() as c:
                    row = c.execute("SELECT active FROM pg_replication_slots WHERE slot_name = 'bench_dp'")
                    if (row.fetchone() or (False,))[0]:
                        break
                if not thread.is_alive() or time.monotonic() > deadline:
                    raise SystemExit("the connector did not stream")
                time.sleep(0.2)
            pg.psql(backlog_sql("insert", rows))
            while sum(1 for r in records if r.topic.endswith(f".{TABLE}")) < rows:
                if not thread.is_alive() or time.monotonic() > deadline:
                    raise SystemExit(f"{len(records)} of {rows} records")
                time.sleep(0.2)
        finally:
            runner.stop()
            thread.join(30)
    base = {k: v for k, v in props.items() if not k.startswith("transforms")}
    return records, base


def measure(apply, records: list, passes: int) -> float:
    best = 1e9
    for _ in range(passes):
        t = time.process_time()
        for r in records:
            apply(r)
        best = min(best, time.process_time() - t)
    return best


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--rows", type=int, default=20_000)
    ap.add_argument("--chains", default=",".join(CHAINS))
    ap.add_argument("--passes", type=int, default=5)
    args = ap.parse_args()
    records, base = capture(args.rows)
    n = len(records)
    print(f"{n:,} records captured; emulator from {Path(dataplane.__file__).parents[2]}", flush=True)
    for name in args.chains.split(","):
        props = {**base, **CHAINS[name]}
        props = {k: v.replace("mock://bench", f"mock://dp-{name}") for k, v in props.items()}
        fused = dataplane.build(from_dict(props))
        general = dataplane.build(
            from_dict({**props, **{k: v + "-g" for k, v in props.items() if "mock://" in v}})
        )
        path = getattr(fused, "fused", None) or "none"
        f = measure(fused.apply, records, args.passes)
        g = measure(lambda r, p=general: DataPlane.apply(p, r), records, args.passes)
        print(
            f"{name:15s} fused ({path}) {f / n * 1e6:6.2f} CPU-us/record ({n / f:,.0f}/s), "
            f"general {g / n * 1e6:6.2f} CPU-us/record ({n / g:,.0f}/s): {g / f:.2f}x",
            flush=True,
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
