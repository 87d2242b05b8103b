"""Sink regressions found by the sink campaign's second set of types (session 18, docs/sink.md "Sink campaign"),
each on real Debezium 3.6.3 records, through the executors' expressions and the driver's decoder."""

from __future__ import annotations

import datetime as dt
import json
import os
import shutil
import sys
from pathlib import Path

import pytest

pytest.importorskip("pyspark", reason="pyspark not installed (pip install -e '.[sink]')")
pytest.importorskip("deltalake", reason="deltalake not installed (pip install -e '.[sink]')")
if shutil.which("java") is None and not os.environ.get("JAVA_HOME"):
    print("test_sink_types_more: skipped, no Java runtime", file=sys.stderr)
    pytest.skip("no Java runtime for PySpark", allow_module_level=True)

from sink_checks import spark_fixture  # noqa: E402, F401

from sink.apply import apply_batch  # noqa: E402
from sink.read import read_arrow  # noqa: E402

CASES = Path(__file__).parent / "data" / "pg" / "cases"


def _both_paths(tmp_path: Path, spark, case: str, topic: str) -> dict[str, dict[int, dict]]:
    """The case's records of `topic` written by the executors (`sink.job.run`) and by the driver
    (`apply_batch`): per path, the table's rows by id."""
    from sink.job import run

    lines = [json.loads(x) for x in (CASES / case / "golden.jsonl").read_text().splitlines() if x.strip()]
    recs = [r for r in lines if r["topic"] == topic]
    src = tmp_path / "in"
    src.mkdir()
    with open(src / f"{topic}.jsonl", "w") as f:
        f.writelines(json.dumps({"key": r["key"], "value": r["value"]}) + "\n" for r in recs)
    rc = run(
        str(src), str(tmp_path / "exec"), str(tmp_path / "ck"), True, spark=spark, log=lambda *a, **k: None
    )
    assert rc == 0
    apply_batch(
        str(tmp_path / "drv"), [(topic, r["key"], r["value"], ("f", i)) for i, r in enumerate(recs)], "app", 0
    )
    return {
        where: {r["id"]: r for r in read_arrow(str(tmp_path / where / topic)).to_pylist()}
        for where in ("exec", "drv")
    }


def test_nanosecond_timestamp_infinity_is_the_end_of_the_range(tmp_path, spark):
    """Sink campaign (pg seed 7): under time.precision.mode=nanoseconds Debezium writes timestamp 'infinity' /
    '-infinity' as Long.MAX / Long.MIN nanoseconds. The executors' floor division subtracted pmod(Long.MIN,
    1000) from Long.MIN: an ANSI overflow failed the batch (every later run too); the driver's decoder made
    'infinity' 2262-04-11 23:47:16.854775, the same as the real value of row 4. Long.MAX/MIN nanoseconds are
    not whole microseconds, so no PostgreSQL timestamp gives them: they are +-infinity, the ends of Spark's
    range as in the other modes (README). Case time_nanoseconds: rows 3 and 13 hold ts = tsn = 'infinity',
    ts0 = '-infinity'; rows 4 and 14 ts = '2262-04-11 23:47:16.854775'; row 12 ts0 = '0001-01-01' (outside
    int64 nanoseconds: null in Debezium's records)."""
    for where, rows in _both_paths(tmp_path, spark, "time_nanoseconds", "dbserver1.public.tt").items():
        for i in (3, 13):
            assert (rows[i]["ts"], rows[i]["ts0"], rows[i]["tsn"]) == (
                dt.datetime.max,
                dt.datetime.min,
                dt.datetime.max,
            ), (where, i)
        for i in (4, 14):
            assert rows[i]["ts"] == dt.datetime(2262, 4, 11, 23, 47, 16, 854775), (where, i)
        assert rows[12]["ts0"] is None and rows[11]["ts"] == dt.datetime(2024, 2, 29, 13, 45, 30, 123456), (
            where
        )


def test_first_transaction_after_a_connector_restart_is_newer(tmp_path, spark):
    """Sink campaign (pg seed 9, Kafka input: the emulator stopped and started between a stream's halves): the
    first transaction after a connector restart carried `sequence` [null, lsn], which the sink ordered as
    [0, lsn], before every earlier streamed change: the row kept its value from before the restart. The sink
    orders a null lastCommitLsn by the change's own LSN since; real Debezium restores lastCommitLsn from its
    offset, [last commit, lsn] (tests/test_pg_restart_sequence.py, session 19), which the emulator now does
    too: the rows across the restart still equal the source's."""
    from emulator_proc import EmulatorProcess

    from emulator.testing.pgserver import PgServer
    from sink.job import run

    with PgServer() as pg:
        pg.psql("CREATE TABLE public.r (id int PRIMARY KEY, v text);\nINSERT INTO public.r VALUES (1, 'a');")
        props = pg.connector_properties(**{"topic.prefix": "rs", "table.include.list": "public.r"})
        emu = EmulatorProcess(props, tmp_path).start()
        n = lambda rs: sum(1 for r in rs if r["topic"] == "rs.public.r")  # noqa: E731
        try:
            emu.wait_for(lambda rs: n(rs) >= 1, 120, "snapshot")
            pg.psql(
                "UPDATE public.r SET v = 'b' WHERE id = 1;\nINSERT INTO public.r VALUES (2, 'x');\n"
                "UPDATE public.r SET v = 'b2' WHERE id = 1;"  # after a commit: [lastCommitLsn, lsn]
            )
            emu.wait_for(lambda rs: n(rs) >= 4, 120, "stream")
            emu.stop()
            emu.start()
            pg.psql("UPDATE public.r SET v = 'c' WHERE id = 1;\nUPDATE public.r SET v = 'y' WHERE id = 2;")
            emu.wait_for(lambda rs: n(rs) >= 6, 120, "stream after the restart")
            emu.stop()
        finally:
            emu.kill()
        with pg.connect() as c:
            want = dict(c.execute("SELECT id, v FROM public.r").fetchall())
    recs = [r for r in emu.records() if r["topic"] == "rs.public.r"]
    seqs = [json.loads(r["value"]["payload"]["source"]["sequence"]) for r in recs]
    # b2, then c after the restart: Debezium's lastCommitLsn restored from the offset, past b2's position
    assert seqs[3][0] is not None and int(seqs[4][0]) > int(seqs[3][1])
    src = tmp_path / "in"
    src.mkdir()
    with open(src / "rs.public.r.jsonl", "w") as f:
        f.writelines(json.dumps({"key": r["key"], "value": r["value"]}) + "\n" for r in recs)
    rc = run(
        str(src), str(tmp_path / "exec"), str(tmp_path / "ck"), True, spark=spark, log=lambda *a, **k: None
    )
    assert rc == 0
    apply_batch(
        str(tmp_path / "drv"),
        [("rs.public.r", r["key"], r["value"], ("f", i)) for i, r in enumerate(recs)],
        "app",
        0,
    )
    assert want == {1: "c", 2: "y"}
    for where in ("exec", "drv"):
        got = {r["id"]: r["v"] for r in read_arrow(str(tmp_path / where / "rs.public.r")).to_pylist()}
        assert got == want, where
