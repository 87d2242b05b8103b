"""`source.sequence` after a connector restart, against real Debezium 3.6.3 (tests/data/pg/restart_sequence/,
recorded by its record.py: the same statements, Debezium's engine stopped and started on its offsets).

Debezium's offset loader restores lastCommitLsn from the stored `lsn_commit`: the first change after a restart
mid-stream carries [the last commit's LSN, lsn], as every later change does; only a restart from a snapshot's
offset (no commit yet) gives [null, lsn]. The emulator sent [null, lsn] after every restart (the sink
campaign's Kafka input, session 18, took that for Debezium's). LSNs differ between runs by a WAL record here
and there, so each streamed change is compared by what its first element is: null, or the LSN of the END of
the transaction before it (transaction metadata on)."""

from __future__ import annotations

import json
import time
from pathlib import Path

import pytest
from emulator_proc import EmulatorProcess
from stop_hooks import stop_after_records

from emulator.api import Capture
from emulator.offsets import MemoryOffsetStore
from emulator.testing.pgserver import PgServer

DATA = Path(__file__).parent / "data" / "pg" / "restart_sequence"
PRE = "CREATE TABLE public.r (id int PRIMARY KEY, v text);\nINSERT INTO public.r VALUES (1, 'a');"
FIRST = [
    "UPDATE public.r SET v = 'b' WHERE id = 1;",
    "INSERT INTO public.r VALUES (2, 'x');",
    "UPDATE public.r SET v = 'b2' WHERE id = 1;",
]
SECOND = ["UPDATE public.r SET v = 'c' WHERE id = 1;", "UPDATE public.r SET v = 'y' WHERE id = 2;"]


def shapes(recs: list[dict]) -> list[tuple[str, str]]:
    """Per streamed change of public.r, in order: (its value, "null" | "previous END" | the pair)."""
    marks = []  # (BEGIN|END, "txid:lsn") in the transaction topic's order
    for r in recs:
        p = (r.get("value") or {}).get("payload") or {}
        if r["topic"].endswith(".transaction"):
            marks.append((p["status"], p["id"]))
    out = []
    for r in recs:
        p = (r.get("value") or {}).get("payload") or {}
        if not r["topic"].endswith(".public.r") or p.get("op") == "r":
            continue
        seq = json.loads(p["source"]["sequence"])
        tx = str(p["source"]["txId"])
        at = next(i for i, (k, i_) in enumerate(marks) if k == "BEGIN" and i_.split(":")[0] == tx)
        ends = [i_.split(":")[1] for k, i_ in marks[:at] if k == "END"]
        if seq[0] is None:
            what = "null"
        elif ends and seq[0] == ends[-1]:
            what = "previous END"
        else:
            what = repr(seq)
        out.append((p["after"]["v"], what))
    return out


def _golden(name: str) -> list[dict]:
    return [json.loads(x) for x in (DATA / name).read_text().splitlines() if x.strip()]


@pytest.mark.parametrize("at_snapshot", [False, True], ids=["mid_stream", "at_snapshot"])
def test_first_change_after_a_restart_carries_the_last_commit(tmp_path, at_snapshot):
    golden = _golden("debezium_at_snapshot.jsonl" if at_snapshot else "debezium.jsonl")
    first, second = ([], FIRST + SECOND) if at_snapshot else (FIRST, SECOND)
    with PgServer() as pg:
        pg.psql(PRE)
        props = pg.connector_properties(
            **{"provide.transaction.metadata": "true", "offset.flush.interval.ms": "200"}
        )
        emu = EmulatorProcess(props, tmp_path)
        n = lambda rs: sum(1 for r in rs if r["topic"].endswith(".public.r"))  # noqa: E731
        try:
            emu.start().wait_for(lambda rs: n(rs) >= 1, 120, "snapshot")
            for i, sql in enumerate(first):
                pg.psql(sql)
                emu.wait_for(lambda rs, k=i: n(rs) >= k + 2, 120, sql)
            time.sleep(1.0)
            assert emu.stop() == 0
            emu.start()
            for i, sql in enumerate(second):
                pg.psql(sql)
                emu.wait_for(lambda rs, k=i: n(rs) >= len(first) + k + 2, 120, sql)
            emu.wait_quiet(1.0)
            assert emu.stop() == 0
        finally:
            emu.kill()
    want = shapes(golden)
    assert [v for v, _ in want] == ["b", "x", "b2", "c", "y"]  # the golden is this workload
    assert shapes(emu.records()) == want


# -- a stop INSIDE a transaction (tests/data/pg/restart_sequence/record_inside_tx.py, Debezium 3.6.3) ------------
BIG = "BEGIN; INSERT INTO public.r SELECT g, 'x' FROM generate_series(10, 409) g; COMMIT;"


def inside_shapes(recs: list[dict]) -> list[tuple[int, str]]:
    """(run, what `sequence`'s first element is) per streamed change, runs of equal pairs collapsed: null,
    "previous END" (the END of the transaction before it), or "stop LSN" (the LSN of the last change the
    first run emitted: Debezium's stored `lsn_proc`). `recs` are summary lines: run, topic, id, lsn,
    sequence; the transaction topic's status and id."""
    stop = [r["lsn"] for r in recs if r["run"] == 1 and r["topic"] == "r" and r["id"] >= 1][-1]
    ends: list[str] = []
    out: list[tuple[int, str]] = []
    for r in recs:
        if r["topic"] == "transaction":
            if r["status"] == "END":
                ends.append(r["id"].split(":")[1])
            continue
        if r["id"] < 1:  # the snapshot's row
            continue
        first = json.loads(r["sequence"])[0]
        if first is None:
            what = "null"
        elif ends and first == ends[-1]:
            what = "previous END"
        elif first == str(stop):
            what = "stop LSN"
        else:
            what = repr(r["sequence"])
        if not out or out[-1] != (r["run"], what):
            out.append((r["run"], what))
    return out


def _summary(rec: dict, run: int) -> dict:
    p = (rec.get("value") or {}).get("payload") or {}
    if rec["topic"].endswith(".transaction"):
        return {"run": run, "topic": "transaction", "status": p["status"], "id": p["id"]}
    src = p["source"]
    return {
        "run": run,
        "topic": rec["topic"].rsplit(".", 1)[-1],
        "id": (p.get("after") or p.get("before"))["id"],
        "lsn": src["lsn"],
        "sequence": src["sequence"],
    }


@pytest.mark.parametrize("mode", ["first", "later"])
def test_a_stop_inside_a_transaction_resumes_its_sequence(mode):
    """Stopped after 120 changes of a 400-change transaction and started again: Debezium's rest of it carries
    [its stored `lsn_commit`, lsn], and inside the first transaction after the snapshot (no commit seen yet:
    no `lsn_commit` stored) [its stored `lsn_proc`, lsn] — the LSN of the last change before the stop. The
    emulator gave its own position there (the snapshot's LSN, or wherever keepalives had moved it)."""
    golden = [json.loads(x) for x in (DATA / f"inside_{mode}_tx.jsonl").read_text().splitlines()][:-1]
    with PgServer() as pg:
        pg.psql(PRE.replace("(1, 'a')", "(0, 'a')"))
        props = pg.connector_properties(
            **{"provide.transaction.metadata": "true", "offset.flush.interval.ms": "60000"}
        )
        store = MemoryOffsetStore()
        cap = Capture(props, offsets=store).start()
        try:
            cap.wait_for("dbserver1.public.r", lambda r: True, 60)
            if mode == "later":
                pg.psql("INSERT INTO public.r VALUES (1, 'l');")
                cap.wait_for("dbserver1.public.r", lambda r: r["value"]["payload"]["after"]["id"] == 1, 60)
                time.sleep(3.0)  # keepalives move the server's position past the commit
            stop_after_records(cap, 120)
            pg.psql(BIG)
            cap.thread.join(60)
            assert not cap.thread.is_alive(), "the hook never stopped the capture"
        finally:
            cap.stop()
        cap.changes()
        again = Capture(props, offsets=store).start()
        try:
            pg.psql("INSERT INTO public.r VALUES (5000, 'after');")
            again.wait_for(
                "dbserver1.public.r", lambda r: (r["value"]["payload"]["after"] or {}).get("id") == 5000, 60
            )
            again.wait_for("dbserver1.transaction", lambda r: r["value"]["payload"]["event_count"] == 1, 30)
        finally:
            again.stop()
        again.changes()
    ours = [_summary(d, 1) for d in cap.seen] + [_summary(d, 2) for d in again.seen]
    want = inside_shapes(golden)
    assert want == (
        [(1, "null"), (2, "stop LSN"), (2, "previous END")]
        if mode == "first"
        else [(1, "null"), (1, "previous END"), (2, "previous END")]
    )  # the golden is this workload
    assert inside_shapes(ours) == want
