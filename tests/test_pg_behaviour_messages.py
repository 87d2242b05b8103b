"""Documented Debezium 3.6.3 PostgreSQL behaviour: logical decoding messages, transaction metadata,
heartbeats. Expectations and method as in tests/test_pg_behaviour.py (its docstring).
"""

from __future__ import annotations

import base64
import re

import pytest
from pg_behaviour_case import (
    behaviour_server,
    is_op,
    key,
    on,
    open_case,
    payload,
)


@pytest.fixture(scope="module")
def pg():
    yield from behaviour_server()


@pytest.fixture
def case(pg, request):
    yield from open_case(pg, request)


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
