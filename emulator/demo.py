"""End-to-end demo on a throwaway PostgreSQL: `python -m emulator.demo [--keep DIR]`.

Starts a fresh PostgreSQL 15, creates a small inventory, runs `python -m emulator run CONFIG --out DIR`
exactly as a user would, makes some changes, prints what the emulator wrote, checks it, and cleans up.
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
    args = ap.parse_args(argv)
    work = Path(args.keep) if args.keep else Path(tempfile.mkdtemp(prefix="dbzemu-demo-"))
    work.mkdir(parents=True, exist_ok=True)
    out = work / "out"
    print("demo: starting a throwaway PostgreSQL 15 ...", flush=True)
    with PgServer() as pg:
        pg.psql(SETUP)
        config = work / "demo.properties"
        config.write_text("\n".join([
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
        ]) + "\n")
        print(f"demo: python -m emulator run {config} --out {out}", flush=True)
        proc = subprocess.Popen([sys.executable, "-m", "emulator", "run", str(config), "--out", str(out)],
                                stderr=open(work / "emulator.log", "wb"))
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
                print(f"  {r['topic']:34} op={p['op']} before={json.dumps(p['before'])} "
                      f"after={json.dumps(p['after'])}")
        ops = [_op(r) for r in data]
        expected = ["r", "r", "c", "u", "d", None]
        ok = ops == expected and code == 0
        print(f"demo: {len(recs)} records in {out}; data ops {ops}; emulator exit code {code}")
        print("demo: OK" if ok else f"demo: FAILED (expected data ops {expected})")
        return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
