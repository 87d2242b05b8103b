"""Documented Debezium 3.6.3 PostgreSQL connector behaviour, end to end on a throwaway server.

Every expectation comes from the requirements digest (/work/shared/spec/spec-postgres-mongodb.md, §1 and
§2) or from the observations on real Debezium (/work/shared/golden/pg/FINDINGS.md), never from the
emulator's own output. One PostgreSQL server serves the whole module; each test works in its own schema,
with its own slot, publication and topic prefix, so the tests cannot see each other's changes.

Most tests use the in-process `Capture` API (fast); the CLI is used where the process is the point.
Absence of an event is checked with a *barrier*: after the change that must produce nothing, a row goes
into the test's `barrier` table and we wait for its event. Records arrive in WAL order, so anything the
earlier change produced would already have been seen.
"""

from __future__ import annotations

import base64
import contextlib
import itertools
import json
import os
import re
import signal
import subprocess
import sys
import threading
import time
from datetime import UTC, date, datetime
from pathlib import Path
from typing import Any

import pytest
from emulator_proc import EmulatorProcess, write_properties

from emulator.api import Capture
from emulator.testing.pgserver import PgServer

PLACEHOLDER = "__debezium_unavailable_value"


# -- fixtures and helpers ------------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def pg():
    with PgServer() as server:
        server.psql("CREATE EXTENSION hstore;")
        yield server


_tokens = itertools.count(1)


class Case:
    """One test's private corner of the server: schema `name` (with a `barrier` table), slot
    `name`, publication `name_pub`, topic prefix `name`."""

    def __init__(self, pg: PgServer, name: str) -> None:
        self.pg = pg
        self.name = self.schema = self.prefix = self.slot = name
        self.publication = f"{name}_pub"
        self.caps: list[Capture] = []
        self.sql(f"CREATE SCHEMA {name}; CREATE TABLE {name}.barrier (id int PRIMARY KEY);")

    def sql(self, text: str) -> None:
        self.pg.psql(text)

    def props(self, extra: dict[str, str | None] | None = None) -> dict[str, str]:
        """Base properties plus `extra` (a None value removes the property)."""
        props = self.pg.connector_properties(
            **{
                "topic.prefix": self.prefix,
                "slot.name": self.slot,
                "publication.name": self.publication,
                "schema.include.list": self.schema,
                "offset.flush.interval.ms": "200",
            }
        )
        for k, v in (extra or {}).items():
            if v is None:
                props.pop(k, None)
            else:
                props[k] = v
        return props

    def start(self, extra: dict[str, str | None] | None = None) -> Capture:
        """A running capture whose slot exists, so every later commit is captured."""
        cap = Capture(self.props(extra)).start()
        self.caps.append(cap)
        deadline = time.monotonic() + 30
        while not self.slot_exists():
            if cap.error is not None:
                raise AssertionError(f"capture failed at start: {cap.error!r}")
            if time.monotonic() > deadline:
                raise AssertionError(f"slot {self.slot} never appeared")
            time.sleep(0.05)
        return cap

    def slot_exists(self) -> bool:
        with self.pg.connect() as c:
            return (
                c.execute("SELECT 1 FROM pg_replication_slots WHERE slot_name = %s", (self.slot,)).fetchone()
                is not None
            )

    def topic(self, table: str) -> str:
        return f"{self.prefix}.{self.schema}.{table}"

    def barrier(self, cap: Capture, timeout: float = 20) -> None:
        token = next(_tokens)
        self.sql(f"INSERT INTO {self.schema}.barrier VALUES ({token});")
        cap.wait_for(self.topic("barrier"), lambda r: key(r) == {"id": token}, timeout)

    def close(self) -> None:
        for cap in self.caps:
            cap.stop()
        with self.pg.connect() as c:
            deadline = time.monotonic() + 15
            while time.monotonic() < deadline:
                row = c.execute(
                    "SELECT active FROM pg_replication_slots WHERE slot_name = %s", (self.slot,)
                ).fetchone()
                if row is None:
                    break
                if not row[0]:
                    c.execute("SELECT pg_drop_replication_slot(%s)", (self.slot,))
                    break
                time.sleep(0.1)


@pytest.fixture
def case(pg, request):
    name = re.sub(r"[^a-z0-9]+", "_", request.node.name.lower()).strip("_")
    name = re.sub(r"^test_", "", name)[:40].rstrip("_")
    c = Case(pg, name)
    yield c
    c.close()


def key(r: dict) -> Any:
    k = r.get("key")
    return k["payload"] if isinstance(k, dict) and "payload" in k else k


def payload(r: dict) -> dict | None:
    v = r.get("value")
    return v["payload"] if isinstance(v, dict) and "payload" in v else v


def op(r: dict) -> str | None:
    p = payload(r)
    return p.get("op") if isinstance(p, dict) else None


def header(r: dict, name: str) -> Any:
    for n, h in r.get("headers") or []:
        if n == name:
            return h["payload"] if isinstance(h, dict) and "payload" in h else h
    return None


def on(cap: Capture, topic: str) -> list[dict]:
    return [r for r in cap.seen if r["topic"] == topic]


def data_events(cap: Capture, topic: str) -> list[dict]:
    return [r for r in on(cap, topic) if r.get("value") is not None]


def field_schema(r: dict, part: str, name: str) -> dict | None:
    """The Connect schema of field `name` inside the value's `before`/`after` struct."""
    env = r["value"]["schema"]
    struct = next(f for f in env["fields"] if f["field"] == part)
    return next((f for f in struct["fields"] if f["field"] == name), None)


def is_op(kind: str, **after_match: Any):
    def pred(r: dict) -> bool:
        p = payload(r)
        if not isinstance(p, dict) or p.get("op") != kind:
            return False
        row = p.get("after") if kind != "d" else p.get("before")
        return all((row or {}).get(k) == v for k, v in after_match.items())

    return pred


# -- filters ---------------------------------------------------------------------------------------------------


def test_schema_include_list(case):
    other = f"{case.schema}_other"
    case.sql(f"""
        CREATE SCHEMA {other};
        CREATE TABLE {case.schema}.t (id int PRIMARY KEY, v text);
        CREATE TABLE {other}.t (id int PRIMARY KEY, v text);
        INSERT INTO {case.schema}.t VALUES (1, 'mine');
        INSERT INTO {other}.t VALUES (1, 'other');""")
    cap = case.start()  # schema.include.list = case.schema
    case.sql(f"INSERT INTO {other}.t VALUES (2, 'other'); INSERT INTO {case.schema}.t VALUES (2, 'mine');")
    cap.wait_for(case.topic("t"), is_op("c", id=2), 20)
    case.barrier(cap)
    assert {op(r) for r in on(cap, case.topic("t"))} == {"r", "c"}
    assert not [r for r in cap.seen if f".{other}." in r["topic"]]


def test_schema_exclude_list(case):
    other = f"{case.schema}_other"
    case.sql(f"""
        CREATE SCHEMA {other};
        CREATE TABLE {case.schema}.t (id int PRIMARY KEY);
        CREATE TABLE {other}.t (id int PRIMARY KEY);""")
    # include and exclude lists of one level are exclusive: drop the default schema.include.list
    cap = case.start({"schema.exclude.list": other, "schema.include.list": None})
    case.sql(f"INSERT INTO {other}.t VALUES (1); INSERT INTO {case.schema}.t VALUES (1);")
    cap.wait_for(case.topic("t"), is_op("c", id=1), 20)
    case.barrier(cap)
    assert not [r for r in cap.seen if f".{other}." in r["topic"]]


def test_table_include_list(case):
    s = case.schema
    case.sql(f"""
        CREATE TABLE {s}.t1 (id int PRIMARY KEY);
        CREATE TABLE {s}.t2 (id int PRIMARY KEY);
        INSERT INTO {s}.t1 VALUES (1); INSERT INTO {s}.t2 VALUES (1);""")
    cap = case.start({"table.include.list": rf"{s}\.t1,{s}\.barrier"})
    case.sql(f"INSERT INTO {s}.t2 VALUES (2); INSERT INTO {s}.t1 VALUES (2);")
    cap.wait_for(case.topic("t1"), is_op("c", id=2), 20)
    case.barrier(cap)
    assert [op(r) for r in on(cap, case.topic("t1"))] == ["r", "c"]
    assert on(cap, case.topic("t2")) == []


def test_table_exclude_list(case):
    s = case.schema
    case.sql(f"""
        CREATE TABLE {s}.t1 (id int PRIMARY KEY);
        CREATE TABLE {s}.t2 (id int PRIMARY KEY);
        INSERT INTO {s}.t1 VALUES (1); INSERT INTO {s}.t2 VALUES (1);""")
    cap = case.start({"table.exclude.list": rf"{s}\.t2"})
    case.sql(f"INSERT INTO {s}.t2 VALUES (2); INSERT INTO {s}.t1 VALUES (2);")
    cap.wait_for(case.topic("t1"), is_op("c", id=2), 20)
    case.barrier(cap)
    assert [op(r) for r in on(cap, case.topic("t1"))] == ["r", "c"]
    assert on(cap, case.topic("t2")) == []


def test_column_exclude_list(case):
    s = case.schema
    case.sql(f"""
        CREATE TABLE {s}.t (id int PRIMARY KEY, name text, secret text);
        ALTER TABLE {s}.t REPLICA IDENTITY FULL;
        INSERT INTO {s}.t VALUES (1, 'a', 's1');""")
    cap = case.start({"column.exclude.list": rf"{s}\.t\.secret"})
    case.sql(f"""INSERT INTO {s}.t VALUES (2, 'b', 's2');
                 UPDATE {s}.t SET name = 'bb', secret = 's3' WHERE id = 2;
                 DELETE FROM {s}.t WHERE id = 2;""")
    cap.wait_for(case.topic("t"), is_op("d", id=2), 20)
    events = data_events(cap, case.topic("t"))
    assert [op(r) for r in events] == ["r", "c", "u", "d"]
    for r in events:
        for part in ("before", "after"):
            assert field_schema(r, part, "secret") is None, part
            assert field_schema(r, part, "name") is not None
            row = payload(r)[part]
            if row is not None:
                assert "secret" not in row and "name" in row
        assert key(r) == {"id": 1 if op(r) == "r" else 2}
    assert payload(events[2])["before"] == {"id": 2, "name": "b"}
    assert payload(events[2])["after"] == {"id": 2, "name": "bb"}


def test_column_include_list(case):
    s = case.schema
    case.sql(f"CREATE TABLE {s}.t (id int PRIMARY KEY, name text, secret text);")
    cap = case.start({"column.include.list": rf"{s}\.t\.id,{s}\.t\.name,{s}\.barrier\.id"})
    case.sql(f"INSERT INTO {s}.t VALUES (1, 'a', 's');")
    r = cap.wait_for(case.topic("t"), is_op("c", id=1), 20)
    assert payload(r)["after"] == {"id": 1, "name": "a"}
    assert field_schema(r, "after", "secret") is None and field_schema(r, "before", "secret") is None


def test_column_exclude_list_key_column_stays_in_key_only(case):
    s = case.schema
    case.sql(f"CREATE TABLE {s}.t (id int PRIMARY KEY, name text);")
    cap = case.start({"column.exclude.list": rf"{s}\.t\.id"})
    case.sql(f"INSERT INTO {s}.t VALUES (7, 'x');")
    r = cap.wait_for(case.topic("t"), lambda r: op(r) == "c", 20)
    assert key(r) == {"id": 7}
    assert [f["field"] for f in r["key"]["schema"]["fields"]] == ["id"]
    assert payload(r)["after"] == {"name": "x"}
    assert field_schema(r, "after", "id") is None


def test_message_key_columns(case):
    s = case.schema
    case.sql(f"""
        CREATE TABLE {s}.t (id int PRIMARY KEY, code text NOT NULL, v text);
        ALTER TABLE {s}.t REPLICA IDENTITY FULL;""")
    cap = case.start({"message.key.columns": rf"{s}\.t:code"})
    case.sql(f"""INSERT INTO {s}.t VALUES (1, 'A1', 'x');
                 UPDATE {s}.t SET v = 'y' WHERE id = 1;
                 DELETE FROM {s}.t WHERE id = 1;""")
    cap.wait_for(case.topic("t"), lambda r: r["value"] is None, 20)
    recs = on(cap, case.topic("t"))
    assert [op(r) for r in recs] == ["c", "u", "d", None]
    for r in recs:
        assert key(r) == {"code": "A1"}
        assert r["key"]["schema"]["name"] == f"{case.prefix}.{s}.t.Key"
        assert [f["field"] for f in r["key"]["schema"]["fields"]] == ["code"]


def test_message_key_columns_several_tables(case):
    s = case.schema
    case.sql(f"""
        CREATE TABLE {s}.a (id int PRIMARY KEY, k1 int, k2 text);
        CREATE TABLE {s}.b (id int PRIMARY KEY, code text);""")
    cap = case.start({"message.key.columns": rf"{s}\.a:k1,k2;(.*)\.b:code"})
    case.sql(f"INSERT INTO {s}.a VALUES (1, 10, 'x'); INSERT INTO {s}.b VALUES (1, 'B');")
    ra = cap.wait_for(case.topic("a"), is_op("c", id=1), 20)
    rb = cap.wait_for(case.topic("b"), is_op("c", id=1), 20)
    assert key(ra) == {"k1": 10, "k2": "x"} and key(rb) == {"code": "B"}


# -- replica identity, keys ------------------------------------------------------------------------------------


def test_replica_identity_default(case):
    s = case.schema
    case.sql(f"""CREATE TABLE {s}.t (id int PRIMARY KEY, name text NOT NULL, qty int NOT NULL,
                                     flag boolean NOT NULL, note text, dflt int NOT NULL DEFAULT 7);""")
    cap = case.start()
    case.sql(f"""INSERT INTO {s}.t VALUES (1, 'a', 5, true, 'n', 8);
                 UPDATE {s}.t SET name = 'b' WHERE id = 1;
                 DELETE FROM {s}.t WHERE id = 1;""")
    cap.wait_for(case.topic("t"), lambda r: r["value"] is None, 20)
    c, u, d, tomb = on(cap, case.topic("t"))
    assert op(u) == "u" and payload(u)["before"] is None  # FINDINGS: update, DEFAULT → before null
    assert payload(u)["after"] == {"id": 1, "name": "b", "qty": 5, "flag": True, "note": "n", "dflt": 8}
    # delete, DEFAULT: key columns real, NOT NULL columns the schema default or else the type's zero,
    # nullable ones null (spec §2.5, FINDINGS)
    assert op(d) == "d" and payload(d)["after"] is None
    assert payload(d)["before"] == {"id": 1, "name": "", "qty": 0, "flag": False, "note": None, "dflt": 7}
    assert key(d) == {"id": 1}
    assert key(tomb) == {"id": 1} and tomb["value"] is None


def test_replica_identity_full(case):
    s = case.schema
    case.sql(f"""CREATE TABLE {s}.t (id int PRIMARY KEY, name text NOT NULL, note text);
                 ALTER TABLE {s}.t REPLICA IDENTITY FULL;""")
    cap = case.start()
    case.sql(f"""INSERT INTO {s}.t VALUES (1, 'a', 'n');
                 UPDATE {s}.t SET name = 'b' WHERE id = 1;
                 DELETE FROM {s}.t WHERE id = 1;""")
    cap.wait_for(case.topic("t"), lambda r: r["value"] is None, 20)
    c, u, d, tomb = on(cap, case.topic("t"))
    assert payload(u)["before"] == {"id": 1, "name": "a", "note": "n"}
    assert payload(u)["after"] == {"id": 1, "name": "b", "note": "n"}
    assert payload(d)["before"] == {"id": 1, "name": "b", "note": "n"} and payload(d)["after"] is None
    assert tomb["value"] is None and key(tomb) == {"id": 1}


def test_replica_identity_nothing_and_keyless_default_only_creates(case):
    """Spec §2.5: with no usable replica identity (NOTHING, or DEFAULT without a PK) PostgreSQL itself
    refuses UPDATE/DELETE on a table published for updates/deletes, so only creates ever flow."""
    s = case.schema
    case.sql(f"""CREATE TABLE {s}.nothing (id int PRIMARY KEY, v text);
                 ALTER TABLE {s}.nothing REPLICA IDENTITY NOTHING;
                 CREATE TABLE {s}.keyless (a int, b text);""")
    cap = case.start()
    case.sql(f"INSERT INTO {s}.nothing VALUES (1, 'a'); INSERT INTO {s}.keyless VALUES (1, 'x');")
    for table in ("nothing", "keyless"):
        r = case.pg.psql(f"UPDATE {s}.{table} SET {'v' if table == 'nothing' else 'b'} = 'z';", check=False)
        assert r.returncode != 0 and "replica identity" in r.stderr
        r = case.pg.psql(f"DELETE FROM {s}.{table};", check=False)
        assert r.returncode != 0 and "replica identity" in r.stderr
    case.barrier(cap)
    nothing = on(cap, case.topic("nothing"))
    keyless = on(cap, case.topic("keyless"))
    assert [(op(r), key(r), payload(r)["after"]) for r in nothing] == [("c", {"id": 1}, {"id": 1, "v": "a"})]
    assert [(op(r), key(r), payload(r)["after"]) for r in keyless] == [("c", None, {"a": 1, "b": "x"})]


def test_table_without_primary_key(case):
    s = case.schema
    case.sql(f"""CREATE TABLE {s}.t (a int, b text);
                 ALTER TABLE {s}.t REPLICA IDENTITY FULL;
                 INSERT INTO {s}.t VALUES (0, 'snap');""")
    cap = case.start()
    case.sql(f"""INSERT INTO {s}.t VALUES (1, 'x');
                 UPDATE {s}.t SET b = 'y' WHERE a = 1;
                 DELETE FROM {s}.t WHERE a = 1;""")
    cap.wait_for(case.topic("t"), lambda r: r["value"] is None, 20)
    recs = on(cap, case.topic("t"))
    assert [op(r) for r in recs] == ["r", "c", "u", "d", None]
    assert all(r["key"] is None for r in recs)  # key null, tombstone key null too (FINDINGS)
    assert payload(recs[2])["before"] == {"a": 1, "b": "x"}
    assert payload(recs[3])["before"] == {"a": 1, "b": "y"}


@pytest.mark.parametrize("identity", ["DEFAULT"])  # FULL: tests/suite/test_stream.py
def test_primary_key_change(case, identity):
    s = case.schema
    case.sql(
        f"CREATE TABLE {s}.t (id int PRIMARY KEY, name text NOT NULL);"
        f"ALTER TABLE {s}.t REPLICA IDENTITY {identity};"
    )
    cap = case.start({"provide.transaction.metadata": "true"})
    case.sql(f"INSERT INTO {s}.t VALUES (1, 'a'); UPDATE {s}.t SET id = 2 WHERE id = 1;")
    cap.wait_for(case.topic("t"), is_op("c", id=2), 20)
    end = cap.wait_for(
        f"{case.prefix}.transaction",
        lambda r: (
            payload(r)["status"] == "END"
            and payload(r)["data_collections"] is not None
            and payload(r)["event_count"] == 2
        ),
        20,
    )
    c1, d, tomb, c2 = on(cap, case.topic("t"))
    assert (op(d), key(d), payload(d)["after"]) == ("d", {"id": 1}, None)
    assert payload(d)["before"] == (
        {"id": 1, "name": ""} if identity == "DEFAULT" else {"id": 1, "name": "a"}
    )
    assert header(d, "__debezium.newkey") == {"id": 2}
    assert (key(tomb), tomb["value"]) == ({"id": 1}, None)
    assert header(tomb, "__debezium.newkey") == {"id": 2}
    assert (op(c2), key(c2), payload(c2)["before"], payload(c2)["after"]) == (
        "c",
        {"id": 2},
        None,
        {"id": 2, "name": "a"},
    )
    assert header(c2, "__debezium.oldkey") == {"id": 1}
    assert header(c2, "__debezium.newkey") is None and header(d, "__debezium.oldkey") is None
    assert payload(d)["source"]["txId"] == payload(c2)["source"]["txId"]
    assert payload(end)["id"].split(":")[0] == str(payload(c2)["source"]["txId"])


# -- TOAST -------------------------------------------------------------------------------------------------------


def _toast_table(case) -> None:
    s = case.schema
    case.sql(f"""CREATE TABLE {s}.t (id int PRIMARY KEY, note text, big text, blob bytea);
                 ALTER TABLE {s}.t ALTER COLUMN big SET STORAGE EXTERNAL;
                 ALTER TABLE {s}.t ALTER COLUMN blob SET STORAGE EXTERNAL;""")


def _toast_update(case, cap) -> dict:
    s = case.schema
    case.sql(f"""INSERT INTO {s}.t VALUES (1, 'n1', repeat('x', 20000), decode(repeat('ab', 10000), 'hex'));
                 UPDATE {s}.t SET note = 'n2' WHERE id = 1;""")
    return cap.wait_for(case.topic("t"), lambda r: op(r) == "u", 20)


def test_toast_unchanged_placeholder(case):
    _toast_table(case)
    cap = case.start()
    u = _toast_update(case, cap)
    c = on(cap, case.topic("t"))[0]
    assert payload(c)["after"]["big"] == "x" * 20000
    assert payload(u)["before"] is None
    assert payload(u)["after"]["note"] == "n2"
    assert payload(u)["after"]["big"] == PLACEHOLDER
    assert payload(u)["after"]["blob"] == base64.b64encode(PLACEHOLDER.encode()).decode()
    assert payload(u)["after"]["blob"] == "X19kZWJleml1bV91bmF2YWlsYWJsZV92YWx1ZQ=="


def test_toast_placeholder_override(case):
    _toast_table(case)
    cap = case.start({"unavailable.value.placeholder": "<toast gone>"})
    u = _toast_update(case, cap)
    assert payload(u)["after"]["big"] == "<toast gone>"
    assert payload(u)["after"]["blob"] == base64.b64encode(b"<toast gone>").decode()


def test_toast_placeholder_per_column_type(case):
    """Spec §2.7 placeholder table: text-like/json → the string, text[] → [placeholder], int[] → the
    placeholder's bytes as ints, hstore (json mode) → JSON of {placeholder: placeholder}."""
    s = case.schema
    case.sql(f"""CREATE TABLE {s}.t (id int PRIMARY KEY, note text, js jsonb, tarr text[], iarr int[], hs hstore);
                 ALTER TABLE {s}.t ALTER COLUMN js SET STORAGE EXTERNAL;
                 ALTER TABLE {s}.t ALTER COLUMN tarr SET STORAGE EXTERNAL;
                 ALTER TABLE {s}.t ALTER COLUMN iarr SET STORAGE EXTERNAL;
                 ALTER TABLE {s}.t ALTER COLUMN hs SET STORAGE EXTERNAL;""")
    cap = case.start()
    case.sql(f"""INSERT INTO {s}.t VALUES (1, 'n1',
                     (SELECT jsonb_object_agg('k' || g, g) FROM generate_series(1, 2000) g),
                     (SELECT array_agg('v' || g) FROM generate_series(1, 3000) g),
                     (SELECT array_agg(g) FROM generate_series(1, 3000) g),
                     (SELECT hstore(array_agg('k' || g), array_agg('v' || g)) FROM generate_series(1, 2000) g));
                 UPDATE {s}.t SET note = 'n2' WHERE id = 1;""")
    u = cap.wait_for(case.topic("t"), lambda r: op(r) == "u", 20)
    after = payload(u)["after"]
    assert after["note"] == "n2"
    assert after["js"] == PLACEHOLDER
    assert after["tarr"] == [PLACEHOLDER]
    assert after["iarr"] == list(PLACEHOLDER.encode())
    assert json.loads(after["hs"]) == {PLACEHOLDER: PLACEHOLDER}


def test_toast_replica_identity_full_has_real_values(case):
    _toast_table(case)
    case.sql(f"ALTER TABLE {case.schema}.t REPLICA IDENTITY FULL;")
    cap = case.start()
    u = _toast_update(case, cap)
    for part in ("before", "after"):
        assert payload(u)[part]["big"] == "x" * 20000, part
        assert payload(u)[part]["blob"] == base64.b64encode(b"\xab" * 10000).decode(), part
    assert (payload(u)["before"]["note"], payload(u)["after"]["note"]) == ("n1", "n2")


# -- truncate --------------------------------------------------------------------------------------------------


def test_truncate_events(case):
    s = case.schema
    case.sql(f"""CREATE TABLE {s}.t1 (id int PRIMARY KEY); CREATE TABLE {s}.t2 (id int PRIMARY KEY);
                 INSERT INTO {s}.t1 VALUES (1); INSERT INTO {s}.t2 VALUES (1);""")
    cap = case.start({"skipped.operations": "none", "snapshot.mode": "no_data"})
    case.sql(f"TRUNCATE {s}.t1; TRUNCATE {s}.t1, {s}.t2;")
    cap.wait_for(case.topic("t2"), lambda r: op(r) == "t", 20)
    case.barrier(cap)
    t1, t2 = on(cap, case.topic("t1")), on(cap, case.topic("t2"))
    assert [op(r) for r in t1] == ["t", "t"] and [op(r) for r in t2] == ["t"]  # no tombstones
    for r, table in ((t1[0], "t1"), (t1[1], "t1"), (t2[0], "t2")):
        p = payload(r)
        assert r["key"] is None
        assert p["before"] is None and p["after"] is None
        assert (p["source"]["schema"], p["source"]["table"]) == (s, table)
    # one TRUNCATE of two tables: two events of the same transaction
    assert payload(t1[1])["source"]["txId"] == payload(t2[0])["source"]["txId"]
    assert payload(t1[0])["source"]["txId"] != payload(t1[1])["source"]["txId"]


# -- logical decoding messages -------------------------------------------------------------------------------------


def test_logical_messages(case):
    cap = case.start({"provide.transaction.metadata": "true"})
    case.sql("""BEGIN; SELECT pg_logical_emit_message(true, 'txp', 'transactional message'); COMMIT;
                SELECT pg_logical_emit_message(false, 'ntp', 'non-transactional message');""")
    topic = f"{case.prefix}.message"
    tx = cap.wait_for(topic, lambda r: key(r) == {"prefix": "txp"}, 20)
    ntx = cap.wait_for(topic, lambda r: key(r) == {"prefix": "ntp"}, 20)
    case.barrier(cap)
    for r, prefix, text in (
        (tx, "txp", b"transactional message"),
        (ntx, "ntp", b"non-transactional message"),
    ):
        p = payload(r)
        assert p["op"] == "m"
        assert p["message"] == {"prefix": prefix, "content": base64.b64encode(text).decode()}
        assert (p["source"]["schema"], p["source"]["table"]) == ("", "")
        assert "ts_us" not in p and "ts_ns" not in p
        assert r["key"]["schema"]["name"] == "io.debezium.connector.postgresql.MessageKey"
        assert r["value"]["schema"]["name"] == "io.debezium.connector.postgresql.MessageValue"
    assert isinstance(payload(tx)["source"]["txId"], int) and payload(tx)["transaction"] is not None
    assert payload(ntx)["source"]["txId"] is None and payload(ntx)["transaction"] is None
    # the transactional message's tx has BEGIN/END; the non-transactional message none; the barrier one
    _barrier_end(case, cap)
    statuses = [payload(r)["status"] for r in on(cap, f"{case.prefix}.transaction")]
    assert statuses == ["BEGIN", "END", "BEGIN", "END"]
    first_end = on(cap, f"{case.prefix}.transaction")[1]
    assert payload(first_end)["event_count"] == 1
    assert payload(first_end)["id"].split(":")[0] == str(payload(tx)["source"]["txId"])
    # FINDINGS: a transactional message counts under a Java toString() of its collection id
    [coll] = payload(first_end)["data_collections"]
    assert coll["event_count"] == 1
    assert re.fullmatch(
        r"io\.debezium\.connector\.postgresql\.LogicalDecodingMessageMonitor\$LogicalDecodingMessageId@[0-9a-f]+",
        coll["data_collection"],
    ), coll


def _emit_messages(case, cap, prefixes: list[str]) -> list[str]:
    case.sql("".join(f"SELECT pg_logical_emit_message(false, '{p}', 'm');" for p in prefixes))
    case.barrier(cap)
    return [key(r)["prefix"] for r in on(cap, f"{case.prefix}.message")]


def test_message_prefix_include_list(case):
    cap = case.start({"message.prefix.include.list": r"keep\..*"})
    assert _emit_messages(case, cap, ["keep.a", "drop.b", "keep.c", "xkeep.d"]) == ["keep.a", "keep.c"]


def test_message_prefix_exclude_list(case):
    cap = case.start({"message.prefix.exclude.list": r"drop\..*"})
    assert _emit_messages(case, cap, ["keep.a", "drop.b", "keep.c", "xdrop.d"]) == [
        "keep.a",
        "keep.c",
        "xdrop.d",
    ]


def test_message_content_binary_handling_hex(case):
    cap = case.start({"binary.handling.mode": "hex"})
    case.sql(
        "SELECT pg_logical_emit_message(false, 'hx', 'bar');"
        "SELECT pg_logical_emit_message(false, 'hx2', '\\xdeadbeef'::bytea);"
    )
    r = cap.wait_for(f"{case.prefix}.message", lambda r: key(r) == {"prefix": "hx"}, 20)
    r2 = cap.wait_for(f"{case.prefix}.message", lambda r: key(r) == {"prefix": "hx2"}, 20)
    assert payload(r)["message"]["content"].lower() == "626172"
    assert payload(r2)["message"]["content"].lower() == "deadbeef"


def _barrier_end(case, cap) -> dict:
    return cap.wait_for(
        f"{case.prefix}.transaction",
        lambda r: (
            payload(r)["status"] == "END"
            and any(c["data_collection"] == f"{case.schema}.barrier" for c in payload(r)["data_collections"])
        ),
        20,
    )


# -- transaction metadata ------------------------------------------------------------------------------------------


def test_transaction_metadata(case):
    s = case.schema
    case.sql(f"CREATE TABLE {s}.t1 (id int PRIMARY KEY); CREATE TABLE {s}.t2 (id int PRIMARY KEY);")
    cap = case.start({"provide.transaction.metadata": "true"})
    case.sql(f"""BEGIN; INSERT INTO {s}.t1 VALUES (1); INSERT INTO {s}.t2 VALUES (1);
                 INSERT INTO {s}.t1 VALUES (2); COMMIT;""")
    tt = f"{case.prefix}.transaction"
    end = cap.wait_for(tt, lambda r: payload(r)["status"] == "END", 20)
    begin = on(cap, tt)[0]
    events = [r for r in cap.seen if r["topic"] in (case.topic("t1"), case.topic("t2"))]
    assert [(r["topic"][-2:], key(r)["id"]) for r in events] == [("t1", 1), ("t2", 1), ("t1", 2)]
    xid = payload(events[0])["source"]["txId"]
    b, e = payload(begin), payload(end)
    assert b["status"] == "BEGIN" and b["event_count"] is None and b["data_collections"] is None
    assert re.fullmatch(rf"{xid}:\d+", b["id"]) and re.fullmatch(rf"{xid}:\d+", e["id"])
    assert key(begin) == {"id": b["id"]} and key(end) == {"id": e["id"]}
    assert e["event_count"] == 3
    assert sorted((c["data_collection"], c["event_count"]) for c in e["data_collections"]) == [
        (f"{s}.t1", 2),
        (f"{s}.t2", 1),
    ]
    commit_ms = payload(events[0])["source"]["ts_ms"]
    assert b["ts_ms"] == e["ts_ms"] == commit_ms
    assert begin["key"]["schema"]["name"] == "io.debezium.connector.common.TransactionMetadataKey"
    assert begin["value"]["schema"]["name"] == "io.debezium.connector.common.TransactionMetadataValue"
    blocks = [payload(r)["transaction"] for r in events]
    assert [(x["total_order"], x["data_collection_order"]) for x in blocks] == [(1, 1), (2, 1), (3, 2)]
    for r, blk in zip(events, blocks):
        src = payload(r)["source"]
        assert blk["id"] == f"{src['txId']}:{src['lsn']}"  # FINDINGS: the LSN part is the event's own
    # BEGIN carries the BEGIN message's LSN, END the COMMIT's: before / after every event
    lsns = [payload(r)["source"]["lsn"] for r in events]
    assert (
        int(b["id"].split(":")[1]) <= lsns[0]
        and lsns == sorted(lsns)
        and int(e["id"].split(":")[1]) > lsns[-1]
    )


def _statuses(cap, case) -> list[tuple]:
    return [
        (payload(r)["status"], payload(r)["event_count"], payload(r)["data_collections"])
        for r in on(cap, f"{case.prefix}.transaction")
    ]


BARRIER_TX = [("BEGIN", None, None), ("END", 1, "barrier")]


def _barrier_shaped(statuses: list[tuple], case) -> list[tuple]:
    return [
        (
            st,
            n,
            "barrier" if dcs and [c["data_collection"] for c in dcs] == [f"{case.schema}.barrier"] else dcs,
        )
        for st, n, dcs in statuses
    ]


def test_transaction_metadata_excluded_table_only(case):
    """A transaction whose changes all go to an excluded table (published, FOR ALL TABLES) still gets
    BEGIN and an END with event_count 0: real Debezium 3.6.3 does so (tests/data/pg/cases/filters_shaping,
    `INSERT INTO public.t_c` → BEGIN, END {event_count: 0, data_collections: []})."""
    s = case.schema
    case.sql(f"CREATE TABLE {s}.t (id int PRIMARY KEY); CREATE TABLE {s}.hidden (id int PRIMARY KEY);")
    cap = case.start({"provide.transaction.metadata": "true", "table.exclude.list": rf"{s}\.hidden"})
    case.sql(f"BEGIN; INSERT INTO {s}.hidden VALUES (1); INSERT INTO {s}.hidden VALUES (2); COMMIT;")
    case.barrier(cap)
    _barrier_end(case, cap)
    assert _barrier_shaped(_statuses(cap, case), case) == [("BEGIN", None, None), ("END", 0, []), *BARRIER_TX]
    assert on(cap, case.topic("hidden")) == []


def test_transaction_metadata_unpublished_table(case):
    """With a filtered publication the excluded table is not published: PostgreSQL sends nothing for a
    transaction touching only it (FINDINGS: transactions with no captured events emit nothing)."""
    s = case.schema
    case.sql(f"CREATE TABLE {s}.t (id int PRIMARY KEY); CREATE TABLE {s}.hidden (id int PRIMARY KEY);")
    cap = case.start(
        {
            "provide.transaction.metadata": "true",
            "publication.autocreate.mode": "filtered",
            "table.exclude.list": rf"{s}\.hidden",
        }
    )
    case.sql(f"BEGIN; INSERT INTO {s}.hidden VALUES (1); INSERT INTO {s}.hidden VALUES (2); COMMIT;")
    case.barrier(cap)
    _barrier_end(case, cap)
    assert _barrier_shaped(_statuses(cap, case), case) == BARRIER_TX


# -- heartbeats ----------------------------------------------------------------------------------------------------


def test_heartbeat_action_query(case):
    s = case.schema
    case.sql(f"CREATE TABLE {s}.hb (id serial PRIMARY KEY, note text);")
    cap = case.start(
        {
            "heartbeat.interval.ms": "500",
            "heartbeat.action.query": f"INSERT INTO {s}.hb (note) VALUES ('beat')",
        }
    )
    cap.wait_for(case.topic("hb"), is_op("c", note="beat"), 20)
    cap.wait_for(case.topic("hb"), is_op("c", id=2), 10)
    with case.pg.connect() as c:
        assert c.execute(f"SELECT count(*) FROM {s}.hb").fetchone()[0] >= 2


# -- handling modes --------------------------------------------------------------------------------------------------


def _streamed(case, cap, values: str) -> dict:
    case.sql(f"INSERT INTO {case.schema}.t VALUES (2, {values});")
    return cap.wait_for(case.topic("t"), is_op("c", id=2), 20)


def _mode_case(case, columns: str, values: str, props: dict[str, str]) -> list[dict]:
    """One row read by the snapshot, the same values inserted while streaming; both records."""
    s = case.schema
    case.sql(f"CREATE TABLE {s}.t (id int PRIMARY KEY, {columns}); INSERT INTO {s}.t VALUES (1, {values});")
    cap = case.start(props)
    snap = cap.wait_for(case.topic("t"), lambda r: op(r) == "r", 20)
    return [snap, _streamed(case, cap, values)]


def test_decimal_handling_string(case):
    for r in _mode_case(
        case,
        "fixed numeric(10,2), free numeric, nan numeric, cash money",
        "1234.56, 1.5, 'NaN', 12.34",
        {"decimal.handling.mode": "string"},
    ):
        for col in ("fixed", "free", "nan", "cash"):
            sch = field_schema(r, "after", col)
            assert sch["type"] == "string" and "name" not in sch, (col, sch)
        assert payload(r)["after"] == {
            "id": payload(r)["after"]["id"],
            "fixed": "1234.56",
            "free": "1.5",
            "nan": "NAN",
            "cash": "12.34",
        }


def test_decimal_handling_double(case):
    for r in _mode_case(
        case,
        "fixed numeric(10,2), free numeric, nan numeric, cash money",
        "1234.56, 1.5, 'NaN', 12.34",
        {"decimal.handling.mode": "double"},
    ):
        for col in ("fixed", "free", "nan", "cash"):
            sch = field_schema(r, "after", col)
            assert sch["type"] == "double" and "name" not in sch, (col, sch)
        after = payload(r)["after"]
        assert (after["fixed"], after["free"], after["nan"], after["cash"]) == (1234.56, 1.5, "NaN", 12.34)


def test_time_precision_mode_connect(case):
    ts = datetime(2024, 3, 1, 13, 45, 30, 123456, tzinfo=UTC)
    days = (date(2024, 3, 1) - date(1970, 1, 1)).days
    tod_ms = (13 * 3600 + 45 * 60 + 30) * 1000 + 123
    for r in _mode_case(
        case,
        "d date, t3 time(3), t6 time, ts6 timestamp, ts3 timestamp(3)",
        "'2024-03-01', '13:45:30.123', '13:45:30.123456', '2024-03-01 13:45:30.123456', "
        "'2024-03-01 13:45:30.123'",
        {"time.precision.mode": "connect"},
    ):
        want = {
            "d": ("int32", "org.apache.kafka.connect.data.Date"),
            "t3": ("int32", "org.apache.kafka.connect.data.Time"),
            "t6": ("int32", "org.apache.kafka.connect.data.Time"),
            "ts6": ("int64", "org.apache.kafka.connect.data.Timestamp"),
            "ts3": ("int64", "org.apache.kafka.connect.data.Timestamp"),
        }
        for col, (typ, name) in want.items():
            sch = field_schema(r, "after", col)
            assert (sch["type"], sch.get("name")) == (typ, name), (col, sch)
        after = payload(r)["after"]
        assert after["d"] == days
        assert after["t3"] == after["t6"] == tod_ms  # ms; precision beyond ms is lost
        assert after["ts6"] == after["ts3"] == int(ts.timestamp() * 1000) == 1709300730123


def test_interval_handling_string(case):
    for r in _mode_case(
        case, "iv interval", "'1 year 2 mons 3 days 04:05:06.78'", {"interval.handling.mode": "string"}
    ):
        sch = field_schema(r, "after", "iv")
        assert (sch["type"], sch.get("name")) == ("string", "io.debezium.time.Interval")
        assert payload(r)["after"]["iv"] == "P1Y2M3DT4H5M6.78S"


def test_hstore_handling_map(case):
    for r in _mode_case(case, "h hstore", "'a=>1, b=>two'", {"hstore.handling.mode": "map"}):
        sch = field_schema(r, "after", "h")
        assert sch["type"] == "map" and sch["keys"]["type"] == "string" and sch["values"]["type"] == "string"
        assert payload(r)["after"]["h"] == {"a": "1", "b": "two"}


def test_binary_handling_base64(case):
    for r in _mode_case(case, "b bytea", "'\\xdeadbeef'::bytea", {"binary.handling.mode": "base64"}):
        sch = field_schema(r, "after", "b")
        assert sch["type"] == "string"
        assert payload(r)["after"]["b"] == base64.b64encode(bytes.fromhex("deadbeef")).decode() == "3q2+7w=="


# -- publication and slot ---------------------------------------------------------------------------------------------


def _publication_tables(case) -> set[tuple[str, str]]:
    with case.pg.connect() as c:
        return set(
            c.execute(
                "SELECT schemaname, tablename FROM pg_publication_tables WHERE pubname = %s",
                (case.publication,),
            ).fetchall()
        )


def test_publication_autocreate_filtered(case):
    s = case.schema
    case.sql(f"CREATE TABLE {s}.t1 (id int PRIMARY KEY); CREATE TABLE {s}.t2 (id int PRIMARY KEY);")
    cap = case.start(
        {"publication.autocreate.mode": "filtered", "table.include.list": rf"{s}\.t1,{s}\.barrier"}
    )
    assert _publication_tables(case) == {(s, "t1"), (s, "barrier")}
    case.sql(f"INSERT INTO {s}.t2 VALUES (1); INSERT INTO {s}.t1 VALUES (1);")
    cap.wait_for(case.topic("t1"), is_op("c", id=1), 20)
    case.barrier(cap)
    assert on(cap, case.topic("t2")) == []


def test_publication_autocreate_filtered_alters_existing(case):
    s = case.schema
    case.sql(f"""CREATE TABLE {s}.t1 (id int PRIMARY KEY); CREATE TABLE {s}.t2 (id int PRIMARY KEY);
                 CREATE PUBLICATION {case.publication} FOR TABLE {s}.t2;""")
    cap = case.start(
        {"publication.autocreate.mode": "filtered", "table.include.list": rf"{s}\.t1,{s}\.barrier"}
    )
    assert _publication_tables(case) == {(s, "t1"), (s, "barrier")}
    case.barrier(cap)


def test_publication_autocreate_disabled_missing_publication_fails(case, tmp_path):
    emu = EmulatorProcess(case.props({"publication.autocreate.mode": "disabled"}), tmp_path).start()
    try:
        code = emu.proc.wait(30)
    finally:
        emu.kill()
    log = emu.log_path.read_text()
    assert code != 0, log
    assert case.publication in log and "publication" in log.lower()
    assert not case.slot_exists()


def _walsender_pid(case) -> int:
    with case.pg.connect() as c:
        return c.execute(
            "SELECT active_pid FROM pg_replication_slots WHERE slot_name = %s", (case.slot,)
        ).fetchone()[0]


def test_slot_kept_after_clean_stop_by_default(case):
    cap = case.start()  # slot.drop.on.stop defaults to false
    case.barrier(cap)
    cap.stop()
    assert case.slot_exists()


def test_slot_drop_on_stop(case):
    """slot.drop.on.stop=true: the slot is gone after a clean stop. The server releases the slot only
    when its walsender has noticed the disconnect, which takes a moment on a busy server; freezing the
    walsender for a second makes that moment deterministic."""
    cap = case.start({"slot.drop.on.stop": "true"})
    case.barrier(cap)
    pid = _walsender_pid(case)
    os.kill(pid, signal.SIGSTOP)
    thaw = threading.Timer(1.0, os.kill, (pid, signal.SIGCONT))
    thaw.start()
    try:
        cap.stop()
    finally:
        thaw.join()
        with contextlib.suppress(ProcessLookupError):  # normally it has exited by now
            os.kill(pid, signal.SIGCONT)
    assert not case.slot_exists()


def _confirmed_flush(case) -> int:
    with case.pg.connect() as c:
        return c.execute(
            "SELECT confirmed_flush_lsn - '0/0'::pg_lsn FROM pg_replication_slots WHERE slot_name = %s",
            (case.slot,),
        ).fetchone()[0]


def _current_wal(case) -> int:
    with case.pg.connect() as c:
        return c.execute("SELECT pg_current_wal_lsn() - '0/0'::pg_lsn").fetchone()[0]


def test_heartbeats_advance_slot_over_uncaptured_traffic(case):
    """Spec §2.12: with heartbeats, offsets advance and the LSN is confirmed to the server even when only
    uncaptured tables change, so the slot does not retain WAL forever."""
    s = case.schema
    case.sql(f"CREATE TABLE {s}.noise (id int PRIMARY KEY, v text);")
    case.start({"heartbeat.interval.ms": "300", "table.exclude.list": rf"{s}\.noise"})
    case.sql(f"INSERT INTO {s}.noise SELECT g, repeat('x', 100) FROM generate_series(1, 2000) g;")
    written = _current_wal(case)
    deadline = time.monotonic() + 20
    while _confirmed_flush(case) < written:
        assert time.monotonic() < deadline, (
            f"confirmed_flush_lsn {_confirmed_flush(case)} never reached {written}"
        )
        time.sleep(0.2)


def test_flush_lsn_source_false_never_confirms(case):
    s = case.schema
    case.sql(f"CREATE TABLE {s}.t (id int PRIMARY KEY);")
    cap = case.start({"flush.lsn.source": "false", "heartbeat.interval.ms": "300"})
    case.sql(f"INSERT INTO {s}.t VALUES (1);")
    r = cap.wait_for(case.topic("t"), is_op("c", id=1), 20)
    time.sleep(2)  # many offset flushes (200 ms) and heartbeats later
    assert _confirmed_flush(case) < payload(r)["source"]["lsn"]


# -- documented options the connector must honour ----------------------------------------------------------


def test_snapshot_select_statement_overrides(case):
    s = case.schema
    case.sql(
        f"CREATE TABLE {s}.t (id int PRIMARY KEY, flag int); INSERT INTO {s}.t VALUES (1, 0), (2, 1), (3, 0);"
    )
    cap = case.start(
        {
            "snapshot.select.statement.overrides": f"{s}.t",
            f"snapshot.select.statement.overrides.{s}.t": f"SELECT * FROM {s}.t WHERE flag = 0 ORDER BY id DESC",
        }
    )
    case.barrier(cap)
    assert [key(r)["id"] for r in on(cap, case.topic("t"))] == [3, 1]


def test_replica_identity_autoset_values(case):
    s = case.schema
    case.sql(f"CREATE TABLE {s}.t (id int PRIMARY KEY, v text);")
    cap = case.start({"replica.identity.autoset.values": rf"{s}\.t:FULL"})
    with case.pg.connect() as c:
        ident = c.execute(
            "SELECT relreplident FROM pg_class WHERE oid = %s::regclass", (f"{s}.t",)
        ).fetchone()[0]
    assert ident == "f"
    case.sql(f"INSERT INTO {s}.t VALUES (1, 'a'); UPDATE {s}.t SET v = 'b' WHERE id = 1;")
    u = cap.wait_for(case.topic("t"), lambda r: op(r) == "u", 20)
    assert payload(u)["before"] == {"id": 1, "v": "a"}


def test_skip_messages_without_change(case):
    s = case.schema
    case.sql(
        f"CREATE TABLE {s}.t (id int PRIMARY KEY, v text, noise text); ALTER TABLE {s}.t REPLICA IDENTITY FULL;"
    )
    cap = case.start({"skip.messages.without.change": "true", "column.exclude.list": rf"{s}\.t\.noise"})
    case.sql(f"""INSERT INTO {s}.t VALUES (1, 'a', 'n1');
                 UPDATE {s}.t SET noise = 'n2' WHERE id = 1;
                 UPDATE {s}.t SET v = 'b' WHERE id = 1;""")
    cap.wait_for(case.topic("t"), is_op("u", v="b"), 20)
    assert [op(r) for r in on(cap, case.topic("t"))] == ["c", "u"]


# -- CLI configuration errors -----------------------------------------------------------------------------------------


def _cli_props() -> dict[str, str]:
    return {
        "name": "bad",
        "connector.class": "io.debezium.connector.postgresql.PostgresConnector",
        "database.hostname": "127.0.0.1",
        "database.port": "1",
        "database.user": "postgres",
        "database.password": "x",
        "database.dbname": "postgres",
        "topic.prefix": "bad",
        "plugin.name": "pgoutput",
    }


@pytest.mark.parametrize(
    "prop, change",
    [
        ("connector.class", {"connector.class": "io.debezium.connector.nosuch.NoSuchConnector"}),
        ("topic.prefix", {"topic.prefix": None}),
        ("snapshot.mode", {"snapshot.mode": "sometimes"}),
    ],
)
def test_cli_bad_config(tmp_path, prop, change):
    props = _cli_props()
    for k, v in change.items():
        if v is None:
            props.pop(k)
        else:
            props[k] = v
    cfg = tmp_path / "bad.properties"
    write_properties(props, cfg)
    out = tmp_path / "out"
    r = subprocess.run(
        [sys.executable, "-m", "emulator", "run", str(cfg), "--out", str(out)],
        capture_output=True,
        text=True,
        timeout=60,
        cwd=Path(__file__).parent.parent,
    )
    assert r.returncode == 2, r.stderr
    lines = [x for x in r.stderr.splitlines() if x.strip()]
    assert len(lines) == 1, r.stderr
    assert prop in lines[0]
    assert not out.exists()
