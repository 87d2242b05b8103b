#!/usr/bin/env python3
"""Incremental-snapshot torture: kill -9 the emulator again and again while it snapshots a table that a
writer keeps changing, then check that the emitted events replay to exactly the table.

    .venv/bin/python bench/torture_incremental.py [--rows 10000] [--kills 5] [--chunk-size 10]
                                                  [--seed N] [--strategy insert_insert|insert_delete]
                                                  [--keep DIR]

What it does:
1. starts a throwaway PostgreSQL, creates `public.items` (id PK, v = a version from one sequence, note),
   REPLICA IDENTITY FULL, with `--rows` rows, plus the signal table;
2. runs `python -m emulator run CONFIG --out DIR` (snapshot.mode=no_data, file offsets) and, once it
   streams, starts one writer thread hammering the table (updates, deletes, upserts, primary-key changes,
   some multi-statement transactions) and sends `execute-snapshot` for the table;
3. kills the emulator with SIGKILL `--kills` times at random moments (a random 0.05..0.6 s after each
   (re)start streams, so each run moves the snapshot on a little and dies inside it - windows open, reads
   buffered, records written but not yet committed) and restarts it after a random pause; every restart
   resumes from the offsets it had committed;
4. when the snapshot is over, stops the writer, waits for a marker row's event, stops the emulator with
   SIGTERM and replays every emitted record of the table in output order (r/c/u upsert by key, d delete;
   tombstones skipped);
5. prints the comparison with the table and whether any READ came after a newer streamed change of its
   key (versions make "newer" exact); exits 1 if the replay differs from the table, 0 if it is equal.

    .venv/bin/python bench/torture_incremental.py --rate 100000 [--chunk-size 1024]

measures instead the rows/s of an incremental snapshot of a quiet table next to the initial snapshot's
rows/s for the same table (bench/bench_pg.py's table shape), both as `python -m emulator run CONFIG --out
DIR` tailed on disk: initial = process start -> last row's line (and first -> last line); incremental =
the signal's commit -> last READ line.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import signal
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
REPO = HERE.parent
if str(REPO) not in sys.path:
    sys.path.insert(0, str(REPO))

import psycopg  # noqa: E402

from emulator.testing.pgserver import PgServer  # noqa: E402

PREFIX = "torture"
TOPIC = f"{PREFIX}.public.items"


def props_file(path: Path, props: dict[str, str]) -> None:
    def esc(v: str) -> str:
        return v.replace("\\", "\\\\").replace("\n", "\\n").replace("=", "\\=").replace(":", "\\:")

    path.write_text("".join(f"{k}={esc(v)}\n" for k, v in props.items()))


class Emulator:
    def __init__(self, config: Path, out: Path, log: Path) -> None:
        self.config, self.out, self.log = config, out, log
        self.proc: subprocess.Popen | None = None

    def start(self) -> None:
        with open(self.log, "ab") as log:
            self.proc = subprocess.Popen([sys.executable, "-m", "emulator", "run", str(self.config), "--out",
                                          str(self.out)], cwd=REPO, stdout=log, stderr=subprocess.STDOUT,
                                         stdin=subprocess.DEVNULL, start_new_session=True)

    def alive(self) -> bool:
        return self.proc is not None and self.proc.poll() is None

    def kill9(self) -> None:
        if self.alive():
            os.killpg(self.proc.pid, signal.SIGKILL)
            self.proc.wait()

    def stop(self) -> int:
        if self.alive():
            self.proc.send_signal(signal.SIGTERM)
            try:
                self.proc.wait(60)
            except subprocess.TimeoutExpired:
                self.kill9()
        return self.proc.returncode


class Tail:
    """Reads one topic file incrementally: complete lines only; a line that does not parse is counted."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self.pos = 0
        self.records: list[dict] = []
        self.bad = 0
        self.max_read_id = 0

    def poll(self) -> None:
        try:
            with open(self.path, "rb") as f:
                f.seek(self.pos)
                data = f.read()
        except FileNotFoundError:
            return
        end = data.rfind(b"\n")
        if end < 0:
            return
        self.pos += end + 1
        for line in data[:end].split(b"\n"):
            if not line.strip():
                continue
            try:
                rec = json.loads(line)
            except ValueError:
                self.bad += 1
                continue
            self.records.append(rec)
            v = rec.get("value")
            if v and v["payload"]["op"] == "r":
                self.max_read_id = max(self.max_read_id, v["payload"]["after"]["id"])


class Writer(threading.Thread):
    def __init__(self, dsn: str, keys: int, seed: int) -> None:
        super().__init__(daemon=True, name="writer")
        self.dsn, self.keys = dsn, keys
        self.rnd = random.Random(seed)
        self.halt = threading.Event()
        self.ops = 0
        self.failed = 0
        self.error: BaseException | None = None

    def one(self, c: psycopg.Connection) -> None:
        rnd = self.rnd
        k = rnd.randint(1, self.keys)
        x = rnd.random()
        if x < 0.53:
            c.execute("UPDATE items SET v = nextval('ver'), note = 'u' WHERE id = %s", (k,))
        elif x < 0.73:
            c.execute("DELETE FROM items WHERE id = %s", (k,))
        elif x < 0.98:
            c.execute("INSERT INTO items VALUES (%s, nextval('ver'), 'w') ON CONFLICT (id) DO UPDATE "
                      "SET v = excluded.v, note = 'w2'", (k,))
        else:  # a primary-key change: d (old key) + c (new key) in the stream
            c.execute("UPDATE items SET id = %s, v = nextval('ver'), note = 'moved' WHERE id = %s",
                      (rnd.randint(1, self.keys), k))
        self.ops += 1

    def run(self) -> None:
        try:
            with psycopg.connect(self.dsn, autocommit=True) as c:
                while not self.halt.is_set():
                    try:
                        if self.rnd.random() < 0.2:
                            with c.transaction():
                                for _ in range(self.rnd.randint(2, 5)):
                                    self.one(c)
                        else:
                            self.one(c)
                    except psycopg.errors.UniqueViolation:
                        self.failed += 1  # a key change onto an existing key: rolled back
        except BaseException as e:  # noqa: BLE001 - reported at the end
            self.error = e


def offsets_state(path: Path) -> dict | None:
    try:
        return json.loads(path.read_text()).get("offset")
    except (FileNotFoundError, ValueError):
        return None


def snapshot_running(path: Path) -> bool | None:
    off = offsets_state(path)
    if off is None:
        return None
    return bool(off.get("incremental_snapshot_collections"))


def wait(pred, timeout: float, what: str, emu: Emulator | None = None) -> None:
    deadline = time.monotonic() + timeout
    while not pred():
        if emu is not None and not emu.alive():
            raise SystemExit(f"the emulator exited ({emu.proc.returncode}) while waiting for {what}; "
                             f"see {emu.log}")
        if time.monotonic() > deadline:
            raise SystemExit(f"timeout waiting for {what}")
        time.sleep(0.05)


def key_of(rec: dict) -> int:
    return rec["key"]["payload"]["id"]


def replay(records: list[dict]) -> dict[int, dict]:
    state: dict[int, dict] = {}
    for r in records:
        v = r.get("value")
        if v is None:
            continue
        p = v["payload"]
        if p["op"] in ("r", "c", "u"):
            state[key_of(r)] = p["after"]
        elif p["op"] == "d":
            state.pop(key_of(r), None)
    return state


def stale_reads(records: list[dict]) -> list[str]:
    newest: dict[int, tuple[int, bool]] = {}
    bad = []
    for i, r in enumerate(records):
        v = r.get("value")
        if v is None:
            continue
        p = v["payload"]
        k = key_of(r)
        cur = newest.get(k)
        if p["op"] in ("c", "u"):
            if cur is None or p["after"]["v"] >= cur[0]:
                newest[k] = (p["after"]["v"], False)
        elif p["op"] == "d":
            if cur is None or p["before"]["v"] >= cur[0]:
                newest[k] = (p["before"]["v"], True)
        elif p["op"] == "r" and cur is not None:
            rv = p["after"]["v"]
            if rv < cur[0] or (cur[1] and rv <= cur[0]):
                bad.append(f"record {i}: READ id={k} v={rv} after a streamed v={cur[0]} (deleted={cur[1]})")
    return bad


def count_lines(path: Path, n: int, timeout: float, emu: Emulator) -> tuple[float, float]:
    """Waits until `path` has `n` lines; returns (time of the first line, time of the n-th)."""
    pos = lines = 0
    first = None
    deadline = time.monotonic() + timeout
    while True:
        try:
            with open(path, "rb") as f:
                f.seek(pos)
                data = f.read()
        except FileNotFoundError:
            data = b""
        if data:
            k = data.count(b"\n")
            if k and first is None:
                first = time.monotonic()
            lines += k
            pos += data.rfind(b"\n") + 1 if k else 0
        if lines >= n:
            return first, time.monotonic()
        if not emu.alive() and not data:
            raise SystemExit(f"the emulator exited ({emu.proc.returncode}) at {lines} of {n} lines; see {emu.log}")
        if time.monotonic() > deadline:
            raise SystemExit(f"timeout: {lines} of {n} lines")
        time.sleep(0.005)


def measure_rates(rows: int, chunk: int) -> int:
    from bench_pg import COLUMNS, DDL, ROW_EXPR, TABLE

    work = Path(tempfile.mkdtemp(prefix="inc-rate-"))
    print(f"{rows:,} rows in bench_pg's table; incremental.snapshot.chunk.size={chunk}", flush=True)
    results = {}
    with PgServer() as pg:
        with psycopg.connect(pg.dsn, autocommit=True) as c:
            c.execute(DDL)
            c.execute(f"INSERT INTO {TABLE} ({COLUMNS}) SELECT {ROW_EXPR} FROM generate_series(1, {rows}) g")
            c.execute(f"VACUUM (ANALYZE) {TABLE}")
            c.execute("CHECKPOINT")
            c.execute("CREATE TABLE debezium_signal (id varchar(42) PRIMARY KEY, type varchar(32) NOT NULL, "
                      "data varchar(2048))")
        for mode in ("initial", "incremental"):
            out = work / f"out-{mode}"
            config = work / f"{mode}.properties"
            props_file(config, pg.connector_properties(**{
                "topic.prefix": "rate", "slot.name": f"rate_{mode}", "publication.name": f"rate_{mode}",
                "snapshot.mode": "initial_only" if mode == "initial" else "no_data",
                "signal.data.collection": "public.debezium_signal",
                "incremental.snapshot.chunk.size": str(chunk),
                "offset.storage.file.filename": str(work / f"{mode}.offsets"),
            }))
            emu = Emulator(config, out, work / f"{mode}.log")
            topic = out / f"rate.public.{TABLE}.jsonl"
            try:
                t0 = time.monotonic()
                emu.start()
                if mode == "incremental":
                    def streaming(slot=f"rate_{mode}") -> bool:
                        with psycopg.connect(pg.dsn, autocommit=True) as c:
                            return bool(c.execute("SELECT 1 FROM pg_replication_slots WHERE slot_name = %s "
                                                  "AND active", (slot,)).fetchone())

                    wait(streaming, 60, "the emulator to stream", emu)
                    time.sleep(0.5)
                    with psycopg.connect(pg.dsn, autocommit=True) as c:
                        t0 = time.monotonic()
                        c.execute("INSERT INTO debezium_signal VALUES ('rate', 'execute-snapshot', %s)",
                                  (json.dumps({"data-collections": [f"public.{TABLE}"]}),))
                first, last = count_lines(topic, rows, 600, emu)
            finally:
                emu.stop() if mode == "incremental" else emu.proc.wait(60)
                emu.kill9()
            results[mode] = (rows / (last - t0), rows / max(last - first, 1e-3), last - t0)
            print(f"{mode:>11}: {results[mode][2]:.2f} s = {results[mode][0]:,.0f} rows/s "
                  f"(first -> last line {results[mode][1]:,.0f} rows/s)", flush=True)
    import shutil

    shutil.rmtree(work, ignore_errors=True)
    ratio = results["incremental"][0] / results["initial"][0]
    print(f"incremental / initial: {ratio:.2f}")
    return 0


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--rows", type=int, default=10_000)
    ap.add_argument("--kills", type=int, default=5)
    # small chunks: ~1000 windows of a few ms each, so the kills land inside windows and the snapshot
    # outlasts five restarts (at the default 1024 the 10k rows take well under a second)
    ap.add_argument("--chunk-size", type=int, default=10)
    ap.add_argument("--strategy", default="insert_insert", choices=("insert_insert", "insert_delete"))
    ap.add_argument("--seed", type=int, default=None)
    ap.add_argument("--max-kill-delay", type=float, default=0.6,
                    help="each kill comes 0.05..this many seconds after the (re)start streams")
    ap.add_argument("--keep", metavar="DIR", help="keep the output, offsets and logs in DIR")
    ap.add_argument("--rate", type=int, metavar="ROWS",
                    help="measure incremental vs initial snapshot rows/s on ROWS rows instead (chunk size "
                         "defaults to 1024 there)")
    args = ap.parse_args()
    if args.rate:
        chunk = args.chunk_size if "--chunk-size" in sys.argv else 1024
        return measure_rates(args.rate, chunk)
    seed = args.seed if args.seed is not None else random.randrange(1 << 30)
    rnd = random.Random(seed)
    print(f"seed {seed}: {args.rows} rows, chunk size {args.chunk_size}, {args.kills} kill -9, "
          f"{args.strategy}", flush=True)
    work = Path(args.keep) if args.keep else Path(tempfile.mkdtemp(prefix="torture-inc-"))
    work.mkdir(parents=True, exist_ok=True)
    out = work / "out"
    offsets = work / "offsets.json"
    started = time.monotonic()
    with PgServer() as pg:
        dsn = pg.dsn
        with psycopg.connect(dsn, autocommit=True) as c:
            c.execute("CREATE TABLE debezium_signal (id varchar(42) PRIMARY KEY, type varchar(32) NOT NULL, "
                      "data varchar(2048))")
            c.execute("CREATE TABLE marker (id int PRIMARY KEY)")
            c.execute("CREATE SEQUENCE ver")
            c.execute("CREATE TABLE items (id int PRIMARY KEY, v bigint NOT NULL, note text)")
            c.execute("ALTER TABLE items REPLICA IDENTITY FULL")
            c.execute("INSERT INTO items SELECT i, nextval('ver'), 'n' || i FROM generate_series(1, %s) i",
                      (args.rows,))
        config = work / "connector.properties"
        props_file(config, pg.connector_properties(**{
            "topic.prefix": PREFIX, "slot.name": "torture", "publication.name": "torture_pub",
            "snapshot.mode": "no_data", "signal.data.collection": "public.debezium_signal",
            "incremental.snapshot.chunk.size": str(args.chunk_size),
            "incremental.snapshot.watermarking.strategy": args.strategy,
            "offset.storage.file.filename": str(offsets), "offset.flush.interval.ms": "100",
            "table.include.list": "public.items,public.debezium_signal,public.marker",
        }))
        emu = Emulator(config, out, work / "emulator.log")
        tail = Tail(out / f"{TOPIC}.jsonl")
        writer = Writer(dsn, int(args.rows * 1.2), seed)
        try:
            result = torture(args, rnd, pg, dsn, emu, tail, writer, offsets, out, started)
        finally:  # never leave a running emulator or writer behind, whatever happened
            writer.halt.set()
            emu.kill9()
            if writer.is_alive():
                writer.join(30)
    if result is None:
        return 2
    return report(args, work, started, *result)


def torture(args, rnd, pg, dsn, emu, tail, writer, offsets, out, started):
    emu.start()

    walsender = [None]

    def streaming() -> bool:  # a new walsender holds the slot (not the killed run's, still exiting)
        with psycopg.connect(dsn, autocommit=True) as c:
            row = c.execute("SELECT active_pid FROM pg_replication_slots WHERE slot_name = 'torture' "
                            "AND active").fetchone()
        if row and row[0] != walsender[0]:
            walsender[0] = row[0]
            return True
        return False

    wait(streaming, 60, "the emulator to stream", emu)
    writer.start()
    with psycopg.connect(dsn, autocommit=True) as c:
        c.execute("INSERT INTO debezium_signal VALUES ('torture-1', 'execute-snapshot', %s)",
                  (json.dumps({"data-collections": ["public.items"], "type": "incremental"}),))
    # kill moments: a random time after each (re)start has begun streaming; committed progress is
    # offsets every 100 ms, so each run moves the snapshot on a little and dies somewhere in it
    kills = []
    seen_running = [False]

    def over() -> bool:  # the committed offsets say the snapshot ran and is finished
        running = snapshot_running(offsets)
        seen_running[0] = seen_running[0] or bool(running)
        return seen_running[0] and running is False

    def started_reading() -> bool:  # committed offsets show it, or reads appear (insert_delete may
        tail.poll()                 # finish within one offset interval)
        return over() or seen_running[0] or tail.max_read_id > 0

    wait(started_reading, 120, "the snapshot to start", emu)
    for n in range(1, args.kills + 1):
        time.sleep(rnd.uniform(0.05, args.max_kill_delay))
        state = offsets_state(offsets) or {}
        emu.kill9()
        over()
        resume = state.get("incremental_snapshot_primary_key")
        running = bool(state.get("incremental_snapshot_collections"))
        kills.append((n, running, resume))
        print(f"[{time.monotonic() - started:6.2f} s] kill -9 #{n}; committed offsets: "
              + (f"snapshot in progress, resume after key {resume[0] if resume else None}" if running
                 else "no snapshot in progress"), flush=True)
        time.sleep(rnd.uniform(0, 1.0))  # the writer goes on while the emulator is down
        emu.start()
        wait(streaming, 60, "the restarted emulator to stream", emu)
        print(f"[{time.monotonic() - started:6.2f} s] restarted, streaming", flush=True)
    wait(lambda: snapshot_running(offsets) is False, 600, "the end of the incremental snapshot", emu)
    writer.halt.set()
    writer.join(30)
    if writer.error is not None:
        print(f"writer failed: {writer.error!r}")
        return None
    with psycopg.connect(dsn, autocommit=True) as c:
        c.execute("INSERT INTO marker VALUES (1)")
    marker = Tail(out / f"{PREFIX}.public.marker.jsonl")

    def marker_seen() -> bool:
        marker.poll()
        return bool(marker.records)

    wait(marker_seen, 300, "the marker row's event", emu)
    code = emu.stop()
    tail.poll()
    with psycopg.connect(dsn, autocommit=True) as c:
        table = {r[0]: {"id": r[0], "v": r[1], "note": r[2]}
                 for r in c.execute("SELECT id, v, note FROM items").fetchall()}
    return kills, writer, tail, table, code


def report(args, work, started, kills, writer, tail, table, code) -> int:
    records = tail.records
    got = replay(records)
    missing = sorted(set(table) - set(got))
    extra = sorted(set(got) - set(table))
    differ = sorted(k for k in table if k in got and got[k] != table[k])
    stale = stale_reads(records)
    reads = sum(1 for r in records if r.get("value") and r["value"]["payload"]["op"] == "r")
    streamed = sum(1 for r in records if r.get("value") and r["value"]["payload"]["op"] in "cud")
    distinct_reads = len({key_of(r) for r in records if r.get("value") and r["value"]["payload"]["op"] == "r"})
    in_progress = sum(1 for k in kills if k[1])
    print(f"\n{args.kills} kill -9 (with the snapshot in progress in the committed offsets at {in_progress}); "
          f"writer: {writer.ops} operations; {time.monotonic() - started:.1f} s")
    print(f"emitted for public.items: {len(records)} records ({reads} READs of {distinct_reads} keys, "
          f"{streamed} streamed changes), {tail.bad} unreadable lines; final SIGTERM exit code {code}")
    print(f"table: {len(table)} rows; replay: {len(got)} rows; missing {len(missing)}, extra {len(extra)}, "
          f"different {len(differ)}; READs after a newer streamed change: {len(stale)}")
    for k in missing[:5]:
        print(f"  missing id {k}: table {table[k]}")
    for k in extra[:5]:
        print(f"  extra id {k}: replay {got[k]}")
    for k in differ[:5]:
        print(f"  id {k}: table {table[k]} replay {got[k]}")
    for s in stale[:5]:
        print(f"  {s}")
    if tail.bad:
        # a SIGKILL can cut the output's write(2) at a page boundary; the next run appends to the fragment,
        # which turns that line (and the first record appended after it) unreadable. The replay above
        # skipped it: if a record had been lost that way, it would show as a difference.
        print(f"WARNING: {tail.bad} unreadable line(s) in the output: a kill -9 cut a write and the restarted "
              "emulator appended to the fragment (emulator/outputs/directory.py keeps a partial last line)")
    ok = not missing and not extra and not differ and not stale
    print("RESULT: replayed events " + ("EQUAL the table" if ok else "DIFFER from the table")
          + ("" if args.keep else f" (work dir {work} removed)" if ok else f" (work dir {work} kept)"))
    if ok and not args.keep:
        import shutil

        shutil.rmtree(work, ignore_errors=True)
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
