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
