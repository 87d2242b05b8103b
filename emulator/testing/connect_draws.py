"""The draws of the data-plane campaign (emulator.testing.differential_connect): from (seed, trial), a chain
of 1-4 transforms from issue 15's list with options from each one's documented values, predicates with
`negate`, key / value / header converters and their options, and a few connector options. The generator
follows the shape of the value along the chain (envelope, unwrapped row, outbox event, anything) so that most
chains are ones a user would write; invalid ones remain possible on purpose.
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field, replace

from emulator.testing.connect_draw_props import base_props, draw_connector_options
from emulator.testing.connect_draws_extra import add_extras
from emulator.testing.connect_draws_s16 import add_s16
from emulator.testing.connect_draws_s17 import add_s17
from emulator.testing.connect_draws_s18 import add_s18
from emulator.testing.connect_draws_s19 import add_s19
from emulator.testing.connect_draws_s20 import add_s20
from emulator.testing.connect_draws_s21 import add_s21
from emulator.testing.connect_draws_s22 import add_s22
from emulator.testing.connect_draws_s23 import add_s23
from emulator.testing.connect_draws_s24 import add_s24
from emulator.testing.workloads_mariadb_conv import conv_props

WORKLOADS = {
    "pg": ("pg_connect.sql", "pg_types_connect.sql", "pg_more_connect.sql", "pg_key_defaults_connect.sql"),
    "mariadb": ("mariadb_connect.sql", "mariadb_more_connect.sql"),
}
# per workload: (row columns the field transforms pick from, temporal columns for TimestampConverter)
COLUMNS = {
    "pg_connect.sql": (["email", "note", "qty", "id"], ["made_at", "created"]),
    "pg_types_connect.sql": (["label", "num", "tags", "id"], ["ts", "day", "tstz"]),
    "pg_more_connect.sql": (["kind", "price", "body", "id"], ["at_local", "day", "at_tz"]),
    # (session 11: NULLs in key fields with defaults; its draws changed the pg draws of older seeds)
    "pg_key_defaults_connect.sql": (["b", "c", "a", "g"], ["d"]),
    "mariadb_connect.sql": (["email", "note", "qty", "id"], ["made_at", "created", "stamped"]),
    "mariadb_more_connect.sql": (["size", "amount", "txt", "id"], ["dt", "ts"]),
    # (session 12) drawn apart, with converters= (draw)
    "mariadb_converters_connect.sql": (["c1", "r1", "b1", "id"], ["dt3", "ts2"]),
}
K = "org.apache.kafka.connect.transforms."
D = "io.debezium.transforms."
P = "org.apache.kafka.connect.transforms.predicates."
JSON = "org.apache.kafka.connect.json.JsonConverter"
STRING = "org.apache.kafka.connect.storage.StringConverter"
SIMPLE = "org.apache.kafka.connect.storage.SimpleHeaderConverter"
AVRO = "io.confluent.connect.avro.AvroConverter"
CLOUDEVENTS = "io.debezium.converters.CloudEventsConverter"
# not a connector property: tells the harness to pre-register the mock registry's subjects (run_trial)
PREREGISTER = "harness.preregister"


# ---------------------------------------------------------------------------------------------------
# the generator
# ---------------------------------------------------------------------------------------------------
@dataclass
class Chain:
    """What the generator knows of the records at this point of the chain."""

    db: str
    value: str = "envelope"  # envelope | row | outbox | other
    key: str = "struct"  # struct | other
    headers: list[str] = field(default_factory=list)
    tables: str = "tables"  # tables | outbox | all (the workload's own tables)
    cols: list[str] = field(default_factory=lambda: list(COLUMNS["pg_connect.sql"][0]))
    times: list[str] = field(default_factory=lambda: list(COLUMNS["pg_connect.sql"][1]))


def _pick(rng: random.Random, *options):
    return rng.choice(options)


def _subset(rng: random.Random, items, lo: int = 1) -> list:
    n = rng.randint(lo, len(items))
    return rng.sample(list(items), n)


def t_unwrap(rng, ch: Chain):
    if ch.value != "envelope":
        return None
    o = {"type": D + "ExtractNewRecordState"}
    if rng.random() < 0.7:
        o["delete.tombstone.handling.mode"] = _pick(
            rng, "tombstone", "drop", "rewrite", "rewrite-with-tombstone", "delete-to-tombstone"
        )
    if rng.random() < 0.6:
        pool = ["op", "table", "source.ts_ms", "source.snapshot", "db", "ts_ms", "source.connector"]
        pool += ["lsn", "schema", "txId"] if ch.db == "pg" else ["source.file", "source.pos"]
        o["add.fields"] = ",".join(_subset(rng, pool))
        if rng.random() < 0.3:
            o["add.fields.prefix"] = _pick(rng, "_", "meta_", "__dbz_")
    if rng.random() < 0.4:
        hs = _subset(rng, ["op", "db", "table", "source.ts_ms"])
        o["add.headers"] = ",".join(hs)
        prefix = "__"
        if rng.random() < 0.3:
            prefix = o["add.headers.prefix"] = _pick(rng, "h_", "dbz.")
        ch.headers += [prefix + h.replace(".", "_") for h in hs]
    if rng.random() < 0.2:
        o["replace.null.with.default"] = _pick(rng, "true", "false")
    ch.value = "row"
    return o


def t_changed(rng, ch: Chain):
    if ch.value != "envelope":
        return None
    o = {"type": D + "ExtractChangedRecordState"}
    if rng.random() < 0.8:
        o["header.changed.name"] = "Changed"
        ch.headers.append("Changed")
    if rng.random() < 0.5:
        o["header.unchanged.name"] = "Unchanged"
        ch.headers.append("Unchanged")
    return o


def t_outbox(rng, ch: Chain):
    if ch.tables != "outbox" or ch.value != "envelope":
        return None
    o = {"type": D + "outbox.EventRouter"}
    if rng.random() < 0.4:
        o["table.fields.additional.placement"] = _pick(
            rng, "type:header:eventType", "type:envelope:eventType", "aggregatetype:header", "type:partition"
        )
    if rng.random() < 0.3:
        o["route.topic.replacement"] = _pick(rng, "outbox.${routedByValue}", "events.${routedByValue}.v1")
    if rng.random() < 0.3:
        o["table.expand.json.payload"] = "true"
    if rng.random() < 0.2:
        o["route.by.field"] = "type"
    if rng.random() < 0.2:
        o["route.tombstone.on.empty.payload"] = "true"
    ch.value = "outbox"
    ch.key = "other"
    return o


def t_regex_router(rng, ch: Chain):
    regex, repl = _pick(
        rng,
        (r"dbserver1\.(public|inventory)\.(.*)", "cdc.$2"),
        (r"dbserver1\.(.*)", "all_changes"),
        (r".*orders_(.*)", "orders.$1"),
    )
    return {"type": K + "RegexRouter", "regex": regex, "replacement": repl}


def t_logical_router(rng, ch: Chain):
    if ch.key != "struct":
        return None
    o = {
        "type": D + "ByLogicalTableRouter",
        "topic.regex": r"(.*)orders_(.*)",
        "topic.replacement": "$1orders_all",
    }
    if rng.random() < 0.3:
        o["key.enforce.uniqueness"] = "false"
    elif rng.random() < 0.4:
        o["key.field.name"] = "shard"
        if rng.random() < 0.5:
            o["key.field.regex"] = r"(.*)orders_(.*)"
            o["key.field.replacement"] = "$2"
    return o


def _value_fields(ch: Chain) -> list[str]:
    return {"envelope": ["op", "ts_ms", "source", "before"], "row": ["id"]}.get(ch.value, [])


def t_replace_field(rng, ch: Chain):
    side = _pick(rng, "Value", "Value", "Key")
    if side == "Value":
        fields = {
            "envelope": ["before", "source", "ts_ms", "transaction"],
            "row": ch.cols,
        }
        pool = fields.get(ch.value)
        if not pool:
            return None
    else:
        if ch.key != "struct":
            return None
        pool = ["id"]
    o = {"type": K + f"ReplaceField${side}"}
    mode = rng.randrange(3)
    if mode == 0:
        o["exclude"] = ",".join(_subset(rng, pool))
    elif mode == 1:
        # a prefix keeps the masks (ts_ms, lsn, ... are matched by how a name ends)
        o["renames"] = ",".join(f"{f}:x_{f}" for f in _subset(rng, pool))
    else:
        o["include"] = ",".join(_subset(rng, pool))
    return o


def t_insert_field(rng, ch: Chain):
    if ch.value not in ("envelope", "row"):
        return None
    o = {"type": K + "InsertField$Value"}
    if rng.random() < 0.7:
        o["static.field"] = "origin"
        o["static.value"] = _pick(rng, "pg", "emulator", "x y")
    if rng.random() < 0.6 or len(o) == 1:
        o["topic.field"] = _pick(rng, "src_topic", "src_topic!")
    if rng.random() < 0.3:
        o["partition.field"] = "part"
    return o


def t_insert_header(rng, ch: Chain):
    name = _pick(rng, "app", "origin")
    ch.headers.append(name)
    return {
        "type": K + "InsertHeader",
        "header": name,
        "value.literal": _pick(rng, "dbz", "true", "42", "x_y"),
    }


def t_drop_headers(rng, ch: Chain):
    if not ch.headers:
        return None
    gone = _subset(rng, ch.headers)
    ch.headers = [h for h in ch.headers if h not in gone]
    return {"type": K + "DropHeaders", "headers": ",".join(gone)}


def t_header_from(rng, ch: Chain):
    pool = {"envelope": ["op", "source"], "row": ["id"]}.get(ch.value)
    if not pool:
        return None
    f = rng.choice(pool)
    ch.headers.append(f"h_{f}")
    op = _pick(rng, "copy", "move")
    if op == "move":
        ch.value = "other"
    # Kafka's HeaderFrom fails on tombstones: most users guard it
    guard = "tombstone" if rng.random() < 0.8 else None
    return {"type": K + "HeaderFrom$Value", "fields": f, "headers": f"h_{f}", "operation": op, "_skip": guard}


def t_header_to_value(rng, ch: Chain):
    if not ch.headers or ch.value not in ("envelope", "row"):
        return None
    hs = _subset(rng, ch.headers)
    o = {
        "type": D + "HeaderToValue",
        "headers": ",".join(hs),
        # the header's name as the field's suffix keeps the masks (a moved __source_ts_ms still ends in ts_ms)
        "fields": ",".join(f"hv{i}{h}" for i, h in enumerate(hs)),
        "operation": _pick(rng, "copy", "move"),
    }
    if o["operation"] == "move":
        ch.headers = [h for h in ch.headers if h not in hs]
    return o


def t_value_to_key(rng, ch: Chain):
    if ch.value != "row":
        return None
    ch.key = "struct"
    guard = "tombstone" if rng.random() < 0.8 else None  # fails on tombstones, as HeaderFrom
    return {"type": K + "ValueToKey", "fields": "id", "_skip": guard}


def t_extract_field(rng, ch: Chain):
    if rng.random() < 0.5 and ch.key == "struct":
        ch.key = "other"
        return {"type": K + "ExtractField$Key", "field": "id"}
    if ch.value != "envelope":
        return None
    f = _pick(rng, "after", "source", "op")
    ch.value = "row" if f == "after" else "other"
    return {"type": K + "ExtractField$Value", "field": f}


def t_hoist(rng, ch: Chain):
    side = _pick(rng, "Key", "Value")
    if side == "Key":
        ch.key = "other"
    else:
        ch.value = "other"
    return {"type": K + f"HoistField${side}", "field": "wrapped"}


def t_flatten(rng, ch: Chain):
    if ch.value == "other":
        return None
    ch.value = "other"
    o = {"type": K + "Flatten$Value"}
    if rng.random() < 0.5:
        o["delimiter"] = _pick(rng, "_", "__")
    return o


def t_cast(rng, ch: Chain):
    if rng.random() < 0.4 and ch.key == "struct":
        return {"type": K + "Cast$Key", "spec": _pick(rng, "id:string", "id:int64", "id:float64")}
    if ch.value != "row":
        return None
    spec = _pick(rng, "id:string", "id:int64", "id:float32", "id:boolean", "id:int16")
    return {"type": K + "Cast$Value", "spec": spec}


def t_mask(rng, ch: Chain):
    if ch.value != "row":
        return None
    o = {"type": K + "MaskField$Value", "fields": ",".join(_subset(rng, ch.cols[:3]))}
    if rng.random() < 0.5:
        o["replacement"] = _pick(rng, "0", "***")
    return o


def t_schema_metadata(rng, ch: Chain):
    o = {"type": K + "SetSchemaMetadata$" + _pick(rng, "Value", "Key")}
    o["schema.name"] = _pick(rng, "com.example.Record", "Renamed")
    if rng.random() < 0.5:
        o["schema.version"] = str(rng.randint(1, 9))
    return o


def t_filter(rng, ch: Chain):
    return {"type": K + "Filter"}  # only with a predicate (see draw_chain)


def t_timezone(rng, ch: Chain):
    if ch.value not in ("envelope", "row"):
        return None
    zone = _pick(rng, "Europe/Berlin", "+05:30", "America/New_York", "UTC", "Asia/Kolkata")
    return {"type": D + "TimezoneConverter", "converted.timezone": zone}


def t_timestamp_converter(rng, ch: Chain):
    if ch.value != "row":
        return None
    o = {
        "type": K + "TimestampConverter$Value",
        "field": rng.choice(ch.times),
        "target.type": _pick(rng, "string", "unix", "Timestamp", "Date"),
    }
    if o["target.type"] == "string":
        o["format"] = _pick(rng, "yyyy-MM-dd HH:mm:ss.SSS", "yyyy/MM/dd", "dd.MM.yy 'at' HH:mm")
    if o["target.type"] == "unix" and rng.random() < 0.5:
        o["unix.precision"] = _pick(rng, "seconds", "microseconds", "nanoseconds")
    return o


def t_partition_routing(rng, ch: Chain):
    if ch.value != "envelope":
        return None
    o = {
        "type": D + "partitions.PartitionRouting",
        "partition.payload.fields": _pick(rng, "change.id", "source.table", "change.id,source.table"),
        "partition.topic.num": str(rng.randint(2, 5)),
    }
    if rng.random() < 0.5:
        o["partition.hash.function"] = _pick(rng, "java", "murmur")
    return o


def t_schema_change_filter(rng, ch: Chain):
    """Debezium's SchemaChangeEventFilter: drops MySQL/MariaDB schema-change records of the listed kinds."""
    if ch.db != "mariadb" and rng.random() < 0.8:  # PostgreSQL has no schema-change records
        return None
    kinds = _subset(rng, ["CREATE", "ALTER", "DROP", "TRUNCATE", "DATABASE"])
    return {"type": D + "SchemaChangeEventFilter", "schema.change.event.exclude.list": ",".join(kinds)}


def t_timestamp_router(rng, ch: Chain):
    return {
        "type": K + "TimestampRouter",
        "topic.format": "${topic}-${timestamp}",
        "timestamp.format": "yyyyMM",
    }


# (draw weight, generator); a generator returns None where it does not fit the chain so far
TRANSFORMS = [
    (6, t_unwrap),
    (2, t_changed),
    (4, t_outbox),
    (3, t_regex_router),
    (2, t_logical_router),
    (3, t_replace_field),
    (3, t_insert_field),
    (2, t_insert_header),
    (2, t_drop_headers),
    (2, t_header_from),
    (2, t_header_to_value),
    (2, t_value_to_key),
    (2, t_extract_field),
    (1, t_hoist),
    (2, t_flatten),
    (2, t_cast),
    (2, t_mask),
    (1, t_schema_metadata),
    (2, t_filter),
    (2, t_timezone),
    (2, t_timestamp_converter),
    (2, t_partition_routing),
    (1, t_timestamp_router),
    (2, t_schema_change_filter),
]
SHAPE_CHANGING = {t_unwrap, t_outbox, t_header_from, t_value_to_key, t_extract_field, t_hoist, t_flatten}


def draw_predicate(rng, ch: Chain) -> dict:
    kind = rng.randrange(3)
    if kind == 0:
        return {
            "type": P + "TopicNameMatches",
            "pattern": _pick(
                rng, ".*customers", ".*orders.*", ".*products", ".*(events|gadgets)", "dbserver1"
            ),
        }
    if kind == 1:
        return {"type": P + "HasHeaderKey", "name": rng.choice(ch.headers or ["app"])}
    return {"type": P + "RecordIsTombstone"}


def draw_chain(rng: random.Random, ch: Chain) -> dict[str, str]:
    props: dict[str, str] = {}
    aliases: list[str] = []
    preds: list[str] = []
    n = rng.choice((1, 1, 2, 2, 3, 4))
    weights = [w for w, _ in TRANSFORMS]
    tries = 0
    while len(aliases) < n and tries < 50:
        tries += 1
        gen = rng.choices([g for _, g in TRANSFORMS], weights)[0]
        before = replace(ch, headers=list(ch.headers))
        opts = gen(rng, ch)
        if opts is None:
            continue
        alias = f"t{len(aliases)}"
        aliases.append(alias)
        if opts.pop("_skip", None):  # not on tombstones
            p = f"p{len(preds)}"
            preds.append(p)
            props[f"predicates.{p}.type"] = P + "RecordIsTombstone"
            opts["predicate"] = p
            opts["negate"] = "true"
        elif gen is t_filter or rng.random() < 0.3:
            p = f"p{len(preds)}"
            preds.append(p)
            for k, v in draw_predicate(rng, before).items():
                props[f"predicates.{p}.{k}"] = v
            opts["predicate"] = p
            if rng.random() < 0.4:
                opts["negate"] = "true"
            if gen in SHAPE_CHANGING:  # applied to some records only: the shape is no longer known
                ch.value = ch.key = "other"
        for k, v in opts.items():
            props[f"transforms.{alias}.{k}"] = v
    if aliases:
        props["transforms"] = ",".join(aliases)
    if preds:
        props["predicates"] = ",".join(preds)
    return props


def draw_converters(rng: random.Random, ch: Chain, scope: str) -> dict[str, str]:
    props: dict[str, str] = {}

    def json_conv(part: str) -> None:
        props[f"{part}.converter"] = JSON
        props[f"{part}.converter.schemas.enable"] = _pick(rng, "true", "false")
        if part != "header" and rng.random() < 0.4:
            props[f"{part}.converter.decimal.format"] = _pick(rng, "BASE64", "NUMERIC")
        if part != "header" and rng.random() < 0.3:
            props[f"{part}.converter.replace.null.with.default"] = _pick(rng, "true", "false")

    def avro_conv(part: str) -> None:
        props[f"{part}.converter"] = AVRO
        props[f"{part}.converter.schema.registry.url"] = f"mock://{scope}"
        if rng.random() < 0.25:
            props[f"{part}.converter.connect.meta.data"] = "false"
        if rng.random() < 0.2:
            strategy = _pick(rng, "TopicRecordNameStrategy", "RecordNameStrategy")
            side = "key" if part == "key" else "value"  # a header's AvroConverter is not a key one
            props[f"{part}.converter.{side}.subject.name.strategy"] = (
                f"io.confluent.kafka.serializers.subject.{strategy}"
            )
        r = rng.random()
        if r < 0.12:
            # the subjects registered beforehand (the harness registers what an auto-registering run of
            # Debezium registered: PREREGISTER) and the converter only looks them up
            props[f"{part}.converter.auto.register.schemas"] = "false"
            if rng.random() < 0.6:
                props[f"{part}.converter.use.latest.version"] = "true"
            if rng.random() < 0.85:
                props[PREREGISTER] = "true"
        elif r < 0.18:
            props[f"{part}.converter.use.latest.version"] = "true"  # read only without auto.register

    r = rng.random()
    if r < 0.55:
        json_conv("key")
    elif r < 0.7:
        props["key.converter"] = STRING
    else:
        avro_conv("key")
    r = rng.random()
    if ch.value == "envelope" and not ch.headers and r < 0.15:
        props["value.converter"] = CLOUDEVENTS
        props["value.converter.serializer.type"] = "json"
        if rng.random() < 0.4:
            # Avro data: Debezium hands the `avro.`-prefixed options to its own AvroConverter
            props["value.converter.data.serializer.type"] = "avro"
            props["value.converter.avro.schema.registry.url"] = f"mock://{scope}"
            if rng.random() < 0.2:
                props["value.converter.avro.connect.meta.data"] = "false"
        else:
            props["value.converter.data.serializer.type"] = "json"
            if rng.random() < 0.3:
                props["value.converter.json.schemas.enable"] = "false"
        if rng.random() < 0.3:
            props["value.converter.extension.attributes.enable"] = "false"
    elif r < 0.65:
        json_conv("value")
    elif r < 0.72:
        props["value.converter"] = STRING
    else:
        avro_conv("value")
    r = rng.random()
    if r < 0.5:
        props["header.converter"] = SIMPLE
    elif r < 0.88:
        json_conv("header")
    else:
        props["header.converter"] = STRING  # (AvroConverter is no HeaderConverter: Connect refuses it)
    return props


def draw(seed: int, trial: int, db: str) -> tuple[dict[str, str], str]:
    """-> (the trial's properties, its workload's file name in tests/data/connect)."""
    rng = random.Random(f"{seed}/{trial}/{db}")
    workload = rng.choice(WORKLOADS[db])
    # (session 12) Debezium's binlog custom converters in ~35 % of the MariaDB trials, from a random stream of
    # its own: the other trials keep their draws
    conv = random.Random(f"conv-{seed}/{trial}/{db}")
    converters = db == "mariadb" and conv.random() < 0.35
    if converters:
        workload = "mariadb_converters_connect.sql"
    tables = "outbox" if rng.random() < 0.2 else "tables"
    cols, times = COLUMNS[workload]
    ch = Chain(db, tables=tables, cols=list(cols), times=list(times))
    props = base_props(db, tables)
    if workload not in ("pg_connect.sql", "mariadb_connect.sql"):
        props.pop("table.include.list")  # its own tables
        ch.tables = "all"
    if rng.random() < 0.2:
        props["decimal.handling.mode"] = _pick(rng, "double", "string")
    if rng.random() < 0.15:
        props["provide.transaction.metadata"] = "true"
    if rng.random() < 0.15:
        props["errors.tolerance"] = "all"
    props.update(draw_connector_options(rng, db))
    if converters:
        props.update(conv_props(conv, "convs"))
    props.update(draw_chain(rng, ch))
    props.update(draw_converters(rng, ch, f"s{seed}-{trial}"))
    # (session 15) options users commonly set that the draws above never do, from a stream of their own; (sessions
    # 16, 17) more of them, from others
    props = add_extras(seed, trial, db, workload, props)
    props = add_s16(seed, trial, db, workload, props)
    props = add_s17(seed, trial, db, workload, props, list(cols))
    props, workload = add_s18(seed, trial, db, workload, props)  # (session 18: from seed 96)
    props, workload = add_s19(seed, trial, db, workload, props)  # (session 19: from seed 102)
    props, workload = add_s20(seed, trial, db, workload, props)  # (session 20: from seed 109)
    props, workload = add_s21(seed, trial, db, workload, props)  # (session 21: from seed 118)
    props, workload = add_s22(seed, trial, db, workload, props)  # (session 22: from seed 131)
    props, workload = add_s23(seed, trial, db, workload, props)  # (session 23: from seed 141)
    return add_s24(seed, trial, db, workload, props)  # (session 24: from seed 152)
