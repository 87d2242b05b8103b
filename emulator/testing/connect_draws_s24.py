"""Options of the data-plane campaign that no draw reached before session 24, and fewer trials that compare nothing:

- session 23's header-stage and ExtractField V2 draws (connect_draws_s23) often ended both-fail at the first
  record, identically on both sides (seeds 150-159 by hand: four of six stopped at a MariaDB schema change), so
  few records were compared: from S24_FROM_SEED they are drawn less often (`s23_weights`);
- "unset trials" (~6 % of MariaDB trials): `mariadb_unset_required.sql`'s `ur` (NOT NULL DATETIME / TIME columns
  with defaults that the connector's converter cannot convert under `time.precision.mode` nanoseconds, connect or
  isostring, so it leaves them unset: connect/unset.py) through `ExtractField$Value after` or
  `ExtractNewRecordState`, then 1-3 of session 20's null-trial stages with a drawn `replace.null.with.default`
  (Kafka reads the unset field with `getWithoutDefault` and its `Struct.put` refuses the null: session 24's
  `put_raw`);
- "outbox2 trials" (~8 % of PostgreSQL trials): `pg_outbox2.sql` through EventRouter with
  `table.field.event.timestamp` (the record's timestamp: a later TimestampRouter formats it) and
  `table.field.event.schema.version`, placements of those columns, and sometimes a column of another type as the
  timestamp (the record fails);
- InsertField `offset.field` (accepted in session 24: every record with a value fails, as Kafka's
  `requireSinkRecord` does on a source record), ByLogicalTableRouter `logical.table.cache.size` (valid, 0, -1, or
  not a number: refused by both), the AvroConverter's `basic.auth.credentials.source` / `basic.auth.user.info`
  (a `mock://` registry ignores them in both).

The generator's test builds every draw with the emulator's configuration code: accepted, or refused in one line
naming a property of the draw.

From random streams of their own, applied after the others and only from seed 152 (S24_FROM_SEED): older seeds
keep their trials whole (seeds 150 and 151 ran the session-23 draws).
"""

from __future__ import annotations

import random

from emulator.testing.connect_draw_props import base_props
from emulator.testing.connect_draws_s20 import null_stage

S24_FROM_SEED = 152
K = "org.apache.kafka.connect.transforms."
P = K + "predicates."
JSON = "org.apache.kafka.connect.json.JsonConverter"
AVRO = "io.confluent.connect.avro.AvroConverter"
STRING = "org.apache.kafka.connect.storage.StringConverter"
SIMPLE = "org.apache.kafka.connect.storage.SimpleHeaderConverter"
ROUTER = "io.debezium.transforms.outbox.EventRouter"
UNWRAP = "io.debezium.transforms.ExtractNewRecordState"
# mariadb_unset_required.sql's `ur`: fields that can be unset or null first the numeric one (s20.null_stage casts it)
UNSET_FIELDS = ("n", "dtz", "dtd", "tm", "ts", "dtn", "tn")
CACHE_SIZES = ("1", "0", "-1", "1000", "abc")
AUTH_SOURCES = ("USER_INFO", "URL", "SASL_INHERIT", "NOPE")


def s23_weights(seed: int) -> tuple[float, float]:
    """connect_draws_s23's chances of its ExtractField V2 trial and of its header stages."""
    return (0.07, 0.2) if seed < S24_FROM_SEED else (0.03, 0.08)


def _unset_trial(rng: random.Random) -> tuple[dict[str, str], str]:
    props = base_props("mariadb", "tables")
    props["table.include.list"] = "inventory.ur"
    props["include.schema.changes"] = "false"  # ExtractField `after` on a schema change fails every one
    props["time.precision.mode"] = rng.choice(
        ("nanoseconds", "nanoseconds", "nanoseconds", "connect", "isostring")
    )
    aliases: list[str] = []
    preds: list[str] = []
    guard_all = rng.random() < 0.8  # not on tombstones / deletes' null `after` (a stage needs a value)

    def add(alias: str, opts: dict[str, str]) -> None:
        guard = opts.pop("_guard", None)
        if (guard or guard_all) and aliases:
            if not preds:
                preds.append("nt24")
                props["predicates.nt24.type"] = P + "RecordIsTombstone"
            opts["predicate"], opts["negate"] = "nt24", "true"
        aliases.append(alias)
        for k, v in opts.items():
            props[f"transforms.{alias}.{k}"] = v

    if rng.random() < 0.7:
        add(
            "x24", {"type": K + "ExtractField$Value", "field": "after"}
        )  # the row as Debezium's Struct holds it
    else:
        first = {"type": UNWRAP}
        if rng.random() < 0.5:
            first["replace.null.with.default"] = rng.choice(("true", "false"))
        add("u24", first)
    left = list(UNSET_FIELDS)
    date = "dtd" if props["time.precision.mode"] == "nanoseconds" else None
    for i in range(rng.choice((1, 1, 2, 3))):
        stage = null_stage(rng, tuple(left), date, last=False)
        gone = [x.split(":")[0] for x in stage.get("renames", "").split(",") if x]
        gone += stage.get("exclude", "").split(",")
        if stage.get("operation") == "move":
            gone += stage["fields"].split(",")
        if "include" in stage:
            gone += [x for x in left if x not in stage["include"].split(",")]
        left = [x for x in left if x not in gone]
        if date not in left:
            date = None
        add(f"s24u{i}", stage)
        if len(left) < 2:
            break
    if rng.random() < 0.6:
        props["errors.tolerance"] = "all"  # the records a stage fails are skipped in both: the rest compared
    props["transforms"] = ",".join(aliases)
    if preds:
        props["predicates"] = ",".join(preds)
    props["key.converter"] = JSON
    if rng.random() < 0.8:
        props["value.converter"] = JSON
        if rng.random() < 0.5:
            props["value.converter.replace.null.with.default"] = rng.choice(("true", "false"))
    else:
        props["value.converter"] = AVRO
        props["value.converter.schema.registry.url"] = "mock://s24unset"
    props["header.converter"] = rng.choice((SIMPLE, JSON))
    return props, "mariadb_unset_required.sql"


def _outbox2_trial(rng: random.Random) -> tuple[dict[str, str], str]:
    props = base_props("pg", "tables")
    props["table.include.list"] = "public.outbox2"
    o: dict[str, str] = {"type": ROUTER}
    r = rng.random()
    if r < 0.8:
        o["table.field.event.timestamp"] = "created_at"
    elif r < 0.9:
        o["table.field.event.timestamp"] = rng.choice(("version", "aggregateid"))  # not a timestamp: fails
    if rng.random() < 0.6:
        o["table.field.event.schema.version"] = "version"
    placements = [
        p for p in ("version:header:v", "created_at:envelope:at", "part:partition") if rng.random() < 0.3
    ]
    if placements:
        o["table.fields.additional.placement"] = ",".join(placements)
    if rng.random() < 0.3:
        o["route.tombstone.on.empty.payload"] = "true"
    if rng.random() < 0.3:
        o["table.op.invalid.behavior"] = rng.choice(("warn", "error", "fatal"))
    props["transforms"] = "o24"
    for k, v in o.items():
        props[f"transforms.o24.{k}"] = v
    if rng.random() < 0.3:  # the record's timestamp is the event's: TimestampRouter can format it
        props["transforms"] = "o24,t24"
        props["transforms.t24.type"] = K + "TimestampRouter"
        props["transforms.t24.topic.format"] = "${topic}-${timestamp}"
        props["transforms.t24.timestamp.format"] = rng.choice(("yyyyMMdd", "yyyy-MM-dd'T'HH:mm:ss.SSS"))
    props["key.converter"] = rng.choice((JSON, STRING))
    props["value.converter"] = rng.choice((JSON, JSON, AVRO, STRING))
    if props["value.converter"] == AVRO:
        props["value.converter.schema.registry.url"] = "mock://s24outbox"
    props["header.converter"] = rng.choice((SIMPLE, JSON))
    return props, "pg_outbox2.sql"


def _options(rng: random.Random, props: dict[str, str]) -> dict[str, str]:
    """InsertField offset.field, ByLogicalTableRouter logical.table.cache.size, Avro basic.auth.* on the chain
    and converters a trial already drew."""
    out = dict(props)
    for alias in [a for a in out.get("transforms", "").split(",") if a]:
        pre = f"transforms.{alias}."
        kind = out.get(pre + "type", "")
        if kind.startswith(K + "InsertField$") and rng.random() < 0.2:
            out[pre + "offset.field"] = rng.choice(("off", "off?", "off!"))
            if rng.random() < 0.7:
                out["errors.tolerance"] = "all"  # tombstones and the rest of the chain still compared
        elif kind == "io.debezium.transforms.ByLogicalTableRouter" and rng.random() < 0.5:
            out[pre + "logical.table.cache.size"] = rng.choice(CACHE_SIZES)
    for part in ("key", "value"):
        url = out.get(f"{part}.converter.schema.registry.url", "")
        if out.get(f"{part}.converter") == AVRO and url.startswith("mock://") and rng.random() < 0.2:
            if rng.random() < 0.7:
                out[f"{part}.converter.basic.auth.credentials.source"] = rng.choice(AUTH_SOURCES)
            if rng.random() < 0.7:
                out[f"{part}.converter.basic.auth.user.info"] = "user:secret"
    return out


def add_s24(
    seed: int, trial: int, db: str, workload: str, props: dict[str, str]
) -> tuple[dict[str, str], str]:
    if seed < S24_FROM_SEED:
        return props, workload
    special = random.Random(f"s24trial-{seed}/{trial}/{db}")
    r = special.random()
    if db == "mariadb" and r < 0.06:
        props, workload = _unset_trial(special)
    elif db == "pg" and r < 0.08:
        props, workload = _outbox2_trial(special)
    return _options(random.Random(f"s24opts-{seed}/{trial}/{db}"), props), workload
