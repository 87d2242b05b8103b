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
