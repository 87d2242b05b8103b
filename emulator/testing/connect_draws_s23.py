"""Options of the data-plane campaign that no draw reached before session 23 (a scan of seeds 140-149's draws, 1,200
trials, against the options emulator.connect.converters accepts per class and the transforms read):

- the header JsonConverter's `decimal.format`, `replace.null.with.default`, `schemas.cache.size` (only
  `schemas.enable` was drawn) and the header StringConverter's `converter.encoding`; StringConverter text in
  `UTF-16BE` / `UTF-32` (big-endian, no byte order mark: the comparison decodes it by the configuration);
- `schemas.cache.size` of the AvroConverters and the CloudEventsConverter, the other side's subject name strategy
  on an AvroConverter (a key converter reads `key.subject.name.strategy` only), the value AvroConverter's
  `latest.compatibility.strict`; the CloudEventsConverter's own `decimal.format` / `replace.null.with.default` (not
  handed to its data converter), its `json.decimal.format` / `json.replace.null.with.default` /
  `json.schemas.cache.size`, and its Avro data converter's `avro.*` options beyond the URL and flags: lookup
  without registering (`avro.auto.register.schemas=false`, `avro.use.latest.version`), subject name strategies,
  a bare `schema.registry.url` beside `avro.schema.registry.url`;
- header stages one after another: InsertHeader / HeaderFrom / DropHeaders on the same name (duplicates, a drop
  of every one of them), Debezium's context headers dropped or doubled, a later stage behind `HasHeaderKey` of a
  dropped or copied header, negated or not;
- ExtractField's `field.syntax.version=V2` (drawn twice in 1,200 trials before): nested paths on the envelope
  (`after.id`, `` `source`.db ``, a missing step), and V1 with a dotted name.

Odd values are drawn too (`schemas.cache.size` 0, -1, not a number): what Debezium refuses must be refused at start
(the emulator's one line naming the property); the generator's test builds every draw with the emulator's
configuration code to check that it is accepted or refused so.

From random streams of their own, applied after the others and only from seed 141 (S23_FROM_SEED): older seeds
keep their trials whole (seed 140 ran the session-22 draws).
"""

from __future__ import annotations

import random

from emulator.testing.connect_draws_s24 import s23_weights

S23_FROM_SEED = 141
JSON = "org.apache.kafka.connect.json.JsonConverter"
STRING = "org.apache.kafka.connect.storage.StringConverter"
AVRO = "io.confluent.connect.avro.AvroConverter"
CLOUDEVENTS = "io.debezium.converters.CloudEventsConverter"
K = "org.apache.kafka.connect.transforms."
P = K + "predicates."
STRATEGIES = tuple(
    "io.confluent.kafka.serializers.subject." + s
    for s in ("TopicNameStrategy", "RecordNameStrategy", "TopicRecordNameStrategy")
)
CACHE_SIZES = ("1", "0", "2", "1000", "-1", "abc")
ENCODINGS = ("UTF-16BE", "UTF-32", "UTF-16", "ISO-8859-1")
CONTEXT_HEADERS = ("__debezium.context.connectorName", "__debezium.context.taskId")
HEADER_COMBOS = ("insert-drop", "copy-insert-drop", "drop-context", "key-copy-guarded", "insert-context")
EXTRACT_PATHS = ("after.id", "`source`.db", "after.nope", "op", "source.ts_ms", "`after`.`id`", "after.")


def _cache_size(rng: random.Random) -> str:
    # mostly valid sizes; one draw in six a value Connect's ConfigDef or the cache may refuse
    return rng.choice(CACHE_SIZES[:4] * 5 + CACHE_SIZES[4:])


def _converter_options(rng: random.Random, props: dict[str, str]) -> dict[str, str]:
    out = dict(props)
    for part in ("key", "value", "header"):
        cls = out.get(f"{part}.converter", "")
        pre = f"{part}.converter."
        if cls == JSON and rng.random() < 0.35:
            if part == "header" or rng.random() < 0.3:
                out[pre + "schemas.cache.size"] = _cache_size(rng)
            if part == "header":
                if rng.random() < 0.6:
                    out[pre + "decimal.format"] = rng.choice(("BASE64", "NUMERIC"))
                if rng.random() < 0.5:
                    out[pre + "replace.null.with.default"] = rng.choice(("true", "false"))
        elif cls == STRING and pre + "converter.encoding" not in out and rng.random() < 0.3:
            out[pre + "converter.encoding"] = rng.choice(ENCODINGS)
        elif cls == AVRO and rng.random() < 0.4:
            if rng.random() < 0.5:
                out[pre + "schemas.cache.size"] = _cache_size(rng)
            other = "value" if part == "key" else "key"
            if rng.random() < 0.4:  # read by the other side's converter only
                out[f"{pre}{other}.subject.name.strategy"] = rng.choice(STRATEGIES[1:])
            if rng.random() < 0.4:
                out[pre + "latest.compatibility.strict"] = rng.choice(("true", "false"))
        elif cls == CLOUDEVENTS and rng.random() < 0.6:
            _cloudevents(rng, out)
    return out


def _cloudevents(rng: random.Random, out: dict[str, str]) -> None:
    pre = "value.converter."
    if rng.random() < 0.3:
        out[pre + "schemas.cache.size"] = _cache_size(rng)
    if rng.random() < 0.3:  # given to the CloudEventsConverter itself: not handed to its data converter
        if rng.random() < 0.5:
            out[pre + "decimal.format"] = rng.choice(("BASE64", "NUMERIC"))
        else:
            out[pre + "replace.null.with.default"] = rng.choice(("true", "false"))
    if out.get(pre + "data.serializer.type", "json") == "json":
        if rng.random() < 0.5:
            out[pre + "json.decimal.format"] = rng.choice(("BASE64", "NUMERIC"))
        if rng.random() < 0.4:
            out[pre + "json.replace.null.with.default"] = rng.choice(("true", "false"))
        if rng.random() < 0.2:
            out[pre + "json.schemas.cache.size"] = _cache_size(rng)
        return
    avro = pre + "avro."
    if rng.random() < 0.25:
        out[pre + "schema.registry.url"] = out.get(avro + "schema.registry.url", "mock://s23")  # not read
    if rng.random() < 0.3:
        out[avro + "value.subject.name.strategy"] = rng.choice(STRATEGIES)
    if rng.random() < 0.25:
        out[avro + "auto.register.schemas"] = "false"
        if rng.random() < 0.5:
            out[avro + "use.latest.version"] = "true"
        if rng.random() < 0.85:
            out["harness.preregister"] = "true"
    if rng.random() < 0.25:
        out[avro + "schemas.cache.size"] = _cache_size(rng)
    if rng.random() < 0.2:
        out[avro + "latest.compatibility.strict"] = "false"
    if rng.random() < 0.2:
        out[avro + rng.choice(("avro.remove.java.properties", "avro.use.logical.type.converters"))] = "true"


def _header_stages(rng: random.Random, props: dict[str, str]) -> dict[str, str]:
    """Two or three header stages at the end of the chain, on names they share."""
    out = dict(props)
    combo = rng.choice(HEADER_COMBOS)
    field = rng.choice(("id", "id", "op", "after", "nope"))
    literal = rng.choice(("x", "42", "true", "1.5", "-7", "a b"))
    stages: list[tuple[str, dict[str, str]]] = []
    preds: dict[str, dict[str, str]] = {}
    if combo == "insert-drop":
        stages.append(("InsertHeader", {"header": "h23", "value.literal": literal}))
        if rng.random() < 0.5:
            stages.append(("InsertHeader", {"header": "h23", "value.literal": "second"}))
        stages.append(("DropHeaders", {"headers": rng.choice(("h23", "h23,nope", "nope"))}))
    elif combo == "copy-insert-drop":
        op = rng.choice(("copy", "move"))
        stages.append(("HeaderFrom$Value", {"fields": field, "headers": "h23", "operation": op}))
        stages.append(("InsertHeader", {"header": "h23", "value.literal": literal}))
        if rng.random() < 0.6:
            stages.append(("DropHeaders", {"headers": "h23"}))
    elif combo == "drop-context":
        dropped = rng.choice((*CONTEXT_HEADERS, ",".join(CONTEXT_HEADERS)))
        stages.append(("DropHeaders", {"headers": dropped}))
        preds["p23"] = {"type": P + "HasHeaderKey", "name": CONTEXT_HEADERS[0]}
        stages.append(("InsertHeader", {"header": "h23", "value.literal": literal, "predicate": "p23"}))
    elif combo == "key-copy-guarded":
        stages.append(("HeaderFrom$Key", {"fields": "id", "headers": "kid", "operation": "copy"}))
        preds["p23"] = {"type": P + "HasHeaderKey", "name": rng.choice(("kid", "nope"))}
        stages.append(("InsertHeader", {"header": "h23", "value.literal": literal, "predicate": "p23"}))
        if rng.random() < 0.5:
            stages.append(("DropHeaders", {"headers": "kid", "predicate": "p23"}))
    else:  # insert-context: a second header of a context header's name
        stages.append(("InsertHeader", {"header": CONTEXT_HEADERS[1], "value.literal": literal}))
        if rng.random() < 0.5:
            stages.append(("DropHeaders", {"headers": CONTEXT_HEADERS[1]}))
    aliases = [a for a in out.get("transforms", "").split(",") if a]
    for i, (kind, opts) in enumerate(stages):
        alias = f"h23_{i}"
        aliases.append(alias)
        out[f"transforms.{alias}.type"] = K + kind
        for k, v in opts.items():
            out[f"transforms.{alias}.{k}"] = v
        if "predicate" in opts and rng.random() < 0.5:
            out[f"transforms.{alias}.negate"] = "true"
    out["transforms"] = ",".join(aliases)
    if preds:
        names = [p for p in out.get("predicates", "").split(",") if p]
        for name, opts in preds.items():
            names.append(name)
            for k, v in opts.items():
                out[f"predicates.{name}.{k}"] = v
        out["predicates"] = ",".join(names)
    return out


# (from seed 144) the table topics only: a MariaDB trial's first records are schema changes, which have no
# `after` or `op`, so every unguarded trial stopped there on both sides (seeds 150-159 by hand: 0 records compared)
TABLE_TOPICS_FROM_SEED = 144
NO_TIMESTAMP_FROM_SEED = 147


def _extract_v2(rng: random.Random, props: dict[str, str], seed: int) -> dict[str, str]:
    """The chain replaced by one ExtractField$Value on Debezium's envelope, with a nested path (V2) or a dotted
    name read as one field (V1); sometimes a tombstone guard, or (from seed 144, mostly) the table topics only."""
    out = {k: v for k, v in props.items() if not k.startswith(("transforms", "predicates"))}
    pre = "transforms.x23."
    out["transforms"] = "x23"
    out[pre + "type"] = K + "ExtractField$Value"
    out[pre + "field"] = rng.choice(EXTRACT_PATHS)
    if seed >= NO_TIMESTAMP_FROM_SEED and out[pre + "field"] == "source.ts_ms":
        # the extracted value is a run's clock, which no mask can reach (seed 144 trial 9: `.value.payload:
        # golden 1795861694000 | candidate 1795861650000`, a harness artifact)
        out[pre + "field"] = "source.table"
    out[pre + "field.syntax.version"] = rng.choice(("V2", "V2", "V2", "V1"))
    r = rng.random()
    if seed >= TABLE_TOPICS_FROM_SEED and r < 0.75:
        out["predicates"] = "t23"
        out["predicates.t23.type"] = P + "TopicNameMatches"
        out["predicates.t23.pattern"] = r"dbserver1\.[^.]+\.[^.]+"
        out[pre + "predicate"] = "t23"
    elif r < 0.4 or seed >= TABLE_TOPICS_FROM_SEED and r < 0.85:
        out["predicates"] = "t23"
        out["predicates.t23.type"] = P + "RecordIsTombstone"
        out[pre + "predicate"] = "t23"
        out[pre + "negate"] = "true"
    return out


def add_s23(
    seed: int, trial: int, db: str, workload: str, props: dict[str, str]
) -> tuple[dict[str, str], str]:
    if seed < S23_FROM_SEED:
        return props, workload
    extract_p, header_p = s23_weights(seed)  # (session 24: fewer from seed 152)
    xf = random.Random(f"s23xf-{seed}/{trial}/{db}")
    if xf.random() < extract_p:
        props = _extract_v2(xf, props, seed)
    props = _converter_options(random.Random(f"s23conv-{seed}/{trial}/{db}"), props)
    hdr = random.Random(f"s23hdr-{seed}/{trial}/{db}")
    if hdr.random() < header_p:
        props = _header_stages(hdr, props)
    return props, workload
