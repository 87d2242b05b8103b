"""Options of the data-plane campaign that session 18 added (the other draw modules never set them): Kafka's
NumberConverters and BooleanConverter as key converters (behind a last `ExtractField$Key` of `id`) and as header
converters (behind `DropHeaders` of Debezium's context headers and an `InsertHeader` literal), `ByteArrayConverter`
as key converter, the AvroConverter's `scrub.invalid.names`, and trials on `pg_names_connect.sql` (names Avro
rejects: hyphens, spaces, leading digits, non-ASCII letters; `topic.prefix` with a hyphen) through Avro key and
value converters with or without scrubbing; from seed 97 (S18_MORE_FROM_SEED) also Debezium's MySQL
`ReadToInsertEvent` and `ByLogicalTableRouter` `schema.name.adjustment.mode`.

From random streams of their own, applied after the others and only from seed 96 (S18_FROM_SEED): older seeds
keep their trials whole.
"""

from __future__ import annotations

import random

K = "org.apache.kafka.connect.transforms."
D = "io.debezium.transforms."
C = "org.apache.kafka.connect.converters."
AVRO = "io.confluent.connect.avro.AvroConverter"
SIMPLE = "org.apache.kafka.connect.storage.SimpleHeaderConverter"
JSON = "org.apache.kafka.connect.json.JsonConverter"
S18_FROM_SEED = 96
S18_MORE_FROM_SEED = 97
CONTEXT_HEADERS = ",".join(
    f"__debezium.context.{h}" for h in ("connectorLogicalName", "taskId", "connectorName", "runId")
)
NAMES_WORKLOAD = "pg_names_connect.sql"


def _aliases(props: dict[str, str]) -> list[str]:
    return [a for a in props.get("transforms", "").split(",") if a]


def _stage(props: dict[str, str], alias: str, opts: dict[str, str], first: bool = False) -> None:
    props["transforms"] = ",".join([alias, *_aliases(props)] if first else [*_aliases(props), alias])
    for k, v in opts.items():
        props[f"transforms.{alias}.{k}"] = v


def _set_converter(props: dict[str, str], part: str, cls: str) -> None:
    for k in [k for k in props if k.startswith(f"{part}.converter.")]:
        del props[k]
    props[f"{part}.converter"] = cls


def _names_trial(rng: random.Random, seed: int, trial: int) -> dict[str, str]:
    scope = f"mock://s{seed}-{trial}"
    props = {
        "name": "connect-pg",
        "connector.class": "io.debezium.connector.postgresql.PostgresConnector",
        "offset.storage": "org.apache.kafka.connect.storage.FileOffsetBackingStore",
        "offset.flush.interval.ms": "1000",
        "database.user": "postgres",
        "database.password": "postgres",
        "database.dbname": "postgres",
        "topic.prefix": rng.choice(("dbserver1", "my-server")),
        "plugin.name": "pgoutput",
        "slot.name": "debezium",
        "publication.name": "dbz_publication",
        "snapshot.mode": "initial",
        "header.converter": rng.choice((SIMPLE, JSON)),
    }
    for part in ("key", "value"):
        if part == "key" and rng.random() < 0.3:
            props["key.converter"] = JSON
            continue
        props[f"{part}.converter"] = AVRO
        props[f"{part}.converter.schema.registry.url"] = scope
        if rng.random() < 0.8:
            props[f"{part}.converter.scrub.invalid.names"] = "true"
    if rng.random() < 0.3:
        props["table.include.list"] = r"public\.t.*"  # the table whose only bad name is a non-ASCII letter
    if rng.random() < 0.4:
        _stage(props, "unwrap", {"type": D + "ExtractNewRecordState"})
    if rng.random() < 0.2:
        props["field.name.adjustment.mode"] = rng.choice(("avro", "avro_unicode"))
    if rng.random() < 0.2:
        props["value.converter.connect.meta.data"] = "false"
    return props


def add_s18(
    seed: int, trial: int, db: str, workload: str, props: dict[str, str]
) -> tuple[dict[str, str], str]:
    if seed < S18_FROM_SEED:
        return props, workload
    names = random.Random(f"s18names-{seed}/{trial}/{db}")
    if db == "pg" and names.random() < 0.12:
        return _names_trial(names, seed, trial), NAMES_WORKLOAD
    out = dict(props)
    num = random.Random(f"s18num-{seed}/{trial}/{db}")
    r = num.random()
    if r < 0.15:
        _stage(out, "ek18", {"type": K + "ExtractField$Key", "field": "id"})
        cls = num.choice(("Integer", "Integer", "Integer", "Long", "Short", "Double", "Boolean"))
        _set_converter(out, "key", f"{C}{cls}Converter")
    elif r < 0.23:
        _stage(out, "dh18", {"type": K + "DropHeaders", "headers": CONTEXT_HEADERS})
        literal = num.choice(("true", "false", "-5", "300", "70000", "3000000000", "x"))  # Byte .. Long
        _stage(out, "ih18", {"type": K + "InsertHeader", "header": "n18", "value.literal": literal})
        cls = num.choice(("Boolean", "Integer", "Long", "Short", "Float", "Double"))
        _set_converter(out, "header", f"{C}{cls}Converter")
    elif r < 0.27:
        _set_converter(out, "key", C + "ByteArrayConverter")
    # (from seed 97: emulated after seed 96 started) MySQL's ReadToInsertEvent first, ByLogicalTableRouter's
    # schema.name.adjustment.mode
    more = random.Random(f"s18more-{seed}/{trial}/{db}")
    if seed >= S18_MORE_FROM_SEED:
        if db == "mariadb" and more.random() < 0.15:
            _stage(
                out, "r2i18", {"type": "io.debezium.connector.mysql.transforms.ReadToInsertEvent"}, first=True
            )
        for alias in _aliases(out):
            if out.get(f"transforms.{alias}.type") == D + "ByLogicalTableRouter" and more.random() < 0.4:
                out[f"transforms.{alias}.schema.name.adjustment.mode"] = more.choice(("avro", "avro_unicode"))
    scrub = random.Random(f"s18scrub-{seed}/{trial}/{db}")
    for pre in ("key.converter.", "value.converter.", "value.converter.avro."):
        if out.get(pre + "schema.registry.url") and scrub.random() < 0.3:
            out[pre + "scrub.invalid.names"] = "true"
    return out, workload
