"""The session-22 data-plane draws (connect_draws_s22) start at seed 131: older seeds keep their trials whole, and
newer ones reach StringConverter's encodings (and the bare `encoding` Connect ignores) and the key-side stages
no draw had made (MaskField$Key, TimestampConverter$Key; HeaderToValue, rarely drawn before) often enough for a
20-minute campaign."""

from __future__ import annotations

import pytest

import emulator.testing.connect_draws as connect_draws
from emulator.testing.connect_draws_s22 import ENCODINGS, S22_FROM_SEED


def test_older_seeds_keep_their_trials(monkeypatch: pytest.MonkeyPatch) -> None:
    drawn = {
        (s, t, db): connect_draws.draw(s, t, db)
        for s in (118, S22_FROM_SEED - 1)
        for t in range(40)
        for db in ("pg", "mariadb")
    }
    monkeypatch.setattr(connect_draws, "add_s22", lambda seed, trial, db, workload, props: (props, workload))
    for (s, t, db), got in drawn.items():
        assert connect_draws.draw(s, t, db) == got, (s, t, db)


def test_new_seeds_reach_the_new_options() -> None:
    stages: dict[str, int] = {}
    encodings: set[str] = set()
    bare = 0
    for seed in (S22_FROM_SEED, S22_FROM_SEED + 1):
        for t in range(100):
            for db in ("pg", "mariadb"):
                props, _ = connect_draws.draw(seed, t, db)
                for part in ("key", "value"):
                    enc = props.get(f"{part}.converter.converter.encoding")
                    if enc:
                        assert props[f"{part}.converter"].endswith("StringConverter")
                        encodings.add(enc)
                    bare += f"{part}.converter.encoding" in props
                kind = props.get("transforms.k22.type")
                if kind:
                    assert props["transforms"].split(",")[-1] == "k22"  # the last stage
                    name = kind.rsplit(".", 1)[-1]
                    stages[name] = stages.get(name, 0) + 1
    assert encodings == set(ENCODINGS), encodings
    assert bare >= 2, bare
    assert set(stages) == {"MaskField$Key", "TimestampConverter$Key", "HeaderToValue"}, stages
    assert all(n >= 3 for n in stages.values()), stages
