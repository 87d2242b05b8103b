"""Options of the data-plane campaign that no draw reached before session 20 (all accepted by the emulator):

- "null trials" (~15 %): the unwrapped rows of a table whose nullable columns have defaults and hold NULLs
  (`pg_key_defaults_connect.sql`'s `ud` / `mk`, `mariadb_more_connect.sql`'s `gadgets`), through 1-4 stages that
  read those fields, each with a drawn `replace.null.with.default` (Kafka 4's `Struct.get` versus
  `getWithoutDefault`; only `ReplaceField` and `ExtractNewRecordState` had drawn it): `Cast`, `MaskField`,
  `HeaderFrom` of two fields, `ReplaceField` renames with `exclude`, `InsertField`, `ExtractField` (then a
  whole-value `Cast`), `ValueToKey`, `SetSchemaMetadata`, `TimestampConverter`, and sometimes an `InsertField$Key`
  first; JSON converters with a drawn `replace.null.with.default` / `decimal.format`, or Avro values;
- in the other trials: a whole-value `Cast$Key` after `ExtractField$Key`; `RegexRouter` edge cases (a regex that
  never matches, inline flags, `$0`, an escaped `\\$`, groups swapped); a `ReplaceField` whose `renames` field is
  also excluded or included; a first `Filter` behind a `TopicNameMatches` with `negate=true` (keep one table);
  the AvroConverter's `avro.remove.java.properties` / `avro.use.logical.type.converters`.

From random streams of their own, applied after the others and only from seed 109 (S20_FROM_SEED): older seeds
keep their trials whole.
"""

from __future__ import annotations

import random

from emulator.testing.connect_draw_props import base_props

K = "org.apache.kafka.connect.transforms."
P = "org.apache.kafka.connect.transforms.predicates."
S20_FROM_SEED = 109
JSON = "org.apache.kafka.connect.json.JsonConverter"
AVRO = "io.confluent.connect.avro.AvroConverter"
SIMPLE = "org.apache.kafka.connect.storage.SimpleHeaderConverter"
# per database: workload, table, (fields with defaults or NULLs: numeric first, then the others), a date field
NULL_TABLES = {
    "pg": (
        ("pg_key_defaults_connect.sql", "ud", ("a", "c", "b"), "d"),
        ("pg_key_defaults_connect.sql", "mk", ("v", "g"), None),
    ),
    "mariadb": (("mariadb_more_connect.sql", "gadgets", ("tiny", "amount", "size"), "dt"),),
}
# a replacement of the column's scale (new BigDecimal(text) keeps it)
DECIMAL_MASKS = {"c": "1.50", "amount": "0.000001"}
REGEX_EDGES = (
    (r"nomatch\.(.*)", "never.$1"),  # matches no topic: each keeps its own
    (r"(?i)DBSERVER1\.(.*)", "ci.$1"),  # an inline flag
    (r"dbserver1\.(.*)", "$0.copy"),  # the whole match
    (r"dbserver1\.(.*)", "lit\\$.$1"),  # an escaped dollar
    (r"(dbserver1)\.([a-z]+)\.(.*)", "$3.$2.$1"),  # groups swapped
    (r"dbserver1", "renamed"),  # only the schema-change / transaction topics (matches() on the whole name)
)
KEEP_ONE = (".*customers", ".*orders_2024", ".*(products|gadgets)", r"dbserver1\.transaction")


def _bool(rng: random.Random) -> str:
    return rng.choice(("true", "false"))


def null_stage(rng: random.Random, fields: tuple[str, ...], date: str | None, last: bool) -> dict[str, str]:
    f = rng.choice(fields)
    num = fields[0]
    kinds = ["cast", "mask", "header_from", "replace", "insert", "value_to_key", "metadata"]
    kinds += ["extract"] if last else []
    kinds += ["timestamp"] if date else []
    kind = rng.choice(kinds)
    if kind == "cast":
        o = {"type": K + "Cast$Value", "spec": f"{num}:{rng.choice(('string', 'float64', 'int32', 'int64'))}"}
    elif kind == "mask":
        o = {"type": K + "MaskField$Value", "fields": f}
        if f in DECIMAL_MASKS:
            # Kafka's default mask BigDecimal.ZERO has scale 0: every converter fails it on a NUMERIC(6,2)
            o["replacement"] = DECIMAL_MASKS[f]
        elif f != num and rng.random() < 0.5:
            o["replacement"] = "***"
    elif kind == "header_from":
        two = rng.sample(list(fields), 2)
        o = {
            "type": K + "HeaderFrom$Value",
            "fields": ",".join(two),
            "headers": ",".join("h_" + x for x in two),
            "operation": rng.choice(("copy", "move")),
            "_guard": "tombstone",
        }
    elif kind == "replace":
        o = {"type": K + "ReplaceField$Value", "renames": f"{f}:x_{f}"}
        r = rng.random()
        if r < 0.4:
            o["exclude"] = rng.choice(fields)  # maybe the renamed field itself: excluded first
        elif r < 0.7:
            o["include"] = ",".join(rng.sample(list(fields), rng.randint(1, len(fields))))
    elif kind == "insert":
        o = {"type": K + "InsertField$Value", "static.field": "origin", "static.value": "s20"}
    elif kind == "value_to_key":
        o = {"type": K + "ValueToKey", "fields": ",".join(rng.sample(list(fields), 2)), "_guard": "tombstone"}
    elif kind == "metadata":
        o = {"type": K + "SetSchemaMetadata$Value", "schema.name": "com.example.Row"}
    elif kind == "timestamp":
        o = {"type": K + "TimestampConverter$Value", "field": date or "", "target.type": "string"}
        o["format"] = "yyyy-MM-dd"
    else:
        o = {"type": K + "ExtractField$Value", "field": f}
    if rng.random() < 0.8:
        o["replace.null.with.default"] = _bool(rng)
    return o


def _null_trial(rng: random.Random, db: str) -> tuple[dict[str, str], str]:
    workload, table, fields, date = rng.choice(NULL_TABLES[db])
    props = base_props(db, "tables")
    props["table.include.list"] = ("public." if db == "pg" else "inventory.") + table
    aliases: list[str] = []
    preds: list[str] = []

    def add(alias: str, opts: dict[str, str]) -> None:
        guard = opts.pop("_guard", None)
        if guard:  # not on tombstones (HeaderFrom and ValueToKey fail on them)
            p = f"n{len(preds)}"
            preds.append(p)
            props[f"predicates.{p}.type"] = P + "RecordIsTombstone"
            opts["predicate"], opts["negate"] = p, "true"
        aliases.append(alias)
        for k, v in opts.items():
            props[f"transforms.{alias}.{k}"] = v

    if rng.random() < 0.25:
        add("k20", {"type": K + "InsertField$Key", "static.field": "region", "static.value": "eu"})
    unwrap = {"type": "io.debezium.transforms.ExtractNewRecordState"}
    if rng.random() < 0.5:
        unwrap["replace.null.with.default"] = _bool(rng)
    if rng.random() < 0.4:
        unwrap["delete.tombstone.handling.mode"] = rng.choice(("rewrite", "drop", "tombstone"))
    add("u20", unwrap)
    n = rng.choice((1, 2, 2, 3, 4))
    left = list(fields)
    for i in range(n):
        if len(left) < 2:
            break
        stage = null_stage(rng, tuple(left), date, last=i == n - 1)
        # later stages read fields that are still there (a renamed or moved field would fail every record)
        gone = [x.split(":")[0] for x in stage.get("renames", "").split(",") if x]
        gone += stage.get("exclude", "").split(",")
        if stage.get("operation") == "move":
            gone += stage["fields"].split(",")
        if "include" in stage:
            gone += [x for x in left if x not in stage["include"].split(",")]
            date = None
        left = [x for x in left if x not in gone]
        add(f"s20n{i}", stage)
        if stage["type"].endswith("ExtractField$Value") and rng.random() < 0.6:
            spec = rng.choice(("string", "float64", "int64", "boolean"))
            add("w20", {"type": K + "Cast$Value", "spec": spec})  # the whole (primitive) value
    if rng.random() < 0.5:
        props["errors.tolerance"] = "all"  # a record a stage fails is skipped in both: the rest is compared
    props["transforms"] = ",".join(aliases)
    if preds:
        props["predicates"] = ",".join(preds)
    props["key.converter"] = JSON
    if rng.random() < 0.3:
        props["key.converter.schemas.enable"] = "false"
    if rng.random() < 0.75:
        props["value.converter"] = JSON
        if rng.random() < 0.7:
            props["value.converter.replace.null.with.default"] = _bool(rng)
        if rng.random() < 0.4:
            props["value.converter.decimal.format"] = rng.choice(("BASE64", "NUMERIC"))
        if rng.random() < 0.2:
            props["value.converter.schemas.enable"] = "false"
    else:
        props["value.converter"] = AVRO
        props["value.converter.schema.registry.url"] = "mock://s20null"
    props["header.converter"] = rng.choice((SIMPLE, JSON))
    return props, workload


def _insert_first(props: dict[str, str], alias: str, opts: dict[str, str]) -> None:
    aliases = [a for a in props.get("transforms", "").split(",") if a]
    props["transforms"] = ",".join([alias, *aliases])
    for k, v in opts.items():
        props[f"transforms.{alias}.{k}"] = v


def _insert_after(props: dict[str, str], after: str, alias: str, opts: dict[str, str]) -> None:
    aliases = props["transforms"].split(",")
    aliases.insert(aliases.index(after) + 1, alias)
    props["transforms"] = ",".join(aliases)
    for k, v in opts.items():
        props[f"transforms.{alias}.{k}"] = v


def _chain_edges(rng: random.Random, props: dict[str, str]) -> dict[str, str]:
    out = dict(props)
    for alias in [a for a in out.get("transforms", "").split(",") if a]:
        pre = f"transforms.{alias}."
        kind = out.get(pre + "type", "")
        if kind == K + "ExtractField$Key" and out.get(pre + "field") == "id" and rng.random() < 0.5:
            spec = rng.choice(("string", "int64", "float64", "int8", "boolean"))
            _insert_after(out, alias, alias + "c20", {"type": K + "Cast$Key", "spec": spec})
        elif kind == K + "RegexRouter" and rng.random() < 0.4:
            out[pre + "regex"], out[pre + "replacement"] = rng.choice(REGEX_EDGES)
        elif kind.startswith(K + "ReplaceField$") and out.get(pre + "renames") and rng.random() < 0.4:
            first = out[pre + "renames"].split(",")[0].split(":")[0]
            out[pre + rng.choice(("exclude", "include"))] = first
    if rng.random() < 0.1 and "u20" not in out.get("transforms", ""):  # (a null trial has one table)
        preds = [p for p in out.get("predicates", "").split(",") if p]
        out["predicates"] = ",".join([*preds, "keep20"])
        out["predicates.keep20.type"] = P + "TopicNameMatches"
        out["predicates.keep20.pattern"] = rng.choice(KEEP_ONE)
        _insert_first(out, "f20", {"type": K + "Filter", "predicate": "keep20", "negate": "true"})
    for part in ("key", "value"):
        if out.get(f"{part}.converter") == AVRO:
            for flag in ("avro.remove.java.properties", "avro.use.logical.type.converters"):
                if rng.random() < 0.25:
                    out[f"{part}.converter.{flag}"] = "true"
    return out


def add_s20(
    seed: int, trial: int, db: str, workload: str, props: dict[str, str]
) -> tuple[dict[str, str], str]:
    if seed < S20_FROM_SEED:
        return props, workload
    nulls = random.Random(f"s20nulls-{seed}/{trial}/{db}")
    if nulls.random() < 0.15:
        props, workload = _null_trial(nulls, db)
    return _chain_edges(random.Random(f"s20-{seed}/{trial}/{db}"), props), workload
