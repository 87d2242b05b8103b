"""The session-20 data-plane draws (connect_draws_s20) start at seed 109: older seeds keep their trials whole, and
newer ones reach the new options (null trials with replace.null.with.default on many stages, whole-value Cast,
RegexRouter edge cases, ReplaceField renames with exclude/include, a keep-one-table Filter, Avro flags) often
enough for a 25-minute campaign."""

from __future__ import annotations

import pytest

import emulator.testing.connect_draws as connect_draws
from emulator.testing.connect_draws_s20 import REGEX_EDGES, S20_FROM_SEED


def test_older_seeds_keep_their_trials(monkeypatch: pytest.MonkeyPatch) -> None:
    drawn = {
        (s, t, db): connect_draws.draw(s, t, db)
        for s in (102, S20_FROM_SEED - 1)
        for t in range(40)
        for db in ("pg", "mariadb")
    }
    monkeypatch.setattr(connect_draws, "add_s20", lambda seed, trial, db, workload, props: (props, workload))
    for (s, t, db), got in drawn.items():
        assert connect_draws.draw(s, t, db) == got, (s, t, db)


def test_new_seeds_reach_the_new_options() -> None:
    seen = dict.fromkeys(("null", "rnwd", "whole", "regex", "renames", "keep", "avroflag", "long"), 0)
    edges = {r for r, _ in REGEX_EDGES}
    for seed in (S20_FROM_SEED, S20_FROM_SEED + 1):
        for t in range(150):
            for db in ("pg", "mariadb"):
                props, _ = connect_draws.draw(seed, t, db)
                chain = [a for a in props.get("transforms", "").split(",") if a]
                seen["null"] += "u20" in chain
                seen["rnwd"] += any(
                    k.endswith(".replace.null.with.default") and k.startswith("transforms.s20n")
                    for k in props
                )
                seen["whole"] += "w20" in chain or any(a.endswith("c20") for a in chain)
                seen["regex"] += any(v in edges for k, v in props.items() if k.endswith(".regex"))
                seen["renames"] += any(
                    k.endswith(".renames")
                    and (
                        k[: -len("renames")] + "exclude" in props or k[: -len("renames")] + "include" in props
                    )
                    for k in props
                )
                seen["keep"] += "f20" in chain
                seen["avroflag"] += any(k.endswith(".avro.remove.java.properties") for k in props)
                seen["long"] += len(chain) >= 4
    assert all(n >= 5 for n in seen.values()), seen
