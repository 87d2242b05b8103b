"""Options of the data-plane campaign that no draw reached before session 21:

- null trials (connect_draws_s20) that compare their records: session 20's null trials often ended both-fail on
  their first tombstone (Kafka's `MaskField`, `Cast` of a field, `ReplaceField`, `InsertField`, `SetSchemaMetadata`,
  `TimestampConverter` need a value; only `HeaderFrom` / `ValueToKey` were guarded), so a trial without
  `errors.tolerance=all` stopped before its NULL rows. Now most null trials put every stage behind a
  not-tombstone predicate; a fifth keep the unguarded chain (the failure on a tombstone is still compared);
- `time.precision.mode` `microseconds`, `nanoseconds`, `isostring` (session 20 added them to the MariaDB
  connector; the PostgreSQL draws had `isostring` only): in the date trials (connect_draws_s19, one temporal
  column through TimestampConverter) and wherever a trial draws a mode, plus ~8 % of the others; under
  `isostring` a temporal column is a string, so TimestampConverter reads it with its pattern (a mismatch fails
  the record in both).

From random streams of their own, applied after the others and only from seed 118 (S21_FROM_SEED): older seeds
keep their trials whole.
"""

from __future__ import annotations

import random

P = "org.apache.kafka.connect.transforms.predicates."
S21_FROM_SEED = 118
NEW_MODES = ("microseconds", "nanoseconds", "isostring")
GUARD = "nt21"


def _guard_null_trial(rng: random.Random, props: dict[str, str]) -> dict[str, str]:
    """Every stage without a predicate after the unwrap behind `RecordIsTombstone` negated (four in five)."""
    out = dict(props)
    aliases = [a for a in out.get("transforms", "").split(",") if a]
    if "u20" not in aliases or rng.random() < 0.2:
        return out
    guarded = False
    for alias in aliases[aliases.index("u20") + 1 :]:
        pre = f"transforms.{alias}."
        if pre + "predicate" in out:
            continue
        out[pre + "predicate"], out[pre + "negate"] = GUARD, "true"
        guarded = True
    if guarded:
        preds = [p for p in out.get("predicates", "").split(",") if p]
        out["predicates"] = ",".join([*preds, GUARD])
        out[f"predicates.{GUARD}.type"] = P + "RecordIsTombstone"
    return out


def _precision(rng: random.Random, props: dict[str, str]) -> dict[str, str]:
    out = dict(props)
    aliases = [a for a in out.get("transforms", "").split(",") if a]
    dates = "u19" in aliases
    if "time.precision.mode" in out or dates:
        if rng.random() < 0.6:
            out["time.precision.mode"] = rng.choice(NEW_MODES)
    elif rng.random() < 0.08:
        out["time.precision.mode"] = rng.choice(NEW_MODES)
    return out


def add_s21(
    seed: int, trial: int, db: str, workload: str, props: dict[str, str]
) -> tuple[dict[str, str], str]:
    if seed < S21_FROM_SEED:
        return props, workload
    props = _guard_null_trial(random.Random(f"s21guard-{seed}/{trial}/{db}"), props)
    return _precision(random.Random(f"s21modes-{seed}/{trial}/{db}"), props), workload
