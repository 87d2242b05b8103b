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
  the record in both);
- EventRouter options no draw set: `route.topic.regex` (a group around part of the value, a regex that does not
  match), `table.field.event.key` / `.id` / `.payload` on other columns (a VARCHAR key, a key from the UUID id,
  a VARCHAR payload), an additional placement of a column the table lacks with `table.field.additional.missing`
  `error` / `ignore`; ~10 % of the trials are "outbox trials" (the outbox table through EventRouter alone, with
  the options above and the older ones drawn, JSON / Avro / String values), since the chains reach EventRouter
  on the outbox table rarely.

From random streams of their own, applied after the others and only from seed 118 (S21_FROM_SEED): older seeds
keep their trials whole.
"""

from __future__ import annotations

import random

from emulator.testing.connect_draw_props import base_props

P = "org.apache.kafka.connect.transforms.predicates."
S21_FROM_SEED = 118
NEW_MODES = ("microseconds", "nanoseconds", "isostring")
GUARD = "nt21"
S21_NUMERIC_FROM_SEED = 120
S21_NULL_DATES_FROM_SEED = 122
# a date trial's string column -> a column of its table the new modes give a number (connect_draws_s19.TIMES)
NUMERIC_AFTER = {"mariadb": {"ts": "dt"}, "pg": {"at_tz": "at_local", "tstz": "ts"}}
ROUTER = "io.debezium.transforms.outbox.EventRouter"
JSON = "org.apache.kafka.connect.json.JsonConverter"
AVRO = "io.confluent.connect.avro.AvroConverter"
STRING = "org.apache.kafka.connect.storage.StringConverter"
SIMPLE = "org.apache.kafka.connect.storage.SimpleHeaderConverter"
TOPIC_REGEXES = (
    "(?<routedByValue>[A-Z])(.*)",
    "(?<routedByValue>.*)er",
    "x(?<routedByValue>.*)",
    "(?<routedByValue>.*)",
)


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


def _precision(rng: random.Random, props: dict[str, str], db: str, numeric: bool) -> dict[str, str]:
    out = dict(props)
    aliases = [a for a in out.get("transforms", "").split(",") if a]
    dates = "u19" in aliases
    if "time.precision.mode" in out or dates:
        if rng.random() < 0.6:
            out["time.precision.mode"] = rng.choice(NEW_MODES)
            # (from seed 120) mostly a column the new mode makes a number (a MicroTimestamp / NanoTimestamp or
            # days: TimestampConverter reads an int64 as unix milliseconds): a TIMESTAMP is a ZonedTimestamp
            # string in every mode, which most drawn patterns fail on both sides
            field = out.get("transforms.tc19.field")
            if numeric and dates and field in NUMERIC_AFTER[db] and rng.random() < 0.7:
                for alias in aliases:
                    if out.get(f"transforms.{alias}.field") == field:
                        out[f"transforms.{alias}.field"] = NUMERIC_AFTER[db][field]
    elif rng.random() < 0.08:
        out["time.precision.mode"] = rng.choice(NEW_MODES)
    return out


def _router(rng: random.Random, props: dict[str, str]) -> dict[str, str]:
    out = dict(props)
    for alias in [a for a in out.get("transforms", "").split(",") if a]:
        pre = f"transforms.{alias}."
        if out.get(pre + "type") != ROUTER:
            continue
        if rng.random() < 0.35:
            out[pre + "route.topic.regex"] = rng.choice(TOPIC_REGEXES)
        if rng.random() < 0.3:
            out[pre + "table.field.event.key"] = rng.choice(("type", "aggregatetype", "id"))
        if rng.random() < 0.2:
            out[pre + "table.field.event.id"] = "aggregateid"
        if rng.random() < 0.1:
            out[pre + "table.field.event.payload"] = "type"
        if rng.random() < 0.3:
            missing = rng.choice(("nope:header", "nope:envelope:gone", "nope:header,type:header:t"))
            placed = out.get(pre + "table.fields.additional.placement")
            out[pre + "table.fields.additional.placement"] = f"{placed},{missing}" if placed else missing
            if rng.random() < 0.8:
                out[pre + "table.field.additional.missing"] = rng.choice(("error", "ignore"))
    return out


def _outbox_trial(rng: random.Random, db: str) -> tuple[dict[str, str], str]:
    props = base_props(db, "outbox")
    props["transforms"] = "o21"
    o = {"type": ROUTER}
    if rng.random() < 0.4:
        o["table.fields.additional.placement"] = rng.choice(
            ("type:header:eventType", "type:envelope:eventType", "aggregatetype:header", "type:partition")
        )
    if rng.random() < 0.3:
        o["route.topic.replacement"] = rng.choice(("outbox.${routedByValue}", "events.${routedByValue}.v1"))
    if rng.random() < 0.3:
        o["table.expand.json.payload"] = "true"
    if rng.random() < 0.2:
        o["route.by.field"] = "type"
    if rng.random() < 0.2:
        o["route.tombstone.on.empty.payload"] = "true"
    for k, v in o.items():
        props[f"transforms.o21.{k}"] = v
    props["key.converter"] = rng.choice((JSON, STRING))
    props["value.converter"] = rng.choice((JSON, JSON, AVRO, STRING))
    if props["value.converter"] == AVRO:
        props["value.converter.schema.registry.url"] = "mock://s21outbox"
    props["header.converter"] = rng.choice((SIMPLE, JSON))
    return props, "pg_connect.sql" if db == "pg" else "mariadb_connect.sql"


def _null_dates(rng: random.Random, props: dict[str, str]) -> dict[str, str]:
    """A PostgreSQL null trial's TimestampConverter reads `ud.d`, a DATE: io.debezium.time.Date (INT32) in the
    default mode, which Kafka's TimestampConverter fails on every record ("does not correspond to a known
    timestamp type format", both sides: 0 records compared). Mostly under `connect` now (Kafka's Date)."""
    out = dict(props)
    aliases = [a for a in out.get("transforms", "").split(",") if a]
    stages = [a for a in aliases if out.get(f"transforms.{a}.type", "").endswith("TimestampConverter$Value")]
    if "u20" in aliases and stages and rng.random() < 0.75:
        out["time.precision.mode"] = "connect"
    return out


def add_s21(
    seed: int, trial: int, db: str, workload: str, props: dict[str, str]
) -> tuple[dict[str, str], str]:
    if seed < S21_FROM_SEED:
        return props, workload
    if random.Random(f"s21outbox-{seed}/{trial}/{db}").random() < 0.1:
        props, workload = _outbox_trial(random.Random(f"s21outboxdraw-{seed}/{trial}/{db}"), db)
    props = _guard_null_trial(random.Random(f"s21guard-{seed}/{trial}/{db}"), props)
    props = _router(random.Random(f"s21router-{seed}/{trial}/{db}"), props)
    modes = random.Random(f"s21modes-{seed}/{trial}/{db}")
    props = _precision(modes, props, db, seed >= S21_NUMERIC_FROM_SEED)
    if db == "pg" and seed >= S21_NULL_DATES_FROM_SEED:
        props = _null_dates(random.Random(f"s21nulldates-{seed}/{trial}/{db}"), props)
    return props, workload
