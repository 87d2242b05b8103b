"""The data-plane differential generator (emulator/testing/differential_connect.py) without the oracle: its
draws are reproducible from (seed, trial) and are configurations the emulator accepts — a draw the
emulator refused would waste a campaign trial on "refused" instead of comparing with Debezium. (The
campaign itself needs the oracle venv and takes ~20 s a trial: scripts/differential_connect.sh.)"""

from __future__ import annotations

import pytest

from emulator.config import ConfigError, from_dict
from emulator.connect import dataplane
from emulator.testing.differential_connect import draw, signature, without_transform


def test_draws_are_reproducible():
    assert draw(7, 3, "pg") == draw(7, 3, "pg")
    assert draw(7, 3, "pg") != draw(7, 4, "pg")


@pytest.mark.parametrize("db", ["pg", "mariadb"])
def test_drawn_configurations_are_accepted(db):
    refused = []
    for trial in range(60):
        props, _ = draw(1, trial, db)
        config = from_dict({**props, "database.hostname": "127.0.0.1", "database.port": "5432"})
        try:
            dataplane.build(config)
        except ConfigError as e:
            refused.append(f"trial {trial}: {e}")
    assert not refused, "\n".join(refused)


def test_removing_a_transform_drops_its_unused_predicate():
    props = {
        "transforms": "a,b",
        "transforms.a.type": "X",
        "transforms.a.predicate": "p",
        "transforms.b.type": "Y",
        "predicates": "p",
        "predicates.p.type": "Z",
    }
    assert without_transform(props, "a") == {"transforms": "b", "transforms.b.type": "Y"}


def test_signature_ignores_numbers():
    from emulator.testing.differential_connect import Outcome

    a = Outcome("MISMATCH", "dbserver1.public.customers #6: .key: golden {} | candidate 1")
    b = Outcome("MISMATCH", "dbserver1.public.customers #7: .key: golden [] | candidate 2")
    assert signature(a) == signature(b)
