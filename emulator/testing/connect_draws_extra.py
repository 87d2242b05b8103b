"""Options of the data-plane campaign that Debezium users commonly set and the first generator
(emulator.testing.connect_draws) never drew (session 15): connector options that change keys and values
before the chain (`message.key.columns`, column masks and truncation, `column.exclude.list`,
`include.schema.changes`), options of transforms already in the chain (`InsertField` `timestamp.field`,
`ReplaceField` `replace.null.with.default`, `TimezoneConverter` include/exclude lists, `ExtractField`
V2 nested paths, `EventRouter` `table.op.invalid.behavior` and `table.json.payload.null.behavior`,
`ExtractNewRecordState` `drop.fields.*` behind an `ExtractChangedRecordState`) and the error log options.

They come from a random stream of their own and only add properties (or an `x0` stage before a first
`ExtractNewRecordState`), so every older seed keeps its workload, chain and converters.
"""

from __future__ import annotations

import random

D = "io.debezium.transforms."
K = "org.apache.kafka.connect.transforms."

# per workload: (schema or database, the table whose temporal columns TimezoneConverter rules name, those
# columns, message.key.columns choices)
TABLES = {
    "pg_connect.sql": ("public", "products", ("made_at", "created"), ("customers:email", "products:id,name")),
    "pg_types_connect.sql": ("public", "typed", ("ts", "day", "tstz"), ("typed:id,label",)),
    "pg_more_connect.sql": ("public", "events", ("at_local", "at_tz"), ("logs:msg", "events:kind")),
    "pg_key_defaults_connect.sql": ("public", "ud", ("d",), ("ud:a,b", "mk:g")),
    "mariadb_connect.sql": (
        "inventory",
        "products",
        ("made_at", "created", "stamped"),
        ("customers:email", "products:id,name"),
    ),
    "mariadb_more_connect.sql": ("inventory", "gadgets", ("dt", "ts"), ("logs:msg,n", "gadgets:size")),
    "mariadb_converters_connect.sql": ("inventory", "convs", ("dt3", "ts2"), ("convs:c1", "convs_k:b")),
}
# text columns of the workloads (a regex over <schema or database>.<table>.<column>)
TEXT_COLUMNS = r".*\.(email|note|label|body|msg|txt|c1|v|name)"


def _aliases(props: dict[str, str]) -> list[str]:
    return [a for a in props.get("transforms", "").split(",") if a]


def _type(props: dict[str, str], alias: str) -> str:
    return props.get(f"transforms.{alias}.type", "").removeprefix(D).removeprefix(K)


def connector_extras(rng: random.Random, db: str, workload: str) -> dict[str, str]:
    ns, _table, _times, keys = TABLES[workload]
    props: dict[str, str] = {}
    if rng.random() < 0.15:
        chosen = rng.sample(keys, rng.randint(1, len(keys)))
        props["message.key.columns"] = ";".join(f"{ns}.{k}" for k in chosen)
    r = rng.random()
    if r < 0.06:
        props[f"column.truncate.to.{rng.choice((1, 3, 8))}.chars"] = TEXT_COLUMNS
    elif r < 0.12:
        props[f"column.mask.with.{rng.choice((0, 4))}.chars"] = TEXT_COLUMNS
    elif r < 0.16:
        algo = rng.choice(("SHA-256", "MD5"))
        props[f"column.mask.hash.{algo}.with.salt.CzQMA0cB5K"] = TEXT_COLUMNS
    if rng.random() < 0.08:
        props["column.exclude.list"] = rf"{ns}\..*\.(note|price|weight|body)"
    if db == "mariadb" and rng.random() < 0.1:
        props["include.schema.changes"] = "false"
    return props


def chain_extras(rng: random.Random, props: dict[str, str], workload: str) -> dict[str, str]:
    """Options added to the stages the chain already has; -> the new properties."""
    ns, table, times, _keys = TABLES[workload]
    aliases = _aliases(props)
    out = dict(props)
    for i, a in enumerate(aliases):
        t, pre = _type(props, a), f"transforms.{a}."
        if t == "InsertField$Value" and rng.random() < 0.35:
            # Debezium's SourceRecords carry no timestamp: null, or a failed record where the field is required
            out[pre + "timestamp.field"] = rng.choice(("rec_time", "rec_time?", "rec_time!"))
        elif t.startswith("ReplaceField$") and rng.random() < 0.3:
            out[pre + "replace.null.with.default"] = rng.choice(("true", "false"))
        elif t == "TimezoneConverter" and rng.random() < 0.4:
            rules = rng.choice(
                (
                    f"source:{table}",
                    f"topic:dbserver1.{ns}.{table}",
                    f"{table}:{rng.choice(times)}",
                    f"source:{table}:{rng.choice(times)},{table}:{times[0]}",
                )
            )
            out[pre + rng.choice(("include.list", "exclude.list"))] = rules
        elif t == "ExtractField$Value" and props.get(pre + "field") == "after" and i == len(aliases) - 1:
            if rng.random() < 0.4:
                out[pre + "field"] = "after.id"
                out[pre + "field.syntax.version"] = "V2"
        elif t == "outbox.EventRouter":
            if rng.random() < 0.25:
                out[pre + "table.op.invalid.behavior"] = rng.choice(("warn", "error", "fatal"))
            if props.get(pre + "table.expand.json.payload") == "true" and rng.random() < 0.5:
                out[pre + "table.json.payload.null.behavior"] = "optional_bytes"
    if aliases and _type(props, aliases[0]) == "ExtractNewRecordState" and rng.random() < 0.3:
        # the documented pair: ExtractChangedRecordState names the unchanged fields in a header and
        # ExtractNewRecordState drops them
        out["transforms"] = ",".join(["x0"] + aliases)
        out["transforms.x0.type"] = D + "ExtractChangedRecordState"
        out["transforms.x0.header.unchanged.name"] = "Unchanged"
        pre = f"transforms.{aliases[0]}."
        out[pre + "drop.fields.header.name"] = "Unchanged"
        if rng.random() < 0.5:
            out[pre + "drop.fields.from.key"] = rng.choice(("true", "false"))
        if rng.random() < 0.5:
            out[pre + "drop.fields.keep.schema.compatible"] = rng.choice(("true", "false"))
    if out.get("errors.tolerance") == "all" and rng.random() < 0.5:
        out["errors.log.enable"] = "true"
        if rng.random() < 0.5:
            out["errors.log.include.messages"] = "true"
    return out


def add_extras(seed: int, trial: int, db: str, workload: str, props: dict[str, str]) -> dict[str, str]:
    rng = random.Random(f"extra-{seed}/{trial}/{db}")
    if rng.random() >= 0.6:
        return props
    out = dict(props)
    out.update(connector_extras(rng, db, workload))
    return chain_extras(rng, out, workload)
