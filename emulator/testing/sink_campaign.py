"""A randomized conformance campaign for the Spark sink: its tables must equal the source's.

`python -m emulator.testing.sink_campaign --db pg|mariadb --seed S --minutes N --out DIR [--workloads W]`

Each round draws W workloads (`sink_campaign_draw`): per workload a throwaway server, random tables and
connector settings the sink reads (handling modes, tombstones, transaction metadata, ExtractNewRecordState),
the emulator's directory output of the snapshot and a random stream. The round's outputs (distinct topic
prefixes) go together to `python -m sink run ... --once`, shuffled per topic (unwrapped topics keep their
order: they carry no source position) and cut in 1-3 arrivals, one sink process each (a restart between
arrivals); then once more with `--scd 2`. The oracle is the source alone: each mirror must equal the table's
final `SELECT` (`sink_campaign_types` normalizes each type independently), each history the per-key row
states read back after every statement. A round's directory keeps everything to reproduce a mismatch
(`workload.sql` per workload, the outputs, the tables); `report.json` in DIR sums them up.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

from emulator.testing import sink_campaign_shapes as shapes
from emulator.testing.oracle_capture import write_properties
from emulator.testing.sink_campaign_draw import (
    Oracle,
    Runner,
    Table,
    Workload,
    draw_config,
    draw_more,
    draw_tables,
)
from emulator.testing.sink_campaign_more import canon, expected
from emulator.testing.sink_campaign_types import ColType, Modes

ROOT = Path(__file__).resolve().parents[2]
PLACEHOLDER = "__debezium_unavailable_value"


def _env() -> dict[str, str]:
    return dict(
        os.environ, PYTHONPATH=os.pathsep.join(p for p in (str(ROOT), os.environ.get("PYTHONPATH")) if p)
    )


# -- capture ---------------------------------------------------------------------------------------------


class Captured:
    """One workload's result: its output directory, the source's final rows, the SCD2 oracle."""

    def __init__(self, w: Workload, out: Path, final: dict[str, list[dict]], oracle: Oracle) -> None:
        self.w, self.out, self.final, self.oracle = w, out, final, oracle

    def topic(self, t: Table | str) -> str:
        name = t if isinstance(t, str) else t.name
        schema = "s" if self.w.db == "pg" else f"w{self.w.index}"
        return f"w{self.w.index}.{schema}.{name}"


def _lines(path: Path) -> int:
    try:
        return path.read_bytes().count(b"\n")
    except FileNotFoundError:
        return 0


def _wait(pred, proc: subprocess.Popen, log: Path, timeout: float, what: str) -> None:
    end = time.monotonic() + timeout
    while not pred():
        if proc.poll() is not None:
            raise RuntimeError(
                f"emulator exited ({proc.returncode}) waiting for {what}: {log.read_text()[-1500:]}"
            )
        if time.monotonic() > end:
            raise RuntimeError(f"timeout waiting for {what}: {log.read_text()[-1500:]}")
        time.sleep(0.2)


AVRO = "io.confluent.connect.avro.AvroConverter"


def capture(
    db: str,
    seed: int,
    index: int,
    work: Path,
    statements: int | None = None,
    focus: str = "",
    inp: str = "dir",
    kafka: str | None = None,
    between=None,
) -> Captured:
    """Draws workload `index` of `seed`, runs it on a throwaway server under the emulator: to `work/out`
    (`inp` dir; avro: AvroConverter keys and values, a mock:// registry's registry.json there), or to the
    broker `kafka` (`inp` kafka: the stream in two emulator runs, `between()` called between them)."""
    r = random.Random(f"{seed}/{index}")
    modes, props, unwrap = draw_config(r, db)
    unwrap = unwrap and focus != "keyless-drop"
    tables = draw_tables(r, db, unwrap)
    if focus == "keyless-drop":
        for k in [k for k in props if k.startswith("transforms")]:
            del props[k]
        for t in tables:
            t.key, t.identity = "none", "full"
    modes = draw_more(random.Random(f"{seed}/{index}/more"), db, modes, props, tables)
    r3 = random.Random(f"{seed}/{index}/shapes") if seed >= shapes.FROM_SEED else None
    if r3 is not None:
        modes = shapes.draw_shapes(r3, db, modes, props, tables, kafka is not None)
    w = Workload(db, index, modes, props, unwrap, tables, focus=focus)
    work.mkdir(parents=True, exist_ok=True)
    out = work / "out"
    with _server(db) as srv:
        conn = srv.connect()
        schema = "s" if db == "pg" else f"w{index}"
        runner = Runner(w, conn, r, schema)
        runner.r3 = r3
        runner.run(
            f"CREATE SCHEMA {runner.q(schema)}" if db == "pg" else f"CREATE DATABASE {runner.q(schema)}"
        )
        marker = Table("zz_end", "int", {"rev": ColType("integer" if db == "pg" else "INT", ("0",), "int")})
        runner.create(marker)
        runner.run(f"INSERT INTO {runner.qt(marker)} VALUES (0, 0)")
        runner.setup()
        runner.snapshot_baseline()
        pre = {t.name: len(runner.rows(t)) for t in w.tables}
        base = srv.connector_properties(
            **{
                "topic.prefix": f"w{index}",
                "offset.storage.file.filename": str(work / "offsets.dat"),
                "offset.flush.interval.ms": "200",
            }
        )
        if db == "pg":
            base.update(
                {"schema.include.list": schema, "slot.name": f"w{index}", "publication.name": f"w{index}_pub"}
            )
        else:
            base.update(
                {
                    "database.include.list": schema,
                    "schema.history.internal.file.filename": str(work / "history.dat"),
                }
            )
        base.update(props)
        if inp == "avro":
            for side in ("key", "value"):
                base[f"{side}.converter"] = AVRO
                base[f"{side}.converter.schema.registry.url"] = f"mock://w{index}"
        write_properties(base, work / "connector.properties")
        c = Captured(w, out, {}, runner.oracle)
        log = work / "emulator.log"
        if kafka:
            from emulator.testing.sink_campaign_kafka import KafkaCounts, dump_topics

            count = KafkaCounts(kafka)
            dest = ["--kafka", kafka]
        else:
            count = lambda topic: _lines(out / f"{topic}.jsonl")  # noqa: E731
            dest = ["--out", str(out)]
        proc = _emulator(work, dest, log)
        try:
            _wait(
                lambda: (
                    count(c.topic(marker)) >= 1
                    and all(count(c.topic(t)) >= n for t in w.tables for n in [pre[t.name]])
                ),
                proc,
                log,
                180,
                "the snapshot",
            )
            n = statements or r.randint(15, 40)
            first = n // 2 if kafka else n
            runner.stream(first)
            runner.run(f"INSERT INTO {runner.qt(marker)} VALUES (1, 0)")
            _wait(lambda: count(c.topic(marker)) >= 2, proc, log, 180, "the stream")
            if kafka:  # the emulator stopped, the sink run, the emulator again (from its offsets)
                time.sleep(1.0)
                _stop(proc)
                if between is not None:
                    between()
                proc = _emulator(work, dest, log)
                runner.stream(n - first)
                runner.run(f"INSERT INTO {runner.qt(marker)} VALUES (2, 0)")
                _wait(lambda: count(c.topic(marker)) >= 3, proc, log, 180, "the stream's second half")
            time.sleep(1.0)  # the other topics' last lines of the same flush
            _stop(proc)
        finally:
            if proc.poll() is None:
                os.killpg(proc.pid, signal.SIGKILL)
                proc.wait()
            _record(work, seed, index, w)
        c.final = {t.name: runner.rows(t) for t in w.tables}
        conn.close()
    if kafka:
        dump_topics(kafka, f"w{index}", out)
    (out / f"{c.topic(marker)}.jsonl").unlink()
    return c


def _emulator(work: Path, dest: list[str], log: Path) -> subprocess.Popen:
    with open(log, "ab") as lf:
        return subprocess.Popen(
            [sys.executable, "-m", "emulator", "run", str(work / "connector.properties"), *dest],
            stdout=lf,
            stderr=subprocess.STDOUT,
            stdin=subprocess.DEVNULL,
            cwd=ROOT,
            env=_env(),
            start_new_session=True,
        )


def _stop(proc: subprocess.Popen) -> None:
    proc.send_signal(signal.SIGTERM)
    proc.wait(60)


def _record(work: Path, seed: int, index: int, w: Workload) -> None:
    """The workload as run (to replay a mismatch by hand)."""
    head = f"-- seed {seed} workload {index}\n-- {json.dumps(w.props)}\n"
    (work / "workload.sql").write_text(head + "".join(s.rstrip(";") + ";\n" for s in w.statements))


class _server:
    def __init__(self, db: str) -> None:
        if db == "pg":
            from emulator.testing.pgserver import PgServer

            self.srv: Any = PgServer()
        else:
            from emulator.testing.mariadbserver import MariaDbServer

            self.srv = MariaDbServer()

    def __enter__(self):
        return self.srv.start()

    def __exit__(self, *exc) -> None:
        self.srv.stop()


# -- the sink --------------------------------------------------------------------------------------------


def arrivals(caps: list[Captured], dest: Path, rnd: random.Random, n: int, ordered: set[str]):
    """Yields after each of `n` appends to `dest`: every topic file shuffled line by line (those of `ordered`
    workloads cut in order) and cut in `n` parts, so that late events cross batch and process boundaries."""
    dest.mkdir(parents=True, exist_ok=True)
    parts = {}
    for c in caps:
        for f in sorted(c.out.glob("*.jsonl")):
            lines = f.read_text().splitlines(keepends=True)
            if str(c.w.index) in ordered:
                size = -(-len(lines) // n) if lines else 1
                parts[f.name] = [lines[i * size : (i + 1) * size] for i in range(n)]
            else:
                rnd.shuffle(lines)
                parts[f.name] = [lines[i::n] for i in range(n)]
    for c in caps:  # Avro: the mock:// registry's schemas (one workload per round: their ids would collide)
        if (c.out / "registry.json").exists():
            shutil.copy(c.out / "registry.json", dest / "registry.json")
    for i in range(n):
        for name, chunks in parts.items():
            with open(dest / name, "a") as fh:
                fh.writelines(chunks[i])
        yield i


def run_sink(src: Path | str, tables: Path, ck: Path, *extra: str) -> subprocess.CompletedProcess:
    cmd = [sys.executable, "-m", "sink", "run", "--source", str(src), "--tables", str(tables)]
    cmd += ["--checkpoint", str(ck), "--once", *extra]
    return subprocess.run(cmd, capture_output=True, text=True, timeout=900, cwd=ROOT, env=_env())


# -- comparison ------------------------------------------------------------------------------------------


def _expect_row(t: Table, row: dict, cols: list[str], m: Modes, db: str) -> tuple:
    out = []
    for n in cols:
        c = t.coltype(n)
        if c is None:
            out.append(canon(row[n]))
            continue
        v = expected(c, row[n], m, db)
        if (
            v is None
            and row[n] is not None
            and n in t.defaults
            and m.time == "nanoseconds"
            and c.kind == "ts"
        ):
            # a value Debezium writes as null (a NanoTimestamp outside int64) in a column added with a DEFAULT:
            # JsonConverter prints the default instead (replace.null.with.default; docs/sink.md "A NULL in a
            # column with a default"; pg seed 27, `timestamp DEFAULT '2024-02-29 ...'` holding 0001-01-01)
            v = expected(c, c.values[0].strip("'"), m, db)  # the DEFAULT's literal: PostgreSQL's text
        out.append(canon(v, c, m))
    return tuple(out)


def _got_row(t: Table, row: dict, cols: list[str], m: Modes) -> tuple:
    return tuple(canon(row.get(n), t.coltype(n), m) for n in cols)


def _placeholder(v: Any) -> bool:
    return v == PLACEHOLDER or v == PLACEHOLDER.encode() or v == [PLACEHOLDER]


def compare_mirror(c: Captured, tables: Path) -> list[dict]:
    from sink.read import read_arrow

    problems = []
    for t in c.w.tables:
        cols = t.all_cols()
        want = sorted((_expect_row(t, row, cols, c.w.modes, c.w.db) for row in c.final[t.name]), key=repr)
        path = tables / c.topic(t)
        if not path.exists():
            got: list[tuple] = []
        else:
            data = read_arrow(str(path)).to_pylist()
            missing = [n for n in cols if data and n not in data[0]]
            if missing:
                # no event carries it, nothing to mirror: a column added after the table's last event, or one
                # Debezium gives no schema (arrays of interval, money, bit, point...: the column is left out).
                # Known; the table's other columns are still compared (session 21: before, such a table was
                # not compared at all)
                unseen = not set(missing) - _unseen(c, t, missing)
                known = "no event carries the column" if unseen else None
                problems.append({"table": c.topic(t), "what": f"columns missing: {missing}", "known": known})
                if not unseen:
                    continue
                cols = [n for n in cols if n not in missing]
                want = sorted(
                    (_expect_row(t, row, cols, c.w.modes, c.w.db) for row in c.final[t.name]), key=repr
                )
            got = sorted((_got_row(t, row, cols, c.w.modes) for row in data), key=repr)
        if got != want:
            extra = [g for g in got if g not in want]
            lost = [x for x in want if x not in got]
            known = t.key != "none" and all(
                any(_placeholder(v) for v in g) and tuple(g[: len(t.key_cols())]) in _changed(c, t)
                for g in extra
            )
            problems.append(
                {
                    "table": c.topic(t),
                    "what": "mirror",
                    "known": "README Limits: a key change's TOAST value" if known and extra else None,
                    "columns": cols,
                    "extra": [repr(x) for x in extra[:5]],
                    "lost": [repr(x) for x in lost[:5]],
                }
            )
    return problems


def _unseen(c: Captured, t: Table, names) -> set[str]:
    """The columns among `names` that no event of the table's topic carries (not in any schema)."""
    text = (c.out / f"{c.topic(t)}.jsonl").read_text()
    return {n for n in names if f'"field":"{n}"' not in text}


def _changed(c: Captured, t: Table) -> set[tuple]:
    return {_src_key(c, t, k) for k in c.oracle.key_changed.get(t.name, set())}


def _src_key(c: Captured, t: Table, k: tuple) -> tuple:
    """A source key (as the oracle holds it) in the comparison's form: `_expect_row`'s for its columns."""
    return _expect_row(t, dict(zip(t.key_cols(), k, strict=True)), t.key_cols(), c.w.modes, c.w.db)


def compare_history(c: Captured, tables: Path) -> list[dict]:
    """Per key: the sink's versions in `__START_AT` order equal the oracle's row states, each closed by the
    next change; the last open exactly when the key exists at the end. Columns compared: those the version's
    row had and the table still has (a column added later holds the sink's backfill there)."""
    from sink.read import read_arrow

    problems = []
    for t in c.w.tables:
        if t.key == "none":
            continue
        path = tables / c.topic(t)
        kc = t.key_cols()
        want: dict[tuple, list[dict | None]] = c.oracle.versions.get(t.name, {})
        got: dict[tuple, list[dict]] = {}
        final = set(t.cols) | set(kc)
        if path.exists():
            tbl = read_arrow(str(path))
            # a column no event carries (Debezium gives it no schema, e.g. interval[]) is not in the table:
            # compared over the others, as the mirror (a column some event carries stays and must be there)
            final -= _unseen(c, t, final - set(tbl.column_names))
            for row in tbl.to_pylist():
                got.setdefault(_got_row(t, row, kc, c.w.modes), []).append(row)
        for key in set(got) | {_src_key(c, t, k) for k in want}:
            raw = next((k for k in want if _src_key(c, t, k) == key), None)
            states = want.get(raw, []) if raw is not None else []
            versions = [s for s in states if s is not None]
            open_at_end = bool(states) and states[-1] is not None
            mine = sorted(got.get(key, []), key=lambda row: row["__START_AT"])
            bad = len(mine) != len(versions)
            for v, g in zip(versions, mine, strict=False):
                cols = [n for n in v if n in final]
                if _expect_row(t, v, cols, c.w.modes, c.w.db) != _got_row(t, g, cols, c.w.modes):
                    bad = True
            if mine and (mine[-1]["__END_AT"] is None) != open_at_end:
                bad = True
            if any(g["__END_AT"] is None for g in mine[:-1]):
                bad = True
            if bad:
                # README Limits: a key change's TOAST value, when the new key's event comes before the old key's
                # base image; the same filter as the mirror's
                known = key in _changed(c, t) and any(_placeholder(v) for g in mine for v in g.values())
                problems.append(
                    {
                        "table": c.topic(t),
                        "what": "history",
                        "known": "README Limits: a key change's TOAST value" if known else None,
                        "key": repr(key),
                        "want": [repr(s) for s in states],
                        "got": [repr({k: v for k, v in g.items() if k != "__seq"}) for g in mine],
                    }
                )
    return problems


# -- rounds ----------------------------------------------------------------------------------------------


def run_round(
    db: str,
    seed: int,
    rnd_no: int,
    n_workloads: int,
    out: Path,
    log=print,
    focus: str = "",
    inp: str = "dir",
) -> dict:
    """One round: `inp` dir or avro (the directory output, shuffled and cut in arrivals; avro: one workload,
    the mock registries of several would give the same ids) or kafka (`sink_campaign_kafka`)."""
    rdir = out / f"round{rnd_no}"
    shutil.rmtree(rdir, ignore_errors=True)
    if inp == "kafka":
        from emulator.testing.tansu import TansuBroker

        rdir.mkdir(parents=True)
        with TansuBroker(rdir / "tansu.log") as broker:
            return _kafka_round(db, seed, rnd_no, n_workloads, rdir, log, focus, f"kafka:{broker.bootstrap}")
    caps = []
    for i in range(1 if inp == "avro" else n_workloads):
        index = rnd_no * 100 + i
        try:
            caps.append(capture(db, seed, index, rdir / f"w{index}", focus=focus, inp=inp))
        except Exception as e:  # a capture failure is not the sink's: reported apart
            log(f"round {rnd_no} workload {index}: capture failed: {e!r}"[:400])
    r = random.Random(f"{seed}/round{rnd_no}")
    ordered = {str(c.w.index) for c in caps if c.w.unwrap}
    res: dict = {"round": rnd_no, "workloads": len(caps), "problems": [], "sink_errors": []}
    n = r.randint(1, 3)
    for _ in arrivals(caps, rdir / "src", r, n, ordered):
        if not _sink(res, "mirror", rdir / "src", rdir / "tables", rdir / "ck"):
            break
    if not res["sink_errors"]:
        for c in caps:
            res["problems"] += compare_mirror(c, rdir / "tables")
    hist = [c for c in caps if not c.w.unwrap]
    m = r.randint(1, 2)
    for _ in arrivals(hist, rdir / "src2", r, m, set()):
        if not _sink(res, "scd2", rdir / "src2", rdir / "tables2", rdir / "ck2", "--scd", "2"):
            break
    else:
        for c in hist:
            res["problems"] += compare_history(c, rdir / "tables2")
    res["arrivals"] = [n, m]
    (rdir / "result.json").write_text(json.dumps(res, indent=1, default=str))
    return res


def _sink(res: dict, mode: str, src, tables: Path, ck: Path, *extra: str) -> bool:
    p = run_sink(src, tables, ck, *extra)
    if p.returncode != 0:
        res["sink_errors"].append({"mode": mode, "rc": p.returncode, "err": (p.stdout + p.stderr)[-2000:]})
    return p.returncode == 0


def _kafka_round(
    db: str, seed: int, rnd_no: int, n_workloads: int, rdir: Path, log, focus: str, src: str
) -> dict:
    """Kafka input: the mirror's sink runs between each workload's two emulator runs and once at the end
    (one checkpoint); the SCD2 history once over everything (its own checkpoint)."""
    from emulator.testing.sink_campaign_kafka import header_problems

    res: dict = {"round": rnd_no, "workloads": 0, "problems": [], "sink_errors": []}
    caps = []
    runs = [0]

    def between() -> None:
        if not res["sink_errors"]:
            runs[0] += 1
            _sink(res, "mirror", src, rdir / "tables", rdir / "ck")

    for i in range(n_workloads):
        index = rnd_no * 100 + i
        try:
            caps.append(
                capture(db, seed, index, rdir / f"w{index}", focus=focus, kafka=src[6:], between=between)
            )
        except Exception as e:  # a capture failure is not the sink's: reported apart
            log(f"round {rnd_no} workload {index}: capture failed: {e!r}"[:400])
    res["workloads"] = len(caps)
    between()
    if not res["sink_errors"]:
        for c in caps:
            res["problems"] += compare_mirror(c, rdir / "tables")
    for c in caps:  # what the sink read: each key change's header, in its converter's form
        json_conv = c.w.props.get("header.converter") == shapes.JSON_CONVERTER
        for t in c.w.tables:
            n = len(c.oracle.key_changed.get(t.name, ()))
            res["problems"] += header_problems(c.out, c.topic(t), n, json_conv)
    hist = [c for c in caps if not c.w.unwrap]
    if _sink(res, "scd2", src, rdir / "tables2", rdir / "ck2", "--scd", "2"):
        for c in hist:
            res["problems"] += compare_history(c, rdir / "tables2")
    res["arrivals"] = [runs[0], 1]
    (rdir / "result.json").write_text(json.dumps(res, indent=1, default=str))
    return res


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(
        prog="python -m emulator.testing.sink_campaign", description=__doc__.split("\n")[0]
    )
    ap.add_argument("--db", choices=["pg", "mariadb"], required=True)
    ap.add_argument("--seed", type=int, required=True)
    ap.add_argument("--minutes", type=float, default=10)
    ap.add_argument("--out", type=Path, required=True)
    ap.add_argument("--workloads", type=int, default=3, help="workloads per sink run (default 3)")
    ap.add_argument("--rounds", type=int, default=0, help="stop after this many rounds (default: the time)")
    ap.add_argument(
        "--input",
        choices=["dir", "kafka", "avro"],
        default="dir",
        help="what the sink reads: the directory output (JSON), Kafka (a Tansu broker), or Avro in the directory",
    )
    ap.add_argument(
        "--focus",
        choices=["", "keyless-drop"],
        default="",
        help="keyless-drop: every table without a key, DROP COLUMN often (sink/keyless.py's partial matching)",
    )
    a = ap.parse_args(argv)
    a.out.mkdir(parents=True, exist_ok=True)
    end = time.monotonic() + a.minutes * 60
    results, rnd_no = [], 0
    while time.monotonic() < end and (not a.rounds or rnd_no < a.rounds):
        res = run_round(a.db, a.seed, rnd_no, a.workloads, a.out, focus=a.focus, inp=a.input)
        results.append(res)
        bad = [p for p in res["problems"] if not p.get("known")]
        print(
            f"round {rnd_no}: {res['workloads']} workloads, arrivals {res['arrivals']}, "
            f"{len(bad)} mismatches, {len(res['problems']) - len(bad)} known, {len(res['sink_errors'])} sink errors",
            flush=True,
        )
        rnd_no += 1
    summary = {
        "db": a.db,
        "input": a.input,
        "focus": a.focus,
        "seed": a.seed,
        "rounds": len(results),
        "workloads": sum(x["workloads"] for x in results),
        "mismatches": sum(1 for x in results for p in x["problems"] if not p.get("known")),
        "known": sum(1 for x in results for p in x["problems"] if p.get("known")),
        "sink_errors": sum(len(x["sink_errors"]) for x in results),
    }
    (a.out / "report.json").write_text(
        json.dumps({"summary": summary, "rounds": results}, indent=1, default=str)
    )
    print(json.dumps(summary))
    return 1 if summary["mismatches"] or summary["sink_errors"] else 0


if __name__ == "__main__":
    sys.exit(main())
