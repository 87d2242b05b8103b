"""snapshot.max.threads > 1 on tables larger than one read of the parallel plan (the recorded case
tests/data/pg/cases/snapshot_max_threads has tables of <= 3 rows, whose order Debezium's threads cannot
change). Expected values are written by hand from Debezium 3.6's chunked snapshot
(RelationalSnapshotChangeEventSource.createChunkedDataEvents; docs/parallel-snapshot.md): a keyed table of
two or more rows is read in key order, a keyless table in its physical order, the markers those of the
single-threaded snapshot over that order; with legacy.snapshot.max.threads=true (one thread per table) no
chunks and no `first` marker. Rows are inserted out of key order so that key order is visible."""

from __future__ import annotations

import json
import logging

import pytest
from emulator_proc import EmulatorProcess

from emulator.api import Capture
from emulator.offsets import MemoryOffsetStore
from emulator.testing.pgserver import PgServer

N_BIG = 9_000  # more than one read (PIECE_ROWS) of the plan
N_COMP = 1_000  # per value of the first key column
N_NOKEY = 300

SETUP = f"""
CREATE TABLE public.a_big (id integer PRIMARY KEY, v text NOT NULL);
INSERT INTO public.a_big SELECT g, 'v' || g FROM generate_series(1, {N_BIG}) g ORDER BY md5(g::text);
CREATE TABLE public.b_comp (a text, b integer, PRIMARY KEY (a, b));
INSERT INTO public.b_comp SELECT chr(ascii('x') + g % 3), g / 3 FROM generate_series(0, {3 * N_COMP - 1}) g
    ORDER BY md5(g::text);
CREATE TABLE public.c_nokey (n integer);
INSERT INTO public.c_nokey SELECT g FROM generate_series(1, {N_NOKEY}) g ORDER BY md5(g::text);
CREATE TABLE public.d_empty (id integer PRIMARY KEY);
"""


@pytest.fixture(scope="module")
def pg():
    with PgServer() as server:
        server.psql(SETUP)
        yield server


def run_snapshot(pg: PgServer, tmp_path, name: str, extra: dict[str, str]) -> tuple[dict[str, list], str]:
    props = pg.connector_properties(
        **{
            "topic.prefix": name,
            "slot.name": name,
            "publication.name": f"{name}_pub",
            "snapshot.mode": "initial_only",
        }
    )
    props.update(extra)
    emu = EmulatorProcess(props, tmp_path).start()
    try:
        assert emu.proc.wait(120) == 0, emu.log_tail()
    finally:
        emu.kill()
    out: dict[str, list] = {}
    for r in emu.records():
        payload = r["value"]["payload"]
        if r["topic"] == "notes":  # notification.sink.topic.name below
            if payload["type"] == "TABLE_SCAN_COMPLETED":
                d = payload["additional_data"]
                out.setdefault("scanned", {})[d["scanned_collection"]] = d["total_rows_scanned"]
            continue
        out.setdefault(r["topic"].split(".")[-1], []).append(
            (payload["after"], payload["source"]["snapshot"])
        )
    return out, emu.log_path.read_text()


def capture_snapshot(pg: PgServer, name: str, extra: dict[str, str]) -> dict[str, list]:
    """`run_snapshot` in this process (emulator.api): an output that reads each record's key and value (the
    forked readers then send keys and payloads, not lines)."""
    props = pg.connector_properties(
        **{
            "topic.prefix": name,
            "slot.name": name,
            "publication.name": f"{name}_pub",
            "snapshot.mode": "initial",
        }
    )
    props.update(extra)
    cap = Capture(props, offsets=MemoryOffsetStore(), cleanup=True).start()
    try:
        out: dict[str, list] = {}
        for r in cap.records(timeout=2):
            payload = r["value"]["payload"]
            out.setdefault(r["topic"].split(".")[-1], []).append(
                (payload["after"], payload["source"]["snapshot"])
            )
    finally:
        cap.stop()
    return out


def marks(n: int, first: str, last: str) -> list[str]:
    return [first] + ["true"] * (n - 2) + [last]


def physical(pg: PgServer, table: str, col: str) -> list[int]:
    with pg.connect() as conn:
        return [r[0] for r in conn.execute(f"SELECT {col} FROM public.{table} ORDER BY ctid")]


def test_chunked_snapshot_reads_keyed_tables_in_key_order(pg, tmp_path):
    # the directory output: the forked readers send whole lines (snapshot_records.LineBatch), batches of rows
    # that each table's TABLE_SCAN_COMPLETED still counts as rows (written by hand: the setup's sizes)
    notes = {"notification.enabled.channels": "sink", "notification.sink.topic.name": "notes"}
    got, log = run_snapshot(pg, tmp_path, "par", {"snapshot.max.threads": "2", **notes})
    assert "snapshot with 2 readers (forked)" in log
    assert_big_tables_in_key_order(pg, got)
    assert {k: v for k, v in got["scanned"].items() if k.startswith("public.")} == {
        "public.a_big": str(N_BIG),
        "public.b_comp": str(3 * N_COMP),
        "public.c_nokey": str(N_NOKEY),
        "public.d_empty": "0",
    }


def assert_big_tables_in_key_order(pg: PgServer, got: dict[str, list]) -> None:
    assert got["a_big"] == list(
        zip(
            [{"id": i, "v": f"v{i}"} for i in range(1, N_BIG + 1)],
            marks(N_BIG, "first", "last_in_data_collection"),
        )
    )
    comp = [{"a": a, "b": b} for a in "xyz" for b in range(N_COMP)]
    assert got["b_comp"] == list(
        zip(comp, marks(len(comp), "first_in_data_collection", "last_in_data_collection"))
    )
    # keyless: one chunk, the plain query's (physical) order; its last row is the snapshot's last record
    nokey = [{"n": n} for n in physical(pg, "c_nokey", "n")]
    assert got["c_nokey"] == list(zip(nokey, marks(N_NOKEY, "first_in_data_collection", "last")))
    assert "d_empty" not in got


def test_legacy_threads_keep_physical_order_without_first(pg, caplog):
    # in this process: the forked readers send keys and payloads (the records path), not lines
    caplog.set_level(logging.INFO, "emulator.postgres")
    got = capture_snapshot(pg, "leg", {"snapshot.max.threads": "2", "legacy.snapshot.max.threads": "true"})
    assert "snapshot with 2 readers (forked)" in caplog.text
    big = physical(pg, "a_big", "id")
    assert big != sorted(big)  # the setup really is out of key order
    assert got["a_big"] == list(
        zip(
            [{"id": i, "v": f"v{i}"} for i in big],
            marks(N_BIG, "first_in_data_collection", "last_in_data_collection"),
        )
    )
    assert [m for _, m in got["c_nokey"]][-1] == "last"
    assert json.dumps(got["b_comp"][0][1]) == '"first_in_data_collection"'


def test_threaded_readers_when_records_go_through_the_data_plane(pg, tmp_path):
    """A transform makes the envelopes structured (no bytes to build in a forked reader): the readers are
    threads (ChunkReadAhead) and the records the same, but for the topic RegexRouter renames."""
    got, log = run_snapshot(
        pg,
        tmp_path,
        "thr",
        {
            "snapshot.max.threads": "2",
            "transforms": "r",
            "transforms.r.type": "org.apache.kafka.connect.transforms.RegexRouter",
            "transforms.r.regex": "thr[.]public[.](.*)",
            "transforms.r.replacement": "routed.$1",
        },
    )
    assert "snapshot with 2 readers:" in log  # not "(forked)"
    assert f"snapshot of public.a_big: {N_BIG} rows" in log
    assert got["a_big"] == list(
        zip(
            [{"id": i, "v": f"v{i}"} for i in range(1, N_BIG + 1)],
            marks(N_BIG, "first", "last_in_data_collection"),
        )
    )
    assert [m for _, m in got["c_nokey"]][-1] == "last"
