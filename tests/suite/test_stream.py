"""Streaming: what one insert, update and delete become (Debezium's documented change events), tombstones,
primary-key changes, TRUNCATE and `skipped.operations`. Expected values are the rows the scenario wrote and
the event shapes Debezium documents (spec-postgres-mongodb.md §1, spec-mysql-mariadb.md §5/§6)."""

from __future__ import annotations

import pytest
from harness import Run, header, op, payload

COLS = {"id": "int", "name": "text", "qty": "int"}


def test_create_update_delete_and_tombstone(backend):
    backend.create_table("t", COLS)
    with Run(backend, **{"snapshot.mode": "no_data"}) as run:
        backend.insert("t", {"id": 1, "name": "pen", "qty": 3})
        backend.update("t", {"id": 1}, {"qty": 4})
        backend.delete("t", {"id": 1})
        run.barrier()
    recs = run.on("t")
    img = backend.image
    assert [op(r) for r in recs] == ["c", "u", "d", None]  # the delete's tombstone last
    c, u, d, tomb = recs
    assert payload(c)["before"] is None
    assert img(payload(c)["after"]) == {"id": 1, "name": "pen", "qty": 3}
    assert img(payload(u)["after"]) == {"id": 1, "name": "pen", "qty": 4}
    assert payload(d)["after"] is None
    assert tomb["value"] is None and backend.key(tomb) == {"id": 1}
    assert [backend.key(r) for r in recs] == [{"id": 1}] * 4
    assert [payload(r)["source"]["snapshot"] for r in (c, u, d)] == ["false"] * 3


@pytest.mark.needs("before_image")
def test_update_and_delete_carry_the_old_row(backend):
    backend.create_table("t", COLS)
    with Run(backend, **{"snapshot.mode": "no_data"}) as run:
        backend.insert("t", {"id": 1, "name": "pen", "qty": 3})
        backend.update("t", {"id": 1}, {"qty": 4})
        backend.delete("t", {"id": 1})
        run.barrier()
    u, d = run.events("t", "u", "d")
    assert payload(u)["before"] == {"id": 1, "name": "pen", "qty": 3}
    assert payload(d)["before"] == {"id": 1, "name": "pen", "qty": 4}


def test_tombstones_on_delete_false(backend):
    backend.create_table("t", COLS)
    with Run(backend, **{"snapshot.mode": "no_data", "tombstones.on.delete": "false"}) as run:
        backend.insert("t", {"id": 1, "name": "a", "qty": 1})
        backend.delete("t", {"id": 1})
        run.barrier()
    assert [op(r) for r in run.on("t")] == ["c", "d"]


@pytest.mark.needs("key_change")
def test_primary_key_change_is_delete_tombstone_create_with_key_headers(backend):
    """Debezium: an update of the key is a delete of the old key (header `__debezium.newkey`), its tombstone,
    and a create of the new key (header `__debezium.oldkey`)."""
    backend.create_table("t", COLS)
    with Run(backend, **{"snapshot.mode": "no_data"}) as run:
        backend.insert("t", {"id": 1, "name": "a", "qty": 1})
        backend.update("t", {"id": 1}, {"id": 2})
        run.barrier()
    recs = run.on("t")
    assert [op(r) for r in recs] == ["c", "d", None, "c"]
    _, d, tomb, c = recs
    assert [backend.key(r) for r in (d, tomb, c)] == [{"id": 1}, {"id": 1}, {"id": 2}]
    assert header(d, "__debezium.newkey") == {"id": 2} and header(tomb, "__debezium.newkey") == {"id": 2}
    assert header(c, "__debezium.oldkey") == {"id": 1}
    assert header(d, "__debezium.oldkey") is None and header(c, "__debezium.newkey") is None
    assert payload(d)["before"] == {"id": 1, "name": "a", "qty": 1} and payload(d)["after"] is None
    assert payload(c)["before"] is None and payload(c)["after"] == {"id": 2, "name": "a", "qty": 1}
    # the key-change headers come before Debezium's context headers
    assert [n for n, _ in c["headers"]][0] == "__debezium.oldkey"


@pytest.mark.needs("truncate")
def test_truncate_is_dropped_by_default(backend):
    """`skipped.operations` defaults to `t`: a TRUNCATE emits nothing."""
    backend.create_table("t", COLS)
    with Run(backend, **{"snapshot.mode": "no_data"}) as run:
        backend.insert("t", {"id": 1, "name": "a", "qty": 1})
        backend.truncate("t")
        run.barrier()
    assert [op(r) for r in run.on("t")] == ["c"]


@pytest.mark.needs("truncate")
def test_truncate_event_when_not_skipped(backend):
    """With `skipped.operations=none`: one `op=t` event with no key, no before and no after."""
    backend.create_table("t", COLS)
    with Run(backend, **{"snapshot.mode": "no_data", "skipped.operations": "none"}) as run:
        backend.insert("t", {"id": 1, "name": "a", "qty": 1})
        backend.truncate("t")
        backend.insert("t", {"id": 2, "name": "b", "qty": 2})
        run.barrier()
    recs = run.on("t")
    assert [op(r) for r in recs] == ["c", "t", "c"]
    t = recs[1]
    assert t["key"] is None
    assert payload(t)["before"] is None and payload(t)["after"] is None


def test_skipped_operations_updates_and_deletes(backend):
    backend.create_table("t", COLS)
    with Run(backend, **{"snapshot.mode": "no_data", "skipped.operations": "u,d"}) as run:
        backend.insert("t", {"id": 1, "name": "a", "qty": 1})
        backend.update("t", {"id": 1}, {"qty": 2})
        backend.delete("t", {"id": 1})
        backend.insert("t", {"id": 2, "name": "b", "qty": 1})
        run.barrier()
    recs = run.on("t")
    assert [op(r) for r in recs] == ["c", "c"]  # no update, no delete, and no tombstone either
    assert [backend.key(r)["id"] for r in recs] == [1, 2]


def test_transaction_of_several_tables_in_commit_order(backend):
    backend.create_table("a", COLS)
    backend.create_table("b", COLS)
    with Run(backend, **{"snapshot.mode": "no_data"}) as run:
        with backend.transaction():
            backend.insert("b", {"id": 1, "name": "x", "qty": 1})
            backend.insert("a", {"id": 1, "name": "y", "qty": 1})
            backend.update("b", {"id": 1}, {"qty": 2})
        run.barrier()
    topics = {backend.topic("a"): "a", backend.topic("b"): "b"}
    seq = [(topics[r["topic"]], op(r)) for r in run.records if r["topic"] in topics]
    assert seq == [("b", "c"), ("a", "c"), ("b", "u")]
