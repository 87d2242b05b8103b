"""The session-23 data-plane draws (connect_draws_s23) start at seed 141: older seeds keep their trials whole, and
newer ones reach the options no draw had made (header JsonConverter options, big-endian StringConverter charsets,
`schemas.cache.size` of every converter, the CloudEventsConverter's `json.` / `avro.` options, header stages on
shared names, ExtractField's V2 paths) often enough for a 20-minute campaign. Every draw is either accepted by the
emulator's configuration code or refused with its one line naming a property of the draw (ConfigError), never
anything else."""

from __future__ import annotations

import pytest

import emulator.testing.connect_draws as connect_draws
from emulator.config import ConfigError, from_dict
from emulator.connect import dataplane
from emulator.testing.connect_draws_s23 import S23_FROM_SEED

SEEDS = (S23_FROM_SEED, S23_FROM_SEED + 1, S23_FROM_SEED + 2)


def test_older_seeds_keep_their_trials(monkeypatch: pytest.MonkeyPatch) -> None:
    drawn = {
        (s, t, db): connect_draws.draw(s, t, db)
        for s in (131, S23_FROM_SEED - 1)
        for t in range(40)
        for db in ("pg", "mariadb")
    }
    monkeypatch.setattr(connect_draws, "add_s23", lambda seed, trial, db, workload, props: (props, workload))
    for (s, t, db), got in drawn.items():
        assert connect_draws.draw(s, t, db) == got, (s, t, db)


def _draws():
    for seed in SEEDS:
        for t in range(100):
            for db in ("pg", "mariadb"):
                yield connect_draws.draw(seed, t, db)[0], db


def test_new_seeds_reach_the_new_options() -> None:
    seen: dict[str, int] = {}

    def count(what: str) -> None:
        seen[what] = seen.get(what, 0) + 1

    for props, _db in _draws():
        for k, v in props.items():
            if k.startswith("header.converter.") and props["header.converter"].endswith("JsonConverter"):
                count(k[len("header.converter.") :])
            if k.endswith(".converter.converter.encoding") and v in ("UTF-16BE", "UTF-32"):
                count("big-endian text")
            if k.endswith(".converter.schemas.cache.size"):
                count("cache " + ("bad" if v in ("-1", "abc") else "ok"))
            if k.startswith(("value.converter.json.", "value.converter.avro.")) and not k.endswith(
                "registry.url"
            ):
                count("ce " + k.split(".")[2])
            if k.endswith(".field.syntax.version"):
                count("extract " + v)
        aliases = props.get("transforms", "").split(",")
        if any(a.startswith("h23_") for a in aliases):
            count("header stages")
            assert aliases[-1].startswith("h23_")  # at the end of the chain
    for what in ("decimal.format", "replace.null.with.default", "schemas.cache.size", "big-endian text"):
        assert seen.get(what, 0) >= 5, (what, seen)
    for what in ("cache ok", "cache bad", "ce json", "ce avro", "extract V2", "extract V1", "header stages"):
        assert seen.get(what, 0) >= 2, (what, seen)


def test_every_draw_is_accepted_or_refused_in_one_line() -> None:
    refused = 0
    for props, db in _draws():
        props = {k: v for k, v in props.items() if not k.startswith("harness.")}
        # what the harness adds at run time
        props.update({"database.hostname": "127.0.0.1", "database.port": "5432" if db == "pg" else "3306"})
        props.setdefault("database.password", "x")
        try:
            dataplane.build(from_dict(props))
        except ConfigError as e:
            refused += 1
            line = str(e)
            assert "\n" not in line and line.split(":")[0] in props, line
    assert refused < 60, refused  # (the odd cache sizes, mostly)
