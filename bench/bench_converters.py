#!/usr/bin/env python3
"""Data-plane throughput on the PostgreSQL catch-up (emulator only): the raw envelope with Connect's
default JsonConverter (the fast path) against the same backlog through `ExtractNewRecordState` + schemaless
JSON, and through Confluent's AvroConverter (mock:// registry) for keys and values.

    .venv/bin/python bench/bench_converters.py [--rows N] [--variants raw,unwrap,avro] [--json FILE]

Per variant: a fresh bench table (bench_pg.py's shape) and slot; the emulator streams once to create its
slot and offset, stops; N rows are inserted (1000-row transactions); the emulator starts again and the
time from its start, and from its first record, to the N-th record in DIR/<topic>.jsonl is measured, with
its CPU (also from the first record on, leaving out the start-up: imports, connection, slot). Ratios
between variants are the result; absolute numbers depend on the machine's load.

`unwrap` runs in the data plane's wire mode (a plain ExtractNewRecordState and JsonConverters: values are
never decoded, fused.plain_unwrap), `avro` the fused plain Avro path (fused.plain_avro: the JSON-ready payloads
straight into the generated Avro writers, no Connect values).
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
REPO = HERE.parent
sys.path.insert(0, str(REPO))
sys.path.insert(0, str(HERE))

from bench_pg import DDL, TABLE, TOPIC_PREFIX, backlog_sql, connector_props, write_properties  # noqa: E402

from emulator.testing.pgserver import PgServer  # noqa: E402

CLK = os.sysconf("SC_CLK_TCK")
VARIANTS = {
    "raw": {},
    "unwrap": {
        "transforms": "unwrap",
        "transforms.unwrap.type": "io.debezium.transforms.ExtractNewRecordState",
        "key.converter.schemas.enable": "false",
        "value.converter.schemas.enable": "false",
    },
    "avro": {
        "key.converter": "io.confluent.connect.avro.AvroConverter",
        "key.converter.schema.registry.url": "mock://bench",
        "value.converter": "io.confluent.connect.avro.AvroConverter",
        "value.converter.schema.registry.url": "mock://bench",
    },
}


def cpu_s(pid: int) -> float:
    try:
        parts = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
        return (int(parts[11]) + int(parts[12])) / CLK
    except (OSError, IndexError, ValueError):
        return 0.0


def lines(path: Path) -> int:
    try:
        with open(path, "rb") as f:
            return f.read().count(b"\n")
    except FileNotFoundError:
        return 0


PROFILE: list[Path] = []  # --profile DIR: the measured runs under cProfile, DIR/<variant>.prof


def start(config: Path, out: Path, log: Path, profile: Path | None = None) -> subprocess.Popen:
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    prof = ["-m", "cProfile", "-o", str(profile)] if profile else []
    with open(log, "ab") as f:
        return subprocess.Popen(
            [sys.executable, *prof, "-m", "emulator", "run", str(config), "--out", str(out)],
            stdout=f,
            stderr=subprocess.STDOUT,
            env=env,
            cwd=REPO,
        )


def stop(p: subprocess.Popen) -> None:
    p.terminate()
    try:
        p.wait(30)
    except subprocess.TimeoutExpired:
        p.kill()
        p.wait()


def slot_active(pg: PgServer, slot: str) -> bool:
    with pg.connect() as c:
        row = c.execute("SELECT active FROM pg_replication_slots WHERE slot_name = %s", (slot,)).fetchone()
    return bool(row and row[0])


def run_variant(pg: PgServer, name: str, rows: int, work: Path) -> dict:
    slot = f"bench_{name}"
    pg.psql(f"DROP TABLE IF EXISTS {TABLE}; {DDL}")
    props = connector_props(
        pg,
        work / f"{name}.offsets",
        **{
            "slot.name": slot,
            "publication.name": f"pub_{name}",
            "publication.autocreate.mode": "filtered",
            "table.include.list": f"public.{TABLE}",
            "snapshot.mode": "no_data",
            **VARIANTS[name],
        },
    )
    config = work / f"{name}.properties"
    write_properties(props, config)
    out = work / name
    log = work / f"{name}.log"
    p = start(config, out, log)
    deadline = time.monotonic() + 60
    while not slot_active(pg, slot):
        if p.poll() is not None or time.monotonic() > deadline:
            stop(p)
            raise SystemExit(f"{name}: emulator did not start streaming:\n{log.read_text()[-2000:]}")
        time.sleep(0.2)
    time.sleep(1.5)  # an offset flush
    stop(p)
    pg.psql(backlog_sql("insert", rows))
    topic = out / f"{TOPIC_PREFIX}.public.{TABLE}.jsonl"
    t0 = time.monotonic()
    p = start(config, out, log, PROFILE[0] / f"{name}.prof" if PROFILE else None)
    first = None
    cpu_first = 0.0
    while True:
        n = lines(topic)
        now = time.monotonic()
        if n and first is None:
            first = now
            cpu_first = cpu_s(p.pid)  # start-up (imports, connect, slot) excluded from the steady figure
        if n >= rows:
            break
        if p.poll() is not None or now - t0 > 120 + rows / 500:
            stop(p)
            raise SystemExit(f"{name}: {n} of {rows} records:\n{log.read_text()[-2000:]}")
        time.sleep(0.01)
    cpu = cpu_s(p.pid)
    stop(p)
    pg.psql(f"SELECT pg_drop_replication_slot('{slot}')", check=False)
    res = {
        "variant": name,
        "events": rows,
        "start_to_last_s": round(now - t0, 3),
        "first_to_last_s": round(now - first, 3),
        "rate_start_last": round(rows / (now - t0)),
        "rate_first_last": round(rows / max(now - first, 1e-3)),
        "cpu_ms_per_1k": round(cpu / rows * 1e6, 1),
        "cpu_ms_per_1k_steady": round((cpu - cpu_first) / rows * 1e6, 1),
        "bytes_per_record": round(topic.stat().st_size / rows),
    }
    print(
        f"{name:7s} {rows:,} events: first->last {res['rate_first_last']:,} ev/s, start->last "
        f"{res['rate_start_last']:,} ev/s, {res['cpu_ms_per_1k_steady']} CPU-ms/1k after the first record "
        f"({res['cpu_ms_per_1k']} incl. start-up), {res['bytes_per_record']} B/record",
        flush=True,
    )
    return res


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--rows", type=int, default=100_000)
    ap.add_argument("--variants", default="raw,unwrap,avro")
    ap.add_argument("--json", metavar="FILE")
    ap.add_argument("--keep", metavar="DIR", help="keep the output directories here")
    ap.add_argument(
        "--profile", metavar="DIR", help="run the measured starts under cProfile: DIR/<variant>.prof"
    )
    args = ap.parse_args()
    if args.profile:
        PROFILE.append(Path(args.profile).resolve())
        PROFILE[0].mkdir(parents=True, exist_ok=True)
    results = []
    with tempfile.TemporaryDirectory(prefix="bench-conv-") as tmp, PgServer() as pg:
        work = Path(args.keep) if args.keep else Path(tmp)
        work.mkdir(parents=True, exist_ok=True)
        for name in args.variants.split(","):
            results.append(run_variant(pg, name.strip(), args.rows, work))
    base = next((r for r in results if r["variant"] == "raw"), None)
    if base:
        for r in results:
            print(
                f"{r['variant']:7s} vs raw: rate first->last {r['rate_first_last'] / base['rate_first_last']:.2f}x, "
                f"CPU per event {r['cpu_ms_per_1k_steady'] / max(base['cpu_ms_per_1k_steady'], 1e-9):.2f}x"
            )
    if args.json:
        Path(args.json).write_text(json.dumps(results, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
