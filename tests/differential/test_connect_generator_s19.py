"""The session-19 data-plane draws (connect_draws_s19) start at seed 102: older seeds keep their trials whole, and
newer ones reach the new options (TimestampConverter parsing, date trials, InsertHeader decimals, EventRouter
field-name adjustment) often enough for a 30-minute campaign."""

from __future__ import annotations

import pytest

import emulator.testing.connect_draws as connect_draws
from emulator.testing.connect_draws_s19 import S19_FROM_SEED


def test_older_seeds_keep_their_trials(monkeypatch: pytest.MonkeyPatch) -> None:
    drawn = {
        (s, t, db): connect_draws.draw(s, t, db)
        for s in (99, S19_FROM_SEED - 1)
        for t in range(40)
        for db in ("pg", "mariadb")
    }
    monkeypatch.setattr(connect_draws, "add_s19", lambda seed, trial, db, workload, props: (props, workload))
    for (s, t, db), got in drawn.items():
        assert connect_draws.draw(s, t, db) == got, (s, t, db)


def test_new_seeds_reach_the_new_options() -> None:
    seen = {"p19": 0, "tc19": 0, "o19": 0, "decimal": 0}
    for t in range(150):
        for db in ("pg", "mariadb"):
            props, _ = connect_draws.draw(S19_FROM_SEED, t, db)
            chain = props.get("transforms", "").split(",")
            seen["p19"] += any(a.endswith("p19") for a in chain)
            seen["tc19"] += "tc19" in chain
            seen["o19"] += "o19" in chain
            seen["decimal"] += any(k.endswith("value.literal") and "." in v for k, v in props.items())
    assert all(n >= 5 for n in seen.values()), seen
