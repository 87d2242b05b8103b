"""Documented Debezium 3.6.3 PostgreSQL connector behaviour, end to end on a throwaway server.

Every expectation comes from the requirements digest (/work/shared/spec/spec-postgres-mongodb.md, §1 and
§2) or from the observations on real Debezium (/work/shared/golden/pg/FINDINGS.md), never from the
emulator's own output. One PostgreSQL server serves the whole module; each test works in its own schema,
with its own slot, publication and topic prefix, so the tests cannot see each other's changes.

Most tests use the in-process `Capture` API (fast); the CLI is used where the process is the point.
Absence of an event is checked with a *barrier*: after the change that must produce nothing, a row goes
into the test's `barrier` table and we wait for its event. Records arrive in WAL order, so anything the
earlier change produced would already have been seen.

This module: filters, replica identity and keys, TOAST, truncate. Logical decoding messages, transaction
metadata, heartbeats: tests/test_pg_behaviour_messages.py. Handling modes, publication and slot, other
documented options, CLI configuration errors: tests/test_pg_behaviour_options.py. The Case and the record
helpers: tests/pg_behaviour_case.py.
"""

from __future__ import annotations

import base64
import json

import pytest
from pg_behaviour_case import (
    PLACEHOLDER,
    behaviour_server,
    data_events,
    field_schema,
    header,
    is_op,
    key,
    on,
    op,
    open_case,
    payload,
)


@pytest.fixture(scope="module")
def pg():
    yield from behaviour_server()


@pytest.fixture
def case(pg, request):
    yield from open_case(pg, request)


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
