"""Sink benchmark, end to end: process start → final Delta table, through `python -m sink run --once`.

Input: the emulator's directory-output lines of a 10-column PostgreSQL table (JsonConverter with schemas, as
Debezium 3.6.3 writes them): a snapshot of ROWS rows (`op: r`), then CHANGES changes — 60 % updates on skewed
keys (half of them on 1 % of the keys), 20 % inserts, 20 % deletes each followed by its tombstone.
For each master (`local[1]`, `local[2]`): a fresh process on the snapshot (snapshot rows/s), then a fresh
process on the changes appended to the same files (changes/s), each timed from process start to exit, with
the peak RSS of the process tree (driver, JVM, Python workers) and its peak PSS (pages shared by the forked
Python workers counted once); start → first batch on a 100-event input.
The reference in the same run: a minimal Spark-SQL job (text source, `from_json` of the whole record with the
Connect schema, one aggregation per key, one delta-rs MERGE of the final rows), same input, same masters.
The final tables of the sink and the reference are compared with each other and with the generator's model.

Besides the end-to-end rates (process start → exit, start-up included), each sink run's rate over its batches
after the first ("steady": first batch line → last batch line, from the batch lines' arrival times) and, with
`--sizes 50000,200000`, the marginal rate between sizes (Δevents / Δseconds, and CPU-µs per event) with the
fixed part it implies: what a long-running sink would see, and what the start costs.

    .venv/bin/python bench/bench_sink.py [--rows 200000] [--changes 200000] [--masters local[1],local[2]]
    .venv/bin/python bench/bench_sink.py --sizes 50000,200000 --masters local[2] --no-reference
    .venv/bin/python bench/bench_sink.py --rows 50000 --changes 50000 --masters local[2] --timeline DIR
    .venv/bin/python bench/bench_sink.py --masters local[2] --no-reference --phases DIR
"""

from __future__ import annotations

import argparse
import base64
import os
import random
import re
import shutil
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

import orjson

TOPIC = "bench.public.t"
ROOT = Path(__file__).resolve().parent.parent
DEC = "org.apache.kafka.connect.data.Decimal"


def _f(typ, field, optional=True, **kw):
    d = {"type": typ, "optional": optional}
    d.update(kw)
    d["field"] = field
    return d


ROW_FIELDS = [
    _f("int32", "id", False, default=0),
    _f("string", "name"),
    _f("string", "email"),
    _f("bytes", "balance", name=DEC, version=1, parameters={"scale": "2", "connect.decimal.precision": "12"}),
    _f("int32", "qty"),
    _f("double", "score"),
    _f("boolean", "active"),
    _f("int32", "born", name="io.debezium.time.Date", version=1),
    _f("int64", "updated_at", name="io.debezium.time.MicroTimestamp", version=1),
    _f("string", "note"),
]
ROW = {"type": "struct", "fields": ROW_FIELDS, "optional": True, "name": "bench.public.t.Value"}
SOURCE = {
    "type": "struct",
    "fields": [
        _f("string", "version", False),
        _f("string", "connector", False),
        _f("string", "name", False),
        _f("int64", "ts_ms", False),
        _f(
            "string",
            "snapshot",
            name="io.debezium.data.Enum",
            version=1,
            parameters={
                "allowed": "true,first,first_in_data_collection,last_in_data_collection,last,false,incremental"
            },
            default="false",
        ),
        _f("string", "db", False),
        _f("string", "sequence"),
        _f("int64", "ts_us"),
        _f("int64", "ts_ns"),
        _f("string", "schema", False),
        _f("string", "table", False),
        _f("int64", "txId"),
        _f("int64", "lsn"),
        _f("int64", "xmin"),
    ],
    "optional": False,
    "name": "io.debezium.connector.postgresql.Source",
    "version": 1,
    "field": "source",
}
VALUE_SCHEMA = {
    "type": "struct",
    "fields": [
        dict(ROW, field="before"),
        dict(ROW, field="after"),
        SOURCE,
        _f("string", "op", False),
        _f("int64", "ts_ms"),
        _f("int64", "ts_us"),
        _f("int64", "ts_ns"),
        {
            "type": "struct",
            "fields": [
                _f("string", "id", False),
                _f("int64", "total_order", False),
                _f("int64", "data_collection_order", False),
            ],
            "optional": True,
            "name": "event.block",
            "version": 1,
            "field": "transaction",
        },
    ],
    "optional": False,
    "name": "bench.public.t.Envelope",
    "version": 2,
}
KEY_SCHEMA = {
    "type": "struct",
    "fields": [_f("int32", "id", False, default=0)],
    "optional": False,
    "name": "bench.public.t.Key",
}
KS = orjson.dumps(KEY_SCHEMA)
VS = orjson.dumps(VALUE_SCHEMA)
# `--columns 3`: a narrow table (id, name, qty; ~2.3 KB per record with the Connect schemas, ~1.1 KB of it the
# schema the readers fingerprint): many more records per byte, what bounds a batch's memory by records
NARROW = ("id", "name", "qty")
COLUMNS_ARGS: list[str] = []  # passed on to the reference's own process


def use_columns(n: int) -> None:
    """Generate (and decode, in the reference) a table of the first `n` of NARROW's columns: 3 or 10 (all)."""
    global ROW_FIELDS, ROW, VALUE_SCHEMA, VS
    if n == len(ROW_FIELDS):
        return
    if n != len(NARROW):
        raise SystemExit(f"--columns {n}: 10 (the benchmark's table) or {len(NARROW)} ({', '.join(NARROW)})")
    ROW_FIELDS = [f for f in ROW_FIELDS if f["field"] in NARROW]
    ROW = dict(ROW, fields=ROW_FIELDS)
    VALUE_SCHEMA = dict(
        VALUE_SCHEMA,
        fields=[dict(ROW, field="before"), dict(ROW, field="after"), *VALUE_SCHEMA["fields"][2:]],
    )
    VS = orjson.dumps(VALUE_SCHEMA)
    COLUMNS_ARGS[:] = ["--columns", str(n)]


def _dec(v: int) -> str:
    return base64.b64encode(v.to_bytes((v.bit_length() + 8) // 8 or 1, "big", signed=True)).decode()


def _row(k: int, ver: int) -> dict:
    row = {
        "id": k,
        "name": f"name-{k}-{ver}",
        "email": f"user{k}@example.org",
        "balance": _dec((k * 7919 + ver * 13) % 10**9 - 5 * 10**8),
        "qty": (k + ver) % 1000,
        "score": (k % 997) / 7.0 + ver,
        "active": (k + ver) % 3 != 0,
        "born": 7000 + k % 20000,
        "updated_at": 1_700_000_000_000_000 + k * 1000 + ver,
        "note": None if k % 5 == 0 else f"note {ver}",
    }
    return row if len(ROW_FIELDS) == len(row) else {f["field"]: row[f["field"]] for f in ROW_FIELDS}


def _line(k: int, op: str, row: dict | None, before: dict | None, lsn: int, ts: int) -> bytes:
    src = {
        "version": "3.6.3.Final",
        "connector": "postgresql",
        "name": "bench",
        "ts_ms": ts,
        "snapshot": "true" if op == "r" else "false",
        "db": "bench",
        "sequence": f'["{lsn - 8}","{lsn}"]' if op != "r" else f'[null,"{lsn}"]',
        "ts_us": ts * 1000,
        "ts_ns": ts * 1_000_000,
        "schema": "public",
        "table": "t",
        "txId": lsn // 64,
        "lsn": lsn,
        "xmin": None,
    }
    payload = {
        "before": before,
        "after": row,
        "source": src,
        "op": op,
        "ts_ms": ts + 3,
        "ts_us": (ts + 3) * 1000,
        "ts_ns": (ts + 3) * 1_000_000,
        "transaction": None,
    }
    key = b'{"schema":' + KS + b',"payload":' + orjson.dumps({"id": k}) + b"}"
    return b'{"key":' + key + b',"value":{"schema":' + VS + b',"payload":' + orjson.dumps(payload) + b"}}\n"


def _tombstone(k: int) -> bytes:
    return b'{"key":{"schema":' + KS + b',"payload":' + orjson.dumps({"id": k}) + b'},"value":null}\n'


class Model:
    """The generator's own view of the table: id -> version (the expected final table)."""

    def __init__(self) -> None:
        self.rows: dict[int, int] = {}


def gen_snapshot(path: Path, rows: int, model: Model) -> None:
    ts = 1_764_000_000_000
    with open(path, "wb") as f:
        buf = []
        for k in range(1, rows + 1):
            model.rows[k] = 0
            buf.append(_line(k, "r", _row(k, 0), None, 1_000_000, ts))
            if len(buf) >= 10000:
                f.writelines(buf)
                buf.clear()
        f.writelines(buf)


def gen_changes(path: Path, n: int, model: Model, seed: int = 1) -> dict[str, int]:
    rnd = random.Random(seed)
    alive = list(model.rows)
    index = {k: i for i, k in enumerate(alive)}
    nxt = max(alive) + 1
    lsn = 2_000_000
    ts = int(time.time() * 1000)
    counts = {"u": 0, "c": 0, "d": 0}
    hot = max(1, len(alive) // 100)

    def drop(k: int) -> None:
        i = index.pop(k)
        last = alive.pop()
        if last != k:
            alive[i] = last
            index[last] = i

    with open(path, "ab") as f:
        buf = []
        for j in range(n):
            lsn += 64
            r = rnd.random()
            if r < 0.6 and alive:
                # half the updates on the 1 % of the keys (skew), the others anywhere
                k = alive[rnd.randrange(min(hot, len(alive)))] if rnd.random() < 0.5 else rnd.choice(alive)
                v = model.rows[k] + 1
                model.rows[k] = v
                buf.append(_line(k, "u", _row(k, v), None, lsn, ts + j // 100))
                counts["u"] += 1
            elif r < 0.8 or not alive:
                k, nxt = nxt, nxt + 1
                model.rows[k] = 1
                alive.append(k)
                index[k] = len(alive) - 1
                buf.append(_line(k, "c", _row(k, 1), None, lsn, ts + j // 100))
                counts["c"] += 1
            else:
                k = rnd.choice(alive)
                drop(k)
                del model.rows[k]
                buf.append(
                    _line(
                        k,
                        "d",
                        None,
                        {"id": k, **{c["field"]: None for c in ROW_FIELDS[1:]}},
                        lsn,
                        ts + j // 100,
                    )
                )
                buf.append(_tombstone(k))
                counts["d"] += 1
            if len(buf) >= 10000:
                f.writelines(buf)
                buf.clear()
        f.writelines(buf)
    return counts


# -- measuring a process ----------------------------------------------------------------------------------


def _rss_pss(pid: int) -> tuple[int, int] | None:
    """RSS and proportional set size (bytes) read at one moment: PSS splits shared pages between their users
    (pyspark's forked workers share most of theirs, which the RSS sum counts once per worker)."""
    out = {}
    try:
        with open(f"/proc/{pid}/smaps_rollup") as f:
            for line in f:
                if line.startswith(("Rss:", "Pss:")):
                    out[line[:3]] = int(line.split()[1]) * 1024
    except OSError:
        return None
    return out.get("Rss", 0), out.get("Pss", 0)


def _exe(pid: int) -> str | None:
    try:
        return os.readlink(f"/proc/{pid}/exe")
    except OSError:
        return None


def _tree_mem(pid: int, kinds: dict[int, str]) -> tuple[int, int, dict[str, tuple[int, int]]]:
    """RSS and PSS (bytes) of a process and all its descendants, from /proc, and both split by `_kind` (which
    part of the sink holds the memory at the tree's peak)."""
    children: dict[int, list[int]] = {}
    rss: dict[int, int] = {}
    for d in os.listdir("/proc"):
        if not d.isdigit():
            continue
        try:
            with open(f"/proc/{d}/stat") as f:
                parts = f.read().rsplit(")", 1)[1].split()
            ppid, pages = int(parts[1]), int(parts[21])
        except (OSError, IndexError, ValueError):
            continue
        children.setdefault(ppid, []).append(int(d))
        rss[int(d)] = pages * os.sysconf("SC_PAGE_SIZE")
    total = total_pss = 0
    by: dict[str, tuple[int, int]] = {}
    todo = [pid]
    parent: dict[int, int] = {}
    while todo:
        p = todo.pop()
        for c in children.get(p, []):
            parent[c] = p
            todo.append(c)
        if p not in rss:
            continue
        # a child the JVM is starting, caught before its exec, shares the JVM's pages: its RSS is the JVM's
        # (a 690 MB "other" process with 48 MB of PSS at one small-record run's peak, session 16)
        if p in parent and kinds.get(parent[p]) == "jvm" and _exe(p) == _exe(parent[p]):
            continue
        mem = _rss_pss(p)
        if mem is None:
            continue
        r, q = mem
        total, total_pss = total + r, total_pss + q
        k = kinds.get(p) or _kind(p, pid)
        kr, kq = by.get(k, (0, 0))
        by[k] = (kr + r, kq + q)
    return total, total_pss, by


def _kind(pid: int, root: int) -> str:
    """Which part of the sink a process is: the driver's Python, the JVM, Spark's Python workers (executors'
    daemon and workers), the planning workers, or another (the stream's offset runner, ...)."""
    if pid == root:
        return "driver"
    try:
        with open(f"/proc/{pid}/cmdline", "rb") as f:
            cmd = f.read()
    except OSError:
        return "other"
    if b"java" in cmd.split(b"\0", 1)[0]:
        return "jvm"
    if b"pyspark.sql.worker" in cmd:  # planning the query: lookup/create the data source, plan its reads
        return "planners"
    if b"pyspark.daemon" in cmd or b"pyspark.worker" in cmd:
        return "workers"
    return "other"


def _tree_cpu(pid: int, seen: dict[int, tuple], kinds: dict[int, str] | None = None) -> None:
    """seen[pid] = (parent, own CPU s, reaped children's CPU s) of pid and each of its descendants, from
    /proc; kinds[pid] = its `_kind` (looked up until it is known: spark-submit's script execs java)."""
    tick = os.sysconf("SC_CLK_TCK")
    children: dict[int, list[int]] = {}
    stat: dict[int, tuple] = {}
    for d in os.listdir("/proc"):
        if not d.isdigit():
            continue
        try:
            with open(f"/proc/{d}/stat") as f:
                parts = f.read().rsplit(")", 1)[1].split()
        except OSError:
            continue
        children.setdefault(int(parts[1]), []).append(int(d))
        own = (int(parts[11]) + int(parts[12])) / tick
        stat[int(d)] = (int(parts[1]), own, (int(parts[13]) + int(parts[14])) / tick)
    todo = [pid]
    while todo:
        q = todo.pop()
        if q in stat:
            seen[q] = stat[q]
            if kinds is not None and kinds.get(q, "other") == "other":
                kinds[q] = _kind(q, pid)
        todo.extend(children.get(q, []))


def cpu_total(seen: dict[int, tuple], kinds: dict[int, str]) -> tuple[float, dict[str, float]]:
    """The tree's CPU seconds and their split by `_kind`: each process's own CPU at its last sample, plus what
    a parent reaped from children never sampled (short-lived workers), as "reaped". A sampled child's CPU
    also shows in its parent's reaped time once it ended: counted once (summing both counted the planning
    workers' ~3 s twice)."""
    parts: dict[str, float] = {}
    below: dict[int, float] = {}
    for q, (parent, own, reaped) in seen.items():
        parts[kinds.get(q, "other")] = parts.get(kinds.get(q, "other"), 0.0) + own
        below[parent] = below.get(parent, 0.0) + own + reaped
    unseen = sum(max(0.0, reaped - below.get(q, 0.0)) for q, (_, _, reaped) in seen.items())
    parts["reaped"] = unseen
    return sum(parts.values()), parts


# JVM threads by what they do (the start of their names, /proc/PID/task/TID/stat): the timeline's columns
JVM_GROUPS = (
    ("tasks", ("Executor task",)),
    ("jit", ("C1 Compiler", "C2 Compiler")),
    ("gc", ("VM Thread", "GC Thread")),
    ("stream", ("stream exec",)),  # comm holds 15 characters
)
TIMELINE_COLS = ("driver", "tasks", "jit", "gc", "stream", "jvm-other", "workers", "planners", "other")


def _jvm_threads(pid: int) -> dict[tuple[int, str], float]:
    """CPU seconds per (thread id, group) of a JVM, from /proc/PID/task."""
    tick = os.sysconf("SC_CLK_TCK")
    out: dict[tuple[int, str], float] = {}
    try:
        tids = os.listdir(f"/proc/{pid}/task")
    except OSError:
        return out
    for t in tids:
        try:
            with open(f"/proc/{pid}/task/{t}/stat") as f:
                st = f.read()
        except OSError:
            continue
        comm = st[st.index("(") + 1 : st.rindex(")")]
        f = st.rsplit(")", 1)[1].split()
        g = next((name for name, pre in JVM_GROUPS if comm.startswith(pre)), "jvm-other")
        out[(int(t), g)] = (int(f[11]) + int(f[12])) / tick
    return out


def _timeline_row(seen: dict[int, tuple], kinds: dict[int, str], prev: dict) -> dict[str, float]:
    """CPU seconds per timeline column since the previous sample (`prev` is updated): each process by its kind,
    the JVM's by thread group."""
    cur: dict = {}
    for q, (_, own, _) in seen.items():
        if kinds.get(q) == "jvm":
            for (tid, g), v in _jvm_threads(q).items():
                cur[("t", q, tid, g)] = v
        else:
            cur[("p", q, 0, kinds.get(q, "other"))] = own
    row: dict[str, float] = {}
    for k, v in cur.items():
        row[k[3]] = row.get(k[3], 0.0) + max(0.0, v - prev.get(k, 0.0))
    prev.update(cur)
    return row


def write_timeline(path: Path, rows: list[tuple[float, dict[str, float]]], batches: list) -> None:
    """One line per sample: seconds since start, then CPU seconds per column in that interval (a column's sum
    over the line / the interval = the cores it used), and the batch lines' arrival times."""
    with open(path, "w") as f:
        f.write("batch lines at " + ", ".join(f"{t:.1f}" for t, _ in batches) + " s\n")
        f.write("t s    " + " ".join(f"{c[:9]:>9}" for c in TIMELINE_COLS) + "\n")
        for t, row in rows:
            f.write(f"{t:6.2f} " + " ".join(f"{row.get(c, 0.0):9.2f}" for c in TIMELINE_COLS) + "\n")


BATCH_LINE = re.compile(r"batch \d+: (\d+) records read")


def steady(batches: list[tuple[float, int]]) -> tuple[float | None, int]:
    """Records/s over the batches after the first (their records / the time from the first batch's line to
    the last's: start-up, planning and the first batch excluded), and the number of batches; None with one
    batch."""
    if len(batches) < 2 or batches[-1][0] <= batches[0][0]:
        return None, len(batches)
    return sum(n for _, n in batches[1:]) / (batches[-1][0] - batches[0][0]), len(batches)


def timed(
    cmd: list[str], env: dict | None = None, marker: str = "batch 0:", timeline: Path | None = None
) -> dict:
    """Run cmd; wall time start → exit, start → first line containing `marker`, peak RSS of the tree, and
    the CPU seconds of the tree (JVM, Python workers: sampled from /proc with the RSS, each process's last
    sample; steadier than wall time on a loaded machine)."""
    t0 = time.time()
    p = subprocess.Popen(
        cmd,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        cwd=ROOT,
        env=dict(os.environ, **(env or {})),
    )
    out: list[str] = []
    first = [None]
    batches: list[tuple[float, int]] = []  # (seconds since start, records) per batch line

    def pump() -> None:
        for line in p.stdout:
            out.append(line)
            if first[0] is None and marker in line:
                first[0] = time.time() - t0
            m = BATCH_LINE.match(line)
            if m:
                batches.append((time.time() - t0, int(m.group(1))))

    th = threading.Thread(target=pump, daemon=True)
    th.start()
    peak = peak_pss = 0
    peak_by: dict[str, tuple[int, int]] = {}
    cpu_seen: dict[int, tuple] = {}
    kinds: dict[int, str] = {}
    rows: list[tuple[float, dict[str, float]]] = []
    prev: dict = {}
    while p.poll() is None:
        _tree_cpu(p.pid, cpu_seen, kinds)
        if timeline is not None:
            rows.append((time.time() - t0, _timeline_row(cpu_seen, kinds, prev)))
        rss, pss, by = _tree_mem(p.pid, kinds)
        if rss > peak:
            peak, peak_by = rss, by
        peak_pss = max(peak_pss, pss)
        time.sleep(0.25)
    th.join(5)
    cpu, parts = cpu_total(cpu_seen, kinds)
    if timeline is not None:
        write_timeline(timeline, rows, batches)
    err = p.stderr.read()
    if p.returncode != 0:
        raise SystemExit(f"{' '.join(cmd)} failed ({p.returncode}):\n{''.join(out)[-3000:]}\n{err[-3000:]}")
    return {
        "s": time.time() - t0,
        "first": first[0],
        "batches": batches,
        "rss": peak,
        "pss": peak_pss,
        "rss_by": peak_by,
        "cpu": cpu,
        "parts": parts,
        "out": "".join(out),
    }


def sink_cmd(src: Path, tables: Path, ck: Path, master: str) -> list[str]:
    return [
        sys.executable,
        "-m",
        "sink",
        "run",
        "--source",
        str(src),
        "--tables",
        str(tables),
        "--checkpoint",
        str(ck),
        "--once",
        "--master",
        master,
    ]


def reference_cmd(src: Path, table: Path, master: str) -> list[str]:
    return [
        sys.executable,
        str(Path(__file__).resolve()),
        *COLUMNS_ARGS,
        "--reference",
        str(src),
        str(table),
        master,
    ]


# -- the reference: minimal Spark SQL ----------------------------------------------------------------------


def reference(src: str, table: str, master: str) -> None:
    """text source + from_json with the Connect schema + one aggregation per key + one delta-rs MERGE."""
    from deltalake import DeltaTable, write_deltalake
    from pyspark.sql import SparkSession
    from pyspark.sql import functions as F

    from sink.decode import convert, physical

    spark = (
        SparkSession.builder.master(master)
        .config("spark.ui.enabled", "false")
        .config("spark.sql.session.timeZone", "UTC")
        .getOrCreate()
    )
    spark.conf.set("spark.sql.shuffle.partitions", str(spark.sparkContext.defaultParallelism))
    after = physical(ROW)
    line = f"key struct<payload: struct<id int>>, value struct<payload: struct<op string, source: struct<lsn long>, after {after.simpleString()}>>"
    df = (
        spark.read.text(src).select(F.from_json("value", line).alias("r")).where(F.col("r.value").isNotNull())
    )
    df = df.select(
        F.col("r.key.payload.id").alias("id"),
        F.col("r.value.payload.source.lsn").alias("lsn"),
        F.col("r.value.payload.op").alias("op"),
        F.col("r.value.payload.after").alias("after"),
    )
    last = df.groupBy("id").agg(F.max_by(F.struct("op", "after"), "lsn").alias("w"))
    cols = [convert(F.col("w.after").getField(f["field"]), f).alias(f["field"]) for f in ROW_FIELDS[1:]]
    final = last.select("id", F.col("w.op").alias("op"), *cols).toArrow()
    if not DeltaTable.is_deltatable(table):
        write_deltalake(table, final.drop_columns(["op"]).slice(0, 0))
    dt = DeltaTable(table)
    names = [f["field"] for f in ROW_FIELDS]
    sets = {c: f"s.{c}" for c in names}
    (
        dt.merge(final, "t.id = s.id", source_alias="s", target_alias="t")
        .when_matched_delete(predicate="s.op = 'd'")
        .when_matched_update(sets, predicate="s.op <> 'd'")
        .when_not_matched_insert(sets, predicate="s.op <> 'd'")
        .execute()
    )
    spark.stop()


# -- the driver's phases per micro-batch ------------------------------------------------------------------

# (module, function, phase name): what the driver does per micro-batch on the executors' path, in order
PHASES = (
    (
        "sink.onepass",
        "run",
        "one pass",
    ),  # the batch in one job: read, winners, survey rows (executors); decode
    ("sink.onepass", "apply_topic", "one pass write"),  # delete log, MERGE of the one pass's winners (driver)
    ("sink.microbatch", "survey", "survey"),  # reads the batch into the cache (executors' readers, JVM tasks)
    ("sink.microbatch", "winners", "winners plan"),  # builds the winners' DataFrame (driver, py4j)
    ("sink.executors", "decoded_winners", "winners collect"),  # shuffle, decode, final rows → Arrow
    ("sink.tombstones", "load", "delete log read"),
    ("sink.tombstones", "write", "delete log write"),
    ("sink.executors", "_fill_from_table", "TOAST lookup"),
    ("sink.delta", "create_or_evolve", "table create/evolve"),
    ("sink.mirror", "merge", "MERGE"),
    ("sink.microbatch", "run_batch", "batch"),
)


def phased_sink(out: str, argv: list[str]) -> int:
    """`python -m sink` with each PHASES function timed: one JSON line per call into out (epoch start, wall s,
    this process's CPU s: the driver's Python and delta-rs's threads)."""
    import functools
    import importlib

    log = open(out, "a")  # noqa: SIM115 (open for the process's life)

    def wrap(mod, name: str, tag: str) -> None:
        fn = getattr(mod, name)

        @functools.wraps(fn)
        def timed_call(*a, **k):
            t0, c0 = time.time(), time.process_time()
            try:
                return fn(*a, **k)
            finally:
                rec = {"ph": tag, "t0": t0, "wall": time.time() - t0, "cpu": time.process_time() - c0}
                log.write(orjson.dumps(rec).decode() + "\n")
                log.flush()

        setattr(mod, name, timed_call)

    for m, name, tag in PHASES:
        wrap(importlib.import_module(m), name, tag)
    from sink.__main__ import main as sink_main

    return sink_main(argv)


def phase_table(phases: Path, timeline: Path, t0: float) -> str:
    """Per phase call: its span since the process start, wall s, the driver's CPU s, and the CPU s of the whole
    tree in that span by timeline column (how many cores were busy, and with what)."""
    recs = [orjson.loads(x) for x in phases.read_text().splitlines()]
    lines = timeline.read_text().splitlines()
    cols = lines[1].split()[2:]
    rows = [(float(v[0]), dict(zip(cols, map(float, v[1:])))) for v in (x.split() for x in lines[2:])]
    out = []
    first = min((r["t0"] for r in recs), default=t0) - t0
    spans = [("start", 0.0, first, None)]
    spans += [(r["ph"], r["t0"] - t0, r["t0"] - t0 + r["wall"], r["cpu"]) for r in recs]
    spans.sort(key=lambda x: (x[1], -x[2]))
    for name, a, b, cpu in spans:
        tot: dict[str, float] = {}
        prev = 0.0
        for t, row in rows:  # samples wholly inside [a, b]
            if prev >= a - 0.125 and t <= b + 0.125:
                for k, v in row.items():
                    tot[k] = tot.get(k, 0.0) + v
            prev = t
        s = sum(tot.values())
        top = ", ".join(f"{k} {v:.1f}" for k, v in sorted(tot.items(), key=lambda x: -x[1]) if v >= 0.05)
        dcpu = "-" if cpu is None else f"{cpu:.2f}"
        out.append(
            f"  {name:20s} {a:6.1f}-{b:6.1f} s  wall {b - a:5.2f}  driver CPU {dcpu:>5}  tree CPU {s:5.2f} "
            f"({s / max(b - a, 0.25):.2f} cores) [{top}]"
        )
    return "\n".join(out)


# -- main ---------------------------------------------------------------------------------------------------


def _table_ids(path: Path) -> dict[int, str]:
    from deltalake import DeltaTable

    t = DeltaTable(str(path)).to_pyarrow_table(columns=["id", "name"])
    return dict(zip(t.column("id").to_pylist(), t.column("name").to_pylist()))


def load_average() -> str:
    with open("/proc/loadavg") as f:
        return " ".join(f.read().split()[:3])


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--rows", type=int, default=200_000)
    ap.add_argument("--changes", type=int, default=200_000)
    ap.add_argument(
        "--sizes",
        help="several sizes in one run, e.g. 50000,200000 (rows = changes = each size): the marginal rate "
        "between consecutive sizes (Δevents / Δtime) separates Spark's fixed cost from the per-event cost",
    )
    ap.add_argument("--masters", default="local[1],local[2]")
    ap.add_argument("--no-reference", action="store_true")
    ap.add_argument(
        "--jfr",
        metavar="DIR",
        help="record each sink run's driver JVM with Java Flight Recorder (settings=profile) into DIR "
        "(snapshot / changes .jfr per master and size; through JAVA_TOOL_OPTIONS, which adds to the sink's own "
        "JVM options instead of replacing them); the recording's own cost is in that run's figures",
    )
    ap.add_argument(
        "--timeline",
        metavar="DIR",
        help="write each run's timeline into DIR (snapshot / changes .txt per master and size): CPU seconds per "
        "0.25 s sample by process kind and by the driver JVM's thread group (tasks, compiler, GC, the stream "
        "thread), with the batch lines' times: what is on CPU when",
    )
    ap.add_argument(
        "--phases",
        metavar="DIR",
        help="time the driver's phases per micro-batch (the survey, the winners' plan and collect, the delete "
        "log, the MERGE, ...) in each sink run, with the cores the process tree used meanwhile (implies "
        "--timeline DIR); a table per run is printed and written into DIR",
    )
    ap.add_argument(
        "--columns",
        type=int,
        default=10,
        help="the table's columns: 10 (default) or 3 (id, name, qty: small records, many per batch)",
    )
    ap.add_argument("--reference", nargs=3, metavar=("SRC", "TABLE", "MASTER"), help=argparse.SUPPRESS)
    ap.add_argument("--phased-sink", nargs=argparse.REMAINDER, help=argparse.SUPPRESS)
    a = ap.parse_args()
    use_columns(a.columns)
    if a.reference:
        reference(*a.reference)
        return
    if a.phased_sink:
        sys.exit(phased_sink(a.phased_sink[0], a.phased_sink[1:]))
    if a.phases:
        a.timeline = a.timeline or a.phases
    sizes = [(int(x), int(x)) for x in a.sizes.split(",")] if a.sizes else [(a.rows, a.changes)]
    masters = a.masters.split(",")
    work = Path(tempfile.mkdtemp(prefix="bench-sink-"))
    try:
        # the class cache a user's second run maps (written by `sink warm`, which a first run starts in the
        # background; done here first so that no background warm-up competes with the timed runs)
        t = time.time()
        subprocess.run([sys.executable, "-m", "sink", "warm"], cwd=ROOT, check=True)
        print(f"sink warm: {time.time() - t:.1f} s", flush=True)
        results = []
        for rows, changes in sizes:
            results += run_size(
                work / f"n{rows}_{changes}",
                rows,
                changes,
                masters,
                not a.no_reference,
                a.jfr and Path(a.jfr),
                a.timeline and Path(a.timeline),
                a.phases and Path(a.phases),
            )
        report(results, sizes, masters)
    finally:
        shutil.rmtree(work, ignore_errors=True)


def sink_run(cmd: list[str], jfr: Path | None, timeline: Path | None, phases: Path | None, name: str) -> dict:
    """One timed sink run; with `phases`, through `phased_sink` and followed by its phase table."""
    if not phases:
        return timed(cmd, jfr_env(jfr, name), timeline=_timeline_file(timeline, name))
    phases.mkdir(parents=True, exist_ok=True)
    out = phases / f"{name}.phases.jsonl"
    out.unlink(missing_ok=True)
    cmd = [sys.executable, str(Path(__file__).resolve()), "--phased-sink", str(out), *cmd[3:]]
    t0 = time.time()
    r = timed(cmd, jfr_env(jfr, name), timeline=_timeline_file(timeline, name))
    table = phase_table(out, _timeline_file(timeline, name), t0)
    (phases / f"{name}.phases.txt").write_text(table + "\n")
    print(f"{name}: the driver's phases\n{table}", flush=True)
    return r


def _timeline_file(timeline: Path | None, name: str) -> Path | None:
    if not timeline:
        return None
    timeline.mkdir(parents=True, exist_ok=True)
    return timeline / f"{name}.txt"


def jfr_env(jfr: Path | None, name: str) -> dict | None:
    """JAVA_TOOL_OPTIONS that record the JVM into jfr/name.jfr (deep stacks: Spark's are ~100 frames)."""
    if not jfr:
        return None
    jfr.mkdir(parents=True, exist_ok=True)
    return {
        "JAVA_TOOL_OPTIONS": f"-XX:FlightRecorderOptions:stackdepth=256 "
        f"-XX:StartFlightRecording=filename={jfr / name}.jfr,settings=profile"
    }


def run_size(
    work: Path,
    rows: int,
    changes: int,
    masters: list[str],
    with_ref: bool,
    jfr: Path | None = None,
    timeline: Path | None = None,
    phases: Path | None = None,
) -> list[dict]:
    src = work / "in"
    src.mkdir(parents=True)
    model = Model()
    t = time.time()
    gen_snapshot(src / f"{TOPIC}.jsonl", rows, model)
    snap_bytes = (src / f"{TOPIC}.jsonl").stat().st_size
    changes_file = work / "changes.jsonl"
    after_snapshot = dict(model.rows)
    counts = gen_changes(changes_file, changes, model)
    print(
        f"input: {rows} snapshot rows ({snap_bytes / 1e6:.0f} MB), {changes} changes {counts} "
        f"({changes_file.stat().st_size / 1e6:.0f} MB), generated in {time.time() - t:.1f} s; load {load_average()}",
        flush=True,
    )
    tiny = work / "tiny"
    tiny.mkdir()
    with open(src / f"{TOPIC}.jsonl", "rb") as f:
        (tiny / f"{TOPIC}.jsonl").write_bytes(b"".join(f.readline() for _ in range(100)))
    results = []
    for master in masters:
        d = work / master.replace("[", "_").replace("]", "")
        run_src = d / "in"
        run_src.mkdir(parents=True)
        shutil.copy(src / f"{TOPIC}.jsonl", run_src / f"{TOPIC}.jsonl")
        r0 = timed(sink_cmd(tiny, d / "tiny-tables", d / "tiny-ck", master))
        tag = f"{master.replace('[', '').replace(']', '')}-{rows}"
        r1 = sink_run(
            sink_cmd(run_src, d / "tables", d / "ck", master), jfr, timeline, phases, f"snapshot-{tag}"
        )
        assert _table_ids(d / "tables" / TOPIC).keys() == after_snapshot.keys()
        with open(run_src / f"{TOPIC}.jsonl", "ab") as f, open(changes_file, "rb") as g:
            shutil.copyfileobj(g, f)
        r2 = sink_run(
            sink_cmd(run_src, d / "tables", d / "ck", master), jfr, timeline, phases, f"changes-{tag}"
        )
        got = _table_ids(d / "tables" / TOPIC)
        assert got == {k: f"name-{k}-{v}" for k, v in model.rows.items()}, "sink table differs from the model"
        snap_steady, snap_batches = steady(r1["batches"])
        chg_steady, chg_batches = steady(r2["batches"])
        chg_records = sum(n for _, n in r2["batches"]) or 1
        row = {
            "what": f"sink {master}",
            "size": (rows, changes),
            "first": r0["first"],
            "snap": rows / r1["s"],
            "chg": changes / r2["s"],
            "snap_s": r1["s"],
            "chg_s": r2["s"],
            "snap_cpu": r1["cpu"],
            "chg_cpu": r2["cpu"],
            "first_cpu": r0["cpu"],
            "snap_parts": r1["parts"],
            "chg_parts": r2["parts"],
            # batches after the first, in events (a delete's tombstone is a record but not a change)
            "snap_steady": snap_steady,
            "chg_steady": None if chg_steady is None else chg_steady * changes / chg_records,
            "batches": (snap_batches, chg_batches),
            "rss": max(r0["rss"], r1["rss"], r2["rss"]),
            "pss": max(r0["pss"], r1["pss"], r2["pss"]),
            "rss_by": max((r0, r1, r2), key=lambda r: r["rss"])["rss_by"],
        }
        results.append(row)
        print(_fmt(row), f"; load {load_average()}", flush=True)
        if with_ref:
            ref = d / "ref"
            shutil.copy(src / f"{TOPIC}.jsonl", d / "ref-snap.jsonl")
            q1 = timed(
                reference_cmd(d / "ref-snap.jsonl", ref, master),
                marker="\0",
                timeline=_timeline_file(timeline, f"reference-snapshot-{tag}"),
            )
            q2 = timed(
                reference_cmd(changes_file, ref, master),
                marker="\0",
                timeline=_timeline_file(timeline, f"reference-changes-{tag}"),
            )
            assert _table_ids(ref) == got, "reference table differs from the sink's"
            row = {
                "what": f"reference {master}",
                "size": (rows, changes),
                "first": None,
                "snap": rows / q1["s"],
                "chg": changes / q2["s"],
                "snap_s": q1["s"],
                "chg_s": q2["s"],
                "snap_cpu": q1["cpu"],
                "chg_cpu": q2["cpu"],
                "first_cpu": None,
                "snap_parts": q1["parts"],
                "chg_parts": q2["parts"],
                "snap_steady": None,
                "chg_steady": None,
                "batches": (1, 1),
                "rss": max(q1["rss"], q2["rss"]),
                "pss": max(q1["pss"], q2["pss"]),
                "rss_by": max((q1, q2), key=lambda r: r["rss"])["rss_by"],
            }
            results.append(row)
            print(_fmt(row), f"; load {load_average()}", flush=True)
        shutil.rmtree(d, ignore_errors=True)
    shutil.rmtree(work, ignore_errors=True)
    return results


def _rate(v: float | None) -> str:
    return "-" if v is None else f"{v:,.0f}"


def report(results: list[dict], sizes: list[tuple[int, int]], masters: list[str]) -> None:
    print(
        "\n| run | size | snapshot rows/s (s; CPU s) | changes/s (s; CPU s) | steady rows/s, changes/s "
        "(batches) | start → first batch (CPU s) | peak RSS (PSS) |"
    )
    print("|---|---|---|---|---|---|---|")
    for r in results:
        first = "-" if r["first"] is None else f"{r['first']:.1f} s ({r['first_cpu']:.1f})"
        print(
            f"| {r['what']} | {r['size'][0] // 1000}k | {r['snap']:,.0f} ({r['snap_s']:.1f}; {r['snap_cpu']:.1f}) | "
            f"{r['chg']:,.0f} ({r['chg_s']:.1f}; {r['chg_cpu']:.1f}) | {_rate(r['snap_steady'])}, "
            f"{_rate(r['chg_steady'])} ({r['batches'][0]}, {r['batches'][1]}) | "
            f"{first} | {r['rss'] / 2**30:.2f} GB ({r['pss'] / 2**30:.2f}) |"
        )
    print(
        "end to end = process start → exit; steady = the batches after the first (first batch line → last "
        "batch line)"
    )
    by = {(r["what"], r["size"]): r for r in results}
    for m in masters:
        for w in (f"sink {m}", f"reference {m}"):
            for lo, hi in zip(sizes, sizes[1:]):
                a, b = by.get((w, lo)), by.get((w, hi))
                if not (a and b):
                    continue
                ds, dc = b["snap_s"] - a["snap_s"], b["chg_s"] - a["chg_s"]
                dsc, dcc = b["snap_cpu"] - a["snap_cpu"], b["chg_cpu"] - a["chg_cpu"]
                fs = a["snap_s"] - (lo[0] * ds / (hi[0] - lo[0]))
                fc = a["chg_s"] - (lo[1] * dc / (hi[1] - lo[1]))
                print(
                    f"{w} {lo[0] // 1000}k → {hi[0] // 1000}k: marginal snapshot "
                    f"{(hi[0] - lo[0]) / ds:,.0f} rows/s ({dsc / (hi[0] - lo[0]) * 1e6:.0f} CPU-µs/row), "
                    f"fixed {fs:.1f} s; marginal changes {(hi[1] - lo[1]) / dc:,.0f}/s "
                    f"({dcc / (hi[1] - lo[1]) * 1e6:.0f} CPU-µs/change), fixed {fc:.1f} s"
                )
        for size in sizes:
            s, ref = by.get((f"sink {m}", size)), by.get((f"reference {m}", size))
            if s and ref:
                print(
                    f"{m} {size[0] // 1000}k: sink / reference = {s['chg'] / ref['chg']:.2f}x changes, "
                    f"{s['snap'] / ref['snap']:.2f}x snapshot"
                )
    if len(masters) >= 2:
        for size in sizes:
            lo, hi = by.get((f"sink {masters[0]}", size)), by.get((f"sink {masters[-1]}", size))
            if lo and hi:
                print(
                    f"{size[0] // 1000}k {masters[-1]} / {masters[0]}: {hi['chg'] / lo['chg']:.2f}x changes, "
                    f"{hi['snap'] / lo['snap']:.2f}x snapshot"
                )
    print(f"load average at the end: {load_average()}")


def _parts(p: dict[str, float]) -> str:
    return " ".join(
        f"{k} {p[k]:.1f}" for k in ("driver", "jvm", "workers", "planners", "other", "reaped") if k in p
    )


def _mem(by: dict[str, tuple[int, int]]) -> str:
    return " ".join(
        f"{k} {by[k][0] / 2**20:.0f} ({by[k][1] / 2**20:.0f})"
        for k in ("driver", "jvm", "workers", "planners", "other")
        if k in by
    )


def _fmt(r: dict) -> str:
    first = "-" if r["first"] is None else f"{r['first']:.1f} s"
    return (
        f"{r['what']} {r['size'][0] // 1000}k: snapshot {r['snap']:,.0f} rows/s ({r['snap_s']:.1f} s, CPU "
        f"{r['snap_cpu']:.1f} s), changes {r['chg']:,.0f}/s ({r['chg_s']:.1f} s, CPU {r['chg_cpu']:.1f} s), "
        f"steady {_rate(r['snap_steady'])} rows/s, {_rate(r['chg_steady'])} changes/s (batches "
        f"{r['batches'][0]}, {r['batches'][1]}), first batch {first}, peak RSS {r['rss'] / 2**30:.2f} GB "
        f"(PSS {r['pss'] / 2**30:.2f} GB); CPU s by process: snapshot [{_parts(r['snap_parts'])}], "
        f"changes [{_parts(r['chg_parts'])}]; at the peak, MB RSS (PSS) by process: [{_mem(r['rss_by'])}]"
    )


if __name__ == "__main__":
    main()
