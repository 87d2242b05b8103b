#!/usr/bin/env python3
"""Data-plane throughput on the PostgreSQL catch-up (emulator only): the raw envelope with Connect's
default JsonConverter (the fast path) against the same backlog through `ExtractNewRecordState` + schemaless
JSON, and through Confluent's AvroConverter (mock:// registry) for keys and values.

    .venv/bin/python bench/bench_converters.py [--rows N] [--variants raw,unwrap,avro,unwrap-avro]
        [--trees THIS,OTHER] [--rounds R] [--json FILE]

Per variant: a fresh bench table (bench_pg.py's shape) and slot; the emulator streams once to create its
slot and offset, stops; N rows are inserted (1000-row transactions); the emulator starts again and the
time from its start, and from its first record, to the N-th record in DIR/<topic>.jsonl is measured, with
its CPU (also from the first record on, leaving out the start-up: imports, connection, slot). Ratios
between variants are the result; absolute numbers depend on the machine's load.

`--trees`: each variant also run by another checkout's emulator (before / after in one sitting, labelled
@2...); the summary ends with the issue's done-when (issue 15): unwrap + schemaless JSON not slower than the
raw envelope, process start -> last event; Avro >= 50k events/s (start -> last, first -> last, and per core
of CPU). `unwrap-avro` / `unwrap-schemas` / `unwrap-rewrite-avro`: ExtractNewRecordState with AvroConverters,
with JsonConverters with schemas, and with the rewrite mode and added fields plus AvroConverters.

`unwrap` runs in the data plane's wire mode (a plain ExtractNewRecordState and JsonConverters: values are
never decoded, fused.plain_unwrap), `avro` the fused plain Avro path (fused.plain_avro: the dispatcher's hook
puts a change's parts straight into the generated Avro encoders, no payload dict, no Connect values; so does
`unwrap-avro` through fused.plain_unwrap's). The system share of each run's CPU is printed too (socket reads,
file writes). Instructions per event without the network and free of load: bench_avro_path.py.
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
UNWRAP = {"transforms": "unwrap", "transforms.unwrap.type": "io.debezium.transforms.ExtractNewRecordState"}
AVRO = {
    "key.converter": "io.confluent.connect.avro.AvroConverter",
    "key.converter.schema.registry.url": "mock://bench",
    "value.converter": "io.confluent.connect.avro.AvroConverter",
    "value.converter.schema.registry.url": "mock://bench",
}
VARIANTS = {
    "raw": {},
    "unwrap": {**UNWRAP, "key.converter.schemas.enable": "false", "value.converter.schemas.enable": "false"},
    "avro": AVRO,
    # the commonest production chain: ExtractNewRecordState + AvroConverter (fused.plain_unwrap, Avro writers)
    "unwrap-avro": {**UNWRAP, **AVRO},
    # ExtractNewRecordState + JsonConverter with schemas (fused.plain_unwrap, JSON writers)
    "unwrap-schemas": UNWRAP,
    # the chain of Debezium's docs: rewrite (`__deleted`) and added fields, Avro (fused.unwrap_fields)
    "unwrap-rewrite-avro": {
        **UNWRAP,
        **AVRO,
        "transforms.unwrap.delete.tombstone.handling.mode": "rewrite",
        "transforms.unwrap.add.fields": "op,table,lsn,source.ts_ms",
    },
}
# the done-when (issue 15): unwrap + schemaless JSON not slower than the raw envelope; Avro >= 50k ev/s
AVRO_GOAL = 50_000


def cpu_s(pid: int) -> float:
    return sum(cpu_split(pid))


def cpu_split(pid: int) -> tuple[float, float]:
    """(user, system) CPU seconds of a process."""
    try:
        parts = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
        return int(parts[11]) / CLK, int(parts[12]) / CLK
    except (OSError, IndexError, ValueError):
        return 0.0, 0.0


def lines(path: Path) -> int:
    try:
        with open(path, "rb") as f:
            return f.read().count(b"\n")
    except FileNotFoundError:
        return 0


PROFILE: list[Path] = []  # --profile DIR: the measured runs under cProfile, DIR/<variant>.prof


def start(
    config: Path, out: Path, log: Path, profile: Path | None = None, tree: Path = REPO
) -> subprocess.Popen:
    env = {**os.environ, "PYTHONPATH": str(tree)}
    prof = ["-m", "cProfile", "-o", str(profile)] if profile else []
    with open(log, "ab") as f:
        return subprocess.Popen(
            [sys.executable, *prof, "-m", "emulator", "run", str(config), "--out", str(out)],
            stdout=f,
            stderr=subprocess.STDOUT,
            env=env,
            cwd=tree,
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


def run_variant(pg: PgServer, name: str, rows: int, work: Path, tree: Path = REPO, label: str = "") -> dict:
    """One variant on one tree (the emulator's code: this repository or another checkout, `--trees`)."""
    tag = f"{name}{label}"
    slot = f"bench_{name}".replace("-", "_")
    pg.psql(f"DROP TABLE IF EXISTS {TABLE}; {DDL}")
    props = connector_props(
        pg,
        work / f"{name}.offsets",
        **{
            "slot.name": slot,
            "publication.name": f"pub_{name}".replace("-", "_"),
            "publication.autocreate.mode": "filtered",
            "table.include.list": f"public.{TABLE}",
            "snapshot.mode": "no_data",
            **VARIANTS[name],
        },
    )
    config = work / f"{tag}.properties"
    write_properties(props, config)
    out = work / tag
    log = work / f"{tag}.log"
    p = start(config, out, log, tree=tree)
    deadline = time.monotonic() + 60
    while not slot_active(pg, slot):
        if p.poll() is not None or time.monotonic() > deadline:
            stop(p)
            raise SystemExit(f"{tag}: emulator did not start streaming:\n{log.read_text()[-2000:]}")
        time.sleep(0.2)
    time.sleep(1.5)  # an offset flush
    stop(p)
    pg.psql(backlog_sql("insert", rows))
    topic = out / f"{TOPIC_PREFIX}.public.{TABLE}.jsonl"
    t0 = time.monotonic()
    p = start(config, out, log, PROFILE[0] / f"{tag}.prof" if PROFILE else None, tree)
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
            raise SystemExit(f"{tag}: {n} of {rows} records:\n{log.read_text()[-2000:]}")
        time.sleep(0.01)
    user, system = cpu_split(p.pid)
    cpu = user + system
    stop(p)
    pg.psql(f"SELECT pg_drop_replication_slot('{slot}')", check=False)
    res = {
        "variant": tag,
        "events": rows,
        "start_to_last_s": round(now - t0, 3),
        "first_to_last_s": round(now - first, 3),
        "rate_start_last": round(rows / (now - t0)),
        "rate_first_last": round(rows / max(now - first, 1e-3)),
        "cpu_ms_per_1k": round(cpu / rows * 1e6, 1),
        "cpu_ms_per_1k_steady": round((cpu - cpu_first) / rows * 1e6, 1),
        "sys_share": round(system / max(cpu, 1e-9), 3),  # the kernel's part (socket reads, file writes)
        "bytes_per_record": round(topic.stat().st_size / rows),
    }
    print(
        f"{tag:14s} {rows:,} events: first->last {res['rate_first_last']:,} ev/s, start->last "
        f"{res['rate_start_last']:,} ev/s, {res['cpu_ms_per_1k_steady']} CPU-ms/1k after the first record "
        f"({res['cpu_ms_per_1k']} incl. start-up, {res['sys_share']:.0%} of it system), "
        f"{res['bytes_per_record']} B/record",
        flush=True,
    )
    return res


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--rows", type=int, default=100_000)
    ap.add_argument("--variants", default="raw,unwrap,avro,unwrap-avro")
    ap.add_argument(
        "--trees",
        default=str(REPO),
        help="comma-separated checkouts whose emulator runs each variant (before/after in one sitting); "
        "results of the 2nd, 3rd... are labelled @2, @3...",
    )
    ap.add_argument("--rounds", type=int, default=1, help="repeat everything, interleaved; medians reported")
    ap.add_argument("--json", metavar="FILE")
    ap.add_argument("--keep", metavar="DIR", help="keep the output directories here")
    ap.add_argument(
        "--profile", metavar="DIR", help="run the measured starts under cProfile: DIR/<variant>.prof"
    )
    args = ap.parse_args()
    if args.profile:
        PROFILE.append(Path(args.profile).resolve())
        PROFILE[0].mkdir(parents=True, exist_ok=True)
    trees = [Path(t).resolve() for t in args.trees.split(",")]
    runs: dict[str, list[dict]] = {}
    with tempfile.TemporaryDirectory(prefix="bench-conv-") as tmp, PgServer() as pg:
        work = Path(args.keep) if args.keep else Path(tmp)
        work.mkdir(parents=True, exist_ok=True)
        for rnd in range(args.rounds):
            # each round its own outputs and offsets: a topic file of an earlier round already holds `rows`
            rwork = work / f"round{rnd + 1}" if args.rounds > 1 else work
            rwork.mkdir(parents=True, exist_ok=True)
            for name in args.variants.split(","):
                for i, tree in enumerate(trees):
                    r = run_variant(pg, name.strip(), args.rows, rwork, tree, f"@{i + 1}" if i else "")
                    runs.setdefault(r["variant"], []).append(r)
    results = [median(rs) for rs in runs.values()]
    if args.rounds > 1:
        print(f"medians of {args.rounds} rounds:")
        for r in results:
            print(
                f"{r['variant']:14s} first->last {r['rate_first_last']:,} ev/s, start->last "
                f"{r['rate_start_last']:,} ev/s, {r['cpu_ms_per_1k_steady']} CPU-ms/1k"
            )
    summary(results)
    if args.json:
        Path(args.json).write_text(json.dumps(results, indent=2))
    return 0


def median(rs: list[dict]) -> dict:
    out = dict(rs[0])
    for k, v in rs[0].items():
        if isinstance(v, (int, float)):
            vals = sorted(r[k] for r in rs)
            out[k] = vals[len(vals) // 2]
    return out


def summary(results: list[dict]) -> None:
    """Each variant against the raw envelope of the same tree, then the issue's done-when."""
    by = {r["variant"]: r for r in results}
    for r in results:
        name, _, label = r["variant"].partition("@")
        base = by.get("raw" + ("@" + label if label else ""))
        if base is None:
            continue
        print(
            f"{r['variant']:14s} vs raw: rate start->last {r['rate_start_last'] / base['rate_start_last']:.2f}x, "
            f"first->last {r['rate_first_last'] / base['rate_first_last']:.2f}x, "
            f"CPU per event {r['cpu_ms_per_1k_steady'] / max(base['cpu_ms_per_1k_steady'], 1e-9):.2f}x"
        )
    raw, unwrap, avro = by.get("raw"), by.get("unwrap"), by.get("avro")
    if raw and unwrap:
        ok = unwrap["rate_start_last"] >= raw["rate_start_last"] * 0.98  # within the run-to-run noise
        print(
            f"done-when: unwrap + schemaless JSON not slower than the raw envelope, process start -> last event: "
            f"{unwrap['rate_start_last']:,} vs {raw['rate_start_last']:,} ev/s "
            f"(CPU {unwrap['cpu_ms_per_1k_steady']} vs {raw['cpu_ms_per_1k_steady']} ms/1k): "
            f"{'met' if ok else 'NOT met'}"
        )
    for r in (avro, by.get("unwrap-avro")):
        if r:
            cpu_rate = round(1e6 / max(r["cpu_ms_per_1k_steady"], 1e-9))
            print(
                f"done-when: {r['variant']} >= {AVRO_GOAL:,} ev/s: process start -> last event "
                f"{r['rate_start_last']:,} ev/s, first -> last {r['rate_first_last']:,} ev/s, "
                f"{cpu_rate:,} ev/s of one core: "
                f"{'met' if r['rate_start_last'] >= AVRO_GOAL else 'NOT met'} (start -> last)"
            )


if __name__ == "__main__":
    sys.exit(main())
