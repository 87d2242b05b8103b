"""Differential campaign for Kafka Connect's data plane: random transform chains, predicates and converter
settings, each run through real Debezium 3.6.3 (emulator.testing.oracle_connect in the oracle venv) and
through the emulator on the same workload, diffed with the connect goldens' masks.

    python -m emulator.testing.differential_connect campaign --minutes 20 --seed 1 [--db pg|mariadb|both]
    python -m emulator.testing.differential_connect draw --seed 1 --trial 0      # print one configuration
    python -m emulator.testing.differential_connect diff --props P.json --db pg  # one configuration

A trial draws, from (seed, trial number), a chain of 1-4 transforms from the issue's list (Debezium's and
Kafka's, `$Key`/`$Value` forms, options drawn from each one's documented values), predicates with
`negate`, the key / value / header converters and their options, and a few connector options
(`decimal.handling.mode`, `provide.transaction.metadata`, `errors.tolerance`). The generator follows the
shape of the value along the chain (envelope, unwrapped row, outbox event, anything) so that most chains
are ones a user would write; invalid ones remain possible on purpose.

Outcomes: `match` (0 mismatches), `both-fail` (Debezium failed — at start or on a record — and so did the
emulator, on a record: with the same records before it and the same message, connect_failure), `refused` (the emulator refused the configuration at start, exit 2: allowed, listed), or
`MISMATCH` (records differ, or one side failed and the other did not). A mismatch is minimized — each
transform, then each converter option and connector option, removed while a mismatch remains — and saved
under OUT/findings/<name>/ in the layout of tests/data/connect (`case.jsonl`, `case.meta.json` with the
`connector_config` and the workload's name, `case.registry.json`), ready to be copied as a case.

The comparison is tests/connect_compare.py with the Avro decoding of tests/test_connect_converters.py (the
masks of tests/data/connect/README.md); this module runs from a checkout (it puts tests/ on sys.path).
"""

from __future__ import annotations

import argparse
import base64
import json
import re
import shutil
import sys
import tempfile
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path

from emulator.connect.converters.errors import STOPS_ON_NOT_EMULATED
from emulator.testing.connect_draws import PREREGISTER, draw
from emulator.testing.connect_failure import compare_failures
from emulator.testing.differential import ROOT, oracle_available, oracle_python, run_logged

DATA = ROOT / "tests" / "data" / "connect"
TRIAL_TIMEOUT_S = 300


def log(msg: str) -> None:
    print(f"[differential-connect {time.strftime('%H:%M:%S')}] {msg}", flush=True)


# ---------------------------------------------------------------------------------------------------
# one trial: both engines, then the diff
# ---------------------------------------------------------------------------------------------------
@dataclass
class Outcome:
    kind: str  # match | both-fail | refused | not-emulated | MISMATCH | oracle-error
    detail: str = ""
    compared: int = 0
    problems: list[str] = field(default_factory=list)


def _record(
    engine: str,
    db: str,
    workload: Path,
    props_file: Path,
    out: Path,
    logfile: Path,
    prereg: Path | None = None,
) -> dict:
    python = oracle_python() if engine == "debezium" else sys.executable
    cmd = [python, "-m", "emulator.testing.oracle_connect", "--engine", engine, "--db", db]
    cmd += ["--workload", str(workload), "--props", str(props_file), "-o", str(out)]
    if engine == "emulator":
        cmd += ["--emulator-python", sys.executable]
    if prereg is not None:
        cmd += ["--preregister", str(prereg)]
    rc = run_logged(cmd, logfile, TRIAL_TIMEOUT_S)
    meta_path = Path(str(out).removesuffix(".jsonl") + ".meta.json")
    if rc != 0 or not meta_path.is_file():
        return {"ok": False, "harness_error": f"recorder exit {rc} (see {logfile})"}
    return json.loads(meta_path.read_text())


# a PostgreSQL transaction id is `txId:LSN` (provide.transaction.metadata): its LSN is run-dependent, as the
# connect goldens' other log positions (tests/data/connect/README.md)
TX_ID = re.compile(r'()"(\d+):\d+"')


# a MariaDB/MySQL binlog file name (`source.file`, flattened `source_file`, StringConverter's `file=`): which
# file a server writes depends on its history (connect seed 72 trial 46: Debezium's server had rotated to
# binlog.000002), as its positions do; masked in JSON, in decoded Avro datums and inside `b64` text bytes (UTF-8,
# or a StringConverter's other `converter.encoding`: `charsets`)
BINLOG_FILE = re.compile(r"(?<![\w.-])binlog\.\d{6,}(?!\d)")
B64 = re.compile(r'\{"b64": "([A-Za-z0-9+/=]*)"\}')


def mask_binlog_files(text: str, charsets: tuple[str, ...] = ()) -> str:
    if charsets:
        sys.path.insert(0, str(ROOT / "tests"))
        from connect_compare import recode

    def sub(s: str) -> str:
        return BINLOG_FILE.sub("binlog.<file>", s)

    def in_bytes(m: re.Match) -> str:
        raw = base64.b64decode(m.group(1))
        masked = raw
        try:
            masked = sub(raw.decode("utf-8")).encode()
        except UnicodeDecodeError:
            pass  # Avro bytes: masked once decoded (_decoded_copy ran first)
        for charset in charsets if masked == raw else ():
            got = recode(raw, charset, sub)
            if got is not None:
                masked = got[0] + got[2].encode(got[1])
                if masked != raw:
                    break
        return m.group(0) if masked == raw else json.dumps({"b64": base64.b64encode(masked).decode()})

    return sub(B64.sub(in_bytes, text))


def compare_outputs(golden: Path, candidate: Path, props: dict | None = None) -> tuple[int, list[str]]:
    """`props`: the run's configuration, for the charsets of its StringConverters (connect_compare.text_charsets)."""
    sys.path.insert(0, str(ROOT / "tests"))
    from connect_compare import compare, text_charsets
    from test_connect_converters import _decoded_copy

    charsets = text_charsets(props or {})
    reg_path = Path(str(golden).removesuffix(".jsonl") + ".registry.json")
    gold_reg = json.loads(reg_path.read_text()) if reg_path.is_file() else None
    cand_path = candidate / "registry.json"
    cand_reg = json.loads(cand_path.read_text()) if cand_path.is_file() else None
    problems = []
    if (gold_reg or {}) != (cand_reg or {}):
        problems.append(
            f"registries differ: golden {json.dumps(gold_reg)[:300]} | candidate {json.dumps(cand_reg)[:300]}"
        )
    with tempfile.TemporaryDirectory() as tmp:
        g, c = Path(tmp) / "golden.jsonl", Path(tmp) / "candidate"
        _decoded_copy(golden, g, gold_reg)
        _decoded_copy(candidate, c, cand_reg)
        for f in [g, *c.glob("*.jsonl")]:
            f.write_text(
                mask_binlog_files(TX_ID.sub(r'\1"\2:<lsn>"', f.read_text()), tuple(set(charsets.values())))
            )
        n, diffs = compare(g, c, charsets)
    return n, problems + diffs


def _preregistration(props: dict, db: str, wl: Path, work: Path) -> Path:
    """PREREGISTER: what real Debezium registers with auto-registering converters (the lookup options
    removed), as a user's registry holds it from an earlier run -> WORK/preregister.json."""
    auto = {
        k: v
        for k, v in props.items()
        if not k.endswith((".auto.register.schemas", ".use.latest.version")) and k != PREREGISTER
    }
    first = work / "prereg"
    first.mkdir(parents=True, exist_ok=True)
    (first / "props.json").write_text(json.dumps(auto, indent=1))
    _record("debezium", db, wl, first / "props.json", first / "golden.jsonl", first / "debezium.log")
    reg = first / "golden.registry.json"
    out = work / "preregister.json"
    out.write_text(reg.read_text() if reg.is_file() else "{}")
    return out


def _failure_kind(engine: str, meta: dict) -> str:
    """`start` (configuration refused before any record) or `record` (the task stopped on a record)."""
    if engine == "debezium":
        return "record" if "data plane:" in (meta.get("error") or "") else "start"
    return "start" if meta.get("exit_code") == 2 else "record"


def run_trial(props: dict, db: str, workload: str, work: Path) -> Outcome:
    work.mkdir(parents=True, exist_ok=True)
    wl = DATA / workload
    prereg = _preregistration(props, db, wl, work) if props.get(PREREGISTER) else None
    props = {k: v for k, v in props.items() if k != PREREGISTER}
    props_file = work / "props.json"
    props_file.write_text(json.dumps(props, indent=1))
    golden, cand = work / "golden.jsonl", work / "emulator"
    metas: dict[str, dict] = {}

    def one(engine: str, out: Path) -> None:
        metas[engine] = _record(engine, db, wl, props_file, out, work / f"{engine}.log", prereg)

    # both engines at once: each on its own throwaway server
    threads = [threading.Thread(target=one, args=a) for a in (("debezium", golden), ("emulator", cand))]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    dbz, emu = metas["debezium"], metas["emulator"]
    if dbz.get("harness_error"):
        return Outcome("oracle-error", dbz["harness_error"])
    if emu.get("harness_error"):
        return Outcome("MISMATCH", f"emulator harness: {emu['harness_error']}")
    if emu.get("exit_code") == 2 and not emu["ok"]:
        line = _refusal_line(work / "emulator.emulator.log")
        if dbz["ok"]:
            return Outcome("refused", line)
        return Outcome("both-fail", f"Debezium: {dbz['error'][:200]} | emulator refused: {line}")
    stop = None if emu["ok"] else _not_emulated(work / "emulator.emulator.log")
    if stop:
        # a documented difference (docs/converters.md): the emulator stops on a record Debezium writes in a way it
        # does not copy (AvroConverter use.latest.version misplacing values); not a mismatch, listed apart
        return Outcome("not-emulated", stop)
    if not dbz["ok"] and not emu["ok"]:
        # both stopped: the kind of failure and the records each emitted before it must be the same
        kinds = (_failure_kind("debezium", dbz), _failure_kind("emulator", emu))
        both = f"Debezium ({kinds[0]}): {(dbz['error'] or '')[:200]} | emulator ({kinds[1]}): "
        both += (emu["error"] or "")[-200:]
        if kinds[0] != kinds[1]:
            return Outcome("MISMATCH", f"both failed, differently: {both}")
        n, problems = _compare(golden, cand, props) if golden.is_file() else (0, [])
        if problems:
            return Outcome("MISMATCH", f"both failed; before it: {problems[0][:240]}", n, problems)
        if kinds[0] == "record":
            # and the words the user reads (connect_failure: normalized only where they cannot be identical)
            words = compare_failures(dbz.get("error") or "", _read(work / "emulator.emulator.log"))
            if words:
                return Outcome("MISMATCH", f"both failed on the same record, {words}", n, [words])
        return Outcome("both-fail", both, n)
    if not dbz["ok"]:
        return Outcome("MISMATCH", f"Debezium failed, the emulator did not: {(dbz['error'] or '')[:300]}")
    if not emu["ok"]:
        return Outcome("MISMATCH", f"the emulator failed, Debezium did not: {(emu['error'] or '')[-400:]}")
    n, problems = _compare(golden, cand, props)
    if problems:
        return Outcome("MISMATCH", problems[0][:300], n, problems)
    return Outcome("match", "", n)


def _compare(golden: Path, cand: Path, props: dict) -> tuple[int, list[str]]:
    """compare_outputs, with output it cannot read (a line that is not JSON: seed 80 trial 27's
    `"partition":CustomerUpdated`) a problem of the trial rather than the end of the campaign."""
    try:
        return compare_outputs(golden, cand, props)
    except ValueError as e:
        return 0, [f"the outputs could not be compared: {e}"]


def _read(logfile: Path) -> str:
    try:
        return logfile.read_text(errors="replace")
    except OSError:
        return ""


def _not_emulated(logfile: Path) -> str | None:
    """The emulator's line when it stopped on a record it does not emulate (NotEmulated), else None."""
    try:
        lines = logfile.read_text(errors="replace").splitlines()
    except OSError:
        return None
    return next((ln[:300] for ln in lines if STOPS_ON_NOT_EMULATED in ln), None)


def _refusal_line(logfile: Path) -> str:
    try:
        lines = [ln for ln in logfile.read_text(errors="replace").splitlines() if ln.strip()]
    except OSError:
        return "?"
    return lines[-1][:200] if lines else "?"


# ---------------------------------------------------------------------------------------------------
# minimizing a mismatch
# ---------------------------------------------------------------------------------------------------
def without_transform(props: dict, alias: str) -> dict:
    out = {k: v for k, v in props.items() if not k.startswith(f"transforms.{alias}.")}
    left = [a for a in out.get("transforms", "").split(",") if a and a != alias]
    if left:
        out["transforms"] = ",".join(left)
    else:
        out.pop("transforms", None)
    used = {v for k, v in out.items() if k.startswith("transforms.") and k.endswith(".predicate")}
    for p in [p for p in out.get("predicates", "").split(",") if p and p not in used]:
        out = {k: v for k, v in out.items() if not k.startswith(f"predicates.{p}.")}
        rest = [x for x in out["predicates"].split(",") if x != p]
        if rest:
            out["predicates"] = ",".join(rest)
        else:
            out.pop("predicates")
    return out


OPTIONAL_KEYS = ("decimal.handling.mode", "provide.transaction.metadata", "errors.tolerance")


def candidates(props: dict):
    """Smaller configurations: one transform less, one converter / connector option less."""
    for alias in [a for a in props.get("transforms", "").split(",") if a]:
        yield f"without transform {alias}", without_transform(props, alias)
    for k in list(props):
        if k in OPTIONAL_KEYS or (
            k.startswith(("key.converter.", "value.converter.", "header.converter."))
            and not k.endswith("schema.registry.url")
        ):
            yield f"without {k}", {x: v for x, v in props.items() if x != k}
        elif k.startswith("transforms.") and k.count(".") >= 2 and not k.endswith((".type", ".predicate")):
            yield f"without {k}", {x: v for x, v in props.items() if x != k}


def signature(out: Outcome) -> str:
    """What kind of mismatch: the failing side, or the topic and field path of the first difference."""
    d = out.detail
    d = d.split(": golden")[0] if ": golden" in d else d.split(":")[0]
    return re.sub(r"\d+", "N", d)


def minimize(
    first: Outcome, props: dict, db: str, workload: str, work: Path, budget: int
) -> tuple[dict, Outcome, Path]:
    """-> the smallest configuration that still mismatched, its outcome and its run's directory."""
    best, best_out, best_dir = props, None, work
    want = signature(first)
    step = 0
    changed = True
    while changed and step < budget:
        changed = False
        for what, cand in candidates(best):
            if step >= budget:
                break
            step += 1
            out = run_trial(cand, db, workload, work / f"min{step}")
            log(f"  minimize {step}: {what}: {out.kind} {out.detail[:120]}")
            if out.kind == "MISMATCH" and signature(out) == want:
                best, best_out, best_dir, changed = cand, out, work / f"min{step}", True
                break
    return best, best_out, best_dir


def save_finding(
    findings: Path, name: str, props: dict, db: str, workload: str, work: Path, out: Outcome
) -> Path:
    d = findings / name
    d.mkdir(parents=True, exist_ok=True)
    config = {k: v for k, v in props.items() if k != "database.password"}
    golden = work / "golden.jsonl"
    records = sum(1 for ln in golden.read_text().splitlines() if ln.strip()) if golden.is_file() else 0
    meta = {
        "db": db,
        "workload": workload,
        "connector_config": config,
        "records": records,
        "finding": out.detail,
    }
    (d / "case.meta.json").write_text(json.dumps(meta, indent=2) + "\n")
    if golden.is_file():
        shutil.copy(golden, d / "case.jsonl")
    reg = work / "golden.registry.json"
    if reg.is_file():
        shutil.copy(reg, d / "case.registry.json")
    (d / "problems.txt").write_text("\n".join(out.problems or [out.detail]) + "\n")
    if (work / "emulator").is_dir():
        shutil.copytree(work / "emulator", d / "emulator", dirs_exist_ok=True)
    return d


# ---------------------------------------------------------------------------------------------------
# commands
# ---------------------------------------------------------------------------------------------------
def campaign(args: argparse.Namespace) -> int:
    why = oracle_available()
    if why:
        raise SystemExit(f"differential_connect: {why}")
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    dbs = ("pg", "mariadb") if args.db == "both" else (args.db,)
    end = time.monotonic() + args.minutes * 60
    tally: dict[str, int] = {}
    trial = args.first_trial
    summary = out / "summary.jsonl"
    while time.monotonic() < end:
        db = dbs[trial % len(dbs)]
        props, workload = draw(args.seed, trial, db)
        work = out / f"trial{trial:04d}-{db}"
        res = run_trial(props, db, workload, work)
        tally[res.kind] = tally.get(res.kind, 0) + 1
        chain = [
            props[f"transforms.{a}.type"].rsplit(".", 1)[-1]
            for a in props.get("transforms", "").split(",")
            if a
        ]
        convs = [props.get(f"{p}.converter", "-").rsplit(".", 1)[-1] for p in ("key", "value", "header")]
        log(f"trial {trial} {db} {workload}: {res.kind} chain={chain} conv={convs} {res.detail[:160]}")
        entry = {
            "trial": trial,
            "db": db,
            "workload": workload,
            "kind": res.kind,
            "detail": res.detail,
            "compared": res.compared,
            "chain": chain,
            "converters": convs,
        }
        if res.kind == "MISMATCH":
            small, small_out, small_dir = props, res, work
            if args.minimize_steps > 0:
                small, found, small_dir = minimize(res, props, db, workload, work, args.minimize_steps)
                small_out = found or res
            name = f"seed{args.seed}-trial{trial}-{db}"
            d = save_finding(out / "findings", name, small, db, workload, small_dir, small_out)
            entry["finding"] = str(d)
            log(f"  finding saved: {d}")
        elif res.kind == "match" and not args.keep:
            shutil.rmtree(work, ignore_errors=True)
        with summary.open("a") as f:
            f.write(json.dumps(entry) + "\n")
        trial += 1
    log(f"seed {args.seed}: {trial - args.first_trial} trials: {tally}")
    return 1 if tally.get("MISMATCH") else 0


def cmd_draw(args: argparse.Namespace) -> int:
    props, workload = draw(args.seed, args.trial, args.db)
    print(json.dumps({"workload": workload, "props": props}, indent=1))
    return 0


def cmd_diff(args: argparse.Namespace) -> int:
    props = json.loads(Path(args.props).read_text())
    work = Path(args.keep or tempfile.mkdtemp(prefix="dbz-connect-diff-"))
    res = run_trial(props, args.db, args.workload, work)
    print(f"{res.kind}: {res.compared} records compared; {res.detail}")
    for p in res.problems[:20]:
        print("  " + p)
    return 0 if res.kind in ("match", "both-fail", "refused", "not-emulated") else 1


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = ap.add_subparsers(dest="cmd", required=True)
    c = sub.add_parser("campaign")
    c.add_argument("--minutes", type=float, default=10)
    c.add_argument("--seed", type=int, default=1)
    c.add_argument("--db", choices=("pg", "mariadb", "both"), default="pg")
    c.add_argument("--out", default=None)
    c.add_argument("--first-trial", type=int, default=0)
    c.add_argument("--minimize-steps", type=int, default=12)
    c.add_argument("--keep", action="store_true", help="keep the directories of matching trials")
    d = sub.add_parser("draw")
    d.add_argument("--seed", type=int, default=1)
    d.add_argument("--trial", type=int, default=0)
    d.add_argument("--db", choices=("pg", "mariadb"), default="pg")
    f = sub.add_parser("diff")
    f.add_argument("--props", required=True)
    f.add_argument("--db", choices=("pg", "mariadb"), default="pg")
    f.add_argument("--workload", default="pg_connect.sql", help="a workload of tests/data/connect")
    f.add_argument("--keep", help="the trial's directory (default: a temp dir)")
    args = ap.parse_args(argv)
    if args.cmd == "campaign":
        args.out = args.out or f"differential-runs/connect-{args.db}-seed{args.seed}"
        return campaign(args)
    if args.cmd == "draw":
        return cmd_draw(args)
    return cmd_diff(args)


if __name__ == "__main__":
    sys.exit(main())
