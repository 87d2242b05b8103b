"""The session-24 data-plane draws (connect_draws_s24) start at seed 152: older seeds keep their trials whole (the
session-23 header-stage and ExtractField draws at their old weights), and newer ones reach what no draw had made
(unset trials on mariadb_unset_required.sql, EventRouter's timestamp and schema-version fields on pg_outbox2.sql,
InsertField `offset.field`, ByLogicalTableRouter `logical.table.cache.size`, Avro `basic.auth.*`) while drawing
session 23's often both-failing stages less. Every draw is either accepted by the emulator's configuration code or
refused with its one line naming a property of the draw (ConfigError), never anything else."""

from __future__ import annotations

import pytest

import emulator.testing.connect_draws as connect_draws
import emulator.testing.connect_draws_s23 as connect_draws_s23
from emulator.config import ConfigError, from_dict
from emulator.connect import dataplane
from emulator.testing.connect_draws_s24 import S24_FROM_SEED

SEEDS = (S24_FROM_SEED, S24_FROM_SEED + 1, S24_FROM_SEED + 2)


def test_older_seeds_keep_their_trials(monkeypatch: pytest.MonkeyPatch) -> None:
    drawn = {
        (s, t, db): connect_draws.draw(s, t, db)
        for s in (141, 150, S24_FROM_SEED - 1)
        for t in range(40)
        for db in ("pg", "mariadb")
    }
    monkeypatch.setattr(connect_draws, "add_s24", lambda seed, trial, db, workload, props: (props, workload))
    monkeypatch.setattr(connect_draws_s23, "s23_weights", lambda seed: (0.07, 0.2))  # session 23's own
    for (s, t, db), got in drawn.items():
        assert connect_draws.draw(s, t, db) == got, (s, t, db)


def _count(seeds) -> dict[str, int]:
    seen: dict[str, int] = {}

    def count(what: str) -> None:
        seen[what] = seen.get(what, 0) + 1

    for seed in seeds:
        for t in range(100):
            for db in ("pg", "mariadb"):
                props, workload = connect_draws.draw(seed, t, db)
                aliases = [a for a in props.get("transforms", "").split(",") if a]
                if workload == "mariadb_unset_required.sql":
                    count("unset trial")
                    if any(
                        k.endswith(".replace.null.with.default") and v == "false" for k, v in props.items()
                    ):
                        count("unset raw")
                if workload == "pg_outbox2.sql":
                    count("outbox2 trial")
                for k in props:
                    for what in (
                        "table.field.event.timestamp",
                        "table.field.event.schema.version",
                        "offset.field",
                        "logical.table.cache.size",
                        "basic.auth.credentials.source",
                        "basic.auth.user.info",
                    ):
                        if k.endswith("." + what):
                            count(what)
                if any(a.startswith("h23_") for a in aliases):
                    count("s23 header stages")
                if "x23" in aliases:
                    count("s23 extract")
    return seen


def test_new_seeds_reach_the_new_options_and_draw_s23_s_less() -> None:
    new = _count(SEEDS)
    for what in ("unset trial", "unset raw", "outbox2 trial", "table.field.event.timestamp"):
        assert new.get(what, 0) >= 5, (what, new)
    for what in ("table.field.event.schema.version", "offset.field", "logical.table.cache.size"):
        assert new.get(what, 0) >= 2, (what, new)
    assert new.get("basic.auth.credentials.source", 0) + new.get("basic.auth.user.info", 0) >= 2, new
    old = _count((S24_FROM_SEED - 3, S24_FROM_SEED - 2, S24_FROM_SEED - 1))
    for what in ("s23 header stages", "s23 extract"):
        assert new.get(what, 0) < old.get(what, 0), (what, new, old)


def test_every_draw_is_accepted_or_refused_in_one_line() -> None:
    refused = 0
    for seed in SEEDS:
        for t in range(100):
            for db in ("pg", "mariadb"):
                props = {
                    k: v
                    for k, v in connect_draws.draw(seed, t, db)[0].items()
                    if not k.startswith("harness.")
                }
                props.update(
                    {"database.hostname": "127.0.0.1", "database.port": "5432" if db == "pg" else "3306"}
                )
                props.setdefault("database.password", "x")
                try:
                    dataplane.build(from_dict(props))
                except ConfigError as e:
                    refused += 1
                    line = str(e)
                    assert "\n" not in line and line.split(":")[0] in props, line
    assert refused < 60, refused
