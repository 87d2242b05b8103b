"""A key change whose old key's images in the batch are all TOAST placeholders (sink campaign pg seed 15,
Kafka input): the row was inserted in an earlier batch, updated twice without touching its TOAST column,
then its key changed. The new key's create took the old key's last image in the batch as its previous one,
whose value was itself a placeholder still to be read from the table, and the mirror wrote null. Real
PostgreSQL under the emulator (directory output, with the `__debezium.oldkey` header), the driver path in
two batches: the new key's row holds the TOAST value."""

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


def test_key_change_after_placeholder_updates_keeps_the_toast_value(tmp_path):
    with PgServer() as pg:
        pg.psql(
            "CREATE TABLE public.t (id int PRIMARY KEY, rev int, big text);\n"
            "INSERT INTO public.t VALUES (1, 0, (SELECT string_agg(md5(i::text), '') FROM generate_series(1, 1000) i));"
        )
        props = pg.connector_properties(**{"topic.prefix": "tk", "table.include.list": "public.t"})
        emu = EmulatorProcess(props, tmp_path).start()
        n = lambda rs: sum(1 for r in rs if r["topic"] == TOPIC)  # noqa: E731
        try:
            emu.wait_for(lambda rs: n(rs) >= 1, 120, "snapshot")
            pg.psql(
                "UPDATE public.t SET rev = 1 WHERE id = 1;\nUPDATE public.t SET rev = 2 WHERE id = 1;\n"
                "UPDATE public.t SET id = 2, rev = 3 WHERE id = 1;"
            )
            emu.wait_for(lambda rs: n(rs) >= 6, 120, "stream")  # 2 updates, delete, tombstone, create
            emu.stop()
        finally:
            emu.kill()
        with pg.connect() as c:
            want = c.execute("SELECT id, rev, big FROM public.t").fetchall()
    recs = [r for r in emu.records() if r["topic"] == TOPIC]
    rows = [(TOPIC, r["key"], r["value"], ("f", i), r.get("headers")) for i, r in enumerate(recs)]
    assert any(h[0] == "__debezium.oldkey" for r in rows for h in r[4] or [])
    apply_batch(str(tmp_path / "m"), rows[:1], "app", 0)
    apply_batch(str(tmp_path / "m"), rows[1:], "app", 1)
    got = [(r["id"], r["rev"], r["big"]) for r in read_arrow(str(tmp_path / "m" / TOPIC)).to_pylist()]
    assert got == want and len(want[0][2]) == 32000, json.dumps(got)[:300]


def test_update_after_a_key_change_keeps_the_toast_value(tmp_path):
    """Sink campaign pg seed 25 (Kafka input): the row inserted in an earlier batch, then in one batch its key
    changed and the new key updated without touching the TOAST column. The update is the new key's last event
    and carries no `__debezium.oldkey`: the table was searched under the new key only and the mirror kept the
    placeholder."""
    with PgServer() as pg:
        pg.psql(
            "CREATE TABLE public.t (id int PRIMARY KEY, rev int, big text);\n"
            "INSERT INTO public.t VALUES (1, 0, (SELECT string_agg(md5(i::text), '') FROM generate_series(1, 1000) i));"
        )
        props = pg.connector_properties(**{"topic.prefix": "tk", "table.include.list": "public.t"})
        emu = EmulatorProcess(props, tmp_path).start()
        n = lambda rs: sum(1 for r in rs if r["topic"] == TOPIC)  # noqa: E731
        try:
            emu.wait_for(lambda rs: n(rs) >= 1, 120, "snapshot")
            pg.psql(
                "UPDATE public.t SET id = 2, rev = 1 WHERE id = 1;\nUPDATE public.t SET rev = 2 WHERE id = 2;"
            )
            emu.wait_for(lambda rs: n(rs) >= 5, 120, "stream")  # delete, tombstone, create, update
            emu.stop()
        finally:
            emu.kill()
        with pg.connect() as c:
            want = c.execute("SELECT id, rev, big FROM public.t").fetchall()
    recs = [r for r in emu.records() if r["topic"] == TOPIC]
    rows = [(TOPIC, r["key"], r["value"], ("f", i), r.get("headers")) for i, r in enumerate(recs)]
    apply_batch(str(tmp_path / "m"), rows[:1], "app", 0)
    apply_batch(str(tmp_path / "m"), rows[1:], "app", 1)
    got = [(r["id"], r["rev"], r["big"]) for r in read_arrow(str(tmp_path / "m" / TOPIC)).to_pylist()]
    assert got == want and len(want[0][2]) == 32000, json.dumps(got)[:300]
