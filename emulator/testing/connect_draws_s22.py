"""Options of the data-plane campaign that no draw reached before session 22 (a scan of seeds 125-134's draws
against the transforms and converters emulator.connect registers):

- StringConverter's `converter.encoding` (key and value): never drawn, so every StringConverter trial wrote
  UTF-8. Now a third of the trials with a StringConverter draw `UTF-16` (Java writes a big-endian BOM),
  `UTF-16LE`, `ISO-8859-1`, `US-ASCII` (Java's encoder writes `?` for a character the charset lacks: the
  workloads' `héllo`, `Ђ`) or `UTF-8`, one in five under the bare `encoding` key, which Connect ignores;
- `MaskField$Key` and `TimestampConverter$Key`: only their `$Value` forms were drawn. One trial in eight appends
  one of them (or Debezium's `HeaderToValue`, drawn 8 times in 1,200 trials) to the end of the chain: on the
  key a chain left (a struct with `id`, an extracted number, a schema change's `databaseName` struct), whose
  failures (`Only Struct objects supported for [mask fields], found: java.lang.Integer`, an INT32 key that is
  no timestamp) are compared as both-fail messages now (connect_failure).

From random streams of their own, applied after the others and only from seed 131 (S22_FROM_SEED): older seeds
keep their trials whole (seed 130 ran the session-21 draws).
"""

from __future__ import annotations

import random

S22_FROM_SEED = 131
STRING = "org.apache.kafka.connect.storage.StringConverter"
ENCODINGS = ("UTF-16", "UTF-16LE", "ISO-8859-1", "US-ASCII", "UTF-8")
K = "org.apache.kafka.connect.transforms."
KEY_STAGES = ("mask", "tskey", "h2v")
MASK_REPLACEMENTS = (None, "0", "***")


def _encodings(rng: random.Random, props: dict[str, str]) -> dict[str, str]:
    out = dict(props)
    for part in ("key", "value"):
        if out.get(f"{part}.converter") == STRING and rng.random() < 1 / 3:
            # one in five the bare `encoding`, which Connect ignores (UTF-8 still)
            option = rng.choice(("converter.encoding",) * 4 + ("encoding",))
            out[f"{part}.converter.{option}"] = rng.choice(ENCODINGS)
    return out


def _key_stage(rng: random.Random, props: dict[str, str]) -> dict[str, str]:
    out = dict(props)
    kind = rng.choice(KEY_STAGES)
    pre = "transforms.k22."
    if kind == "mask":
        out[pre + "type"] = K + "MaskField$Key"
        out[pre + "fields"] = rng.choice(("id", "id,databaseName", "databaseName", "nope"))
        replacement = rng.choice(MASK_REPLACEMENTS)
        if replacement is not None:
            out[pre + "replacement"] = replacement
    elif kind == "tskey":
        out[pre + "type"] = K + "TimestampConverter$Key"
        out[pre + "target.type"] = rng.choice(("string", "unix", "Timestamp"))
        if out[pre + "target.type"] == "string":
            out[pre + "format"] = "yyyy-MM-dd"
        if rng.random() < 0.5:
            out[pre + "field"] = "id"
    else:
        out[pre + "type"] = "io.debezium.transforms.HeaderToValue"
        out[pre + "headers"] = rng.choice(("__debezium.context.connectorName", "nope"))
        out[pre + "fields"] = "h2v_field"
        out[pre + "operation"] = rng.choice(("copy", "move"))
    aliases = [a for a in out.get("transforms", "").split(",") if a]
    out["transforms"] = ",".join([*aliases, "k22"])
    return out


def add_s22(
    seed: int, trial: int, db: str, workload: str, props: dict[str, str]
) -> tuple[dict[str, str], str]:
    if seed < S22_FROM_SEED:
        return props, workload
    props = _encodings(random.Random(f"s22enc-{seed}/{trial}/{db}"), props)
    stage = random.Random(f"s22key-{seed}/{trial}/{db}")
    if stage.random() < 0.125:
        props = _key_stage(stage, props)
    return props, workload
