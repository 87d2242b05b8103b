"""The streamed source block comes from a per-transaction JSON template with `%d` at the LSN's two places
(`PgoutputStream._src_template`): names holding `%` must come out as they are, a name holding the template's
marker LSN takes the dict path, and every change carries its own LSN in both places. Expected values are
written by hand from the workload (names) and from the block's own definition (`sequence` = [last commit
LSN, this change's LSN], `lsn` = this change's LSN)."""

from __future__ import annotations

import orjson
import pytest

from emulator.api import Capture
from emulator.offsets import MemoryOffsetStore
from emulator.testing.pgserver import PgServer


@pytest.fixture(scope="module")
def pg():
    with PgServer() as server:
        yield server


def test_names_with_percent_and_the_marker_lsn(pg):
    pg.psql(
        'CREATE SCHEMA "s%d"; CREATE TABLE "s%d"."we%ird" (id int PRIMARY KEY, v text);'
        'CREATE TABLE "s%d"."t18446744073709551615" (id int PRIMARY KEY);'
    )
    props = pg.connector_properties(
        **{
            "topic.prefix": "odd",
            "slot.name": "odd",
            "publication.name": "odd_pub",
            "snapshot.mode": "no_data",
        }
    )
    cap = Capture(props, offsets=MemoryOffsetStore()).start()
    try:
        pg.psql(
            """INSERT INTO "s%d"."we%ird" VALUES (1, 'a%sb');"""
            'BEGIN; INSERT INTO "s%d"."t18446744073709551615" VALUES (2);'
            """UPDATE "s%d"."we%ird" SET v = '%%' WHERE id = 1; COMMIT;"""
        )
        cap.wait_for("odd.s_d.we_ird", lambda r: r["value"]["payload"]["op"] == "u", 30)
        changes = [c for c in cap.changes() if c.op in ("c", "u")]
    finally:
        cap.stop()
    got = [(c.source["schema"], c.source["table"], c.after) for c in changes]
    assert got == [
        ("s%d", "we%ird", {"id": 1, "v": "a%sb"}),
        ("s%d", "t18446744073709551615", {"id": 2}),
        ("s%d", "we%ird", {"id": 1, "v": "%%"}),
    ]
    lsns = [c.source["lsn"] for c in changes]
    assert [orjson.loads(c.source["sequence"])[1] for c in changes] == [str(n) for n in lsns]
    assert lsns[1] < lsns[2]  # two changes of one transaction: each its own LSN, not the template's
    assert 18446744073709551615 not in lsns


def test_first_change_direct_then_the_template(pg):
    """Both forms of the source block: a table's changes come from its template (made once per Relation), and a
    table whose name holds the template's marker gets its block dumped directly; names holding `%` and the
    marker, each change with its own LSN."""
    pg.psql(
        'CREATE SCHEMA "m%d"; CREATE TABLE "m%d"."p%s" (id int PRIMARY KEY);'
        'CREATE TABLE "m%d"."t18446744073709551615" (id int PRIMARY KEY);'
    )
    props = pg.connector_properties(
        **{
            "topic.prefix": "many",
            "slot.name": "many",
            "publication.name": "many_pub",
            "snapshot.mode": "no_data",
            "schema.include.list": "m%d",
        }
    )
    cap = Capture(props, offsets=MemoryOffsetStore()).start()
    try:
        pg.psql(
            'BEGIN; INSERT INTO "m%d"."p%s" VALUES (1), (2), (3);'
            'INSERT INTO "m%d"."t18446744073709551615" VALUES (4), (5);'
            'UPDATE "m%d"."p%s" SET id = id + 10 WHERE id = 1; COMMIT;'
            'INSERT INTO "m%d"."p%s" VALUES (6);'
        )
        cap.wait_for(
            "many.m_d.p_s",
            lambda r: ((r["value"] or {}).get("payload", {}).get("after") or {}).get("id") == 6,
            30,
        )
        changes = [c for c in cap.changes() if c.op in ("c", "u", "d")]
    finally:
        cap.stop()
    got = [(c.op, c.source["schema"], c.source["table"], (c.after or c.before)["id"]) for c in changes]
    assert got == [
        ("c", "m%d", "p%s", 1),
        ("c", "m%d", "p%s", 2),
        ("c", "m%d", "p%s", 3),
        ("c", "m%d", "t18446744073709551615", 4),
        ("c", "m%d", "t18446744073709551615", 5),
        ("d", "m%d", "p%s", 1),  # a key change: delete + create
        ("c", "m%d", "p%s", 11),
        ("c", "m%d", "p%s", 6),
    ]
    lsns = [c.source["lsn"] for c in changes]
    assert [orjson.loads(c.source["sequence"])[1] for c in changes] == [str(n) for n in lsns]
    assert lsns[:6] == sorted(set(lsns[:6]))  # one transaction: each change its own, growing LSN
    assert lsns[5] == lsns[6]  # the key change's two records are one change
    assert (
        len({c.source["txId"] for c in changes[:7]}) == 1
        and changes[7].source["txId"] != changes[0].source["txId"]
    )
    assert len({orjson.loads(c.source["sequence"])[0] for c in changes[:7]}) == 1
    assert 18446744073709551615 not in lsns
