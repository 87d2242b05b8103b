"""Sink benchmark: changes/s merged into a 1M-row Delta table (delta-rs MERGE, the sink's own apply path),
and end-to-end emulator-output -> table latency through `python -m sink run` is printed by the sink itself.

    .venv/bin/python bench/bench_sink.py [--rows 1000000] [--changes 10000] [--batches 3]
"""

from __future__ import annotations

import argparse
import random
import shutil
import tempfile
import time

import pyarrow as pa
from deltalake import write_deltalake

from sink.apply import SEQ, apply_batch

KEY_SCHEMA = {
    "type": "struct",
    "fields": [{"type": "int32", "optional": False, "field": "id"}],
    "optional": False,
    "name": "b.public.t.Key",
}
ROW = {
    "type": "struct",
    "optional": True,
    "name": "b.public.t.Value",
    "fields": [
        {"type": "int32", "optional": False, "field": "id"},
        {"type": "string", "optional": True, "field": "name"},
        {"type": "string", "optional": True, "field": "email"},
        {
            "type": "bytes",
            "optional": True,
            "name": "org.apache.kafka.connect.data.Decimal",
            "version": 1,
            "parameters": {"scale": "2", "connect.decimal.precision": "12"},
            "field": "balance",
        },
        {
            "type": "int64",
            "optional": True,
            "name": "io.debezium.time.MicroTimestamp",
            "version": 1,
            "field": "updated_at",
        },
    ],
}
VALUE_SCHEMA = {
    "type": "struct",
    "name": "b.public.t.Envelope",
    "optional": False,
    "fields": [
        dict(ROW, field="before"),
        dict(ROW, field="after"),
        {"type": "struct", "optional": False, "field": "source", "fields": []},
        {"type": "string", "optional": False, "field": "op"},
    ],
}


def _dec(v: int) -> str:
    import base64

    return base64.b64encode(v.to_bytes(8, "big", signed=True)).decode()


def base_table(path: str, rows: int) -> None:
    from decimal import Decimal

    ids = list(range(rows))
    t = pa.table(
        {
            "id": pa.array(ids, pa.int32()),
            "name": pa.array([f"n{i}" for i in ids]),
            "email": pa.array([f"u{i}@x.org" for i in ids]),
            "balance": pa.array([Decimal(i % 100000) / 100 for i in ids], pa.decimal128(12, 2)),
            "updated_at": pa.array([1_700_000_000_000_000 + i for i in ids], pa.timestamp("us")),
            SEQ: pa.array([f"{0:016x}{1:016x}0"] * rows),
        }
    )
    write_deltalake(path, t, mode="overwrite")


def changes(n: int, rows: int, lsn0: int, rnd: random.Random) -> list:
    out, nxt = [], rows
    for j in range(n):
        lsn = lsn0 + j * 8
        r = rnd.random()
        src = {
            "connector": "postgresql",
            "sequence": f'["{lsn}","{lsn}"]',
            "lsn": lsn,
            "ts_ms": int(time.time() * 1000),
        }
        if r < 0.21:
            k, op = nxt, "c"
            nxt += 1
        else:
            k, op = (
                rnd.randrange(rows) if rnd.random() < 0.7 else rnd.randrange(1000),
                ("d" if r > 0.87 else "u"),
            )
        after = (
            None
            if op == "d"
            else {
                "id": k,
                "name": f"v{lsn}",
                "email": f"e{k}@y.org",
                "balance": _dec(lsn % 10**9),
                "updated_at": 1_800_000_000_000_000 + lsn,
            }
        )
        value = {"schema": VALUE_SCHEMA, "payload": {"before": None, "after": after, "source": src, "op": op}}
        out.append(("b.public.t", {"schema": KEY_SCHEMA, "payload": {"id": k}}, value, ("p", j)))
    return out


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--rows", type=int, default=1_000_000)
    ap.add_argument("--changes", type=int, default=10_000)
    ap.add_argument("--batches", type=int, default=3)
    a = ap.parse_args()
    d = tempfile.mkdtemp(prefix="bench-sink-")
    try:
        t0 = time.time()
        base_table(f"{d}/b.public.t", a.rows)
        print(f"base table: {a.rows} rows written in {time.time() - t0:.2f} s")
        rnd = random.Random(1)
        print(
            f"{'batch':>5} {'changes':>8} {'decode+dedupe+MERGE s':>22} {'changes/s':>10} {'commit->table ms':>17}"
        )
        for b in range(a.batches):
            recs = changes(a.changes, a.rows, 10**9 + b * a.changes * 8, rnd)
            t = time.time()
            st = apply_batch(d, recs, "bench", b)
            el = time.time() - t
            print(
                f"{b:>5} {a.changes:>8} {el:>22.3f} {a.changes / el:>10.0f} {time.time() * 1000 - st.max_ts_ms:>17.0f}"
            )
        t = time.time()
        apply_batch(d, recs, "bench", a.batches - 1)
        print(f"replayed batch skipped in {time.time() - t:.3f} s")
        print(
            "anchors (feasibility-kafka-spark.md §5): delta-rs MERGE of 10k changes into 1M rows ~0.22-0.29 s warm "
            "(dedupe in pyarrow); Spark-side dedupe adds ~0.4-0.7 s; Spark-on-Parquet ~1.7 s"
        )
    finally:
        shutil.rmtree(d, ignore_errors=True)


if __name__ == "__main__":
    main()
