"""emulator.snapshot.run_snapshot without a server: the `source.snapshot` markers and the order of the
per-table callbacks, relational (Debezium's RelationalSnapshotChangeEventSource + the buffering receiver
of EventDispatcher) and MongoDB (every read `true`, the very last `last`, as tests/test_mongodb_live.py
expects from a live server). Expected values written by hand."""

from __future__ import annotations

from emulator.connectors.mongodb.connector import mongo_marker
from emulator.snapshot import run_snapshot


def _run(tables: dict[str, list], **kw) -> tuple[list, bool]:
    out: list = []
    ok = run_snapshot(
        list(tables),
        lambda t: tables[t],
        lambda t, row, mark: out.append((t, row, mark)),
        started=lambda t: out.append(("started", t)),
        finished=lambda t, n: out.append(("finished", t, n)),
        **kw,
    )
    return out, ok


def test_relational_markers_and_callbacks():
    out, ok = _run({"a": [1, 2, 3], "b": [4, 5]})
    assert ok
    assert out == [
        ("started", "a"),
        ("a", 1, "first"),
        ("a", 2, "true"),
        ("finished", "a", 3),  # before the table's last row: that row is held back
        ("started", "b"),
        ("a", 3, "last_in_data_collection"),
        ("b", 4, "first_in_data_collection"),
        ("finished", "b", 2),
        ("b", 5, "last"),
    ]


def test_empty_last_table_still_ends_with_last():
    out, _ = _run({"a": [1, 2], "b": []})
    assert [x for x in out if x[0] == "a"] == [("a", 1, "first"), ("a", 2, "last")]


def test_mongodb_marks_every_read_true_but_the_last():
    out, _ = _run({"db.c1": [1, 2], "db.c2": [3]}, markers=mongo_marker)
    reads = [x for x in out if x[0] not in ("started", "finished")]
    assert reads == [("db.c1", 1, "true"), ("db.c1", 2, "true"), ("db.c2", 3, "last")]


def test_a_stop_ends_the_read_without_the_held_row():
    calls = {"n": 0}

    def stopping() -> bool:
        calls["n"] += 1
        return calls["n"] >= 2

    out, ok = _run({"a": [1, 2, 3]}, stopping=stopping)
    assert not ok
    assert out == [("started", "a"), ("a", 1, "first")]
