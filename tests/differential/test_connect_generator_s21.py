"""The session-21 data-plane draws (connect_draws_s21) start at seed 118: older seeds keep their trials whole, and
newer ones reach the new options (null trials whose stages skip tombstones, the time.precision.modes the MariaDB
connector gained in session 20, EventRouter's field, regex and missing-field options) often enough for a 20-minute campaign."""

from __future__ import annotations

import pytest

import emulator.testing.connect_draws as connect_draws
from emulator.testing.connect_draws_s21 import GUARD, NEW_MODES, S21_FROM_SEED


def test_older_seeds_keep_their_trials(monkeypatch: pytest.MonkeyPatch) -> None:
    drawn = {
        (s, t, db): connect_draws.draw(s, t, db)
        for s in (109, S21_FROM_SEED - 1)
        for t in range(40)
        for db in ("pg", "mariadb")
    }
    monkeypatch.setattr(connect_draws, "add_s21", lambda seed, trial, db, workload, props: (props, workload))
    for (s, t, db), got in drawn.items():
        assert connect_draws.draw(s, t, db) == got, (s, t, db)


def test_new_seeds_reach_the_new_options() -> None:
    seen = dict.fromkeys(
        ("guarded", "unguarded", "date_modes", "other_modes", "regex", "fields", "missing"), 0
    )
    modes = {db: set() for db in ("pg", "mariadb")}
    for seed in (S21_FROM_SEED, S21_FROM_SEED + 1):
        for t in range(150):
            for db in ("pg", "mariadb"):
                props, _ = connect_draws.draw(seed, t, db)
                chain = [a for a in props.get("transforms", "").split(",") if a]
                if "u20" in chain:
                    after = chain[chain.index("u20") + 1 :]
                    # a guarded null trial: each stage after the unwrap has a predicate
                    if GUARD in props.get("predicates", "").split(","):
                        seen["guarded"] += 1
                        assert props[f"predicates.{GUARD}.type"].endswith("RecordIsTombstone")
                        assert all(f"transforms.{a}.predicate" in props for a in after)
                    else:
                        seen["unguarded"] += 1
                seen["regex"] += any(k.endswith(".route.topic.regex") for k in props)
                seen["fields"] += any(".table.field.event." in k for k in props)
                seen["missing"] += any("nope:" in v for v in props.values())
                mode = props.get("time.precision.mode")
                if mode in NEW_MODES:
                    modes[db].add(mode)
                    seen["date_modes" if "u19" in chain else "other_modes"] += 1
    assert all(n >= 3 for n in seen.values()), seen
    assert modes == {"pg": set(NEW_MODES), "mariadb": set(NEW_MODES)}, modes


def test_pg_null_trials_convert_dates_under_connect_from_seed_122() -> None:
    # (io.debezium.time.Date fails Kafka's TimestampConverter on every record: 0 records compared)
    modes = []
    for seed in (122, 123, 124):
        for t in range(150):
            props, _ = connect_draws.draw(seed, t, "pg")
            chain = [a for a in props.get("transforms", "").split(",") if a]
            stages = [
                a for a in chain if props.get(f"transforms.{a}.type", "").endswith("TimestampConverter$Value")
            ]
            if "u20" in chain and stages:
                modes.append(props.get("time.precision.mode"))
    assert len(modes) >= 4 and modes.count("connect") > len(modes) / 2, modes
