"""End-to-end demo on a throwaway PostgreSQL: `python -m emulator.demo [--keep DIR] [--no-sink]`.

Starts a fresh PostgreSQL 15, creates a small inventory, runs `python -m emulator run CONFIG --out DIR`
exactly as a user would, makes some changes, prints what the emulator wrote and checks it; then runs the
Spark sink (`python -m sink run --source DIR --tables T --checkpoint C --once`) and checks that the
mirror table equals `SELECT *` of the source.
"""

from __future__ import annotations

import argparse
import json
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from emulator.testing.pgserver import PgServer

SETUP = """
CREATE SCHEMA inventory;
CREATE TABLE inventory.customers (id serial PRIMARY KEY, name text NOT NULL, email text);
INSERT INTO inventory.customers (name, email) VALUES ('Sally', 'sally@example.com'), ('George', 'g@example.com');
"""

CHANGES = """
INSERT INTO inventory.customers (name, email) VALUES ('Edward', 'ed@example.com');
UPDATE inventory.customers SET email = 'sally.thomas@example.com' WHERE name = 'Sally';
DELETE FROM inventory.customers WHERE name = 'George';
"""


def _records(out: Path) -> list[dict]:
    recs = []
    for f in sorted(out.glob("*.jsonl")):
        for line in f.read_text().splitlines():
            if line.strip():
                recs.append(dict(json.loads(line), topic=f.name[:-6]))
    return recs


def _wait(out: Path, pred, timeout: float, proc: subprocess.Popen) -> list[dict]:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        recs = _records(out)
        if pred(recs):
            return recs
        if proc.poll() is not None:
            raise SystemExit(f"demo: the emulator exited early with code {proc.returncode}")
        time.sleep(0.1)
    raise SystemExit("demo: timed out waiting for records")


def _op(r: dict) -> str | None:
    v = r.get("value")
    return v["payload"].get("op") if isinstance(v, dict) else None


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--keep", metavar="DIR", help="write the records to DIR and keep them")
    ap.add_argument("--no-sink", action="store_true", help="skip the Spark sink part")
    args = ap.parse_args(argv)
    work = Path(args.keep) if args.keep else Path(tempfile.mkdtemp(prefix="dbzemu-demo-"))
    work.mkdir(parents=True, exist_ok=True)
    out = work / "out"
    print("demo: starting a throwaway PostgreSQL 15 ...", flush=True)
    with PgServer() as pg:
        pg.psql(SETUP)
        config = work / "demo.properties"
        config.write_text(
            "\n".join(
                [
                    "name=demo",
                    "connector.class=io.debezium.connector.postgresql.PostgresConnector",
                    "plugin.name=pgoutput",
                    "database.hostname=127.0.0.1",
                    f"database.port={pg.port}",
                    "database.user=postgres",
                    "database.password=postgres",
                    "database.dbname=postgres",
                    "topic.prefix=dbserver1",
                    "provide.transaction.metadata=true",
                    f"offset.storage.file.filename={work / 'offsets.json'}",
                    "offset.flush.interval.ms=1000",
                ]
            )
            + "\n"
        )
        print(f"demo: python -m emulator run {config} --out {out}", flush=True)
        proc = subprocess.Popen(
            [sys.executable, "-m", "emulator", "run", str(config), "--out", str(out)],
            stderr=open(work / "emulator.log", "wb"),
        )
        try:
            _wait(out, lambda rs: sum(_op(r) == "r" for r in rs) == 2, 60, proc)
            pg.psql(CHANGES)
            recs = _wait(out, lambda rs: any(_op(r) == "d" for r in rs), 30, proc)
            time.sleep(0.5)
        finally:
            proc.send_signal(signal.SIGTERM)
            code = proc.wait(30)
        recs = _records(out)
        data = [r for r in recs if r["topic"] == "dbserver1.inventory.customers"]
        for r in recs:
            v = r.get("value")
            if r["topic"].endswith(".transaction"):
                p = v["payload"]
                print(f"  {r['topic']:34} {p['status']:5} id={p['id']}")
            elif v is None:
                print(f"  {r['topic']:34} tombstone key={r['key']['payload']}")
            else:
                p = v["payload"]
                print(
                    f"  {r['topic']:34} op={p['op']} before={json.dumps(p['before'])} "
                    f"after={json.dumps(p['after'])}"
                )
        ops = [_op(r) for r in data]
        expected = ["r", "r", "c", "u", "d", None]
        ok = ops == expected and code == 0
        print(f"demo: {len(recs)} records in {out}; data ops {ops}; emulator exit code {code}")
        if not ok:
            print(f"demo: FAILED (expected data ops {expected})")
            return 1
        if not args.no_sink:
            ok = _sink(pg, out, work)
        print("demo: OK" if ok else "demo: FAILED")
        return 0 if ok else 1


def _sink(pg: PgServer, out: Path, work: Path) -> bool:
    """The pipeline's other half: the Spark sink turns the change events into a mirror table."""
    tables, ckpt = work / "tables", work / "checkpoint"
    argv = [
        sys.executable,
        "-m",
        "sink",
        "run",
        "--source",
        str(out),
        "--tables",
        str(tables),
        "--checkpoint",
        str(ckpt),
        "--once",
    ]
    print(f"demo: python -m sink run --source {out} --tables {tables} --checkpoint {ckpt} --once", flush=True)
    r = subprocess.run(argv, capture_output=True, text=True)
    if r.returncode != 0:
        print(f"demo: the sink failed ({r.returncode}):\n{r.stderr[-2000:]}")
        return False
    from sink.read import read_arrow

    mirror = read_arrow(str(tables / "dbserver1.inventory.customers")).to_pylist()
    with pg.connect() as conn:
        cur = conn.execute("SELECT id, name, email FROM inventory.customers ORDER BY id")
        source = [dict(zip([d.name for d in cur.description], row)) for row in cur.fetchall()]
    mirror = sorted(({k: row[k] for k in ("id", "name", "email")} for row in mirror), key=lambda r: r["id"])
    print("demo: mirror table dbserver1.inventory.customers (Delta, written by the Spark sink):")
    for row in mirror:
        print(f"  {row}")
    same = mirror == source
    print(
        "demo: mirror table equals SELECT * of the source"
        if same
        else f"demo: mirror differs from the source {source}"
    )
    return same


if __name__ == "__main__":
    sys.exit(main())
