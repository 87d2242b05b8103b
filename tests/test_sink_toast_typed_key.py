"""TOAST values filled from the table under a key whose JSON is not the table's value (sink campaign session 20,
found by hand): a `numeric` key as Debezium's base64 Decimal (`decimal.handling.mode=precise`) failed the batch
for good (`ArrowTypeError`: the key's text compared with a decimal column), a `timestamp(3)` key as a number
(Timestamp / MicroTimestamp) matched no row and the placeholder stayed. Real PostgreSQL under the emulator, the
row written in one batch and updated without touching its TOAST column in the next: the mirror holds what the
database holds."""

from __future__ import annotations

import json

import pytest
from emulator_proc import EmulatorProcess

pytest.importorskip("deltalake", reason="deltalake not installed (pip install -e '.[sink]')")
pytest.importorskip("pyspark", reason="pyspark not installed (pip install -e '.[sink]')")

from emulator.testing.pgserver import PgServer  # noqa: E402
from sink.apply import apply_batch  # noqa: E402
from sink.read import read_arrow  # noqa: E402

TOPIC = "tk.public.t"


@pytest.mark.parametrize(
    "decimal_mode,time_mode",
    [("precise", "adaptive"), ("precise", "connect"), ("double", "adaptive_time_microseconds")],
)
def test_placeholder_under_a_typed_key_takes_the_tables_value(tmp_path, decimal_mode, time_mode):
    with PgServer() as pg:
        pg.psql(
            "CREATE TABLE public.t (id numeric(12,3), ts timestamp(3), rev int, big text, PRIMARY KEY (id, ts));\n"
            "INSERT INTO public.t VALUES (1.5, '2024-01-15 10:00:00.125', 0,"
            " (SELECT string_agg(md5(i::text), '') FROM generate_series(1, 1000) i));"
        )
        props = pg.connector_properties(
            **{
                "topic.prefix": "tk",
                "table.include.list": "public.t",
                "decimal.handling.mode": decimal_mode,
                "time.precision.mode": time_mode,
            }
        )
        emu = EmulatorProcess(props, tmp_path).start()
        n = lambda rs: sum(1 for r in rs if r["topic"] == TOPIC)  # noqa: E731
        try:
            emu.wait_for(lambda rs: n(rs) >= 1, 120, "snapshot")
            pg.psql("UPDATE public.t SET rev = 1;")
            emu.wait_for(lambda rs: n(rs) >= 2, 120, "stream")
            emu.stop()
        finally:
            emu.kill()
        with pg.connect() as c:
            want = c.execute("SELECT rev, big FROM public.t").fetchall()
    recs = [r for r in emu.records() if r["topic"] == TOPIC]
    assert (
        recs[1]["value"]["payload"]["after"]["big"] == "__debezium_unavailable_value"
    )  # a TOAST placeholder
    rows = [(TOPIC, r["key"], r["value"], ("f", i), r.get("headers")) for i, r in enumerate(recs)]
    apply_batch(str(tmp_path / "m"), rows[:1], "app", 0)
    apply_batch(str(tmp_path / "m"), rows[1:], "app", 1)
    got = [(r["rev"], r["big"]) for r in read_arrow(str(tmp_path / "m" / TOPIC)).to_pylist()]
    assert got == [tuple(w) for w in want] and len(want[0][1]) == 32000, json.dumps(got)[:300]
