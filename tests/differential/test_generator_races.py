"""The PostgreSQL generator: no step races a catalog read, and the session-14 property draw keeps old workloads.

A pgoutput Relation message is processed after its transaction commits, and both engines then read key, NOT NULL
and defaults from the catalog as it is at that moment. A DDL statement committed right after a change of the same
table (no quiet wait between) may or may not be in the catalog by then, depending on each engine's speed: seed
44100006 (and 44600002) recorded a null key from Debezium and the primary key from the emulator. In one
transaction the order is fixed (pg case relation_catalog_changed_in_tx).
"""

from __future__ import annotations

import re

import pytest

import emulator.testing.workloads as workloads
from emulator.testing.conformance import compare
from emulator.testing.workload import Workload, stream_steps

DML = re.compile(r"^(?:INSERT INTO|UPDATE|DELETE FROM)\s+([^\s(]+)", re.I)
# DDL that changes what the catalog read answers (key, NOT NULL, defaults, existence); REPLICA IDENTITY does not
DDL = re.compile(
    r"^(?:DROP TABLE|ALTER TABLE)\s+(?:IF EXISTS\s+)?(?:ONLY\s+)?([^\s;]+)(?!\s+REPLICA IDENTITY)", re.I
)


def _racy(step: str) -> list[str]:
    out, changed, in_tx = [], set(), False
    for stmt in (s.strip() for s in step.split(";\n")):
        upper = stmt.upper()
        if upper.startswith("BEGIN"):
            in_tx = True
        elif upper.startswith("COMMIT"):
            in_tx = False
            changed.clear()  # committed with its DDL: processed after both
        elif m := DML.match(stmt):
            changed.add(m.group(1))
        elif (m := DDL.match(stmt)) and m.group(1) in changed and not in_tx:
            out.append(stmt)
    return out


def test_the_check_sees_the_race_of_seed_44100006() -> None:
    step = "CREATE TABLE t (k text PRIMARY KEY) ;\nINSERT INTO t VALUES ('x');\nDROP TABLE t;\nUPDATE u SET v = 1;"
    assert _racy(step) == ["DROP TABLE t"]
    assert (
        _racy(step.replace("INSERT", "BEGIN;\nINSERT").replace("DROP TABLE t;", "DROP TABLE t;\nCOMMIT;"))
        == []
    )


@pytest.mark.parametrize("base", [44100000, 44600000])
def test_no_generated_step_commits_ddl_right_after_a_change_of_its_table(base: int) -> None:
    for seed in range(base, base + 150):
        w = Workload.parse(workloads.generate("pg", seed))
        for step in stream_steps(w.sections.get("stream", "")):
            assert _racy(step) == [], f"seed {seed}"


def test_the_settings_draw_only_adds_set_lines(monkeypatch: pytest.MonkeyPatch) -> None:
    seeds = range(44100000, 44100120)
    drawn = {s: workloads.generate("pg", s) for s in seeds}
    monkeypatch.setattr(workloads, "user_settings", lambda seed, props, incremental: {})
    gained = 0
    for s in seeds:
        before, after = workloads.generate("pg", s).splitlines(), drawn[s].splitlines()
        added = [x for x in after if x not in before]
        assert [x for x in after if x not in added] == before, f"seed {s}"
        assert all(x.startswith("-- @set ") for x in added), f"seed {s}"
        gained += bool(added)
    assert 20 <= gained <= 65  # ~35 %


def _tx_record(topic: str, txid: str) -> dict:
    return {
        "topic": topic,
        "key": {
            "schema": {"name": "io.debezium.connector.common.TransactionMetadataKey"},
            "payload": {"id": txid},
        },
        "value": {"schema": {}, "payload": {"status": "BEGIN", "id": txid, "data_collections": None}},
    }


def test_transaction_records_under_another_topic_name_are_masked() -> None:
    # topic.transaction=txn: the ids differ between two recordings of the same workload
    golden = {"dbserver1.txn": [_tx_record("dbserver1.txn", "750:24001")]}
    ours = {"dbserver1.txn": [_tx_record("dbserver1.txn", "761:24188")]}
    assert compare(golden, ours) == (1, [])


def test_the_mariadb_settings_draw_only_adds_set_lines(monkeypatch: pytest.MonkeyPatch) -> None:
    import emulator.testing.workloads_mariadb_users as users

    seeds = range(72000, 72080)
    drawn = {s: workloads.generate("mariadb", s) for s in seeds}
    monkeypatch.setattr(users, "user_settings", lambda seed, props: None)
    gained = 0
    for s in seeds:
        before, after = workloads.generate("mariadb", s).splitlines(), drawn[s].splitlines()
        added = [x for x in after if x not in before]
        assert [x for x in after if x not in added] == before, f"seed {s}"
        assert all(x.startswith("-- @set ") for x in added), f"seed {s}"
        gained += bool(added)
    assert 12 <= gained <= 45  # ~35 %


def test_the_mariadb_dml_draw_only_appends_its_scenario(monkeypatch: pytest.MonkeyPatch) -> None:
    """(session 16) the dml scenario (REPLACE, ON DUPLICATE KEY UPDATE, multi-table UPDATE/DELETE, `/*!...*/`) comes
    from a random stream of its own: a seed that draws it gains its `-- @scenario dml*` blocks, nothing else."""
    import emulator.testing.workloads_mariadb_dml as dml

    seeds = range(72000, 72080)
    drawn = {s: workloads.generate("mariadb", s) for s in seeds}
    monkeypatch.setattr(dml, "dml_draw", lambda seed, scenarios: None)
    gained = 0
    for s in seeds:
        before, after = workloads.generate("mariadb", s), drawn[s]
        if before == after:
            continue
        gained += 1
        name = re.search(r"^-- @scenario (dml\d+)$", after, re.M).group(1)
        blocks = re.split(r"(?m)^(?=-- @(?:scenario|section) )", after)
        kept = "".join(b for b in blocks if not b.startswith(f"-- @scenario {name}\n"))
        assert kept == before, f"seed {s}"
    assert 16 <= gained <= 50  # ~40 %


def test_the_mariadb_s17_draws_only_append_their_scenarios(monkeypatch: pytest.MonkeyPatch) -> None:
    """(session 17) bigtx, dbs and ddl17 come from a random stream of their own: a seed that draws them gains their
    `-- @scenario` blocks (and `dbs`'s database.include.list), nothing else."""
    import emulator.testing.workloads_mariadb_s17 as s17

    seeds = range(86000, 86060)
    drawn = {s: workloads.generate("mariadb", s) for s in seeds}
    monkeypatch.setattr(s17, "draws", lambda seed, props, scenarios: None)
    gained = 0
    for s in seeds:
        before, after = workloads.generate("mariadb", s), drawn[s]
        if before == after:
            continue
        gained += 1
        blocks = re.split(r"(?m)^(?=-- @(?:scenario|section) )", after)
        kept = "".join(b for b in blocks if not re.match(r"-- @scenario (bigtx|dbs|ddl17)x\n", b))
        if "-- @scenario dbsx" in after and "@set database.include.list" not in before:
            kept = re.sub(r"(?m)^-- @set database\.include\.list=.*\n", "", kept)
        assert kept == before, f"seed {s}"
    assert 15 <= gained <= 45  # ~50 %


def test_the_mariadb_s18_draws_only_append_their_scenarios(monkeypatch: pytest.MonkeyPatch) -> None:
    """(session 18) ddl18, dml18 and trg18 come from random streams of their own: a seed that draws them gains their
    `-- @scenario` blocks, nothing else."""
    import emulator.testing.workloads_mariadb_s18 as s18

    seeds = range(93000, 93060)
    drawn = {s: workloads.generate("mariadb", s) for s in seeds}
    monkeypatch.setattr(s18, "draws", lambda seed, props, scenarios: None)
    gained = 0
    for s in seeds:
        before, after = workloads.generate("mariadb", s), drawn[s]
        if before == after:
            continue
        gained += 1
        blocks = re.split(r"(?m)^(?=-- @(?:scenario|section) )", after)
        kept = "".join(b for b in blocks if not re.match(r"-- @scenario (ddl18|dml18|trg18)x\n", b))
        assert kept == before, f"seed {s}"
    assert 25 <= gained <= 52  # ~65 % (50 % ddl18/dml18, 30 % trg18)
